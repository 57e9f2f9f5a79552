"""The README's joined Slurm + kernel example runs on the bundled pair through every page.

The ``relmodel report ... -p syslog=...`` line is taken as written from the README or the topic page that shows it
(docs/logs.md) and run on
``data/ops-example``; the numbers the index must show (interruptions, how many a kernel fault explains,
the detection latency) are counted here from the two files with the join rule the README states
("the earliest kernel fault on one of the nodes it held, at most 6 hours before it ended"), by
regular expressions and datetime arithmetic of the test's own, not by relmodel.
"""

import json
import re
import shlex
import statistics
from datetime import datetime, timedelta

import pytest

from conftest import REPO, doc_blocks, report_cli

OPS = REPO / "data" / "ops-example"
#: Kernel lines that stop a job (README: Xid 79, 48, 74, 94/95, 119/120; NIC link down, EDAC uncorrected
#: errors, power-supply faults).
FAULT = re.compile(r"NVRM: Xid \(PCI:[0-9a-f:.]+\): (79|48|74|94|95|119|120),|Link down|EDAC .* UE |Power Supply")


def _nodes(text):
    """``gpu[0001-0003,0007]`` -> {'gpu0001', 'gpu0002', 'gpu0003', 'gpu0007'}."""
    out = set()
    for prefix, body, single in re.findall(r"([a-z]+)\[([^\]]+)\]|([a-z]+\d+)", text):
        if single:
            out.add(single)
            continue
        for part in body.split(","):
            lo, _, hi = part.partition("-")
            out.update(f"{prefix}{i:0{len(lo)}d}" for i in range(int(lo), int(hi or lo) + 1))
    return out


def _interruptions():
    rows = [line.split("|") for line in (OPS / "sacct.txt").read_text().splitlines()[1:]]
    head = (OPS / "sacct.txt").read_text().splitlines()[0].split("|")
    rows = [dict(zip(head, r)) for r in rows]
    return [(datetime.fromisoformat(r["End"]), _nodes(r["NodeList"])) for r in rows
            if r["JobName"] == "pretrain" and "." not in r["JobID"]
            and (r["State"] == "NODE_FAIL" or (r["State"] == "FAILED" and r["ExitCode"] != "0:0"))]


def _faults():
    out = []
    for line in (OPS / "syslog").read_text().splitlines():
        if FAULT.search(line):
            stamp, host = line[:15], line.split()[3]
            out.append((datetime.strptime("2024 " + stamp, "%Y %b %d %H:%M:%S"), host))
    return out


def hand_join():
    """(interruptions, matched, median latency in minutes) by the README's rule."""
    ends, faults = _interruptions(), _faults()
    latencies = []
    for end, held in ends:
        near = [t for t, host in faults if host in held and end - timedelta(hours=6) <= t <= end]
        if near:
            latencies.append((end - min(near)).total_seconds() / 60)
    return len(ends), len(latencies), statistics.median(latencies)


def readme_command():
    """The joined ``relmodel report`` line of the README and docs/*.md, with the bundled folder for ``$ops``."""
    lines = {line for _, _, block in doc_blocks("bash") for line in block.splitlines()
             if line.startswith("relmodel report") and "syslog=" in line}
    assert len(lines) == 1, lines  # one command, however many pages show it
    args = shlex.split(lines.pop().replace("$ops", str(OPS)))
    assert args[:2] == ["relmodel", "report"]
    return args[2:]


def test_the_bundled_pair_overlaps_as_the_data_readme_says():
    n, matched, latency_min = hand_join()
    assert (n, matched) == (30, 20)
    assert 5 <= latency_min <= 30
    assert "20 of the 30" in (REPO / "data" / "README.md").read_text()


@pytest.fixture(scope="module")
def joined_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("joined") / "report"
    args = readme_command()
    assert all(str(OPS) in a for a in args if a.startswith(("log=", "syslog=")))  # the bundled pair, not a user's
    res = report_cli(*args, "--out", out)
    return res, out


def test_every_page_of_the_readme_joined_example_renders(joined_report):
    res, out = joined_report
    assert res.exit_code == 0, (res.output, res.stderr)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "complete" and not summary["failed"]
    pages = sorted(p.stem for p in (REPO / "notebooks").glob("[0-9]*.ipynb"))
    assert [nb["name"] for nb in summary["notebooks"]] == pages
    for nb in summary["notebooks"]:
        assert not nb.get("error"), nb
        page = (out / nb["html"]).read_text(encoding="utf-8")
        assert "Traceback" not in page and "This page stops here" not in page, nb["name"]
        executed = json.loads((out / nb["ipynb"]).read_text(encoding="utf-8"))
        kinds = {o.get("output_type") for c in executed["cells"] for o in c.get("outputs", [])}
        names = {o.get("name") for c in executed["cells"] for o in c.get("outputs", [])}
        assert "error" not in kinds and "stderr" not in names, nb["name"]


def test_the_index_shows_the_joined_runs_numbers(joined_report):
    res, out = joined_report
    n, matched, latency_min = hand_join()
    index = (out / "index.html").read_text(encoding="utf-8")
    assert f"{matched} of {n} interruptions matched to a kernel fault" in index
    head = json.loads((out / "summary.json").read_text())["headline"]
    assert head["source"]["detection_latency"] == "measured from the log"
    assert head["source"]["restart"] == "measured from the log"
    assert abs(head["detection_latency_h"] * 60 - latency_min) < 0.5
    assert "30 interruptions" in head["range_covers"]
