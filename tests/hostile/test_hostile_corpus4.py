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
