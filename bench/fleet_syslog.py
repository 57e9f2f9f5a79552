"""A realistic RFC 3164 syslog of a GPU fleet, with its truth, for bench_xid.py and the kernel-log tests.

The mix is that of GPU hosts under a scheduler: a dozen daemons (systemd, logind, cron, sshd, pam,
slurmd and slurmstepd, kubelet, containerd, chronyd, DCGM's nv-hostengine), kernel chatter (mlx5,
nvme timeouts, EDAC corrected errors, NVRM lines that are not Xids, audit, perf), application Xids
13/31/43/45 on any GPU, hardware Xids (79, 48, 74, 94, 119) in bursts of 2-8 lines on one GPU, most
followed by a boot, and planned reboots with clean shutdown lines.  Host names have several lengths;
kernel lines are about a fifth of all lines.  The log is written day by day (bounded memory).

``write_fleet_syslog(path, size_mb=...)`` returns the truth: lines, Xid lines per code, boots, hosts,
and each host's last line (its 1-based number and time), counted while writing.
"""

import numpy as np
import pandas as pd

__all__ = ["write_fleet_syslog", "host_names"]

CHATTER = [  # (tag, message template, weight); {n} a number, {ip} an address
    ("systemd[1]", "Started Session {n} of User slurm.", 8),
    ("systemd[1]", "session-{n}.scope: Deactivated successfully.", 6),
    ("systemd[1]", "Starting Cleanup of Temporary Directories...", 1),
    ("systemd-logind[1622]", "New session {n} of user root.", 4),
    ("systemd-logind[1622]", "Removed session {n}.", 4),
    ("CRON[{n}]", "(root) CMD (/usr/local/sbin/gpu-health-check --quiet >/dev/null 2>&1)", 6),
    ("sshd[{n}]", "Accepted publickey for slurm from 10.12.{n8}.{n8} port {n} ssh2: ED25519 SHA256:q5c0Xv3", 3),
    ("sshd[{n}]", "pam_unix(sshd:session): session opened for user slurm(uid=991) by (uid=0)", 3),
    ("sshd[{n}]", "pam_unix(sshd:session): session closed for user slurm", 3),
    ("slurmd[2211]", "slurmd: launch task StepId={n}.0 request from UID:1000 GID:1000 HOST:10.12.0.1 PORT:{n}", 8),
    ("slurmstepd[{n}]", "slurmstepd: done with job {n}", 6),
    ("slurmstepd[{n}]", "slurmstepd: task/cgroup: _memcg_initialize: job: alloc=2048000MB mem.limit=2048000MB", 4),
    ("kubelet[3110]", 'I1201 10:{n2}:{n2}.{n}  3110 kubelet_volumes.go:160] "Cleaned up orphaned pod volumes dir" '
                      'podUID="{n}-4c1e"', 6),
    ("containerd[1480]", 'time="2024-12-01T10:00:00.{n}Z" level=info msg="shim disconnected" id={n}', 5),
    ("chronyd[812]", "Selected source 10.12.0.{n8} (ntp{n8}.cluster.example)", 2),
    ("nv-hostengine[2702]", "DCGM health check passed for GPU {g}: no errors, {n} ms", 6),
    ("kernel:", "[{n}.{n}] mlx5_core 0000:0c:00.0: mlx5_fw_tracer_handle_traces:771: FWTracer: Event {n}", 8),
    ("kernel:", "[{n}.{n}] nvme nvme0: I/O {n} QID 3 timeout, completion polled", 2),
    ("kernel:", "[{n}.{n}] EDAC MC0: 1 CE memory read error on CPU_SrcID#0_MC#0_Chan#1_DIMM#0 (channel:1)", 3),
    ("kernel:", "[{n}.{n}] NVRM: GPU at PCI:0000:{bus}:00: GPU-4f5c9a6e-1b2d-7d1c-aa3e-{n}", 2),
    ("kernel:", "[{n}.{n}] NVRM: GPU Board Serial Number: 1650{n}", 1),
    ("kernel:", '[{n}.{n}] audit: type=1400 audit({n}.123:{n}): apparmor="DENIED" operation="open" '
                'profile="snap.lxd" name="/proc/{n}/mounts" pid={n}', 4),
    ("kernel:", "[{n}.{n}] perf: interrupt took too long ({n} > 2500), lowering kernel.perf_event_max_sample_rate "
                "to 79000", 1),
    ("kernel:", "[{n}.{n}] mlx5_core 0000:0c:00.0 ibp12s0: Link up, speed 400G", 1),
]
BUSES = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]  # eight GPUs per node
APP = {13: "Graphics SM Warp Exception on (GPC 1, TPC 2, SM 0): Out Of Range Address",
       31: "Ch 00000008, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f2c_0a2b9000",
       43: "Ch 00000010, pid={n}, name=python, Ch 00000010", 45: "Ch 00000010, pid={n}, name=python, Ch 00000010"}
HW = {79: "GPU has fallen off the bus.", 48: "An uncorrectable double bit error (DBE) has been detected on GPU",
      74: "NVLink: fatal error detected on link {l}(0x0, 0x0, 0x10000, 0x0)", 94: "Contained: SM (0x1). RST: No",
      119: "Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL)"}
BOOT = "[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) (x86_64-linux-gnu-gcc-13) #45-Ubuntu SMP"
SHUTDOWN = [("systemd[1]", "Stopping Slurm node daemon..."),
            ("systemd-shutdown[1]", "Syncing filesystems and block devices."),
            ("kernel:", "[{n}.{n}] reboot: Restarting system")]


def host_names(nodes):
    """Names of several lengths: gpu0001, node-00002, dgxh100-r00-n03, gpu-node-000004.cluster.local."""
    out = []
    for i in range(1, nodes + 1):
        k = i % 4
        out.append(f"gpu{i:04d}" if k == 0 else f"node-{i:05d}" if k == 1 else
                   f"dgxh100-r{i // 32:02d}-n{i % 32:02d}" if k == 2 else f"gpu-node-{i:06d}.cluster.local")
    return out


def _stamp(t):
    return pd.Series(t.strftime("%b %d %H:%M:%S")).str.replace(r"^(\w{3}) 0", r"\1  ", regex=True).to_numpy(object)


def write_fleet_syslog(path, size_mb=1000.0, *, nodes=2048, days=30, seed=0, start="2024-12-15", hw_per_node_day=0.02,
                       app_share=0.004, daily=None):
    """Write the log; returns a dict of truth (see the module docstring).  ``daily``: a folder that gets the
    same lines as one file per day (``syslog-YYYYMMDD``) too."""
    rng = np.random.default_rng(seed)
    names = np.array(host_names(nodes), object)
    n_total = int(size_mb * 1e6 / 118)  # about 118 bytes a line
    per_day = n_total // days
    weights = np.array([w for *_, w in CHATTER], float)
    weights /= weights.sum()
    t0 = pd.Timestamp(start)
    # hardware bursts (and the boots after most of them), planned reboots: drawn up front, written by day
    n_hw = rng.poisson(hw_per_node_day * nodes * days)
    hw_t = np.sort(rng.uniform(0, days * 86400 - 4 * 3600, n_hw))
    hw_node = rng.integers(nodes, size=n_hw)
    n_plan = rng.poisson(0.01 * nodes * days)
    plan_t = rng.uniform(0, days * 86400 - 3600, n_plan)
    plan_node = rng.integers(nodes, size=n_plan)
    special = []  # (second, host index, tag, message)
    for j in range(nodes):
        special.append((0, j, "kernel:", BOOT))
    for t, j in zip(hw_t.tolist(), hw_node.tolist()):
        code = int(rng.choice(list(HW)))
        bus = BUSES[int(rng.integers(8))]
        for k in range(int(rng.integers(2, 9))):
            msg = f"NVRM: Xid (PCI:0000:{bus}:00): {code}, pid={rng.integers(1000, 99999)}, " \
                  + HW[code].format(l=k)
            special.append((int(t) + k * int(rng.integers(0, 20)), j, "kernel:", f"[{int(t)}.{k}] " + msg))
        if rng.random() < 0.8:
            special.append((int(t + rng.uniform(600, 3 * 3600)), j, "kernel:", BOOT))
    for t, j in zip(plan_t.tolist(), plan_node.tolist()):
        for k, (tag, msg) in enumerate(SHUTDOWN):
            special.append((int(t) + k, j, tag, msg.format(n=int(rng.integers(1, 99999)))))
        special.append((int(t) + int(rng.integers(120, 600)), j, "kernel:", BOOT))
    special.sort(key=lambda x: x[0])
    sp_t = np.array([s[0] for s in special])
    truth = {"lines": 0, "xid": {}, "boots": 0, "hosts": set(), "last": {}, "kernel": 0}
    line = 0
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for d in range(days):
            n = per_day
            t = np.sort(rng.uniform(d * 86400, (d + 1) * 86400, n)).astype(np.int64)
            host = rng.integers(nodes, size=n)
            pick = rng.choice(len(CHATTER), n, p=weights)
            app = rng.random(n) < app_share
            num = rng.integers(100, 999999, size=n)
            msgs = np.empty(n, object)
            tags = np.empty(n, object)
            for i in range(n):
                p, k = int(pick[i]), int(num[i])
                if app[i]:
                    code = (13, 31, 43, 45)[k % 4]
                    tags[i] = "kernel:"
                    msgs[i] = f"[{k}.{k % 1000}] NVRM: Xid (PCI:0000:{BUSES[k % 8]}:00): {code}, pid={k}, " \
                              f"name=python, " + APP[code].format(n=k)
                    continue
                tag, tmpl, _ = CHATTER[p]
                tags[i] = tag.format(n=k)
                msgs[i] = tmpl.format(n=k, n8=k % 250, n2=k % 60, g=k % 8, bus=BUSES[k % 8])
            a, b = np.searchsorted(sp_t, [d * 86400, (d + 1) * 86400])
            if b > a:
                extra = special[a:b]
                t = np.concatenate([t, sp_t[a:b]])
                host = np.concatenate([host, [s[1] for s in extra]])
                tags = np.concatenate([tags, np.array([s[2] for s in extra], object)])
                msgs = np.concatenate([msgs, np.array([s[3] for s in extra], object)])
                order = np.argsort(t, kind="stable")
                t, host, tags, msgs = t[order], host[order], tags[order], msgs[order]
            stamps = _stamp(t0 + pd.to_timedelta(t, unit="s"))
            hn = names[host]
            lines = [f"{s} {h} {g} {m}\n" for s, h, g, m in zip(stamps, hn, tags, msgs)]
            fh.write("".join(lines))
            if daily is not None:
                day = (t0 + pd.Timedelta(days=d)).strftime("%Y%m%d")
                with open(f"{daily}/syslog-{day}", "w", encoding="utf-8", newline="\n") as out:
                    out.write("".join(lines))
            _count(truth, line, t, hn, tags, msgs, t0)
            line += len(lines)
    truth["lines"] = line
    return truth


def _count(truth, line, t, hn, tags, msgs, t0):
    kern = tags == "kernel:"
    truth["kernel"] += int(kern.sum())
    for m in msgs[kern]:
        if "NVRM: Xid" in m:
            code = int(m.split("): ")[1].split(",")[0])
            truth["xid"][code] = truth["xid"].get(code, 0) + 1
        elif "Linux version" in m:
            truth["boots"] += 1
    last = pd.Series(np.arange(len(hn)), index=hn).groupby(level=0).max()
    for h, i in last.items():
        truth["last"][h] = (line + int(i) + 1, t0 + pd.Timedelta(seconds=int(t[i])))
    truth["hosts"].update(last.index)
