"""Synthetic Slurm exports and kernel logs with known truth, for tests, examples and benchmarks.

:func:`synthetic_sacct` writes the ``sacct -P`` export of one long training
run on a cluster (with step rows, requeued segments, an array job, a job
cancelled by its user, tasks that never started and a last segment still
running) and returns what the reader must recover.  :func:`synthetic_syslog`
writes an RFC 3164 syslog of a GPU cluster whose nodes fail at known
per-cause rates (with Xid bursts, 48 followed by 63, application and
corrected Xids, unrelated lines from every node, reboots that end outages
and a year boundary) and returns the truth likewise.

Failures follow exponential laws (a Poisson process per node and cause), so
the true rates are those given; a node is repaired (rebooted) before it can
fail again.  Every number drawn comes from ``numpy.random.default_rng(seed)``.
"""

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...base.outputs import write_output
from .nodelist import compress_nodelist

__all__ = ["synthetic_sacct", "synthetic_syslog", "kernel_faults", "from_settings", "SyntheticTruth", "NODE_RATES"]

#: Default per-node outage rates (per hour) of :func:`synthetic_syslog`, by what the log shows;
#: together one outage per 5,504 node-hours.
NODE_RATES = {"xid79": 1 / 25_000, "xid48": 1 / 40_000, "xid74": 1 / 40_000, "xid94": 1 / 60_000,
              "xid119": 1 / 60_000, "nic_down": 1 / 60_000, "edac_ue": 1 / 120_000, "psu": 1 / 120_000,
              "reboot": 1 / 40_000}


@dataclass
class SyntheticTruth:
    """What a generator wrote: the text (or path), counts by cause and the exposure."""

    text: str
    counts: dict
    hours: float
    n_nodes: int
    extra: dict = field(default_factory=dict)
    path: object = None


def _write(text, path):
    """Write ``text`` to a new file ``path`` (never over a file, never through a link); None when no path."""
    if path is None:
        return None
    return write_output(path, text, "path=")


def _iso(t0, h):
    return (t0 + pd.Timedelta(hours=float(h))).strftime("%Y-%m-%dT%H:%M:%S")


def _segments(rng, hours_total, job_rate_nf, job_rate_f, time_limit_h, requeue_share):
    """(start_h, end_h, state, requeued-next) of one run until ``hours_total``."""
    t, out = 0.0, []
    rate = job_rate_nf + job_rate_f
    while True:
        wait = rng.exponential(1 / rate)
        if t + min(wait, time_limit_h) >= hours_total:
            out.append((t, hours_total, "RUNNING", False))
            return out
        state = "TIMEOUT" if wait >= time_limit_h else ("NODE_FAIL" if rng.random() < job_rate_nf / rate else "FAILED")
        end = t + min(wait, time_limit_h)
        out.append((t, end, state, state == "NODE_FAIL" and rng.random() < requeue_share))
        t = end + rng.uniform(0.05, 1.0)  # restart gap


def synthetic_sacct(path=None, *, seed=None, days=60, nodes=1000, node_mtbf_h=5540.0, failed_share=0.3,
                    time_limit_h=48.0, requeue_share=0.4, start="2024-03-01", job="pretrain"):
    """The ``sacct -P`` export of a run of ``nodes`` nodes over ``days``; returns a :class:`SyntheticTruth`.

    The run's interruptions arrive at ``nodes / node_mtbf_h`` per hour: a
    share ``failed_share`` end FAILED (exit 1), the rest NODE_FAIL (the failed
    node is then replaced by a spare, so the node list gains a bracket group).
    Segments reaching ``time_limit_h`` end TIMEOUT (not interruptions).
    ``counts`` holds interruptions by state; ``extra`` the segments, the
    running hours, the wall hours, the distinct nodes, the restart gaps and
    ``node_fails``: (hours from ``start`` to the NODE_FAIL end, failed node) of
    each NODE_FAIL (see :func:`kernel_faults`).

    Examples
    --------
    >>> truth = synthetic_sacct(days=10, nodes=100, seed=1)
    >>> sorted(truth.counts), truth.n_nodes >= 100
    (['FAILED', 'NODE_FAIL'], True)
    """
    rng = np.random.default_rng(seed)
    t0 = pd.Timestamp(start)
    rate = nodes / node_mtbf_h
    segs = _segments(rng, days * 24.0, rate * (1 - failed_share), rate * failed_share, time_limit_h, requeue_share)
    names = [f"gpu{i:04d}" for i in range(1, nodes + 1)]
    spare = nodes + 1
    rows = ["JobID|JobName|State|ExitCode|Start|End|Elapsed|NNodes|NodeList"]
    job_id, seen, gaps, node_fails = 5000, set(), [], []
    for k, (s, e, state, requeued) in enumerate(segs):
        nl = compress_nodelist(names)
        seen.update(names)
        code = "1:0" if state == "FAILED" else ("0:15" if state == "TIMEOUT" else "0:0")
        end = "Unknown" if state == "RUNNING" else _iso(t0, e)
        el = e - s
        elapsed = f"{int(el // 24)}-{int(el % 24):02d}:{int(el * 60 % 60):02d}:{int(el * 3600 % 60):02d}"
        rows.append(f"{job_id}|{job}|{state}|{code}|{_iso(t0, s)}|{end}|{elapsed}|{nodes}|{nl}")
        rows.append(f"{job_id}.batch|batch|{'CANCELLED' if state != 'RUNNING' else 'RUNNING'}|0:15|{_iso(t0, s)}|"
                    f"{end}|{elapsed}|1|{names[0]}")
        rows.append(f"{job_id}.extern|extern|COMPLETED|0:0|{_iso(t0, s)}|{end}|{elapsed}|{nodes}|{nl}")
        rows.append(f"{job_id}.0|python|FAILED|1:0|{_iso(t0, s)}|{end}|{elapsed}|{nodes}|{nl}")
        if state == "NODE_FAIL":
            failed = int(rng.integers(nodes))
            node_fails.append((e, names[failed]))
            names[failed] = f"gpu{spare:04d}"
            spare += 1
        if k + 1 < len(segs) and state in ("NODE_FAIL", "FAILED"):
            gaps.append(segs[k + 1][0] - e)
        if not requeued:
            job_id += 1
    rows += _other_jobs(t0, rng)
    counts = {st: sum(1 for s in segs if s[2] == st) for st in ("NODE_FAIL", "FAILED")}
    running = sum(e - s for s, e, _, _ in segs)
    text = "\n".join(rows) + "\n"
    extra = {"segments": len(segs), "running_h": running, "wall_h": segs[-1][1], "gaps_h": gaps,
             "timeouts": sum(1 for s in segs if s[2] == "TIMEOUT"), "node_fails": node_fails}
    return SyntheticTruth(text, counts, days * 24.0, len(seen), extra, _write(text, path))


def _other_jobs(t0, rng):
    """An array job of three tasks, a job cancelled by its user and array tasks that never started."""
    rows = []
    for task in (1, 2, 3):
        s = 24.0 * task
        rows.append(f"7001_{task}|sweep|{'NODE_FAIL' if task == 2 else 'COMPLETED'}|0:0|{_iso(t0, s)}|"
                    f"{_iso(t0, s + 2)}|02:00:00|2|cpu[01-02]")
        rows.append(f"7001_{task}.batch|batch|COMPLETED|0:0|{_iso(t0, s)}|{_iso(t0, s + 2)}|02:00:00|1|cpu01")
    rows.append(f"7002|notebook|CANCELLED by 1234|0:0|{_iso(t0, 30)}|{_iso(t0, 31)}|01:00:00|1|cpu03")
    rows.append("7003_[4-9]|sweep|PENDING|0:0|Unknown|Unknown|00:00:00|2|None assigned")
    return rows


_BUS = ["0000:18:00", "0000:2a:00", "0000:3a:00", "0000:5d:00", "0000:9a:00", "0000:ab:00", "0000:ba:00",
        "0000:db:00"]
_MSG = {79: "GPU has fallen off the bus.", 48: "An uncorrectable double bit error (DBE) has been detected.",
        74: "NVLink: fatal error detected on link {link}", 94: "Contained: SM (0x1). RST: No, D-RST: No",
        119: "Timeout after 6s of waiting for RPC response from GPU0 GSP!", 63: "Row Remapper: New row marked",
        13: "Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0)", 31: "Ch 00000008, intr 10000000. MMU Fault",
        92: "High single-bit ECC error rate", 999: "code the table does not know"}
_NOISE = ["systemd[1]: Started Session {n} of User slurm.", "kernel: EXT4-fs (nvme0n1p2): re-mounted. Opts: (null)",
          "slurmd[2211]: launch task StepId={n}.0 request from UID:1000", "kernel: nvme nvme0: I/O 12 QID 3 timeout",
          "chronyd[812]: Selected source 10.0.0.1", "kernel: mlx5_core 0000:0c:00.0: Port module event: plugged"]


def _incident(rng, kind, host):
    """(offset seconds, message) lines of one outage of ``kind``, its component and whether a reboot ends it."""
    gpu = _BUS[int(rng.integers(len(_BUS)))]
    xid = lambda code, extra="": f"kernel: NVRM: Xid (PCI:{gpu}): {code}, pid={int(rng.integers(900, 99_999))}, " \
                                 + (extra or _MSG[code])
    if kind == "xid74":
        return [(k, xid(74, _MSG[74].format(link=k))) for k in range(int(rng.integers(2, 7)))], True
    if kind == "xid48":
        return [(0, xid(48)), (1, xid(63))], True
    if kind.startswith("xid"):
        code = int(kind[3:])
        return [(0, xid(code))] + ([(2, xid(code))] if code == 79 else []), True
    if kind == "nic_down":
        return [(0, "kernel: mlx5_core 0000:0c:00.0 ibp12s0: Link down"), (90, "kernel: mlx5_core 0000:0c:00.0 "
                                                                                "ibp12s0: Link up")], False
    if kind == "edac_ue":
        return [(0, "kernel: EDAC MC1: 1 UE memory read error on CPU_SrcID#1_MC#0_Chan#2_DIMM#0")], True
    if kind == "psu":
        return [(0, "kernel: ipmi_si: Power Supply PS2 failure detected, AC lost")], True
    return [], True  # an unexpected reboot writes only its boot line


def _node_lines(rng, host, hours_total, rates, noise_per_day):
    """(hours, text) lines of one node, and its outages by cause."""
    lines = [(0.0, "kernel: Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP")]
    counts = dict.fromkeys(rates, 0)
    kinds, p = list(rates), np.array(list(rates.values())) / sum(rates.values())
    t = 0.0
    while True:
        t += rng.exponential(1 / sum(rates.values()))
        if t >= hours_total:
            break
        kind = kinds[int(rng.choice(len(kinds), p=p))]
        counts[kind] += 1
        msgs, reboot = _incident(rng, kind, host)
        lines += [(t + sec / 3600, m) for sec, m in msgs]
        repair = rng.uniform(0.5, 3.0) if kind != "reboot" else 0.0
        if reboot:
            lines.append((t + repair, "kernel: Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP"))
        t += max(repair, 0.1)
    n = rng.poisson(noise_per_day * hours_total / 24)
    at, which, num = rng.uniform(0, hours_total, n), rng.integers(len(_NOISE), size=n), rng.integers(1, 9999, size=n)
    lines += [(h, _NOISE[w].format(n=k)) for h, w, k in zip(at.tolist(), which.tolist(), num.tolist())]
    return lines, counts


def kernel_faults(truth, *, seed=None, latency_min=(5.0, 30.0)):
    """The kernel faults behind a :func:`synthetic_sacct` run's NODE_FAIL ends, for :func:`synthetic_syslog`.

    Each NODE_FAIL of ``truth`` gets a fault on the node that failed, a detection latency before the
    job ended (drawn uniformly in ``latency_min`` minutes): ``[(hours, node), ...]`` from the run's start.

    Examples
    --------
    >>> run = synthetic_sacct(days=10, nodes=100, seed=1)
    >>> faults = kernel_faults(run, seed=2)
    >>> len(faults) == run.counts["NODE_FAIL"]
    True
    """
    rng = np.random.default_rng(seed)
    lo, hi = latency_min
    return [(end - rng.uniform(lo, hi) / 60.0, node) for end, node in truth.extra["node_fails"]]


def _planted(rng, faults):
    """(hours, "host message") lines of planted faults: an Xid 79 (twice, as the bus drop repeats), then a boot."""
    lines = []
    for h, host in faults:
        gpu = _BUS[int(rng.integers(len(_BUS)))]
        pid = int(rng.integers(900, 99_999))
        xid = f"{host} kernel: NVRM: Xid (PCI:{gpu}): 79, pid={pid}, {_MSG[79]}"
        lines += [(h, xid), (h + 2 / 3600, xid),
                  (h + rng.uniform(0.5, 3.0), f"{host} kernel: Linux version 6.8.0-45-generic (buildd@lcy02) "
                                              "#45-Ubuntu SMP")]
    return lines


def synthetic_syslog(path=None, *, seed=None, days=60, nodes=1000, rates=None, noise_per_day=2.0,
                     app_per_day=0.01, start="2024-12-01", faults=(), faults_seed=None):
    """An RFC 3164 syslog of ``nodes`` GPU nodes over ``days``; returns a :class:`SyntheticTruth`.

    ``rates`` maps causes to per-node rates per hour (default :data:`NODE_RATES`:
    Xid 79, 48, 74, 94, 119, NIC link down, EDAC uncorrected, power supply and
    unexpected reboots).  Application and corrected Xids (13, 31, 92) arrive
    at ``app_per_day`` per node-day and one unknown Xid (999) is written;
    ``counts`` holds outages by cause (the unknown Xid under "xid999").  The
    default start, 1 December, puts a year boundary in a 60-day log.
    ``faults`` (``[(hours, node), ...]``, e.g. :func:`kernel_faults` of a Slurm
    run that starts at the same ``start``) plants an Xid 79 and a later boot on
    each, drawn from ``faults_seed``; ``counts["planted"]`` says how many.

    Examples
    --------
    >>> truth = synthetic_syslog(days=5, nodes=20, seed=2)
    >>> truth.text.splitlines()[0]
    'Dec  1 00:00:00 gpu0001 kernel: Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP'
    """
    rng = np.random.default_rng(seed)
    rates = dict(NODE_RATES if rates is None else rates)
    hours_total = days * 24.0
    all_t, all_m, counts = [], [], dict.fromkeys(rates, 0)
    for i in range(1, nodes + 1):
        host = f"gpu{i:04d}"
        lines, c = _node_lines(rng, host, hours_total, rates, noise_per_day)
        for k, v in c.items():
            counts[k] += v
        for code in rng.choice([13, 31, 92], rng.poisson(app_per_day * days)):
            gpu = _BUS[int(rng.integers(len(_BUS)))]
            lines.append((rng.uniform(0, hours_total), f"kernel: NVRM: Xid (PCI:{gpu}): {code}, pid=4242, "
                          + _MSG[int(code)]))
        all_t += [t for t, _ in lines]
        all_m += [f"{host} {m}" for _, m in lines]
    if faults:
        planted = _planted(np.random.default_rng(faults_seed), faults)
        all_t += [t for t, _ in planted]
        all_m += [m for _, m in planted]
        counts["planted"] = len(faults)
    all_t.append(hours_total - 1e-3)  # last, so no reboot that it could absorb follows it
    all_m.append(f"gpu0001 kernel: NVRM: Xid (PCI:{_BUS[0]}): 999, pid=1, {_MSG[999]}")
    counts["xid999"] = 1
    order = np.argsort(np.asarray(all_t), kind="stable")
    stamps = (pd.Timestamp(start) + pd.to_timedelta(np.asarray(all_t)[order].round(6), unit="h")).floor("s")
    head = pd.Series(stamps.strftime("%b %d %H:%M:%S")).str.replace(r"^(\w{3}) 0", r"\1  ", regex=True)
    text = "\n".join(h + " " + all_m[j] for h, j in zip(head, order)) + "\n"
    return SyntheticTruth(text, counts, hours_total, nodes, {"rates": rates}, _write(text, path))


def from_settings(settings):
    """Each file a ``settings.json`` of generated examples describes: ``{name: SyntheticTruth}``, in its order.

    Each entry names its ``generator`` and that generator's arguments; a syslog's ``faults`` may be
    ``{"from": <an earlier sacct entry>, "seed": ..., "latency_min": [lo, hi]}``: the
    :func:`kernel_faults` of that run (how ``data/ops-example/syslog`` is joined to its ``sacct.txt``).
    """
    made = {}
    for name, kw in settings.items():
        kw = dict(kw)
        make = globals()[kw.pop("generator")]
        if isinstance(kw.get("faults"), dict):
            spec = dict(kw["faults"])
            kw["faults"] = kernel_faults(made[spec.pop("from")], **spec)
        made[name] = make(**kw)
    return made
