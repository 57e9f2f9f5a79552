"""Which durations of a log are fitted: the one rule the report's page 02 and ``relmodel fit`` share.

Imports only relmodel.errors: it reads a log's ``events`` and ``n_nodes``.
"""

from ...errors import FitError

__all__ = ["FIT_TARGETS", "fit_target"]

#: What can be fitted: "auto" chooses by :func:`fit_target`'s rule.
FIT_TARGETS = ("auto", "uptimes", "interarrivals", "downtimes")


def fit_target(source, what="auto"):
    """``(kind, reason)``: the durations of the log ``source`` to fit, and a sentence saying why.

    ``what`` other than "auto" is taken as asked.  "auto" fits the per-node up
    times (each node's time from a repair to its next failure, the last one
    censored) when the log gives repair (end) times for more than one node,
    since they describe the parts themselves; otherwise the system-wide times
    between interruptions.  The checkpoint simulation always uses the latter,
    because the job sees every node's interruptions as one process.

    Examples
    --------
    >>> import relmodel
    >>> fit_target(relmodel.datasets.stepfun())[0], fit_target(relmodel.datasets.stepfun(), "interarrivals")[0]
    ('uptimes', 'interarrivals')
    """
    if what not in FIT_TARGETS:
        raise FitError(f"what to fit must be one of {', '.join(FIT_TARGETS)}; got {what!r}")
    if what != "auto":
        return what, f"{what} as asked"
    events = getattr(source, "events", None)
    repairs = events is not None and "end_h" in events and bool(events["end_h"].notna().any())
    nodes = int(getattr(source, "n_nodes", 1) or 1)
    if repairs and nodes > 1:
        return "uptimes", (f"per-node up times, since the log gives repair times for {nodes:,} nodes (the "
                           "checkpoint simulation fits the times between interruptions of the whole log instead, "
                           "the process the job sees)")
    why = "no repair (end) times" if not repairs else "one node only"
    return "interarrivals", f"times between interruptions of the whole log, since it has {why}"
