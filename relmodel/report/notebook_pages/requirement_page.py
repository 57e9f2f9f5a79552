"""The requirements page (notebook 04): what the hardware must reach, which causes to fix, how many spares.

The answer sentences are the library's (:mod:`.pipeline.summary`, from the decision
object); :func:`repair_source` and :func:`spare_counts` hold the two choices
the page makes about spares (where repair times come from, which pool sizes
the table shows), and :func:`spare_plan` is the one spare pool of the plan:
the designs page holds the same pool and the same repairs.
"""

from dataclasses import dataclass

import pandas as pd

from ..blocks import present as P
from ...scenario import takes_scenario
from ..pipeline.summary import answer_sentences
from ...scale.targets.decision_inputs import law_name

__all__ = ["table_sizes", "decision_block", "sizes_block", "impact_block", "repair_source", "spare_plan", "SparePlanned", "spare_counts",
           "spares_block", "restart_by_size"]


def decision_block(dec):
    """The answer sentences of the requirement page."""
    return P.blocks(*[P.note(s, "answer") for s in answer_sentences({"decision": dec.to_dict()},
                                                                     parts=("ettr", "requirement"))])


def table_sizes(sizes, n_gpus):
    """The cluster sizes the table compares: the ``sizes`` asked for and the job's own size, in order."""
    return sorted({int(n) for n in sizes} | {int(n_gpus)})


def restart_by_size(dec):
    """The decision's restart at every job size, for plots across sizes: a smaller job does not pay the planned
    job's communicator start-up (:class:`~relmodel.scale.targets.restart_growth.PlannedRestart`)."""
    from ...scale.targets.restart_growth import PlannedRestart
    return PlannedRestart(dec.restart_h, dec.restart_growth_h, dec.n_gpus)


def sizes_block(decisions, answer=None):
    """Requirements across cluster sizes, "out of reach" where per-job causes cap ETTR, by the exponential formula;
    when ``answer`` (the page's decision) takes a fitted law, a note gives its figures beside the table's."""
    rows = [{"n_gpus": d.n_gpus, "job_mtbf_h": d.job_mtbf_h, "interval_h": d.formula_interval_h or d.interval_h,
             "ettr": d.formula_ettr or d.ettr,
             "need": (P.hours_text(d.required_node_mtbf_h) if d.reachable
                      else f"out of reach (cap {P.pct(d.cap_ettr)})"),
             "times": ("already met" if d.meets_target else f"{P.number(d.improvement, 2)}×" if d.improvement
                       else "—")} for d in decisions]
    table = P.table(pd.DataFrame(rows), [
        ("n_gpus", "GPUs", P.count), ("job_mtbf_h", "Job MTBF today", P.duration),
        ("interval_h", "Checkpoint every (exponential formula)", P.duration),
        ("ettr", "ETTR today (exponential formula)", P.pct),
        ("need", "Node MTBF needed (hardware causes, exponential formula)", str),
        ("times", "× today's nodes (hardware causes)", str)])
    if answer is None or answer.requirement_law == "exponential" or not answer.reachable:
        return table
    return P.blocks(table, P.paragraph(
        f"The answer above takes the {law_name(answer.requirement_law)} law the data support: at "
        f"{answer.n_gpus:,} GPUs nodes must reach {P.hours_text(answer.required_node_mtbf_h)}, where this table's "
        f"exponential formula says {P.hours_text(answer.formula_required_node_mtbf_h)}; the table compares sizes "
        "on one formula."))


def impact_block(impact, dec):
    """Causes ranked by share of lost time, the ETTR gained by fixing each, and the uniform improvement."""
    t = P.table(impact, [("component", "Cause", str), ("scales_with", "Grows with", str),
                         ("per_day", "Interruptions a day at this size", lambda v: P.number(v, 2)),
                         ("share", "Share of lost time", P.pct), ("ettr_without", "ETTR if removed", P.pct),
                         ("gain", "ETTR gained", lambda v: f"+{100 * v:.1f} points")])
    if dec.meets_target:
        text = f"The observed rates already meet the {P.pct(dec.target_ettr, 0)} target."
    elif dec.reachable and dec.improvement:
        text = (f"Making every hardware cause {P.number(dec.improvement, 2)}× rarer (the per-job causes held at "
                f"{P.number(dec.fixed_per_day, 2)} a day) meets the {P.pct(dec.target_ettr, 0)} target.")
    else:
        text = (f"No improvement of the hardware alone meets the {P.pct(dec.target_ettr, 0)} target: the per-job "
                f"causes cap ETTR at {P.pct(dec.cap_ettr)}; they must fall below "
                f"{P.number(dec.max_fixed_per_day, 2)} a day.")
    return P.blocks(t, P.note(text, "answer"))


#: Said when the data give no repair times and the StepFun trace's are used instead.
STEPFUN_REPAIRS = "The data give no repair times, so repairs are taken from the StepFun trace (an assumption)."
#: Said for a Slurm export without its kernel log: its gaps are the job's requeues, not the nodes' repairs.
SLURM_REPAIRS = ("A Slurm export's gaps are the job's requeues, not the nodes' repairs, and no kernel log is joined, "
                 "so repairs are taken from the StepFun trace (an assumption).")


def _kernel_repairs(kern):
    """Repair hours from a kernel log: outages with a known end (a reboot or recovery line); None when none has."""
    d = kern.downtimes()
    h = d.hours[d.observed & (d.hours > 0)]
    if not len(h):
        return None, 0
    return h, int((~d.observed).sum())


def _repairs(src, repair):
    """``(repair model, note text or None, where they come from in a few words)``; see :func:`repair_source`."""
    from ...data.bundled.datasets import stepfun
    from ...scale.sparing.spares import repair_model
    borrowed = "borrowed from the StepFun trace, an assumption"
    kern = getattr(src.data, "kernel", None) if src.is_log else None
    if hasattr(src.data, "restart_gaps"):  # a Slurm run: its gaps are requeues
        h, unknown = _kernel_repairs(kern) if kern is not None else (None, 0)
        if h is None:
            return repair_model(stepfun(), repair), SLURM_REPAIRS, borrowed
        left = f"; {P.count(unknown)} with no known end are left out" if unknown else ""
        return (repair_model(h, repair), f"Repairs are the kernel log's {P.count(len(h))} outages from a fault to "
                f"the node's reboot (mean {P.duration(float(h.mean()))}{left}).",
                "measured: the kernel log's outages, fault to reboot")
    if src.has_repairs:
        return repair_model(src.data, repair), None, "measured: the log's unplanned outages"
    return repair_model(stepfun(), repair), STEPFUN_REPAIRS, borrowed


def repair_source(src, repair):
    """``(repair model, note)``: where the plan's repair times come from, with a note unless the log gives them.

    An event log's outage lengths are its repairs; a Slurm export joined to
    its kernel log takes the kernel's outages with a known end (fault to
    reboot; those with no known end are left out and counted in the note);
    a Slurm export alone, a count table or a log without end times borrows
    the StepFun trace's repairs, and the note says so.  ``repair`` is the
    page's ``repair`` parameter, passed to
    :func:`relmodel.scale.sparing.spares.repair_model`.
    """
    model, text, _ = _repairs(src, repair)
    return model, (P.note(text, "info") if text else None)


@dataclass(frozen=True)
class SparePlanned:
    """The plan's spare pool: the chosen pool (a SparePlan), its repair model, the note on the repairs and where
    they come from in a few words (``repair_words``)."""

    plan: object
    repairs: object
    note: object
    repair_words: str

    @property
    def n_spares(self):
        """Spare nodes kept."""
        return int(self.plan.n_spares)

    @property
    def repair_mean_h(self):
        """Mean repair time, hours."""
        return float(self.repairs.mean_h)


@takes_scenario(repair="repair", target="spare_target")
def spare_plan(src, dec, repair="empirical", target=0.01, seed=0):
    """The one spare pool of a plan: spare nodes the planned job keeps so that a node failure finds none free
    at most ``target`` of the time, sized on the decision's scaled rates (``dec.scaled``) with the repairs of
    :func:`repair_source`; a :class:`SparePlanned`.  The requirements page states it and the designs page holds
    the same pool, with the same mean repair time, in its spare-pool designs."""
    from ...scale.sparing.spares import spares_for
    model, text, words = _repairs(src, repair)
    return SparePlanned(spares_for(dec.scaled, model, target, seed=seed), model,
                        P.note(text, "info") if text else None, words)


def spare_counts(n_spares):
    """The pool sizes the spares table shows: 0 to about twice the chosen pool, about ten steps, the pool itself."""
    n = int(n_spares)
    return sorted(set(range(0, 2 * n + 2, max(1, n // 10))) | {n})


def spares_block(plan, table, target, formula_ettr=None):
    """The chosen spare pool in a sentence (the plot shows the whole curve).

    ``formula_ettr`` (the decision's exponential-formula ETTR, which takes a
    spare as always free) names what the waits for a spare cost: the pool's
    ETTR is that formula's with the waits counted, not the headline's.
    """
    lo, hi = getattr(plan, "n_spares_lo", None), getattr(plan, "n_spares_hi", None)
    rng = ""
    if lo is not None and hi is not None:  # a range whose ends agree is said as one figure, never "(2–2)"
        rng = (f" ({P.count(lo)}–{P.count(hi)} with the rates' uncertainty)" if P.count(lo) != P.count(hi)
               else " (the same across the rates' uncertainty)")
    best = table.loc[table["spares"] >= plan.n_spares].head(1)
    ettr_txt = ""
    if len(best):
        with_stalls = float(best["ettr"].iloc[0])
        ettr_txt = f", and ETTR stays at {P.pct(with_stalls)}"
        if formula_ettr is not None:
            cost = max(float(formula_ettr) - with_stalls, 0.0)
            said = "under 0.1 point" if cost < 0.0005 else f"{100 * cost:.1f} points"
            ettr_txt = (f", and waiting for a free spare costs {said} of ETTR (by the exponential formula, "
                        f"{P.pct(formula_ettr)} with a spare always free, {P.pct(with_stalls)} with the waits)")
    return P.note(f"Keep {P.count(plan.n_spares)} spare nodes{rng}: then a node failure finds no spare free with "
                  f"probability {P.pct(plan.p_no_spare, 2)} (target {P.pct(target, 1)}){ettr_txt}. "
                  f"On average {P.number(plan.offered_load, 3)} nodes are in repair at any time.", "answer")


def vendor_record(dec, n_boot=2000, seed=0):
    """``(VendorRequirement, its record)``: the node MTBF to demand from the node vendor, node hardware alone."""
    from ...scale.targets.vendor import vendor_requirement
    v = vendor_requirement(dec, n_boot=n_boot, seed=seed)
    return v, v.to_dict()


def vendor_block(record):
    """The vendor sentence, built from the record as the index builds it."""
    from ..blocks.decision_words import vendor_sentence
    return P.note(vendor_sentence(record), "answer")


#: Mean repair or return times (days) the spare pool is also sized at.
REPAIR_DAYS = (1, 3, 7, 14)


def spares_at(dec, target, seed=0):
    """A function of a mean repair time (hours) giving the spare nodes the plan needs (the plan's own rule)."""
    from ...scale.sparing.spares import spares_for

    def at(repair_h):
        return int(spares_for(dec.scaled, f"{float(repair_h):.9g}h", target, n_boot=2, seed=seed).n_spares)
    return at


def spares_record(spares, dec, target, seed=0):
    """The spares record: the chosen pool, its repair time and where that comes from, and the pool at
    :data:`REPAIR_DAYS` days of repair."""
    at = spares_at(dec, target, seed)
    plan = spares.plan
    return {"n_spares": int(plan.n_spares), "n_spares_lo": getattr(plan, "n_spares_lo", None),
            "n_spares_hi": getattr(plan, "n_spares_hi", None), "p_no_spare": float(plan.p_no_spare),
            "target": float(target), "repair_mean_h": float(spares.repair_mean_h), "repair_from": spares.repair_words,
            "measured": spares.repair_words.startswith("measured"),
            "by_repair_days": {str(d): at(24.0 * d) for d in REPAIR_DAYS}}


def swings_record(dec, target, seed=0, repair_used_h=None):
    """``(DecisionSwings, its record rows)``: each assumed input moved over its plausible range."""
    from ...scale.targets.swings import decision_swings
    sw = decision_swings(dec, spares_at=spares_at(dec, target, seed), repair_used_h=repair_used_h)
    rows = sw.to_frame().drop(columns="swing").to_dict("records")
    return sw, [{k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()} for r in rows]


def swings_block(rows):
    """What swings the answer: a sentence and the table, from the record rows (as the index shows them)."""
    from ..blocks.decision_words import swing_rows
    table = swing_rows({"swings": rows})
    if not table:
        return None
    frame = pd.DataFrame(table, columns=["Input", "Used", "Range tried", "ETTR", "Node MTBF to demand",
                                         "Spare nodes"])
    return P.table(frame, [(c, c, str) for c in frame.columns], caption="Largest ETTR swing first")
