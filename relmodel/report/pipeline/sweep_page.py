"""The sweep's comparison page: one row per run, headers in words, a verdict per row.

Columns: the swept inputs (labelled in words with units, values with
thousands separators), then each headline number, whether the run meets
its target, and how many times today's node MTBF the target needs (none
for a row that already meets it).  The table wraps to the page width.
"""

from relmodel.base.escape import html_text

from ..blocks import present as P
from ..blocks.markup import HEADLINE, fmt, page
from ..parameters.rules import DURATIONS

__all__ = ["PARAMETER_LABELS", "parameter_label", "value_text", "run_heading", "sweep_table", "sweep_page"]

#: Report parameters in words (with their units where a unit is fixed).
PARAMETER_LABELS = {
    "n_gpus": "GPUs in the job", "ckpt_cost": "Checkpoint cost", "restart": "Restart time",
    "target_ettr": "Target ETTR", "gpus_per_node": "GPUs per node", "source_gpus": "GPUs observed",
    "log": "Data", "repair_time": "Repair time", "n_runs": "Simulated runs", "n_boot": "Bootstrap draws",
    "work": "Training work", "seed": "Random seed",
}

_WRAP = ("<style>table.wide{width:100%;table-layout:auto}table.wide td,table.wide th{overflow-wrap:break-word;"
         "word-break:normal;white-space:normal}</style>")


def parameter_label(name):
    """A parameter name in words: ``n_gpus`` -> "GPUs in the job"."""
    return PARAMETER_LABELS.get(name, name.replace("_", " ").capitalize())


def value_text(name, value):
    """A swept value for people: 262144 -> "262,144", "2min" -> "2 min", 0.95 -> "95.0%" (for a target)."""
    from ...units import hours
    if name in DURATIONS and not isinstance(value, bool):
        try:
            return P.duration(float(hours(value)))
        except Exception:  # a value rules.py let through as text
            return str(value)
    if name.endswith("ettr") and isinstance(value, float):
        return P.pct(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def run_heading(values):
    """"GPUs in the job: 262,144; Checkpoint cost: 2 min" for one run's swept values."""
    return "; ".join(f"{parameter_label(n)}: {value_text(n, v)}" for n, v in values.items())


def _verdict(records):
    d = (records or {}).get("decision") or {}
    if not d:
        return None, "—", "—"
    if d.get("meets_target"):
        return True, "yes", "— (target met)"
    if not d.get("reachable", True):
        return False, "no (out of reach)", "out of reach"
    times = d.get("improvement")
    return False, "no", f"{P.number(times, 2)}×" if isinstance(times, (int, float)) else "—"


def sweep_table(names, rows):
    """The comparison table's HTML: swept inputs, headline numbers, meets target, × today, status."""
    keys = [k for k in HEADLINE if any(k in r["headline"] for r in rows)]  # the people's numbers, not every field
    header = [parameter_label(n) for n in names] + [HEADLINE.get(k, k.replace("_", " ")) for k in keys]
    header += ["Meets the target?", "Node MTBF needed, × today's", "Status"]
    body = []
    for r in rows:
        met, says, times = _verdict(r.get("records"))
        cells = [f"<a href='{html_text(r['folder'])}/index.html'>{html_text(value_text(names[0], r['values'][names[0]]))}</a>"]
        cells += [html_text(value_text(n, r["values"][n])) for n in names[1:]]
        reasons = r.get("reasons") or {}
        for k in keys:
            if k not in r["headline"]:
                cells.append("—")
            elif k == "required_node_mtbf_h" and met:
                cells.append("— (target met)")
            else:
                cells.append(fmt(r["headline"][k], k, reasons.get(k, "out of reach")))
        cells += [says, times, html_text(r.get("status") or "complete")]
        body.append(cells)
    head = "".join(f"<th>{html_text(h)}</th>" for h in header)
    trs = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in body)
    return f"{_WRAP}<table class='wide'><tr>{head}</tr>{trs}</table>"


def sweep_page(names, rows, params=None):
    """The whole comparison page (index.html of a sweep); ``comparison.png`` sits beside it."""
    fixed = ", ".join(f"{parameter_label(k)}: {value_text(k, v)}" for k, v in (params or {}).items())
    swept = " × ".join(parameter_label(n) for n in names)
    intro = (f"<p>One report per combination of <b>{html_text(swept)}</b>; fixed inputs: "
             f"{html_text(fixed) if fixed else 'the defaults (assumptions)'}.</p>")
    img = ("<p><img src='comparison.png' alt='Each headline number (job MTBF, checkpoint interval, ETTR, "
           f"node MTBF needed) against {html_text(parameter_label(names[0]))}'></p>")
    answers = "".join(
        "<h3>" + html_text(run_heading({n: r["values"][n] for n in names})) + "</h3>"
        + "".join(f"<p>{html_text(s)}</p>" for s in r.get("answers") or ())  # the run's, as its index shows them
        for r in rows)
    return page("relmodel sweep over " + swept, intro + sweep_table(names, rows) + img + "<h2>Answers</h2>" + answers)
