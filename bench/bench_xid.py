"""A 10^6-line syslog: read_xid against the plain pandas reading one would write instead.

Generates an RFC 3164 syslog of 1,000 GPU nodes over 60 days with about
``--lines`` lines (default 1,000,000; nearly all of them unrelated kernel and
service lines, as in a real cluster log) in a temporary folder (deleted
afterwards), then times:

* relmodel: ``read_xid`` (sniffing, every host counted, Xid and other kernel
  events classified, bursts merged, reboots paired);
* plain pandas: ``Series.str.contains`` to keep the Xid lines,
  ``str.extract`` of time, host, PCI id and code, ``to_datetime`` with the
  year, and a count per code (no bursts, reboots, other events or host count).

Run: ``python bench/bench_xid.py [--lines N]``.  Prints seconds for each, the
ratio, and whether read_xid recovered the generator's outage count exactly.
The target is under 10 s for 10^6 lines on one core.
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import Targets, once  # noqa: E402
from relmodel import read_xid  # noqa: E402
from relmodel.data.synthetic_ops import synthetic_syslog  # noqa: E402


def plain_pandas(path, year):
    """Xid lines per code, the way a short pandas script reads a syslog."""
    lines = pd.Series(Path(path).read_text(encoding="utf-8").splitlines())
    xid = lines[lines.str.contains("NVRM: Xid", regex=False)]
    parts = xid.str.extract(r"^(\w{3}\s+\d+ [\d:]{8}) (\S+) kernel: NVRM: Xid \(PCI:([0-9a-f:]+)\): (\d+),")
    parts["time"] = pd.to_datetime(f"{year} " + parts[0].str.replace(r"\s+", " ", regex=True),
                                   format="%Y %b %d %H:%M:%S")
    return parts.groupby(3).size()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    args = ap.parse_args()
    noise = args.lines / (60 * 1000)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "syslog"
        gen_s, truth = once(lambda: synthetic_syslog(path, days=60, nodes=1000, noise_per_day=noise, seed=0))
        n = truth.text.count("\n")
        cpu0 = time.process_time()
        rel_s, log = once(lambda: read_xid(path, year=2024))
        rel_cpu = time.process_time() - cpu0
        pd_s, _ = once(lambda: plain_pandas(path, 2024))
    print(f"syslog: {n:,} lines, 1,000 nodes, 60 days (generated in {gen_s:.1f} s)")
    print(f"relmodel read_xid: {rel_s:.2f} s wall, {rel_cpu:.2f} s CPU ({n / rel_s / 1e6:.2f} million lines/s); "
          f"target under 10 s: {'met' if rel_s < 10 else 'MISSED'} (the CPU time is what a shared machine does not inflate)")
    print(f"plain pandas (Xid lines only, no merging): {pd_s:.2f} s")
    print(f"ratio relmodel / pandas: {rel_s / pd_s:.2f}")
    print(f"outages recovered: {len(log)} of {sum(truth.counts.values())} written; hosts counted: {log.n_nodes:,}")
    targets = Targets("xid")
    targets.add("syslog lines read per second (10^6 in 10 s)", n / rel_s, 1e5, "lines/s")
    targets.add("outages miscounted (recovered minus written)", abs(len(log) - sum(truth.counts.values())), 0,
                "outages", higher=False)
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
