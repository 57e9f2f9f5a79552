"""The bundled operator logs are what the documented generators write, and read back to their truth."""

import json

from relmodel import read_sacct, read_xid
from relmodel.data import synthetic_ops
from relmodel.data.bundled.datasets import data_dir


def test_generators_reproduce_the_bundled_files():
    folder = data_dir() / "ops-example"
    settings = json.loads((folder / "settings.json").read_text())
    made = synthetic_ops.from_settings(settings)
    assert list(made) == ["sacct.txt", "syslog"]
    for name, truth in made.items():
        assert truth.text == (folder / name).read_text(encoding="utf-8"), name


def test_the_bundled_syslog_is_the_same_runs_kernel_log():
    """Each NODE_FAIL of the export has an Xid 79 on the node that failed (the one a spare replaces in the next
    segment's node list), 5 to 30 minutes before the job's end: counted from the two files' text."""
    from datetime import datetime, timedelta

    folder = data_dir() / "ops-example"
    rows = [r.split("|") for r in (folder / "sacct.txt").read_text().splitlines()[1:]]
    jobs = [r for r in rows if r[1] == "pretrain" and "." not in r[0]]
    xids = {}
    for line in (folder / "syslog").read_text().splitlines():
        if "Xid" in line and "): 79," in line:
            t = datetime.strptime("2024 " + line[:15], "%Y %b %d %H:%M:%S")
            xids.setdefault(line.split()[3], []).append(t)
    fails = [r for r in jobs if r[2] == "NODE_FAIL"]
    assert len(fails) == 19
    for row in fails:
        end = datetime.fromisoformat(row[5])
        near = [host for host, times in xids.items()
                if any(end - timedelta(minutes=30) <= t <= end - timedelta(minutes=5) for t in times)]
        assert len(near) == 1, (row, near)
    lines = (folder / "syslog").read_text().splitlines()
    first, last = (datetime.strptime("2024 " + line[:15], "%Y %b %d %H:%M:%S") for line in (lines[0], lines[-1]))
    assert first == datetime(2024, 3, 1) and last < datetime(2024, 4, 15)  # the export's 45 days from 1 March


def test_bundled_files_read_to_the_generator_counts():
    folder = data_dir() / "ops-example"
    settings = json.loads((folder / "settings.json").read_text())
    kw = {k: v for k, v in settings["sacct.txt"].items() if k != "generator"}
    truth = synthetic_ops.synthetic_sacct(**kw)
    log = read_sacct(folder / "sacct.txt", job="pretrain")
    assert log.events["state"].value_counts().to_dict() == truth.counts == {"NODE_FAIL": 19, "FAILED": 11}
    kw = {k: v for k, v in settings["syslog"].items() if k != "generator"}
    kw["faults"] = synthetic_ops.kernel_faults(truth, **{k: v for k, v in kw["faults"].items() if k != "from"})
    truth = synthetic_ops.synthetic_syslog(**kw)
    # 2 + 19 planted Xid 79 (two lines each), 3 Xid 48, 2 Xid 74, 1 Xid 119, 1 power supply, 1 reboot, 1 unknown
    assert truth.counts["planted"] == 19
    assert len(read_xid(folder / "syslog", year=2024)) == sum(truth.counts.values()) == 30
