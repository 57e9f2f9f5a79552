"""The planning scenario: every planning input, its unit, its default and where the default comes from.

Base layer: imports only :mod:`relmodel.units` and :mod:`relmodel.errors`.

A :class:`Scenario` is what a planner decides *about* (the job, its
checkpoints, its repairs, its target), apart from what the log says.  It is
parsed once, when it is made: durations become hours, counts and fractions
are checked, and a bad value is a :class:`~relmodel.errors.ScenarioError`
naming the field.  Every face reads it by the same names:

* the API: :func:`relmodel.decide(source, scenario) <relmodel.scale.targets.decision.decide>`, the requirements,
  the interval, the spare pool, the designs and the lifecycle simulation
  take ``scenario=`` (a value passed on its own still wins);
* the report: a notebook parameter with a field's name sets that field
  (``relmodel report -p ckpt_cost=5min``, or a YAML parameters file);
  the notebooks' parameters cells hold the defaults below, a test holds
  them equal;
* the command line: ``relmodel requirements`` and ``relmodel interval``
  build their options from :data:`FIELDS` (``--ckpt-cost``, ``--restart``...),
  help text included.

A ``None`` default means the value is read from the data when it can be, and
the page says which it was (measured or assumed).

Examples
--------
>>> from relmodel.scenario import Scenario
>>> s = Scenario(n_gpus=32768, ckpt_cost="5min")
>>> s.n_gpus, round(s.ckpt_cost * 60, 6), s.restart, s.target_ettr
(32768, 5.0, None, 0.9)
>>> s.replace(restart="20min").restart
0.3333333333333333
"""

import functools
import inspect
import math
from dataclasses import dataclass

from .errors import DurationError, InputTypeError, ScenarioError
from .units import hours

__all__ = ["Scenario", "FIELDS", "Field", "scenario_of", "takes_scenario", "ASSUMED_RESTART", "JOB"]

#: The restart taken when the log gives none to measure (``Scenario.restart`` None): an assumption.
ASSUMED_RESTART = "10min"

#: Longest checkpoint cost or restart, hours (a year: anything longer is a slip of units).
_MAX_COST_H = 8766.0


@dataclass(frozen=True)
class Field:
    """One planning input: its name (the same in the API, the report and the CLI), kind, unit, default, the
    source of the default, the group it belongs to and the help text every face shows."""

    name: str
    kind: str  # "count", "fraction", "duration", "duration?", "bool", "choice", "list"
    unit: str
    default: object
    default_from: str
    group: str
    help: str
    choices: tuple = ()

    def parameter_line(self):
        """The line declaring this field in a notebook's parameters cell, e.g.
        ``ckpt_cost: str = "1min"  # time the job stalls ... (an assumption: ...)``; the notebooks hold exactly these
        lines (``tools/sync_notebook_parameters.py`` writes them, a test compares)."""
        kind = self.kind.rstrip("?")
        annotation = {"count": "int", "number": "float", "fraction": "float", "duration": "str", "bool": "bool",
                      "choice": "str", "list": "list[str]"}[kind]
        default = None if self.default in (None, ()) else self.default
        literal = "None" if default is None else (f'"{default}"' if isinstance(default, str) else repr(default))
        said = f"None: {self.default_from}" if default is None else self.default_from
        return f"{self.name}: {annotation} = {literal}  # {self.help} ({said})"

    @property
    def option(self):
        """The command-line option, e.g. ``--ckpt-cost``."""
        return "--" + self.name.replace("_", "-")


#: Every field of :class:`Scenario`, in the order the inputs table lists them.
FIELDS = (
    Field("n_gpus", "count", "GPUs", 16384, "Llama 3's training job, Meta, arXiv 2407.21783", "cluster",
          "GPUs in the planned job; the observed rates are scaled to this size"),
    Field("gpus_per_node", "count?", "GPUs", None, "the observed cluster's, else 8 (an HGX or DGX server)", "cluster",
          "GPUs per node of the planned job (0: the log's units hold no GPUs, the planned job has 8 a node)"),
    Field("units_per_node", "number?", "units", None, "no GPU-job answer for a log of disks or servers", "cluster",
          "a log of disks or servers: how many of its units one node of the planned job holds"),
    Field("scale", "list", "cause=unit", (), "by cause name; causes striking many nodes at once held per job",
          "cluster",
          "what causes scale with: each a cause, an equals sign and its unit (gpu, node, link, transceiver or job)"),
    Field("target_ettr", "fraction", "share of wall time", 0.9, "a common planning target; Llama 3 reports above 90%",
          "target", "share of wall time spent on useful training that the job must reach"),
    Field("conf", "fraction", "probability", 0.95, "the usual 95% range", "target",
          "confidence level of the ranges"),
    Field("ckpt_cost", "duration", "duration", "1min", "an assumption: 1 min, an asynchronous or sharded save",
          "checkpointing", "time the job stalls to write one checkpoint"),
    Field("restart", "duration?", "duration", None,
          "measured from the log's requeue gaps where it has them, else 10min, an assumption", "checkpointing",
          "time to detect a failure, reschedule, reload and catch up"),
    Field("restart_grows", "bool", "", True, "communicator start-up 265 s at 96K GPUs, arXiv 2510.20171",
          "checkpointing", "add the start-up that grows with the ranks to a restart not given"),
    Field("repair", "choice", "", "empirical", "the log's own repairs, resampled", "repairs",
          "repair-time model of spares and fleets: \"empirical\" or a family such as \"weibull\"",
          ("empirical", "exponential", "weibull", "lognormal", "gamma", "loglogistic")),
    Field("repair_time", "duration?", "duration", None,
          "measured from the log's unplanned outages, else the bundled StepFun trace's repairs, an assumption",
          "repairs", "mean time to repair a failed node or tray"),
    Field("spare_target", "fraction", "probability", 0.01, "a 1% service level", "repairs",
          "acceptable chance that a node failure finds no spare free"),
    Field("crews", "count?", "crews", None, "unlimited, every failed part repaired at once", "repairs",
          "parallel hardware repairs for the whole site"),
)

_BY_NAME = {f.name: f for f in FIELDS}


def _duration(field, value):
    try:
        h = float(hours(value))
    except DurationError as err:
        raise ScenarioError(f"{field.name}: {err}") from None
    if not (math.isfinite(h) and 0 <= h <= _MAX_COST_H) or (field.name == "repair_time" and h <= 0):
        low = "above 0" if field.name == "repair_time" else "from 0"
        raise ScenarioError(f"{field.name} must be a duration {low} to {_MAX_COST_H:,.0f} h (a year), such as "
                            f"'45s', '10min' or '3h'; got {value!r:.60}")
    return h


def _count(field, value):
    """A whole number from 1 to 100,000,000: an int, a float with no fraction, or text such as "32,768"."""
    given = value
    if isinstance(value, str):
        try:
            value = int(value.replace(",", "").replace("_", "").strip())
        except ValueError:
            value = None
    ok = (not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
          and float(value).is_integer() and 1 <= value <= 100_000_000)
    if not ok:
        raise ScenarioError(f"{field.name} must be a whole number of {field.unit} from 1 to 100,000,000; "
                            f"got {given!r:.60}")
    return int(value)


def _parse(field, value):
    kind = field.kind
    if value is None:
        if kind == "list":
            return ()
        if kind.endswith("?"):
            return None
        raise ScenarioError(f"{field.name} takes no None: it has a default ({field.default!r}: {field.default_from})")
    if kind.startswith("duration"):
        return _duration(field, value)
    if kind.startswith("count"):
        if field.name == "gpus_per_node" and not isinstance(value, bool) and value == 0:
            return 0  # the log's units hold no GPUs; the planned job then has 8 a node
        return _count(field, value)
    if kind.startswith("number"):
        try:
            x = float(value)
        except (TypeError, ValueError):
            x = math.nan
        if isinstance(value, bool) or not (math.isfinite(x) and x > 0):
            raise ScenarioError(f"{field.name} must be a number above 0; got {value!r:.60}")
        return x
    if kind == "fraction":
        try:
            x = float(value)
        except (TypeError, ValueError):
            x = math.nan
        if isinstance(value, bool) or not 0 < x < 1:
            raise ScenarioError(f"{field.name} must be a fraction strictly between 0 and 1, such as 0.9; "
                                f"got {value!r:.60}")
        return x
    if kind == "bool":
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if not isinstance(value, bool):
            raise ScenarioError(f"{field.name} must be true or false; got {value!r:.60}")
        return value
    if kind == "choice":
        if value not in field.choices:
            raise ScenarioError(f"{field.name} must be one of {', '.join(field.choices)}; got {value!r:.60}")
        return value
    items = (value,) if isinstance(value, str) else tuple(value)
    for item in items:
        name, sep, unit = str(item).rpartition("=")
        if not sep or not name.strip() or not unit.strip():
            raise ScenarioError(f"{field.name} takes CAUSE=UNIT, e.g. 'File system=job'; got {item!r:.60}")
    return tuple(str(i) for i in items)


@dataclass(frozen=True, init=False)
class Scenario:
    """Every planning input, parsed once; see :data:`FIELDS` for units, defaults and their sources.

    Durations are hours once made (``Scenario(ckpt_cost="1min").ckpt_cost`` is ``1/60``); strings such as
    ``"45s"``, ``"10min"``, ``"2d"`` are read when the scenario is made.  ``None`` where allowed means "read it
    from the data, else the stated assumption".
    """

    n_gpus: int
    gpus_per_node: int | None
    units_per_node: float | None
    scale: tuple
    target_ettr: float
    conf: float
    ckpt_cost: float
    restart: float | None
    restart_grows: bool
    repair: str
    repair_time: float | None
    spare_target: float
    crews: int | None

    def __init__(self, **values):
        unknown = sorted(set(values) - set(_BY_NAME))
        if unknown:
            raise ScenarioError(f"unknown scenario input{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                                f"the inputs are {', '.join(_BY_NAME)}")
        for f in FIELDS:
            value = values.get(f.name, f.default)
            object.__setattr__(self, f.name, _parse(f, value))

    def replace(self, **changes):
        """A copy with ``changes`` applied (parsed like the constructor's)."""
        return Scenario(**{**self.to_dict(), **changes})

    def to_dict(self):
        """``{name: value}``, durations in hours."""
        return {f.name: getattr(self, f.name) for f in FIELDS}

    def given(self):
        """The fields that differ from their defaults, ``{name: value}``."""
        return {f.name: getattr(self, f.name) for f in FIELDS if getattr(self, f.name) != getattr(_DEFAULT, f.name)}

    @property
    def units(self):
        """``scale`` as ``{cause: unit}``, or None when nothing is overridden."""
        return {name.strip(): unit.strip() for name, _, unit in (p.rpartition("=") for p in self.scale)} or None

    @classmethod
    def from_params(cls, params):
        """The scenario a report's (or any mapping's) parameters set: the keys named like fields; others ignored."""
        return cls(**{k: v for k, v in dict(params).items() if k in _BY_NAME})

    @staticmethod
    def field(name):
        """The :class:`Field` called ``name``."""
        try:
            return _BY_NAME[name]
        except KeyError:
            raise ScenarioError(f"no scenario input {name!r}; the inputs are {', '.join(_BY_NAME)}") from None


def scenario_of(scenario=None, **given):
    """``scenario`` (default: the defaults) with the non-None values of ``given`` applied, each a field's name.

    Planning functions call it with their own arguments: a value passed on its own wins over the scenario's, and
    an argument left at None takes the scenario's (which is the one default when no scenario was given).
    """
    if scenario is not None and not isinstance(scenario, Scenario):
        raise ScenarioError(f"scenario must be a relmodel.Scenario, got {type(scenario).__name__}")
    base = scenario if scenario is not None else Scenario()
    changes = {k: v for k, v in given.items() if v is not None}
    return base.replace(**changes) if changes else base


#: The job's inputs, named alike in most planning functions: ``@takes_scenario(**JOB)``.
JOB = {"n_gpus": "n_gpus", "target_ettr": "target_ettr", "ckpt_cost": "ckpt_cost", "restart": "restart"}


def takes_scenario(**params):
    """Give a planning function a ``scenario=`` keyword: ``params`` maps each of its parameters to a field.

    When a scenario is passed, every mapped parameter the call did not set takes the scenario's value (a
    ``None`` field leaves the function's own handling: measured from the data, or the stated assumption).
    ``scale`` is passed as its ``{cause: unit}`` mapping.  The wrapped function lists the map in
    ``scenario_fields``.
    """
    for field in params.values():
        Scenario.field(field)

    def wrap(func):
        sig = inspect.signature(func)
        missing = sorted(set(params) - set(sig.parameters))
        if missing:
            raise TypeError(f"{func.__qualname__} has no parameter {', '.join(missing)}")

        @functools.wraps(func)
        def with_scenario(*args, scenario=None, **kwargs):
            if scenario is not None:
                if not isinstance(scenario, Scenario):
                    raise ScenarioError(f"scenario must be a relmodel.Scenario, got {type(scenario).__name__}")
                try:
                    given = sig.bind_partial(*args, **kwargs).arguments
                except TypeError:
                    given = {}
                for param, field in params.items():
                    value = scenario.units if field == "scale" else getattr(scenario, field)
                    if param not in given and value is not None:
                        kwargs[param] = value
            try:
                return func(*args, **kwargs)
            except TypeError:
                try:    # a call that does not fit the signature is the caller's error, said by name
                    sig.bind(*args, **kwargs)
                except TypeError as err:
                    raise InputTypeError(f"{func.__name__}: {err}".replace(f"{func.__name__}() ", "", 1)) from None
                raise

        ps = list(sig.parameters.values())
        at = next((i for i, p in enumerate(ps) if p.kind is p.VAR_KEYWORD), len(ps))
        ps.insert(at, inspect.Parameter("scenario", inspect.Parameter.KEYWORD_ONLY, default=None))
        with_scenario.__signature__ = sig.replace(parameters=ps)
        with_scenario.scenario_fields = dict(params)
        return with_scenario
    return wrap


_DEFAULT = Scenario()
