"""Numbers, durations and tables formatted for people (the rules in :mod:`relmodel.report`).

Every formatter takes a number (or None, NaN, inf) and returns text; a
missing or non-finite value becomes ``"—"`` unless the caller says what it
means.  :func:`table` turns a DataFrame into an HTML block with worded
headers, per-column formatters, no index, at most ``max_rows`` rows shown
(longer tables fold into a ``<details>`` block) and its own horizontal
scroll box.  :func:`note` is a styled remark; :func:`captured_notes` turns
warnings caught while computing into such remarks.
"""

from relmodel.base.escape import html_text
import warnings
from contextlib import contextmanager

from ...tables import DASH, count, duration, hours_text, number, pct, pct_range, per_day, sig

__all__ = ["Block", "number", "sig", "duration", "hours_text", "pct", "pct_range", "per_day", "count",
           "table", "note", "paragraph", "blocks", "captured_notes", "catch", "DASH"]


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


def paragraph(*sentences):
    """One HTML paragraph from plain-text sentences (escaped)."""
    return Block("<p>" + " ".join(html_text(s) for s in sentences if s) + "</p>")


def note(text, kind="info"):
    """A styled remark (kind: info, warning, answer) from plain text."""
    style = _NOTE_STYLE.get(kind, _NOTE_STYLE["info"])
    return Block(f"<div class='relmodel-note' style='{style};padding:.5em .8em;margin:.6em 0'>"
                 f"{html_text(text)}</div>")


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
    align = [_align(df, col) for col, _, _ in columns]  # a header sits over its cells: words left, numbers right
    head = "".join(f"<th style='text-align:{a}'>{html_text(h)}</th>" for (_, h, _), a in zip(columns, align))
    rows = []
    for rec in df.to_dict("records"):
        cells = []
        for (col, _, fmt), a in zip(columns, align):
            v = rec.get(col)
            text = (fmt or number)(v)
            cells.append(f"<td style='text-align:{a}'>{html_text(str(text))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    body = (f"<div class='relmodel-table' style='overflow-x:auto;max-width:100%'><table>"
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")
    title = html_text(caption) if caption else "Table"
    if len(rows) > max_rows:
        return Block(f"<details><summary>{title} ({len(rows)} rows; click to show)</summary>{body}</details>")
    cap = f"<p><b>{title}</b></p>" if caption else ""
    return Block(cap + body)


def _align(df, col):
    """"right" for a column of numbers (read down their digits), "left" for words."""
    import pandas as pd
    if col not in df or not len(df):
        return "left"
    values = df[col].dropna()
    numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
    return "right" if numeric else "left"


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
