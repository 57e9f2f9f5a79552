"""The one formatting rule set (relmodel.tables) and the one protocol of results, with deprecated old names."""

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.errors import RelmodelDeprecationWarning
from relmodel.report.blocks import present
from relmodel.base.deprecation import renamed, renamed_keywords
from relmodel.errors import InputTypeError
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

    words = renamed("words", "text", is_property=True)
    lines = renamed("lines", "text", value=lambda self: [self.text()])


def test_the_protocol_builds_html_from_text_and_table():
    html = _Toy(1200)._repr_html_()
    assert html.startswith("<p>1200 failures &amp; more</p>") and "<td>1,200</td>" in html
    assert "dataframe" not in html and "<th>" in html


def test_renamed_names_warn_once_each_and_return_what_they_did():
    toy = _Toy(3)
    with pytest.warns(RelmodelDeprecationWarning, match=r"_Toy.words is deprecated.*use .text\(\)"):
        assert toy.words == "3 failures & more"
    with pytest.warns(RelmodelDeprecationWarning, match=r"_Toy.lines\(\) is deprecated"):
        assert toy.lines() == ["3 failures & more"]
    assert issubclass(RelmodelDeprecationWarning, DeprecationWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        toy.text()  # the new name is quiet


def test_statistics_results_speak_text_and_keep_their_old_names(llama3):
    w = relmodel.stats.weibayes([100.0, 200.0, 300.0], 2.0, observed=[0, 0, 0])
    post = relmodel.stats.update_rate(relmodel.stats.fleet_prior(), llama3)
    lives = pd.DataFrame({"duration_h": [5.0, 8, 12, 20, 30, 40, 50, 60], "observed": True,
                          "cage": list("aaaabbbb")})
    groups = relmodel.stats.compare_groups(lives, "cage")
    for result, old, is_property in [(w, "sentence", True), (post, "sentence", False), (groups, "verdict", True)]:
        with pytest.warns(RelmodelDeprecationWarning):
            before = getattr(result, old) if is_property else getattr(result, old)()
        assert before == result.text() and result.text()
    with pytest.warns(RelmodelDeprecationWarning):
        assert groups.report_table().equals(groups.table())
    assert "at least" in w.text() and "<p>" in w._repr_html_()


def test_renamed_keywords_map_the_old_spelling_and_refuse_both():
    times = [100.0, 300.0, 500.0, 650.0, 800.0, 900.0, 950.0]
    new = relmodel.stats.power_law_gof(times, end=1000.0, n_runs=300, seed=1)
    with pytest.warns(RelmodelDeprecationWarning, match=r"power_law_gof\(n_sim=\.\.\.\) is deprecated.*use n_runs="):
        old = relmodel.stats.power_law_gof(times, end=1000.0, n_sim=300, seed=1)
    assert old.p_value == new.p_value
    with pytest.raises(InputTypeError, match="pass n_runs= only"):
        relmodel.stats.power_law_gof(times, end=1000.0, n_sim=300, n_runs=300)

    @renamed_keywords(replicas="n_runs")
    def draw(n_runs=10):
        return n_runs

    with pytest.warns(RelmodelDeprecationWarning):
        assert draw(replicas=4) == 4
    assert draw(7) == 7


def test_the_data_argument_is_source(stepfun_log):
    new = relmodel.stats.rate_changes(source=stepfun_log)
    with pytest.warns(RelmodelDeprecationWarning, match=r"rate_changes\(log=\.\.\.\)"):
        old = relmodel.stats.rate_changes(log=stepfun_log)
    assert old.change_h == new.change_h and new.n_changes == 6      # six changes in the StepFun year (docstring)
    times, nodes = [10.0, 40.0, 25.0], ["a", "a", "b"]
    with pytest.warns(RelmodelDeprecationWarning, match=r"mcf\(data=\.\.\.\)"):
        m = relmodel.stats.mcf(data=times, node=nodes, start=0.0, end=50.0, n_systems=4)
    assert m.value.tolist() == [0.0, 0.25, 0.5, 0.75]                # 1, 2, 3 failures over 4 systems
    with pytest.warns(RelmodelDeprecationWarning, match=r"trend\(data=\.\.\.\)"):
        assert relmodel.stats.trend(data=stepfun_log).verdict == relmodel.stats.trend(source=stepfun_log).verdict


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


# --- every result speaks the protocol; old dialects are deprecated aliases ---

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
    for old in ("display", "report", "report_table", "interval_text", "breakeven_text", "sentence", "sentences"):
        alias = cls.__dict__.get(old)
        assert alias is None or "Deprecated" in (alias.__doc__ or "") or isinstance(alias, property), \
            f"{name}.{old} is a second dialect, not a deprecated alias"


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


def test_renamed_table_fields_read_with_a_warning_and_table_is_for_people(llama3):
    for result, field in _results(llama3):
        new = getattr(result, field)
        with pytest.warns(RelmodelDeprecationWarning, match=rf"\.table as data is deprecated.*use \.{field}"):
            assert len(result.table) == len(new)
        with pytest.warns(RelmodelDeprecationWarning):
            assert result.table[new.columns[0]].equals(new[new.columns[0]])
        with warnings.catch_warnings():
            warnings.simplefilter("error")                      # the method and the new field are quiet
            people = result.table()
            assert result.to_frame().shape[0] >= 1 and getattr(result, field) is new
            html = result._repr_html_()
        _people_cells_ok(people)
        assert "<table" in html and "dataframe" not in html


def test_count_table_reads_as_the_source_printed_it(llama3):
    t = llama3.table()                                          # Llama 3 (arXiv 2407.21783) Table 5
    row = t[t["cause"] == "Faulty GPU"].iloc[0]
    assert row["interruptions"] == "148" and row["share"] == f"{100 * 148 / 419:.1f}%"   # 148 of 419 unexpected
    assert "419 unexpected and 47 planned interruptions" in llama3.text()


def test_designs_and_stragglers_speak_text_and_keep_their_old_names(llama3):
    from scipy import stats
    cmp = relmodel.scale.compare_designs(["nvl72-whole-rack"], llama3, 1152, 0.9, ckpt_cost="1min", restart="10min",
                                   n_runs=50, n_boot=0, seed=0)
    optics = relmodel.scale.optics_requirements((10_000,), 0.9)
    curve = relmodel.stragglers.straggler_scaling(stats.lognorm(0.05, scale=2 / 3600), [8, 1024])
    plan = relmodel.stragglers.eviction_policy(slowdown=0.2, interval="1h", restart="10min", detection="30min", remaining="100h")
    found = relmodel.stragglers.find_slow_nodes(relmodel.data.example_steps(), alpha=0.01)
    cox = relmodel.stats.regress(pd.DataFrame({"duration_h": np.arange(5.0, 65.0, 5.0), "observed": True,
                                         "x": [0.1, 0.4, 0.2, 0.9, 0.5, 0.3, 0.8, 0.6, 0.7, 1.0, 0.25, 0.65]}), ["x"])
    for result, old in [(cmp, "display"), (optics, "display"), (curve, "report"), (plan, "report"),
                        (found, "report"), (cox, "report_table")]:
        with pytest.warns(RelmodelDeprecationWarning, match=rf"\.{old}\(\) is deprecated.*use \.table\(\)"):
            before = getattr(result, old)()
        assert before.equals(result.table())
    with pytest.warns(RelmodelDeprecationWarning, match=r"breakeven_text\(\) is deprecated"):
        breakeven = plan.breakeven_text()
    assert plan.text() == f"Best: {plan.best}. {breakeven}."
    assert f"{100 * plan.breakeven_slowdown:.1f}%" in plan.text()


def test_slowdown_speaks_text_and_its_old_names_warn():
    steps = relmodel.data.example_steps()
    lost = relmodel.stragglers.slowdown(steps, n_boot=50, seed=3)
    with pytest.warns(RelmodelDeprecationWarning, match=r"interval_text\(\) is deprecated"):
        interval_words = lost.interval_text()
    assert interval_words in lost.text() and f"{100 * lost.share_lost:.1f}%" in lost.text()
    with pytest.warns(RelmodelDeprecationWarning, match=r"Slowdown.summary\(\) is deprecated.*use .table\(\)"):
        assert lost.summary().equals(lost.table())


def test_summary_means_the_headline_numbers(llama3):
    sim = relmodel.simulate_training("2d", "30min", "3h", "1min", "5min", n_runs=200, seed=7)
    s = sim.summary()
    assert isinstance(s, pd.Series) and s["ettr"] == sim.ettr and s["n_runs"] == 200
    with pytest.warns(RelmodelDeprecationWarning, match=r"replicas is deprecated.*use .n_runs"):
        assert sim.replicas == sim.n_runs == 200
    fit = relmodel.fit([12.0, 30.5, 7.2, 55.0, 41.0, 18.3], "weibull")
    assert isinstance(fit.summary(), pd.Series) and fit.summary()["aic"] == fit.aic
    plan = relmodel.scale.plan_requirements(llama3, 16_384, 0.9, "1min", "10min", n_boot=50, seed=0)
    with pytest.warns(RelmodelDeprecationWarning, match=r"Requirements.summary\(\) is deprecated.*use .figures\(\)"):
        assert plan.summary().equals(plan.figures())
    ci = relmodel.stats.cumulative_incidence(relmodel.datasets.stepfun())
    with pytest.warns(RelmodelDeprecationWarning, match=r"CumulativeIncidence.summary is deprecated.*use .by_cause$"):
        assert ci.summary.equals(ci.by_cause)
    assert int(ci.by_cause["events"].sum()) == sum(e.n_observed for e in ci.curves.values())


# --- one vocabulary: the old keywords are aliases that give the same answer ---


def test_monte_carlo_sizes_are_n_runs():
    new = relmodel.simulate_training("2d", "30min", "3h", "1min", "5min", n_runs=100, seed=2)
    with pytest.warns(RelmodelDeprecationWarning, match=r"simulate_training\(replicas=\.\.\.\).*use n_runs="):
        old = relmodel.simulate_training("2d", "30min", "3h", "1min", "5min", replicas=100, seed=2)
    np.testing.assert_array_equal(old.wall_h, new.wall_h)
    kw = dict(work="100h", grid=3, seed=4)
    a = relmodel.checkpoint.best_interval("3h", "45s", "10min", n_runs=40, confirm_n_runs=40, **kw)
    with pytest.warns(RelmodelDeprecationWarning) as caught:
        b = relmodel.checkpoint.best_interval("3h", "45s", "10min", replicas=40, confirm_replicas=40, **kw)
    assert len(caught) == 2 and a.interval_h == b.interval_h and a.ettr == b.ettr
    t = relmodel.scale.spares_table(0.5, 10.0, "1min", "10min", job_mtbf_h=1.5, spares=[1, 2], n_runs=500, seed=3)
    with pytest.warns(RelmodelDeprecationWarning, match=r"spares_table\(n_failures=\.\.\.\)"):
        u = relmodel.scale.spares_table(0.5, 10.0, "1min", "10min", job_mtbf_h=1.5, spares=[1, 2], n_failures=500, seed=3)
    assert t.equals(u)
    from relmodel.scale.sparing.spares import simulate_stalls
    with pytest.warns(RelmodelDeprecationWarning, match=r"simulate_stalls\(n_failures=\.\.\.\)"):
        assert simulate_stalls(0.5, 10.0, 1, n_failures=300, seed=1) == simulate_stalls(0.5, 10.0, 1, n_runs=300, seed=1)


def test_a_slowdown_is_a_fraction():
    from scipy import stats
    d = stats.lognorm(0.03, scale=2 / 3600)
    new = relmodel.stragglers.straggler_scaling(d, [4096], fail_slow_rate=2e-4, slowdown=0.5, duration="3h")
    with pytest.warns(RelmodelDeprecationWarning, match=r"straggler_scaling\(factor=\.\.\.\).*use slowdown="):
        old = relmodel.stragglers.straggler_scaling(d, [4096], fail_slow_rate=2e-4, factor=1.5, duration="3h")
    assert old.by_size.equals(new.by_size) and new.fail_slow["slowdown"] == 0.5
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
    new = fn(source=t, **args)
    with pytest.warns(RelmodelDeprecationWarning, match=rf"{name}\(data=\.\.\.\).*use source="):
        old = fn(data=t, **args)
    assert old.to_frame().equals(new.to_frame())


def test_the_regression_data_argument_is_source():
    lives = pd.DataFrame({"duration_h": np.arange(5.0, 65.0, 5.0), "observed": True,
                          "x": [0.1, 0.4, 0.2, 0.9, 0.5, 0.3, 0.8, 0.6, 0.7, 1.0, 0.25, 0.65], "cage": list("aaaaaabbbbbb")})
    with pytest.warns(RelmodelDeprecationWarning, match=r"regress\(data=\.\.\.\)"):
        old = relmodel.stats.regress(data=lives, covariates=["x"])
    assert old.coefficients.equals(relmodel.stats.regress(lives, ["x"]).coefficients)
    with pytest.warns(RelmodelDeprecationWarning, match=r"compare_groups\(data=\.\.\.\)"):
        assert relmodel.stats.compare_groups(data=lives, by="cage").p == relmodel.stats.compare_groups(lives, "cage").p


def test_the_step_log_argument_is_source():
    steps = relmodel.data.example_steps()
    with pytest.warns(RelmodelDeprecationWarning, match=r"find_slow_nodes\(log=\.\.\.\)"):
        old = relmodel.stragglers.find_slow_nodes(log=steps, alpha=0.01)
    assert old.nodes == relmodel.stragglers.find_slow_nodes(source=steps, alpha=0.01).nodes == [7, 9]   # data/README.md
    with pytest.warns(RelmodelDeprecationWarning, match=r"slowdown\(log=\.\.\.\)"):
        assert relmodel.stragglers.slowdown(log=steps, n_boot=0).share_lost == relmodel.stragglers.slowdown(steps, n_boot=0).share_lost


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
