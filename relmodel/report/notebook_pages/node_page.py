"""The bad-nodes page (09): the log's bad nodes, whether repairs fix them, and what retiring them buys.

Each function returns what the page shows, or ``None`` and the sentence that
says why the page cannot show it (a count table names no nodes; a log of disks
plans no job of nodes; no bad nodes stand out, so there is nothing to retire).
"""

from ...errors import RelmodelError
from ...tables import count, duration

__all__ = ["estimate", "pulled", "payoff", "section", "MAX_NODES"]

#: Most nodes of a planned job the page simulates (a larger plan is said, not simulated).
MAX_NODES = 250_000


#: What each section of the page shows, said above it when the data has nodes to show.
SECTIONS = {
    "which": "The nodes ranked by their chance of being bad now (at the log's end), from the two-class model below. The figure sets the share of all failures held by the worst few nodes beside what a fleet of interchangeable nodes would give by chance (its 95% upper envelope, for the same failures spread over the nodes' time in service).",
    "repairs": "The two-class model: a share of nodes is bad, failing a multiple of a good node's rate, and each repair of a bad node fixes it for good or leaves the fault in place. Its maximum-likelihood estimates, with 95% intervals. The test beside it asks whether the nodes' failure counts vary more than a fleet of interchangeable nodes would (negative binomial against Poisson, its p-value halved at the boundary, as Self and Liang (1987) show).",
    "payoff": "The fleet the log describes, at the planned job's size, simulated over the planned run with each retirement policy on the same seeds (each node's age kept across job restarts; repairs as the log shows them). The change in ETTR is paired against never retiring.",
}


def section(est, name):
    """The paragraph that says what a section shows; when the data has no nodes, that the section is not shown
    (the page's first answer says why)."""
    from ..blocks import present as P
    if est is None:
        return None if name == "payoff" else P.paragraph("Not shown: the data names no nodes (see above).")
    return P.paragraph(SECTIONS[name])


def estimate(src, population=None, seed=0):
    """``(BadNodes, None)`` or ``(None, why)`` for a source without nodes."""
    from ...stats.nodes import bad_nodes

    if not src.is_log:
        return None, (f"{src.name} is a count table: it names no nodes, so it cannot show whether a few nodes "
                      f"fail again and again. Give an event log with a node column to answer this page.")
    try:
        return bad_nodes(src, population=population, seed=seed), None
    except RelmodelError as e:
        return None, f"The log cannot be read node by node: {e}"


def pulled(est, limit=10, floor=0.5):
    """The nodes to pull: those whose chance of being bad is at least ``floor``, likeliest first, at most
    ``limit``; an empty table when the fleet shows no bad nodes."""
    nodes = est.nodes
    if not est.heterogeneous or not est.estimable:
        return nodes.iloc[:0]
    return nodes[nodes["p_bad"] >= floor].head(limit)


def payoff(est, src, *, n_gpus, gpus_per_node, work, runs, seed, repair="empirical"):
    """``(PolicyComparison, inputs sentence)`` or ``(None, why)``: retirement policies over the planned run."""
    from ...scale.lifecycle import compare_policies, lifecycle_model, retire_top, score, threshold
    from ...scale.sparing.repairs import repair_model

    if src.unit not in ("gpu-node", "node", "server"):
        return None, (f"The log's units are {src.unit}s, not nodes of the planned job: no retirement payoff is "
                      f"simulated for them.")
    if not est.heterogeneous:
        return None, ("No bad nodes stand out in this log, so retiring nodes would only shrink the pool: no "
                      "retirement advice is given.")
    if not est.estimable:
        return None, ("The nodes' failures vary more than interchangeable nodes' would, but the log cannot tell "
                      "a share of bad nodes and their rate apart (the two-class model is not estimable), so no "
                      "fleet is simulated and no retirement advice is given.")
    per_node = gpus_per_node if gpus_per_node else 8
    job_nodes = max(1, int(n_gpus) // per_node)
    if job_nodes > MAX_NODES:
        return None, (f"The planned job's {count(job_nodes)} nodes are more than this page simulates "
                      f"({count(MAX_NODES)}); run relmodel.scale.lifecycle.compare_policies on a smaller plan "
                      "or on Dask.")
    how = "repair times resampled from the log"
    law = 24.0
    if src.has_repairs:
        try:
            law = repair_model(src.data, "empirical" if repair == "empirical" else repair)
        except RelmodelError:
            law, how = 24.0, "24 h repairs (an assumption: the log's repair times could not be used)"
    else:
        how = "24 h repairs (an assumption: the log has no repair times)"
    model = lifecycle_model(est, job_nodes=job_nodes, work=work, repair=law)
    top = pulled(est)
    policies = {"2 failures in 7 days": threshold(2, "7d"), "score": score()}
    if len(top):
        policies[f"pull the {len(top)} likeliest bad"] = retire_top(top["p_bad"].to_numpy(float))
    cmp = compare_policies(model, policies, runs=runs, seed=seed)
    said = (f"Simulated over {duration(model.work_h)} of training on {count(job_nodes)} nodes with "
            f"{count(model.warm_standbys)} warm standbys, {count(model.working_nodes)} nodes in the working pool "
            f"and {count(model.spare_nodes)} spares; a good node's MTBF {duration(model.life.mean_h)}, "
            f"{model.bad_share:.1%} bad at {model.multiplier:.3g} times the rate, a repair leaving the fault "
            f"with chance {model.auto.unfixed:.2f}, {how}; a retired node replaced by a new one after "
            f"{duration(model.replace_h)}; {runs:,} paired runs a policy.")
    return cmp, said


def to_pull_names(est):
    """The nodes to pull as plain text labels (for the summary)."""
    return [str(x) for x in pulled(est)["node"].tolist()]


def was_bad_names(est, limit=10):
    """Nodes likely bad during the log (at least even odds) but not now: fixed since, to watch."""
    if not est.heterogeneous or not est.estimable:
        return []
    n = est.nodes
    return [str(x) for x in n[(n["p_bad_ever"] >= 0.5) & (n["p_bad"] < 0.5)]["node"].head(limit).tolist()]
