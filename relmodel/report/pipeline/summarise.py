"""The summarise step: each run's summary.json, with its answers as sentences from the recorded decisions.

:func:`summarise_runs` (the step :func:`.run.render_plan` calls) turns each
run's stored entries into its summary (:func:`summarise`): the parameters,
the headline numbers, the merged records, the notebooks' status and
provenance, and the answers and warnings as sentences, built here once; the
index page, the terminal and the pages (inside the kernels, through
:mod:`.notebook_pages.pages`) show these same sentences.  :func:`answer_sentences` reads the
``decision`` and ``simulation`` records (plain dicts, as summary.json keeps
them) and returns the answers with their intervals; :func:`warning_lines` the
warnings that matter; :func:`null_reasons` gives every null of summary.json
its reason (records are made JSON-safe by :func:`.kernels.records.clean`).
"""

import datetime as _dt
import math
from pathlib import Path

from ..blocks import present as P
from ..blocks.decision_words import USEFUL_ETTR as _USEFUL_ETTR, decision_sentences, paper_sentence, population_caveat
from ..blocks.node_words import nodes_sentences
from ..safety.folders import marker
from ..kernels.records import clean
from .headline import designs_of, fleet_of, fleet_sentence, headline_of
from .ranges import UNBOUNDED, duration_range, rate_range
from .store import write_summary

__all__ = ["USEFUL_ETTR", "UNBOUNDED", "answer_sentences", "duration_range", "rate_range", "today_sentence", "headline_of", "designs_of", "fleet_of", "fleet_sentence", "noise_range", "recommendation", "shape_supported", "simulation_sentence",
           "warning_lines", "clean", "null_reasons", "merged_records", "summarise", "summarise_run",
           "summarise_runs"]


def _ok(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _interval(d):
    rng = duration_range(d.get("interval_lo"), d.get("interval_hi"), d)
    return f"Checkpoint every {P.duration(d['interval_h'])}{rng}."


def _range(lo, hi, covers=None):
    """`` (84.4–86.1%, 95% range: ...)``, or nothing when there is no range or it rounds to one value."""
    rng = P.pct_range(lo, hi)
    if rng == P.DASH or P.pct(lo) == P.pct(hi):
        return ""
    return f" ({rng}{'; ' + covers if covers else ''})"


def noise_range(lo, hi):
    """A simulated ETTR's 99% interval for a table cell: "85.6–85.9%", or "narrower than 0.1 point"."""
    if not (_ok(lo) and _ok(hi)):
        return P.DASH
    return "narrower than 0.1 point" if P.pct(lo) == P.pct(hi) else P.pct_range(lo, hi)


def _ettr(d):
    return (f"Expected ETTR {P.pct(d['ettr'])}{_range(d.get('ettr_lo'), d.get('ettr_hi'), d.get('range_covers'))} "
            f"at {d['n_gpus']:,} GPUs, where the job is interrupted every {P.duration(d['job_mtbf_h'])} "
            f"{_now(d)}.")


def _now(d):
    """"now" when today's rate is the fitted rate at the window's end, else "on average"."""
    return "now" if d.get("trend") in ("rising", "falling") else "on average"


def today_sentence(d):
    """When the rate moves: "rising: X now, Y on average over the window" (job and node MTBF), else ""."""
    if d.get("trend") not in ("rising", "falling") or not _ok(d.get("average_job_mtbf_h")):
        return ""
    text = (f"The failure rate is {d['trend']}: the job is interrupted every {P.duration(d['job_mtbf_h'])} now, "
            f"every {P.duration(d['average_job_mtbf_h'])} on average over the window")
    if _ok(d.get("todays_node_mtbf_h")) and _ok(d.get("average_node_mtbf_h")):
        text += (f"; node MTBF (hardware causes) {P.hours_text(d['todays_node_mtbf_h'])} now, "
                 f"{P.hours_text(d['average_node_mtbf_h'])} on average")
    return text + f". The answers use today's rate ({d.get('today_method', 'the rate at the window end')})."


def _reach(d):
    allowed, hw = d["max_fixed_per_day"], d.get("hardware_per_day") or 0.0
    if hw < allowed:
        return (f"with today's hardware ({P.number(hw, 2)} a day) the per-job causes must fall below "
                f"{P.number(allowed - hw, 2)} a day.")
    return (f"the per-job causes must fall below that, and the hardware's {P.number(hw, 2)} a day with "
            "them.")


#: Below this ETTR at the best interval the job loses more than it gains: no checkpoint schedule is the answer.
USEFUL_ETTR = _USEFUL_ETTR


def _rising(records):
    return (records or {}).get("trend") == "wearing out"


def _no_progress(d):
    """The lead sentence when even the best interval leaves ETTR below USEFUL_ETTR, and what would change it."""
    from ...scale.targets.requirements import required_job_mtbf
    from ...scale.targets.largest import largest_job

    need = float(required_job_mtbf(USEFUL_ETTR, d["ckpt_cost_h"], d["restart_h"]))
    fixed, hw = (d.get("fixed_per_day") or 0.0) / 24, (d.get("hardware_per_day") or 0.0) / 24
    text = (f"The job cannot make useful progress at this size with this data: at {d['n_gpus']:,} GPUs it is "
            f"interrupted every {P.duration(d['job_mtbf_h'])}, and even at the best interval only "
            f"{P.pct(d['ettr'])}{_range(d.get('ettr_lo'), d.get('ettr_hi'), d.get('range_covers'))} of its wall time "
            f"is training. An ETTR of {P.pct(USEFUL_ETTR, 0)} needs a job MTBF "
            f"of {P.duration(need)} ({P.number(need / d['job_mtbf_h'], 2)}× today's)")
    n_max = largest_job(USEFUL_ETTR, d["n_gpus"], d["ckpt_cost_h"], d["restart_h"], d.get("restart_growth_h") or 0.0,
                        fixed, hw)
    if n_max is not None:
        text += f"; at today's failure rates that is a job of at most about {P.sig(n_max, 2)} GPUs"
    elif fixed >= 1.0 / need:
        text += "; the per-job causes alone rule that out, however reliable the hardware"
    return text + ", or a faster checkpoint and restart."


def _bootstrap_reach(d):
    """The share of bootstrap draws in which the target is out of reach, when it is not negligible."""
    p = d.get("p_reachable")
    if not d.get("reachable") or not _ok(p) or p >= 0.95 or d.get("ettr_lo") is None:
        return ""
    return (f" In {P.pct(1 - p, 0)} of the bootstrap draws the target is out of reach at any node MTBF: the "
            f"per-job causes alone cap ETTR at {P.pct(d['cap_ettr'])}, so the requirement has no upper bound.")


def _nodes_today(d):
    """Today's node MTBF at this size, named for what it counts (hardware causes only)."""
    if not (_ok(d.get("improvement")) and _ok(d.get("observed_node_mtbf_h"))):
        return ""
    return (f", {P.number(d['improvement'], 2)}× today's {P.hours_text(d['observed_node_mtbf_h'])} (hardware "
            "causes only, measured on the log's nodes; per-job causes such as software are held apart)")


def _law_note(d):
    """The failure law the requirement is solved under, when it is a fitted one ("" for exponential)."""
    law = d.get("requirement_law")
    if not law or law == "exponential":
        return ""
    other = d.get("formula_required_node_mtbf_h")
    alt = f"; with exponential failures nodes would need {P.hours_text(other)}" if _ok(other) else ""
    return (f" The requirement is solved with the {law} law the data support, its shape kept at each job MTBF "
            f"(renewal-reward){alt}.")


def _requirement(d, records=None):
    target = P.pct(d["target_ettr"], 1).replace(".0%", "%")
    if d.get("meets_target"):
        if d.get("trend") == "rising" or (_rising(records) and d.get("trend") in (None, "not tested")):
            return (f"That meets the {target} target at today's failure rates, if the rate stops rising: every "
                    "trend test finds it rising.")
        return f"That meets the {target} target at today's failure rates."
    if not d.get("reachable"):
        return (f"A {target} ETTR is out of reach: the per-job causes alone (software and other failures that do "
                f"not grow with the cluster, {P.number(d['fixed_per_day'], 2)} a day) cap ETTR at "
                f"{P.pct(d['cap_ettr'])}, however reliable the hardware. The target needs a job MTBF of "
                f"{P.duration(d['required_job_mtbf_h'])}, at most {P.number(d['max_fixed_per_day'], 2)} "
                f"interruptions a day in all; {_reach(d)} Otherwise aim for at most {P.pct(d['cap_ettr'])}."
                f"{_law_note(d)}")
    held = (f"holding per-job failures at their observed {P.number(d['fixed_per_day'], 2)} a day, "
            if d.get("fixed_per_day") else "with no per-job failures observed, ")
    node = P.hours_text(d["required_node_mtbf_h"])
    lo, hi, rng = d.get("required_node_lo"), d.get("required_node_hi"), ""
    if _ok(lo) and _ok(hi) and P.sig(lo) != P.sig(hi):
        rng = f" ({P.sig(lo)}–{P.sig(hi)} h over {rate_range(d)})"
    elif _ok(lo) and _ok(hi):
        why = ": it follows from the target, checkpoint cost and restart alone" if not d.get("fixed_per_day") else ""
        rng = f" (the same in every bootstrap draw{why})"
    elif _ok(lo) and d.get("ettr_lo") is not None:
        rng = f" (at least {P.hours_text(lo)}, no upper bound)"
    return (f"To reach {target}, the job needs an MTBF of {P.duration(d['required_job_mtbf_h'])}; {held}"
            f"nodes must reach {node}{rng} between hardware failures{_nodes_today(d)}.{_bootstrap_reach(d)}"
            f"{_law_note(d)}")


def simulation_sentence(s):
    """How the simulation with the data's failure law compares with the exponential formula."""
    gap = 100 * (s["formula_ettr"] - s["formula_interval_sim_ettr"])
    off = 100 * (s["formula_interval_h"] / s["best_interval_h"] - 1)
    size = ("within the simulation's noise" if abs(gap) < 0.2
            else f"{'optimistic' if gap > 0 else 'pessimistic'} by {abs(gap):.1f} points of ETTR")
    if abs(off) < 3:
        where = "practically the formula's interval"
    else:
        side = "shorter" if off > 0 else "longer"
        where = f"{abs(off):.0f}% {side} than the formula's {P.duration(s['formula_interval_h'])}"
    return (f"Simulated with {s['law']}, the best interval is {P.duration(s['best_interval_h'])} ({where}) for "
            f"an ETTR of {P.pct(s['ettr'])}{_range(s.get('ettr_lo'), s.get('ettr_hi'), 'simulation noise, 99%')}. "
            "At the formula's interval "
            f"the simulation gives {P.pct(s['formula_interval_sim_ettr'])} where the formula predicts "
            f"{P.pct(s['formula_ettr'])}: for this data the exponential answer is {size}.")


def shape_supported(law):
    """True when the simulation's failure law (its description) has a fitted shape, not the exponential."""
    return not (law.startswith("exponential") or law.startswith("the exponential law"))


def recommendation(d, s=None):
    """The report's one recommended interval and ETTR, and which answer it is.

    The rule: when the data support a failure-time shape (the simulation ran
    with a fitted law other than the exponential), the simulation's best
    interval and its ETTR are the answer and the exponential formula's exact
    optimum (Daly 2006) is the comparison; otherwise (a count table, too few
    gaps to fit a shape, or the exponential law fits best, or no simulation)
    the formula is the answer and the simulation the comparison.  ``d`` and
    ``s`` are the ``decision`` and ``simulation`` records.  Returns a dict:
    ``basis`` ("simulation" or "formula"), ``interval_h``, ``ettr``,
    ``ettr_lo``, ``ettr_hi``, and the same for the other answer under
    ``comparison`` (None without a simulation).
    """
    if d.get("basis") == "simulation":  # the decision made the choice: its answer, the formula beside it
        return {"basis": "simulation", "interval_h": d["interval_h"], "ettr": d["ettr"], "ettr_lo": d.get("ettr_lo"),
                "ettr_hi": d.get("ettr_hi"),
                "comparison": {"basis": "formula", "interval_h": d.get("formula_interval_h"),
                               "ettr": d.get("formula_ettr"), "ettr_lo": d.get("formula_ettr_lo"),
                               "ettr_hi": d.get("formula_ettr_hi")}}
    formula = {"basis": "formula", "interval_h": d["interval_h"], "ettr": d["ettr"],
               "ettr_lo": d.get("ettr_lo"), "ettr_hi": d.get("ettr_hi")}
    if d.get("basis") == "formula":
        return {**formula, "comparison": None if not s else {
            "basis": "simulation", "interval_h": s["best_interval_h"], "ettr": s["ettr"], "ettr_lo": s.get("ettr_lo"),
            "ettr_hi": s.get("ettr_hi")}}
    if not s:
        return {**formula, "comparison": None}
    sim = {"basis": "simulation", "interval_h": s["best_interval_h"], "ettr": s["ettr"],
           "ettr_lo": s.get("ettr_lo"), "ettr_hi": s.get("ettr_hi")}
    if shape_supported(s.get("law", "")):
        return {**sim, "comparison": formula}
    return {**formula, "comparison": sim}


def _recommended(d, s):
    """``(lead, comparison)``: the recommendation's interval and ETTR sentences, and the other answer's."""
    rec = recommendation(d, s)
    if rec["basis"] == "formula":
        if not s:
            return [_interval(d), _ettr(d)], ([f"The interval assumes exponential failures ({d['law_reason']})."]
                                              if d.get("law_reason") else [])
        return [_interval(d), _ettr(d)], [f"For comparison: {simulation_sentence(s)}"]
    covers = d.get("range_covers") if "basis" in d else None
    law = f": {d['law_reason']}" if d.get("law_reason") else ""
    lead = [f"Checkpoint every {P.duration(rec['interval_h'])} (the simulation's best interval, with the failure "
            f"law the data support{law}).",
            f"Expected ETTR {P.pct(rec['ettr'])}{_range(rec['ettr_lo'], rec['ettr_hi'], covers)} at "
            f"{d['n_gpus']:,} GPUs, where the job is interrupted every {P.duration(d['job_mtbf_h'])} {_now(d)}."]
    f = rec["comparison"] if "basis" in d else {"interval_h": d["interval_h"], "ettr": d["ettr"]}
    return lead, [f"For comparison, the exponential formula's interval is {P.duration(f['interval_h'])} for an "
                  f"ETTR of {P.pct(f['ettr'])}." + (f" {simulation_sentence(s)}" if s else "")]


def answer_sentences(records, parts=("interval", "ettr", "requirement", "simulation")):
    """The report's answers as sentences, from merged records (``decision``, ``simulation``).

    With both records and all parts, the interval and ETTR are the one
    :func:`recommendation`, the other answer a named comparison.
    """
    out, compare = [], []
    d, s = records.get("decision"), records.get("simulation")
    whole = "interval" in parts and "ettr" in parts and "simulation" in parts
    if d and today_sentence(d) and "ettr" in parts:
        out.append(today_sentence(d))
    if d:
        stuck = _ok(d.get("ettr")) and d["ettr"] < USEFUL_ETTR
        if stuck and parts != ("interval",):
            out.append(_no_progress(d))
        elif whole:
            lead, compare = _recommended(d, s)
            out += lead
        elif "interval" in parts:
            out.append(_interval(d))
        if "ettr" in parts and not stuck and not whole:
            out.append(_ettr(d))
        if "requirement" in parts:
            out.append(_requirement(d, records))
        if whole and not stuck:
            return out + compare
    if s and "simulation" in parts:
        out.append(("For comparison: " if whole and d else "") + simulation_sentence(s))
    return out


def warning_lines(records):
    """The warnings that matter: out of reach, small samples, tests that disagree, rejected fits."""
    out = []
    d = records.get("decision") or {}
    if d and not d.get("reachable", True):
        out.append(f"The {P.pct(d['target_ettr'], 0)} target is out of reach at {d['n_gpus']:,} GPUs: per-job "
                   f"causes cap ETTR at {P.pct(d['cap_ettr'])}.")
    if records.get("no_gpu_answer"):
        out.append(f"No answer for a GPU job: {records['no_gpu_answer']}.")
    src = records.get("source") or {}
    if _ok(src.get("events")) and src["events"] < 30:
        out.append(f"Only {src['events']} interruptions in the data: rates and fits are uncertain.")
    out += list(src.get("notes") or [])[:3]
    inside = src.get("inside_maintenance") or []
    if inside:
        rows = ", ".join(f"row {r} (node {n})" for r, n in inside[:5]) + (", ..." if len(inside) > 5 else "")
        many = len(inside) > 1
        out.append(f"{P.count(len(inside))} unplanned outage{'s' if many else ''} began inside planned maintenance "
                   f"and {'are counted as interruptions' if many else 'is counted as an interruption'}: {rows}.")
    trend = d.get("trend")
    if trend in ("rising", "falling"):
        out.append(f"The failure rate is {trend}: the rate models that best forecast the log's later parts from its "
                   "earlier ones read it so, and the answers use today's rate, their weighted rate at the window's "
                   "end; they hold while it stays there.")
    elif trend == "disagree" and d.get("today_reason"):
        out.append(f"No trend is used: {d['today_reason']}, so the answers use the window's average rate.")
    elif _rising(records) and trend in (None, "not tested"):
        out.append("The failure rate is rising: every trend test agrees (see the distributions page). Answers "
                   "at today's rates hold only if it stops rising.")
    short = records.get("outage_share_under_10min")
    if _ok(short) and short >= 0.5:
        out.append(f"{P.pct(short)} of the outages last under 10 minutes (reboots and the like): the rates "
                   "count each as an interruption (see the data page).")
    if _ok(d.get("p_reachable")) and d.get("reachable") and d.get("ettr_lo") is not None \
            and d["p_reachable"] < 0.95:
        out.append(f"In {P.pct(1 - d['p_reachable'], 0)} of the bootstrap draws the {P.pct(d['target_ettr'], 0)} "
                   f"target is out of reach at any node MTBF (per-job causes cap ETTR at {P.pct(d['cap_ettr'])}).")
    if records.get("trend") == "inconclusive" and trend in (None, "not tested"):
        out.append("The trend tests disagree, so no trend verdict is given (see the distributions page).")
    if records.get("best_family_rejected"):
        text = f"The best-fitting family ({records.get('best_family')}) is rejected by its bootstrap test."
        if d.get("law_reason"):
            text += (" The answers' failure law is chosen on the times between the log's interruptions: "
                     f"{d['law_reason']}.")
        out.append(text)
    return [w for w in out if not w.startswith("Source:")]


_NULL = {
    "observed_node_mtbf_h": "no hardware failures in the data",
    "best_family_p": "no bootstrap test was run (n_boot = 0)",
    "best_family_rejected": "no bootstrap test was run (n_boot = 0)",
    "source_gpus": "the log's units are not GPU nodes (see unit and counted)",
}


def null_reasons(records, reasons, path=""):
    """Add a reason to ``reasons`` for every null in ``records`` that has none yet."""
    for k, v in records.items():
        key = f"{path}.{k}" if path else k
        if isinstance(v, dict):
            null_reasons(v, reasons, key)
        elif v is None and key not in reasons and k not in reasons:
            if k in ("required_node_mtbf_h", "required_node_lo", "required_node_hi", "improvement") \
                    and records.get("reachable") is False:
                why = f"out of reach: per-job causes cap ETTR at {P.pct(records.get('cap_ettr'))}"
            elif k in ("required_node_hi", "required_node_lo") and records.get("ettr_lo") is not None \
                    and _ok(records.get("p_reachable")) and records["p_reachable"] < 1:
                why = (f"no bound: in {P.pct(1 - records['p_reachable'], 0)} of the bootstrap draws no node "
                       f"MTBF reaches the target (per-job causes cap ETTR at {P.pct(records.get('cap_ettr'))})")
            elif k in ("job_mtbf_hi", "interval_hi") and _ok(records.get(k[:-2] + "lo")):
                why = f"unbounded ({UNBOUNDED}): the answer says 'at least' the lower end"
            elif k.endswith(("_lo", "_hi")):
                why = "no interval: the bootstrap was turned off (n_boot below 2)"
            else:
                why = _NULL.get(k, "not available for this data")
            reasons[key] = why
    return reasons


def merged_records(records):
    """One dict of every notebook's records, later notebooks winning; reasons merged too."""
    merged, reasons = {}, {}
    for nb_records in records.values():
        merged.update({k: v for k, v in nb_records.items() if k != "reasons"})
        reasons.update(nb_records.get("reasons") or {})
    merged["reasons"] = reasons
    return merged


def _self_check(merged):
    """summary.json's ``forecast_check``: how well the log forecast itself, as notebook 01 recorded it once."""
    check = merged.get("forecast_check")
    return {"forecast_check": check} if isinstance(check, dict) else {}


def summarise(entries, parameters):
    """The summary of one run's stored entries: ``(summary dict, merged records without reasons)``.

    summary.json holds numbers or null: every null has its ``reasons`` entry.
    """
    from .provenance import provenance

    failed = [e["name"] for e in entries if e["error"]]
    reasons = {}
    records = clean({e["name"]: e["records"] for e in entries}, reasons)
    merged = merged_records(records)
    reasons = {**reasons, **merged.pop("reasons")}
    reasons.update({k: v for k, v in null_reasons(records, dict(reasons)).items() if k not in reasons})
    decisions = decision_sentences(merged)
    paper = paper_sentence(merged)
    if paper:
        decisions["paper"] = paper
    caveat = population_caveat(merged)
    if caveat:
        decisions["population"] = caveat
    head = headline_of(merged, parameters)
    if not head and merged.get("no_gpu_answer"):
        reasons["headline"] = f"no answer for a GPU job: {str(merged['no_gpu_answer']).rstrip('.')}"
    fleet = fleet_of(merged)
    answers = answer_sentences(merged)
    if fleet:
        head["fleet"] = fleet
        said = fleet_sentence(fleet)
        at = next((i + 1 for i, a in enumerate(answers) if a.startswith("Expected ETTR")), len(answers))
        answers = answers[:at] + [said] + answers[at:]
    if caveat:
        answers.append(caveat)
    if not answers and merged.get("no_gpu_answer"):   # the terminal says why, not nothing
        answers = [f"No answer for a GPU job: {str(merged['no_gpu_answer']).rstrip('.')}."]
    summary = {"parameters": clean(parameters, {}), "scenario": merged.get("scenario"), "headline": head,
               "designs": designs_of(merged), "decisions": decisions,
               "reasons": reasons, "answers": answers, "nodes": nodes_sentences(merged),
               "warnings": warning_lines(merged),
               "records": records, **_self_check(merged),
               "notebooks": [{k: e.get(k) for k in ("name", "ipynb", "html", "seconds", "error", "failure")}
                             for e in entries],
               "status": "partial" if failed else "complete", "failed": failed,
               "provenance": provenance(parameters),
               "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
               "relmodel": marker("complete")}
    return summary, merged


def summarise_run(entries, parameters, folder):
    """Summarise one run's entries and write its ``folder/summary.json``; return ``(summary, merged)``."""
    summary, merged = summarise(entries, parameters)
    write_summary(folder, summary)
    return summary, merged


def summarise_runs(the_plan, entries_by_run, folder):
    """The summarise step: every run of ``the_plan`` summarised into its folder inside ``folder``.

    ``entries_by_run`` holds each run's stored entries (:meth:`.plan.Plan.by_run`).
    Returns the ``(summary, merged records)`` of each run, in run order.
    """
    return [summarise_run(entries, run.values, Path(folder) / run.folder)
            for run, entries in zip(the_plan.runs, entries_by_run)]
