"""The stragglers page (notebook 07): which step data it reads, and the fail-stop MTBF it plans with.

:func:`step_data` resolves the page's ``steps`` parameter to a step log,
or to the op-level trace shown instead, and says which in the page's first
sentence.  :func:`assumed_slowdown` resolves ``fail_slow_slowdown`` to the
slowdown a fail-slow node is assumed to cause when the log flags none.  :func:`failstop_mtbf` takes
the job's fail-stop MTBF from the report's source (the log or count table
pages 01-05 read) scaled to the planned job, exactly as the checkpoint page
does, unless the page is given one; :class:`FailStop` says where it came
from.
"""

from dataclasses import dataclass

from ...checkpoint.intervals import optimal_interval
from ...errors import ParameterError
from ...tables import count, duration
from ...units import hours

__all__ = ["StepData", "step_data", "FailStop", "failstop_mtbf", "AR_TRACE", "TRACE_NOTE", "assumed_slowdown",
           "ASSUMED_SLOWDOWN"]

#: The page's default ``fail_slow_slowdown`` (a fraction: 20% slower), as in its parameters cell.
ASSUMED_SLOWDOWN = 0.2

#: The bundled op-level trace the page shows when it is given no step data.
AR_TRACE = ("the bundled AR trace of Lin et al. (OSDI 2025, arXiv 2505.05713): 64 GPUs of a ByteDance training job, "
            "one worker artificially slowed")


#: What the page says about an op-level trace before its step log.
TRACE_NOTE = ("The op-level trace is re-simulated through the step's dependency model; its workers' step times (each "
              "the step time with only that worker as recorded) make the step log of the sections below. The what-if "
              "compares the run with the same run without stragglers (Lin et al., OSDI 2025, arXiv 2505.05713).")


@dataclass(frozen=True)
class StepData:
    """The step data of the page: ``steps`` (a StepLog), the what-if of a trace (or None), and what they are."""

    steps: object
    whatif: object
    lead: str
    example: object = None


def step_data(steps=None, *, trace=None, step="step", rank="rank", duration_column="duration_ms",
              step_unit="ms", node="node", conf=0.95, n_boot=1000, seed=0):
    """Read the page's step data: a step log named by ``steps``, else the op-level ``trace`` (None: the bundled AR).

    Returns a :class:`StepData` whose ``lead`` is the page's first sentence
    and whose ``example`` names the example shown (None when the user's data
    is shown).
    """
    from ...data.formats.steps import read_steps
    from ...stragglers import analyse_trace
    if steps is not None:
        log = read_steps(steps, step=step, rank=rank, duration=duration_column, node=node, time_unit=step_unit)
        return StepData(log, None, f"The step times are your step log {log.name}.")
    whatif = analyse_trace(trace, conf=conf, n_boot=n_boot, seed=seed)
    if trace is not None:
        return StepData(whatif.step_log(), whatif, f"The step times come from your op-level trace {trace}, "
                        "re-simulated through the step's dependency model.")
    return StepData(whatif.step_log(), whatif,
                    f"This page shows an example, not your data: {AR_TRACE} (give steps to read your step log).",
                    example="op-level AR trace of Lin et al., OSDI 2025, 64 GPUs")


def assumed_slowdown(fail_slow_slowdown=ASSUMED_SLOWDOWN):
    """The slowdown (a fraction) a fail-slow node is assumed to cause when the log flags no slow node.

    ``fail_slow_slowdown=None`` is the default, :data:`ASSUMED_SLOWDOWN`.

    Examples
    --------
    >>> assumed_slowdown(0.1)
    0.1
    """
    return float(ASSUMED_SLOWDOWN if fail_slow_slowdown is None else fail_slow_slowdown)


@dataclass(frozen=True)
class FailStop:
    """The fail-stop job MTBF and checkpoint interval the eviction policy uses, and where they came from."""

    mtbf_h: float
    interval_h: float
    origin: str
    example: str = ""  #: what stood in for the data when it gives no GPU job an MTBF (a disk log), else ""

    def text(self):
        return (f"Fail-stop interruptions: job MTBF {duration(self.mtbf_h)}, checkpoint every "
                f"{duration(self.interval_h)} (Daly 2006); {self.origin}.")


def failstop_mtbf(source, n_gpus, ckpt_cost, restart, *, gpus_per_node=8, mtbf_h=None):
    """The job's fail-stop MTBF: ``mtbf_h`` when given, else the source's rates scaled to ``n_gpus`` GPUs.

    ``source`` is the report's :class:`~relmodel.data.source.Source`; the
    MTBF is :func:`relmodel.scale.targets.decision.decide`'s ``job_mtbf_h`` (the
    checkpoint page's).  A source that gives no GPU job an answer (a disk log without ``units_per_node``)
    is stood in for by the Llama 3 counts, as on the design page, and ``example`` says so.  Returns a
    :class:`FailStop`.
    """
    from ...data.bundled.datasets import llama3_54day
    from ...errors import UnitError
    from ...scale.targets.decision import decide
    d, r = float(hours(ckpt_cost)), float(hours(restart))
    if mtbf_h is not None:
        m = float(hours(mtbf_h))
        if not m > 0:
            raise ParameterError(f"mtbf_h must be a positive number of hours, e.g. 20; got {mtbf_h!r}")
        return FailStop(m, float(optimal_interval(mtbf=m, ckpt_cost=d, restart=r)),
                        "as given by the mtbf_h parameter, not from the data")
    try:
        dec = decide(source, n_gpus, 0.9, d, r, gpus_per_node=gpus_per_node, n_boot=0)
    except UnitError:
        dec = decide(llama3_54day(), n_gpus, 0.9, d, r, gpus_per_node=gpus_per_node, n_boot=0)
        example = f"Llama 3 counts for the fail-stop MTBF ({source.name} counts no GPUs)"
        return FailStop(float(dec.job_mtbf_h), float(dec.interval_h),
                        f"an example, not your data: the Llama 3 counts (419 unexpected interruptions in 54 days on "
                        f"16,384 H100 GPUs, arXiv 2407.21783, Table 5) scaled to {count(dec.n_gpus)} GPUs, since "
                        f"{source.name} counts no GPUs (give units_per_node to use its rates)", example)
    origin = (f"from {source.describe()}, scaled to {count(dec.n_gpus)} GPUs ({count(dec.n_nodes)} nodes), as on "
              "the checkpoint page")
    return FailStop(float(dec.job_mtbf_h), float(dec.interval_h), origin)
