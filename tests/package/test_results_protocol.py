"""The one formatting rule set (relmodel.tables) and the one protocol of results; the spellings of 0.2 are gone."""

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.report.blocks import present
from relmodel.tables import DASH, Result, count, duration, interval, number, pct, pct_range, people_table, sig


@pytest.mark.parametrize("value, text", [(16384, "16,384"), (2.8e5, "280,000"), (0.0123, "0.0123"),
                                         (3.14159, "3.14"), (0.0004, "< 0.001"), (float("nan"), DASH),
                                         (float("inf"), DASH), (None, DASH), (0, "0")])
def test_numbers_read_as_a_person_writes_them(value, text):
    assert number(value) == text


@pytest.mark.parametrize("h, text", [(45 / 3600, "45 s"), (19 / 60, "19 min"), (3.1, "3.1 h"), (12 * 24, "12 d"),
                                     (2.5 * 8766, "2.5 years")])
def test_durations_come_in_the_unit_a_person_would_say(h, text):
    assert duration(h) == text


def test_percent_counts_and_intervals():
    assert pct(0.8526) == "85.3%" and pct_range(0.844, 0.861) == "84.4–86.1%"
    assert count(1234567.2) == "1,234,567" and sig(16595.4) == "16,600"
    assert interval(0.1, 12.5, duration) == "6 min to 12 h" and interval(None, 3) == DASH


def test_the_report_pages_use_the_same_formatters():
    for name in ("number", "sig", "duration", "hours_text", "pct", "pct_range", "per_day", "count"):
        assert getattr(present, name) is getattr(relmodel.tables, name)


def test_people_table_formats_every_cell():
    df = pd.DataFrame({"GPUs": [16384, 8], "MTBF (h)": [2.8e5, np.nan], "spare": [True, False],
                       "share": [0.1234, 0.5], "name": ["a", None]})
    t = people_table(df, {"share": pct})
    assert t.to_dict("list") == {"GPUs": ["16,384", "8"], "MTBF (h)": ["280,000", DASH], "spare": ["yes", "no"],
                                 "share": ["12.3%", "50.0%"], "name": ["a", DASH]}


@dataclass(frozen=True)
class _Toy(Result):
    n: int

    def to_frame(self):
        return pd.DataFrame({"failures": [self.n]})

    def text(self):
        return f"{self.n} failures & more"



def test_the_protocol_builds_html_from_text_and_table():
    html = _Toy(1200)._repr_html_()
    assert html.startswith("<p>1200 failures &amp; more</p>") and "<td>1,200</td>" in html
    assert "dataframe" not in html and "<th>" in html


def test_statistics_results_speak_text(llama3):
    w = relmodel.stats.weibayes([100.0, 200.0, 300.0], 2.0, observed=[0, 0, 0])
    post = relmodel.stats.update_rate(relmodel.stats.fleet_prior(), llama3)
    lives = pd.DataFrame({"duration_h": [5.0, 8, 12, 20, 30, 40, 50, 60], "observed": True,
                          "cage": list("aaaabbbb")})
    groups = relmodel.stats.compare_groups(lives, "cage")
    for result in (w, post, groups):
        assert isinstance(result.text(), str) and result.text() and "<p>" in result._repr_html_()
    assert isinstance(groups.table(), pd.DataFrame)
    assert "at least" in w.text() and "<p>" in w._repr_html_()


def test_the_data_argument_is_source(stepfun_log):
    assert relmodel.stats.rate_changes(source=stepfun_log).n_changes == 6      # six changes in the StepFun year (docstring)
    m = relmodel.stats.mcf(source=[10.0, 40.0, 25.0], node=["a", "a", "b"], start=0.0, end=50.0, n_systems=4)
    assert m.value.tolist() == [0.0, 0.25, 0.5, 0.75]                # 1, 2, 3 failures over 4 systems
    assert relmodel.stats.trend(source=stepfun_log).verdict in ("steady", "improving", "wearing out")


def test_a_fit_says_what_lifelines_finds():
    from lifelines import WeibullFitter

    t, e = [12.0, 30.5, 7.2, 55.0, 41.0, 18.3], [1, 1, 1, 0, 1, 1]
    ref = WeibullFitter().fit(t, e)                   # rho_ is the shape, lambda_ the scale (hours)
    r = relmodel.fit(t, "weibull", observed=e)
    text = r.text()
    assert text.startswith("Weibull fit to 6 durations (5 failures): ")
    assert f"shape {number(ref.rho_)} (95% interval" in text and f"scale {number(ref.lambda_)} h" in text
    assert r.table()["parameter"].tolist() == ["shape", "scale"]
    assert r.table().iloc[1]["estimate"] == number(ref.lambda_)
    assert "<td>" in r._repr_html_() and isinstance(r, Result)


def test_a_trend_says_its_verdict_with_the_mil_hdbk_189_p_value():
    from scipy import stats

    t = np.array([100.0, 300.0, 500.0, 650.0, 800.0, 900.0, 950.0])
    stat = 2 * np.sum(np.log(1000.0 / t))                    # MIL-HDBK-189, time truncated: chi2 on 2n df
    p = 2 * min(stats.chi2.cdf(stat, 2 * t.size), stats.chi2.sf(stat, 2 * t.size))
    r = relmodel.stats.trend(t, end=1000.0)
    assert r.p_value == pytest.approx(p)
    assert r.text().startswith(f"The failure rate is steady: MIL-HDBK-189 test p = {number(p)} at the 0.05 level")
    assert "over 7 failures" in r.text() and isinstance(r, Result)


# --- every result speaks the protocol, in one dialect ---

INPUTS = {"Durations", "Cluster", "RestartModel", "CheckpointModel", "RateData", "SyntheticSteps"}  # inputs, not results


def _result_classes():
    import dataclasses
    import importlib
    import inspect
    import pkgutil
    found = {}
    for sub in ("stats", "scale", "checkpoint", "stragglers", "data"):
        pkg = importlib.import_module(f"relmodel.{sub}")
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            mod = importlib.import_module(info.name)
            for name in getattr(mod, "__all__", []):
                obj = getattr(mod, name, None)
                if (inspect.isclass(obj) and dataclasses.is_dataclass(obj) and hasattr(obj, "to_frame")
                        and obj.__name__ not in INPUTS):
                    found[obj.__qualname__ + " in " + obj.__module__] = obj
    return sorted(found.items())


@pytest.mark.parametrize("name, cls", _result_classes(), ids=lambda x: x.split(" ")[0] if isinstance(x, str) else "")
def test_every_result_class_speaks_the_protocol(name, cls):
    import dataclasses
    assert issubclass(cls, Result), f"{name} is not a relmodel.tables.Result"
    assert cls.text is not Result.text, f"{name} has no text() of its own"
    assert callable(getattr(cls, "table", None)), f"{name}.table is not the method"
    fields = {f.name for f in dataclasses.fields(cls)}
    assert not fields & {"table", "summary", "verdict_text"}, f"{name} has a data field named like a method"
    for old in ("display", "report", "report_table", "interval_text", "breakeven_text", "sentence", "sentences",
                "table_for_people"):
        assert not hasattr(cls, old), f"{name}.{old} is a second dialect"


def _people_cells_ok(df):
    assert isinstance(df, pd.DataFrame) and isinstance(df.index, pd.RangeIndex)
    cells = df.to_numpy().ravel().tolist()
    assert all(isinstance(c, str) for c in cells), "people tables hold text"
    assert not any(c.lower() in ("nan", "inf", "-inf", "none") for c in cells)


def _results(llama3):
    """One instance of each result that had a data field called ``table``, with the new field's name."""
    from scipy import stats
    steps = relmodel.data.example_steps()
    lives = pd.DataFrame({"duration_h": np.arange(5.0, 65.0, 5.0), "observed": True,
                          "x": [0.1, 0.4, 0.2, 0.9, 0.5, 0.3, 0.8, 0.6, 0.7, 1.0, 0.25, 0.65]})
    scaled = relmodel.scale.scale_rates(llama3, target_cluster=100_000, n_boot=50, seed=0)
    m = [relmodel.stats.mcf(source=[10.0, 40.0, 25.0], node=["a", "a", "b"], start=0.0, end=50.0, n_systems=4),
         relmodel.stats.mcf(source=[5.0, 15.0, 30.0, 45.0], node=["a", "b", "c", "c"], start=0.0, end=50.0, n_systems=3)]
    return [
        (llama3, "counts"),
        (relmodel.stats.compare_fits([12.0, 30.5, 7.2, 55.0, 41.0, 18.3, 22.0], ["exponential", "weibull"], n_boot=0),
         "by_family"),
        (scaled, "by_cause"),
        (relmodel.scale.split_budget(scaled, 10.0, "equal", by="scales_with"), "by_cause"),
        (relmodel.stragglers.find_slow_nodes(steps, alpha=0.01), "flagged"),
        (relmodel.stragglers.eviction_policy(slowdown=0.2, interval="1h", restart="10min", detection="30min",
                                  remaining="100h"), "by_policy"),
        (relmodel.stragglers.straggler_scaling(stats.lognorm(0.05, scale=2 / 3600), [8, 1024], fail_slow_rate=1e-4), "by_size"),
        (relmodel.scale.optics_requirements((10_000,), 0.9), "rows"),
        (relmodel.stats.regress(lives, ["x"]), "coefficients"),
        (relmodel.stats.compare_rates(llama3, relmodel.datasets.llama3_54day(), by_component=True), "by_cause"),
        (relmodel.stats.shrink_components(llama3), "by_cause"),
        (relmodel.stats.compare_mcf(dict(zip(("a", "b"), m))), "by_time"),
        (relmodel.spare_pool(0.05, "100h", 0.01), "curve"),
    ]


def test_table_is_for_people_and_the_numbers_are_a_field(llama3):
    for result, field in _results(llama3):
        new = getattr(result, field)
        with warnings.catch_warnings():
            warnings.simplefilter("error")                      # the method and the field are quiet
            people = result.table()
            assert result.to_frame().shape[0] >= 1 and isinstance(new, pd.DataFrame)
            html = result._repr_html_()
        with pytest.raises(TypeError):
            result.table[new.columns[0]]                        # no longer the data field of 0.2
        _people_cells_ok(people)
        assert "<table" in html and "dataframe" not in html


def test_count_table_reads_as_the_source_printed_it(llama3):
    t = llama3.table()                                          # Llama 3 (arXiv 2407.21783) Table 5
    row = t[t["cause"] == "Faulty GPU"].iloc[0]
    assert row["interruptions"] == "148" and row["share"] == f"{100 * 148 / 419:.1f}%"   # 148 of 419 unexpected
    assert "419 unexpected and 47 planned interruptions" in llama3.text()


def test_designs_and_stragglers_speak_text(llama3):
    from scipy import stats
    cmp = relmodel.scale.compare_designs(["nvl72-whole-rack"], llama3, 1152, 0.9, ckpt_cost="1min", restart="10min",
                                   n_runs=50, n_boot=0, seed=0)
    optics = relmodel.scale.optics_requirements((10_000,), 0.9)
    curve = relmodel.stragglers.straggler_scaling(stats.lognorm(0.05, scale=2 / 3600), [8, 1024])
    plan = relmodel.stragglers.eviction_policy(slowdown=0.2, interval="1h", restart="10min", detection="30min", remaining="100h")
    found = relmodel.stragglers.find_slow_nodes(relmodel.data.example_steps(), alpha=0.01)
    cox = relmodel.stats.regress(pd.DataFrame({"duration_h": np.arange(5.0, 65.0, 5.0), "observed": True,
                                         "x": [0.1, 0.4, 0.2, 0.9, 0.5, 0.3, 0.8, 0.6, 0.7, 1.0, 0.25, 0.65]}), ["x"])
    for result in (cmp, optics, curve, plan, found, cox):
        _people_cells_ok(result.table())
    assert plan.text() == f"Best: {plan.best}. {plan._breakeven()}."
    assert f"{100 * plan.breakeven_slowdown:.1f}%" in plan.text()


def test_slowdown_speaks_text():
    steps = relmodel.data.example_steps()
    lost = relmodel.stragglers.slowdown(steps, n_boot=50, seed=3)
    assert lost._interval() in lost.text() and f"{100 * lost.share_lost:.1f}%" in lost.text()
    assert isinstance(lost.table(), pd.DataFrame)


def test_summary_means_the_headline_numbers(llama3):
    sim = relmodel.simulate_training("2d", "30min", "3h", "1min", "5min", n_runs=200, seed=7)
    s = sim.summary()
    assert isinstance(s, pd.Series) and s["ettr"] == sim.ettr and s["n_runs"] == sim.n_runs == 200
    fit = relmodel.fit([12.0, 30.5, 7.2, 55.0, 41.0, 18.3], "weibull")
    assert isinstance(fit.summary(), pd.Series) and fit.summary()["aic"] == fit.aic
    plan = relmodel.scale.plan_requirements(llama3, 16_384, 0.9, "1min", "10min", n_boot=50, seed=0)
    assert isinstance(plan.figures(), pd.DataFrame) and not hasattr(plan, "summary")
    ci = relmodel.stats.cumulative_incidence(relmodel.datasets.stepfun())
    assert int(ci.by_cause["events"].sum()) == sum(e.n_observed for e in ci.curves.values())
    assert not hasattr(ci, "summary") and not hasattr(sim, "replicas")


# --- one vocabulary: the keywords of 0.2 are gone (CHANGELOG.md, 0.3.0) ---

#: (function, its keyword of 0.2, the keyword now): each old keyword is refused as any unknown keyword is.
OLD_KEYWORDS = [
    ("relmodel.checkpoint.backtest", "log", "source"), ("relmodel.checkpoint.best_interval", "replicas", "n_runs"),
    ("relmodel.checkpoint.best_interval", "confirm_replicas", "confirm_n_runs"),
    ("relmodel.checkpoint.simulate_training", "replicas", "n_runs"),
    ("relmodel.data.formats.operators.operator_source", "log", "source"),
    ("relmodel.data.formats.xid.cause_mix", "log", "source"), ("relmodel.data.shaping.clean.node_key", "df", "source"),
    ("relmodel.data.drop_short_outages", "log", "source"), ("relmodel.data.outage_durations", "log", "source"),
    ("relmodel.data.shaping.readers.require_columns", "df", "source"), ("relmodel.data.load_source", "log", "source"),
    ("relmodel.scale.sparing.spares.simulate_stalls", "n_failures", "n_runs"),
    ("relmodel.scale.spares_table", "n_failures", "n_runs"), ("relmodel.stats.profile_intervals", "data", "source"),
    ("relmodel.stats.lifetimes.fitting.prepare", "data", "source"), ("relmodel.stats.fit", "data", "source"),
    ("relmodel.stats.uptime_intervals", "log", "source"), ("relmodel.stats.compare_fits", "data", "source"),
    ("relmodel.stats.weibayes", "data", "source"), ("relmodel.stats.rate_changes", "log", "source"),
    ("relmodel.stats.regression.covariates.design", "data", "source"),
    ("relmodel.stats.regression.covariates.pick_column", "data", "source"),
    ("relmodel.stats.regression.covariates.survival_columns", "data", "source"),
    ("relmodel.stats.counting_process", "log", "source"), ("relmodel.stats.andersen_gill", "log", "source"),
    ("relmodel.stats.regress", "data", "source"), ("relmodel.stats.compare_groups", "data", "source"),
    ("relmodel.stats.gray_test", "data", "source"), ("relmodel.stats.survival.nonparam.as_durations", "data", "source"),
    ("relmodel.stats.survival.nonparam.interruptions", "log", "source"),
    ("relmodel.stats.kaplan_meier", "data", "source"), ("relmodel.stats.nelson_aalen", "data", "source"),
    ("relmodel.stats.power_law_gof", "n_sim", "n_runs"), ("relmodel.stats.mcf", "data", "source"),
    ("relmodel.stats.survival.trends.event_times", "data", "source"), ("relmodel.stats.trend", "data", "source"),
    ("relmodel.stragglers.find_slow_nodes", "log", "source"),
    ("relmodel.stragglers.kineto.write_kineto_example", "frame", "source"),
    ("relmodel.stragglers.max_with_slow", "factor", "slowdown"),
    ("relmodel.stragglers.straggler_scaling", "factor", "slowdown"),
    ("relmodel.stragglers.within_step_times", "log", "source"), ("relmodel.stragglers.fit_rank_times", "log", "source"),
    ("relmodel.stragglers.slowdown", "log", "source"), ("relmodel.stragglers.synthetic.plant", "slow_factor", "slowdown"),
    ("relmodel.stragglers.synthetic_steps", "slow_factor", "slowdown"),
    ("relmodel.stragglers.synthetic_steps", "spike_factor", "spike_slowdown"),
    ("relmodel.stragglers.synthetic_steps", "burst_factor", "burst_slowdown"),
    ("relmodel.stragglers.write_synthetic_parquet", "slow_factor", "slowdown"),
    ("relmodel.stragglers.write_synthetic_parquet", "spike_factor", "spike_slowdown"),
    ("relmodel.stragglers.write_synthetic_parquet", "burst_factor", "burst_slowdown"),
    ("relmodel.stragglers.synthetic_ops", "slow", "slow_workers"),
    ("relmodel.stragglers.synthetic_ops", "last_stage", "last_stage_slowdown"),
]


def _function(path):
    import importlib
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("path, old, new", OLD_KEYWORDS, ids=lambda x: x.rpartition(".")[2])
def test_the_keywords_of_0_2_are_gone(path, old, new):
    import inspect
    fn = _function(path)
    params = inspect.signature(fn).parameters
    assert new in params and old not in params and not hasattr(fn, "renamed_keywords")
    assert not any(p.kind is p.VAR_KEYWORD for p in params.values()), f"{path} takes **kwargs: check {old}= by hand"


def test_an_old_keyword_is_refused():
    times = [100.0, 300.0, 500.0, 650.0, 800.0, 900.0, 950.0]
    with pytest.raises(TypeError, match="n_sim"):
        relmodel.stats.power_law_gof(times, end=1000.0, n_sim=300, seed=1)
    with pytest.raises(TypeError, match="replicas"):
        relmodel.simulate_training("2d", "30min", "3h", "1min", "5min", replicas=100, seed=2)


def test_a_slowdown_is_a_fraction():
    from scipy import stats
    d = stats.lognorm(0.03, scale=2 / 3600)
    new = relmodel.stragglers.straggler_scaling(d, [4096], fail_slow_rate=2e-4, slowdown=0.5, duration="3h")
    assert new.fail_slow["slowdown"] == 0.5
    # the slow node's steps are 1.5 times as long: the expected max of 4,096 draws when all are slow
    all_slow = relmodel.stragglers.max_with_slow(d, 4096, 4096, slowdown=0.5)
    assert all_slow == pytest.approx(1.5 * relmodel.stragglers.max_with_slow(d, 4096), rel=1e-6)
    assert "50% slower" in new.text()
    with pytest.raises(relmodel.errors.ModelInputError, match="a fraction"):
        relmodel.stragglers.straggler_scaling(d, [8], slowdown=-0.5)


@pytest.mark.parametrize("name, args", [("fit", {"family": "weibull"}), ("kaplan_meier", {}), ("nelson_aalen", {}),
                                        ("compare_fits", {"families": ["exponential"], "n_boot": 0}),
                                        ("weibayes", {"shape": 2.0})])
def test_the_lifetime_data_argument_is_source(name, args):
    t = [12.0, 30.5, 7.2, 55.0, 41.0, 18.3]
    fn = getattr(relmodel.stats, name)
    assert fn(source=t, **args).to_frame().equals(fn(t, **args).to_frame())


def test_the_regression_and_step_log_arguments_are_source():
    lives = pd.DataFrame({"duration_h": np.arange(5.0, 65.0, 5.0), "observed": True,
                          "x": [0.1, 0.4, 0.2, 0.9, 0.5, 0.3, 0.8, 0.6, 0.7, 1.0, 0.25, 0.65], "cage": list("aaaaaabbbbbb")})
    assert relmodel.stats.regress(source=lives, covariates=["x"]).coefficients.equals(
        relmodel.stats.regress(lives, ["x"]).coefficients)
    assert relmodel.stats.compare_groups(source=lives, by="cage").p == relmodel.stats.compare_groups(lives, "cage").p
    steps = relmodel.data.example_steps()
    assert relmodel.stragglers.find_slow_nodes(source=steps, alpha=0.01).nodes == [7, 9]   # data/README.md


def test_seed_none_draws_fresh_entropy_and_a_seed_repeats(llama3):
    runs = [relmodel.scale.scale_rates(llama3, target_cluster=100_000, n_boot=200, seed=s).job_rate_lo
            for s in (None, None, 5, 5)]
    assert runs[0] != runs[1] and runs[2] == runs[3]
    a, b = (relmodel.checkpoint.best_interval("3h", "45s", "10min", n_runs=20, grid=3, work="50h") for _ in range(2))
    assert a.ettr != b.ettr           # fresh entropy, yet one seed shared by the grid (no error, a peak found)


def test_old_planning_order_is_refused_naming_the_new_one(llama3):
    with pytest.raises(relmodel.errors.DesignError, match=r"compare_designs\(designs, source, n_gpus, target_ettr"):
        relmodel.scale.compare_designs(["nvl72-whole-rack"], llama3, "1min", "10min", n_runs=10, n_boot=0, seed=0)
    with pytest.raises(relmodel.errors.DesignError, match=r"optics_requirements\(sizes, target_ettr"):
        relmodel.scale.optics_requirements((10_000,), ("rail",))
