"""Poisson change points: exact optimum, recovery of known changes, intervals, plots and bad input."""

import itertools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import relmodel
from relmodel.errors import CountError, EmptyDataError, ExposureError, UnitError
from relmodel.plots.fleets import fleet_context, forest_plot, rate_changes_plot
from relmodel.stats.rates.changepoint import _partition, rate_changes, segment_cost

DAY = 24.0


def _simulate(rng, rates_per_day, days):
    """Event times (hours) of a Poisson process with a constant rate in each [days[i], days[i+1])."""
    out = []
    for r, a, b in zip(rates_per_day, days[:-1], days[1:]):
        out.append(rng.uniform(a * DAY, b * DAY, rng.poisson(r * (b - a))))
    return np.sort(np.concatenate(out))


def test_segment_cost_is_minus_twice_the_poisson_log_likelihood():
    n, length = 17, 40.0
    # log-likelihood of event times from a Poisson process at rate n/L: n log(rate) - rate L
    assert segment_cost(n, length) == pytest.approx(-2 * (n * np.log(n / length) - n))
    # equals the binned Poisson likelihood up to terms that do not depend on the rate
    counts = np.array([3, 5, 9])
    rate = counts.sum() / 3.0
    binned = stats.poisson.logpmf(counts, rate).sum() + np.sum(np.log([float(np.prod(range(1, c + 1)))
                                                                        for c in counts]))
    assert -2 * binned == pytest.approx(segment_cost(counts.sum(), 3.0))
    assert segment_cost(0, 5.0) == 0.0


def test_optimal_partitioning_is_the_exact_optimum():
    rng = np.random.default_rng(0)
    counts = rng.poisson(np.r_[np.full(5, 1.0), np.full(4, 6.0), np.full(3, 2.0)]).astype(float)
    widths = np.ones(counts.size)
    pen = 4.0

    def total(cps):
        b = [0, *cps, counts.size]
        return sum(segment_cost(counts[i:j].sum(), widths[i:j].sum()) for i, j in zip(b[:-1], b[1:])) + pen * len(cps)

    best = min((c for r in range(counts.size) for c in itertools.combinations(range(1, counts.size), r)), key=total)
    assert _partition(counts, widths, pen, 1) == list(best)


def test_known_changes_are_recovered_within_their_intervals():
    rng = np.random.default_rng(21)
    hits = found = 0
    reps = 40
    for _ in range(reps):
        t = _simulate(rng, [2.0, 5.0, 1.5], [0, 80, 150, 300])
        res = rate_changes(t, window=(0, 300 * DAY), per="job")
        if res.n_changes == 2:
            found += 1
            hits += sum(lo <= true * DAY <= hi for true, lo, hi in zip((80, 150), res.change_lo_h, res.change_hi_h))
    assert found >= 0.9 * reps
    assert hits / (2 * found) > 0.85  # nominal 95%; each interval holds its neighbours fixed


def test_a_constant_rate_seldom_shows_a_change():
    rng = np.random.default_rng(5)
    false = sum(rate_changes(_simulate(rng, [3.0], [0, 365]), window=(0, 365 * DAY), per="job").n_changes > 0
                for _ in range(40))
    assert false <= 3


def test_segment_rates_and_intervals_are_exact_poisson():
    rng = np.random.default_rng(9)
    t = _simulate(rng, [1.0, 4.0], [0, 100, 200])
    res = rate_changes(t, window=(0, 200 * DAY), per="job")
    seg = res.segments
    assert seg["count"].sum() == t.size
    for s in seg.itertuples():
        lo, hi = stats.chi2.ppf([0.025], 2 * s.count)[0] / 2, stats.chi2.ppf(0.975, 2 * s.count + 2) / 2
        assert s.rate_lo * s.exposure_h == pytest.approx(lo) and s.rate_hi * s.exposure_h == pytest.approx(hi)
    smaller = rate_changes(t, window=(0, 200 * DAY), per="job", penalty=1.0)
    assert smaller.n_changes >= res.n_changes  # a smaller penalty never finds fewer changes


def test_from_a_log_with_dates_and_nodes():
    rng = np.random.default_rng(3)
    t = _simulate(rng, [0.5, 2.5], [0, 60, 120])
    start = pd.Timestamp("2025-01-01") + pd.to_timedelta(t, unit="h")
    log = relmodel.read_log(pd.DataFrame({"start": start, "node": rng.integers(0, 64, t.size)}), start="start",
                            node="node", n_nodes=64, window=("2025-01-01", "2025-05-01"), name="sim")
    res = rate_changes(log)
    assert res.n_changes == 1 and res.per == "node"
    assert res.change_lo_h[0] <= 60 * DAY <= res.change_hi_h[0]
    text = res.text()
    assert "2025-0" in text and "went up" in text and "per 1,000 node-days" in text
    seg = res.segments.iloc[1]
    days = (seg["end_h"] - seg["start_h"]) / 24
    assert res.to_frame().iloc[1, 3] == pytest.approx(1000 * seg["count"] / (64 * days))  # per 1,000 node-days
    assert "<p>" in res._repr_html_() and len(res.to_frame()) == 2


def test_bad_input():
    with pytest.raises(ExposureError, match="window"):
        rate_changes([1.0, 2.0])
    with pytest.raises(ExposureError, match="positive length"):
        rate_changes([1.0], window=(5, 5))
    with pytest.raises(EmptyDataError):
        rate_changes([], window=(0, 100))
    with pytest.raises(CountError, match="penalty"):
        rate_changes([1.0, 2.0], window=(0, 100), penalty=-1)
    with pytest.raises(UnitError, match="per"):
        rate_changes([1.0, 2.0], window=(0, 100), per="gpu")
    with pytest.raises(ExposureError, match="bin"):
        rate_changes([1.0, 2.0], window=(0, 100), bin="0h")


def test_plots_and_fleet_context(stepfun_log, llama3):
    ax = rate_changes_plot(stepfun_log)
    assert ax.get_xlabel().startswith("days") and len(ax.lines) >= 1
    plt.close("all")
    summary = relmodel.stats.fleet_summary(stepfun_log)
    axes = fleet_context(stepfun_log, summary=summary)
    assert len(axes) == 2
    labels = [t.get_text() for t in axes[0].get_yticklabels()]
    assert any("Llama 3" in s for s in labels) and any("with fleet prior" in s for s in labels)
    html = summary._repr_html_()
    assert not any(w in html for w in ("nan", "NaN", "inf", "None"))
    sentences = summary._sentences()
    # more than five changes: one sentence for them (the table lists them) and one per gap without records
    assert summary.changes.n_changes > 5
    assert len(sentences) == 3 + 1 + len(summary.changes.gaps_h) and summary.text() == " ".join(sentences)
    plt.close("all")
    assert len(fleet_context(llama3)) == 1  # a count table has no times: forest plot only
    fig, (a1, a2) = plt.subplots(2)
    assert fleet_context(stepfun_log, ax=[a1, a2], summary=summary)[1] is a2
    assert forest_plot(relmodel.stats.fleet_summary(llama3)).get_xscale() == "log"
    plt.close("all")
