"""The inputs a decision rests on: measured restart, cluster-wide causes, today's rate, units and the source's size."""

import numpy as np
import pandas as pd
import pytest

from relmodel.data.shaping.logs import read_log
from relmodel.data.source import load_source
from relmodel.errors import MissingColumnError, UnitError
from relmodel.scale.clusters.cluster import Cluster
from relmodel.scale.targets.decision import decide, source_cluster
from relmodel.scale.targets.decision_inputs import ASSUMED, MEASURED, PARAMETER, cluster_wide_causes, restart_input
from relmodel.scale.clusters.scaling import cluster_of
from relmodel.scale.targets.today import todays_rate


class _Gaps:
    def __init__(self, hours, latency=None):
        self._h, self.detection_latency_h = np.asarray(hours, float), latency

    def restart_gaps(self):
        return self._h


def test_restart_is_the_median_requeue_gap_plus_the_measured_latency():
    gaps = [0.2, 0.3, 0.5, 0.4, 22.0]  # one run held for a day
    r, where, note, lat = restart_input(_Gaps(gaps))
    assert (r, where) == (0.4, MEASURED) and "median of 5 requeue gaps" in note and lat is None
    r, where, _, lat = restart_input(_Gaps(gaps, latency=[0.1, 0.3]))
    assert r == pytest.approx(0.4 + 0.2) and lat == pytest.approx(0.2)
    assert restart_input(_Gaps(gaps), "5min")[:2] == (pytest.approx(5 / 60), PARAMETER)
    assert restart_input(object())[:2] == (pytest.approx(10 / 60), ASSUMED)


def _log(path, rows, **kw):
    pd.DataFrame(rows, columns=["start", "node", "cause"]).to_csv(path, index=False)
    return read_log(path, start="start", node="node", cause="cause", time_unit="h", **kw)


def test_a_cause_striking_many_nodes_at_once_is_cluster_wide(tmp_path):
    rng = np.random.default_rng(0)
    rows = [(float(t), f"n{rng.integers(40)}", "GPU") for t in np.sort(rng.uniform(0, 1000, 60))]
    for t in (100.0, 400.0, 800.0):
        rows += [(t + k * 0.001, f"n{k}", "Lustre stall") for k in range(10)]
    rows.sort()
    wide = cluster_wide_causes(_log(tmp_path / "w.csv", rows))
    assert set(wide) == {"Lustre stall"} and wide["Lustre stall"] == 1.0


def test_a_log_with_no_nodes_and_no_size_is_not_scaled(tmp_path):
    rows = [(float(t), "x", "GPU") for t in range(0, 200, 10)]
    with pytest.raises(MissingColumnError, match="names no nodes"):
        source_cluster(_log(tmp_path / "one.csv", rows))


def test_a_name_does_not_choose_the_cluster(tmp_path):
    rows = [(float(t), f"n{t % 7}", "GPU") for t in range(0, 200, 10)]
    log = _log(tmp_path / "llama-like.csv", rows, n_nodes=64, gpus_per_node=8)
    assert "llama" in log.name.lower()
    assert cluster_of(log) == Cluster(n_gpus=512, gpus_per_node=8, name=log.name)


def test_disks_give_no_gpu_job_answer_unless_mapped(tmp_path):
    rng = np.random.default_rng(1)
    path = tmp_path / "disks.csv"
    pd.DataFrame({"start": np.sort(rng.uniform(0, 2000, 40)), "node": rng.integers(0, 30, 40).astype(str),
                  "cause": "media"}).to_csv(path, index=False)
    src = load_source(str(path), start="start", node="node", cause="cause", time_unit="h", unit="disk")
    with pytest.raises(UnitError, match="units_per_node"):
        decide(src, 256, 0.9, "1min", "10min", simulate=False, n_boot=100, seed=0)
    d = decide(src, 256, 0.9, "1min", "10min", units_per_node=3, simulate=False, n_boot=100, seed=0)
    n_disks = src.n_nodes
    assert d.source_gpus == round(n_disks / 3) * 8  # nodes of 3 disks, 8 GPUs each


def test_a_count_table_means_the_average_today():
    today = todays_rate(load_source("llama3"))
    assert not today.moving and today.factor == 1.0 and "count table" in today.reason


def test_a_seeded_law_ranking_is_computed_once_and_handed_out_as_a_copy(monkeypatch):
    """The second ranking of the same gaps with the same seed is the first's copy (the bootstrap is not run again);
    changing what was handed out changes nothing later; another seed or no seed runs the bootstrap."""
    from relmodel.scale.targets import decision_inputs as di
    from relmodel.stats.lifetimes import ranking

    calls = []
    real = ranking.compare_fits
    monkeypatch.setattr(ranking, "compare_fits", lambda *a, **k: calls.append(k["seed"]) or real(*a, **k))
    monkeypatch.setattr(di, "_RANKINGS", {})
    gaps = pd.Series(np.random.default_rng(4).weibull(0.8, 60) * 10.0)

    class Log:
        def interarrivals(self):
            from relmodel.data.shaping.durations import Durations
            return Durations(gaps.to_numpy(), None)

    first, _ = di.law_ranking(Log(), n_boot=5, seed=3)
    first.by_family.loc[0, "aic"] = -1.0  # a caller writing on its copy
    again, _ = di.law_ranking(Log(), n_boot=5, seed=3)
    assert calls == [3]
    assert again.by_family["aic"].iloc[0] != -1.0
    fresh = real(Log().interarrivals(), list(di.LAW_FAMILIES), n_boot=5, seed=3)
    pd.testing.assert_frame_equal(again.by_family, fresh.by_family)
    di.law_ranking(Log(), n_boot=5, seed=4)
    di.law_ranking(Log(), n_boot=5, seed=None)
    di.law_ranking(Log(), n_boot=5, seed=None)
    assert calls == [3, 4, None, None]
