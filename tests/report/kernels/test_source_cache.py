"""The source is read once per render: the cache of relmodel.report.kernels.source_cache and the pages' one setup call.

Reads are counted by wrapping ``relmodel.data.source.load_source`` (in this process with
monkeypatch, in the report's kernels with an IPython startup file); the expected numbers
of events are hand counts of the small logs written here.
"""

import json
import os
import textwrap
import warnings
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pandas as pd
import pytest

import relmodel
from relmodel.data import source as S
from relmodel.data.shaping.logs import LogWarning
from relmodel.report.kernels import source_cache as C
from relmodel.report.notebook_pages.page_setup import page_source, setup_page

#: Four outages on three nodes; the 1 h outage of node "a" is the only one shorter than 90 min.
ROWS = [("2025-01-01 00:00", "2025-01-01 01:00", "a"), ("2025-01-02 00:00", "2025-01-02 02:00", "b"),
        ("2025-01-04 00:00", "2025-01-04 02:30", "b"), ("2025-01-05 00:00", "2025-01-05 03:00", "c")]
MAPPING = {"start": "start", "end": "end", "node": "node"}


def write_log(path, rows=ROWS):
    pd.DataFrame(rows, columns=["start", "end", "node"]).to_csv(path, index=False)
    return path


@pytest.fixture
def counted(monkeypatch):
    """Calls of load_source, counted."""
    calls = []
    real = S.load_source

    def counting(*args, **kwargs):
        calls.append(args[0] if args else kwargs.get("source"))
        return real(*args, **kwargs)

    monkeypatch.setattr(S, "load_source", counting)
    return calls


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    folder.mkdir()
    monkeypatch.setenv(C.ENV_CACHE, str(folder))
    return folder


def test_one_read_while_the_file_is_unchanged_and_a_new_read_after_it_changes(tmp_path, cache, counted):
    log = write_log(tmp_path / "log.csv")
    first = C.shared_source(str(log), **MAPPING)
    again = C.shared_source(str(log), **MAPPING)
    assert len(counted) == 1
    assert first.n_events == again.n_events == 4  # hand count of ROWS
    assert again.span_h == first.span_h == 4 * 24 + 3  # first start to last end: 4 days and 3 hours
    assert again is not first  # every page gets its own copy
    write_log(log, ROWS[:3])  # the file changed (size and mtime)
    os.utime(log, ns=(os.stat(log).st_atime_ns, os.stat(log).st_mtime_ns + 10**9))
    changed = C.shared_source(str(log), **MAPPING)
    assert len(counted) == 2 and changed.n_events == 3


@pytest.mark.filterwarnings("ignore::relmodel.data.shaping.logs.LogWarning")
def test_other_arguments_are_another_entry(tmp_path, cache, counted):
    log = str(write_log(tmp_path / "log.csv"))
    C.shared_source(log, **MAPPING)
    shorter = C.shared_source(log, **MAPPING, min_outage="90min")
    assert len(counted) == 2 and shorter.n_events == 3  # node a's 1 h outage dropped
    C.shared_source(log, **MAPPING, min_outage="90min")
    assert len(counted) == 2


def test_the_load_warnings_are_raised_again_on_every_hit(tmp_path, cache, counted):
    log = str(write_log(tmp_path / "log.csv"))
    seen = []
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            C.shared_source(log, **MAPPING, min_outage="90min")
        seen.append([(w.category, str(w.message)) for w in caught if issubclass(w.category, LogWarning)])
    assert len(counted) == 1
    assert len(seen[0]) == 1 and "1" in seen[0][0][1] and seen[1] == seen[0]


def test_without_a_render_every_call_reads(tmp_path, counted, monkeypatch):
    monkeypatch.delenv(C.ENV_CACHE, raising=False)
    log = str(write_log(tmp_path / "log.csv"))
    C.shared_source(log, **MAPPING)
    C.shared_source(log, **MAPPING)
    assert len(counted) == 2
    monkeypatch.setenv(C.ENV_CACHE, str(tmp_path / "not-there"))  # a worker on another machine
    C.shared_source(log, **MAPPING)
    assert len(counted) == 3 and not (tmp_path / "not-there").exists()


def test_a_failed_load_is_not_stored(tmp_path, cache, counted):
    log = str(write_log(tmp_path / "log.csv"))
    for _ in range(2):
        with pytest.raises(relmodel.errors.MissingColumnError):
            C.shared_source(log, start="no such column")
    assert len(counted) == 2 and not list(cache.glob("*.pickle"))


def test_render_cache_sets_and_removes_its_folder(monkeypatch):
    monkeypatch.delenv(C.ENV_CACHE, raising=False)
    with C.render_cache("t1") as folder:
        assert os.environ[C.ENV_CACHE] == str(folder) and folder.is_dir()
        assert folder.name.startswith("relmodel-work-t1-")
    assert C.ENV_CACHE not in os.environ and not folder.exists()


def test_setup_page_reads_the_page_parameters(tmp_path, cache, counted):
    log = str(write_log(tmp_path / "log.csv"))
    namespace = {"log": log, **{k: None for k in C.SOURCE_PARAMETERS}, "gpus_per_node": 4, "unit": "gpu-node",
                 **MAPPING, "min_outage": "90min", "n_gpus": 16384}
    with warnings.catch_warnings():  # setup_page silences warnings for the rest of its page
        src, caught = setup_page(namespace)
        again = page_source(namespace)
    assert src.n_events == 3 and src.gpus_per_node == 4 and src.source_gpus == 3 * 4  # nodes a, b and c seen
    assert [w.category for w in caught] == [LogWarning]
    assert again.n_events == 3 and len(counted) == 1
    assert relmodel.report.recorded()["source"] == src.to_dict()
    assert setup_page({}, source=False) == (None, [])


#: Runs when each kernel starts; the wrapper keeps what it needs in its defaults, because a warm kernel's
#: reset clears the namespace this file ran in.
STARTUP = """
import relmodel.data.source as _source
def _counting(*args, _real=_source.load_source, _count={count!r}, **kwargs):
    with open(_count, "a") as fh:
        fh.write("read\\n")
    return _real(*args, **kwargs)
_source.load_source = _counting
"""


def test_a_render_of_two_pages_reads_the_log_once(tmp_path, monkeypatch):
    """Pages 01 and 05 on a user's log, through render: the kernels count their loads in one file."""
    count = tmp_path / "reads.txt"
    startup = tmp_path / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-count.py").write_text(textwrap.dedent(STARTUP.format(count=str(count))))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    log = write_log(tmp_path / "log.csv")
    params = {"log": str(log), **MAPPING, "top": 3}
    with ThreadPoolExecutor(1) as one:
        relmodel.report.render(params=params, out=tmp_path / "r", notebooks=["01", "05"], executor=one)
    assert count.read_text().splitlines() == ["read"]
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["status"] == "complete"
    sources = [summary["records"][n]["source"] for n in ("01_log_explorer", "05_interactive")]
    assert sources[0] == sources[1] and summary["records"]["01_log_explorer"]["log_outages"] == 4


def test_every_page_sets_up_in_one_call():
    for path in sorted(relmodel.report.NOTEBOOK_DIR.glob("0*.ipynb")):
        cells = [c.source for c in nbformat.read(path, 4).cells if c.cell_type == "code"]
        setup = [c for c in cells if "setup_page(globals()" in c]
        assert len(setup) == 1 and setup[0] is cells[1], path.name  # right after the parameters cell
        assert not any("load_source(" in c or "%matplotlib" in c or "rcParams" in c for c in cells), path.name


def test_pages_03_and_04_of_one_render_share_one_decision(tmp_path, cache, monkeypatch):
    """decision_or_why on a source shared_source gave: the second call with the same scenario and keywords reads the
    first's decision (and its warnings) back; other inputs, or a source loaded otherwise, decide again."""
    from relmodel.report.notebook_pages import interval_page as I
    from relmodel.scale.targets import decision as D
    from relmodel.scenario import Scenario

    calls = []
    real = D.decide

    def counting(source, scenario, **kwargs):
        calls.append(scenario.n_gpus)
        warnings.warn("a note the page must show", LogWarning)
        return real(source, scenario, **kwargs)

    monkeypatch.setattr(D, "decide", counting)
    src = C.shared_source(str(write_log(tmp_path / "log.csv")), **MAPPING)
    one = Scenario(n_gpus=64)
    with pytest.warns(LogWarning, match="a note the page must show"):
        first, _ = I.decision_or_why(src, one, n_boot=20, n_runs=10, seed=1)
    with pytest.warns(LogWarning, match="a note the page must show"):  # replayed on the hit
        again, _ = I.decision_or_why(src, one, n_boot=20, n_runs=10, seed=1)
    assert calls == [64] and again.headline() == first.headline() and again is not first
    warnings.simplefilter("ignore", LogWarning)
    I.decision_or_why(src, Scenario(n_gpus=128), n_boot=20, n_runs=10, seed=1)
    I.decision_or_why(src, one, n_boot=20, n_runs=10, seed=2)
    assert calls == [64, 128, 64]
    other = S.load_source(str(tmp_path / "log.csv"), **MAPPING)  # not through the render's cache
    I.decision_or_why(other, one, n_boot=20, n_runs=10, seed=1)
    assert calls == [64, 128, 64, 64]
