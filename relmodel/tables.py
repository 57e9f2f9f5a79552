"""HTML of result tables for notebooks (base layer): no index column, no pandas styling class.

Every result's ``_repr_html_`` goes through :func:`html_table`, so a table in
a notebook or report never shows the pandas index or its ``dataframe`` class
and scrolls inside its own box instead of widening the page. Cell text and
headers are always HTML-escaped (``escape`` cannot be turned off).
"""

__all__ = ["html_table"]


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
