"""The one formatting rule set (relmodel.tables) and the one protocol of results, with deprecated old names."""

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.errors import RelmodelDeprecationWarning
from relmodel.report import present
from relmodel.deprecation import renamed, renamed_keywords
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
    w = relmodel.weibayes([100.0, 200.0, 300.0], 2.0, observed=[0, 0, 0])
    post = relmodel.update_rate(relmodel.fleet_prior(), llama3)
    lives = pd.DataFrame({"duration_h": [5.0, 8, 12, 20, 30, 40, 50, 60], "observed": True,
                          "cage": list("aaaabbbb")})
    groups = relmodel.compare_groups(lives, "cage")
    for result, old, is_property in [(w, "sentence", True), (post, "sentence", False), (groups, "verdict", True)]:
        with pytest.warns(RelmodelDeprecationWarning):
            before = getattr(result, old) if is_property else getattr(result, old)()
        assert before == result.text() and result.text()
    with pytest.warns(RelmodelDeprecationWarning):
        assert groups.report_table().equals(groups.table())
    assert "at least" in w.text() and "<p>" in w._repr_html_()


def test_renamed_keywords_map_the_old_spelling_and_refuse_both():
    times = [100.0, 300.0, 500.0, 650.0, 800.0, 900.0, 950.0]
    new = relmodel.power_law_gof(times, end=1000.0, n_runs=300, seed=1)
    with pytest.warns(RelmodelDeprecationWarning, match=r"power_law_gof\(n_sim=\.\.\.\) is deprecated.*use n_runs="):
        old = relmodel.power_law_gof(times, end=1000.0, n_sim=300, seed=1)
    assert old.p_value == new.p_value
    with pytest.raises(InputTypeError, match="pass n_runs= only"):
        relmodel.power_law_gof(times, end=1000.0, n_sim=300, n_runs=300)

    @renamed_keywords(replicas="n_runs")
    def draw(n_runs=10):
        return n_runs

    with pytest.warns(RelmodelDeprecationWarning):
        assert draw(replicas=4) == 4
    assert draw(7) == 7


def test_the_data_argument_is_source(stepfun_log):
    new = relmodel.rate_changes(source=stepfun_log)
    with pytest.warns(RelmodelDeprecationWarning, match=r"rate_changes\(log=\.\.\.\)"):
        old = relmodel.rate_changes(log=stepfun_log)
    assert old.change_h == new.change_h and new.n_changes == 6      # six changes in the StepFun year (docstring)
    times, nodes = [10.0, 40.0, 25.0], ["a", "a", "b"]
    with pytest.warns(RelmodelDeprecationWarning, match=r"mcf\(data=\.\.\.\)"):
        m = relmodel.mcf(data=times, node=nodes, start=0.0, end=50.0, n_systems=4)
    assert m.value.tolist() == [0.0, 0.25, 0.5, 0.75]                # 1, 2, 3 failures over 4 systems
    with pytest.warns(RelmodelDeprecationWarning, match=r"trend\(data=\.\.\.\)"):
        assert relmodel.trend(data=stepfun_log).verdict == relmodel.trend(source=stepfun_log).verdict


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
    r = relmodel.trend(t, end=1000.0)
    assert r.p_value == pytest.approx(p)
    assert r.text().startswith(f"The failure rate is steady: MIL-HDBK-189 test p = {number(p)} at the 0.05 level")
    assert "over 7 failures" in r.text() and isinstance(r, Result)
