"""The requirements page (notebook 04): what the hardware must reach, which causes to fix, how many spares.

The answer sentences are the library's (:mod:`.pipeline.summary`, from the decision
object); :func:`repair_source` and :func:`spare_counts` hold the two choices
the page makes about spares (where repair times come from, which pool sizes
the table shows).
"""

import pandas as pd

from ..blocks import present as P
from ..pipeline.summary import answer_sentences

__all__ = ["table_sizes", "decision_block", "sizes_block", "impact_block", "repair_source", "spare_counts", "spares_block"]


def decision_block(dec):
    """The answer sentences of the requirement page."""
    return P.blocks(*[P.note(s, "answer") for s in answer_sentences({"decision": dec.to_dict()},
                                                                     parts=("ettr", "requirement"))])


def table_sizes(sizes, n_gpus):
    """The cluster sizes the table compares: the ``sizes`` asked for and the job's own size, in order."""
    return sorted({int(n) for n in sizes} | {int(n_gpus)})


def sizes_block(decisions):
    """Requirements across cluster sizes, "out of reach" where per-job causes cap ETTR."""
    rows = [{"n_gpus": d.n_gpus, "job_mtbf_h": d.job_mtbf_h, "interval_h": d.formula_interval_h or d.interval_h,
             "ettr": d.formula_ettr or d.ettr,
             "need": (P.hours_text(d.required_node_mtbf_h) if d.reachable
                      else f"out of reach (cap {P.pct(d.cap_ettr)})"),
             "times": ("already met" if d.meets_target else f"{P.number(d.improvement, 2)}×" if d.improvement
                       else "—")} for d in decisions]
    return P.table(pd.DataFrame(rows), [
        ("n_gpus", "GPUs", P.count), ("job_mtbf_h", "Job MTBF today", P.duration),
        ("interval_h", "Checkpoint every (exponential formula)", P.duration),
        ("ettr", "ETTR today (exponential formula)", P.pct),
        ("need", "Node MTBF needed (hardware causes)", str), ("times", "× today's nodes (hardware causes)", str)])


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


def repair_source(src, repair):
    """``(repair model, note)``: the source's repair times, or the StepFun trace's with a note saying so.

    ``repair`` is the page's ``repair`` parameter, passed to
    :func:`relmodel.scale.sparing.spares.repair_model`.
    """
    from ...data.bundled.datasets import stepfun
    from ...scale.sparing.spares import repair_model
    if src.has_repairs:
        return repair_model(src.data, repair), None
    return repair_model(stepfun(), repair), P.note(STEPFUN_REPAIRS, "info")


def spare_counts(n_spares):
    """The pool sizes the spares table shows: 0 to about twice the chosen pool, about ten steps, the pool itself."""
    n = int(n_spares)
    return sorted(set(range(0, 2 * n + 2, max(1, n // 10))) | {n})


def spares_block(plan, table, target):
    """The chosen spare pool in a sentence (the plot shows the whole curve)."""
    lo, hi = getattr(plan, "n_spares_lo", None), getattr(plan, "n_spares_hi", None)
    rng = ""
    if lo is not None and hi is not None:  # a range whose ends agree is said as one figure, never "(2–2)"
        rng = (f" ({P.count(lo)}–{P.count(hi)} with the rates' uncertainty)" if P.count(lo) != P.count(hi)
               else " (the same across the rates' uncertainty)")
    best = table.loc[table["spares"] >= plan.n_spares].head(1)
    ettr_txt = f", and ETTR stays at {P.pct(best['ettr'].iloc[0])}" if len(best) else ""
    return P.note(f"Keep {P.count(plan.n_spares)} spare nodes{rng}: then a node failure finds no spare free with "
                  f"probability {P.pct(plan.p_no_spare, 2)} (target {P.pct(target, 1)}){ettr_txt}. "
                  f"On average {P.number(plan.offered_load, 3)} nodes are in repair at any time.", "answer")
