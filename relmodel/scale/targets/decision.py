"""The planning answer for one data source: interval, ETTR, requirement, reach.

:func:`decide` scales the rates observed in a source (a
:class:`~relmodel.data.source.Source`, or a log or count table with its
cluster) to the job's size and answers the report's question in numbers:
how often to checkpoint and the ETTR that gives (with intervals from the
Poisson uncertainty of the counts), what job MTBF the target needs, and
what node MTBF that means with the per-job causes held at their observed
rate.  When those per-job causes alone cap ETTR below the target the answer
says so: ``reachable`` is False, ``cap_ettr`` is the best ETTR perfect
hardware would give, and ``max_fixed_per_day`` is the per-job failure rate
the target needs.  :func:`cause_impact` ranks causes by their share of lost
time and the ETTR gained by removing each.
"""

import dataclasses
import math

import pandas as pd

from ...budget_guard import count
from ...checkpoint.intervals import optimal_interval
from ...tables import Result, duration, pct, pct_range, target_pct
from ..clusters.cluster import Cluster
from ...errors import MissingColumnError, ModelInputError, NoProgressError, UnitError
from .decision_inputs import (MEASURED, PARAMETER, choose_law, cluster_wide_causes, cost_input, interval_at,
                              restart_input)
from .restart_growth import growth_words, planned_growth_h
from .law_requirements import best_law_ettr
from .requirements import best_ettr, plan_requirements
from ..clusters.scaling import cluster_of, garwood, gpu_count, grow_cluster, job_rates, parse_units, scale_rates
from ...scenario import Scenario, scenario_of
from .today import todays_rate
from .cause_impact import cause_impact, failure_law  # noqa: F401 (kept importable here)

__all__ = ["Decision", "decide", "source_cluster", "cause_impact", "failure_law"]


def _finite(x):
    return x is not None and math.isfinite(float(x))


@dataclasses.dataclass(frozen=True)
class Decision(Result):
    """The one answer to "how often to checkpoint, and what must the hardware reach?", with its reasons.

    Durations are hours, rates per hour unless the name says per day.  A
    requirement that no hardware can meet is ``None`` (``reachable`` False).
    ``interval_h`` and ``ettr`` (with ``ettr_lo``, ``ettr_hi``) are the
    answer, from ``basis`` ("simulation" with the fitted ``law``, or
    "formula": the exponential optimum); ``formula_*`` keep the exponential
    formula's figures beside it, and ``range_covers`` says what the range
    holds.  The requirement (``required_job_mtbf_h``, ``required_node_*``,
    ``reachable``, ``cap_ettr``) is solved under ``requirement_law``: the
    fitted law when the answer is the simulation's (renewal-reward, that law's shape at each mean), else
    exponential; ``formula_required_node_mtbf_h`` is the exponential formula's node figure beside it.  Rates are
    today's (``trend``, ``today_method``: the weighted rate at the window's end of the rate models that best
    forecast the log's later parts; ``today_window`` the stretch each rests on; ``rate_factor`` today over average).
    ``todays_node_mtbf_h`` is the observed nodes' MTBF for hardware causes, one value per source whatever the
    planned size.  ``sources`` says for each input whether it was measured, given or assumed.
    """

    n_gpus: int
    n_nodes: int
    gpus_per_node: int
    target_ettr: float
    ckpt_cost_h: float
    restart_h: float
    job_mtbf_h: float
    job_mtbf_lo: float
    job_mtbf_hi: float
    interval_h: float
    interval_lo: float
    interval_hi: float
    ettr: float
    ettr_lo: float
    ettr_hi: float
    required_job_mtbf_h: float
    fixed_per_day: float
    hardware_per_day: float
    observed_node_mtbf_h: object
    required_node_mtbf_h: object
    required_node_lo: object
    required_node_hi: object
    reachable: bool
    cap_ettr: float
    max_fixed_per_day: float
    p_reachable: float
    conf: float
    basis: str = "formula"
    law: str = "exponential"
    law_reason: str = ""
    requirement_law: str = "exponential"
    formula_required_node_mtbf_h: object = None
    comparison_law: object = None
    formula_interval_h: object = None
    formula_ettr: object = None
    formula_ettr_lo: object = None
    formula_ettr_hi: object = None
    range_covers: str = ""
    trend: str = "not tested"
    today_method: str = "the average over the window"
    today_reason: str = ""
    today_window: str = ""
    rate_factor: float = 1.0
    average_job_mtbf_h: object = None
    todays_node_mtbf_h: object = None
    todays_node_lo: object = None
    todays_node_hi: object = None
    average_node_mtbf_h: object = None
    window_h: object = None
    n_events: object = None
    restart_note: str = ""
    restart_growth_h: float = 0.0
    detection_latency_h: object = None
    source_gpus: object = None
    source_gpus_per_node: object = None
    source_unit: str = "gpu-node"
    per_job_causes: tuple = ()
    cluster_wide: tuple = ()
    sources: tuple = ()
    no_progress: bool = False
    fleet: dict = dataclasses.field(default=None, compare=False)
    fleet_note: str = ""
    search: object = dataclasses.field(default=None, compare=False, repr=False)
    scaled: object = dataclasses.field(default=None, compare=False, repr=False)
    plan: object = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def meets_target(self):
        """True when the observed rates already give the target ETTR."""
        return self.ettr >= self.target_ettr

    @property
    def improvement(self):
        """How many times today's node MTBF must grow (None when out of reach or unknown)."""
        if not (self.reachable and _finite(self.observed_node_mtbf_h) and _finite(self.required_node_mtbf_h)):
            return None
        return self.required_node_mtbf_h / self.observed_node_mtbf_h

    def to_dict(self):
        """Plain values (JSON-able; non-finite numbers become None; the simulation object is left out)."""
        out = {}
        for f in dataclasses.fields(self):
            if f.name in ("search", "scaled", "plan"):
                continue
            v = getattr(self, f.name)
            if f.name == "sources":
                out[f.name] = dict(v)
            elif isinstance(v, dict):
                out[f.name] = {k: (float(x) if isinstance(x, float) and _finite(x) else None
                                   if isinstance(x, float) else x) for k, x in v.items()}
            elif isinstance(v, tuple):
                out[f.name] = list(v)
            elif isinstance(v, (bool, int, str)) or v is None:
                out[f.name] = v
            else:
                out[f.name] = float(v) if _finite(v) else None
        out["improvement"] = self.improvement
        out["meets_target"] = self.meets_target
        return out

    def headline(self):
        """The headline numbers every face prints (summary.json's ``headline``), with each input's source."""
        d = self.to_dict()
        keys = ("ettr", "ettr_lo", "ettr_hi", "job_mtbf_h", "job_mtbf_lo", "job_mtbf_hi", "required_node_mtbf_h",
                "required_node_lo", "required_node_hi", "todays_node_mtbf_h", "todays_node_lo", "todays_node_hi",
                "average_node_mtbf_h", "restart_h", "ckpt_cost_h", "detection_latency_h", "n_gpus",
                "gpus_per_node", "source_gpus_per_node", "basis", "law", "trend", "range_covers")
        out = {k: d[k] for k in keys}
        out["optimal_interval_h"] = d["interval_h"]
        out["source"] = dict(self.sources)
        if self.fleet:  # the lifecycle's answer (relmodel.scale.lifecycle.with_fleet), beside the job's
            out["fleet"] = dict(self.fleet)
        return out

    def to_frame(self):
        """One row per quantity: quantity, value."""
        return pd.DataFrame([(k, v) for k, v in self.to_dict().items() if not isinstance(v, (dict, list))],
                            columns=["quantity", "value"])

    def text(self):
        """The decision in a sentence."""
        state = "reachable" if self.reachable else f"out of reach (cap {pct(self.cap_ettr)})"
        rng = (f" ({pct_range(self.ettr_lo, self.ettr_hi)})" if _finite(self.ettr_lo) and _finite(self.ettr_hi)
               and pct(self.ettr_lo) != pct(self.ettr_hi) else "")
        return (f"At {self.n_gpus:,} GPUs: job MTBF {duration(self.job_mtbf_h, digits=3)}, checkpoint every "
                f"{duration(self.interval_h, digits=3)}, ETTR {pct(self.ettr)}{rng} ({self.basis}); target "
                f"{target_pct(self.target_ettr)} is {state}.")

    def _repr_html_(self):
        from relmodel.base.escape import html_text
        return f"<p>{html_text(self.text())}</p>"


def source_cluster(source, units_per_node=None):
    """The :class:`Cluster` a Source (or log / count table) was observed on.

    A log whose units are not GPU nodes (disks, servers) is counted in nodes
    of the planned job only when ``units_per_node`` says how many of its units
    one such node holds; otherwise :class:`~relmodel.errors.UnitError`.  A
    log that names no nodes and gives no size is refused
    (:class:`~relmodel.errors.MissingColumnError`).
    """
    data = getattr(source, "data", source)
    unit = getattr(source, "unit", None) or getattr(data, "_unit", "gpu-node")
    gpus = getattr(source, "source_gpus", None)
    gpn = getattr(source, "gpus_per_node", None)
    if units_per_node is not None and not (isinstance(units_per_node, (int, float)) and units_per_node > 0):
        raise ModelInputError(f"units_per_node must be a number above 0 (how many of the log's units one node "
                              f"holds); got {units_per_node!r}")
    if unit != "gpu-node":
        if units_per_node is None:
            raise UnitError(f"{getattr(source, 'name', 'the source')}: each row's node is a {unit}, not a GPU node, "
                            f"so it gives no answer for a GPU job; pass units_per_node (how many {unit}s one node "
                            "of the planned job holds) to apply its rates to GPU nodes")
        nodes = max(1, round(source.n_nodes / float(units_per_node)))
        return Cluster(n_gpus=nodes * int(gpn or 8), gpus_per_node=int(gpn or 8), name=str(source.name))
    if gpus is None and hasattr(data, "events") and getattr(data, "_n_nodes", 1) is None:
        ev = data.events
        if "node" not in ev or ev["node"].nunique() <= 1:
            raise MissingColumnError(f"{getattr(data, 'name', 'the log')}: the log names no nodes and no cluster "
                                     "size was given, so its rates cannot be scaled to a job; pass source_gpus "
                                     "(GPUs observed) or node (the column naming each outage's node)")
    try:
        found = cluster_of(data, gpn)
    except Exception:
        found = None
    if found is not None and (gpus is None or found.n_gpus == gpus):
        return found
    return Cluster(n_gpus=int(gpus), gpus_per_node=int(gpn or 8), name=str(getattr(source, "name", "source")))


def _rates_today(data, factor, wide, units, conf):
    """Per-job rates of each cause at today's rate (``factor`` times the average), and the units they scale by."""
    rates = job_rates(data, conf=conf)
    if factor != 1.0:
        rates["exposure_h"] = rates["exposure_h"] / factor
        for col in ("rate_per_h", "rate_lo", "rate_hi"):
            rates[col] = rates[col] * factor
    known = set(map(str, rates["component"]))
    held = {c: "job" for c in wide if c in known}
    return rates, ({**held, **(units or {})} or None)


def _todays_nodes(rates, src, units, today, conf):
    """``(today, lo, hi, average)``: the observed nodes' MTBF for hardware causes, at the source's own size."""
    at_src = scale_rates(rates, src, src, units=units, conf=conf, n_boot=1, seed=0)
    t = at_src.by_cause
    hw = t["scales_with"] != "job"
    rate = float(t.loc[hw, "rate_per_h"].sum())
    count = float(t.loc[hw, "count"].sum())
    if rate <= 0:
        return None, None, None, None
    lo, hi = garwood(count, count / rate, conf)
    k = today.factor
    node = src.n_nodes / rate
    return node, src.n_nodes / (float(hi) * today.factor_hi / k), src.n_nodes / (float(lo) * today.factor_lo / k), \
        node * k


def _wider(centre, end, factor):
    """``end`` of a range of a positive quantity moved ``factor`` times as far from ``centre`` on a log scale."""
    if factor <= 1 or not (_finite(end) and end > 0 and centre > 0):
        return end
    return float(centre * (end / centre) ** factor)


def _spread(centre, *pairs):
    """``(lo, hi)`` around ``centre``: the half-widths of each (lo, hi) pair about its own centre, in quadrature."""
    down = math.sqrt(sum((c - lo) ** 2 for c, lo, _ in pairs))
    up = math.sqrt(sum((hi - c) ** 2 for c, _, hi in pairs))
    return max(0.0, centre - down), min(1.0, centre + up)


def _cap_ettr(fixed, d, r, law=None):
    """The best ETTR perfect hardware gives: the per-job causes alone, under ``law`` (None: exponential)."""
    if fixed <= 0:
        return 1.0
    return float(best_ettr(1 / fixed, d, r)) if law is None else float(best_law_ettr(1 / fixed, law, d, r)[0])


def _sources(source, r_from, latency):
    how = str(getattr(source, "cluster_from", "") or "")
    size = PARAMETER if how == "as given" else MEASURED
    out = [("failure_rates", MEASURED), ("source_gpus", size), ("source_gpus_per_node", size if how in (
        "as published", "from the data set's description") else PARAMETER), ("n_gpus", PARAMETER),
        ("gpus_per_node", PARAMETER), ("target_ettr", PARAMETER), ("ckpt_cost", PARAMETER), ("restart", r_from)]
    if latency is not None:
        out.append(("detection_latency", MEASURED))
    return tuple(out)


def decide(source, n_gpus=None, target_ettr=None, ckpt_cost=None, restart=None, *, scenario=None,
           gpus_per_node=None, units=None, units_per_node=None, simulate=True, n_runs=200, alpha=0.05, law_boot=100,
           conf=None, share=0.1, n_boot=2000, seed=None, restart_grows=None):
    """Answer the planning question for ``n_gpus`` from ``source``; returns the one :class:`Decision`.

    ``source`` is a :class:`~relmodel.data.source.Source`, a count table or
    an interruption log.  The planning inputs come from ``scenario`` (a
    :class:`~relmodel.scenario.Scenario`, which may also be passed in
    ``n_gpus``'s place: ``decide(source, Scenario(n_gpus=32768))``); an
    input passed on its own wins over the scenario's, and one left at None
    takes the scenario's, or the one default every face shares.
    ``n_gpus`` GPUs; ``target_ettr`` a fraction;
    ``ckpt_cost`` and ``restart`` durations (hours or strings such as
    "1min"; ``restart=None`` measures it from the log's requeue gaps where it
    can, else takes 10 min, an assumption; ``restart_grows`` adds the start-up
    that grows with the ranks, :mod:`~relmodel.scale.targets.restart_growth`).  ``units`` overrides what causes
    scale with (as ``--scale`` does); causes the log shows striking many
    nodes at once are held per job.  ``simulate`` runs ``n_runs`` simulated
    jobs per interval when the log supports a failure law other than the
    exponential (``alpha``, ``law_boot``: its bootstrap test); the answer is
    then the simulation's.  Intervals come from ``n_boot`` bootstrap draws of
    the rates; ``share`` sets the per-component table's budget share
    (``plan``: the :class:`~relmodel.scale.targets.requirements.Requirements` behind
    the answer).  ``n_gpus`` may be a :class:`Cluster` (a planned design).

    Examples
    --------
    >>> import relmodel
    >>> d = decide(relmodel.datasets.llama3_54day(), 16384, 0.9, "1min", "10min", n_boot=200, seed=0)
    >>> round(d.job_mtbf_h, 3), round(60 * d.interval_h, 1), round(d.ettr, 3), d.reachable, d.basis
    (3.093, 18.6, 0.853, True, 'formula')
    """
    if isinstance(n_gpus, Scenario):
        scenario, n_gpus = n_gpus, None
    planned = n_gpus if isinstance(n_gpus, Cluster) else None
    if planned is None and n_gpus is not None:
        n_gpus = gpu_count("n_gpus", n_gpus)  # 1024.5 and True refused
    sc = scenario_of(scenario, n_gpus=None if planned is not None else n_gpus, target_ettr=target_ettr,
                     ckpt_cost=ckpt_cost, restart=restart, gpus_per_node=gpus_per_node, units_per_node=units_per_node,
                     conf=conf, restart_grows=restart_grows)
    target_ettr, ckpt_cost, restart, conf = sc.target_ettr, sc.ckpt_cost, sc.restart, sc.conf
    gpus_per_node, units_per_node, restart_grows = sc.gpus_per_node, sc.units_per_node, sc.restart_grows
    units = units if units is not None else parse_units(sc.scale)
    data = getattr(source, "data", source)
    src = source_cluster(source, units_per_node)
    n_gpus = planned if planned is not None else sc.n_gpus
    tgt = grow_cluster(n_gpus, src, gpus_per_node=gpus_per_node)
    kw = dict(units=units, simulate=simulate, n_runs=n_runs, alpha=alpha, law_boot=law_boot, share=share, seed=seed)
    if count("n_boot", n_boot, lo=0) < 2:  # no bootstrap: point answers, no intervals
        point = decide(source, n_gpus, scenario=sc, n_boot=2, **kw)
        return dataclasses.replace(point, **{k: None for k in (
            "job_mtbf_lo", "job_mtbf_hi", "interval_lo", "interval_hi", "ettr_lo", "ettr_hi", "required_node_lo",
            "required_node_hi", "formula_ettr_lo", "formula_ettr_hi")}, p_reachable=float(point.reachable),
            range_covers="no range (the bootstrap was turned off)")
    d = cost_input("ckpt_cost", ckpt_cost)
    if restart is not None:
        cost_input("restart", restart)
    r, r_from, r_note, latency = restart_input(data, restart)
    grow_h = planned_growth_h(tgt.n_gpus, src.n_gpus if r_from == MEASURED else 0) \
        if restart_grows and restart is None else 0.0
    if grow_h > 0:
        r += grow_h
        r_note += f"; plus {growth_words(grow_h, tgt.n_gpus)}"
    today = todays_rate(source, conf=conf, alpha=alpha)
    wide = cluster_wide_causes(data)
    rates, all_units = _rates_today(data, today.factor, wide, units, conf)
    req_kw = dict(source_cluster=src, target_cluster=tgt, units=all_units, share=share, conf=conf, n_boot=n_boot,
                  seed=seed)
    req = plan_requirements(rates, tgt.n_gpus, target_ettr, d, r, **req_kw)
    scaled = scale_rates(rates, src, tgt, units=all_units, conf=conf, n_boot=n_boot, seed=seed)
    m, lo, hi = scaled.job_mtbf_h, scaled.job_mtbf_lo, scaled.job_mtbf_hi
    fixed = req.fixed_rate_per_h
    hardware = scaled.job_rate_per_h - fixed
    tau = float(optimal_interval(mtbf=m, ckpt_cost=d, restart=r))
    f_ettr = float(req.observed_ettr)
    pairs = [(f_ettr, req.observed_ettr_lo, req.observed_ettr_hi)]
    covers = f"{conf:.0%} range: the failure rate's uncertainty from {scaled.by_cause['count'].sum():,.0f} " \
             "interruptions bootstrapped over the counts"
    if today.moving:  # the rate now is a fit: its shape's interval widens the range
        e_k = [float(best_ettr(m * today.factor / k, d, r)) for k in (today.factor_hi, today.factor_lo)]
        pairs.append((f_ettr, min(e_k), max(e_k)))
        covers += " and the fitted rate at the window's end"
    e_lo, e_hi = _spread(f_ettr, *pairs)
    burst = math.sqrt(getattr(today, "dispersion", 1.0))
    if burst > 1:  # counts vary more than Poisson: every range from the rate widens by the square root
        lo, hi = _wider(m, lo, burst), _wider(m, hi, burst)
        e_lo, e_hi = max(0.0, f_ettr - burst * (f_ettr - e_lo)), min(1.0, f_ettr + burst * (e_hi - f_ettr))
        covers += (f", widened {burst:.2f}x because failures come in bursts (counts vary "
                   f"{today.dispersion:.1f} times as much as Poisson)")
    family, fit, best, law_reason = (choose_law(data, alpha=alpha, n_boot=law_boot, seed=0 if seed is None else seed)
                                     if simulate else ("exponential", None, None, "no simulation was asked for"))
    search, basis, interval, ettr_, no_progress = None, "formula", tau, f_ettr, False
    if simulate:  # the answer's law, or a comparison (the AIC-best law; exponential with no times to fit)
        from ...checkpoint.search import best_interval
        from ...checkpoint.sources import ExponentialFailures, Rescaled
        law = ExponentialFailures(m) if best is None else Rescaled(fit if fit is not None else best, m)
        try:
            search = best_interval(law, ckpt_cost=d, restart=r, n_runs=n_runs, seed=0 if seed is None else seed,
                                   resolution=0.001)
        except NoProgressError:  # ETTR near 0: a simulated job would almost never finish a segment
            fit, no_progress = None, True
            law_reason = ("a simulated job would almost never finish a stretch of work between two failures, "
                          "so the answer is the exponential formula's")
        if search is not None and fit is not None:
            basis, interval, ettr_ = "simulation", float(search.interval_h), float(search.ettr)
            shift = ettr_ - f_ettr
            e_lo, e_hi = _spread(ettr_, (ettr_, e_lo + shift, e_hi + shift), (ettr_, search.ettr_lo, search.ettr_hi))
            covers += " and the simulation's 99% noise"
    plan = req if basis == "formula" else plan_requirements(rates, tgt.n_gpus, target_ettr, d, r, law=fit,
                                                                          law_of="job gaps", **req_kw)
    m_req, node = plan.job_mtbf_h, plan.node_mtbf_h if plan.feasible else None
    stretch = interval / tau
    t_now = _todays_nodes(rates, src, all_units, today, conf)
    return Decision(
        n_gpus=tgt.n_gpus, n_nodes=tgt.n_nodes, gpus_per_node=tgt.gpus_per_node, target_ettr=float(target_ettr),
        ckpt_cost_h=d, restart_h=r, job_mtbf_h=m, job_mtbf_lo=lo, job_mtbf_hi=hi, interval_h=interval,
        interval_lo=stretch * interval_at(lo, d), interval_hi=stretch * interval_at(hi, d),
        ettr=ettr_, ettr_lo=e_lo, ettr_hi=e_hi, required_job_mtbf_h=m_req, fixed_per_day=24 * fixed,
        hardware_per_day=24 * hardware, observed_node_mtbf_h=t_now[0], required_node_mtbf_h=node,
        required_node_lo=_wider(node, plan.node_mtbf_lo, burst) if node is not None
        and _finite(plan.node_mtbf_lo) else None,
        required_node_hi=_wider(node, plan.node_mtbf_hi, burst) if node is not None
        and _finite(plan.node_mtbf_hi) else None,
        reachable=bool(plan.feasible), cap_ettr=_cap_ettr(fixed, d, r, None if basis == "formula" else fit),
        max_fixed_per_day=24 / m_req, p_reachable=plan.p_feasible, conf=conf,
        basis=basis, law=family if basis == "simulation" else "exponential", law_reason=law_reason,
        requirement_law=family if basis == "simulation" else "exponential",
        formula_required_node_mtbf_h=req.node_mtbf_h if req.feasible else None,
        comparison_law=None if best is None else best.family, formula_interval_h=tau, formula_ettr=f_ettr,
        formula_ettr_lo=float(req.observed_ettr_lo), formula_ettr_hi=float(req.observed_ettr_hi),
        range_covers=covers, trend=today.trend, today_method=today.method, today_reason=today.reason,
        today_window=today.today_window,
        rate_factor=today.factor, average_job_mtbf_h=m * today.factor, todays_node_mtbf_h=t_now[0],
        todays_node_lo=t_now[1], todays_node_hi=t_now[2], average_node_mtbf_h=t_now[3], window_h=today.window_h,
        n_events=today.n_events, restart_note=r_note, restart_growth_h=grow_h, detection_latency_h=latency, source_gpus=src.n_gpus,
        source_gpus_per_node=src.gpus_per_node, source_unit=str(getattr(source, "unit", "gpu-node")),
        per_job_causes=tuple(scaled.by_cause.loc[scaled.by_cause["scales_with"] == "job", "component"].astype(str)),
        cluster_wide=tuple(sorted(wide)), sources=_sources(source, r_from, latency), search=search,
        no_progress=no_progress, scaled=scaled, plan=plan)
