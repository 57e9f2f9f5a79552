"""The report's ``scale`` parameter (what each cause scales with) is checked before any kernel starts."""

import pytest

from relmodel.errors import ParameterError
from relmodel.report.parameters.rules import check_values


@pytest.mark.parametrize("bad", [";", "File system", "File system=", "=job", "File system=rack-ish", [";"], [],
                                 ["Faulty GPU=gpu", "x"]])
def test_scale_that_is_not_cause_equals_unit_is_refused(bad):
    with pytest.raises(ParameterError, match="'scale'"):
        check_values({"scale": bad})


def test_one_pair_is_a_list_of_one():
    # the declared type is list[str]: one CAUSE=UNIT string is taken as a list of one, as the CLI's --scale is
    assert check_values({"scale": "File system=job"}) == {"scale": ["File system=job"]}
    assert check_values({"scale": ["File system=job", "Faulty GPU=gpu"]})["scale"] == ["File system=job",
                                                                                        "Faulty GPU=gpu"]
