"""What swings the answer tries a range that holds the value the answer used: a measured restart of 47 min was
tried over 5-30 min only, so no ETTR in the row was the headline's."""

from pathlib import Path

import pytest

import relmodel
from relmodel.scale.targets.swings import decision_swings

OPS = Path(__file__).resolve().parents[3] / "data" / "ops-example"


@pytest.fixture(scope="module")
def measured():
    src = relmodel.load_source(str(OPS / "sacct.txt"), format="sacct", job="pretrain", syslog=str(OPS / "syslog"),
                               year=2024)
    return relmodel.decide(src, 16_384, simulate=False, n_boot=0, seed=0)


def test_the_restart_row_brackets_the_restart_used(measured):
    d = measured
    grown = d.restart_growth_h
    assert d.restart_h - grown > 0.5                        # measured: well above the 30-min end of the default range
    row = decision_swings(d).to_frame().set_index("input").loc["restart"]
    low, high = (relmodel.units.hours(row[k].split(" plus ")[0]) for k in ("low", "high"))
    assert low == pytest.approx(5 / 60) and high == pytest.approx(2 * (d.restart_h - grown), rel=0.01)
    assert row["ettr_high"] <= d.ettr <= row["ettr_low"]    # the answer's own ETTR lies between the two ends


def test_the_repair_row_brackets_the_repair_used(measured):
    calls = []
    frame = decision_swings(measured, spares_at=lambda h: calls.append(h) or round(h), repair_used_h=1.8).to_frame()
    row = frame.set_index("input").loc["repair time"]
    assert calls == [pytest.approx(0.9), pytest.approx(14 * 24.0)]
    assert (row["spares_low"], row["spares_high"]) == (1, 336) and row["used"] == "108 min"
    default = decision_swings(measured, spares_at=round, repair_used_h=48.0).to_frame().set_index("input")
    assert (default.loc["repair time", "low"], default.loc["repair time", "high"]) == ("24 h", "14 d")
