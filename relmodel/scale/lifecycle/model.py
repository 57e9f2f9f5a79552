"""The inputs of a fleet's life, checked once: pools, job, node lives, repairs, diagnosis, checkpoints.

:func:`fleet_model` turns what a user writes (durations as ``"20min"``,
``"2d"`` or hours; laws by name) into a frozen :class:`FleetModel` in hours,
and refuses an impossible input with a named error. Each field's default is
the AIReSim paper's (Table 1 of arXiv 2603.07041, converted to hours) unless
it says otherwise; :data:`SOURCES` says where each default comes from.
"""

import dataclasses
import math

import numpy as np

from ...scenario import takes_scenario
from ...errors import ModelInputError
from ...units import hours
from .lives import Life, life_law

__all__ = ["FleetModel", "fleet_model", "SOURCES", "RepairStage"]

#: Where each default of :func:`fleet_model` comes from.
SOURCES = {
    "job_nodes": "AIReSim paper default (4,096 servers)",
    "warm_standbys": "AIReSim paper default (16)",
    "working_nodes": "AIReSim paper default (4,160)",
    "spare_nodes": "AIReSim paper default (200, running preemptible work)",
    "work": "AIReSim paper default (256 days of training without failures)",
    "node_mtbf": "AIReSim paper default (0.01 failures a day: 2,400 h)",
    "bad_share": "assumption: interchangeable nodes (the log's estimate replaces it)",
    "multiplier": "assumption: interchangeable nodes",
    "recovery": "AIReSim paper default (20 min)",
    "host_selection": "AIReSim paper default (3 min)",
    "preemption_wait": "AIReSim paper default (20 min a spare taken)",
    "auto_repair": "AIReSim paper default (2 h mean, exponential)",
    "manual_repair": "AIReSim paper default (2 days mean, exponential)",
    "to_manual": "AIReSim paper default (0.8)",
    "auto_unfixed": "AIReSim paper default (0.4)",
    "manual_unfixed": "AIReSim paper default (0.2)",
    "job_mtbf": "assumption: no interruptions of the job's own (the decision's per-job causes replace it)",
}


@dataclasses.dataclass(frozen=True)
class RepairStage:
    """One stage of the repair pipeline: its duration law (a mean in hours, or a model with
    ``sample(n, rng)`` and ``mean_h``) and the chance it reports success while the fault stays."""

    duration: object
    unfixed: float

    @property
    def mean_h(self):
        return float(getattr(self.duration, "mean_h", self.duration))

    def draws(self, n, rng):
        """``n`` stage durations (hours)."""
        from ..sparing.general_repairs import repair_draws
        return repair_draws(self.duration, n, rng)


@dataclasses.dataclass(frozen=True)
class FleetModel:
    """Every input of :func:`~relmodel.scale.lifecycle.simulate_fleet`, in hours (see :func:`fleet_model`)."""

    job_nodes: int
    warm_standbys: int
    working_nodes: int
    spare_nodes: int
    work_h: float
    life: Life
    bad_share: float
    multiplier: float
    turn_bad: float
    fleet: str
    recovery_h: float
    interval_h: float
    ckpt_cost_h: float
    host_selection_h: float
    preemption_wait_h: float
    auto: RepairStage
    manual: RepairStage
    to_manual: float
    crews: object
    rma_lead_h: float
    diagnosis: float
    misdiagnosis: float
    replace_h: float = float("inf")
    job_mtbf_h: float = float("inf")
    reload_h: float = 0.0

    @property
    def checkpointing(self):
        """True when lost work is counted (an interval is set), False in the recovery-only mode."""
        return self.interval_h > 0

    @property
    def total_nodes(self):
        return self.working_nodes + self.spare_nodes

    def replace(self, **changes):
        """This model with some fields changed, checked again (names as :func:`fleet_model` takes)."""
        check_inputs(changes, "FleetModel.replace")
        args = _as_args(self)
        args.update(changes)
        return fleet_model(**args)


def check_inputs(inputs, where, own=""):
    """Refuse keywords that fleet_model does not take (nor ``where``'s ``own``), naming the ones it takes."""
    import inspect
    known = {k for k, p in inspect.signature(fleet_model).parameters.items() if p.kind != p.VAR_KEYWORD}
    unknown = sorted(set(inputs) - known)
    if unknown:
        theirs = f"its own keywords are {own}, and " if own else ""
        raise ModelInputError(f"{where} does not take {', '.join(map(repr, unknown))}: {theirs}the fleet's "
                              f"inputs are fleet_model's: {', '.join(sorted(known))}")


def _as_args(m):
    return dict(job_nodes=m.job_nodes, warm_standbys=m.warm_standbys, working_nodes=m.working_nodes,
                spare_nodes=m.spare_nodes, work=m.work_h, node_mtbf=m.life.mean_h, law=m.life.law,
                shape=m.life.shape, bad_share=m.bad_share, multiplier=m.multiplier, turn_bad=m.turn_bad,
                fleet=m.fleet, recovery=m.recovery_h, interval=m.interval_h or None, ckpt_cost=m.ckpt_cost_h,
                host_selection=m.host_selection_h, preemption_wait=m.preemption_wait_h,
                auto_repair=m.auto.duration, manual_repair=m.manual.duration, to_manual=m.to_manual,
                auto_unfixed=m.auto.unfixed, manual_unfixed=m.manual.unfixed, crews=m.crews,
                rma_lead=m.rma_lead_h, diagnosis=m.diagnosis, misdiagnosis=m.misdiagnosis,
                replace=None if math.isinf(m.replace_h) else m.replace_h,
                job_mtbf=None if math.isinf(m.job_mtbf_h) else m.job_mtbf_h, reload=m.reload_h)


def _count(name, v, low=0):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) and not (
            isinstance(v, (float, np.floating)) and float(v).is_integer()):
        raise ModelInputError(f"{name} must be a whole number >= {low}; got {v!r}")
    if int(v) < low:
        raise ModelInputError(f"{name} must be a whole number >= {low}; got {v!r}")
    return int(v)


def _share(name, v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        x = float("nan")
    if isinstance(v, bool) or not (0.0 <= x <= 1.0):
        raise ModelInputError(f"{name} must be a probability between 0 and 1; got {v!r}")
    return x


def _dur(name, v, positive=False):
    try:
        h = float(hours(v))
    except (TypeError, ValueError) as e:
        raise ModelInputError(f"{name} must be a duration such as 20min, 2d or hours; got {v!r}") from e
    if not (math.isfinite(h) and (h > 0 if positive else h >= 0)):
        raise ModelInputError(f"{name} must be a {'positive' if positive else 'non-negative'} finite duration; "
                              f"got {v!r}")
    return h


def _stage_law(name, v):
    if hasattr(v, "sample") and hasattr(v, "mean_h"):
        mean = float(v.mean_h)
        if not (mean >= 0 and math.isfinite(mean)):
            raise ModelInputError(f"{name}: the repair law's mean must be finite hours; got {mean!r}")
        return v
    return _dur(name, v)


@takes_scenario(ckpt_cost="ckpt_cost", recovery="restart", crews="crews")
def fleet_model(*, job_nodes=4096, warm_standbys=16, working_nodes=4160, spare_nodes=200, work="256d",
                node_mtbf=2400.0, law="exponential", shape=None, bad_share=0.0, multiplier=1.0, turn_bad=0.0,
                fleet="mature", recovery="20min", interval=None, ckpt_cost=0.0, host_selection="3min",
                preemption_wait="20min", auto_repair="2h", manual_repair="2d", to_manual=0.8, auto_unfixed=0.4,
                manual_unfixed=0.2, crews=None, rma_lead=0.0, diagnosis=1.0, misdiagnosis=0.0, replace=None,
                job_mtbf=None, reload=0.0, **others):
    """A checked :class:`FleetModel`; durations take hours or text such as ``"20min"``.

    * pools: ``working_nodes`` hold the job of ``job_nodes`` plus ``warm_standbys`` (idle, ready to swap
      in without a host selection); ``spare_nodes`` run other work and are taken, one
      ``preemption_wait`` each, when the working pool runs short;
    * nodes: a good node's mean life is ``node_mtbf`` hours of service, under ``law`` (exponential,
      weibull, lognormal; ``shape`` is the Weibull k or the log-normal sigma); each node is bad with chance
      ``bad_share`` (drawn for each run), running ``multiplier`` times faster; every 30 days each good node
      turns bad with chance ``turn_bad``; ``fleet`` is "mature" (ages from the equilibrium) or "new" (age 0);
    * repairs: automatic (``auto_repair``, a mean or a law with ``sample``), then manual with chance
      ``to_manual``; each stage leaves a bad node's fault in place with chance ``auto_unfixed`` /
      ``manual_unfixed``; ``crews`` (None for unlimited) do manual repairs first come, first served,
      followed by an RMA lead time ``rma_lead`` (a repair sent on to the manual stage takes only that
      stage's ``manual_unfixed``; every repair, fixing or not, starts the node on a new life at age 0);
      ``diagnosis`` is the chance a failure is sent to repair
      at all, ``misdiagnosis`` the chance the wrong node of the job is blamed;
    * retirement: ``replace`` is the lead time after which a retired node is replaced by a new one (bad with
      chance ``bad_share``, at age 0); None never replaces (the pool shrinks, as AIReSim counts);
    * the job: ``work`` hours of training; each failure costs ``recovery``; a full host selection
      ``host_selection``. With ``interval`` set, the job checkpoints every ``interval`` at
      ``ckpt_cost`` and loses the work since its last checkpoint; without it, no work is lost (the
      recovery-only mode, as AIReSim counts); ``job_mtbf`` (None for none) is the mean hours of running
      between interruptions of the job's own causes (software, collective timeouts): each costs a
      ``recovery`` and the work since the last checkpoint, and blames no node. The last ``reload`` of each
      recovery (at most all of it) is exposed to failures: the job's nodes run while it reloads, and a
      failure then starts the recovery again, as Daly's restart is (0: the whole recovery is downtime,
      AIReSim's convention).

    Examples
    --------
    >>> m = fleet_model(job_nodes=64, warm_standbys=2, working_nodes=70, spare_nodes=4, work="30d")
    >>> m.total_nodes, round(m.recovery_h, 3)
    (74, 0.333)
    """
    check_inputs(others, "fleet_model")
    job = _count("job_nodes", job_nodes, 1)
    warm = _count("warm_standbys", warm_standbys)
    working = _count("working_nodes", working_nodes, 1)
    spares = _count("spare_nodes", spare_nodes)
    if working < job:
        raise ModelInputError(f"working_nodes ({working:,}) must hold the job's {job:,} nodes")
    life = life_law(_dur("node_mtbf", node_mtbf, positive=True), law, shape)
    mult = float(multiplier) if not isinstance(multiplier, bool) else float("nan")
    if not (mult >= 1 and math.isfinite(mult)):
        raise ModelInputError(f"multiplier (how many times faster a bad node fails) must be >= 1; got {multiplier!r}")
    if fleet not in ("mature", "new"):
        raise ModelInputError(f"fleet must be 'mature' (nodes of all ages) or 'new' (every node at age 0); "
                              f"got {fleet!r}")
    if crews is not None:
        crews = _count("crews", crews, 1)
    interval_h = 0.0 if interval is None else _dur("interval", interval, positive=True)
    recovery_h, reload_h = _dur("recovery", recovery), _dur("reload", reload)
    if reload_h > recovery_h:
        raise ModelInputError(f"reload ({reload_h:.4g} h) is the part of the recovery exposed to failures: it "
                              f"cannot exceed the recovery ({recovery_h:.4g} h)")
    return FleetModel(
        job_nodes=job, warm_standbys=warm, working_nodes=working, spare_nodes=spares,
        work_h=_dur("work", work, positive=True), life=life, bad_share=_share("bad_share", bad_share),
        multiplier=mult, turn_bad=_share("turn_bad", turn_bad), fleet=fleet, recovery_h=recovery_h,
        interval_h=interval_h, ckpt_cost_h=_dur("ckpt_cost", ckpt_cost),
        host_selection_h=_dur("host_selection", host_selection),
        preemption_wait_h=_dur("preemption_wait", preemption_wait),
        auto=RepairStage(_stage_law("auto_repair", auto_repair), _share("auto_unfixed", auto_unfixed)),
        manual=RepairStage(_stage_law("manual_repair", manual_repair), _share("manual_unfixed", manual_unfixed)),
        to_manual=_share("to_manual", to_manual), crews=crews, rma_lead_h=_dur("rma_lead", rma_lead),
        diagnosis=_share("diagnosis", diagnosis), misdiagnosis=_share("misdiagnosis", misdiagnosis),
        replace_h=float("inf") if replace is None else _dur("replace", replace),
        job_mtbf_h=float("inf") if job_mtbf is None else _dur("job_mtbf", job_mtbf, positive=True), reload_h=reload_h)
