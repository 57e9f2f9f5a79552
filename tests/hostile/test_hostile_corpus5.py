"""Fifth hostile corpus: logs as damaged files arrive (bytes of two encodings, NUL padding, UTF-16, a log that
covers no time, an empty file) and numbers and warnings a command-line user should read as a person would.

Each case runs the library call or the command a user would, and checks the outcome against what the test
itself knows to be right (a hand count, the bytes it wrote, the exception class a user can catch).
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import relmodel
from conftest import run_cli
from relmodel.data import LogWarning
from relmodel.errors import EmptyDataError, EncodingError, InputTypeError, ModelInputError, RelmodelError, WindowError

XID79 = "kernel: NVRM: Xid (PCI:0000:cb:00): 79, pid=77, GPU has fallen off the bus."
SACCT_HEAD = "JobID|JobName|State|ExitCode|Start|End|Elapsed|NNodes|NodeList\n"


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LogWarning)
        return fn(*args, **kwargs)


# --- logs that cover no time ------------------------------------------------------------------------------------

@pytest.fixture
def no_time(tmp_path):
    kern = tmp_path / "kern.log"
    kern.write_text(f"Mar  2 06:28:00 gpu03 {XID79}\n")
    sacct = tmp_path / "sacct.txt"
    row = "|p|NODE_FAIL|0:0|2024-03-01T00:00:00|2024-03-01T00:00:00|00:00:00|4|gpu[01-04]\n"
    sacct.write_text(SACCT_HEAD + "1" + row + "2" + row)
    return kern, sacct


def test_a_log_that_covers_no_time_is_a_window_error_for_rates_and_bad_nodes(no_time):
    kern, sacct = no_time
    k = relmodel.read_xid(kern, year=2024)
    assert len(k) == 1 and k.duration_h == 0          # read: it is the rates that cannot be told
    for log, how in ((k, "first line to its last"), (_quiet(relmodel.read_sacct, sacct, job="p"), "job's run")):
        with pytest.raises(WindowError, match=f"covers no time.*{how}"):
            relmodel.stats.component_rates(log)
    with pytest.raises(WindowError, match="covers no time"):   # was a ZeroDivisionError
        relmodel.bad_nodes(k, seed=0)


def test_the_commands_say_so_in_one_line(no_time):
    kern, sacct = no_time
    for args in (("rates", kern, "--year", "2024"), ("nodes", kern, "--year", "2024"), ("interval", "--log", sacct)):
        r = run_cli(*args)
        assert r.exit_code == 2, r.output
        assert "covers no time" in r.stderr and "Traceback" not in r.output + r.stderr


# --- bytes of two encodings, NUL, UTF-16, nothing ---------------------------------------------------------------

def test_utf8_around_a_windows_byte_stays_utf8(tmp_path):
    """Two exports joined, one from Windows: the UTF-8 names are read as written and only the stray byte as
    Windows-1252 (the whole file was read as Windows-1252: "nodé1" became "nodÃ©1", the job "prétrain" lost)."""
    log = tmp_path / "log.csv"
    log.write_bytes("start,host\n2024-01-01 00:00,nodé1\n2024-01-02 00:00,nodé1\n".encode()
                    + "2024-01-05 00:00,nodü2\n".encode("cp1252"))
    with pytest.warns(LogWarning, match="line 4: byte 0xfc is not UTF-8"):
        got = relmodel.read_log(log, start="start", node="host")
    assert sorted(set(got.events["node"])) == ["nodé1", "nodü2"]
    sacct = tmp_path / "sacct.txt"
    sacct.write_bytes((SACCT_HEAD + "1|prétrain|NODE_FAIL|0:0|2024-03-01T00:00:00|2024-03-01T10:00:00|10:00:00|4|"
                       "gpu[01-04]\n").encode()
                      + ("2|prétrain|COMPLETED|0:0|2024-03-01T11:00:00|2024-03-02T10:00:00|23:00:00|4|gpu[01-04] "
                         "\u201cx\u201d\n").encode("cp1252"))
    with pytest.warns(LogWarning, match="line 3: byte 0xe9 is not UTF-8"):
        run = relmodel.read_sacct(sacct, job="prétrain")
    assert len(run) == 1                                    # the NODE_FAIL of line 2


def test_nul_bytes_in_a_table_are_taken_out_and_said(tmp_path):
    log = tmp_path / "log.csv"
    log.write_bytes(b"start,host\n2024-01-01 00:00,a\n2024-01-1\x005 00:00,b\n2024-01-20 00:00,n3\n"
                    b"2024-01-21 00:00,\x00n3\n")
    with pytest.warns(LogWarning, match=r"row 2 \(line 3\), column 'start': a NUL byte.*2 cells"):
        got = relmodel.read_log(log, start="start", node="host")
    assert got.n_nodes == 3 and sorted(set(got.events["node"])) == ["a", "b", "n3"]
    assert got.events["start_h"].tolist() == [0.0, 14 * 24.0, 19 * 24.0, 20 * 24.0]


def test_nul_padding_an_unclean_shutdown_leaves_in_a_syslog_is_skipped(tmp_path):
    """The NUL run a crash leaves, with no line end before the next line: the two Xid faults around it are
    counted (the whole log was refused)."""
    text = (b"Mar  1 00:00:00 gpu01 kernel: Linux version 6.8.0\n"
            + f"Mar  2 06:28:00 gpu03 {XID79}\n".encode() + b"\x00" * 4096
            + b"Mar  2 08:30:00 gpu03 kernel: Linux version 6.8.0\n"
            + b"Mar  3 11:55:00 gpu02 kernel: NVRM: Xid (PCI:0000:1a:00): 48, pid=77, An uncorrectable double bit error\n")
    (tmp_path / "syslog").write_bytes(text)
    for read in (lambda: relmodel.read_xid(tmp_path / "syslog", year=2024),
                 lambda: relmodel.load_source(str(tmp_path / "syslog"), year=2024).data):   # sniffed, then read
        log = read()
        assert sorted(log.events["component"]) == ["Faulty GPU", "GPU HBM3 Memory"]


def test_utf16_is_read_where_it_can_be_and_named_where_not(tmp_path):
    sacct = tmp_path / "sacct.txt"
    sacct.write_bytes((SACCT_HEAD + "1|p|NODE_FAIL|0:0|2024-03-01T00:00:00|2024-03-02T10:00:00|34:00:00|4|"
                       "gpu[01-04]\n").encode("utf-16"))
    assert len(relmodel.read_sacct(sacct, job="p")) == 1
    kern = tmp_path / "kern.log"
    kern.write_bytes(f"Mar  2 06:28:00 gpu03 {XID79}\nMar  3 06:28:00 gpu03 {XID79}\n".encode("utf-16"))
    with pytest.raises(EncodingError, match="UTF-16.*iconv"):
        relmodel.read_xid(kern, year=2024)
    r = run_cli("rates", kern, "--year", "2024")
    assert r.exit_code == 2 and "the file is UTF-16" in r.stderr


def test_an_empty_file_says_it_is_empty(tmp_path):
    for name in ("empty.txt", "blank.log"):
        (tmp_path / name).write_text("" if name == "empty.txt" else "\n \n")
        with pytest.raises(EmptyDataError, match="the file is empty"):
            relmodel.load_source(str(tmp_path / name))
        r = run_cli("rates", tmp_path / name)
        assert r.exit_code == 2 and "the file is empty" in r.stderr


# --- the command line: values, names and warnings a person reads --------------------------------------------------

def test_interval_refuses_zero_gpus_by_its_own_flag():
    for n in ("0", "-1"):
        r = run_cli("interval", "--log", "llama3", "--gpus", n, "--ckpt-cost", "1min", "--restart", "10min")
        assert r.exit_code == 2 and "'--gpus'" in r.stderr and "--n-gpus" not in r.stderr


def test_nodes_escapes_control_characters_in_names(tmp_path):
    log = tmp_path / "log.csv"
    log.write_bytes(b"start,end,host\n2024-01-01 00:00,2024-01-01 01:00,\x1b[31mRED\n"
                    b"2024-01-03 00:00,2024-01-03 01:00,\x1b[31mRED\n2024-01-05 00:00,2024-01-05 01:00,n\x01X\n"
                    b"2024-01-09 00:00,2024-01-09 01:00,ok\n")
    r = run_cli("nodes", log, "--start", "start", "--end", "end", "--node", "host")
    assert r.exit_code == 0, r.output
    assert "\x1b" not in r.stdout and "\x01" not in r.stdout
    assert "\\x1b[31mRED" in r.stdout and "n\\x01X" in r.stdout


def test_warnings_on_the_command_line_name_the_values_not_python(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        r = run_cli("interval", "--mtbf", "0.001s", "--ckpt-cost", "1min")
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert lines == ["relmodel: warning: ckpt_cost (1 min) is at or above mtbf (0.001 s): check the values given"]
    rates = tmp_path / "counts.csv"
    rates.write_text("component,count\nGPU,10\nPSU,0\n")
    r = run_cli("rates", rates, "--source-gpus", "1024", "--exposure", "30d")
    assert r.exit_code == 0, r.output
    psu = next(ln for ln in r.stdout.splitlines() if ln.strip().startswith("PSU"))
    assert "NaN" not in psu and "—" in psu


def test_numbers_in_sentences_are_for_people():
    from relmodel.scale.targets.requirements import required_node_mtbf
    with pytest.raises(RelmodelError) as err:
        required_node_mtbf(1_048_576, 0.999999, "1min", "57min", fixed_rate_per_h=1 / 20.6)
    said = str(err.value)
    assert "an ETTR of 99.9999% is out of reach" in said and "e+" not in said and "-min" not in said
    d = relmodel.decide(relmodel.datasets.llama3_54day(), 16_384, 0.999999, "0.1s", n_boot=20, seed=0)
    assert "target 99.9999% is" in d.text() and "0.0 min" not in d.text()
    pool = relmodel.spare_pool(5, "8766h", 1e-9)
    assert "within the 1 in 1,000,000,000 asked" in pool.text() and "under the under" not in pool.text()


# --- the API: missing values and calls that do not fit ---------------------------------------------------------

def test_a_missing_duration_is_said_missing():
    with pytest.raises(RelmodelError, match="row 2: duration is missing"):
        relmodel.fit(pd.Series(pd.to_timedelta([1, None, 3], unit="h")), "weibull")
    assert np.isnan(relmodel.units.hours(pd.Series(pd.to_timedelta([None], unit="h"))))[0]


def test_calls_that_do_not_fit_are_named_errors():
    from relmodel.scale.lifecycle import fleet_model
    with pytest.raises(ModelInputError, match="fleet_model does not take 'n_gpus'"):
        fleet_model(n_gpus=8)
    with pytest.raises(InputTypeError, match="fleet_model: too many positional arguments"):
        fleet_model(relmodel.Scenario())
    with pytest.raises(InputTypeError, match="missing a required argument: 'ckpt_cost'"):
        relmodel.optimal_interval(3.0)
