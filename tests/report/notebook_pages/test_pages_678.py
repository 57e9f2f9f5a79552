"""Pages 06 (designs), 07 (stragglers) and 08 (covariates) follow the report's source.

Each page is rendered on the bundled data and on data written here (an
outage log, a step log, a lifetime table), and its numbers are checked
against the API called here on inputs built by hand (counts from pandas,
hazard ratios from lifelines), not against the page code.  The pages also
render at 1,024, 131,072 and 1,048,576 GPUs with small run counts.
"""

import dataclasses
import json
import math
import re
import warnings
from html import unescape

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.scale.targets.restart_growth import growing_restart
from relmodel.data.shaping.counts import count_table
from relmodel.data.source import load_source
from relmodel.errors import LogFormatError, MissingColumnError, ParameterError
from relmodel.data.formats.lives import load_lives
from relmodel.report.notebook_pages.straggler_page import failstop_mtbf, step_data
from relmodel.scale.targets.decision import decide

from test_report_content import no_raw_output

SIZES = (1_024, 1_048_576)
LOG = {"start": "when", "end": "back", "node": "host", "cause": "why", "source_gpus": 1600}


def visible(path):
    html = path.read_text(encoding="utf-8")
    html = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", html, flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def opening(path, title):
    """The page's visible text from its first sentence on (after the title)."""
    text = visible(path)
    return text[text.index(title) + len(title):].lstrip("¶ ")  # nbconvert adds an anchor mark to headings


def write_outages(path, n=300, seed=1):
    rng = np.random.default_rng(seed)
    t0 = pd.Timestamp("2025-01-01")
    starts = t0 + pd.to_timedelta(np.sort(rng.uniform(0, 60 * 24, n)), unit="h")
    ends = starts + pd.to_timedelta(rng.exponential(3, n), unit="h")
    df = pd.DataFrame({"when": starts.strftime("%Y-%m-%d %H:%M:%S"), "back": ends.strftime("%Y-%m-%d %H:%M:%S"),
                       "host": [f"h{i:03d}" for i in rng.integers(0, 200, n)],
                       "why": rng.choice(["GPU", "NIC", "Software", "PSU"], n, p=[0.5, 0.2, 0.2, 0.1])})
    df.to_csv(path, index=False)
    return path


def write_steps(path, seed=2):
    rng = np.random.default_rng(seed)
    rows = [[s, r, 1000 + (60 if r == 5 else 0) + rng.normal(0, 10), f"n{r // 4}"] for s in range(80) for r in range(16)]
    pd.DataFrame(rows, columns=["step", "rank", "duration_ms", "node"]).to_csv(path, index=False)
    return path


def write_lives(path, m=400, seed=3):
    """Weibull lives (shape 1.3); rack C lives half as long, so its hazard ratio is 2^1.3 = 2.46."""
    rng = np.random.default_rng(seed)
    rack = rng.choice(["A", "B", "C"], m)
    life = rng.weibull(1.3, m) * 5000 * np.where(rack == "C", 0.5, 1.0)
    cens = rng.uniform(0, 8000, m)
    pd.DataFrame({"unit": np.arange(m), "minutes_up": (60 * np.minimum(life, cens)).round(1),
                  "died": np.where(life <= cens, "yes", "no"), "rack": rack,
                  "inlet_c": rng.normal(30, 3, m).round(1)}).to_csv(path, index=False)
    return path


# ---------------------------------------------------------------- the page modules, without a kernel

def test_failstop_mtbf_is_the_sources_scaled_to_the_job():
    src = load_source("llama3")
    got = failstop_mtbf(src, 16384, "1min", "10min")
    assert got.mtbf_h == pytest.approx(54 * 24 / 419, rel=1e-9)  # hand count: 419 interruptions in 54 days
    assert "Llama 3" in got.text() and "scaled to 16,384 GPUs" in got.text()
    d = decide(src, 131072, 0.9, ckpt_cost="1min", restart="10min", n_boot=0)
    assert failstop_mtbf(src, 131072, "1min", "10min").mtbf_h == pytest.approx(d.job_mtbf_h, rel=1e-12)
    given = failstop_mtbf(src, 131072, ckpt_cost="1min", restart="10min", mtbf_h=20)
    assert given.mtbf_h == 20 and "mtbf_h parameter" in given.text()
    with pytest.raises(ParameterError, match="positive number of hours"):
        failstop_mtbf(src, 1024, ckpt_cost="1min", restart="10min", mtbf_h=-1)


def test_design_source_counts_the_log_per_cause(tmp_path):
    from dataclasses import replace
    from relmodel.report.notebook_pages.design_page import design_source, lead_sentence
    log = write_outages(tmp_path / "o.csv")
    src = load_source(str(log), **LOG)
    got = design_source(src)
    raw = pd.read_csv(log)
    assert got.example is None and got.data.n_gpus == 1600
    assert dict(zip(got.data.counts["component"], got.data.counts["count"])) == raw["why"].value_counts().to_dict()
    assert lead_sentence(got, 4096).startswith(f"Failure rates are this report's data, {log}: 300 outages")
    disks = design_source(replace(src, gpus_per_node=0))  # a log of units without GPUs: the example instead
    assert disks.example.startswith("Llama 3 counts")
    assert lead_sentence(disks, 4096).startswith("This page shows an example, not your data: the designs are fed "
                                                 "with the Llama 3 counts")


def test_designs_page_leads_with_no_useful_progress_when_every_design_is_below_half(tmp_path):
    from relmodel.report.notebook_pages.design_page import comparison_sentences, design_source
    src = load_source(str(write_outages(tmp_path / "o.csv")), **LOG)
    with warnings.catch_warnings():  # a job MTBF below the checkpoint cost warns that arguments may be swapped
        warnings.simplefilter("ignore", relmodel.errors.ArgumentOrderWarning)
        cmp = relmodel.scale.compare_designs(["h100-fat-tree", "nvl72-in-rack-spares"], design_source(src).data, ckpt_cost="1min",
                                       restart="10min", n_gpus=1_048_576, n_runs=20, n_boot=0)
    assert (cmp.by_design["ettr"] < 0.5).all()  # 300 outages in 60 days on 200 nodes, at 131,072 nodes
    assert comparison_sentences(cmp)[0].startswith("The job cannot make useful progress at this size")


def test_steps_names_the_step_log(tmp_path):
    path = write_steps(tmp_path / "s.csv")
    got = step_data(str(path), n_boot=0)
    assert got.example is None and got.lead == "The step times are your step log s.csv."
    with pytest.raises(TypeError, match="step_log"):
        step_data(step_log=str(path), n_boot=0)               # the page's parameter of 0.2


def test_lives_table_is_read_with_units_and_flags(tmp_path):
    path = write_lives(tmp_path / "lives.csv")
    raw = pd.read_csv(path)
    got = load_lives(str(path), duration="minutes_up", event="died", unit="min", covariates=["rack", "inlet_c"])
    assert got.example is None and got.lead.startswith("The lifetimes are your table lives.csv: 400 lives")
    assert np.allclose(got.frame["duration_h"], raw["minutes_up"] / 60)
    assert int(got.frame["observed"].sum()) == int((raw["died"] == "yes").sum())
    assert got.covariates == ("rack", "inlet_c") and got.cluster is None
    bad = raw.assign(died=raw["died"].where(raw.index != 7, "maybe"))
    bad.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(LogFormatError, match=r"row 8: 'maybe' is not an event flag; use 1/0 or true/false"):
        load_lives(str(tmp_path / "bad.csv"), duration="minutes_up", event="died")
    with pytest.raises(MissingColumnError, match="no duration column; name it with the duration parameter"):
        load_lives(str(path), event="died")
    titan = load_lives(None, n_synthetic=300)
    assert titan.example and titan.lead.startswith("This page shows an example, not your data")


# ---------------------------------------------------------------- rendered pages

def user_report_args(folder):
    """Arguments of ``relmodel report`` for pages 06-08 on data written into ``folder`` (made here)."""
    folder.mkdir(exist_ok=True)
    log, steps, lives = write_outages(folder / "outages.csv"), write_steps(folder / "steps.csv"), write_lives(folder / "lives.csv")
    return ["-n", "06", "-n", "07", "-n", "08", "-p", f"log={log}", *[a for k, v in LOG.items() for a in
            ("-p", f"{k}={v}")], "-p", f"steps={steps}", "-p", f"lives={lives}", "-p", "duration_column=minutes_up",
            "-p", "event_column=died", "-p", "lives_unit=min", "-p", "covariates=[rack, inlet_c]",
            "-p", "n_runs=200", "-p", "n_boot=0"]


#: Arguments of ``relmodel report`` for pages 06-08 on the bundled data.
BUNDLED_ARGS = ["-n", "06", "-n", "07", "-n", "08", "-p", "n_runs=200", "-p", "n_boot=0"]


@pytest.fixture(scope="module")
def user_report(pages678_user):
    """Rendered once per test run (tests/conftest.py), whichever test process asks first."""
    res, folder = pages678_user, pages678_user.path.parent / "user678-inputs"
    assert res.exit_code == 0, res.output
    return res.path, folder / "outages.csv", folder / "steps.csv", folder / "lives.csv"


@pytest.fixture(scope="module")
def bundled_report(pages678_bundled):
    assert pages678_bundled.exit_code == 0, pages678_bundled.output
    return pages678_bundled.path


def _records(out, name):
    return json.loads((out / "summary.json").read_text())["records"][name]


def _with_pool(n_spares):
    """The five named designs at 16,384 GPUs, the spare-pool ones holding ``n_spares`` nodes."""
    presets = relmodel.scale.design.designs.design_presets(16384)
    return [dataclasses.replace(c, spare_pool=n_spares) if c.domain_policy == "spare-pool" else c
            for c in presets.values()]


def test_designs_page_uses_the_users_log(user_report):
    out, log, _, _ = user_report
    page = out / "06_designs.html"
    no_raw_output(page)
    raw = pd.read_csv(log, parse_dates=["when", "back"])
    span_h = (raw["back"].max() - raw["when"].min()) / pd.Timedelta(hours=1)  # first start to last end
    counts = raw["why"].value_counts().rename_axis("component").reset_index()
    table = count_table(counts, n_gpus=1600, gpus_per_node=8, duration=span_h, name=str(log))
    grows = growing_restart("10min")  # the page's default: NCCL start-up growing with the ranks (restart_grows)
    rec = _records(out, "06_designs")
    # the page's repairs: the mean outage length of the log, by hand; its spare-pool designs hold the plan's pool
    repair = f"{((raw['back'] - raw['when']) / pd.Timedelta(hours=1)).mean()}h"
    designs = _with_pool(rec["design_spare_nodes"])
    api = relmodel.scale.compare_designs(designs, table, ckpt_cost="1min", restart=grows, n_gpus=16384, n_runs=200, n_boot=0,
                                   repair=repair)
    detail = relmodel.scale.compare_designs([designs[3]], table, ckpt_cost="1min", restart=grows, n_runs=200, n_boot=0,
                                      repair=repair)
    assert "example" not in rec
    assert rec["best_design"] == api.best()
    assert rec["design_ettr"] == pytest.approx(detail.by_design["ettr"].iloc[0], rel=1e-9)
    assert rec["examined_design"] == designs[3].name != rec["best_design"]  # the figures name their own design
    text = visible(page)
    assert opening(page, "Cluster designs: fault domains, spares and optics").startswith(
        f"Failure rates are this report's data, {log}: 300 outages over 60 days on 1,600 GPUs (as given)")
    best = api.by_design.loc[api.by_design["goodput_per_gpu"].idxmax()]
    assert (f"{best['design']} gives the most goodput per GPU bought: {100 * best['goodput_per_gpu']:.1f}% "
            f"(ETTR {100 * best['ettr']:.1f}%") in text
    # the log has no requeue gaps: 10 min plus NCCL start-up, 265 s at 98,304 GPUs in proportion (by hand)
    restart_s = 600 + 265 * 16384 / 98304
    req = decide(load_source(str(log), **LOG), 16384, 0.9, ckpt_cost="1min", restart=f"{restart_s}s",
                 n_boot=0).required_node_mtbf_h
    assert f"The requirements page's node MTBF ({relmodel.tables.hours_text(req)} for the planned job)" in text


def test_designs_page_on_the_bundled_data_defines_its_columns(bundled_report):
    page = bundled_report / "06_designs.html"
    no_raw_output(page)
    text = visible(page)
    assert opening(page, "Cluster designs: fault domains, spares and optics").startswith(
        "Failure rates are this report's data, Llama 3 pre-training, 54 days: 419 interruptions")
    for header in ("Node hardware MTBF needed for 90%", "Time waiting for a spare", "ETTR (95% range)",
                   "What the columns mean", "A restart takes 10 min (assumption) plus start-up growing with the ranks, as on pages 03–04",
                   "s more at 16,384 GPUs", "arXiv 2510.20171", "Which assumption decides the ranking",
                   "Whole-rack faults are left out", "Whole-rack faults (FIT per rack)", "Nodes one event takes out",
                   "Spare parts on the shelf over time"):
        assert header in text, header
    grows = growing_restart("10min")
    # a count table has no repairs: the page prices the StepFun trace's mean repair, as page 04 does
    repair_h = float(np.mean(relmodel.datasets.stepfun().downtimes().hours))
    designs = _with_pool(_records(bundled_report, "06_designs")["design_spare_nodes"])
    api = relmodel.scale.compare_designs([designs[1]], relmodel.datasets.llama3_54day(), ckpt_cost="1min", restart=grows,
                                   n_gpus=16384, n_runs=200, n_boot=0, repair=f"{repair_h}h")
    assert f"{100 * api.by_design['ettr'].iloc[0]:.1f}%" in text
    assert not re.search(r"ETTR 0\.\d{3}", text)  # percent, never a fraction
    from scipy import stats
    swaps = relmodel.scale.compare_designs([designs[3]], relmodel.datasets.llama3_54day(), ckpt_cost="1min", restart=grows,
                                     n_runs=200, n_boot=0, repair=f"{repair_h}h").results[0].node_interrupt_rate
    # stationary shelf: parts away ~ Poisson(rate x the same mean repair); the smallest stock empty at most 1% of the time
    need = next(c for c in range(1, 10_000) if stats.poisson.sf(c - 1, swaps * repair_h) <= 0.01)
    assert f"{need:,} spare trays keep the shelf empty under 1% of the time once settled" in text
    html = page.read_text(encoding="utf-8")
    tables = re.findall(r"<table>.*?</table>", html, flags=re.S)
    assert max(t.count("<tr>") - 1 for t in tables) <= 15  # at most 15 rows in any table


def test_stragglers_page_plans_with_the_sources_mtbf(user_report):
    out, log, steps, _ = user_report
    page = out / "07_stragglers.html"
    no_raw_output(page)
    rec = _records(out, "07_stragglers")
    d = decide(load_source(str(log), **LOG), 16384, 0.9, ckpt_cost="1min", restart="10min", n_boot=0)
    assert rec["stragglers_failstop_mtbf_h"] == pytest.approx(d.job_mtbf_h, rel=1e-12)
    # hand count: 300 outages from the first start to the last end on 1,600 GPUs (200 nodes); GPU, NIC, PSU
    # and the unmatched "Software" all count per node or GPU, so the rate grows by 16,384 / 1,600
    raw = pd.read_csv(log, parse_dates=["when", "back"])
    span_h = (raw["back"].max() - raw["when"].min()) / pd.Timedelta(hours=1)
    assert rec["stragglers_failstop_mtbf_h"] == pytest.approx(span_h / (300 * 16384 / 1600), rel=1e-9)
    lost = relmodel.stragglers.slowdown(relmodel.read_steps(steps, step="step", rank="rank", duration="duration_ms",
                                                 node="node", time_unit="ms"), n_boot=0)
    assert rec["straggler_loss"] == pytest.approx(lost.share_lost, rel=1e-9)
    assert "example" not in rec
    text = visible(page)
    assert opening(page, "Stragglers and fail-slow nodes").startswith("The step times are your step log steps.csv. ")
    assert f"job MTBF {relmodel.tables.duration(d.job_mtbf_h)}" in text and "scaled to 16,384 GPUs" in text


def test_stragglers_page_on_the_bundled_data_says_it_shows_an_example(bundled_report):
    page = bundled_report / "07_stragglers.html"
    no_raw_output(page)
    assert opening(page, "Stragglers and fail-slow nodes").startswith(
        "This page shows an example, not your data: the bundled AR trace of Lin et al.")
    rec = _records(bundled_report, "07_stragglers")
    assert "AR trace" in rec["example"]
    assert rec["stragglers_failstop_mtbf_h"] == pytest.approx(54 * 24 / 419, rel=1e-9)
    index = visible(bundled_report / "index.html")
    assert f"shows an example, not your data: {rec['example']}" in index


def test_covariates_page_reads_the_lifetime_table(user_report):
    from lifelines import CoxPHFitter
    from lifelines.statistics import multivariate_logrank_test
    out, _, _, lives = user_report
    page = out / "08_covariates.html"
    no_raw_output(page)
    raw = pd.read_csv(lives)
    df = pd.DataFrame({"t": raw["minutes_up"] / 60, "e": (raw["died"] == "yes").astype(int),
                       "B": (raw["rack"] == "B").astype(int), "C": (raw["rack"] == "C").astype(int),
                       "inlet_c": raw["inlet_c"]})
    hr = np.exp(CoxPHFitter().fit(df, "t", "e").params_)
    text = visible(page)
    assert f"rack C vs A {hr['C']:.2f}" in text and f"rack B vs A {hr['B']:.2f}" in text
    assert 1.8 < hr["C"] < 3.3  # the drawn value 2^1.3 = 2.46
    p = multivariate_logrank_test(df["t"], raw["rack"], df["e"]).p_value
    assert _records(out, "08_covariates")["group_test_p"] == pytest.approx(p, rel=1e-6)
    said = opening(page, "Why some parts fail sooner: position, groups and regression")
    assert said.startswith("In plain words: ")  # the verdict first, then what the data are
    assert "The lifetimes are your table lives.csv: 400 lives" in said


def test_covariates_page_on_the_bundled_data_says_it_shows_an_example(bundled_report):
    page = bundled_report / "08_covariates.html"
    no_raw_output(page)
    said = opening(page, "Why some parts fail sooner: position, groups and regression")
    assert said.startswith("This is an example, not your data. In plain words: ")
    assert "This page shows an example, not your data: a synthetic stand-in for the Titan GPU lives" in said
    assert _records(bundled_report, "08_covariates")["example"] == "synthetic stand-in for the Titan GPU lives"


@pytest.fixture(scope="module")
def sizes_sweep(scale_sweep):
    """The shared sweep of every notebook taking n_gpus (tests/conftest.py) at the sizes above."""
    from conftest import SCALE_SIZES
    assert tuple(SCALE_SIZES) == SIZES
    return scale_sweep, scale_sweep.path


def test_pages_render_at_every_size(sizes_sweep):
    res, out = sizes_sweep
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    for run in summary["runs"]:
        folder = out / run["folder"]
        for name in ("06_designs", "07_stragglers"):
            page = folder / f"{name}.html"
            text = visible(page)
            assert "Traceback" not in text and "stops here" not in text, (run["values"], name)
            no_raw_output(page)
        n = run["values"]["n_gpus"]
        rec = json.loads((folder / "summary.json").read_text())["records"]["07_stragglers"]
        d = decide(relmodel.datasets.llama3_54day(), n, 0.9, ckpt_cost="1min", restart="10min", n_boot=0)
        assert rec["stragglers_failstop_mtbf_h"] == pytest.approx(d.job_mtbf_h, rel=1e-12)
        assert math.isfinite(json.loads((folder / "summary.json").read_text())["records"]["06_designs"]["design_ettr"])
