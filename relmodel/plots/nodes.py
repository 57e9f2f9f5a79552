"""Bad nodes: the worst nodes' share of failures against a homogeneous fleet, and what retiring them buys."""

import numpy as np

__all__ = ["worst_share_plot", "policy_plot"]


def worst_share_plot(estimate, ax=None):
    """Share of all failures held by the worst k nodes, beside the 95% envelope of a homogeneous fleet.

    ``estimate`` is a :func:`relmodel.bad_nodes` result; returns the Axes.

    Examples
    --------
    >>> import relmodel
    >>> ax = worst_share_plot(relmodel.bad_nodes(relmodel.datasets.stepfun(), seed=0))
    >>> ax.get_ylabel()
    'share of all failures (%)'
    """
    import matplotlib.pyplot as plt

    ax = ax or plt.subplots(figsize=(7.5, 4))[1]
    w = estimate.worst
    k = w["k"].to_numpy(float)
    ax.plot(k, 100 * w["share"].to_numpy(float), "o-", color="#b2182b", label="this log")
    ax.plot(k, 100 * w["envelope"].to_numpy(float), "s--", color="#4a7bb7",
            label="homogeneous fleet, 95% upper envelope")
    ax.set_xscale("log")
    ax.set_xticks(k)
    ax.set_xticklabels([f"{int(v):,}" for v in k])
    ax.set_xlabel("worst k nodes")
    ax.set_ylabel("share of all failures (%)")
    ax.set_ylim(0, max(5.0, 105 * float(np.nanmax(w[["share", "envelope"]].to_numpy(float)))))
    ax.set_title("Do a few nodes hold more failures than chance gives?")
    ax.legend(loc="upper left")
    return ax


def policy_plot(comparison, ax=None):
    """Each retirement policy's ETTR change against never retiring, with its interval (points of ETTR); returns the Axes.

    Examples
    --------
    >>> from relmodel.scale.lifecycle import compare_policies, fleet_model, threshold
    >>> m = fleet_model(job_nodes=64, warm_standbys=2, working_nodes=80, spare_nodes=4, work="7d",
    ...                 node_mtbf="50d", bad_share=0.1, multiplier=20, auto_unfixed=0.8, to_manual=0)
    >>> ax = policy_plot(compare_policies(m, [threshold(2, "7d")], runs=3, seed=0))
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['never retire', '2 failures in 7 days']
    """
    import matplotlib.pyplot as plt

    f = comparison.to_frame()
    ax = ax or plt.subplots(figsize=(7.5, 0.6 * len(f) + 1.6))[1]
    y = np.arange(len(f))[::-1]
    mid = 100 * f["change"].to_numpy(float)
    lo, hi = 100 * f["change_lo"].to_numpy(float), 100 * f["change_hi"].to_numpy(float)
    ax.errorbar(mid, y, xerr=[mid - lo, hi - mid], fmt="o", color="#2e7d32", capsize=4)
    ax.axvline(0, color="0.4", lw=1, ls="--")
    ax.set_yticks(y)
    ax.set_yticklabels(list(f["policy"]))
    ax.set_xlabel("change in ETTR against never retiring (percentage points)")
    ax.set_title("What each retirement policy buys over the planned run")
    return ax
