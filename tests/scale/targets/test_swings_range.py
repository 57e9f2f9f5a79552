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


def test_a_disk_logs_vendor_demand_does_not_speak_of_gpus(tmp_path):
    """Disk failures mapped 8 to a node: the demand counts the disks' failures, not "the GPUs and the host"."""
    import warnings

    from relmodel.scale.targets.vendor import vendor_requirement
    rows = [f"2024-0{1 + i % 6}-{10 + i % 15} 0{i % 10}:00,d{i % 23}" for i in range(40)]
    (tmp_path / "disks.csv").write_text("when,disk\n" + "\n".join(rows) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        src = relmodel.load_source(str(tmp_path / "disks.csv"), start="when", node="disk", unit="disk")
        d = relmodel.decide(src, 1024, units_per_node=8, n_boot=0, seed=0)
    text = vendor_requirement(d, n_boot=0, seed=0).text()
    assert "counting only the failures of the disks the log records" in text
    assert "per GPU" not in text and "the GPUs and the host" not in text
