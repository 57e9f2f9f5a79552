"""Slurm host lists: expansion checked against lists written out by hand, and the round trip."""

import numpy as np
import pytest

from relmodel.data.formats.nodelist import compress_nodelist, count_nodelist, expand_nodelist
from relmodel.errors import LogFormatError


@pytest.mark.parametrize("text, names", [
    ("gpu[0001-0003]", ["gpu0001", "gpu0002", "gpu0003"]),
    ("gpu[0009-0011,0020]", ["gpu0009", "gpu0010", "gpu0011", "gpu0020"]),
    ("n[8-10]", ["n8", "n9", "n10"]),
    ("tux[0-1],login1,tux7", ["tux0", "tux1", "login1", "tux7"]),
    ("r[1-2]-g[08-09]", ["r1-g08", "r1-g09", "r2-g08", "r2-g09"]),
    ("a[1,3]b[5]c", ["a1b5c", "a3b5c"]),
    ("single", ["single"]),
    ("None assigned", []),
    ("", []),
])
def test_expansion_matches_the_hand_written_names(text, names):
    assert expand_nodelist(text) == names


def test_counts_of_the_issue_example():
    # gpu[0001-0233,0235-0513]: 233 + (513 - 235 + 1) = 233 + 279 = 512 by hand
    assert count_nodelist("gpu[0001-0233,0235-0513]") == 512
    names = expand_nodelist("gpu[0001-0233,0235-0513]")
    assert "gpu0234" not in names and names[232] == "gpu0233" and names[233] == "gpu0235"


def test_round_trip_of_random_sets():
    rng = np.random.default_rng(7)
    for _ in range(50):
        picked = sorted(set(rng.integers(1, 2000, int(rng.integers(1, 300)))))
        names = [f"gpu{i:04d}" for i in picked] + ["login1"]
        assert expand_nodelist(compress_nodelist(names)) == names


@pytest.mark.parametrize("bad, what", [("gpu[1-3", "without"), ("gpu1-3]", "without"), ("gpu[3-1]", "backwards"),
                                       ("gpu[a-b]", "cannot read"), ("g[[1]]", "inside")])
def test_malformed_lists_are_named_errors(bad, what):
    with pytest.raises(LogFormatError, match=what):
        expand_nodelist(bad)
