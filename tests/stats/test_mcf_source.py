"""compare_mcf takes its data as source, the two fleets named by a mapping's keys (the pair of 0.2 is gone).

The reference numbers are hand counts: with every system watched over the
same window, an MCF at the end is the mean count per system and Nelson's
variance is sum (n_i - mean)^2 / m^2 (Nelson, Recurrent Events Data
Analysis, SIAM 2003).
"""

import math

import pytest

import relmodel
from relmodel.errors import FitError, InputTypeError
from relmodel.stats.survival.group_tests import compare_mcf

# old fleet: systems a, b, c, d fail 2, 1, 0, 0 times in 50 h; new fleet: 2, 1, 1, 1
OLD = dict(source=[10.0, 40.0, 25.0], node=["a", "a", "b"], start=0.0, end=50.0, n_systems=4)
NEW = dict(source=[5.0, 15.0, 20.0, 35.0, 45.0], node=list("aabcd"), start=0.0, end=50.0, n_systems=4)
VAR_OLD = ((2 - 0.75) ** 2 + (1 - 0.75) ** 2 + 2 * 0.75 ** 2) / 16
VAR_NEW = ((2 - 1.25) ** 2 + 3 * (1 - 1.25) ** 2) / 16
Z = (0.75 - 1.25) / math.sqrt(VAR_OLD + VAR_NEW)


def _pair():
    return relmodel.stats.mcf(**OLD), relmodel.stats.mcf(**NEW)


def test_a_mapping_names_the_two_fleets():
    old, new = _pair()
    c = compare_mcf({"old": old, "new": new}, at=50.0)
    assert c.names == ("old", "new") and c.difference == pytest.approx(-0.5, abs=1e-12)
    assert c.z == pytest.approx(Z, rel=1e-9) and c.p == pytest.approx(math.erfc(abs(Z) / math.sqrt(2)), rel=1e-9)
    assert list(c.by_time.columns[:3]) == ["hours", "MCF old", "MCF new"] and set(c.curves) == {"old", "new"}
    swapped = relmodel.stats.compare_mcf(source={"new": new, "old": old}, at=50.0)
    assert swapped.difference == pytest.approx(0.5, abs=1e-12) and swapped.names == ("new", "old")


def test_the_pair_of_0_2_is_refused():
    old, new = _pair()
    with pytest.raises(TypeError):
        compare_mcf(old, new, names=("old", "new"), at=50.0)
    with pytest.raises(InputTypeError, match="names= but no log"):
        compare_mcf({"a": old, "b": new}, names=("x", "y"))


def test_what_is_not_two_named_fleets_is_refused_by_name():
    old, new = _pair()
    with pytest.raises(FitError, match=r"source=\{name: MCF, other name: MCF\}.*got a mapping of 3 entries"):
        compare_mcf({"a": old, "b": new, "c": old})
    with pytest.raises(FitError, match="got StepEstimate"):
        compare_mcf(old)
    with pytest.raises(TypeError):
        compare_mcf(old, new, old)
