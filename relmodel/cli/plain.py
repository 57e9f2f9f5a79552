"""A plain table (rows of floats and words) printed as pandas' ``to_string(index=False)`` would, without pandas.

``relmodel interval --mtbf ...`` answers with such a table; importing pandas for it cost more than the
answer.  Only text output of finite numbers is written here; anything else goes through pandas.
"""

import math

__all__ = ["plain_text", "plain_records", "plain_csv", "is_plain"]


def is_plain(rows):
    """True when every row has the same columns, each all words or all finite floats."""
    if not rows:
        return False
    cols = list(rows[0])
    if not all(list(r) == cols for r in rows):
        return False
    return all(all(isinstance(r[c], str) for r in rows) or
               all(type(r[c]) is float and math.isfinite(r[c]) for r in rows) for c in cols)


def plain_text(rows, floatfmt):
    """The rows as ``DataFrame(rows).to_string(index=False, float_format=floatfmt)``: right-aligned columns one
    space apart, each as wide as its widest cell or header (a number column's header counts one space more)."""
    cols = list(rows[0])
    cells = [[v if isinstance(v, str) else floatfmt(v) for v in (r[c] for c in cols)] for r in rows]
    widths = [max([len(c) + (not isinstance(rows[0][c], str))] + [len(row[i]) for row in cells])
              for i, c in enumerate(cols)]
    lines = [" ".join(c.rjust(w) for c, w in zip(cols, widths))]
    lines += [" ".join(v.rjust(w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)


def _json_number(x):
    """``x`` as it comes back from pandas' ``to_json`` (ten decimals), or None outside the range checked for it."""
    if x == 0 or 1e-4 <= abs(x) < 1e15:
        return float(f"{x:.10f}")
    return None


def plain_records(rows):
    """The rows as ``json.loads(DataFrame(rows).to_json(orient="records"))``; None when a number is out of the
    range where the two are known to agree (the caller then uses pandas)."""
    out = []
    for r in rows:
        rec = {k: v if isinstance(v, str) else _json_number(v) for k, v in r.items()}
        if any(v is None for v in rec.values()):
            return None
        out.append(rec)
    return out


def plain_csv(rows):
    """The rows as ``csv_frame(DataFrame(rows)).to_csv(index=False)``; None when a cell would need quoting."""
    from ..base.escape import csv_cell
    cols = [csv_cell(c) for c in rows[0]]
    table = [cols] + [[csv_cell(v) if isinstance(v, str) else repr(v) for v in r.values()] for r in rows]
    if any(any(ch in cell for ch in ',"\n\r') for line in table for cell in line):
        return None
    return "".join(",".join(line) + "\n" for line in table)
