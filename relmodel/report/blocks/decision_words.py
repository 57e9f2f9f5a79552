"""The four decisions a head of infrastructure takes from a report, each a sentence with the assumption behind it.

The interval (the decision record), the node MTBF to demand from the node
vendor (the requirements page's ``vendor`` record, its sentence the library's
:meth:`~relmodel.scale.targets.vendor.VendorRequirement.text`), the spare
nodes (its ``spares`` record: the pool, the repair time it assumes and where
that comes from, and the pool at 1 to 14 days of repair), and the nodes to
pull (page 09's ``bad_nodes`` record).  :func:`decision_sentences` builds
them once from the merged records; the index, summary.json and the pages
show these same sentences.
"""

import dataclasses
import math

from . import present as P

__all__ = ["decision_sentences", "spares_sentence", "repair_swing_sentence", "vendor_sentence", "nodes_decision", "swing_rows",
           "paper_sentence"]


#: Below this ETTR no schedule makes the job useful (the summarise step's rule, :data:`.summarise.USEFUL_ETTR`).
USEFUL_ETTR = 0.5


def _ok(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def vendor_sentence(v):
    """The vendor's node MTBF sentence from a ``vendor`` record (a VendorRequirement's to_dict)."""
    from ...scale.targets.vendor import VendorRequirement
    if not isinstance(v, dict):
        return ""
    fields = {f.name: v.get(f.name) for f in dataclasses.fields(VendorRequirement)}
    if fields["node_mtbf_hi"] is None and _ok(fields["node_mtbf_lo"]):
        fields["node_mtbf_hi"] = math.inf
    return VendorRequirement(**fields).text()


def spares_sentence(s):
    """The spare pool in one sentence, with the repair time it assumes and the pool at other repair times."""
    if not isinstance(s, dict) or not _ok(s.get("n_spares")):
        return ""
    lo, hi = s.get("n_spares_lo"), s.get("n_spares_hi")
    rng = (f" ({P.count(lo)}–{P.count(hi)} over the rates' uncertainty)" if _ok(lo) and _ok(hi)
           and P.count(lo) != P.count(hi) else "")
    return (f"Keep {P.count(s['n_spares'])} spare nodes{rng} so that a node failure finds none free at most "
            f"{P.pct(s['target'], 1)} of the time. {repair_swing_sentence(s)}")


def repair_swing_sentence(s):
    """The repair time the pool assumes, where it comes from, and the pool at 1 to 14 days of repair."""
    if not isinstance(s, dict) or not _ok(s.get("repair_mean_h")):
        return ""
    by = sorted((float(d), n) for d, n in (s.get("by_repair_days") or {}).items())
    others = ", ".join(f"{P.count(n)} at {d:g} d" for d, n in by)
    return (f"That assumes repairs of {P.duration(s['repair_mean_h'])} on average, {s.get('repair_from', 'assumed')} "
            f"(planned maintenance left out). The repair time decides the pool: {others} of mean repair or return "
            "time.")


def nodes_decision(records):
    """Which nodes to pull, or why none is named."""
    b = records.get("bad_nodes")
    if isinstance(b, dict):
        from .node_words import nodes_sentences
        return nodes_sentences(records)[0]
    src = records.get("source") or {}
    if records.get("bad_nodes_why"):
        return f"No node named: {records['bad_nodes_why']}"
    if src.get("kind") == "counts":
        return "A count table names no nodes, so none can be named to pull; a log with nodes can (page 09)."
    return "Not estimated for this data (see page 09)."


def _ettr_range(d):
    """`` (26.7–49.7% over the failure rate's 95% range)``, or nothing when there is none."""
    lo, hi = d.get("ettr_lo"), d.get("ettr_hi")
    if not (_ok(lo) and _ok(hi)) or P.pct(lo) == P.pct(hi):
        return ""
    return f" ({P.pct_range(lo, hi)} over the failure rate's {P.pct(d.get('conf', 0.95), 0)} range)"


def decision_sentences(records):
    """``{interval, vendor, spares, nodes}``: the four decisions as sentences ("" where the data give none)."""
    d = records.get("decision") or {}
    out = {"interval": "", "vendor": vendor_sentence(records.get("vendor")),
           "spares": spares_sentence(records.get("spares")), "nodes": nodes_decision(records)}
    if not d and records.get("no_gpu_answer"):  # a disk log without units_per_node: say why, not nothing
        why = f"No answer for a GPU job: {str(records['no_gpu_answer']).rstrip('.')}."
        out.update({k: out[k] or why for k in ("interval", "vendor", "spares")})
        return out
    if d and _ok(d.get("interval_h")):
        lo, hi = d.get("interval_lo"), d.get("interval_hi")
        rng = (f" ({P.duration(lo)} to {P.duration(hi)} over the failure rate's {P.pct(d.get('conf', 0.95), 0)} range)"
               if _ok(lo) and _ok(hi) and P.duration(lo) != P.duration(hi) else "")
        if _ok(d.get("ettr")) and d["ettr"] < USEFUL_ETTR:
            out["interval"] = (f"No checkpoint interval makes this job useful: even the best, every "
                               f"{P.duration(d['interval_h'])}, leaves {P.pct(d['ettr'])}{_ettr_range(d)} of its wall "
                               "time training "
                               f"(a job MTBF of {P.duration(d['job_mtbf_h'])} against restarts of "
                               f"{P.duration(d['restart_h'], digits=3)}); the answers say what would change it.")
            return out
        out["interval"] = (f"Checkpoint every {P.duration(d['interval_h'])}{rng}, for an ETTR of "
                           f"{P.pct(d['ettr'])}, with checkpoints that cost {P.duration(d['ckpt_cost_h'])} and restarts "
                           f"of {P.duration(d['restart_h'], digits=3)}.")
    return out


def swing_rows(records):
    """The swings table's rows as ``[input, used, range tried, ETTR, node MTBF to demand, spare nodes]``."""
    rows = records.get("swings")
    if not isinstance(rows, list):
        return []

    def two(a, b, fmt):
        return f"{fmt(a)} → {fmt(b)}" if a is not None and b is not None else "—"

    def node(h):
        return P.hours_text(h) if _ok(h) else "out of reach"
    out = []
    for r in rows:
        vend = (two(r.get("vendor_low"), r.get("vendor_high"), node)
                if r.get("ettr_low") is not None else "—")
        out.append([r["input"], r["used"], f"{r['low']} to {r['high']}",
                    two(r.get("ettr_low"), r.get("ettr_high"), P.pct), vend,
                    two(r.get("spares_low"), r.get("spares_high"), P.count)])
    return out


#: What the Llama 3 paper reports for the run of the bundled table (Meta 2024, arXiv 2407.21783, section 3.3.4).
LLAMA3_REPORTED = 0.90


def population_caveat(records):
    """When the log's nodes are taken as the whole cluster (no population given): what every decision rests on,
    and how to say otherwise; else ""."""
    src, d = records.get("source") or {}, records.get("decision") or {}
    if src.get("kind") != "log" or "seen in the log" not in str(src.get("cluster_from", "")) or not d:
        return ""
    n, unit = src.get("units"), "node" if src.get("unit", "gpu-node") == "gpu-node" else src.get("unit")
    return (f"Every answer here takes the {P.count(n)} {unit}s the log names as the whole cluster observed. A log "
            f"that lists only the {unit}s that failed leaves out those that did not: if more were watched, today's "
            f"rates per {unit} are too high by that ratio, so today's MTBF reads too low, the improvement asked of the "
            f"vendor too large, the interval too short and the spares too many (the MTBF the target needs is the "
            f"same). Give the {unit}s watched (population=N, or --population N).")


def paper_sentence(records):
    """On the bundled Llama 3 table: what the paper reported, and which defaults explain the difference."""
    src, d = records.get("source") or {}, records.get("decision") or {}
    if not str(src.get("name", "")).startswith("Llama 3") or not d or not _ok(d.get("ettr")):
        return ""
    text = (f"The Llama 3 paper reports an effective training time above {P.pct(LLAMA3_REPORTED, 0)} for this run "
            f"(Meta 2024, section 3.3.4); this report's {P.pct(d['ettr'])} rests on its assumed "
            f"{P.duration(d['ckpt_cost_h'])} checkpoint and {P.duration(d['restart_h'], digits=3)} restart, which the paper "
            "does not state.")
    ends = []
    for r in records.get("swings") or []:
        if r.get("input") in ("restart", "checkpoint cost") and _ok(r.get("ettr_low")):
            what = "restart" if r["input"] == "restart" else "checkpoint"
            ends.append(f"a {what} of {r['low']} gives {P.pct(r['ettr_low'])}")
    if ends:
        text += " With the same failures, " + " and ".join(ends) + "."
    return text
