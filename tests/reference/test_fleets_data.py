"""The published fleets table: every row cited, rates and conversions right, derived rows reproducible."""

import warnings

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.data.bundled.fleets import fleets
from relmodel.errors import MissingColumnError, UnitError

README = relmodel.datasets.data_dir() / "README.md"


@pytest.fixture(scope="module")
def table():
    return relmodel.datasets.fleets()


def _row(table, fleet, category="all"):
    return table[(table["fleet"] == fleet) & (table["category"] == category)].iloc[0]


def test_every_row_has_a_source_and_every_fleet_is_cited_in_the_readme(table):
    text = README.read_text(encoding="utf-8")
    assert table["source"].str.len().gt(20).all()
    for fleet in table["fleet"].unique():
        assert f"`{fleet}`" in text or fleet.startswith("lanl"), f"{fleet} not cited in data/README.md"
    assert "lanl2" in text and "LA-UR-05-7318" in text
    for cited in ("2407.21783", "2410.21680", "2502.03885", "2402.15627", "2205.01068", "2211.05100"):
        assert cited in text


def test_llama3_rows_follow_table5(table, llama3):
    # Llama 3 Herd of Models, section 3.3.4, Table 5: 419 unexpected in 54 days on 2,048 8-GPU servers
    total = _row(table, "llama3")
    assert total["count"] == 419 == llama3.n_unexpected
    assert total["rate_per_node_day"] == pytest.approx(419 / (2048 * 54))
    assert total["rate_per_gpu_day"] == pytest.approx(419 / (16384 * 54))
    assert _row(table, "llama3", "all incl. planned")["count"] == 419 + 47
    by_cat = llama3.counts.groupby("category")["count"].sum()
    cats = table[(table["fleet"] == "llama3") & ~table["category"].str.startswith("all")]
    assert dict(zip(cats["category"], cats["count"])) == by_cat.to_dict()
    assert cats["count"].sum() == 419


def test_per_gpu_day_is_per_node_day_over_gpus_per_node(table):
    ok = table["gpus_per_node"].notna() & table["rate_per_node_day"].notna()
    t = table[ok]
    np.testing.assert_allclose(t["rate_per_gpu_day"], t["rate_per_node_day"] / t["gpus_per_node"].astype(float))
    np.testing.assert_allclose(t["gpu_days"], t["node_days"] * t["gpus_per_node"].astype(float))
    assert table.loc[table["kind"] == "hpc", "rate_per_gpu_day"].isna().all()


def test_rsc_rates_are_the_published_ones(table):
    # Kokolis et al., HPCA 2025 (arXiv 2410.21680): 6.50 and 2.34 failures per 1,000 node-days
    for fleet, rate in (("rsc1", 6.50), ("rsc2", 2.34)):
        r = _row(table, fleet)
        assert r["rate_per_1000_node_days"] == pytest.approx(rate)
        assert r["count_basis"] == "implied" and bool(r["approx"])
        assert abs(r["count"] - rate / 1000 * r["node_days"]) <= 0.5


def test_stepfun_rows_recount_the_bundled_trace(table, stepfun_log):
    ev = stepfun_log.interruptions()
    total = _row(table, "stepfun")
    assert total["count"] == len(ev) and total["nodes"] == 400
    assert total["exposure_days"] == pytest.approx(stepfun_log.duration_h / 24, abs=1e-3)
    for level, k in ev["Level"].value_counts().items():
        assert _row(table, "stepfun", level)["count"] == k


def test_lanl_rows_recount_the_bundled_records(table):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", relmodel.data.LogWarning)
        ev = relmodel.datasets.lanl().interruptions()
    system = ev["node"].str.split("/").str[0].astype(int)
    g = ev.groupby(system)["start_h"].agg(["size", "min", "max"])
    hpc = table[table["kind"] == "hpc"]
    assert len(hpc) == 22  # system 17 gives no node count
    for r in hpc.itertuples():
        sid = int(r.fleet[4:])
        assert r.count == g.loc[sid, "size"]
        assert r.exposure_days == pytest.approx((g.loc[sid, "max"] - g.loc[sid, "min"]) / 24, abs=1e-3)


def test_filters_and_bad_input(table, tmp_path):
    assert set(fleets("gpu")["kind"]) == {"gpu"}
    prim = fleets(primary=True)
    assert prim["fleet"].is_unique and len(prim) < len(table)
    with pytest.raises(UnitError, match="kind"):
        fleets("tpu")
    bad = tmp_path / "f.csv"
    pd.DataFrame({"fleet": ["x"], "count": [1]}).to_csv(bad, index=False)
    with pytest.raises(MissingColumnError, match="missing columns"):
        fleets(path=bad)


def test_rows_without_a_rate_say_why(table):
    for fleet in ("megascale",):
        r = _row(table, fleet)
        assert np.isnan(r["rate_per_node_day"]) and "not stated" in r["note"]
    assert _row(table, "bloom")["rate_per_1000_node_days"] == pytest.approx(1.5 / 7 / 48 * 1000, abs=0.01)
