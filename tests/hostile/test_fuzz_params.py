"""Property tests of the report parameter parser: any text gives a typed value or a ParameterError."""

import math
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relmodel.errors import ParameterError
from relmodel.report.pipeline import params as P
from relmodel.report.pipeline.run import find_notebooks
from relmodel.report.parameters.rules import DURATIONS

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BY_NOTEBOOK = {p.stem: P.notebook_parameters(p) for p in find_notebooks(["02", "03", "04", "05"])}
NAMES = sorted({n for params in BY_NOTEBOOK.values() for n in params})
SCALARS = (str, int, float, bool, type(None))


def plain(value):
    """str, int, float, bool, None, or a list of those; floats may be non-finite only here."""
    if isinstance(value, list):
        return all(isinstance(v, SCALARS) for v in value)
    return isinstance(value, SCALARS)


def has_declared_type(param, value):
    kind, is_list, nullable = P.TYPES[param.type_name]
    if value is None:
        return nullable
    items = value if is_list else [value]
    if is_list and not isinstance(value, list):
        return False
    for v in items:
        if isinstance(v, float) and not math.isfinite(v):
            return False
        if param.name in DURATIONS:  # durations also take a number of hours
            ok = isinstance(v, (str, int, float)) and not isinstance(v, bool)
        else:
            ok = {"int": isinstance(v, int) and not isinstance(v, bool), "bool": isinstance(v, bool),
                  "float": isinstance(v, (int, float)) and not isinstance(v, bool),
                  "str": isinstance(v, str)}[kind]
        if not ok:
            return False
    return True


yamlish = st.text(alphabet=string.printable + "é·–", max_size=40) | st.sampled_from(
    ["1:00", "010", "1e-3", ".inf", "-.nan", "yes", "~", "[1, 2]", "[a, [b]]", "{a: 1}", "&x 1", "*x",
     "!!binary AAAA", "'quoted'", "\"1:30\"", "0x1F", "0o17", "1_000", "true", "NULL", "- a\n- b"])


@SETTINGS
@given(yamlish)
def test_any_text_is_plain_data_or_a_parameter_error(text):
    try:
        value = P.parse_value(text)
    except ParameterError:
        return
    assert plain(value)


@SETTINGS
@given(st.sampled_from(NAMES), yamlish)
def test_any_value_for_any_parameter_is_typed_and_checked_or_refused(name, text):
    try:
        checked = P.validate({name: P.parse_value(text)}, BY_NOTEBOOK)
    except ParameterError:
        return
    for nb, values in checked.items():
        for key, value in values.items():
            assert plain(value) and has_declared_type(BY_NOTEBOOK[nb][key], value)


@SETTINGS
@given(st.text(alphabet=string.ascii_letters + "/:.", min_size=1, max_size=20), st.text(max_size=20))
def test_tags_are_always_refused(tag, text):
    with pytest.raises(ParameterError):
        P.parse_value(f"!!{tag} {text}")


@SETTINGS
@given(st.integers(min_value=-10**30, max_value=10**30) | st.floats(allow_nan=False, allow_infinity=False))
def test_numbers_round_trip(number):
    value = P.parse_value(repr(number))
    assert value == number and type(value) is type(number)
