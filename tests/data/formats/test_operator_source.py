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
