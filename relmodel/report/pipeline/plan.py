"""The plan step: which notebooks run, with which checked values, into which folder.

:func:`plan` takes parsed parameters (a dict, see :func:`.parse.load_params`)
and optionally a sweep; it resolves the notebooks and reads their declared
parameters, hands the values of every run to the validate step
(:func:`.validate.validate_runs`, once, before any kernel starts), and returns
a :class:`Plan`: one :class:`Run` per report folder (one for a report, one per
combination for a sweep), each holding the :class:`Task` of each of its
notebooks.  Tasks are plain data (the notebook's JSON text and its values), so
any executor can run them; :func:`.run.render_plan` takes the plan as it is.
"""

import itertools
import re
from dataclasses import dataclass
from pathlib import Path

from ...errors import ParameterError, ReportError
from ...resources import notebook_dir
from ..kernels.executors import new_run_id
from ..safety.limits import check_sweep_size
from .params import notebook_parameters
from .parse import parse_sweep
from .validate import describe, validate_runs
from ..parameters.rules import DURATIONS, normalise

__all__ = ["NOTEBOOK_DIR", "Task", "Run", "Plan", "find_notebooks", "make_tasks", "plan", "parse_sweep",
           "combinations"]

#: The notebook suite shipped with the project.
NOTEBOOK_DIR = notebook_dir()


@dataclass(frozen=True)
class Task:
    """One notebook to execute: plain data, so it can travel to any worker."""

    name: str
    source: str  # the notebook's JSON text
    parameters: dict
    run_id: str = "solo"
    path: object = None  # where the notebook was read from

    def __getitem__(self, i):  # task[0] is the name, as for a tuple
        return (self.name, self.source, self.parameters, self.run_id)[i]


@dataclass(frozen=True)
class Run:
    """One report folder of a plan: its folder name ("" for the plan's own), values and tasks."""

    folder: str
    values: dict  # every value given for this run (fixed and swept)
    combination: dict  # the swept values alone ({} outside a sweep)
    tasks: tuple


@dataclass(frozen=True)
class Plan:
    """Everything a render will execute, checked.  Reads as its ``(notebook path, values)`` pairs."""

    runs: tuple
    parameters: dict  # the values given, without the swept ones
    swept: tuple = ()  # names of the swept parameters (empty: a single report)
    run_id: str = "solo"

    @property
    def tasks(self):
        """Every task of every run, in run order."""
        return [t for run in self.runs for t in run.tasks]

    @property
    def where(self):
        """The index of the run of each task of :attr:`tasks`."""
        return [k for k, run in enumerate(self.runs) for _ in run.tasks]

    def by_run(self, items):
        """``items`` (one per task of :attr:`tasks`) grouped into one list per run, in run order."""
        grouped = [[] for _ in self.runs]
        for item, k in zip(items, self.where):
            grouped[k].append(item)
        return grouped

    def __len__(self):
        return len(self.tasks)

    def __getitem__(self, i):
        task = self.tasks[i]
        return (task.path, task.parameters)

    def __iter__(self):
        return iter([(t.path, t.parameters) for t in self.tasks])


def find_notebooks(notebooks=None):
    """Resolve notebook names or paths; None means the whole suite.

    A name may be a path, a file stem (``03_checkpoint_interval``) or its number
    prefix (``03``). Raises ReportError for a name that matches nothing.

    Returns a list of notebook paths.

    Examples
    --------
    >>> [p.name for p in find_notebooks(["03", "04"])]
    ['03_checkpoint_interval.ipynb', '04_requirements_at_scale.ipynb']
    """
    suite = sorted(NOTEBOOK_DIR.glob("[0-9]*.ipynb"))
    if notebooks is None:
        return suite
    if isinstance(notebooks, (str, Path)):
        notebooks = [notebooks]
    found = []
    for item in notebooks:
        path = Path(item)
        if path.suffix == ".ipynb" and path.exists():
            found.append(path.resolve())
            continue
        match = [p for p in suite if p.stem == str(item) or p.stem.split("_")[0] == str(item)]
        if len(match) != 1:
            names = ", ".join(p.stem for p in suite)
            raise ReportError(f"no notebook {item!r}; choose from: {names}, or give a .ipynb path")
        found.append(match[0])
    unique = list(dict.fromkeys(found))  # '-n 05 -n 05' runs 05 once
    stems = [p.stem for p in unique]
    clash = sorted({s for s in stems if stems.count(s) > 1})
    if clash:
        raise ReportError(f"two notebooks are named {clash[0]!r}; their outputs would overwrite "
                          "each other in one report, so rename one")
    return unique


def make_tasks(pairs, run_id, texts=None):
    """Tasks from ``[(path, values), ...]``, reading each notebook once (``texts`` caches the reads)."""
    texts = {} if texts is None else texts
    return [Task(Path(p).stem, texts.setdefault(p, Path(p).read_text(encoding="utf-8")), dict(values),
                 run_id, Path(p)) for p, values in pairs]


def combinations(sweep):
    """Check a sweep and return ``(names, [combination dict, ...])`` in cross-product order."""
    if isinstance(sweep, str):
        sweep = parse_sweep(sweep)
    if not isinstance(sweep, dict) or not sweep:
        raise ParameterError("a sweep maps parameter names to lists of values, "
                             "e.g. {'n_gpus': [4096, 16384]}")
    grid = {}
    for name, values in sweep.items():
        values = list(values) if isinstance(values, (list, tuple)) else [values]
        keys = [normalise(name, v) for v in values]
        if not values or len(set(map(repr, keys))) != len(keys):
            raise ParameterError(f"sweep {name!r} needs distinct values, got {values!r}"
                                 + (" (equal as durations)" if name in DURATIONS else ""))
        grid[name] = values
    names = list(grid)
    return names, [dict(zip(names, combo)) for combo in itertools.product(*grid.values())]


def _folders(combos):
    used, out = set(), []
    for combo in combos:
        base = "_".join(f"{n}-" + re.sub(r"[^A-Za-z0-9.-]+", "", str(v).replace(" ", ""))
                        for n, v in combo.items())
        name, k = base, 1
        while name.lower() in used:
            k += 1
            name = f"{base}-{k}"
        used.add(name.lower())
        out.append(name)
    return out


def _swept_names(names, params, by_name):
    for name in names:
        if name in params:
            raise ParameterError(f"{name!r} is both fixed by -p/--params and swept; give it once")
    for name in names:
        if not any(name in taken for taken in by_name.values()):
            raise ParameterError(f"no notebook takes {name!r}; they take:\n" + "\n".join(
                f"{stem}:\n{describe(taken)}" for stem, taken in by_name.items()))


def _taken_elsewhere(params, by_name, chosen):
    """Refuse, in one line, a parameter that no chosen notebook takes but others of the suite do."""
    taken = set().union(*(by_name[stem] for stem in chosen)) if chosen else set()
    missing = [name for name in params if name not in taken]
    if not missing:
        return
    suite = {p.stem: p for p in find_notebooks(None) if p.stem not in chosen}
    for name in missing:
        others = [stem for stem, p in suite.items() if name in (by_name.get(stem) or notebook_parameters(p))]
        if others:
            which = ", ".join(stem.split("_")[0] for stem in others)
            raise ParameterError(f"parameter {name!r} is not taken by the notebook{'s' if len(chosen) != 1 else ''} "
                                 f"run ({', '.join(chosen[:3])}{' ...' if len(chosen) > 3 else ''}); notebooks "
                                 f"{which} take it: add them with -n, or leave {name!r} out")


def plan(notebooks=None, params=None, sweep=None):
    """Resolve notebooks and check every value before any kernel starts; return a :class:`Plan`.

    ``params`` is a dict of parsed values; ``sweep`` (``{name: [v1, ...]}`` or
    ``"NAME=V1,V2"``) makes one run per combination, of the notebooks that take a
    swept parameter (all of ``notebooks`` when they are given).  Raises
    ParameterError or ReportError; nothing is executed.
    """
    params = dict(params or {})
    names, combos = combinations(sweep) if sweep else ((), [{}])
    check_sweep_size(len(combos))
    paths = find_notebooks(notebooks)
    if not paths:
        raise ReportError(f"no notebooks found in {NOTEBOOK_DIR}")
    by_name = {p.stem: notebook_parameters(p) for p in paths}
    if sweep:
        _swept_names(names, params, by_name)
        if notebooks is None:
            paths = [p for p in paths if set(names) & set(by_name[p.stem])]
    values = [{**params, **combo} for combo in combos]
    _taken_elsewhere(params, by_name, [p.stem for p in paths])
    checked = validate_runs(values, {p.stem: by_name[p.stem] for p in paths})  # the validate step
    run_id, texts = new_run_id(), {}
    runs = tuple(Run(folder, given, combo, tuple(make_tasks([(p, chosen[p.stem]) for p in paths], run_id, texts)))
                 for folder, given, combo, chosen in zip(_folders(combos), values, combos, checked))
    return Plan(runs, params, tuple(names), run_id)
