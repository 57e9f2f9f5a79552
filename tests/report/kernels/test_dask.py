"""Sweeps, grids and Monte Carlo on a Dask cluster of two worker processes (issue 15)."""

import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.checkpoint import optimal_interval
from relmodel.errors import ReportError
from relmodel.report import render
from relmodel.report.kernels import executors as E
from relmodel.scale.targets import grid as G
from relmodel.scale.targets.requirements import required_node_mtbf
from relmodel.scale.clusters.scaling import scale_job_mtbf, scale_rates
from conftest import write_notebook

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers need not import this file
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address="127.0.0.1:0")
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_report_sweep_on_dask_names_the_failure_and_finishes_the_rest(tmp_path, client):
    nb = write_notebook(tmp_path / "tiny.ipynb", [
        "n_gpus: int = 16384  # GPUs\nlabel: str = 'a'  # a label",
        "from relmodel.report import record\nassert n_gpus != 2000, 'no 2000'\n"
        "record('job_mtbf_h', 50000.0 / n_gpus)"])
    calls = []
    with pytest.raises(ReportError, match="n_gpus=2000") as err:
        render(notebooks=[nb], sweep={"n_gpus": [1000, 2000], "label": ["b"]}, out=tmp_path / "sw",
               executor=client, progress=lambda done, total, name: calls.append((done, total)))
    assert "AssertionError: no 2000" in str(err.value)
    assert sorted(calls) == [(1, 2), (2, 2)]  # progress per task
    summary = json.loads((tmp_path / "sw" / "summary.json").read_text())
    assert summary["relmodel"]["status"] == "complete" and len(summary["runs"]) == 2
    for run in summary["runs"]:
        folder = tmp_path / "sw" / run["folder"]
        assert (folder / "tiny.ipynb").exists() and (folder / "tiny.html").exists()
        if run["values"]["n_gpus"] == 1000:
            assert run["error"] is None and run["headline"]["job_mtbf_h"] == pytest.approx(50.0)
        else:
            assert "no 2000" in run["error"] and run["headline"] == {}
    page = (tmp_path / "sw" / "index.html").read_text()
    assert page.count("<tr>") == 3 and "<img" in page and "label" in page  # table and small multiples


def test_sweep_grid_of_a_thousand_combinations(client, monkeypatch, llama3):
    monkeypatch.setattr(G, "CHUNK", 128)  # several chunks, on both workers
    grid = {"n_gpus": [4096, 8192, 16384, 32768, 65536], "ckpt_cost": ["30s", "1min", "2min", "5min", "10min"],
            "restart": ["1min", "5min", "10min", "20min"], "target_ettr": [0.5, 0.7, 0.8, 0.9, 0.95, 0.97, 0.98,
                                                                          0.99, 0.995, 0.999]}
    df = relmodel.scale.sweep_grid(grid, executor=client)
    assert len(df) == 1000
    pd.testing.assert_frame_equal(df, relmodel.scale.sweep_grid(grid))  # same with no executor
    for i in (0, 137, 555, 999):  # against the scalar functions
        row = df.iloc[i]
        m = scale_job_mtbf(llama3, int(row.n_gpus))
        assert row.job_mtbf_h == pytest.approx(m, rel=1e-12)
        assert row.optimal_interval_h == pytest.approx(float(optimal_interval(m, row.ckpt_cost_h)), rel=1e-12)
        fixed = scale_rates(llama3, target_cluster=int(row.n_gpus), n_boot=1, seed=0).rate_of("job")
        try:
            need = required_node_mtbf(int(row.n_gpus), row.target_ettr, row.ckpt_cost_h, row.restart_h,
                                      fixed_rate_per_h=fixed)
        except relmodel.errors.InfeasibleTargetError:
            assert np.isnan(row.required_node_mtbf_h) and row.reason.startswith("out of reach")
        else:
            assert row.required_node_mtbf_h == pytest.approx(need, rel=1e-9) and row.reason == ""


def test_simulation_is_identical_for_1_2_and_4_chunks(client):
    args = dict(work="10d", interval=0.5, ckpt_cost="1min", restart="10min", failures=4.0)
    runs = [relmodel.simulate_training(**args, n_runs=1000, seed=11, chunks=k, executor=client) for k in (1, 2, 4)]
    runs.append(relmodel.simulate_training(**args, n_runs=1000, seed=11, chunks=3))  # no executor
    for other in runs[1:]:
        assert np.array_equal(runs[0].lost_h, other.lost_h) and np.array_equal(runs[0].failures, other.failures)
    exact = float(relmodel.ettr(interval=0.5, mtbf=4.0, ckpt_cost="1min", restart="10min"))
    assert runs[0].ettr == pytest.approx(exact, rel=0.01)  # and it is the right answer


def _dies_once(task):
    """Kill the worker process running it the first time; succeed after."""
    marker = Path(task.source)
    if not marker.exists():
        marker.write_text(str(os.getpid()))
        os._exit(1)
    return {"name": task.name, "records": {"pid": os.getpid()}, "seconds": 0.0, "error": None}


def test_a_killed_workers_task_is_retried(tmp_path, client):
    from relmodel.report.pipeline.run import Task

    task = Task("victim", str(tmp_path / "died"), {}, "t")
    with ThreadPoolExecutor(1) as pool:  # bounded wait
        results = pool.submit(E.run_tasks, [task], _dies_once, client).result(timeout=120)
    first = int((tmp_path / "died").read_text())
    assert results[0]["error"] is None and results[0]["records"]["pid"] != first


def test_cli_dask_option_and_several_sweeps(monkeypatch):
    from click.testing import CliRunner

    import relmodel.report
    from relmodel.cli import cli
    from relmodel.report.pipeline.run import Report

    seen = []

    class FakeClient:
        def __init__(self, address=None):
            seen.append(address)

        def __enter__(self):
            return "the client"

        def __exit__(self, *exc):
            return False

    def fake_render(**kwargs):
        seen.append((kwargs["executor"], kwargs["sweep"]))
        return Report(Path("r"), (), {}, {})

    monkeypatch.setattr(E, "dask_client", FakeClient)
    monkeypatch.setattr(relmodel.report, "render", fake_render)
    base = ["report", "-q", "--sweep", "n_gpus=16384,65536", "--sweep", "ckpt_cost=30s,2min"]
    for extra in (["--dask"], ["--dask", "tcp://10.0.0.1:8786"]):
        res = CliRunner().invoke(cli, base + extra)
        assert res.exit_code == 0, res.output
    grid = {"n_gpus": [16384, 65536], "ckpt_cost": ["30s", "2min"]}
    assert seen == ["local", ("the client", grid), "tcp://10.0.0.1:8786", ("the client", grid)]
    res = CliRunner().invoke(cli, base + ["--sweep", "n_gpus=1,2"])
    assert res.exit_code == 2 and "given twice" in res.output
