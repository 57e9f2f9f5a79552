"""The index's "how well this log forecasts itself": its sentence, summary.json and the API say the same numbers.

Page 01 computes the check once (``forecast_check`` on the first 70% of the window, seed 0); summary.json keeps
its numbers and the index prints its sentence beside its figure.  The failures that happened are also counted by
hand from the log's events, independently of the code under test."""

import html
import json
import re

import numpy as np
import pytest

import relmodel
from conftest import report_cli
from relmodel.report.blocks import present as P


@pytest.fixture(scope="module")
def stepfun_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("selfcheck") / "stepfun"
    res = report_cli("-j", "1", "--out", folder, "-n", "01", "-p", "log=stepfun")
    assert res.exit_code == 0, res.output
    return folder


def _index_text(folder):
    return html.unescape(re.sub(r"<[^>]+>", " ", (folder / "index.html").read_text()))


def test_index_summary_and_api_agree_on_the_log_forecasting_itself(stepfun_report):
    got = json.loads((stepfun_report / "summary.json").read_text())["forecast_check"]
    log = relmodel.datasets.stepfun()
    api = relmodel.checkpoint.forecast_check([log], split=0.7, conf=0.9, seed=0).to_frame()
    row = api[api["quantity"].eq("failures")].iloc[0]
    assert (got["split"], got["conf"]) == (0.7, 0.9)
    for key, col in (("predicted", "forecast"), ("lo", "lo"), ("hi", "hi"), ("observed", "observed")):
        assert got[key] == row[col], key
    assert got["covered"] == bool(row["covered"]) == (got["lo"] <= got["observed"] <= got["hi"])

    # what happened, counted by hand: unplanned, non-overlapping outages after 70% of the window
    ev = log.events
    t0, t1 = log.window_h
    new = ~ev["planned"].astype(bool) & ~ev["overlaps"].astype(bool)  # overlapping rows are one outage
    starts = ev.loc[new, "start_h"].to_numpy(float)
    starts = starts[(starts > t0) & (starts <= t1)]
    assert got["observed"] == np.sum(starts > t0 + 0.7 * (t1 - t0))

    text = " ".join(_index_text(stepfun_report).split())
    assert "How well this log forecasts itself" in text
    assert got["sentence"] in text
    said = (f"forecast {P.count(round(got['predicted']))} failures (90% range {P.count(got['lo'])} to "
            f"{P.count(got['hi'])})")
    assert said in text and f"{P.count(got['observed'])} happened" in text


def test_the_figure_appears_on_the_index(stepfun_report):
    page = (stepfun_report / "index.html").read_text()
    assert "<img src='key-self-check.png'" in page
    png = (stepfun_report / "key-self-check.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert page.count("key-self-check.png") == 1  # in its own section, not again among the key figures


def test_a_count_table_says_it_has_no_time_order(tmp_path):
    folder = tmp_path / "llama3"
    res = report_cli("-j", "1", "--out", folder, "-n", "01", "-p", "log=llama3")
    assert res.exit_code == 0, res.output
    assert "forecast_check" not in json.loads((folder / "summary.json").read_text())
    assert "How well this log forecasts itself" not in _index_text(folder)
    assert "no time order to forecast itself from" in html.unescape((folder / "01_log_explorer.html").read_text())
