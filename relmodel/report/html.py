"""Standalone HTML pages for reports: the index of a run that states question, inputs and answers.

The index follows the presentation rules of :mod:`relmodel.report`: the
question, the inputs (defaults marked as assumptions), the answers as
sentences, key figures, the warnings that matter, then links to the pages.
"""

from relmodel.escape import html_text
from pathlib import Path

from . import present as P
from .failures import failure_sentence, status_text
from .summary import answer_sentences, warning_lines

__all__ = ["HEADLINE", "STYLE", "PRINT_STYLE", "page", "table", "fmt", "index_page", "inputs_rows", "NOTEBOOK_TITLES"]

#: Headline numbers collected into summary.json, with their labels.
HEADLINE = {
    "job_mtbf_h": "Job MTBF (time between interruptions)",
    "optimal_interval_h": "Checkpoint interval (exponential formula)",
    "ettr": "ETTR at that interval (exponential formula)",
    "required_node_mtbf_h": "Node MTBF needed for the target (hardware causes only)",
    "design_ettr": "ETTR of the examined design",
    "design_goodput_per_gpu": "Goodput per GPU bought (design)",
}

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
}

STYLE = ("body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#222;"
         "line-height:1.45}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;"
         "padding:.3em .7em;text-align:left;vertical-align:top}.err{color:#a00}.answer{font-size:1.1em}"
         ".note{border-left:4px solid #c98a00;background:#fdf6e3;padding:.4em .8em;margin:.4em 0}"
         ".stopped{border-left-color:#a00;background:#fbeaea}.assumed{color:#8a5a00}img{max-width:100%;height:auto}.scroll{overflow-x:auto;max-width:100%}")


#: Print rules for every page: landscape, tables wrap instead of losing their right-hand columns.
PRINT_STYLE = ("@media print{@page{size:A4 landscape;margin:12mm}body{max-width:none;margin:0}"
               ".scroll,.jp-RenderedHTMLCommon,.jp-OutputArea-output{overflow:visible!important;max-width:none}"
               "table{width:100%;table-layout:auto;font-size:8.5pt;page-break-inside:auto}"
               "tr{page-break-inside:avoid}td,th{white-space:normal!important;overflow-wrap:anywhere}"
               "img{max-width:100%!important;page-break-inside:avoid}}")


def page(title, body):
    """A small standalone HTML page."""
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html_text(title)}</title>"
            f"<style>{STYLE}{PRINT_STYLE}</style></head><body><h1>{html_text(title)}</h1>{body}</body></html>")


def table(header, rows):
    """An HTML table from a header list and rows of already-escaped cells, in its own scroll box."""
    head = "".join(f"<th>{html_text(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<div class='scroll'><table><tr>{head}</tr>{body}</table></div>"


def fmt(value, key=None, reason=None):
    """Format a headline value for people: durations by key, fractions as %, no inf/NaN.

    ``key`` names the quantity (``_h`` keys are hours, ``ettr`` keys fractions);
    ``reason`` is shown for a missing value.

    Examples
    --------
    >>> fmt(16595.4, "required_node_mtbf_h"), fmt(0.85312, "ettr"), fmt("a<b"), fmt(None, reason="out of reach")
    ('16,600 h', '85.3%', 'a&lt;b', 'out of reach')
    """
    if value is None:
        return html_text(reason or "—")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        if key == "design_goodput_per_gpu":  # a share, in percent as on the designs page
            return P.pct(value)
        if key == "ettr" or (key or "").endswith("ettr"):
            return P.pct(value)
        if key in ("optimal_interval_h",) or (key or "").endswith("interval_h"):
            return P.duration(value)
        if (key or "").endswith("mtbf_h") and key != "job_mtbf_h":
            return P.hours_text(value)
        if (key or "").endswith("_h"):
            return P.duration(value)
        return P.number(value, 4) if isinstance(value, float) else f"{value:,}"
    return html_text(str(value))


def inputs_rows(summary, merged):
    """(label, value, given-or-assumed) rows for the inputs the answers rest on."""
    given = set(summary.get("parameters") or {})
    d, src = merged.get("decision") or {}, merged.get("source") or {}
    rows = []
    if src:
        what = "interruptions" if src.get("kind") == "counts" else "outages"
        rows.append(("Data", f"{src['name']}: {P.count(src['events'])} {what} over "
                             f"{P.duration(src['span_h'])}", "log" in given))
        counted = (src.get("counted") if src.get("unit", "gpu-node") != "gpu-node"
                   else f"{P.count(src['source_gpus'])} GPUs")
        rows.append(("Observed cluster", f"{counted} ({src.get('cluster_from', '')})",
                     "source_gpus" in given or "unit" in given))
    if d:
        rows += [("Planned job", f"{P.count(d['n_gpus'])} GPUs ({P.count(d['n_nodes'])} nodes)", "n_gpus" in given),
                 ("GPUs per node", f"{d['gpus_per_node']}", "gpus_per_node" in given),
                 ("Checkpoint cost", P.duration(d["ckpt_cost_h"]), "ckpt_cost" in given),
                 ("Restart time", P.duration(d["restart_h"]), "restart" in given),
                 ("Target ETTR", P.pct(d["target_ettr"]), "target_ettr" in given)]
    return rows


def _question(d):
    if not d:
        return ""
    return (f"<p><b>The question.</b> A training job on {P.count(d['n_gpus'])} GPUs: how often should it "
            f"checkpoint, what share of its wall time will be useful training (ETTR), and what must the "
            f"hardware reach for an ETTR of {P.pct(d['target_ettr'])}?</p>")


def _figures(folder):
    if folder is None:
        return ""
    imgs = sorted(Path(folder).glob("key-*.png"))
    return "".join(f"<p><img src='{html_text(p.name)}' alt='{html_text(p.stem[4:].replace('-', ' '))}'></p>"
                   for p in imgs)


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
    rows = inputs_rows(summary, merged)
    if rows:
        parts.append("<h2>Inputs</h2>" + table(["input", "value", ""], [
            [html_text(a), html_text(b), "given" if g else "<span class='assumed'>default (assumption)</span>"]
            for a, b, g in rows]))
    answers = summary.get("answers") or answer_sentences(merged)
    if answers:
        parts.append("<h2>Answers</h2>" + "".join(f"<p class='answer'>{html_text(s)}</p>" for s in answers))
    elif summary.get("headline"):
        reasons = summary.get("reasons") or {}
        parts.append("<h2>Headline numbers</h2>" + table(["quantity", "value"], [
            [html_text(HEADLINE.get(k, k)), fmt(v, k, reasons.get(k))] for k, v in summary["headline"].items()]))
    parts.append(_figures(folder))
    warns = summary.get("warnings") if "warnings" in summary else warning_lines(merged)
    if warns:
        parts.append("<h2>Warnings</h2>" + "".join(f"<div class='note'>{html_text(w)}</div>" for w in warns))
    parts.append("<h2>Detail pages</h2>" + _links(summary))
    parts.append(f"<p>Created {html_text(summary['created'])} by relmodel.</p>")
    if summary.get("provenance"):
        from .provenance import footer
        parts.append(footer(summary["provenance"]))
    name = (merged.get("source") or {}).get("name")
    return page(f"{title}: {name}" if name else title, "".join(parts))
