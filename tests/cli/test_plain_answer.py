"""``relmodel interval --mtbf ...`` writes its table without pandas, byte for byte as the pandas formatters would.

The reference is the pandas path written out here: ``compare_intervals`` (a
DataFrame), its cells in words (the command's ``_people_rows``) laid out by
``DataFrame.to_string``, and ``to_json`` and ``to_csv`` of the numbers.
"""

import json

import numpy as np
import pandas as pd
import pytest

from conftest import run_cli
from relmodel.base.escape import csv_frame
from relmodel.checkpoint.plan import compare_intervals, interval_rows
from relmodel.cli import plain
from relmodel.cli.interval import _people_rows, _people_text
from relmodel.tables import duration
from relmodel.units import hours

rng = np.random.default_rng(40)
CASES = [("3h", "1min", "10min", {}), ("3h", "45s", "10min", {"step": "4s", "work": "54d"}),
         ("3h", "5s", "10min", {"persist": "2min"}), ("100000h", "1s", 0, {}), ("1e9h", "1s", 0, {"work": "1e7h"}),
         ("20min", "5min", "1h", {})]
CASES += [(float(m), float(m * f), float(r), {"work": float(w)} if w > 1 else {})
          for m, f, r, w in zip(10 ** rng.uniform(-1, 6, 40), 10 ** rng.uniform(-6, -0.5, 40),
                                rng.uniform(0, 2, 40), 10 ** rng.uniform(-1, 5, 40))]


def _pandas_answer(mtbf, cost, restart, extra, fmt):
    """What the command printed through pandas (its code before the plain path)."""
    df = compare_intervals(mtbf, cost, restart, **extra)
    if fmt == "json":
        return json.dumps({"mtbf_h": hours(mtbf), "mtbf_source": "given", "ckpt_cost_h": hours(cost),
                           "restart_h": hours(restart), "methods": json.loads(df.to_json(orient="records"))},
                          indent=2) + "\n"
    if fmt == "csv":
        return csv_frame(df).to_csv(index=False)
    head = (f"job MTBF {duration(hours(mtbf))} (given), checkpoint {duration(hours(cost))}, "
            f"restart {duration(hours(restart))}")
    return head + "\n" + pd.DataFrame(_people_rows(df.to_dict("records"))).to_string(index=False) + "\n"


def _args(mtbf, cost, restart, extra):
    out = ["interval", "--mtbf", mtbf, "--ckpt-cost", cost, "--restart", restart]
    for k, v in extra.items():
        out += [f"--{k}", v]
    return out


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
@pytest.mark.parametrize("mtbf, cost, restart, extra", CASES[:6])
def test_the_command_prints_what_pandas_printed(mtbf, cost, restart, extra, fmt):
    done = run_cli(*_args(mtbf, cost, restart, extra), "--format", fmt)
    assert done.exit_code == 0, done.output
    assert done.output == _pandas_answer(mtbf, cost, restart, extra, fmt)


@pytest.mark.parametrize("mtbf, cost, restart, extra", CASES)
def test_each_plain_formatter_equals_pandas(mtbf, cost, restart, extra):
    rows = interval_rows(mtbf, cost, restart, **extra)
    df = compare_intervals(mtbf, cost, restart, **extra)
    assert plain.is_plain(rows)
    assert _people_text(rows) == pd.DataFrame(_people_rows(df.to_dict("records"))).to_string(index=False)
    records = plain.plain_records(rows)
    assert records is None or records == json.loads(df.to_json(orient="records"))
    text = plain.plain_csv(rows)
    assert text is None or text == csv_frame(df).to_csv(index=False)


def test_json_numbers_agree_with_pandas_where_the_plain_path_writes_them():
    r = np.random.default_rng(41)
    x = np.concatenate([10 ** r.uniform(-4, 15, 20000), r.uniform(1e-4, 1, 20000), [0.0, 1e-4, 0.5, 2.5e-3]])
    got = [plain._json_number(float(v)) for v in x]
    assert None not in got
    assert got == [r["a"] for r in json.loads(pd.DataFrame({"a": x}).to_json(orient="records"))]
    assert plain._json_number(2.4e-8) is None and plain._json_number(1e16) is None  # pandas writes exponents


def test_a_table_that_is_not_plain_is_left_to_pandas():
    assert not plain.is_plain([{"method": "a", "x": 1.0}, {"method": "b", "x": float("nan")}])
    assert not plain.is_plain([{"method": "a", "x": 1.0}, {"method": "b", "y": 1.0}])
    assert not plain.is_plain([])
    assert plain.plain_csv([{"method": "a,b", "x": 1.0}]) is None
