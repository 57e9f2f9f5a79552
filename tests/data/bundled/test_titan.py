"""The Titan GPU-life recipe (read from a file in the upstream format) and its synthetic stand-in."""

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.data.bundled.titan import POSITION_COLUMNS, parse_location
from relmodel.errors import LogFormatError, MissingColumnError

UPSTREAM = """SN,location,insert,remove,duration,out,event
0320117100060,c11-2c1s4n1,2017-04-09 21:36:19,2019-08-01 20:07:33,72916274,FALSE,
0320117100061,c9-3c1s2n1,2017-04-09 21:36:19,2019-08-01 20:07:33,72916274,FALSE,
0323712007755,c12-7c1s5n0,,2016-01-01 00:00:00,,,OTB
0323712008316,c15-2c2s2n2,2014-01-01 00:00:00,2015-01-01 00:00:00,31536000,TRUE,DBE
0323712008316,c0-0c0s0n3,2015-02-01 00:00:00,2016-02-01 00:00:00,31536000,TRUE,OTB
"""


def test_location_codes_split_into_positions():
    p = parse_location(["c11-2c1s4n1", "c24-7c2s7n3"])
    assert list(p.columns) == list(POSITION_COLUMNS)
    assert p.iloc[0].tolist() == [11, 2, 1, 4, 1] and p.iloc[1].tolist() == [24, 7, 2, 7, 3]
    with pytest.raises(LogFormatError, match="row 2: location 'c1-2x'"):
        parse_location(["c1-2c0s0n0", "c1-2x"])


def test_titan_reads_the_upstream_format(tmp_path):
    (tmp_path / "gc_full.csv").write_text(UPSTREAM)
    d = relmodel.datasets.titan(tmp_path)
    assert len(d) == 4 and d.attrs["dropped_rows"] == 1  # the row without insert time or duration
    assert d["serial"].iloc[0] == "0320117100060"  # leading zero kept
    assert d["duration_h"].iloc[0] == pytest.approx(72916274 / 3600)
    assert d["observed"].tolist() == [False, False, True, True]
    assert d["cause"].tolist() == ["none", "none", "DBE", "OTB"]
    assert d.loc[2, ["cabinet_column", "cabinet_row", "cage", "slot", "node"]].tolist() == [15, 2, 2, 2, 2]
    with pytest.raises(FileNotFoundError, match="not bundled"):
        relmodel.datasets.titan(None)
    (tmp_path / "other.csv").write_text("SN,where\n1,c0-0c0s0n0\n")
    with pytest.raises(MissingColumnError, match="location"):
        relmodel.datasets.titan(tmp_path / "other.csv")
    with pytest.raises(FileNotFoundError):
        relmodel.datasets.titan(tmp_path / "nowhere")


def test_synthetic_stand_in_has_the_same_columns_and_its_effects_are_recovered():
    s = relmodel.datasets.titan_synthetic(3000, seed=1)
    assert list(s.columns)[:7] == ["serial", "location", *POSITION_COLUMNS]
    assert s["serial"].duplicated().any()  # some GPUs live twice
    assert (parse_location(s["location"]).to_numpy() == s[list(POSITION_COLUMNS)].to_numpy()).all()
    r = relmodel.stats.regress(s, ["cage", "cabinet_row"], categorical=["cage"], reference={"cage": 0},
                         cluster="serial")
    t = r.coefficients.set_index("term")
    assert t.loc["cage=2", "lower"] < 1.6 < t.loc["cage=2", "upper"]  # the simulated hazard ratio
    assert t.loc["cage=1", "lower"] < 1.0 < t.loc["cage=1", "upper"]
    assert r.references == {"cage": 0} and t.loc["cage=2", "level"] == 2
    assert r.table()["level (vs reference)"].tolist()[:2] == ["1 vs 0", "2 vs 0"]
