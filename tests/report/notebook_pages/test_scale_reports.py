"""Reports at every size, from 1,024 to 1,048,576 GPUs, and reports that stop part-way.

The sweep (one shared render per test run, tests/conftest.py) renders every
notebook that takes ``n_gpus`` at three sizes with small run counts; each page
must render with no traceback, the designs page must say how its fabrics were
sized, and the headline numbers must equal the API's for the same inputs.  A notebook that fails makes a partial report:
exit status 1, ``"status": "partial"``, and one styled sentence on the index.
"""

import json
import re
from html import unescape

import pytest

import relmodel
from relmodel.scale.targets.decision import decide

from conftest import SCALE_SIZES as SIZES, write_notebook, report_cli, grown_restart


invoke = report_cli


def _visible(html):
    html = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", html, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", " ", html))


@pytest.fixture(scope="module")
def sweep(scale_sweep):
    """The session's shared sweep (tests/conftest.py): ``relmodel report --sweep n_gpus=1024,1048576``
    with small run counts (``SCALE_OPTIONS``), rendered once for every test process."""
    return scale_sweep, scale_sweep.path


def test_every_size_renders_with_exit_zero(sweep):
    res, out = sweep
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "complete"
    assert [r["values"]["n_gpus"] for r in summary["runs"]] == list(SIZES)
    for run in summary["runs"]:
        assert run["error"] is None, run["error"]
        folder = out / run["folder"]
        inner = json.loads((folder / "summary.json").read_text())
        assert inner["status"] == "complete" and inner["failed"] == []
        names = [nb["name"] for nb in inner["notebooks"]]
        assert names == ["03_checkpoint_interval", "04_requirements_at_scale", "05_interactive", "06_designs",
                         "07_stragglers", "09_bad_nodes"]
        for name in names:
            text = _visible((folder / f"{name}.html").read_text(encoding="utf-8"))
            assert "Traceback" not in text and "stops here" not in text, (run["values"], name)


@pytest.mark.parametrize("n_gpus, tiers", [(1_024, 3), (1_048_576, 4)])
def test_designs_page_states_the_fabric_it_sized(sweep, n_gpus, tiers):
    # hand count: radix-64 switches, k tiers reach 2 x 32^k NICs (65,536 for 3, 2,097,152 for 4);
    # the H100 designs have one NIC per GPU, rounded up to whole 8-GPU nodes
    _, out = sweep
    folder = next(p for p in out.iterdir() if p.is_dir() and p.name.endswith(f"{n_gpus}"))
    text = " ".join(_visible((folder / "06_designs.html").read_text(encoding="utf-8")).split())
    assert "Scale-out fabrics as sized for this job" in text
    assert f"H100, fat tree: {tiers} tiers of radix-64 switches" in text
    assert ("one more than the 3 of the design as built" in text) == (tiers == 4)


@pytest.mark.parametrize("n_gpus", SIZES)
def test_headline_numbers_equal_the_api(sweep, n_gpus):
    _, out = sweep
    summary = json.loads((out / "summary.json").read_text())
    run = next(r for r in summary["runs"] if r["values"]["n_gpus"] == n_gpus)
    d = decide(relmodel.datasets.llama3_54day(), n_gpus, 0.9, "1min", grown_restart(n_gpus), n_boot=0, seed=0)
    head = run["headline"]
    assert head["job_mtbf_h"] == pytest.approx(d.job_mtbf_h, rel=1e-9)
    assert head["optimal_interval_h"] == pytest.approx(d.interval_h, rel=1e-9)
    assert head["ettr"] == pytest.approx(d.ettr, rel=1e-9)


def test_llama3_size_by_hand():
    # Llama 3 (arXiv 2407.21783, Table 5): 419 interruptions in 54 days on 16,384 GPUs -> 3.09 h per job
    d = decide(relmodel.datasets.llama3_54day(), 16_384, 0.9, "1min", "10min", n_boot=0, seed=0)
    assert d.job_mtbf_h == pytest.approx(54 * 24 / 419, rel=1e-9)


def test_a_million_gpus_leads_with_no_useful_progress(sweep):
    _, out = sweep
    summary = json.loads((out / "summary.json").read_text())
    run = next(r for r in summary["runs"] if r["values"]["n_gpus"] == 1_048_576)
    answers = json.loads((out / run["folder"] / "summary.json").read_text())["answers"]
    assert answers[0].startswith("The job cannot make useful progress at this size with this data")
    assert not any(a.startswith("Checkpoint every") for a in answers)
    small = next(r for r in summary["runs"] if r["values"]["n_gpus"] == 1_024)
    first = json.loads((out / small["folder"] / "summary.json").read_text())["answers"][0]
    assert first.startswith("Checkpoint every")


def test_sweep_page_reads_in_words(sweep):
    _, out = sweep
    page = (out / "index.html").read_text(encoding="utf-8")
    text = " ".join(_visible(page).split())
    assert "complete" in text and "Traceback" not in text
    assert "GPUs in the job" in text and "n_gpus" not in text
    assert "Meets the target?" in text and "Node MTBF needed, × today's" in text
    assert "GPUs in the job: 1,048,576" in text and "class='scroll'" not in page
    rows = re.findall(r"<tr>(.*?)</tr>", page, flags=re.S)[1:]
    cells = [re.findall(r"<td>(.*?)</td>", r, flags=re.S) for r in rows]
    small = next(c for c in cells if ">1,024<" in c[0])
    assert "yes" in small and small.count("— (target met)") == 2  # no requirement for a row that meets it
    big = next(c for c in cells if ">1,048,576<" in c[0])
    assert "no" in big and any(c.endswith("×") for c in big)


# --- partial reports ----------------------------------------------------------------------------

def test_a_failing_notebook_makes_a_partial_report_with_exit_one(tmp_path):
    good = write_notebook(tmp_path / "good.ipynb", [
        "n_gpus: int = 16384  # GPUs", "from relmodel.report import record\nrecord('job_mtbf_h', 50000.0 / n_gpus)"])
    bad = write_notebook(tmp_path / "bad.ipynb", [
        "n_gpus: int = 16384  # GPUs", "x = 1", "raise ValueError('a secret /abs/path in the message')"])
    out = tmp_path / "r"
    res = invoke("-n", good, "-n", bad, "-j", "1", "--out", out)  # one worker: its warm kernel runs both
    assert res.exit_code == 1, res.output
    assert "report written (partial)" in res.output and "bad: cell 3 of the notebook" in res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "partial" and summary["failed"] == ["bad"]
    assert summary["headline"]["job_mtbf_h"] == pytest.approx(50000.0 / 16384)
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "This report is partial: page bad" in index and "stopped at cell 3 (ValueError)" in index
    assert "/abs/path" not in index and "Traceback" not in index  # one sentence, never the raw error
    page = _visible((out / "bad.html").read_text(encoding="utf-8"))
    assert "This page stops here" in page and "Traceback" not in page
    assert "papermill encountered an exception" not in page.lower()


def test_bad_input_is_still_exit_two_with_nothing_written(tmp_path):
    res = invoke("-p", "n_gpus=-3", "--out", tmp_path / "r")
    assert res.exit_code == 2 and not (tmp_path / "r").exists()
