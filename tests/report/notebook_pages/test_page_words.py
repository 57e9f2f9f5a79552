"""Words a page shows for small numbers: ordinals and durations a person reads."""

import pytest

from relmodel.checkpoint.sources import ExponentialFailures
from relmodel.report.notebook_pages.interval_page import _every


@pytest.mark.parametrize("k, words", [(1, "every one"), (2, "every 2nd"), (3, "every 3rd"), (4, "every 4th"),
                                      (11, "every 11th"), (12, "every 12th"), (13, "every 13th"), (21, "every 21st"),
                                      (22, "every 22nd"), (101, "every 101st"), (111, "every 111th")])
def test_which_fast_checkpoints_go_to_storage_reads_as_english(k, words):
    assert _every(k) == words


@pytest.mark.parametrize("mtbf_h, words", [(0.05424, "3.3 min"), (5.8, "5.8 h"), (1 / 240, "15 s")])
def test_the_simulated_failure_law_states_its_mtbf_as_a_duration(mtbf_h, words):
    # 0.05424 h x 60 = 3.25 min, shown to two significant figures; 1/240 h = 15 s
    assert ExponentialFailures(mtbf_h).describe() == f"exponential, MTBF {words}"


def test_the_sizes_table_always_has_the_jobs_own_size():
    from relmodel.report.notebook_pages.requirement_page import table_sizes
    assert table_sizes([4096, 131072, 8192], 1048576) == [4096, 8192, 131072, 1048576]
    assert table_sizes([4096, 16384], 16384) == [4096, 16384]  # already there: not twice


def test_the_spare_pool_sentence_groups_thousands():
    import pandas as pd
    from types import SimpleNamespace
    from relmodel.report.notebook_pages.requirement_page import spares_block
    plan = SimpleNamespace(n_spares=2221, n_spares_lo=1991, n_spares_hi=2450, p_no_spare=0.0097, offered_load=2112.4)
    html = spares_block(plan, pd.DataFrame({"spares": [2221], "ettr": [0.019]}), 0.01)._repr_html_()
    assert "Keep 2,221 spare nodes (1,991–2,450" in html and "2221" not in html


def test_designs_page_says_when_its_what_ifs_have_nothing_to_move():
    """A log with no GPU and no link failures (a Slurm export's NODE_FAIL only): no "0 FIT" table and no
    "from 84.1% to 84.1% (0.0 points)"; each section says why there is nothing to show."""
    from types import SimpleNamespace as NS
    import pandas as pd
    from relmodel.report.notebook_pages.design_page import sensitivity_block, tolerance_block
    frame = pd.DataFrame({"domain_fit": [0.0] * 3, "ettr": [0.841] * 3, "stall_share": [0.0] * 3,
                          "goodput_per_gpu": [0.6] * 3})
    html = str(sensitivity_block(NS(frame=frame, gpu_fit=0.0, name="NVL72")))
    assert "holds no GPU failures" in html and "<table" not in html and "(0 FIT)" not in html
    same = NS(ettr=0.841, interruption_rate=0.15, absorbed_rate=0.0, job_mtbf_h=6.7)
    html = str(tolerance_block(NS(name="NVL72", before=same, after=same, tolerated={"link": 0.9}, ettr_gain=0.0)))
    assert "hold no network link failures" in html and "84.1% either way" in html and "0.0 percentage" not in html


def test_a_design_not_simulated_says_so_instead_of_nan(llama3, monkeypatch):
    # At a million GPUs not one run of the spare-domain check may fit the memory budget (runs_for gives 0,
    # tests/scale/design/test_domain_runs.py); the row must not read "nan% in 0 simulated runs".
    import relmodel.scale.design.policies as policies
    from relmodel.report.notebook_pages.design_page import detail_block
    from relmodel.scale.design.designs import compare_designs

    monkeypatch.setattr(policies, "runs_for", lambda *a, **k: 0)
    cmp = compare_designs(["nvl72-whole-rack"], llama3, 1152, 0.9, ckpt_cost="1min", restart="10min",
                          n_runs=100, n_boot=0, seed=0)
    assert int(cmp.by_design["sim_runs"].iloc[0]) == 0
    text = str(detail_block(cmp))
    assert "not simulated" in text and "nan" not in text.lower()
