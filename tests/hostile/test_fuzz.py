"""Fuzz tier: any input gives a finite, in-range answer or a relmodel.errors exception.

Property-based (Hypothesis) over read_log (small generated tables and CSV
files), hours, fit and the checkpoint functions.  Deterministic
(``derandomize=True``) and small enough to stay fast.  The checkpoint
functions are always called with keyword arguments.
"""

import contextlib
import datetime as dt
import math
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import relmodel
from relmodel.errors import ArgumentOrderWarning, RelmodelError

FUZZ = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

any_float = st.floats(allow_nan=True, allow_infinity=True)
wide = st.one_of(st.floats(min_value=1e-300, max_value=1e300), st.sampled_from([0.0, -1.0, math.nan, math.inf]))
positive = st.floats(min_value=1e-300, max_value=1e300)


@contextlib.contextmanager
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# ----- hours ----------------------------------------------------------------------------------

@FUZZ
@given(st.text(alphabet="0123456789.eE+- hminsdyrwkHMSD:", max_size=14))
def test_hours_of_any_text_is_finite_or_a_duration_error(text):
    try:
        h = relmodel.units.hours(text)
    except RelmodelError:
        return
    assert isinstance(h, float) and math.isfinite(h)


@FUZZ
@given(any_float)
def test_hours_of_a_number_is_that_number(x):
    h = relmodel.units.hours(x)
    assert h == x or (math.isnan(h) and math.isnan(x))


@FUZZ
@given(st.timedeltas(min_value=dt.timedelta(days=-10**5), max_value=dt.timedelta(days=10**5)))
def test_hours_of_a_timedelta(td):
    assert relmodel.units.hours(td) == pytest.approx(td.total_seconds() / 3600)


# ----- read_log -------------------------------------------------------------------------------

def check_log(log):
    t0, t1 = log.window_h
    assert math.isfinite(t0) and math.isfinite(t1) and t1 > t0
    s, e = log.events["start_h"].to_numpy(float), log.events["end_h"].to_numpy(float)
    assert np.all(np.isfinite(s)) and np.all((s >= t0) & (s <= t1))
    assert np.all(np.isnan(e) | (e >= s))
    for d in (log.uptimes(), log.downtimes(), log.interarrivals()):
        assert np.all(np.isfinite(d.hours)) and np.all(d.hours >= 0)


numeric_times = st.lists(st.one_of(st.floats(-1e9, 1e9), st.sampled_from([math.nan, math.inf, 1e308, -0.0])),
                         min_size=1, max_size=12)
windows = st.one_of(st.none(), st.tuples(any_float, any_float), st.lists(st.floats(-10, 100), max_size=3),
                    st.just(("xx", "yy")))


@FUZZ
@given(numeric_times, st.lists(st.sampled_from(["a", "b", "c"]), min_size=12, max_size=12), windows,
       st.sampled_from(["s", "min", "h", "d"]), st.floats(0, 50))
def test_read_log_of_any_numeric_table(times, nodes, window, unit, length):
    df = pd.DataFrame({"t": times, "e": [t + length for t in times], "n": nodes[:len(times)]})
    with quiet():
        try:
            log = relmodel.read_log(df, start="t", end="e", node="n", time_unit=unit, window=window)
        except RelmodelError:
            return
    check_log(log)


stamp = st.one_of(
    st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2030, 1, 1)).map(str),
    st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2030, 1, 1)).map(
        lambda d: d.strftime("%d/%m/%Y %H:%M")),
    st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2030, 1, 1)).map(
        lambda d: d.strftime("%m/%d/%Y")),
    st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2030, 1, 1)).map(
        lambda d: d.isoformat() + "+02:00"),
    st.sampled_from(["", "NaN", "2024-03-01 10:00 EST", "yesterday", "2024-02-30", "13/13/2024", "0"]),
)


@FUZZ
@given(st.lists(stamp, min_size=1, max_size=10), st.sampled_from([None, "%d/%m/%Y %H:%M", "%Q"]))
def test_read_log_of_any_timestamp_table(stamps, fmt):
    df = pd.DataFrame({"t": stamps})
    with quiet():
        try:
            log = relmodel.read_log(df, start="t", time_format=fmt)
        except RelmodelError:
            return
    check_log(log)


cells = st.text(alphabet="0123456789-:/ ,.abT\"'\n\xe9", max_size=12)


@FUZZ
@given(st.lists(st.tuples(cells, cells), min_size=0, max_size=8), st.sampled_from(["utf-8", "latin-1"]))
def test_read_log_of_any_csv_file(rows, encoding):
    text = "t,n\n" + "".join(f"{a},{b}\n" for a, b in rows)
    with tempfile.TemporaryDirectory() as folder, quiet():
        path = Path(folder) / "log.csv"
        path.write_bytes(text.encode(encoding, errors="replace"))
        try:
            log = relmodel.read_log(path, start="t", node="n")
        except RelmodelError:
            return
    check_log(log)


# ----- fit ------------------------------------------------------------------------------------

@FUZZ
@given(st.lists(st.one_of(st.floats(1e-6, 1e6), st.sampled_from([0.0, -1.0, math.nan, math.inf, 1e300])),
                min_size=0, max_size=30),
       st.sampled_from(["exponential", "weibull", "lognormal"]), st.booleans())
def test_fit_of_any_sample(x, family, censor_last):
    observed = [True] * len(x)
    if censor_last and x:
        observed[-1] = False
    with quiet():
        try:
            r = relmodel.fit(x, family, observed=observed)
        except RelmodelError:
            return
    assert all(math.isfinite(v) and v > 0 for v in r.params.values() if v is not None) or family == "lognormal"
    assert math.isfinite(r.mean_h) or math.isinf(r.mean_h) and r.mean_h > 0
    ci = r.ci[["estimate", "lower", "upper"]].to_numpy(float)
    assert not np.isnan(ci).any()


# ----- checkpoint functions (keyword arguments only) ------------------------------------------

def looks_swapped(work=None, interval=None, mtbf=None, ckpt_cost=None, restart=None, **_):
    """The documented rules of ArgumentOrderWarning, written out for plain floats."""
    rules = [ckpt_cost is not None and mtbf is not None and ckpt_cost >= mtbf and ckpt_cost > 0,
             restart is not None and work is not None and restart >= work and restart > 0,
             interval is not None and work is not None and interval > work * (1 + 1e-12)]
    return any(rules)


def safely(fn, **kw):
    """``fn(**kw)``, or None for a relmodel error; a result comes with an ArgumentOrderWarning
    exactly when the durations look swapped, and with no other warning."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            result = fn(**kw)
        except RelmodelError:
            return None
    kinds = {w.category for w in seen}
    assert kinds <= {ArgumentOrderWarning}, (fn.__name__, kw, [str(w.message) for w in seen])
    assert bool(kinds) == looks_swapped(**kw), (fn.__name__, kw, [str(w.message) for w in seen])
    return result


@FUZZ
@given(wide, wide)
def test_intervals_are_positive_and_finite(mtbf, ckpt_cost):
    for fn in (relmodel.checkpoint.young_interval, relmodel.checkpoint.daly_interval, relmodel.optimal_interval):
        tau = safely(fn, mtbf=mtbf, ckpt_cost=ckpt_cost)
        if tau is None:
            assert not (mtbf > 0 and ckpt_cost > 0 and math.isfinite(mtbf) and math.isfinite(ckpt_cost))
            continue
        assert math.isfinite(tau) and tau > 0, (fn.__name__, mtbf, ckpt_cost, tau)


@FUZZ
@given(positive, positive)
def test_optimal_interval_is_no_worse_than_young(mtbf, ckpt_cost):
    tau = safely(relmodel.optimal_interval, mtbf=mtbf, ckpt_cost=ckpt_cost)
    young = safely(relmodel.checkpoint.young_interval, mtbf=mtbf, ckpt_cost=ckpt_cost)
    best = safely(relmodel.ettr, interval=tau, mtbf=mtbf, ckpt_cost=ckpt_cost)
    other = safely(relmodel.ettr, interval=young, mtbf=mtbf, ckpt_cost=ckpt_cost)
    assert best >= other * (1 - 1e-9) - 1e-300


@FUZZ
@given(wide, wide, wide, wide)
def test_ettr_is_a_fraction(interval, mtbf, ckpt_cost, restart):
    e = safely(relmodel.ettr, interval=interval, mtbf=mtbf, ckpt_cost=ckpt_cost, restart=restart)
    if e is not None:
        assert 0.0 <= e <= 1.0


@FUZZ
@given(wide, wide, wide, wide, wide)
def test_time_breakdown_adds_up(work, interval, mtbf, ckpt_cost, restart):
    b = safely(relmodel.checkpoint.time_breakdown, work=work, interval=interval, mtbf=mtbf, ckpt_cost=ckpt_cost,
               restart=restart)
    if b is None:
        return
    parts = [b.work_h, b.checkpoint_h, b.lost_h, b.restart_time_h, b.wall_h, b.failures]
    assert not any(math.isnan(float(p)) for p in parts)
    assert all(float(p) >= 0 for p in parts)
    assert float(b.wall_h) >= float(b.work_h) * (1 - 1e-12)
    assert 0.0 <= float(b.ettr) <= 1.0


@FUZZ
@given(wide, wide, wide, st.one_of(st.just(0.0), wide))
def test_best_step_interval_is_a_whole_number_of_steps(step, mtbf, ckpt_cost, restart):
    r = safely(relmodel.checkpoint.best_step_interval, step=step, mtbf=mtbf, ckpt_cost=ckpt_cost, restart=restart)
    if r is None:
        return
    assert int(r.steps) >= 1
    assert math.isfinite(float(r.interval_h)) and float(r.interval_h) > 0
    assert 0.0 <= float(r.ettr) <= 1.0
