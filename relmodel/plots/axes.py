"""Log axes labelled for people: 1,000 and 0.05, never 10³ in mathtext.

Matplotlib labels a log axis with mathtext (``$\\mathdefault{10^{3}}$``);
parsing it is most of the cost of drawing a small figure, and a reader asked
for numbers gets powers.  :func:`plain_log_ticks` puts major ticks at 1, 2
and 5 times each power of ten when the axis spans up to three decades (1 and
3 up to five, powers of ten beyond), labels them as :func:`plain_number`
writes numbers, and leaves minor ticks unlabelled.
"""

import math

__all__ = ["plain_number", "plain_log_ticks", "default_title", "legend_below"]


def plain_number(v, _pos=None):
    """A tick value as a person writes it: ``1,000``, ``2.5``, ``0.005`` (``1e-07`` below a millionth)."""
    v = float(v)
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 1e-6:
        return f"{v:.6f}".rstrip("0").rstrip(".")
    return f"{v:.2g}"


def legend_below(ax, ncol=2, below=0.27, handles=None):
    """The legend under the axes (``below`` axes heights down, clear of the x label), where it hides no curve or
    target line; ``handles`` when they come from more than this axes (a twin); returns the Legend."""
    entries = () if handles is None else (handles, [h.get_label() for h in handles])
    return ax.legend(*entries, fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -below), ncol=ncol)


def default_title(ax, text):
    """Title ``ax`` with ``text`` unless the caller already titled it (every panel says what it shows)."""
    if not ax.get_title():
        ax.set_title(text)
    return ax


def plain_log_ticks(ax, axes="xy", numticks=6, rotate=False):
    """Label the log-scaled axes of ``ax`` among ``axes`` ("x", "y" or "xy") with plain numbers; returns ``ax``."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    for name in axes:
        axis, scale = (ax.xaxis, ax.get_xscale()) if name == "x" else (ax.yaxis, ax.get_yscale())
        if scale != "log":
            continue
        axis.set_major_locator(_locator(LogLocator, numticks))
        axis.set_major_formatter(FuncFormatter(plain_number))
        axis.set_minor_formatter(NullFormatter())
    if rotate:
        for label in ax.get_xticklabels():
            label.set_rotation(30)
            label.set_horizontalalignment("right")
    return ax


#: Major-tick multiples per decade, densest first: an axis takes the densest its span and its room allow.
_SUBS = ((1.0, 2.0, 5.0), (1.0, 3.0), (1.0,))


def _locator(base_class, numticks):
    """A log locator whose ticks per decade thin out as the axis spans more decades or its labels need the room."""

    class PlainLogLocator(base_class):
        def tick_values(self, vmin, vmax):
            lo, hi = sorted((float(vmin), float(vmax)))
            decades = math.log10(hi / lo) if lo > 0 and math.isfinite(hi / lo) else 0.0
            first = 0 if decades <= 3.2 else 1 if decades <= 5.2 else 2
            for subs in _SUBS[first:]:
                self.set_params(subs=subs)
                ticks = super().tick_values(vmin, vmax)
                if _labels_fit(self.axis, [t for t in ticks if lo <= t <= hi]):
                    break
            return ticks

    return PlainLogLocator(base=10, subs=_SUBS[0], numticks=numticks)


def _labels_fit(axis, ticks):
    """Whether plain labels at ``ticks`` fit along ``axis`` without touching (True when its size is unknown)."""
    from matplotlib import rcParams
    from matplotlib.font_manager import FontProperties

    axes = getattr(axis, "axes", None)
    if axes is None or len(ticks) < 2:
        return True
    horizontal = axis.axis_name == "x"
    size = FontProperties(size=rcParams[f"{axis.axis_name}tick.labelsize"]).get_size_in_points()
    px = size * axes.figure.dpi / 72.0
    room = axes.bbox.width if horizontal else axes.bbox.height
    if not room > 0:
        return True
    if horizontal:  # a digit or comma is about 0.6 of the font size wide; a gap of one font size between labels
        need = sum(0.6 * px * len(plain_number(t)) + px for t in ticks)
    else:
        need = 1.5 * px * len(ticks)
    return need <= room
