"""Restart decomposition: scenarios, the effective restart, checked by an event loop."""

import numpy as np
import pytest

from relmodel.checkpoint import ettr
from relmodel.errors import DurationError, ModelInputError
from relmodel.checkpoint.restart import RestartModel


def _model(**kw):
    base = dict(detection="2min", diagnosis="5min", reload="8min", spare_swap="5min", repair="12h",
                hardware_fraction=0.64, spare_probability=0.9)
    base.update(kw)
    return RestartModel(**base)


def test_scenarios_and_mean():
    r = _model()
    s = r.scenarios()
    assert s["probability"].sum() == pytest.approx(1.0)
    want = (2 + 5 + 8) / 60 + 0.64 * 0.9 * 5 / 60 + 0.64 * 0.1 * 12
    assert r.mean_h == pytest.approx(want)
    f = r.to_frame()
    assert f.iloc[-1]["hours"] == pytest.approx(want) and f["share"].iloc[:-1].sum() == pytest.approx(1.0)
    assert "Restart" in r._repr_html_()


def test_reduces_to_plain_restart_without_downtime():
    r = RestartModel(reload="10min")
    assert r.effective_h(3.0) == pytest.approx(10 / 60)
    assert r.mean_h == pytest.approx(10 / 60)


def test_effective_restart_below_mean_and_above_reload():
    r = _model()
    assert r.reload < r.effective_h(3.09) < r.mean_h


def test_repair_sample_enters_through_its_mean():
    a = _model(repair=[1.0, 3.0, 20.0])
    b = _model(repair=8.0)
    assert a.effective_h(3.0) == pytest.approx(b.effective_h(3.0))


def _restart_times(model, mtbf, n, rng):
    """Event loop: downtime (no failures matter), then a reload a failure can interrupt."""
    out = np.empty(n)
    for i in range(n):
        t = 0.0
        while True:
            t += model.sample_downtime(1, rng)[0]
            fail = rng.exponential(mtbf)
            if fail >= model.reload:
                out[i] = t + model.reload
                break
            t += fail
    return out


def test_effective_restart_matches_event_loop():
    m = 1.0
    model = _model(repair="3h", reload="20min", spare_probability=0.5)
    times = _restart_times(model, m, 20000, np.random.default_rng(4))
    want = m * np.expm1(model.effective_h(m) / m)  # Daly's expected restart with R_eff
    se = times.std(ddof=1) / np.sqrt(times.size)
    assert abs(times.mean() - want) < 2.576 * se
    # treating the mean restart as fully exposed (Daly's R) would be rejected
    assert abs(times.mean() - m * np.expm1(model.mean_h / m)) > 5 * se
    assert ettr(0.3, m, 0.01, model.effective_h(m)) > ettr(0.3, m, 0.01, model.mean_h)


@pytest.mark.parametrize("kw", [dict(detection=-1), dict(reload="x"), dict(repair=[1, -2]),
                                dict(hardware_fraction=1.5), dict(spare_probability=-0.1),
                                dict(detection=[1, 2]), dict(repair=np.nan)])
def test_bad_input(kw):
    with pytest.raises((ModelInputError, DurationError)):
        _model(**kw)


def test_bad_mtbf():
    with pytest.raises(ModelInputError):
        _model().effective_h(0)
