"""What bad_nodes says follows from its intervals: a repair-success interval that spans one half makes no claim,
and counts within a homogeneous fleet's spread beside a worst node beyond it say the log is too small to tell."""

import warnings

import relmodel

DISKS = """timestamp,node
2024-01-03 04:12,stor01
2024-01-11 17:40,stor07
2024-01-19 09:05,stor03
2024-02-02 22:31,stor07
2024-02-14 13:16,stor12
2024-02-27 06:48,stor05
2024-03-09 11:02,stor07
2024-03-21 19:55,stor09
2024-04-04 02:20,stor02
2024-04-18 15:37,stor11
2024-05-01 08:09,stor04
2024-05-20 23:44,stor07
"""


def _repair_sentence(r):
    return next(s for s in r._sentences() if s.startswith("A repair of a bad node"))


def test_the_repair_claim_follows_its_interval(monkeypatch):
    r = relmodel.bad_nodes(relmodel.datasets.stepfun(), seed=0)
    lo, hi = r._value("unfixed")[1:]
    assert lo > 0.5 and _repair_sentence(r).endswith("most repairs do not fix a bad node.")   # 76.5% to 87.5%
    real = type(r)._value
    for interval, said in (((0.6, 0.001, 0.999), "this log cannot tell whether most repairs fix a bad node."),
                           ((0.2, 0.05, 0.45), "most repairs fix a bad node."),
                           ((0.45, 0.3, 0.6), "this log cannot tell whether most repairs fix a bad node.")):
        monkeypatch.setattr(type(r), "_value", lambda self, name, v=interval: v if name == "unfixed" else real(self, name))
        assert _repair_sentence(r).endswith(said), interval


def test_a_worst_node_beyond_the_envelope_is_not_called_no_sign(tmp_path):
    (tmp_path / "disks.csv").write_text(DISKS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = relmodel.bad_nodes(relmodel.read_log(tmp_path / "disks.csv", start="timestamp", node="node"), seed=0)
    # stor07 holds 4 of the 12 failures (33.3%, by hand), beyond what 9 interchangeable nodes reach
    assert not r.heterogeneous and r.worst["beyond"].any()
    text = r.text()
    assert "No sign of bad nodes" not in text and "too few failures to tell" in text
    assert "The worst node holds 33.3% of all failures, beyond" in text
