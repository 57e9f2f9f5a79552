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
    tr = relmodel.stats.trend(EQUAL, end=48.0 * 12)
    assert tr.verdict in ("steady", "improving", "wearing out")     # decided by MIL-HDBK-189, which applies
    verdict, block = trend_block(tr)
    html = str(block)
    assert verdict != "inconclusive" and "no verdict" in html and "nan" not in html.lower()
    lr = relmodel.stats.trend(EQUAL, end=48.0 * 12, method="lewis-robinson")
    assert lr.verdict == "undefined" and "undefined" in lr.text() and "nan" not in lr.text()


def test_decide_reads_an_equal_gap_log_with_its_trend_tested(tmp_path):
    import relmodel
    from relmodel.scale.targets.decision import decide
    path = tmp_path / "equal.csv"
    path.write_text("time,cause\n" + "".join(f"2024-01-{1 + 2 * k:02d} 00:00,GPU\n" for k in range(12)))
    src = relmodel.load_source(str(path), start="time", cause="cause", source_gpus=64)
    d = decide(src, 1024, 0.9, "1min", "10min", n_boot=200, seed=0, simulate=False)
    assert "cannot be estimated" not in d.today_reason and d.trend in ("steady", "disagree", "rising", "falling")


# --- 3. a hopeless simulation is refused before it draws, and decide answers with the formula ------

def _slurm_run(n_int=23, days=35, requeue_min=30, seed=2, shape=2.5):
    """A 4-node Slurm run: ``n_int`` NODE_FAIL segments in ``days`` days, each requeued after ``requeue_min``.

    Times between interruptions are Weibull with ``shape`` (2.5: fairly regular), rescaled to the window."""
    import datetime as dt

    import numpy as np
    rng = np.random.default_rng(seed)
    t0 = dt.datetime(2024, 3, 1)
    g = rng.weibull(shape, n_int + 1)
    ends = np.cumsum(g)[:-1] / g.sum() * days * 24
    rows = ["JobID|JobName|State|ExitCode|Start|End|NodeList"]
    start = t0
    for i, e in enumerate(ends):
        end = max(t0 + dt.timedelta(hours=float(e)), start + dt.timedelta(minutes=5))
        rows.append(f"{100 + i}|train|NODE_FAIL|0:0|{start:%Y-%m-%dT%H:%M:%S}|{end:%Y-%m-%dT%H:%M:%S}|gpu[01-04]")
        start = end + dt.timedelta(minutes=requeue_min)
    rows.append(f"200|train|COMPLETED|0:0|{start:%Y-%m-%dT%H:%M:%S}|"
                f"{t0 + dt.timedelta(days=days):%Y-%m-%dT%H:%M:%S}|gpu[01-04]")
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize("n_gpus", [4096, 16384])
def test_decide_answers_a_hopeless_simulation_with_the_formula(tmp_path, n_gpus):
    import relmodel
    from relmodel.scale.targets.decision import decide
    path = tmp_path / "sacct.txt"
    path.write_text(_slurm_run())
    src = relmodel.load_source(str(path))
    assert src.source_gpus == 32 and src.n_events == 23
    d = decide(src, n_gpus, 0.9, "1min", None, n_boot=200, seed=0)
    assert d.restart_h == pytest.approx(0.5, abs=0.02)              # measured from the requeue gaps
    assert d.basis == "formula" and d.no_progress
    assert "formula" in d.law_reason
    assert 0 <= d.ettr < 0.5


def test_regular_gaps_shorter_than_the_restart_are_refused_before_drawing():
    from scipy import stats

    from relmodel.checkpoint.simulate import simulate_training
    from relmodel.errors import NoProgressError

    class Fit:  # Weibull shape 2.5, mean 4.3 min: a gap outlasts a 30 min restart with chance ~4e-42
        mean_h = 4.3 / 60

        def ppf(self, q):
            return stats.weibull_min(2.5, scale=self.mean_h / math.gamma(1.4)).ppf(q)

    assert math.exp(-((30 / 4.3 * math.gamma(1.4)) ** 2.5)) < 1e-40
    with pytest.raises(NoProgressError, match="nothing to simulate"):
        simulate_training(300 * Fit.mean_h, "2min", Fit(), "1min", "30min", n_runs=200, seed=0)


# --- 4. report folders: only files relmodel can prove it wrote are deleted -------------------------

PAGE = "<!DOCTYPE html>\n<html><body>my own page</body></html>\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"my picture" * 10


def _dead_pid():
    return 2 ** 22 + 12345  # above Linux's pid_max default: no such process


def _stale_from_a_real_staging(tmp_path):
    """A staging folder as a killed run leaves it: pages written through relmodel, marker in progress."""
    import json

    from relmodel.report.safety import folders as F
    out = tmp_path / "r"
    staging = F.Staging(out)
    staging.__enter__()
    F.write_text(staging.path / "01_page.html", "<!DOCTYPE html><html>relmodel's page</html>")
    F.write_bytes(staging.path / "key-1-ettr.png", PNG + b"relmodel")
    staging.mark("in progress")
    data = json.loads((staging.path / "summary.json").read_text())
    data["relmodel"]["pid"] = _dead_pid()
    (staging.path / "summary.json").write_text(json.dumps(data))
    out.rmdir()  # the killed run's placeholder, as a user might remove it
    return out, staging.path, data["relmodel"]


def test_a_staging_marker_records_size_and_hash_of_each_file_written(tmp_path):
    import hashlib
    _out, stale, mark = _stale_from_a_real_staging(tmp_path)
    page = (stale / "01_page.html").read_bytes()
    assert mark["written"]["01_page.html"] == [len(page), hashlib.sha256(page).hexdigest()]
    assert set(mark["written"]) == {"01_page.html", "key-1-ettr.png"}


def test_a_stopped_runs_folder_keeps_the_users_files_and_says_so(tmp_path):
    from relmodel.errors import ReportFolderWarning
    from relmodel.report.safety import folders as F
    out, stale, _mark = _stale_from_a_real_staging(tmp_path)
    (stale / "notes.html").write_text(PAGE)             # the user's, saved into the folder
    (stale / "key-9-mine.png").write_bytes(PNG)
    (stale / "results.json").write_text('{"mine": 1}')
    with pytest.warns(ReportFolderWarning, match="notes.html"):
        kept = F.remove_stale(out)
    assert kept == [stale]
    assert not (stale / "01_page.html").exists() and not (stale / "key-1-ettr.png").exists()
    assert (stale / "notes.html").read_text() == PAGE and (stale / "key-9-mine.png").read_bytes() == PNG
    assert (stale / "results.json").read_text() == '{"mine": 1}'


def test_a_page_changed_since_relmodel_wrote_it_is_kept(tmp_path):
    from relmodel.errors import ReportFolderWarning
    from relmodel.report.safety import folders as F
    out, stale, _mark = _stale_from_a_real_staging(tmp_path)
    (stale / "01_page.html").write_text(PAGE)            # same name, the user's content now
    with pytest.warns(ReportFolderWarning, match="01_page.html"):
        F.remove_stale(out)
    assert (stale / "01_page.html").read_text() == PAGE


def test_a_stopped_runs_folder_of_relmodels_files_only_goes(tmp_path, recwarn):
    from relmodel.report.safety import folders as F
    out, stale, _mark = _stale_from_a_real_staging(tmp_path)
    assert F.remove_stale(out) == []
    assert not stale.exists() and not recwarn.list


def test_an_old_format_marker_is_not_trusted_by_force(tmp_path):
    import json

    from relmodel.errors import ReportError
    from relmodel.report.safety import folders as F
    out = tmp_path / "r"
    out.mkdir()
    (out / "summary.json").write_text(json.dumps({"relmodel": {"signature": F.SIGNATURE, "status": "complete"},
                                                  "notebooks": [{"html": "index.html"}]}))
    (out / "index.html").write_text(PAGE)
    (out / "key-1-mine.png").write_bytes(PNG)
    assert F.written_files(out) == {"summary.json"}
    with pytest.raises(ReportError, match="did not write"):
        F.check_target(out, force=True)
    assert (out / "index.html").read_text() == PAGE and (out / "key-1-mine.png").read_bytes() == PNG


# --- 5. terminal escapes from data and file names are shown escaped, never sent raw ----------------

ESC = "GPU\x1b]0;pwned\x07"


def _raw_controls(text):
    return [c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f]


def _hostile_log(folder, name="log.csv"):
    path = folder / name
    rows = [f"2024-01-{d:02d}T00:00:00,n{d % 4},{ESC if d % 2 else 'NIC'}" for d in range(1, 25)]
    path.write_text("start,node,cause\n" + "\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("command", [["rates"], ["rates", "--per", "node"], ["fit"],
                                     ["interval", "--gpus", "1024", "--source-gpus", "32"],
                                     ["requirements", "--gpus", "1024", "--source-gpus", "32"]])
def test_a_cause_name_with_an_escape_sequence_is_printed_escaped(tmp_path, command):
    log = _hostile_log(tmp_path)
    args = [command[0]] + ([str(log)] if command[0] in ("rates", "fit") else ["--log", str(log)]) + command[1:]
    args += ["--start", "start", "--cause", "cause"] + (["--node", "node"] if command[0] != "fit" else [])
    res = CliRunner().invoke(cli, args)
    assert not _raw_controls(res.output), (res.exit_code, res.output[-500:])


def test_a_file_name_with_an_escape_sequence_is_escaped_in_the_error_line(tmp_path):
    bad = tmp_path / "x\x1b]0;pwned\x07.csv"
    bad.write_text("nothing,here\n1,2\n")
    res = CliRunner().invoke(cli, ["rates", str(bad), "--start", "start"])
    assert res.exit_code == 2
    assert not _raw_controls(res.output) and "\\x1b]0;pwned\\x07" in res.output


def test_terminal_text_escapes_every_control_but_newline_and_tab():
    from relmodel.base.escape import terminal_text
    for code in list(range(32)) + list(range(0x7f, 0xa0)) + [0x202e, 0x2066]:
        shown = terminal_text(f"a{chr(code)}b")
        if chr(code) in "\n\t":
            assert shown == f"a{chr(code)}b"
        else:
            assert not _raw_controls(shown) and chr(code) not in shown and "\\" in shown


# --- 6. silently wrong or raw errors: Slurm exports -----------------------------------------------

HEAD = "JobID|JobName|State|ExitCode|Start|End|NNodes\n"


def _two_segments(start0, end0, start1, end1, nnodes="4", exit0="0:0"):
    return (HEAD + f"10|train|NODE_FAIL|{exit0}|{start0}|{end0}|{nnodes}\n"
            f"11|train|COMPLETED|0:0|{start1}|{end1}|4\n")


def test_a_ten_digit_time_format_is_read_with_the_format_not_as_unix_seconds():
    import relmodel
    text = _two_segments("2403010000", "2403020000", "2403020030", "2403030030")
    log = relmodel.read_sacct(text, time_format="%y%m%d%H%M")
    assert log.restart_gaps().hours.tolist() == pytest.approx([0.5])      # 00:00 to 00:30 on 2 March


def test_sacct_times_with_utc_offsets_are_read_at_their_offsets():
    import relmodel
    # 10 ends at 00:00+02:00 = 22:00 UTC on 1 March; 11 starts at 00:30+01:00 = 23:30 UTC: 1.5 h later
    text = _two_segments("2024-03-01T00:00:00+02:00", "2024-03-02T00:00:00+02:00",
                         "2024-03-02T00:30:00+01:00", "2024-03-03T00:30:00+01:00")
    assert relmodel.read_sacct(text).restart_gaps().hours.tolist() == pytest.approx([1.5])


def test_sacct_times_mixing_offsets_and_none_are_a_named_error():
    import relmodel
    from relmodel.errors import SacctFormatError
    text = _two_segments("2024-03-01T00:00:00+02:00", "2024-03-02T00:00:00+02:00",
                         "2024-03-02T00:30:00", "2024-03-03T00:30:00")
    with pytest.raises(SacctFormatError, match="line 3"):
        relmodel.read_sacct(text)


@pytest.mark.parametrize("nnodes", ["-4", "0", "2.5"])
def test_a_node_count_that_is_not_a_whole_positive_number_is_refused_with_its_line(nnodes):
    import relmodel
    from relmodel.errors import SacctFormatError
    text = _two_segments("2024-03-01T00:00:00", "2024-03-02T00:00:00", "2024-03-02T00:30:00",
                         "2024-03-03T00:30:00", nnodes=nnodes)
    with pytest.raises(SacctFormatError, match=r"line 2, field 'NNodes'"):
        relmodel.read_sacct(text)


def test_an_exit_code_or_elapsed_time_past_int64_is_a_named_error():
    import relmodel
    from relmodel.errors import SacctFormatError
    huge = str(2 ** 70)
    text = _two_segments("2024-03-01T00:00:00", "2024-03-02T00:00:00", "2024-03-02T00:30:00",
                         "2024-03-03T00:30:00", exit0=f"{huge}:0")
    with pytest.raises(SacctFormatError, match="ExitCode"):
        relmodel.read_sacct(text)
    text = ("JobID|JobName|State|ExitCode|Start|End|Elapsed|NNodes\n"
            f"10|train|NODE_FAIL|0:0|2024-03-01T00:00:00|Unknown|{huge}:00:00|4\n"
            "11|train|COMPLETED|0:0|2024-03-02T00:30:00|2024-03-03T00:30:00|24:00:00|4\n")
    with pytest.raises(SacctFormatError, match="Elapsed"):
        relmodel.read_sacct(text)


@pytest.mark.parametrize("fmt", ["%Y-%m-%dT%H:%M:%S%Y", "%H%H", "%Y-%m-%dT%I:%M:%S %H"])
def test_a_time_format_naming_a_field_twice_is_a_named_error(tmp_path, fmt):
    import relmodel
    from relmodel.errors import LogFormatError
    text = _two_segments("2024-03-01T00:00:00", "2024-03-02T00:00:00", "2024-03-02T00:30:00",
                         "2024-03-03T00:30:00")
    with pytest.raises(LogFormatError, match="twice"):
        relmodel.read_sacct(text, time_format=fmt)
    path = tmp_path / "log.csv"
    path.write_text("start,cause\n2024-03-01T00:00:00,GPU\n2024-03-02T00:00:00,GPU\n")
    with pytest.raises(LogFormatError, match="twice"):
        relmodel.read_log(path, start="start", time_format=fmt)


# --- 6. silently wrong or raw errors: arguments of the public functions ---------------------------

@pytest.fixture(scope="module")
def stepfun():
    import relmodel
    return relmodel.datasets.stepfun()


@pytest.mark.parametrize("kw, error, needle", [
    (dict(ckpt_cost=-1), "ModelInputError", "ckpt_cost"), (dict(ckpt_cost=float("nan")), "ModelInputError", "ckpt_cost"),
    (dict(restart=-1), "ModelInputError", "restart"), (dict(restart=float("nan")), "ModelInputError", "restart"),
    (dict(quantities=["failures", "failures"]), "FitError", "more than once"),
    (dict(n_draws=0), "CountError", "n_draws"), (dict(n_draws=-5), "CountError", "n_draws"),
    (dict(seed=-1), "ModelInputError", "seed"), (dict(split="0.7"), "FitError", "split"),
    (dict(conf="0.9"), "FitError", "conf"), (dict(n_draws=10 ** 13), "BudgetError", "n_draws"),
])
def test_forecast_check_refuses_bad_arguments_by_name(stepfun, kw, error, needle):
    import relmodel
    from relmodel import errors
    with pytest.raises(getattr(errors, error), match=needle):
        relmodel.checkpoint.forecast_check(stepfun, **kw)


def test_forecast_check_of_no_logs_is_refused():
    import relmodel
    from relmodel.errors import FitError
    with pytest.raises(FitError, match="at least one log"):
        relmodel.checkpoint.forecast_check([])


def test_fit_refuses_a_two_dimensional_array():
    import numpy as np

    import relmodel
    from relmodel.errors import FitError
    for a in (np.arange(1, 21, dtype=float).reshape(4, 5), np.arange(1, 21).reshape(4, 5)):
        with pytest.raises(FitError, match="shape"):
            relmodel.fit(a, "weibull")


def test_component_rates_of_a_count_table_refuses_an_unknown_column():
    import relmodel
    from relmodel.errors import UnknownColumnError
    counts = relmodel.datasets.llama3_54day()
    with pytest.raises(UnknownColumnError, match="'component'.*'category'"):
        relmodel.stats.component_rates(counts, by="nosuch")
    by_cat = relmodel.stats.component_rates(counts, by="category")
    total = by_cat.loc[by_cat["component"] == "Total", "count"].iloc[0]
    assert by_cat["component"].iloc[0] == "GPU" and total == counts.counts["count"].sum()


@pytest.mark.parametrize("n_gpus", [1024.5, True, float("nan"), -8])
def test_decide_refuses_a_gpu_count_that_is_not_whole(n_gpus):
    import relmodel
    from relmodel.errors import ModelInputError
    with pytest.raises(ModelInputError, match="n_gpus"):
        relmodel.decide(relmodel.datasets.llama3_54day(), n_gpus, 0.9, "1min", "10min", n_boot=20, simulate=False)


def test_backtest_refuses_a_nan_interval_or_cost(tmp_path):
    import relmodel
    from relmodel.errors import ModelInputError
    run = relmodel.read_sacct(_slurm_run())
    for args in ((float("nan"), "1min"), ("30min", float("nan"))):
        with pytest.raises(ModelInputError, match="all finite"):
            relmodel.checkpoint.backtest(run, *args)


def test_whatif_refuses_a_negative_bootstrap_size():
    import relmodel
    from relmodel.errors import CountError
    from relmodel.stragglers.ops import example_ops
    with pytest.raises(CountError, match="n_boot"):
        relmodel.stragglers.whatif(example_ops("ST"), n_boot=-1)


def test_synthetic_steps_checks_its_size_before_allocating():
    import relmodel
    from relmodel.errors import BudgetError, ModelInputError
    with pytest.raises(BudgetError, match="synthetic_steps"):
        relmodel.stragglers.synthetic_steps(n_nodes=10 ** 6, ranks_per_node=8, n_steps=10 ** 6)
    with pytest.raises(ModelInputError, match="n_nodes"):
        relmodel.stragglers.synthetic_steps(n_nodes=4.5)


@pytest.mark.parametrize("setting", ["RELMODEL_WORK_BUDGET=lots", "RELMODEL_MEMORY_BUDGET=-1"])
def test_a_mistyped_budget_variable_is_said_with_its_name(setting):
    import os
    import subprocess
    import sys
    name, value = setting.split("=")
    res = subprocess.run([sys.executable, "-c", "import relmodel.budget_guard as b; print(b.current_budget())"],
                         env={**os.environ, name: value}, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0
    assert "BudgetWarning" in res.stderr and name in res.stderr and repr(value) in res.stderr
