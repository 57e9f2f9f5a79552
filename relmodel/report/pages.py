"""The content blocks of the report notebooks, built from results by the presentation rules.

Each function takes results computed by the lower layers and returns a
:class:`~relmodel.report.present.Block` (sentences, a formatted table, a
note), or None when the source cannot feed that section (a notebook cell
showing None shows nothing).  Notebooks only call these.
"""

import numpy as np
import pandas as pd

from . import present as P
from .summary import answer_sentences, simulation_sentence

__all__ = ["source_block", "job_block", "cause_block", "causes_block", "rates_block", "repair_block", "counts_only", "fit_block",
           "fit_records", "trend_block", "interval_block", "schemes_block", "simulation_block", "simulation_records",
           "decision_block", "sizes_block", "impact_block", "spares_block", "ETTR_STEP", "precision_sentence"]


def source_block(src):
    """What the data is: size, span, observed cluster and the notes about it."""
    out = [P.paragraph(src.describe() + ".")]
    out += [P.note(n, "info") for n in src.notes]
    if src.is_log:
        problems = src.data.problems()["problem"].astype(str)
        short = int(problems.str.startswith("shorter than min_outage").sum())
        flagged = len(problems) - short
        if flagged:
            out.append(P.paragraph(f"{flagged:,} rows were duplicates, overlaps, simultaneous or outside the "
                                   "window and were merged or dropped as the log reader's rules say."))
    return P.blocks(*out)


def job_block(dec):
    """How often the job is interrupted at its size, with the interval when there is one."""
    rng = ""
    if dec.job_mtbf_lo is not None and dec.job_mtbf_hi is not None:
        rng = f" ({P.duration(dec.job_mtbf_lo)} to {P.duration(dec.job_mtbf_hi)})"
    return P.paragraph(f"Scaled to {dec.n_gpus:,} GPUs ({dec.n_nodes:,} nodes), the job is interrupted "
                       f"{P.number(dec.fixed_per_day + dec.hardware_per_day, 2)} times a day: every "
                       f"{P.duration(dec.job_mtbf_h)} on average{rng}.")


def counts_only(src, what):
    """One sentence saying this section needs event times that a count table lacks."""
    if src.is_log:
        return None
    return P.note(f"{src.name} is a count table (counts over {P.duration(src.span_h)}, no event times), "
                  f"so {what}.", "info")


def cause_block(causes, top):
    """The causes ranked by count, pooled after ``top``."""
    t = causes.copy()
    if len(t) > top:
        rest = t.iloc[top:]
        t = pd.concat([t.head(top), pd.DataFrame([{"cause": f"all other causes ({len(rest)})",
                                                   "count": rest["count"].sum(), "share": rest["share"].sum(),
                                                   "cum_share": 1.0}])], ignore_index=True)
    return P.table(t, [("cause", "Cause", str), ("count", "Interruptions", P.count),
                       ("share", "Share", P.pct), ("cum_share", "Cumulative share", P.pct)])


def causes_block(src, column, top):
    """The causes ranked by count, or a sentence when the log names none."""
    if not src.has_causes:
        return P.note("The log names no causes (it has no cause column), so its outages are not split by cause; "
                      "every later page treats them as one kind.", "info")
    from ..plots.logs import cause_counts
    return cause_block(cause_counts(src.data, column), top)


def rates_block(rates, top, unit="node"):
    """Rates by cause per ``unit`` (a node, or a disk or server of a log without GPUs) with exact intervals."""
    t = rates[rates["component"] != "Total"].sort_values("rate_per_h", ascending=False).head(top)
    per_year = lambda r: P.number(8766 * r) if r else "none observed"  # noqa: E731
    return P.table(t, [("component", "Cause", str), ("count", "Interruptions", P.count),
                       ("rate_per_h", f"Per {unit} per year", per_year),
                       ("rate_lo", "Low (95%)", per_year), ("rate_hi", "High (95%)", per_year),
                       ("mtbf_h", f"MTBF per {unit} (h)", P.sig)],
                   caption=f"The {len(t)} most frequent causes, per {unit}")


def repair_block(src, summary):
    """Repair times by cause, or a sentence when the source has none."""
    if not src.has_repairs:
        return P.note("The data give no outage end times, so repair times are unknown; the spares page "
                      "uses the StepFun trace's repair times instead.", "info")
    if summary is None:
        return P.note("The log names no causes, so repair times are not split by cause; how long its outages "
                      "last is below.", "info")
    cols = [(c, h, f) for c, h, f in [
        ("cause", "Cause", str), ("count", "Repairs", P.count), ("mean_h", "Mean", P.duration),
        ("median_h", "Median", P.duration), ("p90_h", "90th percentile", P.duration),
        ("max_h", "Longest", P.duration)] if c in summary.columns]
    return P.table(summary, cols)


def _family_mean(fit, longest):
    if not np.isfinite(fit.mean_h):
        return "no finite mean (heavy tail)"
    text = P.duration(fit.mean_h)
    if np.isfinite(fit.mean_h) and fit.mean_h > 10 * longest:
        return f"{text} (far beyond the longest observed {P.duration(longest)}: extrapolated)"
    return text


def fit_records(comparison, alpha=0.05):
    """Numbers a summary keeps from a fit comparison: family, its bootstrap p, rejected or not."""
    row = comparison.by_family.iloc[0]
    p = float(row["p_value"])
    return {"best_family": str(row["family"]), "best_family_p": p if np.isfinite(p) else None,
            "best_family_rejected": bool(p < alpha) if np.isfinite(p) else None}


def fit_block(comparison, durations, alpha=0.05):
    """AIC ranking with the bootstrap verdict for each family, in words."""
    t = comparison.by_family.copy()
    longest = float(np.max(getattr(durations, "hours", durations)))
    t["mean"] = [_family_mean(comparison.fits[f], longest) for f in t["family"]]
    t["median"] = [P.duration(comparison.fits[f].median_h) for f in t["family"]]
    has_p = np.isfinite(t["p_value"]).any()
    t["verdict"] = [("—" if not np.isfinite(p) else "rejected" if p < alpha else "not rejected")
                    for p in t["p_value"]]
    best = str(t["family"].iloc[0])
    sentence = (f"The best family by AIC is {best} (Akaike weight {P.pct(t['akaike_weight'].iloc[0], 0)}).")
    if has_p:
        p = float(t["p_value"].iloc[0])
        rejected = (t["p_value"] < alpha).sum()
        if rejected == len(t):
            sentence += (f" The bootstrap goodness-of-fit test rejects every family at {alpha:g} (the best has "
                         f"p = {P.number(p, 3)}): none describes these data well, so read fitted tails with care.")
        elif p < alpha:
            sentence += (f" Its bootstrap goodness-of-fit test rejects it (p = {P.number(p, 3)}), so it is only "
                         "the least bad of the families tried.")
        else:
            sentence += f" Its bootstrap goodness-of-fit test does not reject it (p = {P.number(p, 3)})."
    else:
        sentence += " No bootstrap test was run (n_boot = 0), so the fit's adequacy is not checked."
    cols = [("family", "Family", str), ("delta_aic", "AIC above the best", lambda v: P.number(v, 3)),
            ("akaike_weight", "Akaike weight", P.pct), ("ks", "KS distance", lambda v: P.number(v, 2)),
            ("p_value", "Bootstrap p", lambda v: P.number(v, 3)), ("verdict", f"At {alpha:g}", str),
            ("mean", "Mean", str), ("median", "Median", str)]
    return P.blocks(P.note(sentence, "answer"), P.table(t, cols))


_WHY = ("MIL-HDBK-189 weighs the early failures most, Laplace the middle of the window, and Lewis-Robinson "
        "corrects Laplace for gaps more variable than a steady process would give")


def trend_block(tr):
    """Each trend test with its p-value; a verdict only when they agree."""
    rows = [{"test": t.test, "p": t.p_value, "direction": t.direction,
             "says": t.direction if t.p_value < tr.alpha else "steady"} for t in tr.tests]
    says = {r["says"] for r in rows}
    if len(says) == 1:
        verdict = says.pop()
        text = f"The failure rate is {verdict}: every test agrees at {tr.alpha:g}."
    else:
        verdict = "inconclusive"
        split = "; ".join(f"{r['test']} says {r['says']} (p = {P.number(r['p'], 3)})" for r in rows)
        text = f"Inconclusive: the tests disagree ({split}). They differ because {_WHY}."
    t = pd.DataFrame(rows)
    table = P.table(t, [("test", "Test", str), ("p", "p-value", lambda v: P.number(v, 3)),
                        ("direction", "Direction of the data", str), ("says", f"Verdict at {tr.alpha:g}", str)])
    beta = (f"Crow-AMSAA shape β = {P.number(tr.fit.beta, 3)} ({P.number(tr.fit.beta_lo, 3)}–"
            f"{P.number(tr.fit.beta_hi, 3)}); below 1 the rate falls, above 1 it rises.")
    return verdict, P.blocks(P.note(text, "answer"), table, P.paragraph(beta))


def interval_block(dec):
    """The interval answer and the rules of thumb beside it (Young 1974, Daly 2006, exact optimum)."""
    from ..checkpoint.intervals import daly_interval, ettr, young_interval
    kw = {"mtbf": dec.job_mtbf_h, "ckpt_cost": dec.ckpt_cost_h}
    taus = [float(young_interval(**kw)), float(daly_interval(**kw)), dec.interval_h]
    rules = pd.DataFrame({"rule": ["Young (1974)", "Daly (2006)", "exact optimum (Daly 2006, Lambert W)"],
                          "interval_h": taus,
                          "ettr": [float(ettr(interval=t, restart=dec.restart_h, **kw)) for t in taus]})
    head = P.note(answer_sentences({"decision": dec.to_dict()}, parts=("interval",))[0], "answer")
    return P.blocks(head, P.table(rules, [("rule", "Rule", str), ("interval_h", "Interval", P.duration),
                                          ("ettr", "ETTR", P.pct)]))


def schemes_block(dec, stall, persist, fast_cost, fast_fraction):
    """Synchronous, asynchronous and two-level checkpoints side by side."""
    from ..checkpoint import multilevel as ml
    m, d, r = dec.job_mtbf_h, dec.ckpt_cost_h, dec.restart_h
    t_async = float(ml.async_optimal_interval(mtbf=m, ckpt_cost=stall, persist=persist, restart=r))
    two = ml.two_level_optimum(mtbf=m, fast_cost=fast_cost, slow_cost=d, fast_fraction=fast_fraction,
                               fast_restart=r, slow_restart=r)
    rows = pd.DataFrame([
        {"scheme": "synchronous: the job waits for each write", "interval_h": dec.interval_h, "ettr": dec.ettr},
        {"scheme": (f"asynchronous: stall {P.duration(_hours(stall))}, write {P.duration(_hours(persist))} "
                    "in the background"),
         "interval_h": t_async,
         "ettr": float(ml.async_ettr(interval=t_async, mtbf=m, ckpt_cost=stall, persist=persist, restart=r))},
        {"scheme": f"two-level: fast {P.duration(_hours(fast_cost))} checkpoints, every {two.k}th to storage",
         "interval_h": two.fast_interval_h, "ettr": two.ettr}])
    return P.table(rows, [("scheme", "Scheme", str), ("interval_h", "Checkpoint every", P.duration),
                          ("ettr", "ETTR", P.pct)])


def _hours(x):
    """Hours of a duration parameter."""
    from ..units import hours
    return float(hours(x))


#: The step the pages print an ETTR in (:func:`~relmodel.report.present.pct`, one decimal): the simulation
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
    rows = pd.DataFrame([
        {"what": f"simulated best ({law})", "interval_h": search.interval_h, "ettr": search.ettr,
         "range": P.pct_range(search.ettr_lo, search.ettr_hi)},
        {"what": "exponential formula's interval, simulated", "interval_h": search.exp_interval_h,
         "ettr": search.exp_interval_sim_ettr,
         "range": P.pct_range(search.exp_interval_sim_lo, search.exp_interval_sim_hi)},
        {"what": "exponential formula's prediction", "interval_h": search.exp_interval_h, "ettr": exp_ettr,
         "range": "exact"}])
    text = simulation_sentence(simulation_records(search, law, exp_ettr))
    precision = precision_sentence(search)
    return P.blocks(P.note(text, "answer"), P.table(rows, [
        ("what", "", str), ("interval_h", "Checkpoint interval", P.duration), ("ettr", "ETTR", P.pct),
        ("range", "99% interval", str)]), P.paragraph(precision) if precision else None)


def simulation_records(search, law, exp_ettr):
    """The simulation's numbers for summary.json."""
    return {"law": law, "best_interval_h": search.interval_h, "ettr": search.ettr, "ettr_lo": search.ettr_lo,
            "ettr_hi": search.ettr_hi, "formula_interval_h": search.exp_interval_h, "formula_ettr": exp_ettr,
            "formula_interval_sim_ettr": search.exp_interval_sim_ettr, "runs_best": search.n_runs_best,
            "runs_formula": search.n_runs_exp, "precise": search.precise}


def decision_block(dec):
    """The answer sentences of the requirement page."""
    return P.blocks(*[P.note(s, "answer") for s in answer_sentences({"decision": dec.to_dict()},
                                                                     parts=("ettr", "requirement"))])


def sizes_block(decisions):
    """Requirements across cluster sizes, "out of reach" where per-job causes cap ETTR."""
    rows = [{"n_gpus": d.n_gpus, "job_mtbf_h": d.job_mtbf_h, "interval_h": d.interval_h, "ettr": d.ettr,
             "need": (P.hours_text(d.required_node_mtbf_h) if d.reachable
                      else f"out of reach (cap {P.pct(d.cap_ettr)})"),
             "times": ("already met" if d.meets_target else f"{P.number(d.improvement, 2)}×" if d.improvement
                       else "—")} for d in decisions]
    return P.table(pd.DataFrame(rows), [
        ("n_gpus", "GPUs", P.count), ("job_mtbf_h", "Job MTBF today (h)", lambda v: P.number(v, 2)),
        ("interval_h", "Checkpoint every", P.duration), ("ettr", "ETTR today", P.pct),
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


def spares_block(plan, table, target):
    """The chosen spare pool in a sentence (the plot shows the whole curve)."""
    lo, hi = getattr(plan, "n_spares_lo", None), getattr(plan, "n_spares_hi", None)
    rng = f" ({lo}–{hi} with the rates' uncertainty)" if lo is not None and hi is not None else ""
    best = table.loc[table["spares"] >= plan.n_spares].head(1)
    ettr_txt = f", and ETTR stays at {P.pct(best['ettr'].iloc[0])}" if len(best) else ""
    return P.note(f"Keep {plan.n_spares} spare nodes{rng}: then a node failure finds no spare free with "
                  f"probability {P.pct(plan.p_no_spare, 2)} (target {P.pct(target, 1)}){ettr_txt}. "
                  f"On average {P.number(plan.offered_load, 3)} nodes are in repair at any time.", "answer")
