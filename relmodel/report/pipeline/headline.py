"""summary.json's headline: the job's answer alone, each input's source said of this report, the design pages'
figures under ``designs`` and, when page 09 found bad nodes, the lifecycle's answer under ``fleet``."""

import math

from ..blocks import present as P
from ..blocks.markup import HEADLINE

__all__ = ["headline_of", "designs_of", "fleet_of", "fleet_sentence"]


def _ok(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _range(lo, hi):
    """`` (84.4–86.1%)``, or nothing when there is no range or it rounds to one value."""
    if not (_ok(lo) and _ok(hi)) or P.pct(lo) == P.pct(hi):
        return ""
    return f" ({P.pct_range(lo, hi)})"


#: Report parameters behind each input a decision names (a parameter not given is the default: an assumption).
_PARAMETER_OF = {"n_gpus": "n_gpus", "gpus_per_node": "gpus_per_node", "source_gpus_per_node": "gpus_per_node",
                 "target_ettr": "target_ettr", "ckpt_cost": "ckpt_cost", "restart": "restart",
                 "source_gpus": ("source_gpus", "population")}


def _given_as(key):
    """The report parameters that give a headline input (population gives the observed cluster too)."""
    names = _PARAMETER_OF.get(key, key)
    return (names,) if isinstance(names, str) else names


def headline_of(merged, parameters):
    """summary.json's ``headline``: the decision's own headline (:meth:`Decision.headline`), each input's source
    said of this report (a parameter left at its default is an assumption), and the design pages' figures."""
    head = dict(merged.get("headline") or {})
    if not head:
        head = {k: merged[k] for k in HEADLINE if k in merged and k in ("job_mtbf_h", "optimal_interval_h", "ettr",
                                                                          "required_node_mtbf_h")}
    given = set(parameters or {})
    if isinstance(head.get("source"), dict):
        head["source"] = {k: ("assumption" if v == "parameter" and not given.intersection(_given_as(k)) else v)
                          for k, v in head["source"].items()}
    return head


def fleet_of(merged):
    """The lifecycle's answer when page 09 found bad nodes: ETTR never retiring and under the best policy, with
    their ranges (the headline's ``fleet``); {} when it did not run on such a fleet."""
    from ...scale.lifecycle.fleet_answer import fleet_figures
    r, b = merged.get("retirement"), merged.get("bad_nodes")
    if not (isinstance(r, dict) and isinstance(b, dict) and b.get("heterogeneous") and r.get("policies")):
        return {}
    return fleet_figures(r["policies"], r.get("best"))


def fleet_sentence(fleet):
    """The headline's ETTR beside the lifecycle's, when the log shows bad nodes."""
    if not fleet or not _ok(fleet.get("ettr_never")):
        return ""
    text = (f"With the bad nodes this log shows simulated at the planned size on the same plan (page 09: this "
            f"interval, checkpoint cost, restart and today's rates), ETTR is "
            f"{P.pct(fleet['ettr_never'])}{_range(fleet.get('ettr_never_lo'), fleet.get('ettr_never_hi'))} never "
            "retiring a node")
    if fleet.get("policy") and _ok(fleet.get("ettr_best")) and fleet["policy"] != "never retire":
        text += (f" and {P.pct(fleet['ettr_best'])}{_range(fleet.get('ettr_best_lo'), fleet.get('ettr_best_hi'))} "
                 f"retiring by \"{fleet['policy']}\"")
    return text + "; the figures above take the nodes as interchangeable."


def designs_of(merged):
    """summary.json's ``designs``: the design page's figures, apart from the job's headline; the ``design_*`` figures
    are of ``examined_design`` (the page's ``design`` parameter), which need not be ``best_design``."""
    keys = [k for k in merged if k.startswith("design_") or k in ("best_design", "examined_design", "deciding_assumptions",
                                                                   "transceiver_mtbf_h_at_largest")]
    return {k: merged[k] for k in keys}
