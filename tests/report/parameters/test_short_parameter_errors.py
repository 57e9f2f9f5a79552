"""A bad report parameter is refused in one short line that names what is valid (the list capped)."""

import pytest

from conftest import report_cli

LIMIT = 700  # characters of the one error line; the old messages listed every parameter's help: 3,000 to 27,000


def _refused(tmp_path, *args):
    r = report_cli(*args, "--out", tmp_path / "never")
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("relmodel: error: "), r.stderr
    assert len(lines[0]) < LIMIT, len(lines[0])
    assert not (tmp_path / "never").exists()
    return lines[0]


def test_a_parameter_of_another_notebook_says_which_take_it(tmp_path, no_kernel):
    line = _refused(tmp_path, "-n", "07", "-p", "units_per_node=12")
    assert "units_per_node" in line and "07_stragglers" in line and "03, 04, 06" in line


def test_unknown_parameter_lists_names_capped_and_suggests(tmp_path, no_kernel):
    line = _refused(tmp_path, "-p", "n_gpu=1")
    assert "unknown parameter 'n_gpu'" in line and "did you mean 'n_gpus'" in line
    assert "ckpt_cost" in line and "more" in line
    line = _refused(tmp_path, "-n", "03", "-p", "bogus=1")
    assert "unknown parameter 'bogus'" in line and "03_checkpoint_interval" in line and "ckpt_cost" in line


@pytest.mark.parametrize("param, needle", [("n_gpus=abc", "must be int"), ("ckpt_cost=[1, 2]", "ckpt_cost"),
                                           ("units_per_node=abc", "units_per_node")])
def test_a_value_of_the_wrong_type_is_one_short_line(tmp_path, no_kernel, param, needle):
    assert needle in _refused(tmp_path, "-p", param)
