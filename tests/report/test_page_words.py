"""Words a page shows for small numbers: ordinals and durations a person reads."""

import pytest

from relmodel.checkpoint.sources import ExponentialFailures
from relmodel.report.interval_page import _every


@pytest.mark.parametrize("k, words", [(1, "every one"), (2, "every 2nd"), (3, "every 3rd"), (4, "every 4th"),
                                      (11, "every 11th"), (12, "every 12th"), (13, "every 13th"), (21, "every 21st"),
                                      (22, "every 22nd"), (101, "every 101st"), (111, "every 111th")])
def test_which_fast_checkpoints_go_to_storage_reads_as_english(k, words):
    assert _every(k) == words


@pytest.mark.parametrize("mtbf_h, words", [(0.05424, "3.3 min"), (5.8, "5.8 h"), (1 / 240, "15 s")])
def test_the_simulated_failure_law_states_its_mtbf_as_a_duration(mtbf_h, words):
    # 0.05424 h x 60 = 3.25 min, shown to two significant figures; 1/240 h = 15 s
    assert ExponentialFailures(mtbf_h).describe() == f"exponential, MTBF {words}"
