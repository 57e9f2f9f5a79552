"""The designs page's supply side (notebook 06): spares, repairs and what decides the ranking, for people.

:func:`planned_designs` holds the plan's one spare pool (the requirements
page's) in the spare-pool designs, :func:`repair_row` says where the repair
time came from, the shelf functions follow swapped parts over time, and
:func:`capacity_block` and :func:`swings_block` show the assumptions a
purchase rests on with their sources and which one decides the ranking.
"""

import numpy as np
import pandas as pd

from ...tables import count, duration, number, pct
from ...units import hours
from ..blocks import present as P

__all__ = ["planned_designs", "repair_row", "shelf_count", "shelf_needed", "shelf_block", "capacity_block",
           "swings_block"]


def _share(p):
    return "under 0.01%" if p < 1e-4 else pct(p, 2 if p < 0.1 else 1)


def _ettr(e):
    return "under 0.1%" if np.isfinite(e) and e < 0.0005 else pct(e)


def planned_designs(names, n_gpus, spares=None):
    """The named designs at ``n_gpus`` (:func:`relmodel.scale.design.designs.design_presets`), a dict by name.

    With ``spares`` (the plan's :class:`~relmodel.report.notebook_pages.requirement_page.SparePlanned`), the
    spare-pool designs hold the requirements page's pool instead of the presets' 1% of the nodes, so a
    purchase is priced with the one spare count of the plan.
    """
    import dataclasses
    from ...scale.design.designs import design_presets
    presets = design_presets(n_gpus)
    if spares is None:
        return presets
    out = {}
    for name, c in presets.items():
        if c.domain_policy == "spare-pool":
            said = (f"Spare pool of {count(spares.n_spares)} nodes, the requirements page's pool for this plan "
                    f"(repairs: {spares.repair_words}), any node replaces any other.")
            c = dataclasses.replace(c, spare_pool=int(spares.n_spares),
                                    assumptions=c.assumptions.replace(
                                        "Assumed: spare pool of 1% of the nodes, any node replaces any other.", said))
        out[name] = c
    return out


def repair_row(repair_time, spares):
    """``(value, source)`` of the repair time the designs use: the parameter, or the plan's mean repair."""
    if repair_time is not None:
        return f"{duration(hours(repair_time))}, exponential", "assumed (parameter repair_time)"
    if spares is None:
        return f"{duration(24.0)}, exponential", "assumed: the data give no repairs (parameter repair_time)"
    return (f"{duration(spares.repair_mean_h)} mean, taken as exponential",
            f"the mean repair the requirements page sizes its spare nodes with ({spares.repair_words})")


def shelf_count(rate_per_h, lead_time_h, risk=0.01):
    """Smallest shelf that is empty at most ``risk`` of the time once settled (parts away are Poisson), an int."""
    from scipy import stats
    return int(stats.poisson.ppf(1.0 - risk, rate_per_h * lead_time_h) + 1)


def shelf_needed(rate_per_h, lead_time_h, risk=0.01):
    """:func:`shelf_count` as people read it ("1,234")."""
    return count(shelf_count(rate_per_h, lead_time_h, risk))


def _part(cluster):
    """What the examined design swaps: a tray (a scale-up domain of several trays) or a node."""
    return "tray" if cluster is not None and (getattr(cluster, "scaleup_gpus", None) or 0) > cluster.gpus_per_node \
        else "node"


def shelf_block(shelf, rate_per_h, lead_time, cluster=None, spares=None, given=False):
    """Spare parts on the shelf over time: the chance none is left, in percent.

    ``cluster`` names what is swapped (trays of a rack-scale design, else
    nodes); ``spares`` (the plan's pool) is named beside it when the part or
    the rate differ, so the two counts are not read as one; ``given``: the
    stock is the ``shelf_spares`` parameter rather than the count needed.
    """
    f = shelf.frame.iloc[np.unique(np.linspace(0, len(shelf.frame) - 1, 7).round().astype(int))]
    col = f["p_empty"] if f["p_empty"].notna().all() else f["p_empty_sim"]
    part = _part(cluster)
    parts = lambda n: f"{count(n)} spare {part}{'' if int(n) == 1 else 's'}"  # noqa: E731
    who = f" of {cluster.name}" if cluster is not None else ""
    need = shelf_count(rate_per_h, lead_time)
    lead = (f"Hardware failures{who} that need a {part} swapped: {number(24 * rate_per_h, 3)} a day; each swapped "
            f"{part} is away for a mean of {duration(lead_time)} (repair or return to the vendor). ")
    start = (f"With {parts(shelf.spares)} on the shelf (parameter shelf_spares) from a full start"
             if given else f"{parts(need)} keep the shelf empty under 1% of the time once settled; from a full start "
                           "with that many")
    text = (lead + start + f", the shelf is empty {_share(float(col.iloc[-1]))} of the time on day "
            f"{number(shelf.horizon_h / 24, 3)} and {_share(shelf.stationary)} once settled; the chance it runs dry at "
            f"least once by then is {_share(shelf.p_ever_empty)} (over {count(shelf.n_runs)} simulated "
            f"{'run' if shelf.n_runs == 1 else 'runs'}).")
    if given:
        text += f" {parts(need)} keep it empty under 1% of the time once settled."
    if spares is not None and not (part == "node" and int(spares.n_spares) == need):
        text += (f" The requirements page's {count(spares.n_spares)} spare nodes are the planned job's pool of 8-GPU "
                 f"nodes at its own swap rate; this is the stock of the examined design's own {part}s.")
    df = pd.DataFrame({"day": f["t_days"], "empty": col, "ever": f["p_ever_empty_sim"]})
    if float(df[["empty", "ever"]].max().max()) < 1e-4:
        return P.paragraph(text)
    return P.blocks(P.paragraph(text), P.table(df, [("day", "Day", lambda v: number(v, 3)),
                                                   ("empty", "No spare on the shelf", _share),
                                                   ("ever", "Ran dry at least once by then", _share)]))


def capacity_block(result, repair, restart, rack_fit, spares_fail_idle=True, repair_said=None):
    """The repair, spare, rack and restart assumptions of the examined design: value used and where it came from.

    ``result`` is a :class:`relmodel.scale.design.design_result.DesignResult`; a
    rack FIT of 0 adds the warning that no published figure gives one.
    """
    from ...scale.design.design_capacity import RACK_FIT_SOURCE
    r = result
    crews = ("unlimited: every failed part is repaired at once" if r.crews is None else
             f"{count(r.crews)} crews in parallel; a failed part is out {duration(r.repair_out_h)} on average "
             "with its wait for a crew (Erlang C) and the lead time")
    idle = ("as in service, " + number(24 * r.spare_rate_per_h, 3) + " failures a day per spare unit: hot spares are "
            "powered, health-checked servers of the same build (MegaScale keeps such standbys, arXiv 2402.15627)"
            if spares_fail_idle and r.spare_rate_per_h else "never (parameter spares_fail_idle)")
    rack = f"{number(rack_fit, 3)} failures per 10^9 rack-hours" if rack_fit else "none (rack_fit 0)"
    from ...scale.targets.restart_growth import RESTART_GROWTH_SOURCE
    growth = getattr(restart, "per_1k_ranks", 0) or getattr(restart, "per_doubling", 0)
    if growth:
        grow_h = r.restart_h - (restart.hours_at(1) - restart.growth_h(1))   # at the size the design was costed
        restart_text = (f"{duration(r.restart_h)} at this design's size, {duration(grow_h)} of it start-up growing "
                        "with the ranks (not exposed to failures)")
        restart_source = f"parameter restart, plus {RESTART_GROWTH_SOURCE} (parameter restart_grows)"
    else:
        restart_text = f"{duration(r.restart_h)}, the same at every size"
        restart_source = "parameter restart; start-up growing with the ranks is off (parameter restart_grows)"
    value, source = repair_said or (f"{duration(hours(repair))}, exponential", "assumed (parameter repair_time)")
    rows = pd.DataFrame([
        ("Repair time of a tray, node or rack", value, source),
        ("Repair crews", crews, "parameter crews"),
        ("RMA lead time", duration(r.rma_lead_time_h) if r.rma_lead_time_h else "none",
         "parameter rma_lead_time"),
        ("Idle spares failing", idle, "assumed (parameter spares_fail_idle)"),
        ("Whole-rack faults", rack, "parameter rack_fit (no published figure gives it for GPU racks); estimate it "
         "from a log with relmodel.scale.rack_fault_rate"),
        ("Restart", restart_text, restart_source)], columns=["what", "value", "source"])
    table = P.table(rows, [("what", "Assumption", str), ("value", "Value used", str), ("source", "Where it comes from", str)])
    warn = None if rack_fit else P.note("Whole-rack faults are left out: " + RACK_FIT_SOURCE.split(", so ")[0] + ". "
                                        "The ranking of rack-scale designs can turn on this rate; see the swings "
                                        "below.", "warning")
    return P.blocks(table, warn)


def swings_block(swings):
    """Which assumption decides the ranking: the sentence and the table of swings."""
    t = swings.frame
    top, deciding = t.iloc[0], swings.deciding()
    text = (f"At this page's values {swings.base_best} gives the most goodput per GPU bought "
            f"({_ettr(swings.base_goodput)}). Each assumption below is moved between its two ends with the others "
            f"held; the one that moves that figure most is {top['assumption']} ({_ettr(top['goodput_low'])} to "
            f"{_ettr(top['goodput_high'])}).")
    text += (f" The ranking turns on {', '.join(deciding)}: between its ends the best design changes, so that is "
             "the figure to pin down before buying." if deciding else
             " No single assumption, moved between its ends, changes which design is best.")
    cols = [("assumption", "Assumption", str), ("low", "Low end", str), ("high", "High end", str),
            ("goodput_low", f"Goodput per GPU bought of {swings.base_best}, low end", _ettr),
            ("goodput_high", "… high end", _ettr), ("best_low", "Best design, low end", str),
            ("best_high", "Best design, high end", str)]
    return P.blocks(P.paragraph(text), P.table(t, cols))
