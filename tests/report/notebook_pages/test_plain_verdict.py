"""Plain verdict first: page 02 says how the failures arrive and whether the rate moves in plain words under its
title, before the statistics (the cell runs last and the page shows it first), with each term explained once."""

import re

import nbformat
import numpy as np
import pandas as pd

from conftest import run_cli
from relmodel.report.pipeline.execute import verdict_first


def test_verdict_cells_move_right_under_the_title():
    cells = [nbformat.v4.new_markdown_cell("# Title"), nbformat.v4.new_code_cell("a"),
             nbformat.v4.new_code_cell("b"), nbformat.v4.new_code_cell("v")]
    cells[3].metadata["tags"] = ["verdict"]
    assert [c.source for c in verdict_first(cells)] == ["# Title", "v", "a", "b"]
    assert [c.source for c in verdict_first(cells[:3])] == ["# Title", "a", "b"]


def _log(path, gaps):
    t0 = pd.Timestamp("2025-01-01")
    starts = t0 + pd.to_timedelta(np.cumsum(gaps), unit="h")
    pd.DataFrame({"node": [f"n{i % 7}" for i in range(len(gaps))], "start": starts,
                  "end": starts + pd.Timedelta(hours=1)}).to_csv(path, index=False)


def _page(tmp_path, gaps):
    _log(tmp_path / "log.csv", gaps)
    res = run_cli("report", "--out", tmp_path / "r", "-q", "-n", "02", "-p", f"log={tmp_path / 'log.csv'}",
                  "-p", "start=start", "-p", "end=end", "-p", "node=node", "-p", "n_boot=20")
    assert res.exit_code == 0, res.output
    html = (tmp_path / "r" / "02_failure_distributions.html").read_text(encoding="utf-8")
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_bursty_failures_are_said_to_come_in_bursts_before_the_statistics(tmp_path):
    rng = np.random.default_rng(4)
    gaps = np.where(rng.random(120) < 0.7, rng.exponential(2.0, 120), rng.exponential(80.0, 120))  # CV about 2
    cv = gaps.std(ddof=1) / gaps.mean()
    assert cv > 1.5
    text = _page(tmp_path, gaps)
    verdict = text.index("In plain words: the job's failures come in bursts")
    assert verdict < text.index("Which law fits") and verdict < text.index("Akaike weight")
    assert text.count("Terms used below") == 1


def test_regular_failures_are_said_to_be_regular(tmp_path):
    import relmodel
    from relmodel.report.notebook_pages.fit_page import plain_verdict
    gaps = np.random.default_rng(5).gamma(9.0, 2.0, 120)  # CV 1/3
    _log(tmp_path / "log.csv", gaps)
    src = relmodel.load_source(str(tmp_path / "log.csv"), start="start", end="end", node="node")
    said = str(plain_verdict(src, None, "steady"))
    assert "come more regularly than at random" in said and "the failure rate is steady" in said


def test_page_08_says_first_which_covariates_change_lives():
    """The covariates page's verdict names the level that fails sooner with its hazard ratio, which an independent
    Cox fit (lifelines' CoxPHFitter on dummy-coded covariates) gives too, and the covariates that do not matter."""
    import warnings

    from lifelines import CoxPHFitter

    from relmodel.data.formats import lives as L
    from relmodel.report.notebook_pages.covariate_page import plain_verdict
    from relmodel.stats import regress
    from relmodel.tables import number

    warnings.simplefilter("ignore")
    t = L.load_lives(None, n_synthetic=3000, seed=0)
    cox = regress(t.frame, list(t.covariates), "cox", categorical=list(t.categorical), cluster=t.cluster)
    text = re.sub(r"<[^>]+>", "", str(plain_verdict(cox, None, t.example))).replace("&#x27;", "'")
    df = pd.get_dummies(t.frame[["cage", "node"]].astype(str), drop_first=True, dtype=float)
    df["cabinet_row"] = t.frame["cabinet_row"].astype(float)
    df["T"], df["E"] = t.frame["duration_h"], t.frame["observed"].astype(int)
    hr = float(np.exp(CoxPHFitter().fit(df, "T", "E").params_["cage_2"]))
    assert text.startswith("This is an example, not your data. In plain words: units with cage 2 (against cage 0) "
                           f"fail sooner: {number(hr, 3)} times the failure rate")
    assert "The other covariates (cabinet_row, node) make no clear difference." in text
    assert "Terms used below: the log-rank test" in text
