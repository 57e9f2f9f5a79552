"""The data page (notebook 01), and the source summary every page opens with.

Each function takes the report's :class:`~relmodel.data.source.Source` or
results computed from it by the lower layers and returns a
:class:`~relmodel.report.blocks.present.Block` (sentences, a formatted table, a
note), or None when the source cannot feed that section (a notebook cell
showing None shows nothing).  The notebooks only choose which to show.
"""

import pandas as pd

from ..blocks import present as P

__all__ = ["source_block", "counts_only", "cause_block", "causes_block", "rates_block", "repair_block",
           "repairs_block", "outage_lengths", "outage_lengths_block", "fleet_block", "cause_mix_block",
           "self_check", "self_check_block", "no_whatif"]


def source_block(src):
    """What the data is: size, span, observed cluster and the notes about it."""
    out = [P.paragraph(src.describe() + ".")]
    out += [P.note(n, "info") for n in src.notes]
    if src.is_log:
        problems = src.data.problems()["problem"].astype(str)
        short = int(problems.str.startswith("shorter than min_outage").sum())
        flagged = len(problems) - short
        if flagged:
            rows, was = (("1 row was a duplicate, overlap, simultaneous or", "was") if flagged == 1 else
                         (f"{flagged:,} rows were duplicates, overlaps, simultaneous or", "were"))
            out.append(P.paragraph(f"{rows} outside the window and {was} merged or dropped as the log reader's "
                                   "rules say."))
    return P.blocks(*out)


def counts_only(src, what):
    """One sentence saying this section needs event times that a count table lacks."""
    if src.is_log:
        return None
    return P.note(f"{src.name} is a count table (counts over {P.duration(src.span_h)}, no event times), "
                  f"so {what}.", "info")


def cause_block(causes, top):
    """The causes ranked by count, pooled after ``top``."""
    t = causes.copy()
    if len(t) > top:
        rest = t.iloc[top:]
        t = pd.concat([t.head(top), pd.DataFrame([{"cause": f"all other causes ({len(rest)})",
                                                   "count": rest["count"].sum(), "share": rest["share"].sum(),
                                                   "cum_share": 1.0}])], ignore_index=True)
    return P.table(t, [("cause", "Cause", str), ("count", "Interruptions", P.count),
                       ("share", "Share", P.pct), ("cum_share", "Cumulative share", P.pct)])


def causes_block(src, column, top):
    """The causes ranked by count, or a sentence when the log names none."""
    if not src.has_causes:
        return P.note("The log names no causes (it has no cause column), so its outages are not split by cause; "
                      "every later page treats them as one kind.", "info")
    from ...plots.logs import cause_counts
    return cause_block(cause_counts(src.data, column), top)


def rates_block(rates, top, unit="node"):
    """Rates by cause per ``unit`` (a node, or a disk or server of a log without GPUs) with exact intervals."""
    t = rates[rates["component"] != "Total"].sort_values("rate_per_h", ascending=False).head(top)
    per_year = lambda r: P.number(8766 * r) if r else "none observed"  # noqa: E731
    return P.table(t, [("component", "Cause", str), ("count", "Interruptions", P.count),
                       ("rate_per_h", f"Per {unit} per year", per_year),
                       ("rate_lo", "Low (95%)", per_year), ("rate_hi", "High (95%)", per_year),
                       ("mtbf_h", f"MTBF per {unit} (h)", P.sig)],
                   caption=f"The {len(t)} most frequent causes, per {unit}")


def repair_block(src, summary):
    """Repair times by cause, or a sentence when the source has none."""
    if not src.has_repairs:
        return P.note("The data give no outage end times, so repair times are unknown; the spares page "
                      "uses the StepFun trace's repair times instead.", "info")
    if summary is None:
        return P.note("The log names no causes, so repair times are not split by cause; how long its outages "
                      "last is below.", "info")
    cols = [(c, h, f) for c, h, f in [
        ("cause", "Cause", str), ("count", "Repairs", P.count), ("mean_h", "Mean", P.duration),
        ("median_h", "Median", P.duration), ("p90_h", "90th percentile", P.duration),
        ("max_h", "Longest", P.duration)] if c in summary.columns]
    return P.table(summary, cols)


def repairs_block(src, column, top):
    """Repair times by cause (the ``top`` causes of ``column``), or the sentence saying why there are none."""
    from ...plots.logs import repair_summary
    summary = repair_summary(src.data, column).head(top) if src.has_repairs and src.has_causes else None
    return repair_block(src, summary)


def outage_lengths(src):
    """How long the source's outages last (:func:`relmodel.data.outage_durations`), None without end times."""
    from ...data import outage_durations
    return outage_durations(src.data) if src.has_repairs else None


def outage_lengths_block(lengths):
    """The outage lengths in a sentence and a table, or None when they are unknown."""
    if lengths is None:
        return None
    return P.blocks(P.Block("<h3>How long outages last</h3>"), P.paragraph(lengths.text()),
                    P.table(lengths.table(), [("Outage length", "Outage length", str), ("Outages", "Outages", str),
                                              ("Share", "Share of outages", str)]))


def fleet_block(src):
    """``(fleets, block)``: the source beside published fleets, or ``(None, note)`` saying why not.

    ``fleets`` is the :func:`relmodel.stats.fleet_summary` the page draws with
    :func:`relmodel.plots.fleets.fleet_context`; many change points become a
    table instead of a paragraph.
    """
    from ...errors import RelmodelError
    from ...stats.rates import fleet_summary
    from ...tables import html_table
    unit = getattr(src, "unit", "gpu-node")
    if unit != "gpu-node":   # the published fleets count GPU servers' interruptions: no like-for-like to disks
        return None, P.note(f"Not compared with published fleets: they count the interruptions of GPU servers, and "
                            f"{src.name} counts {getattr(src, 'unit_name', unit)}s' failures.")
    try:
        fleets = fleet_summary(src.data)
    except RelmodelError as exc:
        return None, P.note(f"Not compared with published fleets: {exc}")
    shown = P.paragraph(fleets.text())
    if fleets.changes is not None and fleets.changes.n_changes > 5:  # many changes: a table, not a paragraph
        shown = P.blocks(shown, P.Block(html_table(fleets.changes.table(), index=False)))
    return fleets, shown


def cause_mix_block(src):
    """A kernel log's Xid causes beside Llama 3's published mix (Table 5), or None for other sources."""
    if not hasattr(src.data, "xid_events"):
        return None
    from ...data.formats.xid import cause_mix
    mix = cause_mix(src.data)
    return P.blocks(P.Block("<h2>Causes beside a published fleet</h2>"),
                    P.table(mix, [("category", "Category (Llama 3 Table 5 taxonomy)", str),
                                  ("count", "Outages", P.count), ("share", "Share", P.pct),
                                  ("llama3_share", "Share in Llama 3 (54 days, 16,384 GPUs)", P.pct)]))


def self_check(src, ax, split=0.7, conf=0.9, seed=0):
    """How well the log forecasts itself: fitted on the first ``split`` of its window, the rest forecast.

    Draws the held-out figure on ``ax`` and returns the numbers of
    :meth:`~relmodel.checkpoint.forecast_check.ForecastCheck.summary` (with its
    sentence) for the record the index shows, or ``{"error": why}`` when the log
    cannot be checked.  A count table has no time order: None.
    """
    if not src.is_log:
        return None
    from ...checkpoint.forecast_check import forecast_check
    from ...errors import RelmodelError
    from ...plots.forecasts import held_out_plot
    try:
        check = forecast_check(src, split=split, conf=conf, quantities=("failures",), seed=seed)
        held_out_plot(src, split=split, conf=conf, seed=seed, ax=ax)
    except RelmodelError as exc:
        return {"error": str(exc)}
    return check.summary()


def self_check_block(src, check):
    """The self-check's sentence, a note saying why there is none, or the count table's one line."""
    if check is None:
        return counts_only(src, "it has no time order to forecast itself from")
    if "error" in check:
        return P.note(f"The log could not forecast itself: {check['error']}", "info")
    return P.paragraph(check["sentence"])


def no_whatif(src):
    """Why the what-if page draws nothing for ``src``, or None: its figures scale GPU nodes, and a log counted in
    disks or servers has none to scale (pages 03 and 04 answer for it, with ``units_per_node``)."""
    unit = getattr(src, "unit", "gpu-node")
    if unit == "gpu-node":
        return None
    word = getattr(src, "unit_name", unit)
    return (f"No what-if is drawn: this page scales the failure rates of GPU nodes, and {src.name} counts {word}s. "
            f"Pages 03 and 04 answer for a GPU job with units_per_node (how many {word}s one node of the planned "
            "job holds).")
