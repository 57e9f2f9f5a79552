"""Detection latency and silent data corruption (relmodel.checkpoint.detection) against event simulations."""

import math

import numpy as np
import pytest

import relmodel
from relmodel.checkpoint import optimal_interval, time_breakdown
from relmodel.checkpoint.detected import detection_ettr, detection_optimal_interval
from relmodel.checkpoint.detection import checkpoints_to_keep, mean_latency, p_unrecoverable
from relmodel.errors import InfeasibleTargetError, ModelInputError
from relmodel.scale.targets.goodput import required_job_mtbf


def corruption_run(rng, work, tau, delta, restart, sigma, delay, keep):
    """One run with silent corruptions only, written from the mechanics (a plain loop over events).

    Segments of tau compute + delta write; a corruption at rate sigma (at any time, restarts included) is
    noticed ``delay`` hours later; the job then rolls back to the last checkpoint written before the
    corruption and restarts (``restart`` hours).  Returns (wall hours, corruptions, unrecoverable ones: the
    clean checkpoint had been dropped because ``keep`` or more were written while the corruption went unseen).
    """
    period = tau + delta
    done = wall = 0.0
    events = lost_for_good = 0
    while done < work - 1e-9:
        x = rng.exponential(1 / sigma)
        if x >= period:
            wall += period
            done += tau
            continue
        while True:  # a corruption at x into the attempt (or into a restart): wait, roll back, restart
            events += 1
            first = period - x                   # the next write completes this long after the corruption
            written = 0 if delay < first else int((delay - first) // period) + 1
            lost_for_good += written >= keep
            wall += x + delay
            y = rng.exponential(1 / sigma)
            if y >= restart:
                wall += restart
                break
            x = y                               # corrupted during the restart: the same clean checkpoint again
    return wall, events, lost_for_good


def test_silent_corruption_matches_an_event_simulation():
    work, tau, delta, restart = 40.0, 0.5, 1 / 60, 1 / 6
    sigma, delay, keep = 1 / 8, 1.3, 3            # 1.3 h spans 2 or 3 writes 31 min apart
    rng = np.random.default_rng(4)
    runs = np.array([corruption_run(rng, work, tau, delta, restart, sigma, delay, keep) for _ in range(3000)])
    wall = runs[:, 0]
    # no fail-stop failures to speak of (an MTBF of 10^12 h): corruption alone
    ours = time_breakdown(work, tau, 1e12, delta, restart, sdc_rate=sigma, sdc_delay=delay, keep=keep)
    se = wall.std(ddof=1) / math.sqrt(wall.size)
    assert abs(float(ours.wall_h) - wall.mean()) < 4 * se
    assert float(ours.ettr) == pytest.approx(work / wall.mean(), abs=4 * se * work / wall.mean() ** 2)
    assert ours.failures == pytest.approx(runs[:, 1].mean(), rel=0.03)
    # the share of corruptions that outlive the kept clean checkpoint: frac(1.3 h / 31 min) when keep = 3
    p = runs[:, 2].sum() / runs[:, 1].sum()
    frac = delay / (tau + delta) - math.floor(delay / (tau + delta))
    assert p_unrecoverable(tau, delta, delay, keep) == pytest.approx(frac, rel=1e-12)
    assert ours.p_unrecoverable == pytest.approx(frac, rel=1e-12)
    assert abs(p - frac) < 4 * math.sqrt(frac * (1 - frac) / runs[:, 1].sum())
    assert p_unrecoverable(tau, delta, delay, checkpoints_to_keep(tau, delta, delay)) == 0.0
    assert checkpoints_to_keep(tau, delta, delay) == 4


def test_latency_and_corruption_in_the_library_simulator():
    kw = dict(sdc_rate=1 / 50, sdc_delay="2h", latency={"heartbeat": (0.7, "30s"), "timeout": (0.3, "20min")})
    b = time_breakdown(200, "30min", "3h", "1min", "10min", **kw)
    parts = b.to_frame().set_index("part")["hours"]
    assert parts.drop("total").sum() == pytest.approx(parts["total"], rel=1e-12)
    assert float(b.ettr) == pytest.approx(detection_ettr("30min", "3h", "1min", "10min", **kw), rel=1e-12)
    s = relmodel.simulate_training(200, "30min", "3h", "1min", "10min", n_runs=3000, seed=2, **kw)
    lo, hi = s.ettr_ci(0.999)
    assert lo < float(b.ettr) < hi
    assert mean_latency(kw["latency"]) == pytest.approx(0.7 * 30 / 3600 + 0.3 / 3, rel=1e-12)
    # MegaScale-like: detection plus diagnosis under 10 minutes (arXiv 2402.15627) against a 30-minute timeout
    fast = float(time_breakdown(200, "30min", "3h", "1min", "10min", latency="10min").ettr)
    slow = float(time_breakdown(200, "30min", "3h", "1min", "10min", latency="30min").ettr)
    assert slow < fast < float(time_breakdown(200, "30min", "3h", "1min", "10min").ettr)


def test_nothing_to_detect_gives_todays_answers():
    a = time_breakdown(100, "30min", "3h", "1min", "10min")
    b = time_breakdown(100, "30min", "3h", "1min", "10min", sdc_rate=0.0, sdc_delay=0.0, latency=0.0)
    assert a.to_frame().equals(b.to_frame())
    assert detection_optimal_interval("3h", "1min") == optimal_interval("3h", "1min")
    s1 = relmodel.simulate_training(50, "20min", "3h", "1min", "10min", n_runs=200, seed=1)
    s2 = relmodel.simulate_training(50, "20min", "3h", "1min", "10min", n_runs=200, seed=1, latency=0.0)
    assert s1.ettr == s2.ettr
    assert required_job_mtbf(0.9, "1min", "10min", sdc_rate=0.0) == required_job_mtbf(0.9, "1min", "10min")


def test_requirement_with_corruption_and_latency():
    kw = dict(sdc_rate=1 / 500, sdc_delay="1h", latency="2min")
    m = required_job_mtbf(0.9, "1min", "10min", **kw)
    assert m > required_job_mtbf(0.9, "1min", "10min")
    tau = detection_optimal_interval(m, "1min", **kw)
    assert detection_ettr(tau, m, "1min", "10min", **kw) == pytest.approx(0.9, abs=1e-9)
    # brute force over intervals: no interval does better at that MTBF
    grid = np.linspace(0.05, 3.0, 4000)
    assert detection_ettr(grid, m, "1min", "10min", **kw).max() <= 0.9 + 1e-7
    with pytest.raises(InfeasibleTargetError, match="silent corruption"):
        required_job_mtbf(0.9, "1min", "10min", sdc_rate=1 / 5, sdc_delay="1h")


def test_bad_detection_inputs():
    with pytest.raises(ModelInputError, match="add up to 1"):
        mean_latency({"a": (0.5, "1min"), "b": (0.2, "5min")})
    with pytest.raises(ModelInputError):
        time_breakdown(10, "30min", "3h", "1min", "10min", sdc_rate=-1.0)
    with pytest.raises(ModelInputError, match="exponential failures"):
        relmodel.simulate_training(10, "30min", _weibull(), "1min", "10min", n_runs=10, seed=0, sdc_rate=0.1,
                                   sdc_delay="1h")
    with pytest.raises(ModelInputError, match="keep"):
        p_unrecoverable("30min", "1min", "1h", keep=0)


def _weibull():
    rng = np.random.default_rng(0)
    return relmodel.fit(rng.weibull(0.8, 200) * 3.0, "weibull")
