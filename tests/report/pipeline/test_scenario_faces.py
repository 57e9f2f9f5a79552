"""One scenario, three faces: a YAML parameters file for the report, the command line's options (named from the
scenario's fields) and the API's ``decide(source, scenario)`` give the same floats for a scenario whose every
planning input differs from its default."""

import json

import pytest

from conftest import run_cli
from relmodel.data.source import load_source
from relmodel.scale.targets.decision import decide
from relmodel.scenario import Scenario

#: Every input away from its default (the report's own bootstrap and seed are the decision's).
GIVEN = {"n_gpus": 4096, "target_ettr": 0.85, "ckpt_cost": "3min", "restart": "20min", "restart_grows": False,
         "conf": 0.9, "scale": ["Network Switch/Cable=link"]}
KEYS = ("ettr", "ettr_lo", "ettr_hi", "optimal_interval_h", "job_mtbf_h", "required_node_mtbf_h", "restart_h")


def _cli_args(scenario_values):
    out = []
    for name, value in scenario_values.items():
        f = Scenario.field(name)
        if f.kind == "bool":
            out.append(f.option if value else f"--no-{f.option[2:]}")
        elif isinstance(value, list):
            for v in value:
                out += [f.option, v]
        else:
            out += [f.option, str(value)]
    return out


@pytest.fixture(scope="module")
def faces(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("scenario")
    params = tmp / "plan.yaml"
    lines = [f"{k}: {json.dumps(v)}" for k, v in GIVEN.items()] + ["work: 5d", "sizes: [4096]", "ckpt_costs: [1min]"]
    params.write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = run_cli("report", "-q", "-j", "1", "--out", tmp / "r", "-n", "03", "-n", "04", "--params", params)
    assert res.exit_code == 0, res.output
    cli = run_cli("requirements", *_cli_args(GIVEN), "--format", "json")
    assert cli.exit_code == 0, cli.output
    return json.loads((tmp / "r" / "summary.json").read_text()), json.loads(cli.output[cli.output.index("{"):])


def test_the_report_the_cli_and_the_api_answer_one_scenario(faces):
    summary, cli = faces
    scenario = Scenario(**GIVEN)
    assert scenario.given().keys() == GIVEN.keys()  # every input away from its default
    api = decide(load_source("llama3"), scenario, seed=0).headline()
    report = summary["headline"]
    for k in KEYS:
        assert report[k] == pytest.approx(api[k], rel=1e-9), ("report", k)
        assert cli["decision"][k] == pytest.approx(api[k], rel=1e-9), ("cli", k)
    assert report["restart_h"] == pytest.approx(1 / 3)  # given, and not grown


def test_summary_records_the_scenario_in_hours(faces):
    summary, _ = faces
    got = summary["scenario"]
    want = Scenario(**GIVEN, gpus_per_node=8).to_dict()  # the pages read the log with 8 GPUs a node: said
    assert got["ckpt_cost"] == pytest.approx(0.05) and got["restart"] == pytest.approx(1 / 3)
    assert {k: (list(v) if isinstance(v, tuple) else v) for k, v in want.items()} == got
