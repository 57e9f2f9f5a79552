"""Cut relmodel/report, relmodel/scale and relmodel/data into subpackages by concept.

Run from the repository root on a clean git tree::

    python tools/recut.py

Every module and test file the table :data:`MOVES` names is moved with
``git mv`` (so history follows), each new subpackage gets its face
(``__init__.py``: docstring, ``EXPORTS``, ``__all__``, lazy loading), and
every reference to a moved module is rewritten: imports (absolute, relative,
and ``from package import module`` split by destination), dotted module paths
in strings, comments and docstrings (``mock.patch`` targets, ``python -m``
command lines, ``importlib`` names, ``:mod:`` references), the relative rows
of lazy ``EXPORTS`` tables, file paths such as ``relmodel/report/pool.py``,
and ``Path(__file__).parents[N]`` in the files that move one folder down.
It rewrites relmodel/, tests/, notebooks/ (the code cells of the JSON),
bench/, docs/, tools/ and the repository's top-level text files, never
CHANGELOG.md (history) nor data/.  Afterwards every module of relmodel is
imported in a fresh interpreter and every rewritten file is searched for an
old path left behind.

A module under relmodel/report, relmodel/scale or relmodel/data, or a test
file under tests/report, tests/scale or tests/data, that the table does not
place stops the script before anything changes: add one line for it to
:data:`MOVES` and run again.  Running the script on a tree where the cut is
done changes nothing.  The changes are left staged for one commit.
"""

import ast
import io
import json
import os
import re
import subprocess
import sys
import tokenize
from pathlib import Path

#: Where each module and test file goes: old path, then the subpackage (folder) it moves into
#: ("." keeps it where it is).  A test file goes to the folder mirroring its module's subpackage.
MOVES = """
relmodel/report/render.py             .
relmodel/report/folders.py            safety
relmodel/report/file_limit.py         safety
relmodel/report/limits.py             safety
relmodel/report/yaml12.py             parameters
relmodel/report/rules.py              parameters
relmodel/report/source_rules.py       parameters
relmodel/report/notebook_json.py      parameters
relmodel/report/present.py            blocks
relmodel/report/markup.py             blocks
relmodel/report/alt_text.py           blocks
relmodel/report/failures.py           blocks
relmodel/report/page_scripts.py       blocks
relmodel/report/engine.py             kernels
relmodel/report/interrupts.py         kernels
relmodel/report/kernel.py             kernels
relmodel/report/kernel_state.py       kernels
relmodel/report/pool.py               kernels
relmodel/report/zygote.py             kernels
relmodel/report/zygote_main.py        kernels
relmodel/report/worker_start.py       kernels
relmodel/report/worker_preload.py     kernels
relmodel/report/executors.py          kernels
relmodel/report/source_cache.py       kernels
relmodel/report/records.py            kernels
relmodel/report/parse.py              pipeline
relmodel/report/validate.py           pipeline
relmodel/report/params.py             pipeline
relmodel/report/plan.py               pipeline
relmodel/report/execute.py            pipeline
relmodel/report/store.py              pipeline
relmodel/report/summarise.py          pipeline
relmodel/report/summary.py            pipeline
relmodel/report/index.py              pipeline
relmodel/report/run.py                pipeline
relmodel/report/sweep.py              pipeline
relmodel/report/sweep_page.py         pipeline
relmodel/report/provenance.py         pipeline
relmodel/report/html.py               pipeline
relmodel/report/data_page.py          notebook_pages
relmodel/report/fit_page.py           notebook_pages
relmodel/report/interval_page.py      notebook_pages
relmodel/report/requirement_page.py   notebook_pages
relmodel/report/design_page.py        notebook_pages
relmodel/report/straggler_page.py     notebook_pages
relmodel/report/pages.py              notebook_pages
relmodel/report/page_setup.py         notebook_pages
relmodel/scale/cluster.py             clusters
relmodel/scale/domains.py             clusters
relmodel/scale/correlated.py          clusters
relmodel/scale/scaling.py             clusters
relmodel/scale/goodput.py             targets
relmodel/scale/requirements.py        targets
relmodel/scale/budget.py              targets
relmodel/scale/decision.py            targets
relmodel/scale/optics.py              targets
relmodel/scale/grid.py                targets
relmodel/scale/spares.py              sparing
relmodel/scale/spare_search.py        sparing
relmodel/scale/spares_time.py         sparing
relmodel/scale/designs.py             design
relmodel/scale/design_result.py       design
relmodel/scale/fabric_size.py         design
relmodel/scale/policies.py            design
relmodel/scale/compound.py            design
relmodel/scale/domain_runs.py         design
relmodel/scale/sensitivity.py         design
relmodel/data/source.py               .
relmodel/data/readers.py              shaping
relmodel/data/times.py                shaping
relmodel/data/window.py               shaping
relmodel/data/logs.py                 shaping
relmodel/data/clean.py                shaping
relmodel/data/durations.py            shaping
relmodel/data/outages.py              shaping
relmodel/data/counts.py               shaping
relmodel/data/fit_target.py           shaping
relmodel/data/datasets.py             bundled
relmodel/data/fleets.py               bundled
relmodel/data/titan.py                bundled
relmodel/data/sacct.py                formats
relmodel/data/sacct_fields.py         formats
relmodel/data/nodelist.py             formats
relmodel/data/textinput.py            formats
relmodel/data/kernlog.py              formats
relmodel/data/xid.py                  formats
relmodel/data/operators.py            formats
relmodel/data/steps.py                formats
relmodel/data/megatron.py             formats
relmodel/data/synthetic_ops.py        formats
tests/report/test_browser.py               .
tests/report/test_report.py                .
tests/report/test_min_outage.py            parameters
tests/report/test_report_parameters.py     parameters
tests/report/test_window_unit_params.py    parameters
tests/report/test_page_scripts.py          blocks
tests/report/test_dask.py                  kernels
tests/report/test_kernel_pool.py           kernels
tests/report/test_kernel_ready.py          kernels
tests/report/test_key_figure_outputs.py    kernels
tests/report/test_no_kernel_guard.py       kernels
tests/report/test_source_cache.py          kernels
tests/report/test_worker_start.py          kernels
tests/report/test_write_once_engine.py     kernels
tests/report/test_zygote.py                kernels
tests/report/test_answer_rules.py          pipeline
tests/report/test_one_recommendation.py    pipeline
tests/report/test_pipeline_files.py        pipeline
tests/report/test_pipeline_steps.py        pipeline
tests/report/test_provenance_print.py      pipeline
tests/report/test_heldout_logs.py          notebook_pages
tests/report/test_notebooks.py             notebook_pages
tests/report/test_page_modules.py          notebook_pages
tests/report/test_page_words.py            notebook_pages
tests/report/test_pages_678.py             notebook_pages
tests/report/test_plain_ticks.py           notebook_pages
tests/report/test_plots.py                 notebook_pages
tests/report/test_report_content.py        notebook_pages
tests/report/test_scale_reports.py         notebook_pages
tests/report/test_widgets.py               notebook_pages
tests/scale/test_cluster.py                clusters
tests/scale/test_domains.py                clusters
tests/scale/test_scaling.py                clusters
tests/scale/test_budget.py                 targets
tests/scale/test_optics.py                 targets
tests/scale/test_requirements.py           targets
tests/scale/test_spares.py                 sparing
tests/scale/test_spares_over_time.py       sparing
tests/scale/test_design_policies.py        design
tests/scale/test_designs.py                design
tests/scale/test_domain_runs.py            design
tests/scale/test_fabric_size.py            design
tests/scale/test_stall_union.py            design
tests/data/test_units.py                   .
tests/data/test_clean.py                   shaping
tests/data/test_fit_target.py              shaping
tests/data/test_log_fast_paths.py          shaping
tests/data/test_logs.py                    shaping
tests/data/test_datasets.py                bundled
tests/data/test_titan.py                   bundled
tests/data/test_nodelist.py                formats
tests/data/test_operator_report_params.py  formats
tests/data/test_operator_source.py         formats
tests/data/test_ops_example.py             formats
tests/data/test_sacct.py                   formats
tests/data/test_xid.py                     formats
relmodel/report/capacity.py            kernels
relmodel/report/input_rules.py         pipeline
relmodel/report/ownership.py           safety
relmodel/report/sockets.py             kernels
relmodel/scale/compound_pmf.py         design
relmodel/scale/design_capacity.py      design
relmodel/scale/design_swings.py        design
relmodel/scale/law_requirements.py     targets
relmodel/scale/rack_faults.py          clusters
relmodel/scale/repair_queue.py         sparing
relmodel/scale/repairs.py              sparing
relmodel/scale/restart_growth.py       targets
relmodel/scale/tolerance.py            design
relmodel/scale/words.py                sparing
relmodel/data/fastdates.py             shaping
relmodel/data/kerncols.py              formats
relmodel/data/kernfile.py              formats
relmodel/data/kernfolder.py            formats
relmodel/data/kernjoin.py              formats
relmodel/data/kernparse.py             formats
relmodel/data/kernscan.py              formats
relmodel/data/restarts.py              formats
tests/scale/test_design_capacity.py    design
tests/scale/test_design_swings.py      design
tests/scale/test_law_requirements.py   targets
tests/scale/test_rack_faults.py        clusters
tests/scale/test_repair_queue.py       sparing
tests/data/test_fastdates.py           shaping
tests/data/test_kernel_columns.py      formats
tests/data/test_kernel_fastpath.py     formats
tests/data/test_kernel_join_truth.py   formats
relmodel/data/lives.py                 formats
relmodel/scale/decision_inputs.py      targets
relmodel/scale/today.py                targets
tests/report/test_one_decision.py      pipeline
tests/scale/test_decision_inputs.py    targets
"""

#: Each new subpackage, bottom up within its package (each may import those above it in this list, never
#: those below): (folder, a few words for the package's docstring, the face's docstring).
FACES = [
    ("relmodel/report/safety", "marked report folders, the file-size limit, bounds on a run", """
Folder safety: what a report run may write and ask for.

Belongs here: report folders marked as relmodel's, replaced atomically and
written without truncated files (:mod:`.folders`), a file-size limit
(``ulimit -f``) met during a render turned into one named error
(:mod:`.file_limit`), and the bounds on what a run may ask for: Dask
addresses and sweep lengths (:mod:`.limits`).  May import the base
(errors, escaping) only; no other part of :mod:`relmodel.report`.
"""),
    ("relmodel/report/parameters", "parameter values read as data and their rules", """
Report parameters are data, never code: how their values are read and ruled.

Belongs here: values read as YAML 1.2 core-schema data and nothing else
(:mod:`.yaml12`), the value rules every parameter is checked against before
any kernel starts (:mod:`.rules`; a log's window and unit in
:mod:`.source_rules`), and a notebook's cells read straight from its JSON
(:mod:`.notebook_json`).  May import the lower layers (planning,
statistics, data) and the base; no other part of :mod:`relmodel.report`.
"""),
    ("relmodel/report/blocks", "the presentation blocks pages and the pipeline share", """
The presentation blocks every report page and the pipeline share.

Belongs here: numbers, durations and tables formatted for people
(:mod:`.present`, which keeps the presentation rules of
:mod:`relmodel.report`), the HTML every page shares (:mod:`.markup`), alt
text for a page's figures (:mod:`.alt_text`), the note of a notebook that
stopped at a failing cell (:mod:`.failures`) and the scripts a page loads
from the network (:mod:`.page_scripts`).  May import the base (formatting,
escaping) only; no other part of :mod:`relmodel.report`.
"""),
    ("relmodel/report/kernels", "how notebooks are executed, and what they record", """
The kernels: how the report's notebooks are executed.

Belongs here: the kernel the notebooks run on, with robust message polling
(:mod:`.kernel`), warm kernels reused across the notebooks of a run
(:mod:`.pool`, and :mod:`.kernel_state` inside the kernel), kernels forked
from a process that has already imported the report's modules
(:mod:`.zygote`, :mod:`.zygote_main`), how a process-pool worker starts
(:mod:`.worker_start`, :mod:`.worker_preload`), the executors and a clean
stop on Ctrl-C or SIGTERM (:mod:`.executors`, :mod:`.interrupts`), the
Papermill engine (:mod:`.engine`), the data source shared by the pages of
one render (:mod:`.source_cache`), and the in-kernel API a notebook hands
its numbers and figures to (:mod:`.records`).  May import
:mod:`..safety`, :mod:`..blocks`, the data layer and the base; never the
pipeline or the pages.
"""),
    ("relmodel/report/pipeline", "the steps, one file each, and the run that calls them", """
The report pipeline: its steps, one file each, called once each in order.

The steps: :mod:`.parse` (values a user passes), :mod:`.validate` (each
value against the notebooks' declared parameters, :mod:`.params`),
:mod:`.plan`, :mod:`.execute`, :mod:`.store`, :mod:`.summarise`
(summary.json and the answer sentences) and :mod:`.index` (each run's
index page).  :mod:`.run` drives execute, store, summarise and index for
any plan; :mod:`.sweep` and :mod:`.sweep_page` write a swept plan's
comparison page; :mod:`.provenance` says where a report came from.
:mod:`.html` and :mod:`.summary` keep names importable at their former
homes.  May import :mod:`..kernels`, :mod:`..blocks`,
:mod:`..parameters`, :mod:`..safety` and every lower layer; never the
notebooks' pages.
"""),
    ("relmodel/report/notebook_pages", "each notebook's page builder, imported in its kernel", """
The notebooks' pages: what each notebook of the suite calls to build its page.

Belongs here: the builder of each page (:mod:`.data_page` for notebook 01,
:mod:`.fit_page` 02, :mod:`.interval_page` 03, :mod:`.requirement_page`
04, :mod:`.design_page` 06, :mod:`.straggler_page` 07; page 08 reads its
table with :mod:`relmodel.data.formats.lives`), the setup call every page makes after its parameters cell
(:mod:`.page_setup`), and the blocks of pages 01-05 by their former shared
name (:mod:`.pages`).  Imported inside the notebooks' kernels.  May import
every other part of :mod:`relmodel.report` but :mod:`..render`, and every
lower layer.
"""),
    ("relmodel/scale/clusters", "clusters, fault domains and scaling rates", """
Clusters and scaling: what a cluster is made of and how its rates scale.

Belongs here: :class:`Cluster` and its component counts (:mod:`.cluster`),
fault domains, what one failure takes down (:mod:`.domains`), correlated
faults and the fault rates logs do not record (:mod:`.correlated`), and
observed interruption rates scaled to another cluster (:mod:`.scaling`).
May import the statistics and data layers and the base; no other part of
:mod:`relmodel.scale`.
"""),
    ("relmodel/scale/targets", "what the parts must reach for a target ETTR, budgets, the decision", """
Targets: what the parts must achieve for a target ETTR, and the planning answer.

Belongs here: goodput at the best interval and the job MTBF a target needs
(:mod:`.goodput`), the per-node, per-GPU and per-component requirements
(:mod:`.requirements`), failure budgets and what-ifs (:mod:`.budget`), the
planning answer for one data source (:mod:`.decision`), what pluggable
optics must reach (:mod:`.optics`), and headline numbers over a grid of
designs (:mod:`.grid`).  May import :mod:`..clusters`,
:mod:`relmodel.checkpoint`, the statistics and data layers and the base.
"""),
    ("relmodel/scale/sparing", "spare pools, now and over a planning horizon", """
Sparing: how many hot spares keep a job from waiting on repairs.

Belongs here: stationary spare pools (:mod:`.spares`), the fewest spares at
a large offered load in a bounded number of steps (:mod:`.spare_search`),
and spares over a planning horizon with RMA lead times (:mod:`.spares_time`).
May import :mod:`..targets`, :mod:`..clusters`, :mod:`relmodel.checkpoint`,
the statistics and data layers and the base.
"""),
    ("relmodel/scale/design", "cluster designs, degraded operation, compound failures", """
Design: comparing cluster designs and what degraded operation does to them.

Belongs here: design comparisons and presets (:mod:`.designs`, the fabric's
size in :mod:`.fabric_size`), what a design's policy, spares and tolerated
faults do to ETTR (:mod:`.policies`, its result in :mod:`.design_result`),
compound failures in fault domains (:mod:`.compound`, its run count in
:mod:`.domain_runs`), and how much an answer depends on a fault rate no
public log gives (:mod:`.sensitivity`).  May import :mod:`..sparing`,
:mod:`..targets`, :mod:`..clusters`, :mod:`relmodel.checkpoint`, the
statistics and data layers and the base.
"""),
    ("relmodel/data/shaping", "event logs and count tables, read, cleaned and shaped", """
Shaping: interruption logs and count tables, read, cleaned and shaped.

Belongs here: reading a table for :func:`relmodel.read_log`
(:mod:`.readers`), its times (:mod:`.times`) and observation window
(:mod:`.window`), :class:`InterruptionLog` (:mod:`.logs`), its vectorised
clean-up (:mod:`.clean`), durations with censoring (:mod:`.durations`),
short outages (:mod:`.outages`), count tables (:mod:`.counts`), and which
durations of a log are fitted (:mod:`.fit_target`).  May import only the
base, numpy and pandas; no other part of :mod:`relmodel.data`.
"""),
    ("relmodel/data/bundled", "the bundled and published data sets", """
Bundled data: the data sets that ship with relmodel and published rates.

Belongs here: the bundled and public failure datasets (:mod:`.datasets`),
published interruption rates of GPU fleets and HPC systems
(:mod:`.fleets`), and the Titan GPU lifetimes (:mod:`.titan`).  May import
:mod:`..shaping` and the base.
"""),
    ("relmodel/data/formats", "operators' log formats: Slurm, kernel logs, step times", """
Formats: operators' logs, each read by the reader of its format.

Belongs here: Slurm accounting exports (:mod:`.sacct`, its fields in
:mod:`.sacct_fields`, host lists in :mod:`.nodelist`), kernel logs and
NVIDIA Xid codes (:mod:`.kernlog`, :mod:`.xid`), text given as a path or
as the text itself (:mod:`.textinput`), the reader chosen by name
(:mod:`.operators`), per-rank step-time logs and Megatron-LM logs
(:mod:`.steps`, :mod:`.megatron`), and synthetic exports with known truth
(:mod:`.synthetic_ops`).  May import :mod:`..shaping`, :mod:`..bundled`
and the base.
"""),
]

#: Packages cut by this script, and the test folders that mirror them.
PACKAGES = ["relmodel/report", "relmodel/scale", "relmodel/data"]
TEST_DIRS = ["tests/report", "tests/scale", "tests/data"]
#: Files never rewritten: history, the data sets, and this script (it names the old paths).
NEVER = ("CHANGELOG.md", "tools/recut.py")
NEVER_UNDER = ("data/", ".git/")
TEXT_SUFFIXES = {".py", ".ipynb", ".md", ".toml", ".cfg", ".txt", ".in", ".yml", ".yaml", ".rst", ".sh", ".ini"}
#: Paragraph added to each cut package's docstring (once).
PARENT_NOTE = "Subpackages, bottom up (each imports only those before it):"

#: Hand-picked path edits in files that read their package's folder themselves: (file after the move,
#: old text, new text).  Applied when the old text is there.
SPECIAL = [
    ("tests/report/pipeline/test_pipeline_files.py", 'REPORT.glob("*.py")', 'REPORT.rglob("*.py")'),
    ("tests/report/pipeline/test_pipeline_files.py", '(REPORT / f"{step}.py")',
     '(REPORT / "pipeline" / f"{step}.py")'),
    ("tests/package/test_layout.py", "from ...scale.cluster import Cluster", "from ...scale.clusters.cluster import Cluster"),
]

__all__ = ["main"]

ROOT = Path.cwd()


class Stop(Exception):
    """Why the script cannot go on; printed as a list, exit status 2."""


# ---------------------------------------------------------------------------- the table


def read_table():
    """{old path: new path} for every line of :data:`MOVES` (one whose folder is "." stays)."""
    out = {}
    for line in MOVES.strip().splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        old, folder = line.split()
        old_path = Path(old)
        out[old] = str(old_path if folder == "." else old_path.parent / folder / old_path.name)
    return out


def dotted(path):
    """``relmodel/report/pool.py`` -> ``relmodel.report.pool``."""
    parts = list(Path(path).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def unplaced(table):
    """Modules and test files under the cut folders that the table does not place."""
    placed = set(table) | set(table.values())
    missing = []
    for folder in PACKAGES + TEST_DIRS:
        for path in sorted((ROOT / folder).glob("*.py")):
            rel = str(path.relative_to(ROOT))
            if path.name not in ("__init__.py", "conftest.py") and rel not in placed:
                missing.append(rel)
    return missing


# ---------------------------------------------------------------------------- names


class Names:
    """Old -> new module names and paths, and the rewriting of text that names them."""

    def __init__(self, moves):
        self.moves = moves  # old path -> new path, only those that move
        self.modules = {dotted(o): dotted(n) for o, n in moves.items()}
        self.public = {}  # cut package -> names of its face (__all__)
        for pkg in PACKAGES:
            init = ROOT / pkg / "__init__.py"
            self.public[dotted(pkg)] = set(face_names(init.read_text(encoding="utf-8")))
        #: moved modules that are also a public name of their package's face (relmodel.scale.spares)
        self.public_modules = {m for m in self.modules if m.rpartition(".")[2] in self.public.get(
            m.rpartition(".")[0], ())}
        olds = sorted(self.modules, key=len, reverse=True)
        self.dotted_re = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, olds)) + r")(?!\w)") if olds else None
        paths = {}
        for old, new in moves.items():
            paths[old] = new
            if old.startswith("relmodel/"):
                paths[old[len("relmodel/"):]] = new[len("relmodel/"):]
        self.paths = paths
        keys = sorted(paths, key=len, reverse=True)
        self.path_re = re.compile(r"(?<![\w./-])(" + "|".join(map(re.escape, keys)) + r")(?![\w.])") if keys else None
        self.role_re = re.compile(r"(:(?:mod|func|class|data|meth|attr|exc|obj):`~?)(\.[\w.]+)(`)")
        packages = "|".join(re.escape(dotted(p)) for p in PACKAGES)
        self.from_re = re.compile(rf"(?<![\w.])from ({packages}) import (\w+(?: as \w+)?(?:, *\w+(?: as \w+)?)*)")

    def module(self, name):
        """The new name of module ``name`` (or of the module an attribute path starts with)."""
        if name in self.modules:
            return self.modules[name]
        for old, new in self.modules.items():
            if name.startswith(old + "."):
                return new + name[len(old):]
        return name

    def text(self, text):
        """Absolute dotted module paths and file paths rewritten, and ``from package import module`` split."""
        text = self.from_re.sub(lambda m: self._split_from(m, text), text)
        if self.dotted_re:
            text = self.dotted_re.sub(lambda m: self.modules[m.group(1)], text)
        if self.path_re:
            text = self.path_re.sub(lambda m: self.paths[m.group(1)], text)
        return text

    def _split_from(self, m, text):
        """``from relmodel.report import pool, record`` (code quoted in text) as one import per new home."""
        package, groups = m.group(1), {}
        for alias in re.split(r", *", m.group(2)):
            name = alias.split()[0]
            full = f"{package}.{name}"
            dest = package if full not in self.modules or name in self.public.get(package, ()) else \
                self.modules[full].rpartition(".")[0]
            groups.setdefault(dest, []).append(alias)
        if list(groups) == [package]:
            return m.group(0)
        line_start = text.rfind("\n", 0, m.start()) + 1
        indent = text[line_start:m.start()]
        glue = "\n" + indent if not indent.strip() else "; "
        return glue.join(f"from {dest} import {', '.join(group)}" for dest, group in groups.items())

    def roles(self, text, old_pkg, new_pkg):
        """Relative Sphinx references (``:mod:`.present```) that reach a moved module, re-anchored."""
        if not old_pkg:
            return text

        def one(m):
            target = old_pkg + m.group(2)
            if not any(target == o or target.startswith(o + ".") for o in self.modules):
                return m.group(0)
            new = self.module(target)
            common = _common(new_pkg.split("."), new.split("."))
            return m.group(1) + "." + ".".join(new.split(".")[common:]) + m.group(3)

        return self.role_re.sub(one, text)


def _common(a, b):
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def face_names(source):
    """The names of a face's ``__all__`` (list literals, ``+=`` and ``_lazy.names(EXPORTS)``)."""
    tree = ast.parse(source)
    names, exports = [], exports_rows(source)
    for node in tree.body:
        target = getattr(node, "target", None) or (node.targets[0] if isinstance(node, ast.Assign) else None)
        if getattr(target, "id", None) != "__all__":
            continue
        value = node.value
        if isinstance(value, (ast.List, ast.Tuple)):
            names += [e.value for e in value.elts if isinstance(e, ast.Constant)]
        elif isinstance(value, ast.Call):
            names += [n for _, row in exports for n in row.split()]
    return names


def exports_rows(source):
    """The (module, names) rows of a face's ``EXPORTS`` table."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "EXPORTS":
            return [tuple(e.value for e in t.elts) for t in node.value.elts]
    return []


# ---------------------------------------------------------------------------- python source


def resolve(level, module, package):
    base = package.split(".")
    base = base[: len(base) - level + 1]
    return ".".join(base + ([module] if module else []))


def relative(target, package):
    """``target`` written relative to ``package`` (``..blocks.present``)."""
    t, p = target.split("."), package.split(".")
    common = _common(t, p)
    if common == 0:
        return target
    return "." * (len(p) - common + 1) + ".".join(t[common:])


class Source:
    """The text of one Python file (or notebook cell) and the edits to it, by character offsets."""

    def __init__(self, text):
        self.text = text
        self.lines = io.StringIO(text, newline="").readlines()  # lines as tokenize and ast count them
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))
        self.edits = []

    def offset(self, lineno, col_bytes):
        line = self.lines[lineno - 1] if lineno - 1 < len(self.lines) else ""
        return self.starts[lineno - 1] + len(line.encode("utf-8")[:col_bytes].decode("utf-8", "replace"))

    def node_span(self, node):
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)

    def edit(self, start, end, new):
        if self.text[start:end] != new:
            self.edits.append((start, end, new))

    def covered(self, start, end):
        return any(s <= start and end <= e for s, e, _ in self.edits)

    def result(self):
        text = self.text
        for start, end, new in sorted(self.edits, reverse=True):
            text = text[:start] + new + text[end:]
        return text


def rewrite_python(text, names, old_mod=None, new_mod=None, is_init=False):
    """The Python source ``text`` with every reference to a moved module rewritten."""
    old_pkg = (old_mod if is_init else old_mod.rpartition(".")[0]) if old_mod else None
    new_pkg = (new_mod if is_init else new_mod.rpartition(".")[0]) if new_mod else None
    if old_mod != new_mod:
        text = re.sub(r"(Path\(__file__\)(?:\.resolve\(\))?\.parents\[)(\d+)\]",
                      lambda m: f"{m.group(1)}{int(m.group(2)) + 1}]", text)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return names.text(text)
    src = Source(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            _import_from(src, node, names, old_pkg, new_pkg)
        elif isinstance(node, ast.Import):
            _import(src, node, names)
        elif is_init and isinstance(node, (ast.List, ast.Tuple)):
            _exports(src, node, names, old_pkg, new_pkg)
    if is_init:
        _wrap_lists(src, tree)
    _tokens(src, names, old_pkg, new_pkg)
    return src.result()


def _alias(a):
    return a.name + (f" as {a.asname}" if a.asname else "")


def _import_from(src, node, names, old_pkg, new_pkg):
    if node.level and not old_pkg:
        return
    base = resolve(node.level, node.module, old_pkg) if node.level else node.module
    new_base = names.module(base)
    keep, groups = [], {}
    for a in node.names:
        full = f"{base}.{a.name}"
        if full in names.modules and not (node.level == 0 and a.name in names.public.get(base, ())):
            groups.setdefault(names.modules[full].rpartition(".")[0], []).append(_alias(a))
        else:
            keep.append(_alias(a))

    def spec(target):
        return relative(target, new_pkg) if node.level else target

    start, end = src.node_span(node)
    segment = src.text[start:end]
    if not groups:
        old_spec = "." * node.level + (node.module or "")
        if spec(new_base) != old_spec:
            src.edit(start, end, re.sub(r"^(from\s+)[.\w]+", lambda m: m.group(1) + spec(new_base), segment,
                                        count=1))
        return
    lines = ([f"from {spec(new_base)} import {', '.join(keep)}"] if keep else [])
    lines += [f"from {spec(dest)} import {', '.join(group)}" for dest, group in groups.items()]
    line_start = src.starts[node.lineno - 1]
    before = src.text[line_start:start]
    src.edit(start, end, ("\n" + before if not before.strip() else "; ").join(lines))


def _import(src, node, names):
    parts, changed = [], False
    for a in node.names:
        new = names.module(a.name)
        changed |= new != a.name
        parts.append(new + (f" as {a.asname}" if a.asname else ""))
    if changed:
        start, end = src.node_span(node)
        src.edit(start, end, "import " + ", ".join(parts))


def _exports(src, node, names, old_pkg, new_pkg):
    """Rows ``(".module", "name name")`` of a lazy face's table, pointed at the modules' new homes."""
    for row in node.elts:
        if not (isinstance(row, ast.Tuple) and len(row.elts) == 2
                and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in row.elts)):
            continue
        module, row_names = (e.value for e in row.elts)
        if not module.startswith(".") or not re.fullmatch(r"[\w ]+", row_names):
            continue
        level = len(module) - len(module.lstrip("."))
        base = resolve(level, module[level:] or None, old_pkg)
        if module == ".":
            groups = {}
            for n in row_names.split():
                dest = names.modules.get(f"{base}.{n}", f"{base}.{n}").rpartition(".")[0]
                groups.setdefault(dest, []).append(n)
        else:
            groups = {names.module(base): row_names.split()}
        rows = [(_face_module(dest, new_pkg), " ".join(group)) for dest, group in groups.items()]
        if rows != [(module, row_names)]:
            start, end = src.node_span(row)
            src.edit(start, end, ", ".join(f"({json.dumps(m)}, {json.dumps(n)})" for m, n in rows))


def _wrap_lists(src, tree):
    """A face's table whose rows grew past 120 characters a line, laid out again (when it holds no comment)."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "EXPORTS"
                and isinstance(node.value, ast.List)):
            continue
        start, end = src.node_span(node.value)
        before = [(s, e, n) for s, e, n in src.edits if start <= s and e <= end]
        if not before:
            continue
        text = src.text[start:end]
        for s, e, n in sorted(before, reverse=True):
            text = text[:s - start] + n + text[e - start:]
        lead = src.text[src.starts[node.value.lineno - 1]:start]  # "EXPORTS = " before the bracket
        if max(len(line) for line in (lead + text).splitlines()) <= 120 or "#" in text:
            continue
        rows = [f"({json.dumps(m)}, {json.dumps(n)})" for m, n in (
            tuple(e.value for e in t.elts) for t in ast.parse(text, mode="eval").body.elts)]
        col = src.offset(node.value.lineno, node.value.col_offset) - src.starts[node.value.lineno - 1]
        lines, line = [], "["
        for i, row in enumerate(rows):
            piece = row + ("," if i < len(rows) - 1 else "]")
            if len(line) > 1 and col + len(line) + 1 + len(piece) > 115:
                lines.append(line)
                line = " " * (col + 1) + piece
            else:
                line = line + ("" if line == "[" else " ") + piece
        lines.append(line)
        src.edits = [x for x in src.edits if x not in before]
        src.edit(start, end, "\n".join(lines))


def _face_module(target, package):
    if target == package:
        return "."
    return relative(target, package)


def _tokens(src, names, old_pkg, new_pkg):
    """Strings, comments and dotted names in code that name a moved module."""
    tokens = list(tokenize.generate_tokens(io.StringIO(src.text).readline))
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        start = src.starts[tok.start[0] - 1] + tok.start[1]
        end = start + len(tok.string)
        if tok.type in (tokenize.STRING, tokenize.COMMENT):
            if not src.covered(start, end):
                src.edit(start, end, names.roles(names.text(tok.string), old_pkg, new_pkg))
        elif tok.type == tokenize.NAME and tok.string in ("relmodel", "tests") and \
                (i == 0 or tokens[i - 1].string != "."):
            j, chain = i, [tok.string]
            while j + 2 < len(tokens) and tokens[j + 1].string == "." and tokens[j + 2].type == tokenize.NAME:
                chain.append(tokens[j + 2].string)
                j += 2
            for k in range(len(chain), 1, -1):
                old = ".".join(chain[:k])
                if old in names.modules and old not in names.public_modules:
                    last = tokens[i + 2 * (k - 1)]
                    end = src.starts[last.start[0] - 1] + last.start[1] + len(last.string)
                    if not src.covered(start, end):
                        src.edit(start, end, names.modules[old])
                    break
            i = j
        i += 1


# ---------------------------------------------------------------------------- other files


def rewrite_notebook(text, names):
    nb = json.loads(text)
    if json.dumps(nb, indent=1, ensure_ascii=False) + "\n" != text:
        return names.text(text)  # not written by nbformat: treat as text
    for cell in nb.get("cells", []):
        source = "".join(cell.get("source", []))
        new = rewrite_python(source, names) if cell.get("cell_type") == "code" else names.text(source)
        if new != source:
            cell["source"] = new.splitlines(keepends=True)
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def rewrite_file(rel_old, rel_new, text, names):
    if rel_old.endswith(".py"):
        old_mod = dotted(rel_old) if rel_old.startswith(("relmodel/", "tests/")) else None
        new_mod = dotted(rel_new) if old_mod else None
        return rewrite_python(text, names, old_mod, new_mod, is_init=rel_old.endswith("__init__.py"))
    if rel_old.endswith(".ipynb"):
        return rewrite_notebook(text, names)
    return names.text(text)


def tracked_text_files():
    out = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    keep = []
    for rel in out:
        if rel in NEVER or rel.startswith(NEVER_UNDER) or not (ROOT / rel).is_file():
            continue
        if Path(rel).suffix in TEXT_SUFFIXES or rel.startswith(".ci/"):
            keep.append(rel)
    return keep


# ---------------------------------------------------------------------------- faces


def _others(folder, doc, table):
    """A paragraph naming the modules the table places in ``folder`` that ``doc`` does not name (or "")."""
    extra = []
    for old, new in table.items():
        if str(Path(new).parent) == folder and new.startswith("relmodel/") and f":mod:`.{Path(new).stem}`" not in doc:
            source = ROOT / (old if (ROOT / old).exists() else new)
            first = (ast.get_docstring(ast.parse(source.read_text(encoding="utf-8"))) or "").split("\n")[0]
            extra.append(f":mod:`.{Path(new).stem}`" + (f" ({first.rstrip('.')})" if first else ""))
    return ("\n\nAlso here: " + "; ".join(extra) + ".") if extra else ""


def face_text(folder, doc, parent_rows, names, table=None):
    """The ``__init__.py`` of a new subpackage: its docstring, the rows of the parent's face it serves."""
    doc = doc.strip() + _others(folder, doc, table or {})
    package = dotted(folder)
    parent = package.rpartition(".")[0]
    rows = []
    for module, row in parent_rows:
        base = resolve(len(module) - len(module.lstrip(".")), module.lstrip(".") or None, parent)
        if module == ".":
            mine = [n for n in row.split() if names.modules.get(f"{base}.{n}", "").rpartition(".")[0] == package]
            if mine:
                rows.append((".", " ".join(mine)))
        elif names.module(base).rpartition(".")[0] == package:
            rows.append(("." + names.module(base).rpartition(".")[2], row))
    all_names = [n for _, row in rows for n in row.split()]
    depth = "." * (package.count(".") + 1)
    table = _pack("EXPORTS = [", [f"({json.dumps(m)}, {json.dumps(n)})" for m, n in rows])
    listing = _pack("__all__ = [", [json.dumps(n) for n in all_names])
    return (f'"""{doc.strip()}\n"""\n\nfrom {depth}base import lazy as _lazy\n\n'
            "#: (module, names) this package re-exports, each module imported the first time one of its names is "
            f"used.\n{table}\n\n{listing}\n__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)\n")


def _pack(opening, items, width=115):
    """``opening`` and the comma-separated ``items`` closed by "]", wrapped under the bracket."""
    lines, line = [], opening
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "")
        if line != opening and len(line) + 1 + len(piece) > width:
            lines.append(line)
            line = " " * len(opening) + piece
        else:
            line += ("" if line == opening else " ") + piece
    return "\n".join(lines + [line]) + "]"


def parent_note(pkg_text, pkg):
    """The cut package's docstring with one paragraph naming its subpackages (added once)."""
    tree = ast.parse(pkg_text)
    doc = ast.get_docstring(tree, clean=False)
    if doc is None or PARENT_NOTE in doc:
        return pkg_text
    parts = [f":mod:`.{Path(folder).name}` ({words})" for folder, words, _ in FACES if str(Path(folder).parent) == pkg]
    note = PARENT_NOTE + " " + "; ".join(parts) + "."
    lines, out, width = note.split(), [], 0
    for word in lines:
        if out and width + 1 + len(word) > 76:
            out.append("\n")
            width = 0
        elif out:
            out.append(" ")
            width += 1
        out.append(word)
        width += len(word)
    paragraph = "".join(out)
    first_break = doc.find("\n\n")
    new_doc = doc + "\n\n" + paragraph + "\n" if first_break < 0 else \
        doc[:first_break] + "\n\n" + paragraph + doc[first_break:]
    return pkg_text.replace(doc, new_doc, 1)


# ---------------------------------------------------------------------------- main


def git(*args):
    subprocess.run(["git", *args], check=True, capture_output=True, text=True)


def plan():
    """(moves to make, {new path: new text}, faces to create, warnings)."""
    table = read_table()
    missing = unplaced(table)
    if missing:
        raise Stop("these files are not placed by the table MOVES at the top of tools/recut.py; add one line for "
                   "each (its path and the subpackage it belongs in, '.' to keep it where it is):\n  "
                   + "\n  ".join(missing))
    folders = {dotted(f).rpartition(".")[2] for f, _, _ in FACES}
    clashes = [old for old in table if Path(old).stem in folders and Path(old).parent.as_posix() in PACKAGES]
    if clashes:
        raise Stop("a subpackage may not share its name with a module of its package: " + ", ".join(clashes))
    moves, warnings = {}, []
    for old, new in table.items():
        if old == new:
            continue
        if (ROOT / old).exists() and (ROOT / new).exists():
            raise Stop(f"both {old} and {new} exist; keep one")
        if (ROOT / old).exists():
            moves[old] = new
        elif not (ROOT / new).exists():
            warnings.append(f"{old} is in the table but not in the tree (skipped)")
    all_moves = {o: n for o, n in table.items() if o != n}
    names = Names(all_moves)
    writes = {}
    for rel in tracked_text_files():
        text = (ROOT / rel).read_text(encoding="utf-8")
        new_rel = moves.get(rel, rel)
        new_text = rewrite_file(rel, new_rel, text, names)
        if rel in moves:
            for line in new_text.splitlines():
                if "__file__" in line and "Path(__file__)" in line and ".parents[" not in line:
                    warnings.append(f"{new_rel}: moved one folder down; check this path by hand: {line.strip()}")
        for where, old_s, new_s in SPECIAL:
            if where == new_rel and old_s in new_text:
                new_text = new_text.replace(old_s, new_s)
        if new_rel in [p + "/__init__.py" for p in PACKAGES]:
            new_text = parent_note(new_text, new_rel.rpartition("/")[0])
        if new_text != text or rel in moves:
            writes[rel] = (new_rel, new_text)
    faces = {}
    for folder, _, doc in FACES:
        init = f"{folder}/__init__.py"
        if not (ROOT / init).exists():
            parent_init = (ROOT / Path(folder).parent / "__init__.py").read_text(encoding="utf-8")
            faces[init] = face_text(folder, doc, exports_rows(parent_init), names, table)
    return moves, writes, faces, warnings


def verify(written):
    """Every module imports in a fresh interpreter; no old path is left in what was rewritten."""
    modules = sorted(dotted(p.relative_to(ROOT)) for p in (ROOT / "relmodel").rglob("*.py")
                     if p.name != "__main__.py")
    code = ("import importlib, sys\nbad = []\nfor m in sys.argv[1:]:\n    try:\n        importlib.import_module(m)\n"
            "    except Exception as exc:\n        bad.append(f'{m}: {type(exc).__name__}: {exc}')\nprint('\\n'.join(bad))"
            "\nsys.exit(1 if bad else 0)")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code, *modules], capture_output=True, text=True, env=env)
    problems = [line for line in done.stdout.splitlines() if line.strip()]
    if done.returncode and not problems:
        problems.append(done.stderr.strip()[-2000:])
    for rel in tracked_text_files():
        if rel.endswith(".py"):
            try:
                compile((ROOT / rel).read_text(encoding="utf-8"), rel, "exec")
            except SyntaxError as exc:
                problems.append(f"{rel}: {exc}")
    problems += unresolved_imports()
    table = read_table()
    names = Names({o: n for o, n in table.items() if o != n})
    stale = re.compile(r"from relmodel\.(report|scale|data) import ([\w, ]+)")
    for rel in written:
        text = (ROOT / rel).read_text(encoding="utf-8")
        for m in (names.dotted_re.finditer(text) if names.dotted_re else []):
            if m.group(1) not in names.public_modules:
                problems.append(f"{rel}: still names {m.group(1)}")
        for m in stale.finditer(text):
            pkg = "relmodel." + m.group(1)
            for n in re.split(r"[,\s]+", m.group(2)):
                if f"{pkg}.{n}" in names.modules and n not in names.public[pkg]:
                    problems.append(f"{rel}: 'from {pkg} import {n}' left (in a string?)")
    return problems


def unresolved_imports():
    """Imports of relmodel (function-level ones too) whose module is not in the tree."""
    bad = []
    for rel in tracked_text_files():
        if not rel.endswith(".py"):
            continue
        mod = dotted(rel)
        package = mod if rel.endswith("__init__.py") else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse((ROOT / rel).read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = resolve(node.level, node.module, package) if node.level else node.module
                targets = [base] if base != "relmodel" else []
                folder = ROOT / base.replace(".", "/")
                if folder.is_dir():
                    init = (folder / "__init__.py").read_text(encoding="utf-8")
                    targets = [f"{base}.{a.name}" for a in node.names
                               if not re.search(rf"\b{a.name}\b", init)]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:
                path = ROOT / target.replace(".", "/")
                if target.startswith(tuple(dotted(p) for p in PACKAGES)) and not (path.is_dir() or path.with_suffix(".py").exists()):
                    bad.append(f"{rel}:{node.lineno} imports {target}, which is not in the tree")
    return bad


def main():
    if not (ROOT / "relmodel" / "__init__.py").exists() or not (ROOT / ".git").exists():
        print("recut: run from the repository root (python tools/recut.py)", file=sys.stderr)
        return 2
    try:
        moves, writes, faces, warnings = plan()
    except Stop as stop:
        print(f"recut: {stop}", file=sys.stderr)
        return 2
    for w in warnings:
        print(f"recut: note: {w}", file=sys.stderr)
    if not moves and not writes and not faces:
        print("recut: nothing to do; the cut is in place")
        return 0
    status = subprocess.run(["git", "status", "--porcelain"], capture_output=True, text=True, check=True).stdout
    if status.strip():
        print("recut: the git tree has uncommitted changes; commit or stash them first:\n" + status, file=sys.stderr)
        return 2
    for old, new in sorted(moves.items()):
        (ROOT / new).parent.mkdir(parents=True, exist_ok=True)
        git("mv", old, new)
    for rel, (new_rel, text) in sorted(writes.items()):
        (ROOT / new_rel).write_text(text, encoding="utf-8")
    for init, text in sorted(faces.items()):
        (ROOT / init).write_text(text, encoding="utf-8")
    touched = sorted({new for new, _ in writes.values()} | set(faces))
    git("add", "--", *touched)
    print(f"recut: moved {len(moves)} files, rewrote {len(writes) - len(moves)} others, created {len(faces)} faces")
    problems = verify(touched)
    if problems:
        print("recut: the tree after the move has problems:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    print("recut: every module imports; the changes are staged: review `git status`, then commit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
