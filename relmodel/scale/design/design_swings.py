"""Which assumption decides the ranking of designs: each one moved from a low to a high value, the rest held.

:func:`design_swings` re-runs :func:`relmodel.scale.design.designs.compare_designs`
(closed forms, no bootstrap) with one assumption at a time set to its low
and its high value and the others at the comparison's own, and records the
design that comes out best and the goodput per GPU bought of the design that
is best at the comparison's own values.  The rows are sorted by that swing,
so the first row is the assumption the purchase is most exposed to (the
table of a tornado plot, :func:`relmodel.plots.designs.swings_plot`); a row
whose best design differs between its ends is an assumption that decides the
ranking.
"""

import dataclasses

import pandas as pd

from ...errors import DurationError
from ...tables import Result, duration, html_table
from ...units import hours
from ..targets.restart_growth import PER_1K_RANKS_H, growing_restart
from ..sparing.words import ettr_words

__all__ = ["DesignSwings", "default_swings", "design_swings"]


def default_swings(options):
    """The assumptions a design comparison rests on, each as (name, what, low, high, keyword).

    ``options`` are the comparison's keyword arguments (repair, crews,
    rma_lead_time, spare_rate_per_h, rack_fit, restart).
    """
    base = float(hours(options.get("repair", "24h")))
    return [
        ("repair time", "mean repair of a tray, node or rack: a third and three times the value used",
         f"{base / 3:.6g}h", f"{3 * base:.6g}h", "repair"),
        ("repair crews", "parallel repairs (unlimited, or the fewest that keep up plus a quarter)", None, "tight",
         "crews"),
        ("RMA lead time", "time a repaired part is still away (vendor)", "0h", "10d", "rma_lead_time"),
        ("spares failing idle", "idle spares never fail, or fail as in service", 0.0, "hot", "spare_rate_per_h"),
        ("whole-rack faults", "FIT per rack: none, or 10,000 (a rack fault every 11 years)", 0.0, 10_000.0,
         "rack_fit"),
        ("restart", "time from a failure to training again, at every size", "5min", "30min", "restart"),
        ("restart growth", "start-up growing with the ranks: none, or twice the published NCCL figure", 0.0,
         2 * PER_1K_RANKS_H, "restart_growth"),
    ]


@dataclasses.dataclass(frozen=True)
class DesignSwings(Result):
    """One row per assumption: its two ends, the best design at each, and the swing of the base's best design."""

    frame: pd.DataFrame
    base_best: str
    base_goodput: float

    def to_frame(self):
        return self.frame.copy()

    def deciding(self):
        """Assumptions whose two ends name different best designs."""
        return list(self.frame.loc[self.frame["decides"], "assumption"])

    def text(self):
        d = self.deciding()
        top = self.frame.iloc[0]
        head = (f"At the page's own values {self.base_best} gives the most goodput per GPU bought "
                f"({ettr_words(self.base_goodput)}); the assumption that moves it most is {top['assumption']} "
                f"({ettr_words(top['goodput_low'])} to {ettr_words(top['goodput_high'])}).")
        if not d:
            return head + " No single assumption, moved between its two ends, changes which design is best."
        return head + f" The ranking turns on {', '.join(d)}: between its two ends the best design changes."

    def table(self):
        f = self.frame
        return pd.DataFrame({
            "Assumption": f["assumption"], "Low": f["low"].astype(str), "High": f["high"].astype(str),
            f"Goodput per GPU bought of {self.base_best}, low": f["goodput_low"].map(ettr_words),
            "high": f["goodput_high"].map(ettr_words),
            "Best design, low": f["best_low"], "Best design, high": f["best_high"]})

    def _repr_html_(self):
        return f"<p>{self.text()}</p>" + html_table(self.table())


def _tight(cmp, repair):
    """Fewest crews that keep up with the busiest design's repairs, plus a quarter."""
    import math
    from ..sparing.spares import _mean_repair
    load = max((r.repairs_per_h for r in cmp.results), default=0.0) * _mean_repair(repair)
    return max(1, math.ceil(1.25 * load) + 1)


def _restart(key, value, restart):
    """The restart of one end: the value itself, the base with start-up growing at ``value``, or unchanged."""
    if key == "restart":
        return growing_restart(value, restart.per_1k_ranks) if hasattr(restart, "per_1k_ranks") else value
    if key == "restart_growth":
        base = restart.reload if hasattr(restart, "reload") else restart
        return growing_restart(base, value) if value else base
    return restart


def _label(key, value):
    """An assumption's value in words: "unlimited", "11 crews", "none", "as in service", "10,000 FIT", "10d"."""
    if key == "crews":
        return "unlimited" if value is None else f"{int(value):,} crews"
    if key == "spare_rate_per_h":
        return "as in service" if value == "hot" else ("never" if float(value) == 0 else f"{float(value):g} an hour")
    if key == "restart_growth":
        return "none" if not value else f"{3600 * float(value):,.1f} s per 1,000 GPUs"
    if key == "rack_fit":
        return "none" if float(value) == 0 else f"{float(value):,.0f} FIT"
    if isinstance(value, str) and value.strip() in ("0h", "0", "0min", "0d"):
        return "none"
    if isinstance(value, str):
        try:
            return duration(float(hours(value)))
        except DurationError:  # not a duration: said as given
            return value
    return str(value)


def design_swings(designs, source, n_gpus, ckpt_cost, restart, swings=None, **options):
    """Move each assumption between its ends and record the ranking; returns a :class:`DesignSwings`.

    ``designs``, ``source``, ``n_gpus``, ``ckpt_cost``, ``restart`` and
    ``options`` are those of :func:`~relmodel.scale.design.designs.compare_designs`
    (``n_runs`` and ``n_boot`` are set to 0: closed forms only).  ``swings``
    is a list of (name, what, low, high, keyword) as :func:`default_swings`
    gives; ``"tight"`` crews are the fewest that keep up plus a quarter.
    """
    from .designs import compare_designs
    opts = dict(options, n_runs=0, n_boot=0)
    base = compare_designs(designs, source, n_gpus, ckpt_cost=ckpt_cost, restart=restart, **opts)
    best = base.best()
    swings = default_swings(opts) if swings is None else swings
    rows = []
    for name, what, low, high, key in swings:
        ends = []
        for value in (low, high):
            if key == "crews" and value == "tight":
                value = _tight(base, opts.get("repair", "24h"))
            kw = dict(opts, **{key: value}) if key not in ("restart", "restart_growth") else opts
            cmp = compare_designs(designs, source, n_gpus, ckpt_cost=ckpt_cost,
                                  restart=_restart(key, value, restart), **kw)
            t = cmp.by_design
            ends.append((value, cmp.best(), float(t.loc[t["design"] == best, "goodput_per_gpu"].iloc[0])))
        (lo_v, lo_best, lo_g), (hi_v, hi_best, hi_g) = ends
        rows.append({"assumption": name, "what": what, "low": _label(key, lo_v), "high": _label(key, hi_v), "best_low": lo_best, "best_high": hi_best, "goodput_low": lo_g,
                     "goodput_high": hi_g, "swing": abs(hi_g - lo_g), "decides": lo_best != hi_best})
    frame = pd.DataFrame(rows).sort_values("swing", ascending=False, kind="stable").reset_index(drop=True)
    t = base.by_design
    return DesignSwings(frame, best, float(t.loc[t["design"] == best, "goodput_per_gpu"].iloc[0]))
