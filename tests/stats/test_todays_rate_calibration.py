"""Today's rate and its forecasts, against generators written here with numpy (never relmodel's simulator).

Fleets of logs with a known law, each log observed for T hours, fitted on its first 70% and
forecasting the failures of the rest: steady (a homogeneous Poisson process), improving and
wearing out (power-law processes, mean function proportional to t^beta with beta 0.6, 1.6, 2;
drawn as N ~ Poisson(expected) times T U^(1/beta), U uniform) and a change point (the rate
multiplied by 2.5 at 35% of the window).  Each log's expected count is drawn log-uniformly between
40 and 400 failures, so small logs, where a trend is hard to see, are among them.  The 90%
forecasts must hold what happened in 83-97% of the logs (bench/bench_forecasts.py --simulated 1000
prints the share for 1,000 logs of each fleet).

A rate rising fourfold in a straight line over 60 days (written here by inverting its mean
function) must give today's node MTBF within 20% of the generator's at the window's end.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from relmodel.data.source import load_source
from relmodel.scale.targets.decision import decide
from relmodel.stats.forecast import current_rate
from relmodel.stats.forecast.models import MIN_EVENTS, MIN_SHARE, change_points
from relmodel.stats.rates.changepoint import rate_changes

T = 1000.0
SPLIT = 0.7
N_LOGS = 150


def _expected(rng):
    return float(np.exp(rng.uniform(np.log(40), np.log(400))))


def _power_law(rng, beta):
    return np.sort(T * rng.uniform(size=rng.poisson(_expected(rng))) ** (1 / beta))


def _change_point(rng, at=0.35, k=2.5):
    rate = _expected(rng) / (at + k * (1 - at))          # expected failures per window-length at the first rate
    return np.sort(np.concatenate([rng.uniform(0, at * T, rng.poisson(rate * at)),
                                   rng.uniform(at * T, T, rng.poisson(k * rate * (1 - at)))]))


FLEETS = {"steady": lambda r: _power_law(r, 1.0), "improving": lambda r: _power_law(r, 0.6),
          "wear-out 1.6": lambda r: _power_law(r, 1.6), "wear-out 2": lambda r: _power_law(r, 2.0),
          "change point": _change_point}


def _covered(u, seed, conf=0.9):
    cut = SPLIT * T
    fit = current_rate(u[u <= cut], window=(0.0, cut))
    counts = fit.count_draws([T - cut], 2000, seed)[:, 0]
    lo, hi = np.quantile(counts, [(1 - conf) / 2, (1 + conf) / 2], method="inverted_cdf")
    return lo <= np.sum(u > cut) <= hi


@pytest.fixture(scope="module")
def hits():
    """Per fleet, whether each of N_LOGS 90% forecasts held what happened (computed once for the tests below)."""
    out = {}
    for k, (fleet, gen) in enumerate(FLEETS.items()):
        rng = np.random.default_rng(100 + k)
        out[fleet] = np.array([_covered(gen(rng), i) for i in range(N_LOGS)])
    return out


@pytest.mark.parametrize("fleet", list(FLEETS))
def test_ninety_percent_forecasts_of_each_fleet_are_consistent_with_83_to_97_percent(hits, fleet):
    """With N_LOGS logs a fleet's share is noisy (standard error about 2.5 points), so each fleet is held to the
    band by one-sided binomial tests: below at 1% (of 150 logs, 112 or fewer held, 75%, fails), above at 5% (all
    150 fails).  A share just under the band (79%) needs the bench's 1,000 logs a fleet to be seen."""
    h = int(hits[fleet].sum())
    assert stats.binom.cdf(h, N_LOGS, 0.83) >= 0.01, f"{h} of {N_LOGS}: below 83%"
    assert stats.binom.sf(h - 1, N_LOGS, 0.97) >= 0.05, f"{h} of {N_LOGS}: above 97%"


def test_ninety_percent_forecasts_hold_83_to_97_percent_over_every_fleet(hits):
    """All fleets together (750 logs, standard error about 1 point): the share itself within 83-97%."""
    share = np.mean(np.concatenate(list(hits.values())))
    assert 0.83 <= share <= 0.97, {k: v.mean() for k, v in hits.items()}


def test_a_constant_rate_misses_the_wearing_out_fleet():
    """The window's average with Poisson noise (written here) covers far less than 90% on the same logs."""
    rng = np.random.default_rng(7)
    hits = []
    for _ in range(N_LOGS):
        u = _power_law(rng, 2.0)
        cut = SPLIT * T
        mean = np.sum(u <= cut) / cut * (T - cut)
        lo, hi = np.quantile(np.random.default_rng(0).poisson(mean, 4000), [0.05, 0.95])
        hits.append(lo <= np.sum(u > cut) <= hi)
    assert np.mean(hits) < 0.75


def _linear_rise(rng, expected, length):
    """Failure times of a rate r0 (1 + 3 t / length): mean function r0 (t + 1.5 t^2 / length), inverted."""
    v = rng.uniform(size=rng.poisson(expected)) * 2.5 * length          # the mean function over r0
    return np.sort((np.sqrt(1 + 6 * v / length) - 1) * length / 3)


def test_a_rate_rising_in_a_straight_line_is_read_at_the_window_end(tmp_path):
    """60 days, 200 nodes, the rate rising fourfold: today's node MTBF (the decision's) within 20% of the truth at
    the window's end, where the window's average is 60% above it."""
    length, nodes, expected = 60 * 24.0, 200, 500
    truth = nodes / (4 * expected / (2.5 * length))                      # node MTBF at the end, hours
    rng = np.random.default_rng(46)
    t = _linear_rise(rng, expected, length)
    t0 = pd.Timestamp("2024-03-01")
    path = tmp_path / "rising.csv"
    pd.DataFrame({"start": [t0 + pd.Timedelta(hours=float(h)) for h in t],
                  "end": [t0 + pd.Timedelta(hours=float(h) + 0.5) for h in t],
                  "node": rng.integers(0, nodes, t.size).astype(str),
                  "cause": rng.choice(["GPU Xid 79", "NIC flap"], t.size)}).to_csv(path, index=False)
    src = load_source(str(path), start="start", end="end", node="node", cause="cause", source_gpus=8 * nodes,
                      window=(t0, t0 + pd.Timedelta(hours=length)))
    d = decide(src, 1600, 0.9, "1min", "10min", simulate=False, n_boot=200, seed=0)
    assert d.trend == "rising"
    assert abs(d.todays_node_mtbf_h / truth - 1) <= 0.2, (d.todays_node_mtbf_h, truth)
    assert d.average_node_mtbf_h / truth > 1.4                          # the average is far from today
    assert "Today rests on" in d.today_window and "whole window" in d.today_window


def test_rising_in_a_straight_line_over_several_logs():
    """Ten more such logs through current_rate: at least 8 within 20% of the truth at the end (about 97% of such
    logs are, over many seeds), and the median ratio within 10% of 1 (the power law alone reads about 11% low)."""
    length, expected = 60 * 24.0, 500
    rng = np.random.default_rng(461)
    ratio = np.array([current_rate(_linear_rise(rng, expected, length), window=(0, length)).rate_per_h
                      / (4 * expected / (2.5 * length)) for _ in range(10)])
    assert np.sum(np.abs(ratio - 1) <= 0.2) >= 8 and abs(np.median(ratio) - 1) <= 0.1, ratio


def test_a_short_last_segment_is_not_today():
    """Six years at a steady rate, 230 days at half of it, then a 21-day burst: the change point model rests on
    a stretch holding the stated minimum (a tenth of the window), not on the burst, and the text says so."""
    rng = np.random.default_rng(5)
    day = 24.0
    length = 6 * 365 * day
    a, b = length - 251 * day, length - 21 * day
    t = np.sort(np.concatenate([rng.uniform(0, a, rng.poisson(2.9 * a / day)),
                                rng.uniform(a, b, rng.poisson(1.5 * (b - a) / day)),
                                rng.uniform(b, length, rng.poisson(3.4 * 21))]))
    r = current_rate(t, window=(0, length))
    assert any(c > b - 5 * day for c in change_points(t, length))      # the burst is found as a change ...
    for c in r.components:
        assert c.stretch_h >= MIN_SHARE * length and c.n_used >= MIN_EVENTS  # ... but nothing rests on it alone
    assert "under the minimum" in r.today_window or "under the minimum" in r.reason
    assert r.rate_per_h * day < 3.0                                    # not the burst's 3.4 a day


def test_the_fast_change_points_are_rate_changes():
    rng = np.random.default_rng(9)
    for _ in range(30):
        length = rng.uniform(200, 20000)
        n = int(rng.integers(5, 300))
        u = np.sort(np.concatenate([rng.uniform(0, 0.4 * length, n),
                                    rng.uniform(0.4 * length, length, int(rng.integers(1, 3 * n)))]))
        np.testing.assert_allclose(change_points(u, length),
                                   rate_changes(u, window=(0, length), per="job").change_h)


def test_the_weights_and_the_window_are_said():
    rng = np.random.default_rng(3)
    r = current_rate(_power_law(rng, 2.0), window=(0, T))
    w = dict(r.weights)
    assert set(w) >= {"constant", "power law"} and sum(w.values()) == pytest.approx(1)
    assert r.model == max(w, key=w.get)
    assert "Today rests on" in r.today_window and "%" in r.reason
    row = r.to_frame().iloc[0]
    assert row["today_window"] == r.today_window and row["weight constant"] == pytest.approx(w["constant"])
    few = current_rate(np.array([10.0, 50.0, 300.0]), window=(0, 1000))
    assert few.weights == (("constant", 1.0),) and "a trend needs 10 failures" in few.reason


def _rising_slurm_syslog(folder, seed, days=60, n_nodes=128, mean_events=600):
    """A Slurm run of ``n_nodes`` nodes and its syslog, written here: Xid 79 faults at a rate rising fourfold in a
    straight line over ``days`` (drawn on the wall clock; one that falls while the job is down is not seen); the job
    hangs 1-2 min, ends NODE_FAIL, restarts 2-3 min later.  Returns (sacct, syslog, node MTBF at the end, hours)."""
    rng = np.random.default_rng(seed)
    length = days * 24.0
    faults = _linear_rise(rng, mean_events, length) * 3600
    t0 = pd.Timestamp("2024-03-01")
    iso = lambda sec: (t0 + pd.Timedelta(seconds=int(sec))).strftime("%Y-%m-%dT%H:%M:%S")  # noqa: E731
    nodes = [f"gpu{i:02d}" for i in range(1, n_nodes + 1)]
    rows = ["JobID|JobName|State|ExitCode|Start|End|Elapsed|NNodes|NodeList"]
    lines = [(0, n, "kernel: Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP") for n in nodes]
    start = 0

    def job(end, state):
        el = int(end - start)
        rows.append(f"{100 + len(rows)}|train|{state}|0:0|{iso(start)}|{iso(end)}|{el // 86400}-"
                    f"{el % 86400 // 3600:02d}:{el % 3600 // 60:02d}:{el % 60:02d}|{n_nodes}|gpu[01-{n_nodes:02d}]")
    for f in faults:
        if f < start or f + 180 >= length * 3600:
            continue
        end = f + int(rng.integers(60, 121))
        job(end, "NODE_FAIL")
        node = nodes[int(rng.integers(n_nodes))]
        lines += [(f, node, "kernel: NVRM: Xid (PCI:0000:cb:00): 79, pid=77, GPU has fallen off the bus."),
                  (f + 3600, node, "kernel: Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP")]
        start = end + int(rng.integers(120, 181))
    job(length * 3600, "COMPLETED")
    lines.sort(key=lambda x: x[0])
    stamp = lambda sec: (t0 + pd.Timedelta(seconds=int(sec))).strftime("%b %e %H:%M:%S")  # noqa: E731
    (folder / "sacct.txt").write_text("\n".join(rows) + "\n")
    (folder / "syslog.log").write_text("".join(f"{stamp(t)} {n} {m}\n" for t, n, m in lines if t < length * 3600))
    return folder / "sacct.txt", folder / "syslog.log", n_nodes / (4 * mean_events / (2.5 * length))


def test_a_rising_slurm_and_syslog_export_gives_todays_node_mtbf(tmp_path):
    """The export the issue names, generated: today's node MTBF within 20% of the generator's at the window's end
    (11 of 12 seeds tried were, median 1.05 times the truth), where the window's average is 60% above it."""
    sacct, syslog, truth = _rising_slurm_syslog(tmp_path, seed=60)
    src = load_source(str(sacct), format="sacct", job="train", syslog=str(syslog), year=2024)
    d = decide(src, 512, 0.9, "1min", None, simulate=False, n_boot=200, seed=0)
    assert abs(d.todays_node_mtbf_h / truth - 1) <= 0.2, (d.todays_node_mtbf_h, truth, d.average_node_mtbf_h)
    assert d.average_node_mtbf_h / truth > 1.4
