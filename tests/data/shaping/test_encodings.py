"""Logs that are not UTF-8: one reader for the CLI, the library and the report's parameter check.

UTF-8 first; a file that is not is read as Windows-1252, else Latin-1, with a LogWarning naming the
line and the byte.
"""

import gzip
import warnings

import pytest

import relmodel
from relmodel.data.shaping import readers
from relmodel.report.parameters.rules import log_header
from conftest import report_cli, run_cli

N = 20_000  # rows: the bad byte is about 600 kB past the header, beyond any first block a reader sniffs


def _log(path, bad_cause=b"\x93bad\x94 link", header=b"start,node,cause", row=N - 5, opener=open):
    lines = [header] + [f"2024-01-{1 + i % 28:02d} {i % 24:02d}:{i % 60:02d},n{i % 50},gpu".encode()
                        for i in range(N)]
    lines[row] = b"2024-01-10 05:00,n3," + bad_cause
    with opener(path, "wb") as fh:
        fh.write(b"\n".join(lines) + b"\n")
    return path


def _read(path, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        log = relmodel.read_log(path, start="start", node="node", cause="cause", **kw)
    said = [str(w.message) for w in caught if issubclass(w.category, relmodel.data.LogWarning)]
    return log, said


def test_logwarning_is_the_readers_class():
    assert getattr(readers, "LogWarning", None) is relmodel.data.LogWarning


def test_cp1252_byte_far_past_the_header_is_read_with_a_warning(tmp_path):
    log, said = _read(_log(tmp_path / "log.csv"))
    assert "\u201cbad\u201d link" in set(log.events["cause"])
    enc = [s for s in said if "0x93" in s]
    assert len(enc) == 1 and f"line {N - 5 + 1}" in enc[0] and "Windows-1252" in enc[0], said


def test_a_byte_windows_1252_lacks_falls_back_to_latin1(tmp_path):
    log, said = _read(_log(tmp_path / "log.csv", bad_cause=b"caf\xe9 \x81"))
    assert "caf\u00e9 \u0081" in set(log.events["cause"])
    assert any("0xe9" in s and "Latin-1" in s for s in said), said


def test_compressed_and_non_utf8_header(tmp_path):
    p = _log(tmp_path / "log.csv.gz", header=b"start,node,cause", opener=gzip.open)
    log, said = _read(p)
    assert any("0x93" in s for s in said)
    p = _log(tmp_path / "h.csv", header=b"start,node,caus\xe9", bad_cause=b"gpu")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        log = relmodel.read_log(p, start="start", node="node", cause="caus\u00e9")
    assert any("line 1" in str(w.message) and "0xe9" in str(w.message) for w in caught)
    assert log.cause_columns == ["caus\u00e9"]


def test_json_in_windows_1252(tmp_path):
    p = tmp_path / "log.json"
    p.write_bytes(b'[{"t": "2024-01-01", "why": "\x93x\x94"}, {"t": "2024-01-02", "why": "y"}]')
    with pytest.warns(relmodel.data.LogWarning, match="line 1: byte 0x93"):
        log = relmodel.read_log(p, start="t", cause="why")
    assert "\u201cx\u201d" in set(log.events["why"])


def test_utf8_files_do_not_warn(tmp_path):
    _, said = _read(_log(tmp_path / "log.csv", bad_cause="\u201cok\u201d".encode()))
    assert not [s for s in said if "UTF-8" in s]


def test_cli_reads_it_and_says_so_once(tmp_path):
    p = _log(tmp_path / "log.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("default", relmodel.data.LogWarning)  # shown, as outside the suite (pyproject: error)
        r = run_cli("rates", p, "--start", "start", "--node", "node", "--cause", "cause")
    assert r.exit_code == 0, r.output
    said = [ln for ln in r.stderr.splitlines() if "0x93" in ln]
    assert len(said) == 1 and said[0].startswith("relmodel: warning: ") and f"line {N - 5 + 1}" in said[0]
    assert "\u201cbad\u201d link" in r.stdout


def test_report_header_check_reads_what_the_reader_reads(tmp_path):
    p = _log(tmp_path / "log.csv")
    assert log_header(p) == ["start", "node", "cause"]
    src = relmodel.load_source(str(p), start="start", node="node", cause="cause")
    assert any("0x93" in n for n in src.notes)  # the report's pages show the reading note


def test_report_parameters_accept_it(tmp_path, no_kernel):
    p = _log(tmp_path / "log.csv")
    r = report_cli("-n", "01", "-p", f"log={p}", "-p", "start=start", "-p", "node=[node]", "-p", "cause=[cause]",
                   "--out", tmp_path / "out")
    assert "utf-8" not in r.output.lower() and "cannot read the columns" not in r.output, r.output
    assert isinstance(r.exception, AssertionError) and "kernel was started" in str(r.exception)


def test_slurm_export_in_windows_1252(tmp_path):
    """The text readers (Slurm exports) take the same fallback as the table reader."""
    from relmodel.data.bundled.datasets import data_dir
    raw = (data_dir() / "ops-example" / "sacct.txt").read_bytes().split(b"\n")
    raw[1] = raw[1].replace(b"|pretrain|", b"|pr\xe9train|")  # a job name written on Windows
    p = tmp_path / "sacct.txt"
    p.write_bytes(b"\n".join(raw))
    with pytest.warns(relmodel.data.LogWarning, match="line 2: byte 0xe9 is not UTF-8"):
        src = relmodel.load_source(str(p), format="sacct", job="pr\u00e9train")
    assert src.n_events > 0


def test_sniffed_slurm_export_warns_once(tmp_path):
    """Sniffing the file's format reads it too; only the reader that reads it says so."""
    from relmodel.data.bundled.datasets import data_dir
    raw = (data_dir() / "ops-example" / "sacct.txt").read_bytes().replace(b"|pretrain|", b"|pr\xe9train|", 1)
    p = tmp_path / "sacct.txt"
    p.write_bytes(raw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        relmodel.load_source(str(p), job="pr\u00e9train")
    said = [w for w in caught if "0xe9" in str(w.message)]
    assert len(said) == 1, [str(w.message) for w in caught]
