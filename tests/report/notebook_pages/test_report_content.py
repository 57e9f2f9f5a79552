"""Report content: one source through the suite, answers as sentences, out of reach as an answer."""

import json
import math
import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import relmodel
from relmodel.checkpoint import ettr, optimal_interval
from relmodel.cli import cli
from relmodel.data.source import load_source
from relmodel.errors import MissingColumnError
from relmodel.report.blocks import present as P
from relmodel.report.pipeline.summary import answer_sentences, clean, simulation_sentence
from relmodel.scale.targets.decision import decide
from relmodel.scale.targets.requirements import required_job_mtbf

#: Small values so a whole report renders in seconds.
FAST = {"n_boot": 20, "n_runs": 20, "work": "5d", "sizes": [4096, 16384]}


def odd_log(path, n=200, nodes=40, seed=1):
    """An outage log with column names no reader guesses, times as day/month/year."""
    rng = np.random.default_rng(seed)
    t0 = pd.Timestamp("2025-01-01")
    start = np.sort(rng.uniform(0, 100 * 24, n))
    fix = start + rng.exponential(4.0, n)
    fmt = "%d/%m/%Y %H:%M"
    pd.DataFrame({
        "When it broke": [(t0 + pd.Timedelta(hours=float(h))).strftime(fmt) for h in start],
        "Back up": [(t0 + pd.Timedelta(hours=float(h))).strftime(fmt) for h in fix],
        "Server no.": rng.integers(0, nodes, n).astype(str),
        "Why?": rng.choice(["GPU Xid 79", "NIC flap", "Software bug in trainer"], n),
    }).to_csv(path, index=False)
    return path


ODD = {"start": "When it broke", "end": "Back up", "node": "Server no.", "cause": "Why?",
       "time_format": "%d/%m/%Y %H:%M"}


def count_csv(path):
    pd.DataFrame({"component": ["GPU", "Host", "Software Bug"], "category": ["GPU", "Host", "Dependency"],
                  "count": [60, 30, 10]}).to_csv(path, index=False)
    return path


# --- presentation formatters -------------------------------------------------------------

@pytest.mark.parametrize("value, text", [
    (16595.4, "16,595"), (132763.3219, "132,763"), (3.093, "3.09"), (0.01667, "0.0167"), (0, "0"),
    (12_345_678.0, "12,345,678"), (float("nan"), "—"), (float("inf"), "—"), (None, "—")])
def test_number_has_separators_and_no_scientific_notation(value, text):
    assert P.number(value) == text


@pytest.mark.parametrize("h, text", [
    (45 / 3600, "45 s"), (1 / 60, "1 min"), (0.31, "19 min"), (3.093, "3.1 h"), (100, "4.17 d"),
    (3 * 8766, "3 years"), (float("inf"), "—")])
def test_duration_in_the_unit_a_person_would_say(h, text):
    assert P.duration(h) == text


def test_sig_pct_and_table():
    assert P.sig(16595.4) == "16,600" and P.hours_text(6335.2) == "6,340 h"
    assert P.pct(0.85255) == "85.3%" and P.pct_range(0.841, 0.862) == "84.1–86.2%"
    df = pd.DataFrame({"n_gpus": range(20), "x": np.linspace(0, 1, 20)})
    html = str(P.table(df, [("n_gpus", "GPUs", P.count), ("x", "Share", P.pct)], caption="Long"))
    assert "<details>" in html and "20 rows" in html and "n_gpus" not in html
    short = str(P.table(df.head(3), [("n_gpus", "GPUs", P.count)]))
    assert "<details>" not in short and "<th" in short and "overflow-x:auto" in short


# --- one source ------------------------------------------------------------------------------

def test_custom_column_log_is_a_source_with_its_cluster(tmp_path):
    src = load_source(odd_log(tmp_path / "o.csv"), gpus_per_node=4, **ODD)
    raw = pd.read_csv(tmp_path / "o.csv")
    overlaps = src.data.events["overlaps"].sum()  # outages on a node still down count once
    assert src.kind == "log" and src.n_events == len(raw) - overlaps and overlaps < 10
    assert src.source_gpus == 4 * raw["Server no."].nunique()  # nodes seen in the log x GPUs per node
    assert any("never failed" in n for n in src.notes)
    given = load_source(tmp_path / "o.csv", source_gpus=1000, gpus_per_node=4, **ODD)
    assert given.source_gpus == 1000 and given.data.n_nodes == 250


def test_count_table_is_a_source(tmp_path):
    src = load_source(count_csv(tmp_path / "c.csv"), source_gpus=4096, exposure="30d")
    assert src.kind == "counts" and src.n_events == 100 and src.span_h == 720 and not src.is_log
    with pytest.raises(MissingColumnError, match="exposure"):
        load_source(tmp_path / "c.csv", source_gpus=4096)
    with pytest.raises(MissingColumnError, match="source_gpus"):
        load_source(tmp_path / "c.csv", exposure="30d")


def test_decision_uses_the_sources_own_rates(tmp_path):
    src = load_source(count_csv(tmp_path / "c.csv"), source_gpus=4096, exposure="30d")
    dec = decide(src, 16384, 0.9, "1min", "10min", n_boot=50, seed=0)
    # GPU and host causes grow 4x with the GPU count; the software bug (per job) does not
    rate = (4 * 90 + 10) / 720
    assert dec.job_mtbf_h == pytest.approx(1 / rate)
    assert dec.interval_h == pytest.approx(float(optimal_interval(1 / rate, "1min")))
    assert dec.fixed_per_day == pytest.approx(24 * 10 / 720)
    m_req = required_job_mtbf(0.9, "1min", "10min")
    assert dec.required_node_mtbf_h == pytest.approx(2048 / (1 / m_req - 10 / 720))


def test_out_of_reach_is_an_answer_not_inf():
    src = load_source("llama3")
    dec = decide(src, 16384, 0.95, "2min", "15min", n_boot=50, seed=0)
    assert not dec.reachable and dec.required_node_mtbf_h is None
    fixed = 54 / (54 * 24)  # Llama 3 Table 5: 54 software bugs ... per-job causes over 54 days
    cap = float(ettr(optimal_interval(1 / dec.fixed_per_day * 24, "2min"), 24 / dec.fixed_per_day,
                     "2min", "15min"))
    assert dec.cap_ettr == pytest.approx(cap) and dec.cap_ettr < 0.95 and fixed > 0
    assert dec.max_fixed_per_day == pytest.approx(24 / required_job_mtbf(0.95, "2min", "15min"))
    text = " ".join(answer_sentences({"decision": dec.to_dict()}))
    assert "out of reach" in text and f"{100 * dec.cap_ettr:.1f}%" in text
    assert not re.search(r"\b(inf|nan|None)\b", text)
    json.dumps(dec.to_dict(), allow_nan=False)


def test_clean_turns_non_finite_into_null_with_reason():
    reasons = {}
    out = clean({"a": float("inf"), "b": {"c": float("nan")}, "d": "inf", "e": 2.0}, reasons)
    assert out == {"a": None, "b": {"c": None}, "d": None, "e": 2.0}
    assert reasons == {"a": "out of reach", "b.c": "not defined for this data", "d": "out of reach"}


def test_simulation_sentence_compares_with_the_formula():
    s = {"law": "the weibull law", "best_interval_h": 0.4, "ettr": 0.86, "ettr_lo": 0.85, "ettr_hi": 0.87,
         "formula_interval_h": 0.31, "formula_ettr": 0.843, "formula_interval_sim_ettr": 0.857}
    text = simulation_sentence(s)
    assert "24 min" in text and "19 min" in text  # 0.4 h and 0.31 h
    assert "pessimistic by 1.4 points" in text  # 85.7% simulated against 84.3% predicted
    s["formula_interval_sim_ettr"] = 0.8431
    assert "within the simulation's noise" in simulation_sentence(s)


# --- whole reports ---------------------------------------------------------------------------

def _visible_text(html):
    html = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r"<img[^>]*>", " ", html)
    return re.sub(r"<[^>]+>", " ", html)


def no_raw_output(path):
    """Assert a report page shows no raw DataFrame, traceback, warning, nan/inf/None or 1e+04."""
    html = path.read_text(encoding="utf-8")
    text = _visible_text(html)
    assert "dataframe" not in html.lower().replace("relmodel", ""), f"{path.name}: raw DataFrame repr"
    assert "Traceback" not in text and "Warning:" not in text, path.name
    assert not re.search(r"\d\.\d+e[+-]\d+", text), f"{path.name}: scientific notation"
    assert not re.search(r"(?<![\w-])(nan|NaN|inf|None)(?![\w-])", text), f"{path.name}: nan/inf/None"


def test_report_from_a_custom_column_log(custom_report):
    """The session's shared report of ``odd_log`` through ``relmodel report -p log=... -p start=...`` (conftest)."""
    out, res = custom_report.path, custom_report
    log = out.parent / "our outages.csv"
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    d = summary["records"]["04_requirements_at_scale"]["decision"]
    rate = 200 / (relmodel.load_source(log, **ODD).span_h)  # every outage of the log, 40-ish nodes
    src = summary["records"]["04_requirements_at_scale"]["source"]
    scale = 16384 / src["source_gpus"]
    assert d["job_mtbf_h"] == pytest.approx(1 / (rate * scale * (2 / 3) + rate * (1 / 3)), rel=0.15)
    lead = "The job cannot make useful progress" if d["ettr"] < 0.5 else "Checkpoint every"  # below 50%: no schedule
    assert summary["answers"][0].startswith(lead) and "Simulated with" in summary["answers"][-2]
    # the log names its nodes and no population was given: the last answer says every answer rests on that
    assert summary["answers"][-1].startswith(f"Every answer here takes the {src['units']} nodes the log names")
    assert all(line in res.output for line in summary["answers"])
    for page in out.glob("*.html"):
        no_raw_output(page)


def test_count_table_report_says_what_it_cannot_do(tmp_path):
    out = tmp_path / "r"
    params = {"log": str(count_csv(tmp_path / "c.csv")), "source_gpus": 4096, "exposure": "30d",
              "n_boot": 20, "n_runs": 20, "work": "5d"}
    with ThreadPoolExecutor(1) as one:  # in this process: one warm kernel runs both pages
        relmodel.report.render(params=params, out=out, notebooks=["02", "03"], executor=one)
    page = (out / "02_failure_distributions.html").read_text(encoding="utf-8")
    assert "is a count table" in page and "no failure-time distribution can be fitted" in page
    summary = json.loads((out / "summary.json").read_text())
    assert summary["headline"]["job_mtbf_h"] == pytest.approx(1 / ((4 * 90 + 10) / 720))
    assert "exponential failures (a count table" in summary["answers"][-1]


def test_out_of_reach_sweep_finishes_with_null_and_reason(tmp_path):
    out = tmp_path / "sw"
    res = CliRunner().invoke(cli, ["report", "-q", "-n", "04", "-j", "1", "--out", str(out),
                                   "--sweep", "n_gpus=4096,65536",
                                   "-p", "ckpt_cost=2min", "-p", "restart=15min", "-p", "target_ettr=0.95",
                                   "-p", "n_boot=20", "-p", "sizes=[4096]"])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    for run in summary["runs"]:
        assert run["headline"]["required_node_mtbf_h"] is None
        assert "out of reach" in run["reasons"]["required_node_mtbf_h"]
        assert isinstance(run["headline"]["job_mtbf_h"], float)
    text = (out / "index.html").read_text()
    assert "out of reach" in text and "inf" not in _visible_text(text).split()
    assert (out / "comparison.png").stat().st_size > 1000
    json.loads((out / "n_gpus-4096" / "summary.json").read_text(), parse_constant=pytest.fail)
    assert "cap ETTR at" in res.output
    assert math.isfinite(summary["runs"][0]["headline"]["job_mtbf_h"])


# --- honest statistics -----------------------------------------------------------------------

def _trend(ps, directions=("wearing out", "wearing out", "wearing out"), alpha=0.05):
    from types import SimpleNamespace as NS
    tests = tuple(NS(test=n, p_value=p, direction=d)
                  for n, p, d in zip(("MIL-HDBK-189", "Laplace", "Lewis-Robinson"), ps, directions))
    return NS(tests=tests, alpha=alpha, fit=NS(beta=1.13, beta_lo=1.04, beta_hi=1.23))


def test_trend_verdict_only_when_the_tests_agree():
    from relmodel.report.notebook_pages.pages import trend_block
    verdict, block = trend_block(_trend([0.003, 0.56, 0.74]))  # the StepFun case of the issue
    assert verdict == "inconclusive"
    assert "MIL-HDBK-189 says rising, p = 0.003" in str(block) and "Laplace says steady" in str(block)
    assert "weighs the early failures" in str(block)
    assert trend_block(_trend([0.003, 0.01, 0.02]))[0] == "wearing out"
    assert trend_block(_trend([0.3, 0.5, 0.7]))[0] == "steady"


def _comparison(pvalues, means=(500.0, 100.0, float("inf"))):
    from types import SimpleNamespace as NS
    fams = ["lognormal", "weibull", "loglogistic"][:len(pvalues)]
    table = pd.DataFrame({"family": fams, "delta_aic": [0, 5.9, 10.7][:len(fams)],
                          "akaike_weight": [0.94, 0.05, 0.01][:len(fams)], "ks": [0.14, 0.1, 0.13][:len(fams)],
                          "p_value": pvalues})
    fits = {f: NS(mean_h=m, median_h=40.0) for f, m in zip(fams, means)}
    return NS(by_family=table, fits=fits)


def test_fit_comparison_names_the_aic_best_and_whether_the_bootstrap_rejects_it():
    from relmodel.report.notebook_pages.pages import fit_block, fit_records
    durations = relmodel.data.Durations(np.array([1.0, 5.0, 20.0]), np.ones(3, bool))
    text = str(fit_block(_comparison([0.02, 0.3, 0.2]), durations))
    assert "best family by AIC is lognormal" in text and "rejects it (p = 0.02)" in text
    assert "far beyond the longest observed" in text  # a mean of 500 h from data up to 20 h
    assert "no finite mean" in text
    assert fit_records(_comparison([0.02, 0.3, 0.2])) == {
        "best_family": "lognormal", "best_family_p": 0.02, "best_family_rejected": True}
    assert "rejects every family" in str(fit_block(_comparison([0.01, 0.02, 0.03]), durations))
    assert "does not reject it" in str(fit_block(_comparison([0.4, 0.3, 0.2]), durations))
    assert "No bootstrap test was run" in str(fit_block(_comparison([np.nan] * 3), durations))
