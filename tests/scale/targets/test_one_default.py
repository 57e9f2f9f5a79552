"""One default on every face: the planning functions, decide and the CLI take the same restart when none is given
(10 min plus the communicator start-up that grows with the ranks, 265 s at 96K GPUs in proportion), so one question
gets one node MTBF.  The reference is Daly's exact model and the budget rule written here, from Llama 3's Table 5
(per-job causes: software bug 54, NCCL watchdog 7, dependency 2 in 54 days; Meta 2024, arXiv 2407.21783)."""

import math

import pytest
from scipy import optimize

import relmodel
from conftest import run_cli

PER_JOB = (54 + 7 + 2) / (54 * 24.0)


def _daly_best(m, d, r):
    res = optimize.minimize_scalar(lambda x: -math.exp(x) * math.exp(-r / m) / (m * math.expm1((math.exp(x) + d) / m)),
                                   bounds=(math.log(1e-4), math.log(10 * m)), method="bounded",
                                   options={"xatol": 1e-10})
    return -res.fun


def _node_mtbf(n_gpus, target, d, r):
    m = math.exp(optimize.brentq(lambda x: _daly_best(math.exp(x), d, r) - target, math.log(0.01), math.log(1e4),
                                 xtol=1e-12))
    return n_gpus / 8 / (1 / m - PER_JOB)


@pytest.mark.parametrize("n_gpus", [16_384, 65_536])
def test_every_face_takes_the_same_default_restart(n_gpus):
    llama = relmodel.datasets.llama3_54day()
    grown = 10 / 60 + 265 / 3600 * n_gpus / 98_304  # hours: the default restart at this size
    want = _node_mtbf(n_gpus, 0.9, 1 / 60, grown)
    plan = relmodel.scale.plan_requirements(llama, n_gpus, 0.9, "1min", n_boot=100, seed=0)
    assert plan.node_mtbf_h == pytest.approx(want, rel=1e-6)
    assert plan.restart_h == pytest.approx(grown, rel=1e-9)
    assert relmodel.scale.required_node_mtbf(n_gpus, 0.9, "1min", source=llama) == pytest.approx(want, rel=1e-6)
    d = relmodel.decide(llama, n_gpus, 0.9, "1min", n_boot=100, seed=0, simulate=False)
    assert d.required_node_mtbf_h == pytest.approx(want, rel=1e-6)
    res = run_cli("requirements", "--gpus", n_gpus, "--n-boot", 100)
    assert res.exit_code == 0, res.output
    assert f"required node MTBF {relmodel.tables.hours_text(want)}" in res.output
    # a restart given is taken as given, everywhere
    given = _node_mtbf(n_gpus, 0.9, 1 / 60, 10 / 60)
    assert relmodel.scale.plan_requirements(llama, n_gpus, 0.9, "1min", "10min", n_boot=100,
                                      seed=0).node_mtbf_h == pytest.approx(given, rel=1e-6)
    assert relmodel.decide(llama, n_gpus, 0.9, "1min", "10min", n_boot=100, seed=0,
                           simulate=False).required_node_mtbf_h == pytest.approx(given, rel=1e-6)
