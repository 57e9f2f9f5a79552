"""The bundled operator logs are what the documented generators write, and read back to their truth."""

import json

from relmodel import read_sacct, read_xid
from relmodel.data import synthetic_ops
from relmodel.data.bundled.datasets import data_dir


def test_generators_reproduce_the_bundled_files():
    folder = data_dir() / "ops-example"
    settings = json.loads((folder / "settings.json").read_text())
    for name, kw in settings.items():
        kw = dict(kw)
        make = getattr(synthetic_ops, kw.pop("generator"))
        assert make(**kw).text == (folder / name).read_text(encoding="utf-8"), name


def test_bundled_files_read_to_the_generator_counts():
    folder = data_dir() / "ops-example"
    settings = json.loads((folder / "settings.json").read_text())
    kw = {k: v for k, v in settings["sacct.txt"].items() if k != "generator"}
    truth = synthetic_ops.synthetic_sacct(**kw)
    log = read_sacct(folder / "sacct.txt", job="pretrain")
    assert log.events["state"].value_counts().to_dict() == truth.counts == {"NODE_FAIL": 19, "FAILED": 11}
    kw = {k: v for k, v in settings["syslog"].items() if k != "generator"}
    truth = synthetic_ops.synthetic_syslog(**kw)
    assert len(read_xid(folder / "syslog", year=2024)) == sum(truth.counts.values())
