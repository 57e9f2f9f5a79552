"""load_source reaches the Slurm and kernel-log readers: format given, sniffed (and said), or a table."""

import pandas as pd
import pytest

from relmodel.data.formats.operators import sniff_log
from relmodel.data.source import load_source
from relmodel.data.formats.synthetic_ops import synthetic_sacct, synthetic_syslog
from relmodel.errors import InputTypeError, LogFormatError


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("src")
    synthetic_sacct(d / "sacct.txt", days=10, nodes=50, seed=2)
    synthetic_syslog(d / "kern.log", days=10, nodes=40, seed=2)
    pd.DataFrame({"start": ["2024-03-01 00:00", "2024-03-02 00:00"], "host": ["a", "b"]}).to_csv(d / "t.csv",
                                                                                                index=False)
    return d


def test_sniffing(folder):
    assert sniff_log(folder / "sacct.txt") == "sacct"
    assert sniff_log(folder / "kern.log") == "xid"
    assert sniff_log(folder / "t.csv") is None


def test_sniffing_reads_the_head_of_a_large_log_not_all_of_it(tmp_path):
    """64 MiB of syslog noise with a Xid line near the top, plain, gzipped and after 4 MiB of blank lines: told
    apart from the first lines while Python allocates under 24 MiB (reading it whole took three times the file:
    3.2 GB for a 1 GB syslog)."""
    import gzip
    import tracemalloc

    noise = b"Mar  1 00:00:00 n1 systemd[1]: Started session of user root in slice user.slice here.\n"
    xid = b"Mar  1 00:00:01 n2 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n"
    body = noise * 5 + xid + noise * (64 * 2 ** 20 // len(noise))
    (tmp_path / "big.log").write_bytes(body)
    with gzip.open(tmp_path / "big.log.gz", "wb", compresslevel=1) as fh:
        fh.write(body)
    (tmp_path / "blank.log").write_bytes(b"\n" * (4 * 2 ** 20) + body)      # blank lines first, then the log
    for name in ("big.log", "big.log.gz", "blank.log"):
        tracemalloc.start()
        try:
            assert sniff_log(tmp_path / name) == "xid", name
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 24 * 2 ** 20, (name, peak)


def test_sniffed_forms_are_said_and_the_cluster_is_counted(folder):
    s = load_source(folder / "sacct.txt", job="pretrain")
    assert s.kind == "log" and "Slurm accounting export" in s.notes[0]
    assert s.source_gpus == s.data.n_nodes * 8 and "held by the job at once" in s.cluster_from and s.data.n_nodes == 50
    k = load_source(folder / "kern.log", year=2024)
    assert k.source_gpus == 40 * 8 and "kernel log" in k.notes[0]


def test_format_given_and_source_gpus(folder):
    s = load_source(folder / "kern.log", format="xid", year=2024, source_gpus=800)
    assert s.notes == () and s.source_gpus == 800 and s.data.n_nodes == 100 and s.cluster_from == "as given"


def test_tables_still_read_as_before_and_bad_combinations_refused(folder):
    t = load_source(folder / "t.csv", start="start", node="host")
    assert t.n_events == 2
    with pytest.raises(InputTypeError, match="format='sacct'"):
        load_source(folder / "t.csv", start="start", job="x")
    with pytest.raises(LogFormatError, match="use one of table, sacct, xid"):
        load_source(folder / "sacct.txt", format="slurm")
    with pytest.raises(InputTypeError, match="job= is for Slurm"):
        load_source(folder / "kern.log", format="xid", job="x", year=2024)
