"""The bad-nodes page (09): the log's bad nodes, whether repairs fix them, and what retiring them buys.

Each function returns what the page shows, or ``None`` and the sentence that
says why the page cannot show it (a count table names no nodes; a log of disks
plans no job of nodes; no bad nodes stand out, so there is nothing to retire).
"""

from ...errors import RelmodelError
from ...scale.lifecycle.fleet_answer import MAX_NODES, pulled  # noqa: F401 (the page's names)

__all__ = ["estimate", "pulled", "payoff", "section", "MAX_NODES"]

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


def payoff(est, src, *, n_gpus, gpus_per_node, work, runs, seed, repair="empirical", decision=None):
    """``(PolicyComparison, inputs sentence)`` or ``(None, why)``: retirement policies over the planned run, as
    :func:`relmodel.scale.lifecycle.fleet_answer` gives them (the decision's ``fleet`` holds the same), the job
    run as ``decision`` plans it when there is one."""
    from ...scale.lifecycle.fleet_answer import fleet_answer
    ans = fleet_answer(est, src, n_gpus=n_gpus, gpus_per_node=gpus_per_node, work=work, runs=runs, seed=seed,
                       repair=repair, decision=decision)
    return (ans.comparison, ans.said) if ans.comparison is not None else (None, ans.why)


def to_pull_names(est):
    """The nodes to pull as plain text labels (for the summary)."""
    return [str(x) for x in pulled(est)["node"].tolist()]


def was_bad_names(est, limit=10):
    """Nodes likely bad during the log (at least even odds) but not now: fixed since, to watch."""
    if not est.heterogeneous or not est.estimable:
        return []
    n = est.nodes
    return [str(x) for x in n[(n["p_bad_ever"] >= 0.5) & (n["p_bad"] < 0.5)]["node"].head(limit).tolist()]
