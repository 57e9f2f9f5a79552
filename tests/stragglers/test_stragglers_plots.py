"""Straggler figures draw on the Axes they are given and return it."""

import matplotlib.pyplot as plt
from scipy import stats

import relmodel
from relmodel.plots import stragglers as plots


def test_each_plot_returns_its_axes():
    log = relmodel.stragglers.synthetic_steps(8, 4, 300, n_slow=1, slowdown=0.3, seed=3).log
    found = relmodel.stragglers.find_slow_nodes(log)
    fig, axes = plt.subplots(2, 2)
    assert plots.step_times_plot(relmodel.stragglers.slowdown(log, n_boot=0, seed=0), ax=axes[0, 0]) is axes[0, 0]
    assert plots.slow_nodes_plot(found, ax=axes[0, 1]) is axes[0, 1]
    assert "(flagged)" in axes[0, 1].get_yticklabels()[0].get_text()
    curve = relmodel.stragglers.straggler_scaling(stats.lognorm(0.02), [8, 64], fail_slow_rate=1e-4)
    assert plots.straggler_scaling_plot(curve, ax=axes[1, 0]) is axes[1, 0]
    assert len(axes[1, 0].lines) == 2
    plan = relmodel.stragglers.eviction_policy(slowdown=0.2, detection="30min", restart="10min", interval="1h", mtbf="20h")
    assert plots.eviction_plot(plan, ax=axes[1, 1]) is axes[1, 1]
    assert len(axes[1, 1].patches) == 3
    plt.close(fig)
    assert plots.step_times_plot(relmodel.stragglers.slowdown(log, n_boot=0, seed=0)).figure is not fig  # ax=None makes a new figure
    plt.close("all")
