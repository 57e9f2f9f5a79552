import json
import os
import re
from pathlib import Path
from types import SimpleNamespace

try:
    import fcntl
except ImportError:  # Windows has none; run the tests there in one process (no -n)
    fcntl = None

import matplotlib

matplotlib.use("Agg")
os.environ.setdefault("MPLBACKEND", "Agg")

import pytest  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "datasets"

#: The pages a reader meets: README.md, then the topic pages under docs/ it links to.  Tests that check
#: what the README shows (examples that run, values, commands, generated tables) read all of them.
DOC_PAGES = (REPO / "README.md", *sorted((REPO / "docs").glob("*.md")))


def doc_blocks(language):
    """(page name, block number on that page, text) of every fenced ```language block of DOC_PAGES, in order."""
    out = []
    for page in DOC_PAGES:
        name = page.relative_to(REPO).as_posix()
        blocks = re.findall(rf"```{language}\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
        out += [(name, i, block) for i, block in enumerate(blocks, 1)]
    return out


@pytest.fixture(scope="session")
def llama3():
    import relmodel
    return relmodel.datasets.llama3_54day()


@pytest.fixture(scope="session")
def stepfun_log():
    import relmodel
    return relmodel.datasets.stepfun()  # bundled data loads quietly (tests/data/bundled/test_datasets.py checks it)


def grown_restart(n_gpus, base_s=600.0, observed_gpus=0):
    """The restart a decision uses when none is given, worked out by hand: ``base_s`` (the 10-min default) plus
    stock NCCL's start-up, 265 s at 96K = 98,304 GPUs (Si et al., arXiv 2510.20171), in proportion to the GPUs
    the planned job has beyond the observed ones (``observed_gpus``: 0 when the restart was not measured)."""
    return f"{base_s + 265.0 * max(n_gpus - observed_gpus, 0) / 98304}s"


def write_notebook(path, cells):
    """A notebook of code ``cells`` whose first cell is the tagged parameters cell; returns ``path``."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for i, source in enumerate(cells):
        cell = nbformat.v4.new_code_cell(source)
        if i == 0:
            cell.metadata["tags"] = ["parameters"]
        nb.cells.append(cell)
    nbformat.write(nb, path)
    return path


def run_cli(*args, **runner_options):
    """``relmodel *args`` run in-process through click's CliRunner (arguments turned into strings)."""
    from click.testing import CliRunner

    from relmodel.cli import cli

    return CliRunner(**runner_options).invoke(cli, [str(a) for a in args])


def report_cli(*args):
    """``relmodel report -q *args`` through :func:`run_cli` (no progress bar)."""
    return run_cli("report", "-q", *args)


# --- full reports rendered once per test session and shared ----------------------------------

#: Parameters of the shared default report: small Monte Carlo and bootstrap sizes, and a value
#: for every kind of parameter (int, duration, list, choice) so each is seen reaching the kernels.
SUITE_PARAMS = {"n_gpus": 65536, "ckpt_cost": "2min", "n_boot": 20, "n_runs": 20, "work": "5d", "top": 5,
                "sizes": [4096, 16384, 65536], "durations": "interarrivals"}

#: Small values for the shared report of a log with custom column names.
CUSTOM_PARAMS = {"n_boot": 20, "n_runs": 20, "work": "5d", "sizes": [4096, 16384, 65536]}
#: Its pages: those that read the log's own rows (pages 05-07 on a user's log are the shared ``pages678_user``
#: and the held-out logs' renders).
CUSTOM_PAGES = ("01", "02", "03", "04", "08", "09")


def _shared_root(tmp_path_factory):
    """A folder every test process of this run sees: the parent of the per-worker base folders under xdist."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _render_once(root, name, args, wait=True):
    """Render the shared report NAME into ``root`` unless it is there; False when another process holds it.

    ``args(root)`` gives the arguments of ``relmodel report``; an ``args`` with a ``render``
    attribute is called as ``args.render(root, out)`` instead and returns what to keep (JSON).
    With ``wait=False`` a report another test process is rendering is left to it (no waiting).
    """
    out, done = root / name, root / f"{name}.json"
    with open(root / f"{name}.lock", "a+") as handle:
        if fcntl is not None:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
        try:
            if not done.exists() and hasattr(args, "render"):
                done.write_text(json.dumps(args.render(root, out)))
            elif not done.exists():
                from click.testing import CliRunner

                from relmodel.cli import cli

                # one worker process, whose warm kernel serves every page: the test processes fill the cores
                res = CliRunner().invoke(cli, ["report", "-q", "-j", "1", "--out", str(out), *map(str, args(root))])
                done.write_text(json.dumps({"output": res.output, "exit_code": res.exit_code}))
        finally:
            if fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_UN)
    return True


def _shared_folder(tmp_path_factory):
    root = _shared_root(tmp_path_factory) / "shared-reports"
    root.mkdir(exist_ok=True)
    return root


def shared_cli_report(tmp_path_factory, name, args):
    """Render ``relmodel report -j 1 ARGS --out <shared>/NAME`` once per test run; later callers reuse it.

    Returns a namespace with ``path`` (the report folder), ``output`` (what the command printed)
    and ``exit_code``.  Under pytest-xdist the first process to ask renders while the others
    wait on a file lock, so the report is rendered once for the whole run, not once per process.
    """
    root = _shared_folder(tmp_path_factory)
    _render_once(root, name, args)
    result = json.loads((root / f"{name}.json").read_text())
    return SimpleNamespace(path=root / name, **result)


def _options(params):
    return [a for k, v in params.items() for a in ("-p", f"{k}={v}")]


def _suite_args(root):
    return _options(SUITE_PARAMS)


def _custom_args(root):
    from test_report_content import ODD, odd_log

    log = odd_log(root / "our outages.csv")
    return ["-p", f"log={log}", *[a for k, v in ODD.items() for a in ("-p", f"{k}='{v}'")],
            *_options(CUSTOM_PARAMS), *[a for n in CUSTOM_PAGES for a in ("-n", n)]]


#: GPU counts of the shared sweep of every notebook taking ``n_gpus`` (tests/report/notebook_pages/test_scale_reports.py).
SCALE_SIZES = (1_024, 1_048_576)  # the smallest fabric and the largest plan; 4 tiers start at 65,537 NICs
#: Small run counts for that sweep.
SCALE_OPTIONS = ["-p", "n_boot=0", "-p", "n_runs=20", "-p", "work=5d", "-p", "top=5", "-p", "sizes=[4096, 16384]"]


def _scale_args(root):
    return ["--sweep", "n_gpus=" + ",".join(map(str, SCALE_SIZES)), *SCALE_OPTIONS]


def _user678_args(root):
    from test_pages_678 import user_report_args

    return user_report_args(root / "user678-inputs")


def _bundled678_args(root):
    from test_pages_678 import BUNDLED_ARGS

    return BUNDLED_ARGS


def _heldout_render(root, out):
    from test_heldout_logs import render_heldout

    return render_heldout(out)


def _wheel_render(root, out):
    from test_wheel import build_and_install

    return build_and_install(out)


#: The shared reports: fixture name -> (folder name, arguments), largest first (the sweep is 15 pages).
#: Module-scoped renders live here too: pytest-xdist may send a module's tests to both processes,
#: and each would render its own copy.
SHARED_REPORTS = {"scale_sweep": ("sizes", _scale_args), "suite_report": ("suite", _suite_args),
                  "custom_report": ("custom", _custom_args),
                  "heldout_reports": ("heldout", SimpleNamespace(render=_heldout_render)),
                  "pages678_user": ("user678", _user678_args), "pages678_bundled": ("bundled678", _bundled678_args),
                  "wheel_install": ("wheel", SimpleNamespace(render=_wheel_render))}
_NEEDED = []  # fixture names of the shared reports some collected test reads, largest first


#: The longest tests after the shared renders (slowest first, from ``--durations``): run first, so the
#: two test processes of ``-n 2`` each take a share of them and the run ends on short tests.
SLOW_FIRST = [
    "tests/stats/test_ag_coverage.py::test_robust_intervals_cover_93_to_97_percent_of_500_fleets",
    "tests/report/test_report.py::test_cli_sweep_and_default_out",
    "tests/report/notebook_pages/test_report_content.py::test_out_of_reach_sweep_finishes_with_null_and_reason",
    "tests/report/notebook_pages/test_report_content.py::test_count_table_report_says_what_it_cannot_do",
    "tests/report/notebook_pages/test_scale_reports.py::test_a_failing_notebook_makes_a_partial_report_with_exit_one",
    "tests/report/kernels/test_kernel_pool.py::test_timed_out_and_dead_kernels_are_replaced",
    "tests/report/test_report.py::test_failing_cell_keeps_partial_notebook_and_names_the_cell",
    "tests/hostile/test_hostile_report.py::test_ctrl_c_stops_kernels_cleans_up_and_marks_the_report",
    "tests/hostile/test_hostile_user_files.py::test_a_killed_kernel_exits_1_naming_the_notebook",
    "tests/report/kernels/test_kernel_pool.py::test_runs_do_not_share_kernels",
    "tests/report/test_report.py::test_widget_notebook_runs_in_this_process",
    "tests/report/kernels/test_kernel_pool.py::test_switch_turns_reuse_off",
    "tests/package/test_readme.py::test_readme_python_blocks_run_and_show_true_values",
    "tests/report/notebook_pages/test_widgets.py::test_moving_the_gpu_slider_redraws_the_figure",
    "tests/report/test_report.py::test_sweep_renders_each_value_and_a_comparison_page",
    "tests/scale/design/test_stall_union.py::test_stalled_share_matches_an_independent_event_simulation",
    "tests/report/kernels/test_kernel_pool.py::test_execution_counts_start_at_one_again",
    "tests/scale/sparing/test_spares_over_time.py::test_spare_failures_against_a_uniformised_simulation",
    "tests/stats/test_compare.py::test_truncated_bootstrap_is_calibrated_under_the_null",
    "tests/stragglers/test_stragglers_detection.py::test_false_alarms_at_or_below_the_set_rate",
    "tests/stats/test_rate_compare.py::test_cli_compare_bad_fleet_is_one_line",
    "tests/report/kernels/test_kernel_pool.py::test_nothing_leaks_into_the_next_notebook",
    "tests/hostile/test_hostile_user_files.py::test_marker_lists_every_file_the_report_wrote",
    "tests/stats/test_compare.py::test_subsampled_bootstrap_is_calibrated_under_the_null",
    "tests/hostile/test_hostile_user_files.py::test_sigterm_cleans_up_as_ctrl_c_does",
    "tests/report/pipeline/test_provenance_print.py::test_footer_summary_alt_text_and_print_rules",
]


def _run_order(item):
    """Slow tests first (in :data:`SLOW_FIRST` order), readers of the shared reports last, the rest between."""
    name = item.nodeid.split("[")[0]
    if name in SLOW_FIRST:
        return SLOW_FIRST.index(name)
    late = set(SHARED_REPORTS) | {"browser"}  # the browser tier reads them; one Chromium for its module
    return len(SLOW_FIRST) + any(f in late for f in getattr(item, "fixturenames", ()))


#: Modules whose module-scoped fixtures are costly (a Dask cluster of two processes, fresh interpreters):
#: all their tests go to one test process, so the fixture is made once, not once per process.
TOGETHER = ["tests/report/kernels/test_dask.py", "tests/package/test_layout.py", "tests/package/test_wheel.py"]


def _module(item):
    return item.nodeid.split("::")[0]


def _dealt(items):
    """``items`` in run order, the slow ones dealt in turn to the first batch of each test process.

    pytest-xdist's load scheduling first sends each process a block of consecutive tests (a
    quarter of its share); each block here starts with every n-th slow test, then the tests
    of every n-th module of :data:`TOGETHER` (so that module runs in one process).
    """
    items = sorted(items, key=_run_order)  # stable: the same order in every test process
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    n_slow = sum(1 for item in items if item.nodeid.split("[")[0] in SLOW_FIRST)
    if workers < 2 or n_slow < 2:
        return items
    slow, rest = items[:n_slow], items[n_slow:]
    together = [[item for item in rest if _module(item) == name] for name in TOGETHER]
    rest = [item for item in rest if _module(item) not in TOGETHER]
    block = max(len(items) // workers // 4, 2)
    dealt = []
    for w in range(workers):
        mine = slow[w::workers] + [item for group in together[w::workers] for item in group]
        dealt += mine + rest[:max(block - len(mine), 0)]
        rest = rest[max(block - len(mine), 0):]
    return dealt + rest


@pytest.hookimpl(trylast=True)  # after -k/-m deselection: only the tests that will run count
def pytest_collection_modifyitems(session, config, items):
    used = {name for item in items for name in getattr(item, "fixturenames", ())}
    _NEEDED[:] = [name for name in SHARED_REPORTS if name in used]
    items[:] = _dealt(items)


@pytest.fixture(scope="session", autouse=True)
def _shared_reports_first(tmp_path_factory):
    """Render the shared reports this run reads before any other test, each by whichever process is free.

    The longest pieces of work go first, so the two test processes of ``-n 2`` share them
    (one renders the sweep while the other renders the two full reports) and the short tests
    fill in after, instead of one process waiting on a lock the other holds.
    """
    if _NEEDED:
        root = _shared_folder(tmp_path_factory)
        for name in _NEEDED:
            _render_once(root, *SHARED_REPORTS[name], wait=False)


def _shared(tmp_path_factory, fixture):
    name, args = SHARED_REPORTS[fixture]
    return shared_cli_report(tmp_path_factory, name, args)


@pytest.fixture(scope="session")
def suite_report(tmp_path_factory):
    """The whole suite on the default (bundled) data with :data:`SUITE_PARAMS`, through the CLI."""
    return _shared(tmp_path_factory, "suite_report")


@pytest.fixture(scope="session")
def custom_report(tmp_path_factory):
    """The whole suite on a log with custom column names (``our outages.csv``), through the CLI."""
    return _shared(tmp_path_factory, "custom_report")


@pytest.fixture(scope="session")
def scale_sweep(tmp_path_factory):
    """``relmodel report --sweep n_gpus=1024,1048576`` with :data:`SCALE_OPTIONS`, through the CLI."""
    return _shared(tmp_path_factory, "scale_sweep")


@pytest.fixture(scope="session")
def heldout_reports(tmp_path_factory):
    """The reports of the held-out logs of tests/report/notebook_pages/test_heldout_logs.py (``render_heldout``)."""
    return _shared(tmp_path_factory, "heldout_reports")


@pytest.fixture(scope="session")
def pages678_user(tmp_path_factory):
    """Pages 06-08 on the data written by tests/report/notebook_pages/test_pages_678.py (``user_report_args``)."""
    return _shared(tmp_path_factory, "pages678_user")


@pytest.fixture(scope="session")
def pages678_bundled(tmp_path_factory):
    """Pages 06-08 on the bundled data (``BUNDLED_ARGS`` of tests/report/notebook_pages/test_pages_678.py)."""
    return _shared(tmp_path_factory, "pages678_bundled")


@pytest.fixture(scope="session")
def wheel_install(tmp_path_factory):
    """The wheel of tests/package/test_wheel.py built and installed once (``build_and_install``)."""
    return _shared(tmp_path_factory, "wheel_install")


# --- report tests: notebooks that must not run, and the smallest report notebook ----------------

#: Where a report hands a notebook to a kernel: papermill's entry point and the report's own steps
#: (a name missing from its module, after a refactoring, is skipped; papermill's is always there).
KERNEL_ENTRIES = (("papermill", "execute_notebook"), ("relmodel.report.pipeline.execute", "execute"),
                  ("relmodel.report.pipeline.run", "execute"), ("relmodel.report.pipeline.run", "execute_one"),
                  ("relmodel.report.pipeline.run", "run_tasks"), ("relmodel.report.render", "execute"),
                  ("relmodel.report.pipeline.sweep", "execute"), ("relmodel.report.pipeline.sweep", "run_tasks"))


@pytest.fixture
def no_kernel(monkeypatch):
    """Fail the test if anything tries to execute a notebook (every entry of :data:`KERNEL_ENTRIES`)."""
    import importlib

    def boom(*args, **kwargs):
        raise AssertionError("a kernel was started")

    modules = []
    for module, name in KERNEL_ENTRIES:  # every module imported before any is patched: a module imported
        try:                              # while another is patched would keep the patched name for good
            modules.append((importlib.import_module(module), name))
        except ImportError:
            continue
    for mod, name in modules:
        if hasattr(mod, name):
            monkeypatch.setattr(mod, name, boom)


@pytest.fixture
def tiny(tmp_path):
    """A fast notebook with one typed parameter, n_gpus, that records a job MTBF."""
    return write_notebook(tmp_path / "tiny.ipynb", [
        "n_gpus: int = 16384  # GPUs",
        "from relmodel.report import record\nrecord('job_mtbf_h', 50000.0 / n_gpus)"])
