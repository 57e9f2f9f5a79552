"""The words for a range of durations the answer sentences and pages print, one rule for all of them.

A range says what it covers ("over the failure rate's 95% range"); an upper end that is unbounded (a
log with a few interruptions: the bootstrap's lower failure rate is 0, so the MTBF and the interval
have no upper end) is said as "at least" the lower end, never printed as inf or a dash.
"""

import math

from ..blocks import present as P

__all__ = ["UNBOUNDED", "duration_range", "rate_range"]


def _ok(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


#: What an unbounded upper end means: the bootstrap's lower failure rate is 0 (a log with a few interruptions).
UNBOUNDED = "no upper end: with so few interruptions the failure rate's lower bound is 0"


def duration_range(lo, hi, d):
    """`` (2.4 h to 9 h over the failure rate's 95% range)``; `` (at least 2.4 h over ...; no upper end: ...)``
    when the upper end is unbounded (``inf``, or None beside a finite lower end); nothing when there is no range
    or it rounds to one value."""
    if not _ok(lo):
        return ""
    if hi is None or (isinstance(hi, (int, float)) and math.isinf(hi) and hi > 0):
        return f" (at least {P.duration(lo)} over {rate_range(d)}; {UNBOUNDED})"
    if _ok(hi) and P.duration(lo) != P.duration(hi):  # the range says what it covers
        return f" ({P.duration(lo)} to {P.duration(hi)} over {rate_range(d)})"
    return ""


def rate_range(d):
    """What the interval and job MTBF ranges cover: "the failure rate's 95% range"."""
    conf = d.get("conf")
    return f"the failure rate's {P.pct(conf, 0)} range" if _ok(conf) else "the failure rate's range"
