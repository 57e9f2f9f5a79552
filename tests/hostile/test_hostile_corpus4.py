"""Fourth hostile corpus: small logs, equal gaps, hopeless simulations, report-folder records,
terminal escapes and silent misreads.

Logs are written by the tests themselves; expected values come from arithmetic written here.
"""

import math

import pytest
from click.testing import CliRunner

from relmodel.cli import cli

# --- 1. a log with three or fewer interruptions: the MTBF's upper end is unbounded -----------------

SMALL = ["2024-01-01 00:00,GPU", "2024-01-05 00:00,GPU", "2024-01-12 00:00,NIC"]


def _small_log(tmp_path, n):
    path = tmp_path / f"small{n}.csv"
    path.write_text("time,cause\n" + "\n".join(SMALL[:n]) + "\n")
    return path


@pytest.mark.parametrize("command", ["interval", "requirements"])
@pytest.mark.parametrize("n", [2, 3])
def test_small_logs_answer_without_division_by_zero(tmp_path, command, n):
    path = _small_log(tmp_path, n)
    res = CliRunner().invoke(cli, [command, "--log", str(path), "--start", "time", "--cause", "cause",
                                   "--gpus", "1024", "--source-gpus", "64"])
    assert res.exit_code == 0, res.output
    assert "Traceback" not in res.output
    for word in ("inf", "nan", "NaN"):
        assert f" {word} " not in f" {res.output} ".replace("\n", " ")


def test_small_log_decision_carries_an_unbounded_upper_end_honestly(tmp_path):
    import relmodel
    from relmodel.report.notebook_pages.interval_page import job_block
    from relmodel.report.pipeline.summarise import null_reasons
    from relmodel.report.pipeline.summary import answer_sentences
    from relmodel.scale.targets.decision import decide

    src = relmodel.load_source(str(_small_log(tmp_path, 3)), start="time", cause="cause", source_gpus=64)
    d = decide(src, 1024, 0.9, "1min", "10min", n_boot=500, seed=1, simulate=False)
    assert math.isinf(d.job_mtbf_hi) and d.job_mtbf_hi > 0
    assert math.isinf(d.interval_hi)
    assert math.isfinite(d.job_mtbf_lo) and d.job_mtbf_lo < d.job_mtbf_h
    rec = d.to_dict()
    assert rec["job_mtbf_hi"] is None and rec["interval_hi"] is None
    words = " ".join(answer_sentences({"decision": rec}))
    assert "at least" in words and "no upper end" in words
    page = str(job_block(d))
    assert "at least" in page and "—" not in page and "inf" not in page
    why = null_reasons(rec, {})
    assert "unbounded" in why["job_mtbf_hi"] and "bootstrap was turned off" not in why["job_mtbf_hi"]
    assert "inf" not in d.scaled.text()


# --- 2. equal gaps: the Lewis-Robinson test is undefined, and says so -----------------------------

EQUAL = [48.0 * k for k in range(1, 12)]      # eleven failures, two days apart (hours)


def test_lewis_robinson_on_equal_gaps_is_an_honest_undefined_result():
    from relmodel.stats.survival.trends import lewis_robinson_test
    r = lewis_robinson_test(EQUAL, end=48.0 * 12)
    assert not r.defined and r.direction == "undefined"
    assert math.isnan(r.statistic) and math.isnan(r.p_value)
    assert "equal" in r.text() or "same length" in r.text()


def test_trend_and_its_page_block_handle_equal_gaps():
    import relmodel
    from relmodel.report.notebook_pages.fit_page import trend_block
    tr = relmodel.trend(EQUAL, end=48.0 * 12)
    assert tr.verdict in ("steady", "improving", "wearing out")     # decided by MIL-HDBK-189, which applies
    verdict, block = trend_block(tr)
    html = str(block)
    assert verdict != "inconclusive" and "no verdict" in html and "nan" not in html.lower()
    lr = relmodel.trend(EQUAL, end=48.0 * 12, method="lewis-robinson")
    assert lr.verdict == "undefined" and "undefined" in lr.text() and "nan" not in lr.text()


def test_decide_reads_an_equal_gap_log_with_its_trend_tested(tmp_path):
    import relmodel
    from relmodel.scale.targets.decision import decide
    path = tmp_path / "equal.csv"
    path.write_text("time,cause\n" + "".join(f"2024-01-{1 + 2 * k:02d} 00:00,GPU\n" for k in range(12)))
    src = relmodel.load_source(str(path), start="time", cause="cause", source_gpus=64)
    d = decide(src, 1024, 0.9, "1min", "10min", n_boot=200, seed=0, simulate=False)
    assert "cannot be estimated" not in d.today_reason and d.trend in ("steady", "disagree", "rising", "falling")
