"""Shares and ETTR in the words the design, spares and requirement sentences use.

One formatter for every sentence and table cell of :mod:`relmodel.scale`
that states a share of time or of failures, so none prints scientific
notation ("1e+02%") or a range of zeros: 1.0 is "100%", 0.00004 "under
0.01%", 0 "0%", an ETTR below 0.001 "under 0.001" and a range whose ends
print alike is left out.
"""

import math

__all__ = ["share_words", "ettr_words", "asked_words"]


def share_words(p, missing="not computed"):
    """A fraction as a percentage for people: "0%", "under 0.01%", "0.55%", "12.3%", "over 99.9%", "100%".

    Examples
    --------
    >>> [share_words(x) for x in (0.0, 3e-5, 0.0055, 0.1234, 0.99999, 1.0)]
    ['0%', 'under 0.01%', '0.55%', '12.3%', 'over 99.9%', '100%']
    """
    try:
        v = 100.0 * float(p)
    except (TypeError, ValueError):
        return missing
    if not math.isfinite(v):
        return missing
    if v <= 0:
        return "0%"
    if v < 0.01:
        return "under 0.01%"
    if v >= 99.95:  # as the pages' tables say it: never "100%" for a share short of all the time
        return "100%" if v >= 100 else "over 99.9%"
    if v >= 10:
        text = f"{v:.1f}"
    else:
        digits = max(0, 1 - math.floor(math.log10(v)))
        text = f"{v:.{digits}f}"
    return (text.rstrip("0").rstrip(".") if "." in text else text) + "%"


def _ettr(x):
    x = float(x)
    if not math.isfinite(x):
        return "not computed"
    return "under 0.001" if x < 0.0005 else f"{x:.3f}"


def ettr_words(ettr, lo=None, hi=None):
    """ETTR with its range: "0.864 (0.851–0.873)", "0.864" when the range is a point, never "0.000 (0.000–0.000)".

    Examples
    --------
    >>> ettr_words(0.8642, 0.851, 0.873), ettr_words(0.0, 0.0, 0.0), ettr_words(0.5, 0.5, 0.5)
    ('0.864 (0.851–0.873)', 'under 0.001', '0.500')
    """
    head = _ettr(ettr)
    if lo is None or hi is None:
        return head
    a, b = _ettr(lo), _ettr(hi)
    if a == b:
        return head
    return f"{head} ({a}–{b})"


def asked_words(target):
    """The target share as asked: "0.1%", or "1 in 1,000,000,000" where a percentage would read "under 0.01%"."""
    return share_words(target) if 100.0 * float(target) >= 0.01 or target <= 0 else f"1 in {round(1 / target):,}"
