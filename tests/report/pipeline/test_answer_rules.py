"""Answers that fit the data: no schedule when no progress is possible, the bootstrap share of
unreachable draws, a rising rate, and the node MTBF named for what it counts."""

import pytest
from scipy import stats

import relmodel
from relmodel.report.pipeline.summary import USEFUL_ETTR, answer_sentences, clean, null_reasons, warning_lines
from relmodel.scale.targets.decision import decide

LLAMA_DAYS = 54  # Llama 3 (arXiv 2407.21783, Table 5): 419 interruptions in 54 days on 16,384 GPUs


@pytest.fixture(scope="module")
def llama3():
    return relmodel.datasets.llama3_54day()


def test_target_out_of_reach_in_some_draws_says_its_share(llama3):
    d = decide(llama3, 131_072, 0.95, "1min", "10min", n_boot=2000, seed=1)
    assert d.reachable and d.p_reachable < 0.95
    # independent reference: the per-job count N is Poisson; the target is out of reach when the
    # per-job rate alone reaches the required job rate, i.e. N >= 54 days x 24 / required job MTBF
    count = d.fixed_per_day * LLAMA_DAYS
    assert count == pytest.approx(round(count), abs=1e-6)
    limit = LLAMA_DAYS * 24 / d.required_job_mtbf_h
    p_out = 1 - stats.poisson.cdf(-(-limit // 1) - 1, round(count))  # P(N >= limit)
    assert 1 - d.p_reachable == pytest.approx(p_out, abs=0.04)
    records = {"decision": d.to_dict()}
    text = " ".join(answer_sentences(records))
    share = f"{100 * (1 - d.p_reachable):.0f}%"
    assert f"In {share} of the bootstrap draws the target is out of reach at any node MTBF" in text
    assert f"cap ETTR at {100 * d.cap_ettr:.1f}%" in text
    assert "no upper bound" in text
    assert any(share in w for w in warning_lines(records))
    reasons = {}
    found = null_reasons(clean(records, reasons), reasons)
    assert "bootstrap was turned off" not in found["decision.required_node_hi"]
    assert share in found["decision.required_node_hi"]


def test_without_bootstrap_the_reason_says_so(llama3):
    d = decide(llama3, 16_384, 0.9, "1min", "10min", n_boot=0, seed=0)
    reasons = {}
    found = null_reasons(clean({"decision": d.to_dict()}, reasons), reasons)
    assert "bootstrap was turned off" in found["decision.required_node_hi"]


@pytest.mark.parametrize("restart", ["10min", None])   # None: the default, whose start-up grows with the GPUs
@pytest.mark.parametrize("planned", [262_144, 1_048_576])
def test_below_half_ettr_the_answer_is_no_useful_progress(llama3, restart, planned):
    d = decide(llama3, planned, 0.9, "1min", restart, n_boot=0, seed=0)
    assert d.ettr < USEFUL_ETTR
    answers = answer_sentences({"decision": d.to_dict()})
    assert answers[0].startswith("The job cannot make useful progress at this size with this data")
    assert not any(a.startswith("Checkpoint every") for a in answers)
    # the size that would give 50%: find it by bisection on the API's own ETTR, each size with its own restart
    # (a default restart grows with the GPUs), then compare; the planned size must not move it
    lo, hi = 1_024, planned
    while hi - lo > 512:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if decide(llama3, mid, 0.9, "1min", restart, n_boot=0, seed=0).ettr >= 0.5 else (lo, mid)
    said = int(answers[0].split("at most about ")[1].split(" GPUs")[0].replace(",", ""))
    assert said == pytest.approx(lo, rel=0.06)


def test_a_rising_rate_qualifies_meeting_the_target(llama3):
    d = decide(llama3, 1_024, 0.9, "1min", "10min", n_boot=0, seed=0)
    assert d.meets_target
    rising = {"decision": d.to_dict(), "trend": "wearing out"}
    text = " ".join(answer_sentences(rising))
    assert "meets the 90% target at today's failure rates, if the rate stops rising" in text
    assert any("failure rate is rising" in w for w in warning_lines(rising))
    steady = {"decision": d.to_dict(), "trend": "steady"}
    assert "stops rising" not in " ".join(answer_sentences(steady) + warning_lines(steady))


def test_node_mtbf_is_named_hardware_only(llama3):
    d = decide(llama3, 16_384, 0.9, "1min", "10min", n_boot=0, seed=0)
    text = " ".join(answer_sentences({"decision": d.to_dict()}))
    assert "between hardware failures" in text and "hardware causes only" in text
    assert "the observed" not in text.replace("their observed", "")


def test_a_requirement_the_data_cannot_move_is_not_called_unbounded(tmp_path):
    """No per-job failures: the node MTBF needed is the nodes in the job times the job MTBF the target needs,
    the same in every bootstrap draw; it once read "(at least 11,900 h, no upper bound)"."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(3)
    start = pd.Timestamp("2026-01-01") + pd.to_timedelta(np.sort(rng.uniform(0, 60 * 24, 300)), unit="h")
    frame = pd.DataFrame({"start": start, "end": start + pd.Timedelta("2h"),
                          "node": [f"cn{k:04d}" for k in rng.integers(0, 500, 300)]})  # no cause column
    path = tmp_path / "nocause.csv"
    frame.to_csv(path, index=False)
    log = relmodel.read_log(path, start="start", end="end", node="node")
    d = decide(log, 16_384, 0.9, "1min", "10min", n_boot=200, seed=0)
    assert d.fixed_per_day == 0 and d.required_node_lo == d.required_node_hi == d.required_node_mtbf_h
    # 2,048 nodes of 8 GPUs, each needing the job MTBF times the nodes in the job
    nodes = 16_384 / 8
    assert d.required_node_mtbf_h == pytest.approx(nodes * d.required_job_mtbf_h, rel=1e-9)
    text = " ".join(answer_sentences({"decision": d.to_dict()}))
    assert "no upper bound" not in text
    assert "with no per-job failures observed, nodes must reach" in text
    assert "(the same in every bootstrap draw: it follows from the target, checkpoint cost and restart alone)" in text


@pytest.fixture(scope="module")
def joined_gamma():
    """The bundled Slurm run with its kernel log at 16,384 GPUs: a gamma law answers, and no interval is useful."""
    from pathlib import Path
    ops = Path(__file__).resolve().parents[3] / "data" / "ops-example"
    src = relmodel.load_source(str(ops / "sacct.txt"), format="sacct", job="pretrain", syslog=str(ops / "syslog"),
                               year=2024)
    return decide(src, 16_384, n_boot=200, seed=0)


def test_a_job_that_cannot_progress_shows_the_counts_range_of_its_ettr(joined_gamma):
    from relmodel.report.blocks.decision_words import decision_sentences
    d = joined_gamma.to_dict()
    assert d["ettr"] < USEFUL_ETTR and d["ettr_lo"] < d["ettr"] < d["ettr_hi"]
    rng = f"{100 * d['ettr_lo']:.1f}–{100 * d['ettr_hi']:.1f}%"     # the bootstrap's range, as the pages write it
    assert rng in answer_sentences({"decision": d})[0]
    assert f"{100 * d['ettr']:.1f}% ({rng} over the failure rate's 95% range)" in decision_sentences(
        {"decision": d})["interval"]


def test_the_page_says_which_figures_are_the_formulas_beside_a_fitted_law(joined_gamma):
    from relmodel.report.notebook_pages.interval_page import breakdown_title
    from relmodel.report.notebook_pages.requirement_page import sizes_block
    dec = joined_gamma
    assert dec.basis == "simulation" and dec.requirement_law == "gamma"
    assert dec.required_node_mtbf_h != pytest.approx(dec.formula_required_node_mtbf_h, rel=0.01)
    html = str(sizes_block([dec], dec))
    for h in (dec.required_node_mtbf_h, dec.formula_required_node_mtbf_h):
        assert f"{float(f'{h:.3g}'):,.0f} h" in html, h
    assert "exponential formula" in html and "gamma law" in html
    title = breakdown_title(dec)
    assert "exponential formula" in title and f"{100 * dec.ettr:.1f}% useful" in title
    assert breakdown_title(decide(relmodel.datasets.llama3_54day(), 16_384, n_boot=0)) == "Where the wall time goes"
