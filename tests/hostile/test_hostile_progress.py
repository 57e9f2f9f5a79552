"""Progress of long library loops (second hostile corpus, unbounded work: "no progress and no way
to know"): the protocol in relmodel.base.progress, each long loop reporting through it, and the
command line's bar.

Counts are checked against the loop sizes asked for (hand counts), never against the
code under test; nothing here asserts a wall-clock time.
"""

import io

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.base import progress
from relmodel.cli import progress_bar
from relmodel.cli.progress_bar import Bar
from relmodel.errors import InputTypeError
from relmodel.base.progress import Update, listen, steps
from relmodel.scale.targets.grid import sweep_grid
from relmodel.stats.survival.power_law import power_law_gof


def _groups_frame():
    rng = np.random.default_rng(0)
    grp = rng.choice(["a", "b"], 120)
    t, c = rng.exponential(np.where(grp == "a", 100, 130)), rng.uniform(0, 200, 120)
    return pd.DataFrame({"duration_h": np.minimum(t, c), "observed": t <= c, "fleet": grp,
                         "cause": np.where(t <= c, "gpu", None)})


DURATIONS = np.random.default_rng(1).weibull(1.3, 80) * 100.0
TIMES = np.sort(np.random.default_rng(2).uniform(0, 1000, 40))

#: name -> (call, label words, steps done at the end: a hand count of the loop's size)
LOOPS = {
    "compare_fits": (lambda: relmodel.stats.compare_fits(DURATIONS, ["exponential", "weibull"], n_boot=7, seed=0),
                     "bootstrap of the weibull fit", 7),
    "gray_test": (lambda: relmodel.stats.gray_test(_groups_frame(), "fleet", "cause", "gpu", variance="bootstrap",
                                             n_boot=6), "Gray's test", 6),
    "power_law_gof": (lambda: power_law_gof(TIMES, end=1000.0, n_runs=600, seed=0), "power-law", 600),
    "best_interval": (lambda: relmodel.checkpoint.best_interval(relmodel.fit(DURATIONS, "exponential"), "45s", "10min",
                                                     grid=5, n_runs=20, work="100h"), "interval grid", 5),
    "spares_table": (lambda: relmodel.scale.spares_table(0.05, "100h", "1min", "10min", job_mtbf_h="3h",
                                                   spares=[0, 5, 10], n_runs=200), "spare counts", 3),
    "sweep_grid": (lambda: sweep_grid({"n_gpus": [1024, 2048, 4096], "target_ettr": [0.8, 0.9]}),
                   "grid combinations", 6),
    "compare_designs": (lambda: relmodel.scale.compare_designs(["nvl72-whole-rack", "nvl72-in-rack-spares"], relmodel.datasets.llama3_54day(), 1152,
                                                         ckpt_cost="1min", restart="10min", n_runs=50, n_boot=0),
                        "designs", 2),
}


@pytest.mark.parametrize("name", list(LOOPS))
def test_each_long_loop_reports_its_steps(name):
    call, words, total = LOOPS[name]
    seen = []
    with listen(seen.append):
        call()
    mine = [u for u in seen if words in u.label]
    assert mine, [u.label for u in seen]
    assert mine[0].done == 0 and not mine[0].finished            # announced before the first step
    last = mine[-1]
    assert last.finished and last.done == total and last.total == total, last


def test_two_level_search_reports_each_k_it_tried():
    seen = []
    with listen(seen.append):
        plan = relmodel.checkpoint.two_level_optimum("20h", "10s", "5min", fast_fraction=0.8, k_max=400)
    last = [u for u in seen if "two-level" in u.label][-1]
    # it stops 5 k's past the best one (patience) or at k_max: at least the best k was tried
    assert last.finished and last.total == 400 and plan.k <= last.done <= 400


def test_without_a_listener_nothing_is_called_and_results_are_the_same():
    assert not progress.listening()
    with steps("anything", total=3) as step:
        assert step() is None and step(5) is None
    plain = relmodel.stats.compare_fits(DURATIONS, ["weibull"], n_boot=5, seed=3).by_family
    with listen(lambda u: None):
        heard = relmodel.stats.compare_fits(DURATIONS, ["weibull"], n_boot=5, seed=3).by_family
    pd.testing.assert_frame_equal(plain, heard)


def test_a_loop_that_fails_still_says_it_finished():
    seen = []
    with listen(seen.append), pytest.raises(KeyboardInterrupt):
        with steps("interrupted", total=10) as step:
            step()
            raise KeyboardInterrupt
    assert seen[-1].finished and seen[-1].done == 1


def test_updates_are_spaced_out(monkeypatch):
    clock = iter(np.arange(0.0, 100.0, 0.01))   # 10 ms per call of the clock
    monkeypatch.setattr(progress.time, "monotonic", lambda: float(next(clock)))
    seen = []
    with listen(seen.append):
        with steps("many", total=1000) as step:
            for _ in range(1000):
                step()
    middle = [u for u in seen if 0 < u.done < 1000 and not u.finished]
    # one clock read per step, 10 ms apart: an update every 10 steps (0.1 s), not one per step
    assert 90 <= len(middle) <= 101, len(middle)


def test_a_listener_must_be_a_function():
    with pytest.raises(InputTypeError, match="function of one Update"):
        with listen("stderr"):
            pass


def test_update_shares_and_time_left():
    u = Update("x", 250, 1000, 5.0)
    assert u.fraction == 0.25 and u.remaining_s == pytest.approx(15.0)   # 5 s for 250: 15 s for 750
    assert Update("x", 0, 1000, 0.0).remaining_s is None and Update("x", 5, None, 1.0).fraction is None


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_bar_shows_only_long_loops_on_a_terminal():
    quick = [Update("quick", 0, 10, 0.0), Update("quick", 9, 10, 0.9), Update("quick", 10, 10, 1.0, True)]
    slow = [Update("slow", 0, 100, 0.0), Update("slow", 10, 100, 1.2), Update("slow", 50, 100, 6.0),
            Update("slow", 100, 100, 12.0, True)]
    short_total = [Update("short", 90, 100, 1.1)]      # 1.1 s so far, 0.12 s left: under 2 s in all
    term = _Terminal()
    bar = Bar(term)
    for u in quick + short_total:
        bar(u)
    assert term.getvalue() == ""
    for u in slow:
        bar(u)
    out = term.getvalue()
    # tqdm's bar, timed by the loop's own clock: 1.2 s for 10 of 100 steps, so about 10.8 s left
    assert "slow:  10%|" in out and "10/100 [00:01<00:10" in out and "50/100 [00:06<00:06" in out
    assert out.endswith("\r") and out.split("\r")[-2].strip() == ""      # wiped when it ends
    piped = io.StringIO()
    for u in slow:
        Bar(piped)(u)
    assert piped.getvalue() == ""


def test_a_bar_fits_the_terminal_and_a_loop_inside_another_gets_its_own(monkeypatch):
    for width in (20, 40, 80, 200):
        monkeypatch.setenv("COLUMNS", str(width + 1))   # the bar leaves the terminal's last column free
        term = _Terminal()
        bar = Bar(term)
        bar(Update("bootstrap of the log-logistic fit", 123_456, 1_000_000, 61.0))
        bar(Update("inner", 5, None, 3.0))
        assert "bootstrap" in term.getvalue() and "5step" in term.getvalue()
        bar(Update("inner", 5, None, 3.0, finished=True))
        bar(Update("bootstrap of the log-logistic fit", 1_000_000, 1_000_000, 500.0, finished=True))
        assert bar.bars == {}
        frames = [f for f in term.getvalue().replace("\x1b[A", "").replace("\n", "\r").split("\r") if f]
        assert max(len(f) for f in frames) <= width, frames
    assert progress_bar.SHOW_AFTER_S <= progress_bar.SHOW_IF_TOTAL_S <= 2.0
