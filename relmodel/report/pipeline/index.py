"""The index step: each run's index.html and, for a sweep, the comparison page over the runs.

:func:`index_runs` is the last step of a render (:func:`.run.render_plan`).
A run's index (:func:`index_page`) follows the presentation rules of
:mod:`relmodel.report`: the question, the inputs (defaults marked as
assumptions), the answers and warnings as the summarise step wrote them into
the summary (:mod:`.summarise`; no sentence is built here), key figures,
then links to the pages.  A sweep's comparison page and summary.json are
written by :func:`.sweep.write_index` from the runs' summaries in memory.
"""

from pathlib import Path

from relmodel.base.escape import html_text

from ..safety import folders
from ..blocks import present as P
from ..blocks.failures import failure_sentence, status_text
from ..blocks.markup import HEADLINE, fmt, page, table
from .sweep import write_index

__all__ = ["NOTEBOOK_TITLES", "inputs_rows", "unnest", "index_page", "index_run", "sweep_row", "index_runs", "index_sweep"]

#: One line per notebook of the suite, for the index's links.
NOTEBOOK_TITLES = {
    "01_log_explorer": "The data: what broke, how often, how long repairs took",
    "02_failure_distributions": "Failure-time distributions and trends",
    "03_checkpoint_interval": "Checkpoint interval, ETTR and a simulation with the data's failure law",
    "04_requirements_at_scale": "What the hardware must reach; causes to fix first; spare nodes",
    "05_interactive": "What-if: cluster size, checkpoint cost, restart time, target",
    "06_designs": "Cluster designs: fault domains, spares, tolerated faults and optics",
    "07_stragglers": "Stragglers and fail-slow nodes: time lost, nodes to evict, growth with size",
    "08_covariates": "Why some parts fail sooner: position, groups and regression",
    "09_bad_nodes": "Bad nodes: which ones, do repairs fix them, what retiring them buys",
}


_SAID = {"measured from the log": "measured from the log", "parameter": "given", "assumption": "default (assumption)"}


def _where(head, key, given):
    """How an input is labelled: measured from the log, given, or a default (an assumption)."""
    said = (head.get("source") or {}).get(key)
    if said in _SAID:
        return _SAID[said]
    return "given" if given else _SAID["assumption"]


def inputs_rows(summary, merged):
    """(label, value, where) rows for the inputs the answers rest on; where is "given", "measured from the log"
    or "default (assumption)" (summary.json's ``headline.source``)."""
    given = set(summary.get("parameters") or {})
    head = summary.get("headline") or {}
    d, src = merged.get("decision") or {}, merged.get("source") or {}
    rows = []
    if src:
        what = "interruptions" if src.get("kind") == "counts" else "outages"
        rows.append(("Data", f"{src['name']}: {P.count(src['events'])} {what} over "
                             f"{P.duration(src['span_h'])}", "given" if "log" in given else _SAID["assumption"]))
        counted = (src.get("counted") if src.get("unit", "gpu-node") != "gpu-node"
                   else f"{P.count(src['source_gpus'])} GPUs")
        counted_given = "source_gpus" in given or "population" in given
        where = _where(head, "source_gpus", counted_given)
        if not counted_given and src.get("unit", "gpu-node") != "gpu-node":  # units counted in the log, no GPUs
            where = _SAID["measured from the log"]
        rows.append(("Observed cluster", f"{counted} ({src.get('cluster_from', '')})", where))
    if d:
        seen = d.get("source_gpus_per_node") or src.get("gpus_per_node")
        rows += [("Planned job", f"{P.count(d['n_gpus'])} GPUs ({P.count(d['n_nodes'])} nodes)",
                  _where(head, "n_gpus", "n_gpus" in given)),
                 ("GPUs per node", f"{d['gpus_per_node']} in the planned job, {seen} in the observed cluster",
                  _where(head, "gpus_per_node", "gpus_per_node" in given)),
                 ("Checkpoint cost", P.duration(d["ckpt_cost_h"]), _where(head, "ckpt_cost", "ckpt_cost" in given)),
                 ("Restart time", P.duration(d["restart_h"], digits=3) + (f" ({d['restart_note']})" if d.get("restart_note")
                                                                and d["restart_note"] != "as given" else ""),
                  _where(head, "restart", "restart" in given))]
        if d.get("detection_latency_h") is not None:
            rows.append(("Detection latency (fault to job end)", P.duration(d["detection_latency_h"]),
                         _SAID["measured from the log"]))
        rows.append(("Target ETTR", P.pct(d["target_ettr"]), _where(head, "target_ettr", "target_ettr" in given)))
        sp = merged.get("spares") or {}
        if sp.get("repair_mean_h") is not None:
            rows.append(("Repair or return time (sizes the spares)", f"{P.duration(sp['repair_mean_h'])} mean: "
                         f"{sp.get('repair_from', '')}", "measured from the log" if sp.get("measured")
                         else ("given" if "repair" in given else _SAID["assumption"])))
        rows += _choices(d)
    return [(a, unnest(b), c) for a, b, c in rows]


def unnest(text):
    """A value ending in a parenthesis that holds another, "X (Y (Z))", as "X: Y (Z)": a table cell reads one level."""
    if not text.endswith(")"):
        return text
    depth, inner = 0, False
    for i in range(len(text) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(text[i], 0)
        inner |= depth > 1
        if depth == 0:
            return f"{text[:i].rstrip()}: {text[i + 1:-1]}" if inner and i > 0 else text
    return text


def _choices(d):
    """The choices behind the answers, as input rows: failure law, the rate "today" means, causes held per job."""
    rows = []
    if d.get("basis"):
        how = ("simulated with the fitted law" if d["basis"] == "simulation" else "the exponential formula")
        rows.append(("Answer from", f"{how}: {d.get('law_reason', '')}", "chosen from the log"))
    if d.get("today_method"):
        why = f" ({d['today_reason']})" if d.get("today_reason") else ""
        rows.append(("Today's rate", f"{d['today_method']}{why}", "chosen from the log"))
    if d.get("today_window"):
        rows.append(("Window today rests on", d["today_window"], "chosen from the log"))
    held = list(d.get("per_job_causes") or [])
    if held:
        wide = set(d.get("cluster_wide") or [])
        names = ", ".join(f"{c} (strikes many nodes at once)" if c in wide else c for c in held[:8])
        rows.append(("Causes held per job (not grown with nodes)", names, "by name or from the log"))
    return rows


_DECISION_TITLES = (("interval", "Checkpoint interval"), ("vendor", "Node MTBF to demand from the vendor"),
                    ("spares", "Spare nodes"), ("nodes", "Nodes to pull"))


def _decisions(summary, merged):
    """The four decisions, each a sentence with its assumption, then what swings them (summary.json's own text)."""
    from ..blocks.decision_words import swing_rows
    dec = summary.get("decisions") or {}
    rows = [[html_text(title), html_text(dec[key])] for key, title in _DECISION_TITLES if dec.get(key)]
    if not rows:
        return ""
    out = "<h2>The four decisions</h2>" + table(["decision", "answer and what it assumes"], rows)
    swings = swing_rows(merged)
    if swings:
        out += ("<h3>What swings them</h3><p>The ranges in these answers cover the counts' noise only. Each "
                "assumed input moved over a plausible range, the others held, largest ETTR swing first:</p>"
                + table(["input", "used", "range tried", "ETTR", "node MTBF to demand", "spare nodes"],
                        [[html_text(c) for c in r] for r in swings]))
    for key in ("population", "paper"):
        if dec.get(key):
            out += f"<p class='note'>{html_text(dec[key])}</p>"
    return out


def _question(d):
    if not d:
        return ""
    return (f"<p><b>The question.</b> A training job on {P.count(d['n_gpus'])} GPUs: how often should it "
            f"checkpoint, what share of its wall time will be useful training (ETTR), and what must the "
            f"hardware reach for an ETTR of {P.pct(d['target_ettr'])}?</p>")


#: The key figure of the index's own "how well this log forecasts itself" section (notebook 01 records it).
SELF_CHECK_FIGURE = "key-self-check.png"


def _figures(folder):
    if folder is None:
        return ""
    imgs = [p for p in sorted(Path(folder).glob("key-*.png")) if p.name != SELF_CHECK_FIGURE]
    return "".join(f"<p><img src='{html_text(p.name)}' alt='{html_text(p.stem[4:].replace('-', ' '))}'></p>"
                   for p in imgs)


def _self_check(summary, folder):
    """The log's forecast of its own later part: summary.json's sentence and notebook 01's figure."""
    check = summary.get("forecast_check") or {}
    if not check.get("sentence"):
        return ""
    img = ""
    if folder is not None and (Path(folder) / SELF_CHECK_FIGURE).exists():
        img = f"<p><img src='{SELF_CHECK_FIGURE}' alt='failures forecast for the held-out part of the log'></p>"
    return f"<h2>How well this log forecasts itself</h2><p>{html_text(check['sentence'])}</p>{img}"


def _links(summary):
    rows = []
    for nb in summary["notebooks"]:
        title = NOTEBOOK_TITLES.get(nb["name"], nb["name"])
        example = ((summary.get("records") or {}).get(nb["name"]) or {}).get("example")  # a page not on the data
        title += f" (shows an example, not your data: {example})" if example else ""
        link = (f"<a href='{html_text(nb['html'])}'>{html_text(title)}</a>" if nb["html"]
                else html_text(title))
        status = html_text(status_text(nb))
        status = f"<span class='err'>{status}</span>" if nb["error"] else status
        notebook = f"<a href='{html_text(nb['ipynb'])}'>notebook</a>" if nb.get("ipynb") else "—"
        rows.append([link, notebook,
                     f"{nb['seconds']:.0f} s", status])
    return table(["page", "executed notebook", "time", "status"], rows)


def index_page(summary, merged=None, title="relmodel report", folder=None):
    """The index.html of one report: question, inputs, answers, key figures, warnings, links."""
    merged = merged or {}
    d = merged.get("decision") or {}
    parts = [_question(d)]
    for nb in (nb for nb in summary["notebooks"] if nb["error"]):
        sentence = failure_sentence(nb, NOTEBOOK_TITLES.get(nb["name"], nb["name"]))
        parts.append(f"<div class='note stopped'>{html_text(sentence)}</div>")
    parts.append(_decisions(summary, merged))
    rows = inputs_rows(summary, merged)
    if rows:
        parts.append("<h2>Inputs</h2>" + table(["Input", "Value", "Where it comes from"], [
            [html_text(a), html_text(b), f"<span class='assumed'>{html_text(g)}</span>" if "assumption" in g
             else html_text(g)] for a, b, g in rows]))
    answers = summary.get("answers")
    if answers:
        parts.append("<h2>Answers</h2>" + "".join(f"<p class='answer'>{html_text(s)}</p>" for s in answers))
    elif summary.get("headline"):
        reasons = summary.get("reasons") or {}
        parts.append("<h2>Headline numbers</h2>" + table(["quantity", "value"], [
            [html_text(HEADLINE[k]), fmt(v, k, reasons.get(k))] for k, v in summary["headline"].items()
            if k in HEADLINE]))
    nodes = summary.get("nodes")
    if nodes:
        parts.append("<h2>Nodes to pull</h2>" + "".join(f"<p class='answer'>{html_text(s)}</p>" for s in nodes))
    parts.append(_figures(folder))
    parts.append(_self_check(summary, folder))
    warns = summary.get("warnings")
    if warns:
        parts.append("<h2>Warnings</h2>" + "".join(f"<div class='note'>{html_text(w)}</div>" for w in warns))
    parts.append("<h2>Detail pages</h2>" + _links(summary))
    parts.append(f"<p>Created {html_text(summary['created'])} by relmodel.</p>")
    if summary.get("provenance"):
        from .provenance import footer
        parts.append(footer(summary["provenance"]))
    name = (merged.get("source") or {}).get("name")
    return page(f"{title}: {name}" if name else title, "".join(parts))


def index_run(summary, merged, folder):
    """Write one run's index.html into ``folder`` from its summary and merged records."""
    folders.write_text(Path(folder) / "index.html", index_page(summary, merged, folder=folder))


def sweep_row(run, summary, merged, error=None):
    """The comparison page's row of one run of a sweep: its values, headline, records, answers and status."""
    stopped = "; ".join(f"{nb['name']} {status_text(nb)}" for nb in summary["notebooks"] if nb["error"])
    return {"values": run.combination, "value": next(iter(run.combination.values())), "folder": run.folder,
            "headline": {**summary["headline"], **{k: v for k, v in (summary.get("designs") or {}).items()
                                                   if k in ("design_ettr", "design_goodput_per_gpu")}},
            "reasons": summary["reasons"], "records": merged,
            "answers": summary["answers"], "error": None if error is None else str(error),
            "status": stopped or "complete"}


def index_runs(the_plan, summaries, errors, folder):
    """The index step: every run's index.html, then a sweep's comparison page; return the sweep's rows.

    ``summaries`` are the ``(summary, merged records)`` of each run of
    ``the_plan`` (from :func:`.summarise.summarise_runs`), ``errors`` each
    run's error or None; ``folder`` holds the runs' folders.  Outside a sweep
    the rows are ``[]``.
    """
    folder = Path(folder)
    for run, (summary, merged) in zip(the_plan.runs, summaries):
        index_run(summary, merged, folder / run.folder)
    return index_sweep(the_plan, summaries, errors, folder)


def index_sweep(the_plan, summaries, errors, folder):
    """A sweep's comparison page over its runs, already indexed one by one; return the sweep's rows ([] outside a
    sweep).  :func:`index_runs` without the runs' own pages, for a render that indexed each run as it ended."""
    folder = Path(folder)
    if not the_plan.swept:
        return []
    rows = [sweep_row(run, summary, merged, error)
            for run, (summary, merged), error in zip(the_plan.runs, summaries, errors)]
    write_index(the_plan.swept, rows, the_plan.parameters, folder)
    return rows
