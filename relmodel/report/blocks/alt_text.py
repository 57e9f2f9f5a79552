"""Alt text for a page's figures: each says what it shows, from the section it sits in.

nbconvert gives every image without one the same placeholder ("No
description has been provided for this image"); :func:`with_alt_text`
replaces each, in page order, with "Chart: <section heading> (<page title>)".
"""

from relmodel.base.escape import html_text
import re

__all__ = ["PLACEHOLDER", "figure_alts", "with_alt_text"]

#: The alt text nbconvert gives an image that has none.
PLACEHOLDER = "No description has been provided for this image"

_IMAGE_TYPES = ("image/png", "image/jpeg", "image/svg+xml")


def _headings(source):
    return [m.group(2).strip() for m in re.finditer(r"^(#{1,4})\s+(.+)$", source, flags=re.M)]


def figure_alts(nb):
    """One alt text per image output of ``nb``, in order."""
    title, section, alts = "", "", []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            found = _headings(cell.source)
            if found:
                title = title or found[0]
                section = found[-1]
            continue
        for output in cell.get("outputs", []):
            if any(k in output.get("data", {}) for k in _IMAGE_TYPES):
                where = section or title or "this page"
                alts.append(f"Chart: {where}" + (f" ({title})" if title and title != where else ""))
    return alts


def with_alt_text(body, alts):
    """``body`` with each placeholder alt replaced by the next of ``alts`` (a generic one when they run out)."""
    supply = iter(alts)

    def repl(_match):
        return f'alt="{html_text(next(supply, "Chart on this page"))}"'

    return re.sub(r'alt="' + re.escape(PLACEHOLDER) + '"', repl, body)
