"""The failure-distributions page (notebook 02): which law fits, and whether the rate changes.

The blocks read the lower layers' results honestly: the AIC-best family
together with whether its bootstrap test rejects it, means far beyond the
data flagged as extrapolated, and a trend verdict only when the tests agree.
"""

import numpy as np
import pandas as pd

from ..blocks import present as P

__all__ = ["fitted_durations", "fitted_lead", "fit_records", "fit_block", "answer_law", "answer_law_block",
           "trend_block"]


def fitted_durations(src, durations="auto"):
    """``(durations, why)``: what the page fits, chosen by the rule ``relmodel fit`` uses too.

    ``durations`` is "uptimes", "interarrivals" or "auto"
    (:func:`relmodel.data.shaping.fit_target.fit_target` says which and why).
    """
    from ...data.shaping.fit_target import fit_target
    kind, why = fit_target(src.data, durations)
    return getattr(src.data, kind)(), why


def fitted_lead(durations, why):
    """One sentence: what was fitted, how many lives, how many ended in a failure or were censored."""
    d = durations
    return P.paragraph(f"Fitted: {why[0].upper() + why[1:]}. {len(d):,} {d.label}, {d.n_observed:,} ending in a "
                       f"failure, {len(d) - d.n_observed:,} still running at the end of the window (censored).")


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
            *_mean_columns(getattr(durations, "label", ""))]
    blocks = [P.note(sentence, "answer"), P.table(t, cols)]
    if getattr(durations, "label", "") == "uptimes":
        blocks.append(P.note(UPTIMES_NOTE, "info"))
    return P.blocks(*blocks)


#: Said under a table of per-node up times, whose means readers set beside the fleet's node MTBF.
UPTIMES_NOTE = ("The means and medians above are of a node's up time after a repair, from the log's nodes alone "
                "(each from a repair, or the window's start, to its next failure), as each law extrapolates them. "
                "They are not the fleet's node MTBF of pages 03 and 04, which is the fleet's node-hours over its "
                "hardware failures.")


def _mean_columns(label):
    """The mean and median columns, named for what was fitted."""
    what = {"uptimes": "up time after a repair", "interarrivals": "gap between interruptions"}.get(label)
    if what is None:
        return [("mean", "Mean", str), ("median", "Median", str)]
    return [("mean", f"Mean {what}", str), ("median", f"Median {what}", str)]


def answer_law(src, seed=None, alpha=0.05):
    """``(family, reason, ranking, gaps)``: the law the decision simulates with, chosen exactly as
    :func:`relmodel.scale.targets.decision.decide` chooses it (the same ranking, bootstrap draws and seed), and
    that ranking and the gaps it was fitted to (None for a count table or too few gaps)."""
    from ...scale.targets.decision_inputs import choose_law, law_ranking
    seed = 0 if seed is None else seed
    ranking = law_ranking(src, seed=seed)
    family, _, _, reason = choose_law(src, alpha=alpha, seed=seed, ranking=ranking)
    return family, reason, ranking[0], (src.data.interarrivals() if ranking[0] is not None else None)


def answer_law_block(law, fitted=None, alpha=0.05):
    """Which law the answer (pages 03-04, the index) uses and why, with its ranking when this page fitted other
    durations (``fitted``: the Durations this page ranked; None: none)."""
    from ...scale.targets.decision_inputs import law_name
    family, reason, ranking, gaps = law
    said = (f"The answer on pages 03 and 04 and the index simulates the job with the {law_name(family)} law: "
            f"{reason}." if family != "exponential" else
            f"The answer on pages 03 and 04 and the index uses the exponential law: {reason}.")
    if ranking is None or getattr(fitted, "label", None) == "interarrivals":
        return P.note(said, "answer")
    return P.blocks(P.note(said + " It ranks the laws on the times between the job's interruptions (the process "
                                  "the job sees), not on the durations above:", "answer"),
                    fit_block(ranking, gaps, alpha))


_WHY = ("MIL-HDBK-189 weighs the early failures most, Laplace the middle of the window, and Lewis-Robinson "
        "corrects Laplace for gaps more variable than a steady process would give")


#: The trend tests' verdicts as the index words them: the rate rising or falling, not the handbook's terms.
RATE_WORDS = {"wearing out": "rising", "improving": "falling", "steady": "steady"}


def trend_block(tr):
    """Each trend test with its p-value; a verdict only when they agree, worded as the index words it (the
    returned verdict keeps the library's term for summary.json)."""
    word = lambda v: RATE_WORDS.get(v, v)  # noqa: E731
    ok = lambda t: getattr(t, "defined", True)  # noqa: E731  (a test result without the flag is defined)
    rows = [{"test": t.test, "p": t.p_value if ok(t) else None,
             "direction": word(t.direction) if ok(t) else "undefined",
             "says": (t.direction if t.p_value < tr.alpha else "steady") if ok(t) else None} for t in tr.tests]
    said = [r for r in rows if r["says"] is not None]
    says = {r["says"] for r in said}
    left = [t for t in tr.tests if not ok(t)]
    aside = "".join(f" The {t.test} test gives no verdict: {t.undefined_because}." for t in left)
    if not said:
        verdict = "inconclusive"
        text = f"No trend test has a statistic for these data.{aside}"
    elif len(says) == 1:
        verdict = says.pop()
        every = "every test agrees" if not left else "the tests that apply agree"
        text = f"The failure rate is {word(verdict)}: {every} at {tr.alpha:g}.{aside}"
    else:
        verdict = "inconclusive"
        split = "; ".join(f"{r['test']} says {word(r['says'])}, p = {P.number(r['p'], 3)}" for r in said)
        text = f"Inconclusive: the tests disagree ({split}). They differ because {_WHY}.{aside}"
    t = pd.DataFrame(rows)
    t["says"] = [word(v) if v is not None else "no verdict (undefined for these data)" for v in t["says"]]
    table = P.table(t, [("test", "Test", str), ("p", "p-value", lambda v: "undefined" if v is None or v != v else P.number(v, 3)),
                        ("direction", "Direction of the data", str), ("says", f"Verdict at {tr.alpha:g}", str)])
    beta = (f"Crow-AMSAA shape β = {P.number(tr.fit.beta, 3)} ({P.number(tr.fit.beta_lo, 3)}–"
            f"{P.number(tr.fit.beta_hi, 3)}); below 1 the rate falls, above 1 it rises.")
    return verdict, P.blocks(P.note(text, "answer"), table, P.paragraph(beta))


#: The statistics words this page uses, each explained once, under its verdict.
TERMS = ("Terms used below: AIC ranks the laws by fit with a penalty for parameters (lower is better; a law's Akaike "
         "weight is its chance of being the best of those tried); the bootstrap p-value says whether the best law "
         "could have produced data like these (below 0.05: it could not, and it is only the least bad); the trend "
         "tests ask whether the rate moves over the window: MIL-HDBK-189 (the Crow-AMSAA power-law model, whose "
         "shape β is below 1 when the rate falls and above 1 when it rises), Laplace, and Lewis-Robinson (Laplace "
         "corrected for gaps more variable than random).")


def plain_verdict(src, law=None, trend_verdict=None):
    """The page's answer in plain words, before its statistics: how the failures arrive, and whether the rate
    moves (shown first on the page: the cell carries the ``verdict`` tag)."""
    from ...scale.targets.decision_inputs import law_name
    if not src.is_log:
        return P.note("In plain words: a count table says how often each cause struck, not when, so the pages take "
                      "the failures as arriving at random at the table's average rate.", "answer")
    parts = []
    gaps = src.data.interarrivals()
    h = gaps.hours[gaps.observed]
    if h.size >= 10 and h.mean() > 0:
        cv = float(h.std(ddof=1) / h.mean())
        if cv > 1.2:
            parts.append(f"the job's failures come in bursts: many short gaps and a few long ones (the gaps vary "
                         f"{P.number(cv, 2)} times as much as their mean, where random arrivals vary once)")
        elif cv < 0.8:
            parts.append(f"the job's failures come more regularly than at random (the gaps vary {P.number(cv, 2)} "
                         "times their mean, where random arrivals vary once)")
        else:
            parts.append("the job's failures arrive close to at random (the gaps vary about as much as their mean)")
    else:
        parts.append("there are too few gaps between failures to say how they arrive")
    if law is not None:
        family = law[0]
        parts.append("the answer uses the exponential formula" if family == "exponential" else
                     f"the answer simulates the job with the {law_name(family)} law that describes them")
    words = {"wearing out": "the failure rate is rising over the window: answers use the rate at its end",
             "improving": "the failure rate is falling over the window: answers use the rate at its end",
             "steady": "the failure rate is steady over the window",
             "inconclusive": "whether the failure rate moves is unclear (the trend tests disagree)"}
    if trend_verdict in words:
        parts.append(words[trend_verdict])
    text = "In plain words: " + "; ".join(parts) + "."
    return P.blocks(P.note(text, "answer"), P.paragraph(TERMS))
