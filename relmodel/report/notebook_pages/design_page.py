"""The cluster-designs page (notebook 06): its data, sentences and tables for people.

:func:`design_source` turns the report's source (the log or count table the
other pages read, a :class:`~relmodel.data.source.Source`) into the count
table every design's rates are scaled from, keeping the observed cluster the
report states (``source_gpus``).  The other functions build the page's
blocks from the numeric results of :mod:`relmodel.scale`: sentences with
ETTR in percent, tables with every column defined, the optics table folded
to one row per size and fabric, and the models a purchase rests on (stall
time waiting for spares, costs used, design warnings, whole-domain FIT
sensitivity, what one event takes out, spares over time).
"""

from dataclasses import dataclass

from relmodel.base.escape import html_text

import numpy as np
import pandas as pd

from ...data.shaping.counts import count_table
from ...tables import count, duration, hours_text, number, pct, pct_range
from ..blocks import present as P
from .design_supply import _ettr, _share

__all__ = ["DesignSource", "design_source", "lead_sentence", "comparison_sentences", "column_definitions",
           "designs_block", "detail_block", "notes_block", "optics_block", "sensitivity_block", "spans_block",
           "hardware_swaps_per_h", "tolerance_block", "observed_design_sentence", "pool_sentence"]

_YEAR = 8766.0


@dataclass(frozen=True)
class DesignSource:
    """The counts the designs are fed with, what they are, and the example shown instead (None: the data)."""

    data: object
    name: str
    described: str
    example: object = None


def _as_counts(src):
    """A count table (per-job counts over the log's span) on the cluster ``src`` was observed on."""
    from ...stats.rates import component_rates
    rates = component_rates(src.data, per="job")
    rates = rates[rates["component"].astype(str) != "Total"]
    table = rates.groupby(["component", "category"], sort=False, as_index=False)["count"].sum()
    return count_table(table, n_gpus=int(src.source_gpus), gpus_per_node=int(src.gpus_per_node),
                       duration=float(rates["exposure_h"].iloc[0]), name=src.name)


def design_source(src):
    """The :class:`DesignSource` of a report source: its own counts, or the Llama 3 example when it has none.

    A count table is used as it is; a log's interruptions are counted per
    cause over its span on ``src.source_gpus`` GPUs.  Only a source without
    GPUs (``gpus_per_node`` 0, e.g. a disk log) gives the Llama 3 example.
    """
    from ...data.bundled.datasets import llama3_54day
    if getattr(src, "unit", "gpu-node") != "gpu-node" or int(src.gpus_per_node or 0) < 1 or int(src.source_gpus or 0) < 1:
        data = llama3_54day()
        return DesignSource(data, data.name, "419 unexpected interruptions in 54 days on 16,384 H100 GPUs "
                            "(arXiv 2407.21783, Table 5)", example=f"Llama 3 counts ({src.name} counts no GPUs)")
    data = src.data if src.kind == "counts" and getattr(src.data, "n_gpus", None) == src.source_gpus \
        else _as_counts(src)
    return DesignSource(data, src.name, src.describe())


def lead_sentence(ds, n_gpus):
    """The page's first sentence: whose failure rates feed the designs (an example is named as one)."""
    if ds.example:
        return (f"This page shows an example, not your data: the designs are fed with the {ds.example}: "
                f"{ds.described}, scaled to {count(n_gpus)} GPUs.")
    return (f"Failure rates are this report's data, {ds.described}; each cause is scaled from the observed "
            f"cluster to every design of {count(n_gpus)} GPUs by what it lives in (GPU, node, link or job).")


def _best(t):
    return t.loc[t["goodput_per_gpu"].idxmax()]


def comparison_sentences(cmp):
    """Which design gives most goodput per GPU bought, and which reach the target, in percent.

    When every design spends more than half its time not training, that comes first.
    """
    t, target = cmp.by_design, cmp.target_ettr
    b = _best(t)
    out = [f"Of {len(t)} designs, {b['design']} gives the most goodput per GPU bought: {_ettr(b['goodput_per_gpu'])} "
           f"(ETTR {_ettr(b['ettr'])} on {count(b['gpus_used'])} of {count(b['gpus_bought'])} GPUs)."]
    met = t[t["ettr"] >= target]
    if met.empty:
        top = t.loc[t["ettr"].idxmax()]
        out.append(f"No design reaches the {pct(target, 0)} target ETTR at these failure rates; the best, "
                   f"{top['design']}, reaches {_ettr(top['ettr'])}.")
    else:
        out.append(f"{len(met)} of {len(t)} reach the {pct(target, 0)} target ETTR: {', '.join(met['design'])}.")
    low = t[t["ettr"] < 0.5]
    if len(low) == len(t):
        out.insert(0, "The job cannot make useful progress at this size with these failure rates: every design "
                      "spends more than half its time not training (ETTR under 50%); far more reliable parts, or a "
                      "smaller job, would change that.")
    elif len(low):
        out.append(f"{len(low)} of {len(t)} spend more than half their time not training (ETTR under 50%).")
    return out


def column_definitions(cmp, gpus_per_node=8, all_cause_node_mtbf_h=None):
    """What every column of the designs table means (a list for the reader), ETTR at the page's target.

    ``all_cause_node_mtbf_h`` is the requirements page's node MTBF for the same target (every cause but
    the per-job ones), named beside this page's so the two are not read as one number.
    """
    target, conf = pct(cmp.target_ettr, 0), f"{100 * cmp.conf:g}%"
    items = [
        ("GPUs bought", "every GPU in the purchase: the job's GPUs plus those held idle as spares."),
        ("GPUs idle as spares", "GPUs bought that do no training: spare trays inside racks and spare nodes or racks."),
        ("Interruptions a day", "failures that stop the whole job (fail-stop), after the fabric absorbs what it "
                                "tolerates."),
        ("Job MTBF", "mean time between those interruptions."),
        ("Checkpoint every", "the interval that maximises ETTR at that MTBF (Daly 2006)."),
        ("ETTR", f"effective training time ratio: share of wall time spent on useful training, in percent, with "
                 f"its {conf} range over the uncertainty of the observed counts."),
        ("Failure finds no spare", "chance that a failure needing a replacement finds none free, so the job waits "
                                   "for a repair."),
        ("Waiting for a spare", "long-run share of wall time the job stands still waiting for a spare (the stall, "
                                "already counted in ETTR)."),
        ("Goodput per GPU bought", "ETTR × GPUs used / GPUs bought (× efficiency × (1 − straggler loss)): useful "
                                   "GPU-hours per GPU-hour paid for."),
        ("Node hardware MTBF needed", f"mean time between failures each node ({gpus_per_node} GPUs, or one NVL72 "
                                      f"tray) must reach, counting its GPU and node hardware causes only, for the job "
                                      f"to reach ETTR {target}; network, software and per-job causes stay at their "
                                      "observed rates. \"Out of reach\": those other causes alone keep ETTR below "
                                      "the target." + _other_node(all_cause_node_mtbf_h)),
        ("Transceiver MTBF needed", "mean time between failures each pluggable optical transceiver must reach when "
                                    f"all of them together use the share of the failure budget for ETTR {target} "
                                    "given to optics."),
    ]
    body = "".join(f"<li><b>{html_text(k)}</b>: {html_text(v)}</li>" for k, v in items)
    return P.Block(f"<p><b>What the columns mean</b></p><ul>{body}</ul>")


def _other_node(h):
    if h is None or not np.isfinite(h):
        return ""
    return (f" The requirements page's node MTBF ({hours_text(h)} for the planned job) is a different quantity: it "
            "counts every cause but the per-job ones, network included, so it is lower.")


def _mtbf(h):
    """An MTBF requirement as a vendor quotes it: hours, and beyond two years the years beside FIT and AFR."""
    from ...plots.designs import fit_text

    if h == 0:
        return "any (absorbed)"
    if not np.isfinite(h):
        return "out of reach" if h > 0 else "any"
    return f"{hours_text(h)} ({duration(h)}; {fit_text(h)})" if h >= 2 * _YEAR else hours_text(h)


def _ettr_range(e, lo, hi):
    """ETTR with its range; a range whose ends read alike is left out, never "(x–x)"."""
    if not (np.isfinite(lo) and np.isfinite(hi)) or _ettr(lo) == _ettr(hi):
        return _ettr(e)
    return f"{_ettr(e)} ({_ettr(lo)} to {_ettr(hi)})" if e < 0.0005 or lo < 0.0005 else f"{pct(e)} ({pct_range(lo, hi)})"


def _people(t):
    return pd.DataFrame({
        "design": t["design"], "policy": t["policy"], "bought": t["gpus_bought"], "idle": t["gpus_idle"],
        "per_day": t["interruptions_per_day"], "mtbf": t["job_mtbf_h"], "interval": t["interval_h"],
        "ettr": [_ettr_range(e, lo, hi) for e, lo, hi in zip(t["ettr"], t["ettr_lo"], t["ettr_hi"])],
        "no_spare": t["p_no_spare"], "stall": t["stall_share"], "goodput": t["goodput_per_gpu"],
        "node": t["required_node_mtbf_h"], "tx": t["required_transceiver_mtbf_h"]})


def designs_block(cmp):
    """The designs side by side, headers in words, ETTR and goodput in percent, MTBFs in hours."""
    conf = f"{100 * cmp.conf:g}%"
    target = pct(cmp.target_ettr, 0)
    cols = [("design", "Design", str), ("policy", "Spare policy", str), ("bought", "GPUs bought", count),
            ("idle", "GPUs idle as spares", count), ("per_day", "Interruptions a day", lambda v: number(v, 3)),
            ("mtbf", "Job MTBF", duration), ("interval", "Checkpoint every", duration),
            ("ettr", f"ETTR ({conf} range)", str), ("no_spare", "Failure finds no spare", _share),
            ("stall", "Time waiting for a spare", _share), ("goodput", "Goodput per GPU bought", pct),
            ("node", f"Node hardware MTBF needed for {target}", _mtbf),
            ("tx", f"Transceiver MTBF needed for {target}", _mtbf)]
    return P.table(_people(cmp.by_design), cols)


def detail_block(cmp):
    """The examined design's figures as a short two-column table."""
    r = cmp.by_design.iloc[0]
    rows = pd.DataFrame([
        ("ETTR", _ettr_range(r["ettr"], r["ettr_lo"], r["ettr_hi"])),
        ("Interruptions a day", number(r["interruptions_per_day"], 3)),
        ("Checkpoint every", duration(r["interval_h"])),
        ("Time waiting for a spare", _share(r["stall_share"])),
        ("Failure finds no spare", _share(r["p_no_spare"])),
        ("The same, simulated as a check", f"{_share(r['p_no_spare_sim'])} in {count(r['sim_runs'])} simulated runs "
         "(fewer than n_runs when each run already holds thousands of repairs)" if r["sim_runs"] else
         "not simulated (n_runs is 0, or one run would not fit the memory budget: relmodel.budget_guard)"),
        ("GPUs out of the job on average", count(r["gpus_out_mean"])),
        ("GPUs idle as spares", f"{count(r['gpus_idle'])} of {count(r['gpus_bought'])}"),
        ("Goodput per GPU bought", pct(r["goodput_per_gpu"])),
        ("Node hardware MTBF needed", _mtbf(r["required_node_mtbf_h"]))], columns=["what", "value"])
    return P.table(rows, [("what", "Quantity", str), ("value", "Value", str)])


def _costs_text(t, ranks, ckpt_cost_h, base_restart_h, restart_from):
    """The checkpoint and restart every design is costed with, said once, with where each comes from;
    ``ranks`` maps a design's name to the GPUs its restart was costed at."""
    at = {}
    for name, r in zip(t["design"], t["restart_h"]):
        if name in ranks and float(r) > base_restart_h:
            at.setdefault(duration(float(r) - base_restart_h), f"{int(ranks[name]):,}")
    ck = f"Each checkpoint stalls the job {duration(ckpt_cost_h)}, as on pages 03–04 (parameter ckpt_cost)."
    base = f"{duration(base_restart_h)} ({restart_from})"
    if not at:
        return ck + f" A restart takes {base} at every size, as on pages 03–04."
    sizes = ", ".join(f"{r} more at {g} GPUs" for r, g in at.items())
    return ck + (f" A restart takes {base} plus start-up growing with the ranks, as on pages 03–04 (parameter "
                 f"restart_grows, cited below): {sizes}.")


def observed_design_sentence(dec, cmp, designs=()):
    """Which row, if any, is the design pages 03 and 04 plan on (the observed cluster's own, grown to the job), and
    why the rows' interruptions a day differ from theirs; None without a decision."""
    if dec is None or getattr(dec, "scaled", None) is None:
        return None
    own = dec.scaled.target
    per_day = 24 * dec.scaled.job_rate_per_h
    parts = [f"{own.fabric} fabric"] + ([f"{own.tiers} tiers"] if getattr(own, "tiers", None) else []) \
        + ([f"1:{own.oversubscription:g} oversubscribed"] if getattr(own, "oversubscription", 1) not in (None, 1)
           else []) + [f"{own.gpus_per_node} GPUs a node"]
    said = (f"Pages 03 and 04 plan on the observed cluster's own design grown to {count(own.n_gpus)} GPUs "
            f"({', '.join(parts)}): {number(per_day, 3)} interruptions a day. ")
    t = cmp.by_design.set_index("design")
    same = [c.name for c in designs if getattr(c, "fabric", None) == own.fabric
            and getattr(c, "gpus_per_node", None) == own.gpus_per_node and c.name in t.index]
    if not same:
        return P.paragraph(said + "No row below is that design: each row scales every cause by the GPUs, nodes, "
                                  "links and switches it lives in, so its interruptions a day differ.")
    near = same[0]
    theirs = float(t.loc[near, "interruptions_per_day"])
    if abs(theirs - per_day) <= 0.005 * per_day:
        return P.paragraph(said + f"The {near} row counts the same {number(theirs, 3)} a day: for failures it is "
                                  "that design.")
    return P.paragraph(said + f"No row below is exactly that design; the nearest is {near} ({number(theirs, 3)} a "
                              "day), which differs in the links and switches each network failure lives in.")


def pool_sentence(spares, cmp, gpus_per_node=8):
    """Why the rows holding the requirements page's spare nodes say another chance of finding no spare than page
    04 does (None when no row holds that pool, or the two agree to the shown digit)."""
    if spares is None:
        return None
    t = cmp.by_design
    held = t[(t["policy"] == "spare-pool") & (t["gpus_idle"] == spares.n_spares * gpus_per_node)]
    if held.empty:
        return None
    here, there = float(held["p_no_spare"].iloc[0]), float(spares.plan.p_no_spare)
    if _share(here) == _share(there):
        return None
    return P.paragraph(
        f"The rows holding the requirements page's {count(spares.n_spares)} spare nodes ({', '.join(held['design'])}) "
        f"say a failure finds no spare {_share(here)} of the time where page 04 says {_share(there)}: two models of the "
        "same pool. The designs' closed form lets every spare on the shelf fail as an idle one does, in use or "
        "not; page 04 counts only the idle spares failing, as an exact count of the pool's nodes away gives it, so "
        "its figure is the one to size the pool by and this one leans to caution.")


def notes_block(cmp, efficiency=1.0, straggler_loss=0.0, ckpt_cost_h=None, base_restart_h=None,
                restart_from="an assumption", designs=()):
    """The costs used, the goodput terms and every design warning, as notes a buyer must see.

    With ``ckpt_cost_h`` and ``base_restart_h`` (the report's checkpoint and
    restart, hours) the costs are said once with their sources, the growth at
    each of ``designs``' sizes (the compared Clusters); without, as the
    comparison's own table lists them.
    """
    t = cmp.by_design
    if ckpt_cost_h is not None and base_restart_h is not None and "restart_h" in t:
        ranks = {c.name: c.n_gpus for c in designs if hasattr(c, "n_gpus")}
        text = _costs_text(t, ranks, ckpt_cost_h, base_restart_h, restart_from)
    else:
        costs = list(dict.fromkeys(t["costs"]))
        text = ("Costs used: " + costs[0] + "." if len(costs) == 1 else "Costs used grow with each design's size: "
                + "; ".join(f"{d}: {c}" for d, c in zip(t["design"], t["costs"])) + ".")
    if efficiency == 1.0 and straggler_loss == 0.0:
        terms = ("Goodput per GPU bought assumes the job runs at full efficiency between failures and loses no step "
                 "time to stragglers (parameters efficiency and straggler_loss).")
    else:
        terms = (f"Goodput per GPU bought counts an efficiency of {pct(efficiency)} (the share of peak throughput "
                 f"the job reaches) and {pct(straggler_loss)} of step time lost to stragglers.")
    warns = [w for w in dict.fromkeys(t["warnings"]) if w]
    return P.blocks(P.paragraph(text, terms), *(P.note(w, "warning") for w in warns))


def optics_block(optics):
    """The optics requirement, one row per cluster size and fabric, one column per switch-tier count: MTBF in
    years beside the FIT and annual failure rate a vendor quotes."""
    from ...plots.designs import fit_text

    t = optics.rows
    rows = []
    for (n, fabric), g in t.groupby(["n_gpus", "fabric"], sort=False):
        row = {"n": n, "fabric": "rail-optimised" if fabric == "rail" else "fat tree"}
        for r in g.itertuples():
            row[r.tiers] = (f"{number(r.mtbf_h / _YEAR, 3)} years, {fit_text(r.mtbf_h)} (radix {r.radix}, "
                            f"{count(r.transceivers)} transceivers)" if r.fits
                            else f"cannot be built with {r.tiers} tiers")
        rows.append(row)
    df = pd.DataFrame(rows).sort_values(["n", "fabric"], kind="stable")
    tiers = sorted(t["tiers"].unique())
    cols = [("n", "GPUs in the job", count), ("fabric", "Fabric", str)] + [
        (k, f"MTBF each transceiver needs, {k} switch tiers", lambda v: v if isinstance(v, str) else "—")
        for k in tiers]
    return P.table(df, cols, max_rows=15)


def sensitivity_block(sens):
    """ETTR against the whole-domain FIT no public log gives, in percent."""
    f = sens.frame
    lo, hi = f.iloc[0], f.iloc[-1]
    if not sens.gpu_fit > 0:  # the data hold no GPU failures: no scale to sweep the rack rate over
        return P.paragraph("No public log gives the rate of faults that take a whole rack down (NVLink switch tray, "
                           "rack power, cooling), and this data holds no GPU failures to scale one from, so no "
                           "range is swept here: set rack_fit to weigh it (the swings above move it to 10,000 FIT).")
    text = (f"No public log gives the rate of faults that take a whole rack down (NVLink switch tray, rack power, "
            f"cooling). From none to a rack failing as often as one of its GPUs ({number(sens.gpu_fit, 3)} FIT), "
            f"{sens.name}'s ETTR goes from {pct(lo['ettr'])} to {pct(hi['ettr'])} and its goodput per GPU bought "
            f"from {pct(lo['goodput_per_gpu'])} to {pct(hi['goodput_per_gpu'])}.")
    cols = [("domain_fit", "Whole-rack faults (FIT per rack)", lambda v: number(v, 3)),
            ("per_year", "Per rack per year", lambda v: number(v, 3)), ("ettr", "ETTR", pct),
            ("stall_share", "Time waiting for a spare", _share), ("goodput_per_gpu", "Goodput per GPU bought", pct)]
    return P.blocks(P.paragraph(text), P.table(f.assign(per_year=f["domain_fit"] * _YEAR * 1e-9), cols))


def spans_block(table, top=10):
    """What one event of each cause takes out of the examined design (the most frequent ``top`` causes)."""
    t = table.sort_values("rate_per_h", ascending=False, kind="stable").head(int(top))
    cols = [("component", "Cause", str), ("level", "Lives in", str), ("per_day", "Events a day", lambda v: number(v, 3)),
            ("nodes_per_event", "Nodes one event takes out", count),
            ("domains_per_event", "Racks (scale-up domains) it takes out", count)]
    rest = len(table) - len(t)
    tail = P.paragraph(f"{rest} rarer causes are not shown.") if rest > 0 else None
    return P.blocks(P.table(t.assign(per_day=24 * t["rate_per_h"]), cols), tail)


def tolerance_block(gain):
    """What tolerating a share of network faults gains, in percent and per day."""
    b, a = gain.before, gain.after
    if not a.absorbed_rate > 0:  # nothing of the kind in the data: say so instead of "from x% to x% (0.0 points)"
        return P.paragraph(f"{gain.name}: the data hold no network link failures, so a fabric that absorbs "
                           f"{_list(gain.tolerated)} changes nothing here (ETTR {pct(b.ettr)} either way).")
    text = (f"{gain.name}: a fabric that absorbs {_list(gain.tolerated)} raises ETTR from {pct(b.ettr)} to "
            f"{pct(a.ettr)} ({100 * gain.ettr_gain:.1f} percentage points).")
    rows = pd.DataFrame([("Interruptions a day", number(24 * b.interruption_rate, 3), number(24 * a.interruption_rate, 3)),
                         ("Faults absorbed a day", number(24 * b.absorbed_rate, 3), number(24 * a.absorbed_rate, 3)),
                         ("Job MTBF", duration(b.job_mtbf_h), duration(a.job_mtbf_h)),
                         ("ETTR", pct(b.ettr), pct(a.ettr))], columns=["what", "without", "with"])
    return P.blocks(P.paragraph(text), P.table(rows, [("what", "Quantity", str), ("without", "Fabric as built", str),
                                                      ("with", "Fabric that absorbs them", str)]))


def _list(tolerated):
    return ", ".join(f"{pct(v, 0)} of {k} failures" for k, v in dict(tolerated).items())


def hardware_swaps_per_h(result):
    """Failures per hour of the examined design that need a tray or node swapped (GPU and node causes)."""
    return float(result.node_interrupt_rate)


# the page's supply-side blocks, also by this module's name (the notebook calls them as D.*)
from .design_supply import (  # noqa: E402,F401
    capacity_block, planned_designs, repair_row, shelf_block, shelf_count, shelf_needed, swings_block)
