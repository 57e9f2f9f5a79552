"""Names with ``$`` are drawn as written, never as mathtext (third hostile corpus, injection).

Every plot that draws a name from data, a file or a parameter is drawn with
names holding dollar signs (``Cost $5 to $10`` would be read as math,
``$\\href{x}{y}$`` stops matplotlib from drawing).  The figure is drawn (Agg),
then every text artist is asked what it draws (matplotlib's own
``_preprocess_math``): the literal name must be among the texts drawn as plain
text, and no text holding part of a name may be drawn as math.
"""

import io

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.text import Text  # noqa: E402

import relmodel  # noqa: E402
from relmodel.plots import checkpoint, designs, fleets, logs, regression, scaling, stragglers  # noqa: E402
from relmodel.plots.text import literal  # noqa: E402

COST = "Cost $5 to $10"
HREF = r"$\href{x}{y}$"
MONEY = "$3 $4 budget"


def drawn(fig):
    """(plain strings drawn, strings drawn as math or TeX) of every visible text of ``fig``, after drawing it."""
    fig.savefig(io.BytesIO(), format="png")  # as a page's inline image is made
    plain, math = [], []
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text():
            continue
        shown, kind = t._preprocess_math(t.get_text())
        (plain if kind is False else math).append(shown)
    return plain, math


def check(fig, *names):
    plain, math = drawn(fig)
    for name in names:
        assert any(name in s for s in plain), (name, plain)
    assert not [s for s in math if any(k in s for k in ("Cost", "href", "budget"))], math


@pytest.fixture(scope="module")
def log():
    rng = np.random.default_rng(7)
    days = np.sort(rng.uniform(0, 60, 60))
    starts = pd.Timestamp("2024-01-01") + pd.to_timedelta(days, unit="D")
    frame = pd.DataFrame({"start": starts, "end": starts + pd.Timedelta("3h"),
                          "node": [f"n{i % 12}" for i in range(60)],
                          "cause": [(COST, HREF, MONEY)[i % 3] for i in range(60)]})
    return relmodel.read_log(frame, start="start", end="end", node="node", cause="cause", n_nodes=16,
                             gpus_per_node=8, name=HREF)


def _fig():
    return Figure(figsize=(8, 5))


def test_the_check_sees_mathtext():
    """Without the helper the names are read as math (or do not draw at all)."""
    fig = _fig()
    ax = fig.subplots()
    ax.set_title(COST)
    plain, math = drawn(fig)
    assert COST not in plain and any("Cost" in s for s in math)
    fig = _fig()
    fig.subplots().set_title(HREF)
    with pytest.raises(ValueError):
        fig.savefig(io.BytesIO(), format="png")


def test_literal_round_trips_backslashes():
    for name in (COST, HREF, "a\\$b", "\\\\$", "$", "plain", "ends\\"):
        assert Text(text=literal(name))._preprocess_math(literal(name)) == (name, False)


def test_pareto(log):
    fig = _fig()
    logs.plot_pareto(log, ax=fig.subplots())
    check(fig, COST, HREF, MONEY)


def test_timeline(log):
    fig = _fig()
    logs.plot_timeline(log, ax=fig.subplots())
    check(fig, COST, HREF, MONEY)


def test_rates(log):
    fig = _fig()
    logs.plot_rates(relmodel.stats.component_rates(log, per="node"), ax=fig.subplots())
    check(fig, COST, HREF, MONEY)


def test_fleet_context(log):
    fig = _fig()
    fleets.fleet_context(log, ax=fig.subplots(2, 1))
    check(fig, HREF)


def test_cumulative_incidence():
    ci = relmodel.stats.survival.nonparam.cumulative_incidence([1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
                                                               [COST, HREF, COST, None, HREF, COST])
    fig = _fig()
    relmodel.plots.cumulative_incidence_plot(ci, ax=fig.subplots())
    check(fig, COST, HREF)


def test_group_survival():
    df = pd.DataFrame({"duration_h": [5.0, 8, 12, 20, 30, 3, 4, 6, 9, 11],
                       "observed": [1, 1, 1, 0, 1, 1, 1, 1, 1, 0], MONEY: [COST] * 5 + [HREF] * 5})
    fig = _fig()
    regression.group_survival_plot(relmodel.stats.compare_groups(df, MONEY), ax=fig.subplots())
    check(fig, COST, HREF, MONEY)


def test_regression_forest():
    df = pd.DataFrame({"duration_h": [12.0, 30, 45, 60, 80, 95, 110, 150, 200, 260,
                                      5, 9, 14, 22, 28, 35, 41, 55, 70, 90], COST: [0] * 10 + [1] * 10})
    fig = _fig()
    regression.forest_plot(relmodel.stats.regress(df, [COST]), ax=fig.subplots())
    check(fig, COST)


def test_band_label():
    r = relmodel.fit([12.0, 30.5, 7.2, 55.0, 41.0, 18.3], "weibull")
    fig = _fig()
    regression.band_plot(relmodel.stats.curve_band(r, [1, 10, 20, 40]), ax=fig.subplots(), label=HREF)
    check(fig, HREF)


def test_ettr_curve_label():
    fig = _fig()
    checkpoint.plot_ettr_curve("3h", "45s", "10min", ax=fig.subplots(), label=COST)
    check(fig, COST)


def test_interruptions_by_source_name():
    table = pd.DataFrame({"component": ["GPU", "NIC"], "count": [30, 5]})
    counts = relmodel.count_table(table, n_gpus=4096, gpus_per_node=8, duration="30d", name=COST)
    fig = _fig()
    scaling.interruptions_plot(counts, [4096, 16384], ax=fig.subplots())
    check(fig, COST)


def test_designs():
    cluster = relmodel.Cluster(4096, name=COST)
    cmp = relmodel.scale.compare_designs([cluster], relmodel.datasets.llama3_54day(), ckpt_cost="1min", restart="10min",
                                   n_runs=50, n_boot=0)
    fig = _fig()
    designs.designs_plot(cmp, ax=fig.subplots())
    check(fig, COST)


def _step_log():
    log = relmodel.stragglers.synthetic_steps(4, 2, 200, n_slow=1, slowdown=0.3, seed=3).log
    frame = log.to_frame()
    names = {n: (COST, HREF, MONEY, "n3")[i] for i, n in enumerate(sorted(frame["node"].unique()))}
    frame = frame.assign(node=frame["node"].map(names))
    return relmodel.read_steps(frame, step="step", rank="rank", duration="duration_s", node="node",
                               time_unit="s")


def test_slow_nodes():
    fig = _fig()
    stragglers.slow_nodes_plot(relmodel.stragglers.find_slow_nodes(_step_log()), ax=fig.subplots())
    check(fig, COST, HREF, MONEY)


def test_sweep_comparison_with_text_values():
    from relmodel.report.pipeline.sweep import comparison_figure
    rows = [{"values": {"source": v, "n_gpus": g}, "headline": {"ettr": 0.9 - 0.01 * i}}
            for i, (v, g) in enumerate([(COST, 1024), (HREF, 1024), (COST, 2048), (HREF, 2048)])]
    fig = comparison_figure(["source", "n_gpus"], rows)
    check(fig, COST, HREF)


def test_dashboard_names_the_source(log):
    from relmodel.plots.interactive import dashboard
    big = relmodel.read_log(log.events.assign(start=log.events["start_h"]), start="start", time_unit="h",
                            node="node", n_nodes=20_000, gpus_per_node=8, name=HREF)  # a rate every size can run
    check(dashboard(16_384, "1min", "10min", 0.9, source=big), HREF)


def test_fit_plot_title_names_the_log(tmp_path):
    """``relmodel fit --plot``: the log's name reaches the Kaplan-Meier panel's title."""
    from relmodel.cli.fit import write_plot
    from relmodel.stats.lifetimes.ranking import compare_fits
    from relmodel.stats.survival.nonparam import as_durations
    data = as_durations([12.0, 30.5, 7.2, 55.0, 41.0, 18.3, 22.0, 9.5], label=COST)
    captured = {}
    real = Figure.savefig

    def keep(fig, *args, **kwargs):
        captured["fig"] = fig
        return real(fig, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Figure, "savefig", keep)
        write_plot(tmp_path / "p.png", data, compare_fits(data, ["weibull", "exponential"], n_boot=0))
    check(captured["fig"], COST)


def test_page_01_draws_a_cause_with_dollar_signs(tmp_path):
    """The corpus's case end to end: page 01 of a log whose causes hold dollar signs renders (exit 0)."""
    from conftest import report_cli
    path = tmp_path / "log.csv"
    rows = [f"2024-01-{d:02d}T00:00:00,n{d % 5},{(COST, HREF, MONEY)[d % 3]}" for d in range(1, 29)]
    path.write_text("start,node,cause\n" + "\n".join(rows) + "\n")
    out = tmp_path / "r"
    res = report_cli("-n", "01", "-p", f"log={path}", "-p", "start=start", "-p", "node=node", "-p", "cause=cause",
                     "--out", out)
    assert res.exit_code == 0, res.output
    assert (out / "01_log_explorer.html").exists()


class _NamedFit:
    """A fitted model as the plots see one (cdf, sf, hazard, family), under a hostile family name."""

    family = HREF

    def cdf(self, t):
        return 1 - np.exp(-np.asarray(t, float) / 30.0)

    def sf(self, t):
        return np.exp(-np.asarray(t, float) / 30.0)

    def hazard(self, t):
        return np.full(np.shape(t), 1 / 30.0)


@pytest.mark.parametrize("kind", ["probability", "survival", "hazard"])
def test_fit_plots_name_the_family(kind):
    data = [10.0, 20.0, 30.0, 40.0, 80.0, 5.0, 17.0]
    fig = _fig()
    ax = fig.subplots()
    if kind == "probability":
        relmodel.plots.probability_plot(data, "exponential", _NamedFit(), ax=ax)
    elif kind == "survival":
        relmodel.plots.survival_plot(data, [_NamedFit()], ax=ax)
    else:
        relmodel.plots.hazard_plot([_NamedFit()], data=data, ax=ax)
    check(fig, HREF)


def test_straggler_heatmap_names_the_workers():
    """The what-if grid's columns are the trace's worker names (a duck-typed result: its two fields)."""
    from types import SimpleNamespace
    grid = pd.DataFrame(np.ones((5, 3)) + 0.1 * np.arange(3), index=range(5), columns=[COST, HREF, MONEY])
    fig = _fig()
    stragglers.straggler_heatmap(SimpleNamespace(step_workers=grid, factor=1.1), ax=fig.subplots())
    check(fig, COST, HREF, MONEY)
