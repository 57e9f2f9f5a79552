"""HTML of result tables for notebooks: no index column, no pandas styling class."""

__all__ = ["html_table"]


def html_table(df, float_format=None):
    """``df`` as an HTML table without its index, in a box that scrolls rather than overflow.

    ``df`` is a DataFrame whose headers are already words with units.

    Examples
    --------
    >>> import pandas as pd
    >>> html_table(pd.DataFrame({"GPUs": [16384]})).count("<td>")
    1
    """
    body = df.to_html(index=False, border=0, float_format=float_format, classes="relmodel-table")
    body = body.replace('class="dataframe relmodel-table"', 'class="relmodel-table"')
    return f"<div style='overflow-x:auto;max-width:100%'>{body}</div>"
