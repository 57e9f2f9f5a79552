"""Slurm export + syslog written by a generator in this file, with known truth; the readers, the join and
the backtest must recover it.

The scenario: a 16-node run over 40 days whose faults arrive at a rising rate (a power-law process,
beta 1.6); after each fault the job hangs for a known detection latency (5 to 20 min), ends NODE_FAIL,
waits a known slow requeue (20 to 30 min) and restarts.  The syslog holds an Xid 79 on the failed node
at the fault, the node's boot two hours later, and noise.  Times are whole seconds, so the truth is exact.
The truth of the backtest is a plain step-by-step walk through each segment in numpy/python.
"""

import gzip
import lzma

import numpy as np
import pandas as pd
import pytest

from relmodel import read_sacct, read_xid
from relmodel.checkpoint import backtest
from relmodel.data import join_kernel, read_xid_folder

T0 = pd.Timestamp("2024-03-01")
NODES = [f"gpu{i:02d}" for i in range(1, 17)]
BOOT = "kernel: Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP"


def _s(sec):
    return (T0 + pd.Timedelta(seconds=int(sec))).strftime("%Y-%m-%dT%H:%M:%S")


def _syslog_time(sec):
    t = T0 + pd.Timedelta(seconds=int(sec))
    return f"{t.strftime('%b')} {t.day:2d} {t.strftime('%H:%M:%S')}"


def scenario(seed=7, days=40, expected=30, beta=1.6):
    """(sacct text, syslog text, truth dict) of one run."""
    rng = np.random.default_rng(seed)
    total = days * 86400
    theta = total / expected ** (1 / beta)          # Lambda(t) = (t / theta) ** beta, in seconds
    segs, faults, lat, gaps = [], [], [], []
    start = 0
    while True:
        lam = (start / theta) ** beta + rng.exponential()
        fault = int(theta * lam ** (1 / beta))
        hang = int(rng.integers(5 * 60, 20 * 60 + 1))
        if fault + hang >= total:
            segs.append((start, total, "COMPLETED"))
            break
        node = NODES[int(rng.integers(len(NODES)))]
        segs.append((start, fault + hang, "NODE_FAIL"))
        faults.append((fault, node))
        lat.append(hang)
        gap = int(rng.integers(20 * 60, 30 * 60 + 1))
        gaps.append(gap)
        start = fault + hang + gap
    rows = ["JobID|JobName|State|ExitCode|Start|End|Elapsed|NNodes|NodeList"]
    for k, (s, e, state) in enumerate(segs):
        el = e - s
        rows.append(f"{100 + k}|train|{state}|0:0|{_s(s)}|{_s(e)}|{el // 86400}-{el % 86400 // 3600:02d}:"
                    f"{el % 3600 // 60:02d}:{el % 60:02d}|16|gpu[01-16]")
        rows.append(f"{100 + k}.batch|batch|CANCELLED|0:15|{_s(s)}|{_s(e)}|00:00:01|1|gpu01")
    lines = [(0, n, BOOT) for n in NODES]
    for t, n in faults:
        lines.append((t, n, "kernel: NVRM: Xid (PCI:0000:cb:00): 79, pid=77, GPU has fallen off the bus."))
        lines.append((t + 7200, n, BOOT))
    for t in rng.integers(1, total, 3000):
        lines.append((int(t), NODES[int(rng.integers(16))], "systemd[1]: Started Session 12 of User slurm."))
    lines.sort(key=lambda x: x[0])
    syslog = "\n".join(f"{_syslog_time(t)} {n} {m}" for t, n, m in lines) + "\n"
    truth = {"segments": segs, "faults": faults, "latency_s": np.array(lat), "gaps_s": np.array(gaps)}
    return "\n".join(rows) + "\n", syslog, truth


def walk_ettr(segs, fault_at, tau, delta, startup):
    """Useful share of wall time: work from start+startup until the fault (or the end), checkpoint every tau."""
    useful = 0.0
    for (s, e, state), f in zip(segs, fault_at):
        stop = f if state == "NODE_FAIL" else e
        t, saved = s + startup, 0.0
        while t + tau + delta <= stop:
            t += tau + delta
            saved += tau
        useful += saved if state == "NODE_FAIL" else saved + max(stop - t, 0.0)
    return useful / (segs[-1][1] - segs[0][0])


@pytest.fixture(scope="module")
def run_and_kernel():
    sacct, syslog, truth = scenario()
    return read_sacct(sacct, job="train"), read_xid(syslog, year=2024), truth, syslog


def test_the_generator_has_a_rising_rate_and_enough_faults(run_and_kernel):
    *_, truth, _ = run_and_kernel
    t = np.array([f for f, _ in truth["faults"]], float)
    assert len(t) >= 20
    assert (t < 20 * 86400).sum() < (t >= 20 * 86400).sum()   # more faults in the second half


def test_restart_is_measured_from_the_requeue_gaps(run_and_kernel):
    run, _, truth, _ = run_and_kernel
    r = run.restart()
    assert r.n == truth["gaps_s"].size
    assert r.median_h * 3600 == pytest.approx(np.median(truth["gaps_s"]), abs=1e-6)
    assert r.lo_h <= r.median_h <= r.hi_h and "measured from the log" in r.text()


def test_every_interruption_is_matched_to_its_fault_with_the_true_latency(run_and_kernel):
    run, kern, truth, _ = run_and_kernel
    j = join_kernel(run, kern)
    assert j.n_interruptions == j.n_matched == len(truth["faults"])
    assert j.matches["node"].tolist() == [n for _, n in truth["faults"]]
    assert np.allclose(j.matches["latency_h"].to_numpy() * 3600, truth["latency_s"], atol=1e-6)
    assert j.detection_latency_h * 3600 == pytest.approx(np.median(truth["latency_s"]), abs=1e-6)
    assert j.latency_lo_h <= j.detection_latency_h <= j.latency_hi_h
    assert j.causes()["cause"].tolist() == ["GPU has fallen off the bus"]


@pytest.mark.parametrize("tau_h, delta_min, startup_min", [(1.0, 3, 5), (0.5, 1, 0), (2.0, 6, 10)])
def test_backtest_stops_progress_at_the_fault(run_and_kernel, tau_h, delta_min, startup_min):
    run, kern, truth, _ = run_and_kernel
    segs = truth["segments"]
    fault_at = [f for f, _ in truth["faults"]] + [None]
    tau, delta, startup = tau_h * 3600, delta_min * 60, startup_min * 60
    want = walk_ettr(segs, fault_at, tau, delta, startup)
    hung = walk_ettr(segs, [e for _, e, _ in segs], tau, delta, startup)   # the hang counted as work
    b = backtest(run, tau_h, f"{delta_min}min", startup=f"{startup_min}min", kernel=kern)
    assert b.observed_ettr == pytest.approx(want, abs=1e-9)
    assert backtest(run, tau_h, f"{delta_min}min", startup=f"{startup_min}min").observed_ettr == \
        pytest.approx(hung, abs=1e-9)
    assert b.matched == len(truth["faults"])
    assert b.detection_latency_h * 3600 == pytest.approx(np.median(truth["latency_s"]), abs=1e-6)


def test_a_folder_read_in_parallel_equals_the_serial_read(run_and_kernel, tmp_path):
    *_, syslog = run_and_kernel
    by = {}
    for ln in syslog.splitlines():
        by.setdefault(ln.split()[3], []).append(ln)
    for i, (node, lines) in enumerate(sorted(by.items())):
        data = ("\n".join(lines) + "\n").encode()
        name, blob = [(f"{node}.log", data), (f"{node}.log.gz", gzip.compress(data)),
                      (f"{node}.log.xz", lzma.compress(data))][i % 3]
        (tmp_path / name).write_bytes(blob)
    serial = read_xid(syslog, year=2024)
    one = read_xid_folder(tmp_path, year=2024, jobs=1)
    two = read_xid_folder(tmp_path, year=2024, jobs=2)
    cols = ["start_h", "end_h", "node", "cause"]
    for log in (one, two):
        assert log.events[cols].reset_index(drop=True).equals(serial.events[cols].reset_index(drop=True))
        assert log.n_nodes == serial.n_nodes == 16 and log.origin == serial.origin


def test_the_source_of_a_slurm_run_carries_its_measured_restart(run_and_kernel, tmp_path):
    from relmodel import load_source
    sacct, _, truth = scenario()
    path = tmp_path / "sacct.txt"
    path.write_text(sacct)
    src = load_source(str(path), format="sacct", job="train")
    r = src.measured_restart
    assert r.n == truth["gaps_s"].size and r.median_h * 3600 == pytest.approx(np.median(truth["gaps_s"]), abs=1e-6)
    assert load_source("llama3").measured_restart is None


def test_a_folder_read_on_a_dask_cluster_equals_the_serial_read(run_and_kernel, tmp_path):
    from dask import distributed
    *_, syslog = run_and_kernel
    by = {}
    for ln in syslog.splitlines():
        by.setdefault(ln.split()[3], []).append(ln)
    for node, lines in by.items():
        (tmp_path / f"{node}.log").write_text("\n".join(lines) + "\n")
    serial = read_xid(syslog, year=2024)
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
        log = read_xid_folder(tmp_path, year=2024, client=client, progress=True)
    cols = ["start_h", "end_h", "node", "cause"]
    assert log.events[cols].reset_index(drop=True).equals(serial.events[cols].reset_index(drop=True))
