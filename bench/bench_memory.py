"""Peak memory of a default ``relmodel report --jobs 2`` over all its processes.

How it measures: the command runs in a subprocess (its own temporary folder,
a report folder of its own); every 0.2 s this script lists the command's
process tree from ``/proc`` (every process whose chain of parents reaches
the command: the zygote and the kernels it forks, and any worker processes)
and sums each process's PSS (proportional set size, ``/proc/PID/smaps_rollup``):
a page shared by several processes (what a fork keeps of its parent) is
counted once over all of them, so the sum is the memory the report costs
the machine. The peak of that sum is compared with the target of 600 MB
(10^6 bytes). The RSS sum (which counts each shared page once per process)
is printed beside it, with the processes alive at the peak, by kind, and the
most processes alive at once. Linux only.

Measured on the 2-core development machine: 815 MB (RSS sum 1,262 MB) when each
worker was a process forked from a fork server (a fork server, 2 workers, a
zygote, 2 kernels); 536-558 MB (RSS sum 930 MB) with the workers as threads
of the command and the zygote's imports frozen before it forks (``--jobs 1``: 449 MB); 583-612 MB once the
designs page priced the measured (longer) repairs, whose simulated check then held half a million parts in
repair (116 MB in one kernel), and 524 MB with that check capped at a quarter of a million.

Usage: python bench/bench_memory.py [--jobs N] [-- EXTRA report ARGUMENTS]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import Targets  # noqa: E402

#: Peak PSS over the report's processes that a default report on 2 workers must stay under, in MB.
TARGET_MB = 600
#: Seconds between samples.
INTERVAL_S = 0.2


def _children():
    """{pid: parent pid} for every process on the machine."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    return parents


def tree(root):
    """The pids of ``root`` and every process descending from it."""
    parents, found = _children(), {root}
    grew = True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in found and pid not in found}
        found |= more
        grew = bool(more)
    return found


def _kind(pid):
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "gone"
    for needle, kind in (("zygote_main", "zygote or forked kernel"), ("ipykernel", "kernel"),
                         ("forkserver", "fork server or worker"), ("resource_tracker", "resource tracker"),
                         ("-m relmodel", "relmodel command")):
        if needle in cmd:
            return kind
    return cmd[:40]


def memory(pid):
    """(PSS, RSS) of ``pid`` in bytes (zeros when it has ended)."""
    values = {}
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            parts = line.split()
            if parts and parts[0] in ("Pss:", "Rss:"):
                values[parts[0]] = int(parts[1]) * 1024
    except (OSError, ValueError):
        return 0, 0
    return values.get("Pss:", 0), values.get("Rss:", 0)


def measure(argv, env):
    """Run ``argv``; return (peak PSS, peak RSS, processes at the PSS peak, most processes at once, exit code)."""
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak, peak_rss, at_peak, most = 0, 0, {}, 0
    while proc.poll() is None:
        sample = {pid: memory(pid) for pid in tree(proc.pid)}
        pss = sum(p for p, _ in sample.values())
        most = max(most, len(sample))
        peak_rss = max(peak_rss, sum(r for _, r in sample.values()))
        if pss > peak:
            peak, at_peak = pss, {pid: (_kind(pid), p) for pid, (p, _) in sample.items()}
        time.sleep(INTERVAL_S)
    err = proc.stderr.read()
    return peak, peak_rss, at_peak, most, proc.returncode, err


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="the same measurement (run_all.py passes it on)")
    parser.add_argument("extra", nargs="*", help="more arguments of relmodel report")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               "TMPDIR": tmp}
        argv = [sys.executable, "-m", "relmodel", "report", "-q", "--jobs", str(args.jobs),
                "--out", os.path.join(tmp, "report"), *args.extra]
        peak, peak_rss, at_peak, most, code, err = measure(argv, env)
    print(__doc__.split("\n\n")[1].replace("\n", " "))
    print(f"command: relmodel report --jobs {args.jobs} {' '.join(args.extra)} (exit {code})")
    if code != 0:
        print(err.strip()[-2000:])
    kinds = {}
    for kind, pss in at_peak.values():
        count, total = kinds.get(kind, (0, 0))
        kinds[kind] = (count + 1, total + pss)
    print(f"at the peak: {len(at_peak)} processes; most at once: {most}")
    for kind, (count, total) in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
        print(f"  {count} x {kind}: {total / 1e6:,.0f} MB PSS")
    print(f"peak RSS sum (shared pages counted once per process): {peak_rss / 1e6:,.0f} MB")
    targets = Targets("memory")
    targets.add(f"peak PSS over all processes, --jobs {args.jobs} (MB)", peak / 1e6, TARGET_MB, unit="MB",
                higher=False)
    return targets.report() or (1 if code != 0 else 0)


if __name__ == "__main__":
    sys.exit(main())
