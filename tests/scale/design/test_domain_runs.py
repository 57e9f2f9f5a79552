"""Run counts capped by the events inside each run (spare domains, shelf over time), by hand counts."""

import doctest

import relmodel.budget_guard
import relmodel.scale.design.domain_runs
from relmodel.budget_guard import budget, runs_within
from relmodel.scale.design.compound import DomainModel
from relmodel.scale.design.domain_runs import expected_items, runs_for


def test_items_per_run_and_the_runs_they_allow():
    m = DomainModel(groups=10, trays=18, spares=1, tray_rate=1e-3)
    # hand count: 10 x 18 trays at 1e-3 per hour = 0.18 failures an hour; a run of 168 h holds those failing
    # in it and those already in repair at its start (0.18 x 24 h): 0.18 x (168 + 24) = 34.56 parts in repair
    assert abs(expected_items(m, "24h", horizon="7d") - 34.56) < 1e-12
    assert runs_for(m, "24h", 5_000) == 5_000                         # 172,800 items: under 250,000
    assert runs_for(m, "24h", 10_000) == 7_233                        # 345,600 items: 250,000 // 34.56
    assert runs_for(m, "24h", 10_000, enough=10_000) == 289            # 10,000 // 34.56
    assert runs_for(m, "24h", 10_000, enough=100) == 10                # never below 10 runs
    # nor above the budget: 34.56 parts a run cost 128 + 160 x 34.56 bytes
    with budget(memory=100.5 * (128 + 160 * 34.56)):
        assert runs_for(m, "24h", 10_000) == 100
    with budget(memory=1_000):                                        # not one run fits: no simulated check
        assert runs_for(m, "24h", 10_000) == 0


def test_the_shared_cap():
    assert runs_within(500, 79_920, 2e7) == 250                        # 20,000,000 // 79,920
    assert runs_within(500, 0.0, 10) == 500                            # nothing inside a run: all asked
    assert runs_within(5, 1e12, 10) == 1 and runs_within(5, 1e12, 10, least=3) == 3


def test_their_examples_run():
    for module in (relmodel.scale.design.domain_runs, relmodel.budget_guard):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, module.__name__
