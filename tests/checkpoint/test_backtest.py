"""backtest: a run counted by hand, and a simulated exponential run where model and log must agree."""

import numpy as np
import pytest

from relmodel import read_sacct, read_log
from relmodel.checkpoint import backtest
from relmodel.checkpoint.intervals import ettr
from relmodel.data.formats.synthetic_ops import synthetic_sacct
from relmodel.errors import ModelInputError

TEXT = """JobID|JobName|State|ExitCode|Start|End
1|run|NODE_FAIL|0:0|2024-03-01T00:00:00|2024-03-01T10:15:00
2|run|FAILED|1:0|2024-03-01T11:15:00|2024-03-01T14:00:00
3|run|TIMEOUT|0:15|2024-03-01T14:30:00|2024-03-02T00:00:00
"""


def test_a_run_counted_by_hand():
    b = backtest(read_sacct(TEXT), "1h", "6min", startup="3min")
    # wall 24 h; running 10.25 + 2.75 + 9.5 = 22.5 h; gaps 1 h and 0.5 h
    assert (b.wall_h, b.running_h, b.interruptions, b.mean_gap_h) == pytest.approx((24, 22.5, 2, 0.75))
    # segments after the 3-min load: 10.2 h, 2.7 h, 9.45 h; cycles of 1.1 h:
    #   seg 1 (interrupted): 9 cycles = 9 h useful, 0.9 h writes, 0.3 h lost
    #   seg 2 (interrupted): 2 cycles = 2 h useful, 0.2 h writes, 0.5 h lost
    #   seg 3 (time limit, saved): 8 cycles = 0.8 h writes, 9.45 - 0.8 = 8.65 h useful
    f = b.to_frame().set_index("part")["observed_h"]
    assert f["useful"] == pytest.approx(19.65)
    assert f["checkpoint writes"] == pytest.approx(1.9)
    assert f["lost work"] == pytest.approx(0.8)
    assert f["restarts"] == pytest.approx(24 - 19.65 - 1.9 - 0.8)
    assert b.observed_ettr == pytest.approx(19.65 / 24) and b.availability == pytest.approx(22.5 / 24)
    # the model: MTBF 22.5 / 2 = 11.25 h, restart 0.75 h + 3 min
    assert b.predicted_ettr == pytest.approx(float(ettr(1.0, 11.25, 0.1, 0.8)))
    assert sum(b.predicted.values()) == pytest.approx(24)
    assert "lost work is not in sacct" in b.text() and len(b.table()) == 4


def test_model_and_log_agree_on_a_simulated_exponential_run():
    truth = synthetic_sacct(seed=21, days=120, nodes=500)
    b = backtest(read_sacct(truth.text, job="pretrain"), "40min", "1min")
    # exponential failures: Daly's model should predict what the log shows within a point
    assert abs(b.observed_ettr - b.predicted_ettr) < 0.01
    assert b.availability == pytest.approx(truth.extra["running_h"] / truth.extra["wall_h"], abs=1e-4)


def test_a_log_without_segments_is_refused():
    import pandas as pd
    log = read_log(pd.DataFrame({"t": [1.0, 5.0]}), start="t", time_unit="h", window=(0, 10))
    with pytest.raises(ModelInputError, match="read_sacct"):
        backtest(log, "1h", "1min")
    with pytest.raises(ModelInputError, match="interval must be above 0"):
        backtest(read_sacct(TEXT), 0, "1min")
