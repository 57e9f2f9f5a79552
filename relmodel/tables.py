"""Numbers and tables for people, and the one protocol of results (base layer).

Every result's ``_repr_html_`` goes through :func:`html_table`, so a table in
a notebook or report never shows the pandas index or its ``dataframe`` class
and scrolls inside its own box instead of widening the page. Cell text and
headers are always HTML-escaped (``escape`` cannot be turned off).
The one rule set every layer's ``text()`` and ``table()`` use:

* formatters (:func:`number`, :func:`sig`, :func:`duration`,
  :func:`hours_text`, :func:`pct`, :func:`pct_range`, :func:`per_day`,
  :func:`count`, :func:`interval`) take a number (or None, NaN, inf) and
  return text: thousands separators, no scientific notation for ordinary
  magnitudes, durations in the unit a person would say; a missing or
  non-finite value becomes ``"—"`` unless the caller says what it means;
* :func:`people_table` formats a numeric DataFrame cell by cell with them;
* :func:`html_table` shows a table without the pandas index or its
  ``dataframe`` class, in a box that scrolls instead of widening the page;
* :class:`Result` is the protocol of results: ``to_frame()`` (numbers, for
  code), ``table()`` (formatted for people), ``text()`` (sentences) and
  ``_repr_html_`` built from the last two.
"""

from relmodel.base.escape import html_text
import math


__all__ = ["html_table", "DASH", "number", "sig", "duration", "hours_text", "pct", "pct_range", "target_pct",
           "per_day", "count", "interval", "people_table", "Result"]

DASH = "—"


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


def duration(h, missing=DASH, digits=2):
    """A duration in the unit a person would say: 45 s, 19 min, 3.1 h, 12 d, 2.5 years.

    ``digits`` significant digits (days at least 3); a table that sets close values side by side takes 3.

    Examples
    --------
    >>> duration(16.43 / 60), duration(16.43 / 60, digits=3), duration(1503.1), duration(0.0125)
    ('16 min', '16.4 min', '62.6 d', '45 s')
    """
    if not _ok(h):
        return missing
    h = float(h)
    if h < 1 / 60:
        return f"{number(h * 3600, digits)} s"
    if h < 2:
        return f"{number(h * 60, digits)} min"
    if h < 72:
        return f"{number(h, digits)} h"
    if h < 2 * 8766:
        return f"{number(h / 24, max(digits, 3))} d"
    return f"{number(h / 8766, digits)} years"


def hours_text(h, missing=DASH):
    """An MTBF-like duration in hours (the unit vendors quote): "16,600 h"."""
    return f"{sig(h)} h" if _ok(h) else missing


def target_pct(t):
    """A target share with the digits it was given: 0.9 -> "90%", 0.999999 -> "99.9999%" (never a rounded "100%").

    Examples
    --------
    >>> target_pct(0.9), target_pct(0.999999)
    ('90%', '99.9999%')
    """
    return f"{100 * float(t):.10g}%"


def pct(x, digits=1, missing=DASH):
    """A fraction as a percentage: 0.8526 -> "85.3%"; 0 -> "0%", and a share that would round to 0 or to 100%
    without being it says so: 0.0002 -> "under 0.1%" (never "0.0%"), 0.99996 -> "over 99.9%".

    Examples
    --------
    >>> pct(0.8526), pct(0.0), pct(0.0002), pct(0.0002, 2), pct(0.0005), pct(0.99996), pct(1.0)
    ('85.3%', '0%', 'under 0.1%', '0.02%', '0.1%', 'over 99.9%', '100.0%')
    """
    if not _ok(x):
        return missing
    x = 100 * float(x)
    unit = 10 ** -digits
    if x == 0:
        return "0%"
    if 0 < x < 0.5 * unit:
        return f"under {unit:.{digits}f}%"
    if 100 - 0.5 * unit <= x < 100:
        return f"over {100 - unit:.{digits}f}%"
    return f"{x:.{digits}f}%"


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


def interval(lo, hi, fmt=None, missing=DASH):
    """An interval as text, one formatter for both ends: "6 min to 12 h" for ``fmt=duration``."""
    fmt = fmt or number
    if lo is None or hi is None:
        return missing
    return f"{fmt(lo, missing=missing)} to {fmt(hi, missing=missing)}"


def people_table(df, formats=None, missing=DASH):
    """``df`` with every cell as text for a person: whole numbers counted, others :func:`number`.

    ``formats`` maps a column to a formatter (a function of one value); text
    columns pass through; NaN, None and inf become ``missing``.

    Examples
    --------
    >>> import pandas as pd
    >>> people_table(pd.DataFrame({"GPUs": [16384], "MTBF (h)": [2.8e5], "share": [0.1234]}),
    ...              {"share": pct}).iloc[0].tolist()
    ['16,384', '280,000', '12.3%']
    """
    import pandas as pd  # here, not at the top: the closed-form answers and their text need no pandas
    formats = formats or {}
    out = pd.DataFrame(index=df.index)
    for col in df.columns:
        fmt = formats.get(col)
        values = df[col]
        if fmt is None and pd.api.types.is_bool_dtype(values):
            fmt = lambda v: "yes" if v else "no"  # noqa: E731
        elif fmt is None and pd.api.types.is_integer_dtype(values):
            fmt = count
        elif fmt is None and not pd.api.types.is_numeric_dtype(values):
            fmt = lambda v: missing if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)  # noqa: E731
        fmt = fmt or number
        out[col] = [fmt(v) if _ok(v) or not pd.api.types.is_numeric_dtype(values) else missing for v in values]
    return out.reset_index(drop=True)


class Result:
    """The one protocol of results (a mixin for frozen dataclasses).

    ``to_frame()`` gives the numbers (a DataFrame, for code), ``table()`` the
    same formatted for people (default: :func:`people_table` of ``to_frame()``)
    and ``text()`` the findings as sentences; ``_repr_html_`` shows
    ``text()`` over ``table()``.
    """

    def to_frame(self):
        raise NotImplementedError

    def table(self):
        """The result as a table for people (text cells, worded headers, no index: a named index becomes a column)."""
        df = self.to_frame()
        if any(name is not None for name in df.index.names):
            df = df.reset_index()
        return people_table(df)

    def text(self):
        """The findings as sentences."""
        return ""

    def _repr_html_(self):
        text = self.text()
        head = f"<p>{html_text(text)}</p>" if text else ""
        return head + html_table(self.table())


def html_table(df, **options):
    """``df`` (a DataFrame) as an HTML table without its index, in a box that scrolls.

    ``options`` go to ``DataFrame.to_html`` (``float_format``, ``na_rep``,
    ``max_rows``...); the index is never shown.

    Examples
    --------
    >>> import pandas as pd
    >>> out = html_table(pd.DataFrame({"GPUs": [16384]}))
    >>> out.count("<td>"), "dataframe" in out
    (1, False)
    """
    options = {k: v for k, v in options.items() if k not in ("index", "escape")}  # text always escaped
    body = df.to_html(index=False, border=0, classes="relmodel-table", **options)
    body = body.replace('class="dataframe relmodel-table"', 'class="relmodel-table"')
    return f"<div style='overflow-x:auto;max-width:100%'>{body}</div>"

