"""Hostile input to the data layer and the public functions: a right answer or a named error.

One test per case, grouped by kind: times read wrongly without a word, windows
that cannot be known, numbers out of range, files that are truncated, corrupt
or not files, arguments of the wrong type, and messages that must help.
Every error must be a class from relmodel.errors.
"""

import bz2
import gzip
import lzma
import os
import warnings

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel import errors

TWO = "start,end,node\n2024-01-01 00:00,2024-01-01 02:00,a\n2024-01-11 00:00,2024-01-11 01:00,b\n"


def csv(tmp_path, text, name="log.csv"):
    p = tmp_path / name
    p.write_text(text) if isinstance(text, str) else p.write_bytes(text)
    return p


# ----- times that were read wrongly without a word --------------------------------------------

def test_mixed_day_month_order_is_refused(tmp_path):
    p = csv(tmp_path, "t\n01/02/2024\n13/02/2024\n02/15/2024\n")
    with pytest.raises(errors.AmbiguousDateError, match=r"row 2 \(line 3\).*time_format"):
        relmodel.read_log(p, start="t")


def test_day_first_dates_read_day_first_throughout(tmp_path):
    # 13/02 can only be day-first, so 01/02 is 1 February, not 2 January
    p = csv(tmp_path, "t\n01/02/2024\n13/02/2024\n")
    log = relmodel.read_log(p, start="t")
    assert log.events["start_h"].tolist() == [0.0, 12 * 24.0]


def test_dates_with_no_day_above_12_are_refused(tmp_path):
    p = csv(tmp_path, "t\n01/02/2024\n03/04/2024\n")
    with pytest.raises(errors.AmbiguousDateError, match="cannot tell day from month"):
        relmodel.read_log(p, start="t")


def test_explicit_time_format_settles_the_order(tmp_path):
    p = csv(tmp_path, "t\n01/02/2024\n03/04/2024\n")
    log = relmodel.read_log(p, start="t", time_format="%d/%m/%Y")
    assert log.window_h[1] == (pd.Timestamp("2024-04-03") - pd.Timestamp("2024-02-01")) / pd.Timedelta(hours=1)


@pytest.mark.parametrize("zone", ["EDT", "EST", "CEST"])
def test_zone_abbreviations_are_refused(tmp_path, zone):
    p = csv(tmp_path, f"t\n2024-03-01 10:00 {zone}\n2024-03-02 10:00 {zone}\n")
    with pytest.raises(errors.TimeZoneError, match=f"{zone}.*offset"):
        relmodel.read_log(p, start="t")


def test_naive_times_mixed_with_offsets_are_refused(tmp_path):
    p = csv(tmp_path, "t\n2024-03-01 10:00+02:00\n2024-03-02 10:00\n")
    with pytest.raises(errors.MixedTimeZoneError, match=r"row 2 \(line 3\).*no UTC offset"):
        relmodel.read_log(p, start="t")


def test_offsets_are_respected(tmp_path):
    p = csv(tmp_path, "t\n2024-03-01 10:00+02:00\n2024-03-01 10:00-03:00\n")
    assert relmodel.read_log(p, start="t").window_h == (0.0, 5.0)


# ----- windows that cannot be known, or are not windows ----------------------------------------

def test_one_event_log_needs_a_window(tmp_path):
    p = csv(tmp_path, "start,end\n2024-01-01 00:00,2024-01-01 02:00\n")
    with pytest.raises(errors.WindowError, match=r"one event.*window=\(t0, t1\)"):
        relmodel.read_log(p, start="start", end="end")


def test_one_event_log_with_a_window_gives_the_window_rate(tmp_path):
    p = csv(tmp_path, "start,end\n2024-01-01 00:00,2024-01-01 02:00\n")
    log = relmodel.read_log(p, start="start", end="end", window=("2024-01-01", "2024-01-31"))
    total = relmodel.stats.component_rates(log, per="job").iloc[-1]
    assert total["mtbf_h"] == pytest.approx(30 * 24.0)  # one failure in 720 h


def test_events_all_at_one_time_need_a_window():
    df = pd.DataFrame({"t": [5.0, 5.0], "n": ["a", "b"]})
    with pytest.raises(errors.WindowError, match="all start at one time"):
        relmodel.read_log(df, start="t", node="n", time_unit="h")


def test_reversed_window_is_refused():
    with pytest.raises(errors.WindowError, match="before it starts"):
        relmodel.read_log(pd.DataFrame({"t": [1.0, 2.0]}), start="t", time_unit="h", window=(10, 0))


def test_nan_window_is_refused():
    with pytest.raises(errors.WindowError, match="finite"):
        relmodel.read_log(pd.DataFrame({"t": [1.0, 2.0]}), start="t", time_unit="h", window=(0, float("nan")))


def test_unreadable_window_is_refused():
    df = pd.DataFrame({"t": ["2024-01-01", "2024-01-05"]})
    with pytest.raises(errors.WindowError, match="'xx'"):
        relmodel.read_log(df, start="t", window=("xx", "yy"))


def test_one_element_window_is_refused():
    with pytest.raises(errors.WindowError, match="pair"):
        relmodel.read_log(pd.DataFrame({"t": [1.0, 2.0]}), start="t", time_unit="h", window=(3,))


# ----- numbers out of range --------------------------------------------------------------------

def test_infinite_numeric_time_is_refused():
    with pytest.raises(errors.TimeRangeError, match="row 2"):
        relmodel.read_log(pd.DataFrame({"t": [1.0, np.inf]}), start="t", time_unit="h")


def test_absurd_numeric_time_is_refused():
    with pytest.raises(errors.TimeRangeError, match="1e\\+308"):
        relmodel.read_log(pd.DataFrame({"t": [1.0, 1e308]}), start="t", time_unit="s")


def test_count_over_2_53_is_refused():
    with pytest.raises(errors.CountError, match="row 1, column 'count'"):
        relmodel.count_table(pd.DataFrame({"component": ["gpu"], "count": [1e20]}), n_gpus=8,
                             gpus_per_node=8, duration="1d")


@pytest.mark.parametrize("count", [2.5, -1, "three"])
def test_non_integer_or_negative_count_is_refused(count):
    with pytest.raises(errors.CountError, match="not a count"):
        relmodel.count_table(pd.DataFrame({"component": ["gpu"], "count": [count]}), n_gpus=8,
                             gpus_per_node=8, duration="1d")


@pytest.mark.parametrize("n_nodes", [-5, 2.5, float("nan"), True])
def test_bad_node_count_is_refused(n_nodes):
    with pytest.raises(errors.CountError, match="n_nodes"):
        relmodel.read_log(pd.DataFrame({"t": [1.0, 2.0]}), start="t", time_unit="h", n_nodes=n_nodes)


@pytest.mark.parametrize("n_gpus", [float("nan"), float("inf")])
def test_nan_or_inf_gpu_count_in_a_count_table(n_gpus):
    with pytest.raises(errors.CountError, match="n_gpus"):
        relmodel.count_table(pd.DataFrame({"component": ["gpu"], "count": [1]}), n_gpus=n_gpus,
                             gpus_per_node=8, duration="1d")


@pytest.mark.parametrize("n_gpus", [float("nan"), float("inf")])
def test_nan_or_inf_gpu_count_in_requirements(llama3, n_gpus):
    with pytest.raises(errors.ModelInputError, match="n_gpus"):
        relmodel.scale.required_node_mtbf(n_gpus, 0.9, "1min")
    with pytest.raises(errors.ModelInputError, match="n_gpus"):
        relmodel.scale.plan_requirements(llama3, n_gpus, 0.9, "1min", n_boot=100, seed=0)


def test_bootstrap_draws_are_capped(llama3):
    with pytest.raises(errors.ResourceLimitError, match="at most 200,000"):
        relmodel.scale.plan_requirements(llama3, 1000, 0.9, "1min", n_boot=1_000_000_000, seed=0)


def test_optimal_interval_for_a_huge_mtbf_and_tiny_cost():
    # Young's sqrt(2 d M) is exact to first order when d/M -> 0: sqrt(2 * 1e-300 * 1e300) = sqrt(2)
    tau = relmodel.optimal_interval(mtbf=1e300, ckpt_cost=1e-300)
    assert tau == pytest.approx(np.sqrt(2.0), rel=1e-12)


def test_ettr_for_a_tiny_interval_and_huge_mtbf():
    # no failures in practice: ETTR = tau / (tau + d)
    assert relmodel.ettr(interval=1e-300, mtbf=1e300, ckpt_cost=0) == 1.0
    assert relmodel.ettr(interval=1e-300, mtbf=1e300, ckpt_cost=1e-300) == pytest.approx(0.5)


def test_best_step_interval_with_a_vanishing_step_is_an_error():
    with pytest.raises(errors.ModelInputError, match="2\\^53 steps"):
        relmodel.checkpoint.best_step_interval(step=1e-300, mtbf=3.0, ckpt_cost=0.01)


# ----- files that are truncated, corrupt or not files ------------------------------------------

@pytest.mark.parametrize("suffix, compress", [(".csv.gz", gzip.compress), (".csv.xz", lzma.compress),
                                               (".csv.bz2", bz2.compress)])
def test_truncated_compressed_csv(tmp_path, suffix, compress):
    blob = compress((TWO * 200).encode())
    p = csv(tmp_path, blob[: len(blob) // 2], "log" + suffix)
    with pytest.raises(errors.CorruptFileError, match="truncated or corrupt"):
        relmodel.read_log(p, start="start")


def test_truncated_json_gz(tmp_path):
    blob = gzip.compress(b'[{"t": "2024-01-01"}, {"t": "2024-01-02"}]' * 50)
    p = csv(tmp_path, blob[:40], "log.json.gz")
    with pytest.raises(errors.CorruptFileError):
        relmodel.read_log(p, start="t")


def test_corrupt_xz(tmp_path):
    p = csv(tmp_path, b"\xfd7zXZ\x00" + bytes(range(256)) * 4, "log.csv.xz")
    with pytest.raises(errors.CorruptFileError):
        relmodel.read_log(p, start="start")


def test_missing_file_is_a_named_file_not_found(tmp_path):
    with pytest.raises(errors.LogFileNotFound, match="no such file") as info:
        relmodel.read_log(tmp_path / "nope.csv", start="t")
    assert isinstance(info.value, FileNotFoundError) and isinstance(info.value, errors.RelmodelError)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_csv_symlinked_to_dev_zero_is_refused(tmp_path):
    p = tmp_path / "zero.csv"
    p.symlink_to("/dev/zero")
    with pytest.raises(errors.NotARegularFileError, match="not a regular file"):
        relmodel.read_log(p, start="t")


def test_folder_named_like_a_log_is_refused(tmp_path):
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(errors.NotARegularFileError, match="folder"):
        relmodel.read_log(tmp_path / "dir.csv", start="t")


def test_file_without_line_breaks_is_not_read_whole(tmp_path):
    p = csv(tmp_path, b"a" * (2 << 20), "blob.csv")
    with pytest.raises(errors.LogFormatError, match="first line is longer than 1 MiB"):
        relmodel.read_log(p, start="t")


def test_non_utf8_log_names_the_line(tmp_path):
    p = csv(tmp_path, "t,node\n2024-01-01,a\n2024-01-02,caf\xe9\n".encode("latin-1"))
    with pytest.warns(relmodel.data.LogWarning, match=r"line 3: byte 0xe9 is not UTF-8.*Windows-1252"):
        log = relmodel.read_log(p, start="t", node="node")
    assert "caf\u00e9" in set(log.events["node"])


# ----- arguments of the wrong type -------------------------------------------------------------

@pytest.mark.parametrize("source", [None, 123, b"log.csv"])
def test_source_that_is_not_a_path_or_frame(source):
    with pytest.raises(errors.InputTypeError, match="file path or a pandas DataFrame"):
        relmodel.read_log(source, start="t")


def test_start_given_as_a_list():
    with pytest.raises(errors.InputTypeError, match="start="):
        relmodel.read_log(pd.DataFrame({"t": [1.0, 2.0]}), start=["t"], time_unit="h")


def test_unknown_by_column_for_rates(stepfun_log):
    with pytest.raises(errors.UnknownColumnError, match="'nocol'.*'Level'"):
        relmodel.stats.component_rates(stepfun_log, by="nocol")


def test_string_seed_for_the_simulator():
    with pytest.raises(errors.ModelInputError, match="seed"):
        relmodel.simulate_training(work="1d", interval="1h", ckpt_cost="1min", restart="5min",
                                   failures="10h", n_runs=10, seed="abc")


def test_bad_time_format_directive():
    df = pd.DataFrame({"t": ["2024-01-01", "2024-01-05"]})
    with pytest.raises(errors.TimeParseError, match="%Q"):
        relmodel.read_log(df, start="t", time_format="%Q")


# ----- messages that help ----------------------------------------------------------------------

def test_fit_rows_are_counted_from_1():
    with pytest.raises(errors.FitError, match="row 3: duration -1 "):
        relmodel.fit([2.0, 3.0, -1.0], "exponential")


def test_trend_on_a_one_event_log_counts_it():
    df = pd.DataFrame({"t": [5.0]})
    log = relmodel.read_log(df, start="t", time_unit="h", window=(0, 100))
    with pytest.raises(errors.FitError, match="got 1$"):
        relmodel.stats.trend(log)


def test_per_gpu_message_names_the_argument_that_exists():
    log = relmodel.read_log(pd.DataFrame({"t": [1.0, 2.0]}), start="t", time_unit="h")
    with pytest.raises(errors.UnitError) as info:
        relmodel.stats.component_rates(log, per="gpu")
    assert "gpus_per_node" in str(info.value)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok = relmodel.read_log(pd.DataFrame({"t": [1.0, 2.0]}), start="t", time_unit="h", gpus_per_node=8)
    assert relmodel.stats.component_rates(ok, per="gpu").iloc[-1]["count"] == 2


def test_errors_name_the_data_row_and_the_file_line(tmp_path):
    p = csv(tmp_path, "t\n2024-01-01\n2024-01-02\nlater\n")
    with pytest.raises(errors.TimeParseError, match=r"log\.csv, row 3 \(line 4\), column 't'"):
        relmodel.read_log(p, start="t")
