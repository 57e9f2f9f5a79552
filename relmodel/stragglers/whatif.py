"""What-if analysis of an op-level trace: how much slower stragglers made the job, and where they sit.

Following Lin et al., "Understanding Stragglers in Large Model Training Using
What-if Analysis" (OSDI 2025, arXiv 2505.05713, section 4), with every
simulation through the step's dependency model (:mod:`.graph`, :mod:`.simulate`):

* **original**: the trace re-simulated with its recorded durations and
  transfer times, launch delays removed (so simulation error cancels in the
  ratios below);
* **ideal**: every operation at its type's typical time: the mean over all
  workers and steps for computations (forward, backward, optimizer, gc), the
  median for communications;
* the slowdown **S** = mean original step time / mean ideal step time, with a
  percentile bootstrap interval over steps, and per step the ratio of the two;
* **attribution**: S_g for a group g of operations (an op type, a pipeline
  stage, a DP rank) is the ideal run with only g's operations at their
  recorded times, over the ideal; a worker's score is the smaller of its DP
  rank's and its stage's;
* **M_W**, the share of the slowdown explained by individual workers: the
  top 3% of workers by score (at least one) are set to typical times in the
  original, and M_W = (original - that) / (original - ideal); **M_S**, the
  share explained by stage partitioning imbalance, does the same with the
  last pipeline stage.
"""

from relmodel.base.escape import html_text
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..budget_guard import check_cost, count, seed_value
from ..errors import ModelInputError
from ..tables import Result, html_table
from .graph import COMM_TYPES
from .simulate import simulate_steps

__all__ = ["WhatIf", "whatif", "typical_times", "op_group", "analyse_trace"]

_NONE = 1e-9  # a relative gap below this is rounding, not slowdown
TOP_SHARE = 0.03  # the share of workers M_W sets to typical times (Lin et al., artifact's compute_mw)


def op_group(optype):
    """The op-type group used for attribution: sends and receives merge into pipeline communication."""
    if optype in ("forward-send", "forward-recv"):
        return "forward-pp-comm"
    if optype in ("backward-send", "backward-recv"):
        return "backward-pp-comm"
    return optype


def typical_times(trace):
    """Each node's typical time: its op type's mean (computations) or median (communications) over the trace."""
    typ = np.empty(trace.graph.n_nodes)
    for t in np.unique(trace.graph.optype):
        nodes = np.flatnonzero(trace.graph.optype == t)
        vals = trace.x[nodes]
        typ[nodes] = np.median(vals) if t in COMM_TYPES else vals.mean()
    return typ


@dataclass(frozen=True, eq=False)
class WhatIf(Result):
    """Slowdown of a job against its straggler-free simulation, and where it comes from.

    ``factor`` is the published slowdown S (a multiplier, 1 = no slower: the
    job takes S times as long); its interval is ``lo`` to ``hi``.  Times are
    seconds.  ``per_step`` has one row per step; ``by_optype``,
    ``by_stage``, ``by_dp_rank`` and ``by_worker`` hold S_g (and the share of
    S - 1 it amounts to); ``step_workers`` is the per-step worker score
    (steps x workers) that :func:`relmodel.plots.stragglers.straggler_heatmap` draws.
    """

    name: str
    factor: float
    lo: float
    hi: float
    conf: float
    original_s: float
    ideal_s: float
    recorded_s: float
    per_step: pd.DataFrame
    by_optype: pd.DataFrame
    by_stage: pd.DataFrame
    by_dp_rank: pd.DataFrame
    by_worker: pd.DataFrame
    step_workers: pd.DataFrame
    mw: float
    ms: float
    top_workers: tuple
    recoverable: pd.DataFrame

    @property
    def share_lost(self):
        """Share of the job's time lost to stragglers: 1 - 1/S."""
        return 1 - 1 / self.factor

    def to_frame(self):
        """The per-step table: step, recorded, simulated and ideal time (s), factor (simulated over ideal)."""
        return self.per_step.copy()

    def table(self):
        """Headline numbers for people."""
        rows = [("Steps analysed", f"{len(self.per_step):,}"),
                ("Mean step time, recorded", f"{self.recorded_s:,.2f} s"),
                ("Mean step time, simulated as recorded", f"{self.original_s:,.2f} s"),
                ("Mean step time without stragglers", f"{self.ideal_s:,.2f} s"),
                ("Slowdown S", f"{self.factor:.3f} ({self._interval()})"),
                ("Share of time lost", f"{100 * self.share_lost:.1f}%"),
                ("Explained by individual workers", _pct(self.mw)),
                ("Explained by stage imbalance", _pct(self.ms)),
                ("Op type that slows the job most", _top(self.by_optype, "op type")),
                ("Stage that slows the job most", _top(self.by_stage, "stage")),
                ("DP rank that slows the job most", _top(self.by_dp_rank, "DP rank"))]
        return pd.DataFrame(rows, columns=["quantity", "value"])

    def _interval(self):
        if np.isnan(self.lo):
            return "no interval computed"
        return f"{self.conf:.0%} interval {self.lo:.3f} to {self.hi:.3f}"

    def text(self):
        """The answers as sentences, in one string (each is also its own ``*_sentence()`` method)."""
        return " ".join(self._sentences())

    def _sentences(self):
        return [self.slowdown_sentence(), self.where_sentence(), self.workers_sentence(), self.stages_sentence()]

    def slowdown_sentence(self):
        return (f"Stragglers made {self.name} run {self.factor:.2f} times as long as it would have with every "
                f"operation at its typical time ({self._interval()}): {100 * self.share_lost:.1f}% of its "
                f"time was lost.")

    def where_sentence(self):
        t, s, d = self.by_optype.iloc[0], self.by_stage.iloc[0], self.by_dp_rank.iloc[0]
        return (f"Keeping one group's recorded times at a time, {t['op type']} alone slows the job {t['S']:.2f} "
                f"times, stage {int(s['stage'])} alone {s['S']:.2f} times and DP rank {int(d['DP rank'])} alone "
                f"{d['S']:.2f} times.")

    def workers_sentence(self):
        n = len(self.top_workers)
        kind = ("sits in particular workers" if self.mw >= 0.5 else "is spread over many workers" if self.mw < 0.2
                else "sits partly in particular workers")
        return (f"Individual workers explain {_pct(self.mw)} of the slowdown: giving the "
                f"{'worker' if n == 1 else f'{n:,} workers'} that slow the job most ({_names(self.top_workers)}) "
                f"typical times removes that share, so the cause {kind}.")

    def stages_sentence(self):
        kind = "a major cause" if self.ms >= 0.5 else "a minor cause" if self.ms >= 0.2 else "not a cause"
        return (f"Stage partitioning imbalance explains {_pct(self.ms)} of the slowdown: giving the "
                f"last pipeline stage typical times removes that share, so imbalance between stages is {kind}.")

    def step_log(self):
        """Steps x workers as a step log (see :func:`relmodel.stragglers.plan.worker_steps`)."""
        from .plan import worker_steps

        return worker_steps(self)

    def find_slow_workers(self, **kw):
        """Persistently slow workers (see :func:`relmodel.stragglers.plan.slow_workers`)."""
        from .plan import slow_workers

        return slow_workers(self, **kw)

    def eviction_policy(self, **kw):
        """Evict the worker whose removal recovers most of S? (see :func:`relmodel.stragglers.plan.evict_worker`)."""
        from .plan import evict_worker

        return evict_worker(self, **kw)

    def goodput(self, ettr_value):
        """ETTR x 1/S: the share of wall time left for training (see :func:`relmodel.stragglers.combined_goodput`)."""
        from .plan import whatif_goodput

        return whatif_goodput(self, ettr_value)

    def _repr_html_(self):
        head = "".join(f"<p>{html_text(s)}</p>" for s in self._sentences())
        return head + html_table(self.table(), index=False)


def _names(workers, show=3):
    shown = "; ".join(workers[:show])
    return shown if len(workers) <= show else f"{shown} and {len(workers) - show:,} more"


def _pct(share):
    v = round(100 * share)
    return f"{v + 0:.0f}%" if v else "0%"


def _top(df, key):
    r = df.iloc[0]
    return f"{r[key] if key == 'op type' else int(r[key])} (S {r['S']:.3f})"


def _by(groups, step_t, ideal, key, slowdown):
    mean = np.array([t.mean() for t in step_t]) / ideal
    share = (mean - 1) / (slowdown - 1) if slowdown - 1 > _NONE else np.zeros(len(mean))
    out = pd.DataFrame({key: groups, "S": mean, "share of slowdown": share})
    return out.sort_values("S", ascending=False, kind="stable").reset_index(drop=True)


def _keep(trace, typ, mask):
    return simulate_steps(trace.graph, lambda i: trace.x[i] if mask[i] else typ[i])


def _keep_dp(trace, typ):
    """Step times (dp, steps) with one DP rank at recorded times, the others at typical (one stands for all)."""
    def value(i):
        arr = np.empty((trace.dp, trace.n_steps, 2))
        arr[..., 0] = trace.x[i].T
        arr[..., 1] = typ[i]
        return arr
    return simulate_steps(trace.graph, value)


def _remove(trace, typ, workers):
    """Step times with the given (stage, dp rank) workers at typical times and the rest as recorded."""
    by_stage = {}
    for s, d in workers:
        by_stage.setdefault(s, []).append(d)

    def value(i):
        cols = by_stage.get(int(trace.graph.stage[i]))
        if not cols:
            return trace.x[i]
        arr = trace.x[i].copy()
        arr[:, cols] = typ[i]
        return arr
    return simulate_steps(trace.graph, value)


def _bootstrap(orig, ideal, n_boot, conf, seed):
    if n_boot <= 0 or len(orig) < 2:
        return float("nan"), float("nan")
    idx = np.random.default_rng(seed).integers(0, len(orig), size=(n_boot, len(orig)))
    ratios = orig[idx].mean(axis=1) / ideal
    a = (1 - conf) / 2
    return float(np.quantile(ratios, a)), float(np.quantile(ratios, 1 - a))


def _worker_label(s, d):
    return f"DP rank {d}, stage {s}"


def whatif(trace, *, conf=0.95, n_boot=1000, seed=None, top_share=TOP_SHARE):
    """Run the what-if analysis of an :class:`~relmodel.stragglers.ops.OpTrace` (see the module notes).

    ``n_boot`` bootstrap resamples of the steps give the interval on S (0
    skips it); ``top_share`` is the share of workers M_W sets to typical times.
    Step times in the result are seconds; S, M_W and M_S are ratios and shares.

    Examples
    --------
    >>> from relmodel.stragglers.ops import example_ops
    >>> r = whatif(example_ops("ST"), n_boot=0, seed=0)     # a long last stage (Lin et al., OSDI 2025)
    >>> round(r.factor, 4), round(r.ms, 2), int(r.by_stage.iloc[0]["stage"])   # published: 1.1787, 1.22, 3
    (1.1787, 1.22, 3)
    """
    if not 0 < conf < 1:
        raise ModelInputError(f"conf must be in (0, 1); got {conf!r}")
    if not 0 < top_share <= 1:
        raise ModelInputError(f"top_share must be in (0, 1]; got {top_share!r}")
    n_boot = count("n_boot", n_boot, lo=0)  # 0 skips the interval; -1 gave NaN bounds
    seed = seed_value(seed)
    check_cost(f"whatif(n_boot={n_boot:,})", work=4.0 * n_boot * len(trace.x), memory=8.0 * n_boot * len(trace.x),
               hint="use fewer bootstrap resamples")
    g, typ = trace.graph, typical_times(trace)
    orig = simulate_steps(g, lambda i: trace.x[i])
    ideal = float(simulate_steps(g, lambda i: typ[i]))
    slow = float(orig.mean() / ideal)
    lo, hi = _bootstrap(orig, ideal, int(n_boot), conf, seed)
    kinds = np.array([op_group(t) for t in g.optype])
    names = sorted(set(kinds))
    by_type = _by(names, [_keep(trace, typ, kinds == k) for k in names], ideal, "op type", slow)
    stage_t = [_keep(trace, typ, g.stage == s) for s in range(trace.pp)]
    dp_t = _keep_dp(trace, typ)
    by_stage = _by(list(range(trace.pp)), stage_t, ideal, "stage", slow)
    by_dp = _by(list(range(trace.dp)), list(dp_t), ideal, "DP rank", slow)
    workers, score, grid = _worker_scores(trace, stage_t, dp_t, ideal)
    order = sorted(range(len(workers)), key=lambda w: -score[w])
    top = [workers[w] for w in order[:max(1, int(np.ceil(len(workers) * top_share - 1e-9)))]]
    mw = _explained(trace, typ, orig, ideal, top)
    ms = _explained(trace, typ, orig, ideal, [(trace.pp - 1, d) for d in range(trace.dp)])
    labels = [_worker_label(s, d) for s, d in workers]
    by_worker = pd.DataFrame({"worker": labels, "stage": [s for s, _ in workers], "DP rank": [d for _, d in workers],
                              "S": score}).sort_values("S", ascending=False, kind="stable").reset_index(drop=True)
    per_step = pd.DataFrame({"step": trace.steps, "recorded_s": trace.recorded_s, "simulated_s": orig,
                             "ideal_s": ideal, "factor": orig / ideal})
    return WhatIf(name=trace.name, factor=slow, lo=lo, hi=hi, conf=conf, original_s=float(orig.mean()),
                  ideal_s=ideal, recorded_s=float(trace.recorded_s.mean()), per_step=per_step, by_optype=by_type,
                  by_stage=by_stage, by_dp_rank=by_dp, by_worker=by_worker,
                  step_workers=pd.DataFrame(grid, index=pd.Index(trace.steps, name="step"), columns=labels),
                  mw=mw, ms=ms, top_workers=tuple(_worker_label(s, d) for s, d in top),
                  recoverable=_recoverable(trace, typ, orig.mean(), by_worker.head(3)))


def _worker_scores(trace, stage_t, dp_t, ideal):
    """Workers (stage, DP rank), stage-major; each one's score min(S_dp, S_stage) overall and per step."""
    per_stage = np.stack(stage_t) / ideal  # (pp, steps)
    per_dp = dp_t / ideal  # (dp, steps)
    score = np.minimum(per_stage.mean(axis=1)[:, None], per_dp.mean(axis=1)[None, :]).ravel()
    grid = np.minimum(per_stage[:, None, :], per_dp[None, :, :]).reshape(trace.pp * trace.dp, -1).T
    return [(s, d) for s in range(trace.pp) for d in range(trace.dp)], score, grid


def _explained(trace, typ, orig, ideal, workers):
    """Share of the slowdown removed by giving ``workers`` typical times: (original - that) / (original - ideal)."""
    gap = orig.mean() - ideal
    if gap <= _NONE * ideal:
        return 0.0
    return float((orig.mean() - _remove(trace, typ, workers).mean()) / gap)


def _recoverable(trace, typ, orig_mean, candidates):
    """For the highest-scoring workers: the share of step time recovered by giving that one worker typical times."""
    rows = []
    for _, r in candidates.iterrows():
        t = _remove(trace, typ, [(int(r["stage"]), int(r["DP rank"]))]).mean()
        rows.append((r["worker"], int(r["stage"]), int(r["DP rank"]), float(orig_mean / t - 1)))
    return pd.DataFrame(rows, columns=["worker", "stage", "DP rank", "slowdown_removed"])


def analyse_trace(trace=None, *, conf=0.95, n_boot=1000, seed=None, **read_kw):
    """One call from an op-level trace to its what-if: a path (or DataFrame, or OpTrace), None for the bundled AR.

    ``read_kw`` (``dp``, ``pp``, ``meta``...) go to :func:`~relmodel.stragglers.ops.read_ops`.  The result's
    ``text()`` holds the page's sentences; :func:`relmodel.plots.stragglers.straggler_heatmap` and
    ``step_times_plot`` draw its figures; ``step_log()`` feeds ``find_slow_nodes`` and the scaling fit.
    """
    from .ops import OpTrace, example_ops, read_ops

    if trace is None:
        trace = example_ops("AR")
    elif not isinstance(trace, OpTrace):
        trace = read_ops(trace, **read_kw)
    return whatif(trace, conf=conf, n_boot=n_boot, seed=seed)
