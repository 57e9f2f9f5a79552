"""The planned job's answer on the fleet a log shows: its bad nodes simulated at the planned size.

:func:`fleet_answer` turns a :class:`~relmodel.stats.nodes.BadNodes` estimate into the retirement policies
compared over the planned run (never retire, a threshold, a score, pulling the likeliest bad nodes), or says
why none is simulated.  :func:`with_fleet` gives a :class:`~relmodel.scale.targets.decision.Decision` the same
answer: its ``fleet`` holds the ETTR never retiring and under the best policy, with their ranges, so the API,
page 09 and the report's headline carry one lifecycle answer beside the answer that takes nodes as
interchangeable.
"""

import dataclasses
from dataclasses import dataclass

from ...errors import RelmodelError
from ...tables import count, duration, number, pct

__all__ = ["FleetAnswer", "fleet_answer", "fleet_figures", "with_fleet", "pulled", "MAX_NODES"]

#: Most nodes of a planned job simulated (a larger plan is said, not simulated).
MAX_NODES = 250_000


@dataclass(frozen=True)
class FleetAnswer:
    """Retirement policies compared at the planned size (``comparison``, None when none was simulated), the
    inputs in a sentence (``said``) or why nothing was simulated (``why``)."""

    comparison: object
    said: str
    why: str = ""

    def to_dict(self):
        """ETTR never retiring and under the best policy, with ranges; {} when nothing was simulated."""
        if self.comparison is None:
            return {}
        return fleet_figures(self.comparison.to_frame().to_dict("records"), self.comparison.best())


def fleet_figures(rows, best):
    """ETTR never retiring (the first row) and under the ``best`` policy, with ranges, from a policy comparison's
    rows (``PolicyComparison.to_frame()`` records, as page 09 records them)."""
    by = {r.get("policy"): r for r in rows}
    never, top = rows[0], by.get(best) or rows[0]
    return {"ettr_never": never.get("ettr"), "ettr_never_lo": never.get("ettr_lo"),
            "ettr_never_hi": never.get("ettr_hi"), "policy": top.get("policy"), "ettr_best": top.get("ettr"),
            "ettr_best_lo": top.get("ettr_lo"), "ettr_best_hi": top.get("ettr_hi")}


def pulled(est, limit=10, floor=0.5):
    """The nodes to pull: those whose chance of being bad is at least ``floor``, likeliest first, at most
    ``limit``; an empty table when the fleet shows no bad nodes."""
    nodes = est.nodes
    if not est.heterogeneous or not est.estimable:
        return nodes.iloc[:0]
    return nodes[nodes["p_bad"] >= floor].head(limit)


def fleet_answer(est, source, *, n_gpus, gpus_per_node=8, work="30d", runs=10, seed=None, repair="empirical",
                 decision=None):
    """A :class:`FleetAnswer`: the fleet ``est`` describes, at ``n_gpus`` GPUs, with each retirement policy over
    ``work`` of training (``runs`` paired runs a policy), repairs from ``source``'s log when it has them.

    With ``decision`` (:func:`relmodel.decide`'s answer for the same plan) the job runs as the decision plans it:
    its checkpoint interval and cost, its restart after each failure, its nodes failing at the decision's
    hardware rate for the planned size (today's rate, spread over good and bad nodes as ``est`` says) and its
    own causes (software, collective timeouts) interrupting it at their rate without blaming a node, failures
    striking its restarts as the decision's formula has them (``reload``: the whole restart), so never
    retiring is the decision's answer with the bad nodes' life added. Without it, failures cost a 20-minute
    recovery and no lost work (AIReSim's recovery-only count) at the log's average rates."""
    from ..sparing.repairs import repair_model
    from .payoff import compare_policies, lifecycle_model
    from .retirement import retire_top, score, threshold

    unit = getattr(source, "unit", "gpu-node")
    if unit not in ("gpu-node", "node", "server"):
        return FleetAnswer(None, "", f"The log's units are {unit}s, not nodes of the planned job: no retirement "
                                     "payoff is simulated for them.")
    if not est.heterogeneous:
        return FleetAnswer(None, "", "No bad nodes stand out in this log, so retiring nodes would only shrink the "
                                     "pool: no retirement advice is given.")
    if not est.estimable:
        return FleetAnswer(None, "", "The nodes' failures vary more than interchangeable nodes' would, but the log "
                                     "cannot tell a share of bad nodes and their rate apart (the two-class model is "
                                     "not estimable), so no fleet is simulated and no retirement advice is given.")
    job_nodes = max(1, int(n_gpus) // (gpus_per_node or 8))
    if job_nodes > MAX_NODES:
        return FleetAnswer(None, "", f"The planned job's {count(job_nodes)} nodes are more than this simulates "
                                     f"({count(MAX_NODES)}); run compare_policies on a smaller plan or on Dask.")
    how, law = "repair times resampled from the log", 24.0
    if getattr(source, "has_repairs", False):
        try:
            law = repair_model(source.data, "empirical" if repair == "empirical" else repair)
        except RelmodelError:
            law, how = 24.0, "24 h repairs (an assumption: the log's repair times could not be used)"
    else:
        how = "24 h repairs (an assumption: the log has no repair times)"
    plan, as_planned = {}, ""
    if decision is not None and decision.hardware_per_day > 0:
        plan = dict(node_rate=decision.hardware_per_day / 24, interval=decision.interval_h,
                    ckpt_cost=decision.ckpt_cost_h, recovery=decision.restart_h, reload=decision.restart_h,
                    job_mtbf=24 / decision.fixed_per_day if decision.fixed_per_day > 0 else None)
        own = (f" and the job's own causes {number(decision.fixed_per_day, 2)} times a day"
               if decision.fixed_per_day > 0 else "")
        as_planned = (f"; the job as the headline plans it: checkpoints every {duration(decision.interval_h)} "
                      f"costing {duration(decision.ckpt_cost_h)}, restarts of "
                      f"{duration(decision.restart_h, digits=3)} that failures can strike, its nodes failing "
                      f"{number(decision.hardware_per_day, 2)} times a day (today's rate at this size){own}")
    model = lifecycle_model(est, job_nodes=job_nodes, work=work, repair=law, **plan)
    fitted = 1.0 / est.lam if est.estimable and est.lam > 0 else None
    rescaled = (f" (scaled so the job's nodes fail at today's rate, as the headline takes it; the log's two-class "
                f"fit gives {duration(fitted)})" if plan and fitted and abs(model.life.mean_h / fitted - 1) > 0.01
                else "")
    top = pulled(est)
    policies = {"2 failures in 7 days": threshold(2, "7d"), "score": score()}
    if len(top):
        policies[f"pull the {len(top)} likeliest bad"] = retire_top(top["p_bad"].to_numpy(float))
    cmp = compare_policies(model, policies, runs=runs, seed=seed)
    said = (f"Simulated over {duration(model.work_h)} of training on {count(job_nodes)} nodes with "
            f"{count(model.warm_standbys)} warm standbys, {count(model.working_nodes)} nodes in the working pool "
            f"and {count(model.spare_nodes)} spares; a good node's MTBF {duration(model.life.mean_h)}{rescaled}, "
            f"{model.bad_share:.1%} bad at {model.multiplier:.3g} times the rate, a repair leaving the fault "
            f"with chance {model.auto.unfixed:.2f}, {how}; a retired node replaced by a new one after "
            f"{duration(model.replace_h)}{as_planned}; {runs:,} paired runs a policy.")
    cut = float(cmp.runs["cut_short"].mean())
    if cut > 0:
        from .loop import MAX_INTERRUPTIONS
        who = "Every run was" if cut == 1 else f"{pct(cut)} of the runs were"
        said += (f" {who} stopped after {count(MAX_INTERRUPTIONS)} interruptions with work left, the job's "
                 "restarts rarely finishing before the next failure: ETTR is the work done by then over the time.")
    return FleetAnswer(cmp, said)


def with_fleet(decision, source, *, population=None, work="30d", runs=10, seed=None, repair="empirical"):
    """``decision`` with its ``fleet`` set: the bad nodes ``source``'s log shows, simulated at the decision's size
    (:func:`fleet_answer`), ETTR never retiring and under the best policy; ``fleet_note`` says the inputs, or why
    nothing was simulated (a count table, no bad nodes, a log of disks)."""
    from ...stats.nodes import bad_nodes

    data = getattr(source, "data", source)
    if not hasattr(data, "events"):
        return dataclasses.replace(decision, fleet={}, fleet_note="A count table names no nodes: no lifecycle is "
                                                                 "simulated.")
    try:
        est = bad_nodes(source, population=population, seed=seed)
    except RelmodelError as err:
        return dataclasses.replace(decision, fleet={}, fleet_note=f"The log cannot be read node by node: {err}")
    ans = fleet_answer(est, source, n_gpus=decision.n_gpus, gpus_per_node=decision.gpus_per_node, work=work,
                       runs=runs, seed=seed, repair=repair, decision=decision)
    return dataclasses.replace(decision, fleet=ans.to_dict(), fleet_note=ans.said or ans.why)
