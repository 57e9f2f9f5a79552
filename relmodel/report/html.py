"""Small standalone HTML pages for reports: the index of a run and its tables."""

import html

__all__ = ["HEADLINE", "page", "table", "fmt", "index_page"]

#: Headline numbers collected into summary.json, with their labels.
HEADLINE = {
    "job_mtbf_h": "Job MTBF (hours)",
    "optimal_interval_h": "Optimal checkpoint interval (hours)",
    "ettr": "ETTR at the optimal interval",
    "required_node_mtbf_h": "Required node MTBF (hours)",
}

_STYLE = ("body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}"
          "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .7em;text-align:left}"
          ".err{color:#a00}")


def page(title, body):
    """A small standalone HTML page."""
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>{body}</body></html>")


def table(header, rows):
    """An HTML table from a header list and rows of already-escaped cells."""
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def fmt(value):
    """Format a headline value for HTML.

    Large numbers (hours, FIT) get thousands separators and no decimals; others four significant digits.

    Examples
    --------
    >>> fmt(16595.4), fmt(0.31008), fmt("a<b")
    ('16,595', '0.3101', 'a&lt;b')
    """
    if isinstance(value, float):
        return f"{value:,.0f}" if 1e4 <= abs(value) < 1e15 else f"{value:.4g}"
    return html.escape(str(value))


def index_page(summary, title="relmodel report"):
    """The index.html of one report: headline numbers, parameters, notebook links."""
    head = table(["quantity", "value"], [[html.escape(HEADLINE[k]), fmt(v)]
                                         for k, v in summary["headline"].items()])
    params = summary["parameters"]
    par = (table(["parameter", "value"], [[html.escape(k), fmt(v)] for k, v in params.items()])
           if params else "<p>Default parameters (bundled data).</p>")
    rows = []
    for nb in summary["notebooks"]:
        link = (f"<a href='{html.escape(nb['html'])}'>{html.escape(nb['name'])}</a>"
                if nb["html"] else html.escape(nb["name"]))
        status = (f"<span class='err'>{html.escape(nb['error'])}</span>" if nb["error"] else "ok")
        rows.append([link, f"<a href='{html.escape(nb['ipynb'])}'>ipynb</a>",
                     f"{nb['seconds']:.1f} s", status])
    other = [[html.escape(nb), html.escape(k), fmt(v)]
             for nb, recs in summary["records"].items() for k, v in recs.items() if k not in HEADLINE]
    more = ("<h2>Other recorded numbers</h2>" + table(["notebook", "quantity", "value"], other)
            if other else "")
    return page(title, "<h2>Headline numbers</h2>" + head + "<h2>Parameters</h2>" + par
                + "<h2>Notebooks</h2>" + table(["notebook", "executed", "time", "status"], rows) + more
                + f"<p>Created {html.escape(summary['created'])}.</p>")
