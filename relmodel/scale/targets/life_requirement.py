"""Node requirements under a law of node lives: a mature fleet and a new one, both stated.

:func:`node_life_requirement` answers "what node MTBF (mean life) must the
vendor deliver for a target ETTR at N GPUs" when the failure law describes
node lives (:mod:`relmodel.scale.targets.node_lives` has the models), and
says which fleet each figure is for.
"""

import dataclasses
import math

import pandas as pd

from ...checkpoint.costs import cost_hours
from ...defaults import CKPT_COST, GPUS_PER_NODE, TARGET_ETTR
from ...errors import ModelInputError
from ...tables import Result, duration, hours_text, html_table, pct
from ...units import hours
from .law_requirements import needed_job_mtbf, restart_terms
from .restart_growth import default_restart
from .node_lives import family_shape as _family, life_of, node_mtbf_for
from relmodel.base.escape import html_text

__all__ = ["NodeLifeRequirement", "node_life_requirement"]

@dataclasses.dataclass(frozen=True)
class NodeLifeRequirement(Result):
    """Node MTBF a target needs under a law of node lives, for a mature fleet and a new one (hours).

    ``mature_node_mtbf_h``: nodes at random ages of their lives (a fleet in
    service long enough to forget its start); ``new_node_mtbf_h``: every node
    at age 0 when a run of ``run_h`` hours of service starts.  ``job_gaps_node_mtbf_h``
    is what reading the same shape as the job's gaps would give, for contrast,
    and ``exponential_node_mtbf_h`` the Poisson answer.  Intervals are the
    checkpoint intervals (hours) at each requirement.
    """

    n_gpus: int
    n_nodes: int
    target_ettr: float
    ckpt_cost_h: float
    restart_h: float
    fixed_rate_per_h: float
    law: str
    shape: float
    law_of: str
    run_h: float
    mature_node_mtbf_h: float
    mature_interval_h: float
    new_node_mtbf_h: float
    new_interval_h: float
    job_gaps_node_mtbf_h: float
    exponential_node_mtbf_h: float

    def figures(self):
        rows = [("mature fleet (nodes at random ages)", self.mature_node_mtbf_h, self.mature_interval_h),
                (f"new fleet (age 0 at the start of a {duration(self.run_h)} run)", self.new_node_mtbf_h,
                 self.new_interval_h),
                ("the shape read as the job's gaps (for contrast)", self.job_gaps_node_mtbf_h, float("nan")),
                ("exponential lives (Poisson)", self.exponential_node_mtbf_h, float("nan"))]
        return pd.DataFrame(rows, columns=["fleet", "node_mtbf_h", "interval_h"])

    def to_frame(self):
        return pd.DataFrame([dataclasses.asdict(self)])

    def table(self):
        f = self.figures()
        return pd.DataFrame({"Node MTBF needed for": f["fleet"], "Node MTBF": f["node_mtbf_h"].map(hours_text),
                             "AFR per node": (8766.0 / f["node_mtbf_h"]).map(lambda v: pct(v)),
                             "Checkpoint every": f["interval_h"].map(lambda v: duration(v) if v == v else "—")})

    def text(self):
        target = pct(self.target_ettr).replace(".0%", "%")
        shape = f" of shape {self.shape:.3g}" if self.shape == self.shape else ""
        return (f"Target ETTR {target} at {self.n_gpus:,} GPUs ({self.n_nodes:,} nodes), node lives {self.law}"
                f"{shape}: a mature fleet (nodes at random ages) needs a node MTBF of "
                f"{hours_text(self.mature_node_mtbf_h)}; a new fleet (every node at age 0) needs "
                f"{hours_text(self.new_node_mtbf_h)} over a {duration(self.run_h)} run. Reading the same shape as "
                f"the job's gaps would give {hours_text(self.job_gaps_node_mtbf_h)}; exponential lives "
                f"{hours_text(self.exponential_node_mtbf_h)}.")

    def _repr_html_(self):
        return f"<p>{html_text(self.text())}</p>" + html_table(self.table())


def node_life_requirement(n_gpus, target_ettr=TARGET_ETTR, ckpt_cost=CKPT_COST, restart=None,
                          gpus_per_node=GPUS_PER_NODE, *, law, run, fixed_rate_per_h=None, source=None):
    """Node MTBF needed under a law of node lives, mature fleet and new fleet; a :class:`NodeLifeRequirement`.

    ``law`` is a fitted law of node lives (``relmodel.fit(lives, "weibull")``;
    exponential, Weibull or log-normal) or a lifecycle ``Life``; its mean is
    ignored, its shape kept.  ``run`` is the run's length in service (a
    duration, e.g. ``"54d"``) over which a new fleet is judged.  One of
    ``fixed_rate_per_h`` or ``source`` gives the per-job rate held, as in
    :func:`relmodel.scale.targets.requirements.required_node_mtbf`; ``restart``
    by default is 10 min plus the start-up that grows with the ranks, as there.

    Examples
    --------
    >>> from relmodel.scale.lifecycle.lives import Life
    >>> r = node_life_requirement(16_384, 0.9, "1min", "10min", law=Life(1.0, "weibull", 0.7), run="54d",
    ...                           fixed_rate_per_h=0)
    >>> round(r.mature_node_mtbf_h, -1), round(r.new_node_mtbf_h, -2), round(r.job_gaps_node_mtbf_h, -1)
    (11900.0, 39600.0, 11070.0)
    """
    from .requirements import _fixed_rate, _n_nodes, required_node_mtbf
    life = life_of(law)
    run_h = float(hours(run))
    if not (run_h > 0 and math.isfinite(run_h)):
        raise ModelInputError(f"run must be a positive duration of service, e.g. '54d'; got {run!r}")
    n_nodes = _n_nodes(n_gpus, gpus_per_node)
    restart = default_restart(restart, n_gpus)
    d, r = cost_hours(ckpt_cost, n_gpus, "ckpt_cost"), cost_hours(restart, n_gpus, "restart")
    fixed = _fixed_rate(fixed_rate_per_h, source, n_gpus, gpus_per_node, "node_life_requirement")
    reload, down = restart_terms(r, restart, n_gpus)
    mature, tau_m = node_mtbf_for(target_ettr, life, n_nodes, fixed, d, reload, down)
    new, tau_n = node_mtbf_for(target_ettr, life, n_nodes, fixed, d, reload, down, fleet="new", run_h=run_h)
    gap_law = _GapView(life)
    m_gap = needed_job_mtbf(target_ettr, d, restart, r, n_gpus, gap_law)[0]
    room = 1.0 / m_gap - fixed
    gaps = n_nodes / room if room > 0 else float("inf")
    expo = required_node_mtbf(n_gpus, target_ettr, ckpt_cost, restart, gpus_per_node, fixed_rate_per_h=fixed)
    return NodeLifeRequirement(
        n_gpus=int(n_gpus), n_nodes=n_nodes, target_ettr=float(target_ettr), ckpt_cost_h=d, restart_h=r,
        fixed_rate_per_h=fixed, law=_family(law)[0], shape=life.shape
        if life.law != "exponential" else float("nan"), law_of="node lives", run_h=run_h, mature_node_mtbf_h=mature,
        mature_interval_h=tau_m, new_node_mtbf_h=new, new_interval_h=tau_n, job_gaps_node_mtbf_h=gaps,
        exponential_node_mtbf_h=expo)


class _GapView:
    """A Life seen as a law of job gaps (sf, mean_h): the contrast the result states."""

    def __init__(self, life):
        from .node_lives import _sf
        self.mean_h, self._sf, self._life = life.mean_h, _sf, life

    def sf(self, t):
        return self._sf(self._life, t)
