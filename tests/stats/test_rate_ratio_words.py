"""A rate comparison says its ratio with significant digits: 0.0037 is not "0.00 times"."""

import re

import pytest

from relmodel.stats.rates.comparison import compare_rates
from conftest import run_cli


def test_small_ratio_keeps_its_digits():
    c = compare_rates((3, 10_000.0), (810, 10_000.0), per="job")
    assert c.ratio == pytest.approx(3 / 810)
    text = c.text()
    assert "0.0037 times" in text and "0.00 times" not in text
    assert re.search(r"interval [<\d.\s]+ to 0\.0109", text), text
    assert "0.00 to 0.01" not in c._repr_html_()


def test_ordinary_and_unbounded_ratios():
    assert "3 times" in compare_rates((30, 10_000.0), (10, 10_000.0), per="job").text()
    text = compare_rates((3, 10.0), (0, 10.0), per="job").text()
    assert "inf" not in text and "has none" in text and "no upper bound" in text


def test_cli_compare_table_keeps_small_rates():
    r = run_cli("rates", "stepfun", "--compare", "llama3")
    assert r.exit_code == 0, r.output
    assert "1.1 times" in r.output and "4.169" in r.output
