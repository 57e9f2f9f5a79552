"""The checkpoint-interval page (notebook 03): the job's interruptions, the interval, the schemes, the simulation.

The interval's answer sentence is the library's (:mod:`.pipeline.summary`, from the
decision object); the simulation block states how precisely its confirming
runs pin the ETTR digit the page prints (:data:`ETTR_STEP`).
"""

import pandas as pd

from ...plots.axes import legend_below
from ..blocks import present as P
from ..pipeline.summarise import duration_range, noise_range
from ...scale.targets.decision_inputs import law_name
from ..pipeline.summary import answer_sentences, simulation_sentence

__all__ = ["job_block", "interval_block", "schemes_block", "ETTR_STEP", "precision_sentence", "simulation_block",
           "simulation_records", "backtest_block", "law_text", "mark_answer", "decision_or_why", "no_answer",
           "simulated_search", "no_simulation_block", "breakdown_title"]


def decision_or_why(source, scenario, **kwargs):
    """``(decision, None)`` for the page's :class:`~relmodel.scenario.Scenario`, or ``(None, why)`` when the
    source gives no answer for a GPU job (its units are disks or servers and nothing maps them to nodes): the
    page then says so instead of stopping."""
    from ...errors import UnitError
    from ...scale.targets.decision import decide
    from ..kernels.source_cache import shared_result
    try:  # pages 03 and 04 of one render share it
        return shared_result(source, "decision", lambda: decide(source, scenario, **kwargs), scenario=scenario,
                             **kwargs), None
    except UnitError as err:
        return None, str(err)


def no_answer(why):
    """The note a page shows in place of its answers when the source gives none for a GPU job."""
    return P.note(f"No answer for a GPU job: {why}.", "info")


def law_text(dec):
    """The simulation's failure law in words, and whether it is the answer's or a comparison's."""
    if dec.basis == "simulation":
        return (f"the {law_name(dec.law)} law fitted to the log's times between interruptions, stretched to the job's MTBF "
                f"({dec.law_reason})")
    if dec.comparison_law:
        return (f"the {law_name(dec.comparison_law)} law fitted to the log's times between interruptions, stretched to the "
                f"job's MTBF (a comparison, not the answer: {dec.law_reason})")
    return f"exponential failures ({dec.law_reason})"


def mark_answer(ax, dec):
    """Mark the decision's answer on an ETTR-against-interval chart and name it in the legend."""
    what = "the answer, simulated" if dec.basis == "simulation" else "the answer (exponential formula)"
    ax.plot([60 * dec.interval_h], [100 * dec.ettr], marker="D", color="k", linestyle="none", markersize=7,
            markerfacecolor="none", label=f"{what}: every {P.duration(dec.interval_h)}, ETTR {P.pct(dec.ettr)}")
    legend_below(ax)
    return ax


def breakdown_title(dec):
    """The wall-time chart's title: it is the exponential formula's, said so when the answer is simulated."""
    if dec.basis != "simulation":
        return "Where the wall time goes"
    return (f"Where the wall time goes, by the exponential formula\nat the answer's interval (simulated with the "
            f"{law_name(dec.law)} law: {P.pct(dec.ettr)} useful)")


def job_block(dec):
    """How often the job is interrupted at its size, with the interval when there is one."""
    rng = duration_range(dec.job_mtbf_lo, dec.job_mtbf_hi, dec.to_dict()) if dec.job_mtbf_lo is not None else ""
    return P.paragraph(f"Scaled to {dec.n_gpus:,} GPUs ({dec.n_nodes:,} nodes), the job is interrupted "
                       f"{P.number(dec.fixed_per_day + dec.hardware_per_day, 2)} times a day: every "
                       f"{P.duration(dec.job_mtbf_h)} {_now(dec)}{rng}.")


def _now(dec):
    """"now" when today's rate is the fitted rate at the window's end, else "on average"."""
    return "now (today's rate)" if dec.trend in ("rising", "falling") else "on average"


def interval_block(dec):
    """The interval answer and the rules of thumb beside it (Young 1974, Daly 2006, exact optimum)."""
    from ...checkpoint.intervals import daly_interval, ettr, young_interval
    kw = {"mtbf": dec.job_mtbf_h, "ckpt_cost": dec.ckpt_cost_h}
    taus = [float(young_interval(**kw)), float(daly_interval(**kw)), dec.formula_interval_h or dec.interval_h]
    rules = pd.DataFrame({"rule": ["Young (1974)", "Daly (2006)", "exact optimum (Daly 2006, Lambert W)"],
                          "interval_h": taus,
                          "ettr": [float(ettr(interval=t, restart=dec.restart_h, **kw)) for t in taus]})
    head = P.note(answer_sentences({"decision": dec.to_dict()}, parts=("interval",))[0], "answer")
    return P.blocks(head, P.table(rules, [("rule", "Rule", str), ("interval_h", "Interval", P.duration),
                                          ("ettr", "ETTR", P.pct)]))


def schemes_block(dec, stall, persist, fast_cost, fast_fraction):
    """Synchronous, asynchronous and two-level checkpoints side by side."""
    from ...checkpoint import multilevel as ml
    m, d, r = dec.job_mtbf_h, dec.ckpt_cost_h, dec.restart_h
    t_async = float(ml.async_optimal_interval(mtbf=m, ckpt_cost=stall, persist=persist, restart=r))
    two = ml.two_level_optimum(mtbf=m, fast_cost=fast_cost, slow_cost=d, fast_fraction=fast_fraction,
                               fast_restart=r, slow_restart=r)
    rows = pd.DataFrame([
        {"scheme": "synchronous: the job waits for each write (exponential formula)",
         "interval_h": dec.formula_interval_h or dec.interval_h, "ettr": dec.formula_ettr or dec.ettr},
        {"scheme": (f"asynchronous: stall {P.duration(_hours(stall))}, write {P.duration(_hours(persist))} "
                    "in the background"),
         "interval_h": t_async,
         "ettr": float(ml.async_ettr(interval=t_async, mtbf=m, ckpt_cost=stall, persist=persist, restart=r))},
        {"scheme": f"two-level: fast {P.duration(_hours(fast_cost))} checkpoints, {_every(two.k)} to storage",
         "interval_h": two.fast_interval_h, "ettr": two.ettr}])
    said = P.paragraph(
        f"Asynchronous: the job stalls {P.duration(_hours(stall))} to copy its state to host memory, and the "
        f"{P.duration(_hours(persist))} write to storage runs in the background. Two-level: fast "
        f"{P.duration(_hours(fast_cost))} checkpoints (local disk or memory) recover {P.pct(fast_fraction, 0)} of "
        f"failures, and {'every' if two.k == 1 else _every(two.k)} checkpoint also goes to storage for the rest. These figures are assumptions "
        "(parameters stall, persist, fast_cost and fast_fraction).")
    return P.blocks(said, P.table(rows, [("scheme", "Scheme", str), ("interval_h", "Checkpoint every", P.duration),
                                         ("ettr", "ETTR", P.pct)]))


def _hours(x):
    """Hours of a duration parameter."""
    from ...units import hours
    return float(hours(x))


#: The step the pages print an ETTR in (:func:`~relmodel.report.blocks.present.pct`, one decimal): the simulation
#: of page 03 runs until its intervals are narrower than half of it.
ETTR_STEP = 0.001


def precision_sentence(search):
    """How many runs the confirming simulations took to pin the printed digits (or that the cap came first)."""
    if search.resolution is None:
        return ""
    step = f"{P.number(100 * search.resolution, 3)} percentage point"
    runs = f"{P.count(search.n_runs_best)} runs at the simulated best, {P.count(search.n_runs_exp)} at the formula's"
    if search.precise:
        return (f"ETTR is printed to {step}, so each confirming simulation ran until its 99% interval was narrower "
                f"than half of that: {runs} interval.")
    widest = max(search.ettr_hi - search.ettr_lo, search.exp_interval_sim_hi - search.exp_interval_sim_lo) / 2
    return (f"ETTR is printed to {step}, but the confirming simulations stopped at their cap ({runs} interval; "
            f"4 × n_runs) with a 99% interval of ±{P.number(100 * widest, 3)} points, so the last digit is "
            "uncertain: raise n_runs to pin it.")


def simulation_block(search, law, exp_ettr):
    """The simulated best interval beside the exponential formula, how far apart they are, and how precise."""
    if search is None:
        return P.note(f"No simulation: {law}; the exponential formula is the answer.", "info")
    rows = pd.DataFrame([
        {"what": "simulated best (the failure law named above)", "interval_h": search.interval_h, "ettr": search.ettr,
         "range": noise_range(search.ettr_lo, search.ettr_hi)},
        {"what": "exponential formula's interval, simulated", "interval_h": search.exp_interval_h,
         "ettr": search.exp_interval_sim_ettr,
         "range": noise_range(search.exp_interval_sim_lo, search.exp_interval_sim_hi)},
        {"what": "exponential formula's prediction", "interval_h": search.exp_interval_h, "ettr": exp_ettr,
         "range": "exact"}])
    text = simulation_sentence(simulation_records(search, law, exp_ettr))
    precision = precision_sentence(search)
    return P.blocks(P.note(text, "answer"), P.table(rows, [
        ("what", "Result", str), ("interval_h", "Checkpoint interval", P.duration), ("ettr", "ETTR", P.pct),
        ("range", "99% interval", str)]), P.paragraph(precision) if precision else None)


def simulated_search(source, dec, ckpt_cost, restart, *, n_runs, seed):
    """The simulated interval search under the failure law the data supports: ``(search, law in words)``.

    ``search`` is None when a simulated job would almost never complete a stretch of work between two
    failures (ETTR near 0, :class:`~relmodel.errors.NoProgressError`): there is nothing to simulate, and
    :func:`no_simulation_block` says why instead.
    """
    from ...checkpoint.search import best_interval
    from ...errors import NoProgressError
    from ...scale.targets.decision import failure_law

    law, text = failure_law(source, dec.job_mtbf_h)
    try:
        search = best_interval(law, ckpt_cost=ckpt_cost, restart=restart, n_runs=n_runs, seed=seed,
                               resolution=ETTR_STEP)
    except NoProgressError:
        return None, text
    return search, text


def no_simulation_block(dec):
    """What the page says in place of the simulation when the job cannot make useful progress."""
    return P.note(f"No simulation: at {dec.n_gpus:,} GPUs the job is interrupted every {P.duration(dec.job_mtbf_h)}, "
                  f"and even at the best interval only {P.pct(dec.ettr)} of its wall time is training. A simulated "
                  "run would almost never finish a stretch of work between two failures, so the job cannot make "
                  "useful progress at this size with this data; fewer GPUs, fewer failures, or a faster checkpoint "
                  "and restart would change that.", "warning")


def simulation_records(search, law, exp_ettr):
    """The simulation's numbers for summary.json."""
    return {"law": law, "best_interval_h": search.interval_h, "ettr": search.ettr, "ettr_lo": search.ettr_lo,
            "ettr_hi": search.ettr_hi, "formula_interval_h": search.exp_interval_h, "formula_ettr": exp_ettr,
            "formula_interval_sim_ettr": search.exp_interval_sim_ettr, "runs_best": search.n_runs_best,
            "runs_formula": search.n_runs_exp, "precise": search.precise}


def backtest_block(past):
    """What a past Slurm run really got beside the model (:func:`relmodel.checkpoint.backtest`), or None without one."""
    if past is None:
        return None
    return P.blocks(P.Block("<h2>What the past run really got</h2>"), P.paragraph(past.text()),
                    P.table(past.to_frame(), [("part", "Where the wall time went", str),
                                              ("observed_h", "Observed (estimated)", P.duration),
                                              ("predicted_h", "Model", P.duration)]))


def _every(k):
    """Which fast checkpoints also go to storage, in words: "every one", "every 2nd", "every 11th"."""
    if k == 1:
        return "every one"
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"every {k}{suffix}"
