"""No silent misreads: durations, times, node ids and models (second hostile corpus, kind 3),
with Hypothesis strategies that generate each class.

Expected values are computed here from a unit table and ``datetime`` arithmetic written in
this file, not by the code under test.
"""

import csv
import datetime as dt
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import relmodel
from relmodel.errors import (CountError, DurationError, LogFormatError, ModelInputError, RelmodelError,
                             TimeParseError)

#: Hours per unit, written out independently of relmodel.units.
HOURS = {"s": 1 / 3600, "min": 1 / 60, "h": 1.0, "d": 24.0, "w": 168.0}

# --- strategies -----------------------------------------------------------------------------------

parts = st.lists(st.tuples(st.integers(0, 999), st.sampled_from(sorted(HOURS))), min_size=1, max_size=3)


@st.composite
def durations(draw):
    """A compound duration in the documented grammar and its value in hours."""
    items, sign = draw(parts), draw(st.sampled_from(["", "+", "-"]))
    text = sign + "".join(f"{n}{u}" for n, u in items)
    value = sum(n * HOURS[u] for n, u in items)
    return text, -value if sign == "-" else value


@st.composite
def inner_signs(draw):
    """A compound duration with a sign inside it (``1h-30min``): not in the grammar."""
    first, rest = draw(parts), draw(parts)
    return "".join(f"{n}{u}" for n, u in first) + draw(st.sampled_from("+-")) + "".join(f"{n}{u}" for n, u in rest)


@st.composite
def zoned_times(draw):
    """A local time written with ``UTC+h`` / ``UTC-h`` and the UTC moment it means."""
    when = draw(st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2030, 1, 1)))
    when = when.replace(second=0, microsecond=0)
    shift = draw(st.integers(-11, 12))
    sign = "+" if shift >= 0 else "-"
    return f"{when:%Y-%m-%d %H:%M} UTC{sign}{abs(shift)}", when - dt.timedelta(hours=shift)


node_ids = st.lists(st.one_of(st.from_regex(r"0{0,3}[1-9][0-9]{0,2}", fullmatch=True),
                              st.sampled_from(["1e3", "1000", "1.0", "1", "7", "07", "007", "n-01", "n01"])),
                    min_size=2, max_size=8, unique=True)

# --- durations ------------------------------------------------------------------------------------


@given(durations())
def test_compound_durations_in_the_grammar_are_read_exactly(case):
    text, expected = case
    assert relmodel.units.hours(text) == pytest.approx(expected, rel=1e-12, abs=1e-12)


@given(inner_signs())
def test_a_sign_inside_a_duration_is_an_error(text):
    with pytest.raises(DurationError, match="sign only in front"):
        relmodel.units.hours(text)


@pytest.mark.parametrize("text, expected", [("1h30min", 1.5), ("-1h30min", -1.5), ("+2h", 2.0), ("90min", 1.5)])
def test_documented_examples(text, expected):
    assert relmodel.units.hours(text) == expected


@pytest.mark.parametrize("value", [10**400, -(10**400)])
def test_huge_numbers_are_named_errors_with_short_messages(value):
    with pytest.raises(DurationError) as err:
        relmodel.units.hours(value)
    assert len(str(err.value)) < 300


@pytest.mark.parametrize("mtbf", [-5.0, 0.0, float("nan")])
def test_fit_of_a_non_positive_mtbf_is_an_error(mtbf):
    with pytest.raises(ModelInputError):
        relmodel.units.fit_from_mtbf(mtbf)
    assert relmodel.units.fit_from_mtbf(1e6) == 1000.0  # 10^9 / 10^6, by hand


# --- times ----------------------------------------------------------------------------------------


def _log(tmp_path, rows, header=("t",), **kw):
    path = tmp_path / "log.csv"
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows([list(header)] + [list(r) for r in rows])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return relmodel.read_log(path, start=header[0], **kw)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(zoned_times(), min_size=2, max_size=4, unique_by=lambda c: c[1]))
def test_utc_plus_is_east_of_greenwich(tmp_path, cases):
    log = _log(tmp_path, [(text,) for text, _ in cases])
    moments = sorted(m for _, m in cases)
    expected = [(m - moments[0]).total_seconds() / 3600 for m in moments]
    assert sorted(log.events["start_h"].tolist()) == pytest.approx(expected)


def test_time_format_applies_to_csv_dates(tmp_path):
    log = _log(tmp_path, [("2024-01-02",), ("2024-01-05",)], time_format="%Y-%d-%m")
    # 1 Feb and 1 May 2024: 29 + 31 + 30 days apart, by hand
    assert log.events["start_h"].tolist() == [0.0, (29 + 31 + 30) * 24.0]


@pytest.mark.parametrize("fmt", ["%d/%m/%Y", "%Y"])
def test_a_time_format_that_does_not_match_is_an_error(tmp_path, fmt):
    with pytest.raises(TimeParseError, match="cannot read"):
        _log(tmp_path, [("2024-01-02",), ("2024-01-05",)], time_format=fmt)


@pytest.mark.parametrize("fmt", ["%%", "no directive"])
def test_a_format_without_a_directive_is_an_error(tmp_path, fmt):
    with pytest.raises(TimeParseError, match="directive"):
        _log(tmp_path, [("2024-01-02",)], time_format=fmt)


@pytest.mark.parametrize("word", ["now", "today", "Today", "yesterday"])
def test_relative_words_are_not_times(tmp_path, word):
    with pytest.raises(TimeParseError, match="not a time"):
        _log(tmp_path, [("2024-01-02T00:00:00",), (word,)])


@pytest.mark.parametrize("bare", ["12:30", "12:30:15", "3:05 pm"])
def test_times_without_a_date_are_errors(tmp_path, bare):
    with pytest.raises(TimeParseError):
        _log(tmp_path, [(bare,), ("13:45",)])


@pytest.mark.parametrize("naive", ["2024-01-02 10:00", "2024-01-02"])  # a bare date ends in "-02", no offset
def test_a_time_without_offset_beside_an_offset_is_an_error(tmp_path, naive):
    with pytest.raises(RelmodelError, match="offset"):
        _log(tmp_path, [(naive,), ("2024-01-03T10:00:00-05:00",)])


# --- node ids -------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(node_ids)
def test_node_ids_are_read_as_written(tmp_path, ids):
    rows = [(f"2024-01-{i + 1:02d}T00:00:00", n) for i, n in enumerate(ids)]
    log = _log(tmp_path, rows, header=("t", "node"), node="node")
    assert sorted(log.events["node"].unique()) == sorted(ids)
    assert log.n_nodes == len(ids)


@pytest.mark.parametrize("missing", ["", "NA", "NULL"])
def test_missing_node_names_are_errors_naming_the_rows(tmp_path, missing):
    rows = [("2024-01-01T00:00:00", "n1"), ("2024-01-02T00:00:00", missing), ("2024-01-03T00:00:00", "n2")]
    with pytest.raises(LogFormatError, match="row 2"):
        _log(tmp_path, rows, header=("t", "node"), node="node")


def test_spaces_are_trimmed_on_both_sides(tmp_path):
    rows = [("2024-01-01T00:00:00", " a"), ("2024-01-02T00:00:00", "a "), ("2024-01-03T00:00:00", " a ")]
    log = _log(tmp_path, rows, header=("t", "node"), node="node")
    assert log.events["node"].unique().tolist() == ["a"]


def test_joined_node_columns_cannot_collide(tmp_path):
    rows = [("2024-01-01T00:00:00", "a/b", "c"), ("2024-01-02T00:00:00", "a", "b/c")]
    with pytest.raises(LogFormatError, match="'/'"):
        _log(tmp_path, rows, header=("t", "rack", "slot"), node=["rack", "slot"])


def test_n_nodes_below_the_nodes_seen_is_an_error(tmp_path):
    rows = [(f"2024-01-0{i}T00:00:00", f"n{i}") for i in range(1, 4)]
    with pytest.raises(CountError, match="names 3 nodes"):
        _log(tmp_path, rows, header=("t", "node"), node="node", n_nodes=1)
    assert _log(tmp_path, rows, header=("t", "node"), node="node", n_nodes=3).n_nodes == 3
