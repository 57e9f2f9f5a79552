"""One scenario: every planning input parsed once, with one default, read by the same names in the API, the CLI and
the report's parameters.  Reference values are written here (Daly's closed form, a hand-computed M/M/inf pool)."""

import inspect
import math

import pytest
from scipy import optimize, stats

import relmodel
from conftest import REPO
from relmodel.checkpoint.intervals import ettr, optimal_interval
from relmodel.errors import ModelInputError, ScenarioError
from relmodel.report.pipeline.params import notebook_parameters
from relmodel.scale.sparing.spares import spare_pool
from relmodel.scale.targets.decision import decide
from relmodel.scale.targets.requirements import required_node_mtbf
from relmodel.defaults import GPUS_PER_NODE
from relmodel.scenario import FIELDS, Scenario, scenario_of, takes_scenario


def test_durations_are_parsed_once_into_hours():
    s = Scenario(ckpt_cost="90s", restart="1h30min", repair_time="2d", n_gpus="32,768")
    assert (s.ckpt_cost, s.restart, s.repair_time, s.n_gpus) == (90 / 3600, 1.5, 48.0, 32768)
    assert Scenario().ckpt_cost == 1 / 60 and Scenario().restart is None
    assert s.replace(restart=None).restart is None and s.replace(restart="0s").restart == 0.0


@pytest.mark.parametrize("bad, field", [
    ({"n_gpus": 0}, "n_gpus"), ({"n_gpus": 1024.5}, "n_gpus"), ({"n_gpus": True}, "n_gpus"),
    ({"n_gpus": float("inf")}, "n_gpus"), ({"n_gpus": "many"}, "n_gpus"), ({"crews": float("nan")}, "crews"),
    ({"target_ettr": 1.0}, "target_ettr"), ({"target_ettr": "high"}, "target_ettr"), ({"conf": 0}, "conf"),
    ({"ckpt_cost": "-1min"}, "ckpt_cost"), ({"ckpt_cost": "soon"}, "ckpt_cost"), ({"ckpt_cost": None}, "ckpt_cost"),
    ({"restart": "2y"}, "restart"), ({"repair_time": 0}, "repair_time"), ({"crews": 0}, "crews"),
    ({"repair": "magic"}, "repair"), ({"scale": ["no equals sign"]}, "scale"), ({"restart_grows": "yes"},
                                                                                 "restart_grows")])
def test_a_bad_input_is_refused_naming_its_field(bad, field):
    with pytest.raises(ScenarioError, match=rf"^{field}\b") as err:
        Scenario(**bad)
    assert isinstance(err.value, ModelInputError)  # callers catching the planning errors keep catching it


def test_an_unknown_input_lists_the_inputs():
    with pytest.raises(ScenarioError, match="unknown scenario input ckpt_costs; the inputs are n_gpus"):
        Scenario(ckpt_costs="1min")
    with pytest.raises(ScenarioError, match="must be a relmodel.Scenario"):
        scenario_of({"n_gpus": 8})


def test_a_scenario_is_frozen_and_compares_by_value():
    s = Scenario(n_gpus=4096)
    with pytest.raises(AttributeError):
        s.n_gpus = 8
    assert s == Scenario(n_gpus="4096") and hash(s) == hash(Scenario(n_gpus=4096))
    assert s.given() == {"n_gpus": 4096} and Scenario().given() == {}
    assert Scenario(scale=["File system=job", "NIC=link"]).units == {"File system": "job", "NIC": "link"}
    assert Scenario().units is None


def test_report_parameters_map_onto_fields_by_name():
    s = Scenario.from_params({"n_gpus": 8192, "ckpt_cost": "5min", "restart": None, "scale": None, "log": "llama3",
                              "n_boot": 10})
    assert s == Scenario(n_gpus=8192, ckpt_cost="5min")


def test_a_value_passed_on_its_own_wins_over_the_scenario():
    s = Scenario(ckpt_cost="5min", restart="20min")
    m, d, r = 3.0, 5 / 60, 20 / 60
    tau = optimal_interval(m, scenario=s)
    assert tau == optimal_interval(m, "5min")
    daly = tau / (m * math.exp(r / m) * math.expm1((tau + d) / m))  # Daly (2006), exact exponential ETTR
    assert ettr(tau, m, scenario=s) == pytest.approx(daly, rel=1e-12)
    assert ettr(tau, m, "1min", scenario=s) == ettr(tau, m, "1min", "20min")  # the explicit cost wins
    assert "scenario" in inspect.signature(optimal_interval).parameters


def test_the_spare_pool_reads_target_and_repair_time_from_the_scenario():
    s = Scenario(repair_time="100h", spare_target=0.05)
    plan = spare_pool(0.48, scenario=s)  # 48 Erlangs
    # M/M/inf, a swap finds no spare when 48-Erlang Poisson demand reaches the pool: the smallest k with
    # P(N >= k) <= 5%, written here with scipy's Poisson tail
    k = next(k for k in range(200) if stats.poisson.sf(k - 1, 48.0) <= 0.05)
    assert plan.n_spares == k and plan.target == 0.05


def test_requirements_and_decide_take_the_same_scenario():
    s = Scenario(n_gpus=4096, target_ettr=0.85, ckpt_cost="3min", restart="20min", restart_grows=False)
    src = relmodel.datasets.llama3_54day()
    a = decide(src, s, n_boot=200, seed=0)
    b = decide(src, 4096, 0.85, "3min", "20min", restart_grows=False, n_boot=200, seed=0)
    assert a.headline() == b.headline()
    assert (a.n_gpus, a.target_ettr, a.ckpt_cost_h, a.restart_h) == (4096, 0.85, 0.05, 1 / 3)
    c = decide(src, scenario=s, n_gpus=8192, n_boot=200, seed=0)  # a value passed on its own wins
    assert c.n_gpus == 8192 and c.ckpt_cost_h == 0.05
    node = required_node_mtbf(scenario=s, gpus_per_node=8, fixed_rate_per_h=0.0)
    assert node == required_node_mtbf(4096, 0.85, "3min", "20min", 8, fixed_rate_per_h=0.0)
    # independently: the job MTBF whose best Daly ETTR is the target, times the 512 nodes (no per-job causes)
    d, r = 0.05, 1 / 3

    def best(m):
        e = lambda t: t / (m * math.exp(r / m) * math.expm1((t + d) / m))  # noqa: E731
        return -optimize.minimize_scalar(lambda t: -e(t), bounds=(1e-6, 50 * m), method="bounded",
                                         options={"xatol": 1e-12}).fun
    m_star = optimize.brentq(lambda m: best(m) - 0.85, 0.1, 1e4, xtol=1e-12)
    assert node == pytest.approx(512 * m_star, rel=1e-6)


def test_every_default_is_the_scenarios():
    """Functions that take a scenario default each mapped parameter to the field's default (or None, resolved
    from it), so two faces cannot apply two defaults."""
    base = Scenario()
    wrapped = [relmodel.checkpoint.optimal_interval, relmodel.checkpoint.ettr, relmodel.scale.plan_requirements,
               relmodel.scale.required_node_mtbf, relmodel.scale.compare_designs, relmodel.scale.spare_pool,
               relmodel.scale.evaluate_design, relmodel.checkpoint.best_interval]
    wrong = []
    for fn in wrapped:
        params = inspect.signature(fn).parameters
        for param, field in fn.scenario_fields.items():
            d = params[param].default
            if d is inspect.Parameter.empty or d is None:
                continue
            want = getattr(base, field)
            if want is None:  # read from the data; the function's own default is the stated assumption
                continue
            got = relmodel.units.hours(d) if Scenario.field(field).kind.startswith("duration") else d
            if got != pytest.approx(want):
                wrong.append(f"{fn.__name__}({param}={d!r}) but Scenario.{field} = {want!r}")
    assert not wrong, wrong


@pytest.mark.parametrize("path", sorted((REPO / "notebooks").glob("*.ipynb")), ids=lambda p: p.stem)
def test_notebook_parameters_default_to_the_scenario(path):
    params = notebook_parameters(path)
    named = {k: p for k, p in params.items() if k in {f.name for f in FIELDS}}
    base = Scenario()
    for name, p in named.items():
        if name == "gpus_per_node":  # also the observed cluster's: the log's reader takes it (8 when unknown)
            assert p.default == GPUS_PER_NODE
            continue
        assert Scenario.from_params({name: p.default}) == base, (path.name, name, p.default)


@pytest.mark.parametrize("command, names", [
    ("requirements", ("n_gpus", "target_ettr", "ckpt_cost", "restart", "restart_grows", "scale", "units_per_node",
                      "conf")),
    ("interval", ("target_ettr", "ckpt_cost", "restart", "scale", "units_per_node"))])
def test_the_cli_options_are_built_from_the_fields(command, names):
    from relmodel.cli import cli
    opts = {p.name: p for p in cli.commands[command].params}
    for name in names:
        f = Scenario.field(name)
        assert f.option in opts[name].opts + opts[name].secondary_opts or \
            f"{f.option}" in opts[name].opts[0], name
        assert f.help[:20].lower() in opts[name].help.lower(), name
    if "n_gpus" in names:
        assert "--gpus" in opts["n_gpus"].opts  # the old flag still works


def test_takes_scenario_refuses_a_map_to_a_missing_parameter():
    with pytest.raises(TypeError, match="no parameter ckpt"):
        takes_scenario(ckpt="ckpt_cost")(lambda mtbf: mtbf)
    with pytest.raises(ScenarioError, match="no scenario input"):
        takes_scenario(x="not_a_field")


@pytest.mark.parametrize("path", sorted((REPO / "notebooks").glob("*.ipynb")), ids=lambda p: p.stem)
def test_notebooks_declare_each_field_by_its_own_line(path):
    """The parameters cells hold each field's generated line (tools/sync_notebook_parameters.py): one help text and
    one default in the report, the command line and the API."""
    text = "\n".join(c for c in _parameter_cells(path))
    for f in FIELDS:
        if f.name == "gpus_per_node":
            continue
        declared = [line for line in text.splitlines() if line.startswith(f"{f.name}:")]
        assert declared in ([], [f.parameter_line()]), (path.name, declared)


def _parameter_cells(path):
    import json
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"]
            if c["cell_type"] == "code" and "parameters" in c.get("metadata", {}).get("tags", [])]


def test_a_parameter_line_reads_back_as_the_default():
    from relmodel.report.pipeline.params import notebook_parameters
    from conftest import write_notebook
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as tmp:
        nb = write_notebook(Path(tmp) / "p.ipynb", ["\n".join(f.parameter_line() for f in FIELDS) + "\n", "x = 1"])
        params = notebook_parameters(nb)
    assert Scenario.from_params({k: p.default for k, p in params.items()}) == Scenario()
    assert params["ckpt_cost"].comment.startswith(Scenario.field("ckpt_cost").help)


def test_the_docs_list_the_fields_as_the_scenario_says_them():
    """The table of fields (docs/reports.md, where the README links for them) is the one the tool writes."""
    import sys
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import sync_notebook_parameters as sync
    finally:
        sys.path.pop(0)
    assert sync.table_pages() == [REPO / "docs" / "reports.md"]
    for page in sync.table_pages():
        text = page.read_text(encoding="utf-8")
        assert sync.with_table(text) == text, "run python tools/sync_notebook_parameters.py"
        assert all(f"| `{f.name}` |" in text for f in FIELDS)
