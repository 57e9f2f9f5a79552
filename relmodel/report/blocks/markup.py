"""The HTML every report page shares: the style, a page, a table, a headline value for people.

Every page the report process writes (a run's index, a sweep's comparison
page, the notebooks' own HTML through :data:`PRINT_STYLE`) is built from
these, so they look and print alike.  Numbers are formatted by
:mod:`.present` (the one rule set of :mod:`relmodel.tables`).
"""

from relmodel.base.escape import html_text

from . import present as P

__all__ = ["HEADLINE", "STYLE", "PRINT_STYLE", "page", "table", "fmt"]

#: Headline numbers collected into summary.json, with their labels.
HEADLINE = {
    "job_mtbf_h": "Job MTBF (time between interruptions)",
    "optimal_interval_h": "Checkpoint interval (the answer)",
    "ettr": "ETTR at that interval",
    "required_node_mtbf_h": "Node MTBF needed for the target (hardware causes only)",
    "todays_node_mtbf_h": "Today's node MTBF (hardware causes)",
    "restart_h": "Restart time",
    "design_ettr": "ETTR of the examined design",
    "design_goodput_per_gpu": "Goodput per GPU bought (design)",
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
