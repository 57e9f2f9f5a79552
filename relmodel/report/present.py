"""Numbers, durations and tables formatted for people (the rules in :mod:`relmodel.report`).

Every formatter takes a number (or None, NaN, inf) and returns text; a
missing or non-finite value becomes ``"—"`` unless the caller says what it
means.  :func:`table` turns a DataFrame into an HTML block with worded
headers, per-column formatters, no index, at most ``max_rows`` rows shown
(longer tables fold into a ``<details>`` block) and its own horizontal
scroll box.  :func:`note` is a styled remark; :func:`captured_notes` turns
warnings caught while computing into such remarks.
"""

import html
import math
import warnings
from contextlib import contextmanager

__all__ = ["Block", "number", "sig", "duration", "hours_text", "pct", "pct_range", "per_day", "count",
           "table", "note", "paragraph", "blocks", "captured_notes", "catch", "DASH"]

DASH = "—"

_NOTE_STYLE = {
    "info": "border-left:4px solid #4a7bb7;background:#eef3fa",
    "warning": "border-left:4px solid #c98a00;background:#fdf6e3",
    "answer": "border-left:4px solid #2e7d32;background:#eef7ee",
}


class Block:
    """A piece of HTML a notebook displays (``_repr_html_``) and a report page embeds."""

    def __init__(self, body):
        self.body = body

    def _repr_html_(self):
        return self.body

    def __str__(self):
        return self.body


def _ok(x):
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def number(x, digits=3, missing=DASH):
    """A number with thousands separators and about ``digits`` significant digits, never 1e+04."""
    if not _ok(x):
        return missing
    x = float(x)
    a = abs(x)
    if a == 0:
        return "0"
    if a >= 10 ** (digits - 1):
        return f"{x:,.0f}"
    if a < 0.001:
        return "< 0.001" if x > 0 else "> -0.001"
    decimals = max(0, digits - 1 - math.floor(math.log10(a)))
    text = f"{x:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def sig(x, digits=3, missing=DASH):
    """Rounded to ``digits`` significant digits, thousands separated: 16595.4 -> "16,600"."""
    if not _ok(x):
        return missing
    x = float(x)
    if x == 0:
        return "0"
    k = digits - 1 - math.floor(math.log10(abs(x)))
    return number(round(x, k), digits=max(digits, 1 + math.floor(math.log10(abs(x)))))


def duration(h, missing=DASH):
    """A duration in the unit a person would say: 45 s, 19 min, 3.1 h, 12 d, 2.5 years."""
    if not _ok(h):
        return missing
    h = float(h)
    if h < 1 / 60:
        return f"{number(h * 3600, 2)} s"
    if h < 2:
        return f"{number(h * 60, 2)} min"
    if h < 72:
        return f"{number(h, 2)} h"
    if h < 2 * 8766:
        return f"{number(h / 24, 3)} d"
    return f"{number(h / 8766, 2)} years"


def hours_text(h, missing=DASH):
    """An MTBF-like duration in hours (the unit vendors quote): "16,600 h"."""
    return f"{sig(h)} h" if _ok(h) else missing


def pct(x, digits=1, missing=DASH):
    """A fraction as a percentage: 0.8526 -> "85.3%"."""
    return f"{100 * float(x):.{digits}f}%" if _ok(x) else missing


def pct_range(lo, hi, digits=1):
    """An interval of fractions: "84.4–86.1%"."""
    if not (_ok(lo) and _ok(hi)):
        return DASH
    return f"{100 * float(lo):.{digits}f}–{100 * float(hi):.{digits}f}%"


def per_day(rate_per_h, missing=DASH):
    """A rate per hour as "1.2 a day"."""
    return f"{number(24 * float(rate_per_h), 2)} a day" if _ok(rate_per_h) else missing


def count(n, missing=DASH):
    """A whole number with thousands separators."""
    return f"{int(round(float(n))):,}" if _ok(n) else missing


def paragraph(*sentences):
    """One HTML paragraph from plain-text sentences (escaped)."""
    return Block("<p>" + " ".join(html.escape(s) for s in sentences if s) + "</p>")


def note(text, kind="info"):
    """A styled remark (kind: info, warning, answer) from plain text."""
    style = _NOTE_STYLE.get(kind, _NOTE_STYLE["info"])
    return Block(f"<div class='relmodel-note' style='{style};padding:.5em .8em;margin:.6em 0'>"
                 f"{html.escape(text)}</div>")


def blocks(*items):
    """Several blocks shown as one output."""
    return Block("".join(str(i) for i in items if i is not None))


def table(df, columns, max_rows=15, caption=None):
    """An HTML table of ``df`` with worded headers and formatted cells.

    ``columns`` is a list of ``(column, header, formatter)``; the formatter
    takes a cell value and returns text (None: :func:`number`).  No index is
    shown.  More than ``max_rows`` rows fold into a ``<details>`` block
    titled with ``caption`` and the row count.
    """
    head = "".join(f"<th style='text-align:left'>{html.escape(h)}</th>" for _, h, _ in columns)
    rows = []
    for rec in df.to_dict("records"):
        cells = []
        for col, _, fmt in columns:
            v = rec.get(col)
            text = (fmt or number)(v)
            cells.append(f"<td>{html.escape(str(text))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    body = (f"<div class='relmodel-table' style='overflow-x:auto;max-width:100%'><table>"
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")
    title = html.escape(caption) if caption else "Table"
    if len(rows) > max_rows:
        return Block(f"<details><summary>{title} ({len(rows)} rows; click to show)</summary>{body}</details>")
    cap = f"<p><b>{title}</b></p>" if caption else ""
    return Block(cap + body)


@contextmanager
def catch():
    """Collect warnings raised inside the block into a list (nothing reaches stderr)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def captured_notes(caught, keep=("LogWarning", "FitWarning", "InfeasibleTarget")):
    """Styled notes for the caught warnings a reader needs (duplicates dropped)."""
    seen, out = set(), []
    for w in caught:
        if not any(k in w.category.__name__ for k in keep):
            continue
        text = str(w.message)
        if text not in seen:
            seen.add(text)
            out.append(note(text, "warning"))
    return blocks(*out)
