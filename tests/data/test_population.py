"""The population a log observed, stated once: it replaces counting the nodes the log names."""

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.errors import CountError


def _only_failures(path, machine=49_152, listed=1_143, days=365, seed=3):
    """A log of a large machine that lists only the nodes that failed: ``listed`` nodes, one outage each."""
    rng = np.random.default_rng(seed)
    nodes = rng.choice(machine, size=listed, replace=False)
    start = pd.Timestamp("2024-01-01") + pd.to_timedelta(np.sort(rng.uniform(0, days * 24, listed)), unit="h")
    pd.DataFrame({"began": start.strftime("%Y-%m-%d %H:%M:%S"),
                  "ended": (start + pd.Timedelta(hours=4)).strftime("%Y-%m-%d %H:%M:%S"),
                  "host": [f"n{i:05d}" for i in nodes]}).to_csv(path, index=False)
    return path


def test_population_replaces_the_nodes_seen(tmp_path):
    log = _only_failures(tmp_path / "hw.csv")
    seen = relmodel.load_source(str(log), start="began", end="ended", node="host")
    stated = relmodel.load_source(str(log), start="began", end="ended", node="host", population=49_152)
    assert seen.n_nodes == 1_143 and "seen in the log" in seen.cluster_from and seen.notes
    assert stated.n_nodes == 49_152 and stated.source_gpus == 49_152 * 8
    assert stated.cluster_from == "49,152 nodes observed, as given" and not stated.notes
    # the rate per node, by hand: 1,143 failures over 49,152 nodes for the log's window
    rates = relmodel.stats.component_rates(stated.data, per="node")
    window_h = stated.data.duration_h
    assert rates.iloc[-1]["mtbf_h"] == pytest.approx(49_152 * window_h / 1_143, rel=1e-9)
    lemons = relmodel.bad_nodes(stated, seed=0)
    assert lemons.n_nodes == 49_152 and not lemons.truncated


def test_population_for_units_without_gpus_and_its_errors(tmp_path):
    log = _only_failures(tmp_path / "disks.csv", machine=5_000, listed=300)
    disks = relmodel.load_source(str(log), start="began", node="host", unit="disk", population=5_000)
    assert disks.n_nodes == 5_000 and disks.units_text() == "5,000 disks" and "disks observed" in disks.cluster_from
    with pytest.raises(CountError, match="fewer than the 300 nodes"):
        relmodel.load_source(str(log), start="began", node="host", population=299)
    with pytest.raises(CountError, match="disagree"):
        relmodel.load_source(str(log), start="began", node="host", population=5_000, source_gpus=8)
    with pytest.raises(CountError, match="whole number"):
        relmodel.load_source(str(log), start="began", node="host", population=2.5)
