"""Figures a person reads on a laptop: each PNG says how small its smallest text is.

The report shows its figures at their own pixel size (or smaller, when a
page's column is narrower than the image).  :func:`figure_png` draws a figure
into PNG bytes and writes, in the PNG's own text chunk :data:`TEXT_KEY`, the
height in image pixels of the smallest text drawn on it (font size in points
times dots per inch over 72).  A browser test multiplies that by the shown
width over the image's width to get the size a reader sees
(:func:`smallest_text_px` reads it back).  :data:`STYLE` holds the report's
text sizes: with figures at 90 dots per inch, the smallest relative size used
("small", 0.833 of the base) comes to 12.5 px.
"""

import struct
import zlib

__all__ = ["TEXT_KEY", "STYLE", "MIN_TEXT_PX", "smallest_text_pt", "figure_png", "smallest_text_px"]

#: The PNG text chunk keyword holding the smallest text's height in image pixels.
TEXT_KEY = "relmodel:smallest-text-px"

#: Smallest text, in CSS pixels, a reader is shown at a 1366 px laptop viewport.
MIN_TEXT_PX = 10.0

#: Text sizes of every report figure (points): base 12, so "small" is 10 pt (12.5 px at 90 dpi).
STYLE = {"font.size": 12, "axes.titlesize": 12, "axes.labelsize": 12, "xtick.labelsize": 11,
         "ytick.labelsize": 11, "legend.fontsize": 10, "legend.title_fontsize": 10, "figure.titlesize": 13}


def smallest_text_pt(fig):
    """Font size in points of the smallest visible, non-blank text of ``fig`` (a drawn figure), or None."""
    from matplotlib.text import Text

    sizes = []
    for t in fig.findobj(Text):
        if not t.get_text().strip() or not _shown(t):
            continue
        sizes.append(float(t.get_fontsize()))
    return min(sizes) if sizes else None


def _shown(artist):
    """Whether ``artist`` and every artist holding it are visible (a hidden axes hides its labels)."""
    if not artist.get_visible():
        return False
    axes = getattr(artist, "axes", None)
    return axes is None or axes.get_visible()


def figure_png(fig, dpi=None, bbox_inches="tight", **kwargs):
    """``fig`` drawn as PNG bytes at ``dpi`` (the figure's own by default), with :data:`TEXT_KEY` written in it.

    Returns None for a figure with nothing on it (as IPython's inline figures do).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(2, 1), dpi=90); ax = fig.subplots(); _ = ax.set_title("t", fontsize=8)
    >>> smallest_text_px(figure_png(fig))        # 8 pt at 90 dpi
    10.0
    """
    import io

    if not fig.axes and not fig.lines:
        return None
    dpi = float(dpi or fig.dpi)
    if fig.canvas is None:  # pragma: no cover - a Figure gets a canvas when made
        from matplotlib.backend_bases import FigureCanvasBase
        FigureCanvasBase(fig)
    buf = io.BytesIO()
    fig.canvas.print_figure(buf, format="png", dpi=dpi, bbox_inches=bbox_inches,
                            facecolor=kwargs.pop("facecolor", fig.get_facecolor()),
                            edgecolor=kwargs.pop("edgecolor", fig.get_edgecolor()), **kwargs)
    pt = smallest_text_pt(fig)
    data = buf.getvalue()
    return data if pt is None else _with_text(data, TEXT_KEY, f"{pt * dpi / 72.0:.2f}")


def _with_text(png, key, value):
    """``png`` with a tEXt chunk ``key``=``value`` after its header chunk."""
    body = key.encode("latin-1") + b"\0" + value.encode("latin-1")
    chunk = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", zlib.crc32(b"tEXt" + body))
    end_of_header = 8 + 8 + struct.unpack(">I", png[8:12])[0] + 4  # signature, IHDR length+type, data, CRC
    return png[:end_of_header] + chunk + png[end_of_header:]


def smallest_text_px(png):
    """The smallest text's height in image pixels written in ``png`` (bytes) by :func:`figure_png`, or None."""
    pos = 8
    while pos + 8 <= len(png):
        length, kind = struct.unpack(">I", png[pos:pos + 4])[0], png[pos + 4:pos + 8]
        if kind == b"tEXt":
            key, _, value = png[pos + 8:pos + 8 + length].partition(b"\0")
            if key.decode("latin-1") == TEXT_KEY:
                return float(value.decode("latin-1"))
        if kind in (b"IDAT", b"IEND"):
            return None
        pos += 12 + length
    return None
