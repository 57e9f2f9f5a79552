"""The page modules of pages 01-05: the choices the notebooks used to make inline, checked by hand counts."""

import warnings

import pytest

from relmodel.data.source import load_source
from relmodel.report.notebook_pages import data_page as D, fit_page as F, pages, requirement_page as R


@pytest.fixture(scope="module")
def stepfun():
    return load_source("stepfun")


@pytest.fixture(scope="module")
def llama3():
    return load_source("llama3")


@pytest.mark.parametrize("n, expected", [
    (0, [0, 1]), (3, [0, 1, 2, 3, 4, 5, 6, 7]),  # steps of 1 below 10
    (25, list(range(0, 52, 2)) + [25])])  # steps of 25 // 10 = 2 up to 2 x 25 + 1, and the pool itself
def test_spare_counts(n, expected):
    assert R.spare_counts(n) == sorted(expected)


def test_repairs_come_from_stepfun_only_when_the_data_has_none(stepfun, llama3):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        own, none_said = R.repair_source(stepfun, "exponential")
        borrowed, said = R.repair_source(llama3, "exponential")
    assert none_said is None and "StepFun trace" in str(said)
    assert llama3.has_repairs is False and stepfun.has_repairs is True
    assert own.mean_h == pytest.approx(borrowed.mean_h)  # the same StepFun repairs either way


def test_fitted_durations_follow_the_rule(stepfun):
    d, why = F.fitted_durations(stepfun, "interarrivals")
    assert len(d) == len(stepfun.data.interarrivals()) and "interarrivals" in why
    assert "Fitted: " in str(F.fitted_lead(d, why)) and f"{len(d):,}" in str(F.fitted_lead(d, why))


def test_outage_lengths_block(stepfun, llama3):
    assert D.outage_lengths(llama3) is None and D.outage_lengths_block(None) is None  # a count table has no ends
    lengths = D.outage_lengths(stepfun)
    html = str(D.outage_lengths_block(lengths))
    assert "How long outages last" in html and "Share of outages" in html
    assert html.count("<tr>") == 1 + 3  # header and the rows under 1, 10 and 60 min


def test_cause_mix_only_for_a_kernel_log(stepfun):
    assert D.cause_mix_block(stepfun) is None


def test_fleet_block_is_a_sentence_or_a_reason(llama3):
    fleets, block = D.fleet_block(llama3)
    assert str(block).strip() and (fleets is None) == ("Not compared" in str(block))


def test_the_old_name_still_serves_the_blocks():
    assert pages.source_block is D.source_block and pages.fit_block is F.fit_block
    assert pages.spares_block is R.spares_block


@pytest.mark.parametrize("kind, header", [("uptimes", "Mean up time after a repair"),
                                          ("interarrivals", "Mean gap between interruptions")])
def test_the_fit_tables_means_are_named_for_what_was_fitted(stepfun, kind, header):
    """A table of per-node up times names its means as up times after a repair and says they are not the fleet's
    node MTBF; a table of gaps names them as gaps."""
    from relmodel.stats import compare_fits
    d, _ = F.fitted_durations(stepfun, kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        html = str(F.fit_block(compare_fits(d, ["exponential", "weibull"], n_boot=0), d)).replace("&#x27;", "'")
    assert header in html
    assert ("not the fleet's node MTBF" in html) == (kind == "uptimes")
