"""One argument convention across checkpoint, simulation and requirement functions; same question, same answer."""

import inspect
import json
import math

import pytest
from click.testing import CliRunner
from scipy import optimize

import relmodel
from relmodel.errors import ArgumentOrderWarning, InfeasibleTargetError, ModelInputError

RANK = {"work": 0, "interval": 1, "step": 1, "mtbf": 2, "failures": 2, "ckpt_cost": 3, "fast_cost": 3,
        "slow_cost": 3.1, "persist": 3.2, "restart": 4, "fast_restart": 4, "slow_restart": 4.1}
LLAMA_H, LLAMA_JOB = 54 * 24, 63  # Llama 3 (arXiv 2407.21783) Table 5: 54 days; 63 per-job interruptions


def _functions():
    for mod in (relmodel.checkpoint, relmodel.scale):
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isfunction(obj):
                yield name, obj


@pytest.mark.parametrize("name, fn", list(_functions()), ids=lambda x: x if isinstance(x, str) else "")
def test_durations_come_in_one_order(name, fn):
    names = [p.name for p in inspect.signature(fn).parameters.values()
             if p.name in RANK and p.kind != p.KEYWORD_ONLY]  # optional extras are keyword-only
    ranks = [RANK[p] for p in names]
    assert ranks == sorted(ranks), f"{name}{inspect.signature(fn)}: durations out of order {names}"


def test_the_documented_signatures():
    sig = {n: [p for p in inspect.signature(getattr(relmodel.checkpoint, n)).parameters if p != "scenario"][:5] for n in
           ("young_interval", "daly_interval", "optimal_interval", "ettr", "time_breakdown", "simulate_training")}
    assert sig["young_interval"] == sig["daly_interval"] == ["mtbf", "ckpt_cost"]
    assert sig["optimal_interval"][:2] == ["mtbf", "ckpt_cost"]
    assert sig["ettr"] == ["interval", "mtbf", "ckpt_cost", "restart"]
    assert sig["time_breakdown"] == ["work", "interval", "mtbf", "ckpt_cost", "restart"]
    assert sig["simulate_training"] == ["work", "interval", "failures", "ckpt_cost", "restart"]


def test_keyword_calls_with_the_common_names():
    m, d, r = 3.0, 45 / 3600, 10 / 60
    tau = relmodel.optimal_interval(mtbf="3h", ckpt_cost="45s")
    daly = tau / (m * math.exp(r / m) * math.expm1((tau + d) / m))  # Daly (2006) closed form
    assert relmodel.ettr(interval=tau, mtbf="3h", ckpt_cost="45s", restart="10min") == pytest.approx(daly)
    assert relmodel.checkpoint.young_interval(ckpt_cost="45s", mtbf="3h") == pytest.approx(math.sqrt(2 * d * m))
    b = relmodel.checkpoint.time_breakdown(work="10d", interval=tau, mtbf="3h", ckpt_cost="45s", restart="10min")
    assert b.ettr == pytest.approx(daly)


@pytest.mark.parametrize("call, order", [
    (lambda: relmodel.checkpoint.young_interval("45s", "3h"), r"young_interval\(mtbf, ckpt_cost\)"),
    (lambda: relmodel.checkpoint.daly_interval("45s", "3h"), r"daly_interval\(mtbf, ckpt_cost\)"),
    (lambda: relmodel.optimal_interval("45s", "3h"), r"optimal_interval\(mtbf, ckpt_cost\)"),
    (lambda: relmodel.ettr("16min", "45s", "3h", "10min"), r"ettr\(interval, mtbf, ckpt_cost, restart\)"),
    # the 0.1 README's call: work and interval missing their places
    (lambda: relmodel.checkpoint.time_breakdown(0.27, "3h", "45s", "10min"), r"time_breakdown\(work, interval, mtbf"),
    (lambda: relmodel.checkpoint.time_breakdown("1h", "16min", "3h", "45s", "10h"), "restart .* longer than the whole run"),
    (lambda: relmodel.checkpoint.async_ettr("16min", "5s", "3h", "2min"), r"async_ettr\(interval, mtbf, ckpt_cost"),
    (lambda: relmodel.checkpoint.best_step_interval("4s", "45s", "3h"), r"best_step_interval\(step, mtbf"),
    (lambda: relmodel.checkpoint.compare_intervals("45s", "3h"), r"compare_intervals\(mtbf, ckpt_cost"),
])
def test_swapped_calls_warn_naming_the_order(call, order):
    with pytest.warns(ArgumentOrderWarning, match=order):
        call()


def test_old_simulate_order_is_refused_with_the_new_order():
    class Fit:  # a fitted distribution where a duration belongs
        mean_h = 3.0

        def ppf(self, q):
            return -3.0 * math.log1p(-q)

    with pytest.raises(ModelInputError, match=r"simulate_training\(work, interval, failures, ckpt_cost, restart\)"):
        relmodel.simulate_training("2d", "16min", "45s", "10min", Fit(), n_runs=10, seed=1)


def test_old_two_level_order_fails_loudly():
    with pytest.raises(TypeError):
        relmodel.checkpoint.two_level_optimum("3h", "5s", "2min", 0.8, "2min", "10min")  # fast_fraction is keyword-only


def test_quiet_when_the_order_is_right():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tau = relmodel.optimal_interval("3h", "45s")
        relmodel.checkpoint.time_breakdown("54d", tau, "3h", "45s", "10min")
        relmodel.checkpoint.compare_intervals("3h", "45s", "10min", work="10d", step="7s", persist="2min")
        relmodel.scale.required_node_mtbf(1_000_000, 0.5, "30min", "1h", fixed_rate_per_h=0)


# --- same question, same answer: required_node_mtbf and plan_requirements ---


def _required_job_mtbf(target, d, r):
    def best(m):
        res = optimize.minimize_scalar(lambda t: -t / (m * math.exp(r / m) * math.expm1((t + d) / m)),
                                       bounds=(1e-6, 10 * m), method="bounded", options={"xatol": 1e-12})
        return -res.fun
    return math.exp(optimize.brentq(lambda x: best(math.exp(x)) - target, -5, 15, xtol=1e-12))


def test_same_question_same_answer(llama3):
    plan = relmodel.scale.plan_requirements(llama3, 16_384, 0.9, "1min", "10min", n_boot=200, seed=0)
    by_source = relmodel.scale.required_node_mtbf(16_384, 0.9, "1min", "10min", source=llama3)
    by_rate = relmodel.scale.required_node_mtbf(16_384, 0.9, "1min", "10min", fixed_rate_per_h=plan.fixed_rate_per_h)
    want = 2048 / (1 / _required_job_mtbf(0.9, 1 / 60, 10 / 60) - LLAMA_JOB / LLAMA_H)
    assert plan.node_mtbf_h == pytest.approx(want, rel=1e-6)
    assert by_source == pytest.approx(plan.node_mtbf_h, rel=1e-12) == by_rate
    assert plan.fixed_rate_per_h == pytest.approx(LLAMA_JOB / LLAMA_H)
    gpu = relmodel.scale.required_gpu_mtbf(16_384, 0.9, "1min", "10min", source=llama3)
    assert gpu == pytest.approx(plan.gpu_mtbf_h, rel=1e-12)


def test_same_answer_when_out_of_reach(llama3):
    # the case: 0.95 at 32,768 GPUs with a 2 min checkpoint and 15 min restart
    plan = relmodel.scale.plan_requirements(llama3, 32_768, 0.95, "2min", "15min", n_boot=200, seed=0)
    assert not plan.feasible
    with pytest.raises(InfeasibleTargetError, match="out of reach"):
        relmodel.scale.required_node_mtbf(32_768, 0.95, "2min", "15min", source=llama3)
    # counting every interruption against the nodes is another question, with another answer
    other = relmodel.scale.required_node_mtbf(32_768, 0.95, "2min", "15min", fixed_rate_per_h=0)
    assert other == pytest.approx(4096 * _required_job_mtbf(0.95, 2 / 60, 0.25), rel=1e-6)


def test_the_rate_must_be_stated(llama3):
    with pytest.raises(ModelInputError, match="fixed_rate_per_h=.*source="):
        relmodel.scale.required_node_mtbf(16_384, 0.9, "1min", "10min")
    with pytest.raises(ModelInputError):
        relmodel.scale.required_node_mtbf(16_384, 0.9, fixed_rate_per_h=0, source=llama3)
    with pytest.raises(ModelInputError):
        relmodel.scale.requirements_table([1000])


def test_the_assumption_is_named_everywhere(llama3):
    said = f"held at {24 * LLAMA_JOB / LLAMA_H:.1f} a day"
    plan = relmodel.scale.plan_requirements(llama3, 16_384, n_boot=200, seed=0)
    assert said in plan.assumption and said in plan.text() and said in plan._repr_html_() and said in repr(plan)
    t = relmodel.scale.requirements_table([16_384], source=llama3)
    assert said in t.attrs["assumption"]
    assert "every interruption counted against the nodes" in relmodel.scale.requirements_table(
        [16_384], fixed_rate_per_h=0).attrs["assumption"]
    from relmodel.cli import cli
    out = CliRunner().invoke(cli, ["requirements", "--gpus", "16384", "--n-boot", "200"])
    assert out.exit_code == 0 and said in out.output
    js = CliRunner().invoke(cli, ["requirements", "--gpus", "16384", "--n-boot", "200", "--format", "json"])
    assert said in json.loads(js.output)["assumption"]


def test_import_relmodel_stays_light():
    # heavy libraries load when first used (a plot, a lifelines fit, a report, a widget); bench/bench_import.py
    # times the import itself
    import subprocess
    import sys
    from conftest import REPO
    code = ("import sys, relmodel; heavy = ['lifelines', 'matplotlib', 'nbformat', 'papermill', 'ipywidgets']; "
            "print([m for m in heavy if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- one vocabulary over the whole public API ---

OLD_SIZES = {"replicas", "n_sim", "n_failures", "confirm_replicas", "n_samples"}   # Monte Carlo sizes are n_runs
OLD_DATA = {"data", "log", "src", "df", "frame"}                                    # the data argument is source
# a factor (1 + slowdown) is named so only where it is shown; no public argument is one now
FACTOR_SHOWN = set()
SIZE_NAMES = ("n_gpus", "sizes", "cluster")


def _public_functions():
    import importlib
    import pkgutil
    seen = {}
    for sub in ("stats", "scale", "checkpoint", "stragglers", "data"):
        pkg = importlib.import_module(f"relmodel.{sub}")
        for mod in [pkg] + [importlib.import_module(i.name) for i in pkgutil.walk_packages(pkg.__path__, sub and
                                                                                          pkg.__name__ + ".")]:
            for name in getattr(mod, "__all__", []):
                obj = getattr(mod, name, None)
                if inspect.isfunction(obj) and not name.startswith("_"):
                    seen.setdefault(f"{obj.__module__}.{obj.__name__}", obj)
    return sorted(seen.items())


PUBLIC = _public_functions()


def test_the_vocabulary_holds_over_the_public_api():
    bad = []
    for name, fn in PUBLIC:
        params = list(inspect.signature(fn).parameters.values())
        names = [p.name for p in params]
        bad += [f"{name}({p}=): Monte Carlo sizes are n_runs" for p in names if p in OLD_SIZES]
        if params and params[0].name in OLD_DATA:
            bad.append(f"{name}({params[0].name}, ...): the data argument is source")
        if fn.__name__ not in FACTOR_SHOWN:
            bad += [f"{name}({p}=): a slowdown is a fraction" for p in names if p.endswith("factor")]
        seed = inspect.signature(fn).parameters.get("seed")
        if seed is not None and seed.default is not None and seed.default is not inspect.Parameter.empty:
            bad.append(f"{name}(seed={seed.default!r}): seed=None means fresh entropy")
    assert not bad, "\n".join(bad)


def test_target_ettr_comes_right_after_the_size():
    bad = []
    for name, fn in PUBLIC:
        names = list(inspect.signature(fn).parameters)
        size = next((n for n in names if n in SIZE_NAMES), None)
        if "target_ettr" in names and size is not None and names.index("target_ettr") != names.index(size) + 1:
            bad.append(f"{name}{inspect.signature(fn)}")
    assert not bad, "\n".join(bad)
    assert list(inspect.signature(relmodel.scale.compare_designs).parameters)[:6] == [
        "designs", "source", "n_gpus", "target_ettr", "ckpt_cost", "restart"]
    assert list(inspect.signature(relmodel.scale.optics_requirements).parameters)[:2] == ["sizes", "target_ettr"]


@pytest.mark.parametrize("name, fn", [(n, f) for n, f in PUBLIC if n.startswith(("relmodel.checkpoint", "relmodel.scale",
                                                                                 "relmodel.stragglers"))],
                         ids=lambda x: x.rpartition(".")[2] if isinstance(x, str) else "")
def test_keyword_only_durations_come_in_one_order_too(name, fn):
    params = inspect.signature(fn).parameters.values()
    if any(p.name in RANK and p.kind != p.KEYWORD_ONLY for p in params):
        return                                       # positional durations: test_durations_come_in_one_order
    names = [p.name for p in params if p.name in RANK]
    assert [RANK[p] for p in names] == sorted(RANK[p] for p in names), f"{name}: durations out of order {names}"


def test_keyword_only_reorders_change_no_answer():
    # Daly (2006) ETTR at the exact optimum, times the share not lost to stragglers
    m, d, r = 10.0, 5 / 60, 10 / 60
    tau = relmodel.optimal_interval(m, d)
    daly = tau / (m * math.exp(r / m) * math.expm1((tau + d) / m))
    g = relmodel.stragglers.goodput_with_stragglers(mtbf="10h", ckpt_cost="5min", restart="10min", straggler_loss=0.05)
    assert g == pytest.approx(0.95 * daly, rel=1e-9)
