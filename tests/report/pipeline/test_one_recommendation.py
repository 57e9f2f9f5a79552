"""The index states one recommended interval and ETTR, chosen by the library's rule, and the other
answer as a named comparison."""

from relmodel.report.pipeline.summary import answer_sentences, recommendation

DECISION = {"interval_h": 0.3, "interval_lo": 0.28, "interval_hi": 0.32, "ettr": 0.843, "ettr_lo": 0.83,
            "ettr_hi": 0.85, "n_gpus": 16384, "job_mtbf_h": 2.7, "target_ettr": 0.9, "meets_target": False,
            "reachable": True, "required_job_mtbf_h": 6.0, "fixed_per_day": 0.5, "required_node_mtbf_h": 20000.0,
            "max_fixed_per_day": 4.0, "hardware_per_day": 8.4}


def _sim(law):
    return {"law": law, "best_interval_h": 1 / 3, "ettr": 0.858, "ettr_lo": 0.855, "ettr_hi": 0.861,
            "formula_interval_h": 0.3, "formula_ettr": 0.843, "formula_interval_sim_ettr": 0.857}


def test_a_fitted_shape_makes_the_simulation_the_answer():
    rec = recommendation(DECISION, _sim("the gamma law fitted to the log's times between interruptions, "
                                        "shape 0.6, stretched to the job's MTBF"))
    assert rec["basis"] == "simulation" and rec["interval_h"] == 1 / 3 and rec["ettr"] == 0.858
    assert rec["comparison"]["basis"] == "formula" and rec["comparison"]["interval_h"] == 0.3
    text = answer_sentences({"decision": DECISION, "simulation": _sim("the gamma law fitted, shape 0.6")})
    assert text[0].startswith("Checkpoint every 20 min (the simulation's best interval")  # 1/3 h
    assert text[1].startswith("Expected ETTR 85.8% (85.5–86.1%)")
    assert text[-1].startswith("For comparison, the exponential formula's interval is 18 min for an ETTR of 84.3%")
    assert sum("Checkpoint every" in t for t in text) == 1  # one interval is the answer


def test_no_shape_makes_the_formula_the_answer():
    for law in ("exponential failures (a count table has no times to fit a shape to)",
                "exponential failures (only 4 gaps between interruptions, too few to fit a shape)",
                "the exponential law fitted to the log's times between interruptions, stretched to the job's MTBF"):
        rec = recommendation(DECISION, _sim(law))
        assert rec["basis"] == "formula" and rec["interval_h"] == 0.3 and rec["ettr"] == 0.843
        text = answer_sentences({"decision": DECISION, "simulation": _sim(law)})
        assert text[0].startswith("Checkpoint every 18 min")  # 0.3 h
        assert text[1].startswith("Expected ETTR 84.3%")
        assert text[-1].startswith("For comparison: Simulated with")
    assert recommendation(DECISION)["basis"] == "formula" and recommendation(DECISION)["comparison"] is None


def test_when_no_schedule_helps_the_simulation_is_still_named_a_comparison():
    stuck = {**DECISION, "ettr": 0.3, "ettr_lo": 0.28, "ettr_hi": 0.32, "ckpt_cost_h": 1 / 60, "restart_h": 1 / 6}
    text = answer_sentences({"decision": stuck, "simulation": _sim("the gamma law fitted, shape 0.6")})
    assert text[0].startswith("The job cannot make useful progress")
    assert not any(t.startswith("Checkpoint every") for t in text)
    assert text[-1].startswith("For comparison: Simulated with the gamma law")
