"""The four decisions (interval, the node vendor's MTBF, spare nodes, nodes to pull) and what swings them.

The vendor's node MTBF and the swings are held to Daly's exact exponential model and the budget rule written
here from Llama 3's Table 5 counts (Meta 2024, arXiv 2407.21783, section 3.3.4); the report's index, its
summary.json, page 04, the CLI and the API are held to one another.
"""

import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

import relmodel
from conftest import run_cli
from relmodel.data.shaping.counts import count_table
from relmodel.scale.targets.swings import decision_swings
from relmodel.scale.targets.vendor import vendor_requirement
from test_one_decision import _text, slurm_syslog

# Llama 3 Table 5, counted by hand into what a node vendor answers for (GPU and host causes), the network
# (switch and cable) and the job's own causes (software bug, NCCL watchdog timeouts, dependency).
NODE_HW = 148 + 72 + 19 + 17 + 6 + 6 + 32 + 7 + 3 + 3 + 2 + 2 + 2 + 2
NETWORK = 35
PER_JOB = 54 + 7 + 2
SPAN_H = 54 * 24.0
NODES = 16384 // 8


def daly_best(m, d, r):
    """Best ETTR of Daly's exact exponential model at job MTBF m, checkpoint d, restart r (hours)."""
    def loss(log_tau):
        tau = math.exp(log_tau)
        return -tau * math.exp(-r / m) / (m * math.expm1((tau + d) / m))
    res = optimize.minimize_scalar(loss, bounds=(math.log(1e-4), math.log(10 * m)), method="bounded",
                                   options={"xatol": 1e-10})
    return -res.fun


def needed_mtbf(target, d, r):
    return math.exp(optimize.brentq(lambda x: daly_best(math.exp(x), d, r) - target, math.log(0.01), math.log(1e4),
                                    xtol=1e-12))


@pytest.fixture(scope="module")
def llama_decision():
    return relmodel.decide(relmodel.datasets.llama3_54day(), 16384, 0.9, "1min", "10min", n_boot=400, seed=0,
                           simulate=False)


def test_vendor_mtbf_is_the_budget_left_after_network_and_per_job_causes(llama_decision):
    v = vendor_requirement(llama_decision, n_boot=400, seed=0)
    m_req = needed_mtbf(0.9, 1 / 60, 10 / 60)
    want = NODES / (1 / m_req - (NETWORK + PER_JOB) / SPAN_H)
    assert v.node_mtbf_h == pytest.approx(want, rel=1e-6)
    assert v.observed_node_mtbf_h == pytest.approx(NODES * SPAN_H / NODE_HW, rel=1e-9)
    assert v.afr_node == pytest.approx(8766 / want, rel=1e-6)
    assert v.gpu_mtbf_h == pytest.approx(8 * want, rel=1e-6)
    assert v.node_mtbf_lo < v.node_mtbf_h < v.node_mtbf_hi
    # the decision's own figure counts the network against the node: a smaller (stricter-looking) number
    assert llama_decision.required_node_mtbf_h == pytest.approx(NODES / (1 / m_req - PER_JOB / SPAN_H), rel=1e-6)
    assert v.node_mtbf_h > llama_decision.required_node_mtbf_h
    assert "22,500 h" in v.text() or f"{want:,.0f}"[:3] in v.text()


def test_the_vendor_sentence_names_the_headlines_figure_and_todays_beside_it(llama_decision):
    """Two node figures on one page read as one answer: the sentence says the headline's, from the hand counts."""
    v = vendor_requirement(llama_decision, n_boot=50, seed=0)
    m_req = needed_mtbf(0.9, 1 / 60, 10 / 60)
    headline = NODES / (1 / m_req - PER_JOB / SPAN_H)
    today = NODES * SPAN_H / (NODE_HW + NETWORK)
    from relmodel.report.blocks import present as P
    assert (f"The headline's {P.hours_text(headline)} (today's nodes: {P.hours_text(today)}) is the same target "
            "with the network's faults counted against the nodes.") in v.text()
    # without network causes the two figures are one, and nothing more is said
    src = count_table(pd.DataFrame({"component": ["Faulty GPU", "Software Bug"], "count": [148, 54]}),
                      n_gpus=16384, gpus_per_node=8, duration="54d")
    d = relmodel.decide(src, 16384, 0.9, "1min", "10min", n_boot=50, seed=0, simulate=False)
    assert "The headline's" not in vendor_requirement(d, n_boot=50, seed=0).text()


def test_without_network_causes_the_vendor_figure_is_the_decisions():
    src = count_table(pd.DataFrame({"component": ["Faulty GPU", "Host Maintenance", "Software Bug"],
                                    "count": [148, 32, 54]}), n_gpus=16384, gpus_per_node=8, duration="54d")
    d = relmodel.decide(src, 16384, 0.9, "1min", "10min", n_boot=200, seed=0, simulate=False)
    v = vendor_requirement(d, n_boot=200, seed=0)
    assert v.network_per_day == 0
    assert v.node_mtbf_h == pytest.approx(d.required_node_mtbf_h, rel=1e-9)


def test_network_and_per_job_causes_that_use_the_whole_budget_leave_no_vendor_figure():
    src = count_table(pd.DataFrame({"component": ["Faulty GPU", "Network Switch/Cable", "Software Bug"],
                                    "count": [10, 216, 108]}), n_gpus=16384, gpus_per_node=8, duration="54d")
    d = relmodel.decide(src, 16384, 0.9, "1min", "10min", n_boot=200, seed=0, simulate=False)
    assert d.reachable  # the network counted against the nodes still leaves them room
    v = vendor_requirement(d, n_boot=200, seed=0)
    assert not v.reachable and v.node_mtbf_h is None and v.afr_node is None
    assert "No node hardware meets" in v.text()


def test_swings_move_each_input_by_daly_at_the_jobs_mtbf(llama_decision):
    d = llama_decision
    rows = decision_swings(d).to_frame().set_index("input")
    m = (NODE_HW + NETWORK + PER_JOB) / SPAN_H
    m = 1 / m
    held = (NETWORK + PER_JOB) / SPAN_H
    for name, dd, r, end in (("restart", 1 / 60, 5 / 60, "low"), ("restart", 1 / 60, 0.5, "high"),
                             ("checkpoint cost", 1 / 180, 10 / 60, "low"), ("checkpoint cost", 3 / 60, 10 / 60, "high")):
        assert rows.loc[name, f"ettr_{end}"] == pytest.approx(daly_best(m, dd, r), abs=2e-6), (name, end)
        want = NODES / (1 / needed_mtbf(0.9, dd, r) - held)
        assert rows.loc[name, f"vendor_{end}"] == pytest.approx(want, rel=1e-5), (name, end)
    assert list(rows.index[:3]) == sorted(rows.index[:3], key=lambda k: -abs(rows.loc[k, "ettr_high"]
                                                                             - rows.loc[k, "ettr_low"]))
    # the law's exponential end is the decision itself
    assert rows.loc["failure law", "ettr_low"] == pytest.approx(d.ettr, abs=1e-6)


def test_downtimes_leave_planned_outages_out():
    df = pd.DataFrame({"start": [0.0, 10.0, 20.0, 30.0], "end": [2.0, 18.0, 21.0, 36.0],
                       "node": ["a", "b", "a", "c"], "planned": [False, True, False, False]})
    log = relmodel.read_log(df, start="start", end="end", node="node", planned="planned", time_unit="h")
    assert sorted(log.downtimes().hours.tolist()) == [1.0, 2.0, 6.0]
    assert sorted(log.downtimes(include_planned=True).hours.tolist()) == [1.0, 2.0, 6.0, 8.0]


def _render(folder, *params):
    args = ["report", "--out", str(folder), "-q", "-n", "03", "-n", "04", "-n", "09", "-p", "n_boot=400",
            "-p", "n_runs=20"]
    for p in params:
        args += ["-p", p]
    res = run_cli(*args)
    assert res.exit_code == 0, res.output
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["status"] == "complete", summary["failed"]
    return summary, _text(folder / "index.html"), _text(folder / "04_requirements_at_scale.html")


@pytest.fixture(scope="module")
def default_report(tmp_path_factory):
    return _render(tmp_path_factory.mktemp("four") / "r")


def test_every_face_shows_the_same_four_decisions(default_report):
    summary, index, page4 = default_report
    dec = summary["decisions"]
    for key in ("interval", "vendor", "spares", "nodes"):
        assert dec[key] and dec[key] in index, key
    assert dec["vendor"] in page4
    spares = summary["records"]["04_requirements_at_scale"]["spares"]
    assert f"Keep {spares['n_spares']:,} spare nodes" in page4 and f"Keep {spares['n_spares']:,} spare" in dec["spares"]
    # the API on the page's inputs gives the same vendor sentence
    d = relmodel.decide(relmodel.datasets.llama3_54day(), 16384, 0.9, "1min", None, n_boot=400, seed=0, n_runs=20)
    assert vendor_requirement(d, n_boot=400, seed=0).text() == dec["vendor"]
    # and so does the CLI
    res = run_cli("requirements", "--gpus", 16384, "--n-boot", 400, "--seed", 0)
    assert res.exit_code == 0, res.output
    assert dec["vendor"] in " ".join(res.output.split())
    # the repair time the pool assumes is an input row, said as an assumption
    assert re.search(r"Repair or return time \(sizes the spares\) 5\.55 d mean: borrowed from the StepFun trace, an "
                     r"assumption default \(assumption\)", index)
    # the job's answer alone in the headline; the designs' figures are not in it
    assert not [k for k in summary["headline"] if k.startswith("design_")]


def test_the_index_says_what_the_paper_reported_and_what_moves_the_answer(default_report):
    summary, index, _ = default_report
    assert "The Llama 3 paper reports an effective training time above 90%" in index
    swings = summary["records"]["04_requirements_at_scale"]["swings"]
    assert [r["input"] for r in swings][-1] == "repair time"
    restart = next(r for r in swings if r["input"] == "restart")
    assert restart["low"] == "5 min plus 44 s of start-up"  # the growth with the ranks rides along
    assert f"a restart of 5 min plus 44 s of start-up gives {relmodel.tables.pct(restart['ettr_low'])}" in index
    by = summary["records"]["04_requirements_at_scale"]["spares"]["by_repair_days"]
    assert [int(by[k]) for k in ("1", "3", "7", "14")] == sorted(int(by[k]) for k in ("1", "3", "7", "14"))


def test_a_fleet_with_bad_nodes_says_what_the_lifecycle_gives_beside_the_headline(tmp_path):
    weights = np.ones(24)
    weights[[3, 11]] = 30.0
    sacct, syslog, _ = slurm_syslog(tmp_path, n_nodes=24, days=60, mtbf_h=8.0, weights=weights)
    summary, index, _ = _render(tmp_path / "r", f"log={sacct}", f"syslog={syslog}", "year=2024", "population=24",
                                "n_gpus=512", "policy_runs=20")
    fleet = summary["headline"].get("fleet")
    assert fleet, summary["records"]["09_bad_nodes"]
    policies = summary["records"]["09_bad_nodes"]["retirement"]["policies"]
    assert fleet["ettr_never"] == policies[0]["ettr"] and policies[0]["policy"] == "never retire"
    said = next(a for a in summary["answers"] if a.startswith("With the bad nodes"))
    assert relmodel.tables.pct(fleet["ettr_never"]) in said and said in index
    assert "take the nodes as interchangeable" in said
    # population=24 gives the observed cluster: an input given, not a default
    assert summary["headline"]["source"]["source_gpus"] == "parameter"
    assert "Observed cluster 192 GPUs (as given) given" in index
    # and the planted lemons are named among the four decisions
    nodes = summary["decisions"]["nodes"]
    assert "gpu04" in nodes and "gpu12" in nodes and nodes in index
    # the API's decision carries the same lifecycle answer (relmodel.scale.lifecycle.with_fleet)
    from relmodel.data.source import load_source
    from relmodel.scale.lifecycle import with_fleet
    from relmodel.scale.targets.decision import decide
    src = load_source(str(sacct), format="sacct", syslog=str(syslog), year=2024, population=24)
    # the report's decision (pages 03, 04 and 09 share it): the plan the fleet runs
    dec = with_fleet(decide(src, relmodel.Scenario(n_gpus=512), n_runs=20, n_boot=400, seed=0), src,
                     population=24, runs=20, seed=0)
    got = dec.headline()["fleet"]
    assert got["policy"] == fleet["policy"]
    for k in ("ettr_never", "ettr_never_lo", "ettr_never_hi", "ettr_best", "ettr_best_lo", "ettr_best_hi"):
        assert got[k] == pytest.approx(fleet[k], rel=1e-12), k
    assert "Simulated over 30 d of training on 64 nodes" in dec.fleet_note


def test_a_job_that_cannot_progress_gets_no_interval_to_run(scale_sweep):
    """Llama 3's counts at 1,048,576 GPUs: the session's shared sweep renders pages 03, 04 and 09 there
    (tests/conftest.py), as ``relmodel report -p n_gpus=1048576`` would."""
    runs = json.loads((scale_sweep.path / "summary.json").read_text())["runs"]
    folder = scale_sweep.path / next(r["folder"] for r in runs if r["values"]["n_gpus"] == 1_048_576)
    summary, index = json.loads((folder / "summary.json").read_text()), _text(folder / "index.html")
    assert summary["status"] == "complete", summary["failed"]
    said = summary["decisions"]["interval"]
    assert said.startswith("No checkpoint interval makes this job useful") and said in index
    restart = next(r for r in summary["records"]["04_requirements_at_scale"]["swings"] if r["input"] == "restart")
    grown = 265 / 3600 * 1048576 / 98304  # NCCL start-up at 1M GPUs (hours), carried at both ends
    d = summary["records"]["03_checkpoint_interval"]["decision"]
    assert d["restart_growth_h"] == pytest.approx(grown, rel=1e-6)
    assert "plus 47 min of start-up" in restart["low"]


def test_nodes_better_than_needed_are_said_to_be(llama_decision):
    import dataclasses
    v = vendor_requirement(llama_decision, n_boot=50, seed=0)
    better = dataclasses.replace(v, observed_node_mtbf_h=4 * v.node_mtbf_h)
    assert "4× better than needed already" in better.text() and "better is needed" not in better.text()
