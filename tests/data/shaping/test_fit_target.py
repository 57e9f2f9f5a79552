"""The one rule for what a log's fit uses (page 02 and ``relmodel fit``), on logs written here."""

import pandas as pd
import pytest

import relmodel
from relmodel.data.shaping.fit_target import fit_target
from relmodel.errors import FitError


def _log(ends, hosts):
    frame = pd.DataFrame({"t": [0.0, 10.0, 25.0, 40.0], "host": hosts})
    if ends:
        frame["back"] = frame["t"] + 1.0
    return relmodel.read_log(frame, start="t", end="back" if ends else None, node="host", time_unit="h")


def test_up_times_only_with_repairs_on_several_nodes():
    assert fit_target(_log(True, ["a", "b", "a", "c"]))[0] == "uptimes"           # 3 nodes with repairs
    kind, why = fit_target(_log(False, ["a", "b", "a", "c"]))
    assert kind == "interarrivals" and "no repair (end) times" in why              # no end column
    kind, why = fit_target(_log(True, ["a", "a", "a", "a"]))
    assert kind == "interarrivals" and "one node only" in why                      # one node


def test_asked_kind_is_kept_and_a_bad_one_is_named():
    log = _log(True, ["a", "b", "a", "c"])
    assert fit_target(log, "downtimes") == ("downtimes", "downtimes as asked")
    with pytest.raises(FitError, match="one of auto, uptimes, interarrivals, downtimes"):
        fit_target(log, "gaps")
