"""The README's printed report output is what the report prints: a script makes it from the command, and this test
fails when the README, the script and a rendered report drift apart."""

import json
import sys

import pytest

from conftest import REPO, run_cli


def _tool():
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import readme_outputs
    finally:
        sys.path.pop(0)
    return readme_outputs


@pytest.fixture(scope="module")
def page03(tmp_path_factory):
    """The default report's page 03, rendered once for this module: (CLI result, summary.json)."""
    out = tmp_path_factory.mktemp("readme") / "r"
    res = run_cli("report", "--out", out, "-q", "-n", "03")
    assert res.exit_code == 0, res.output
    return res, json.loads((out / "summary.json").read_text())


def test_readme_report_output_is_the_scripts(page03):
    tool = _tool()
    assert REPO / "README.md" in tool.showing(), "README.md lost its report-output block"
    made = tool.report_output()
    for page in tool.showing():
        shown = tool.current(page.read_text(encoding="utf-8"))
        assert shown == made, f"{page.name}'s report output is stale: run python tools/readme_outputs.py"
    # and the report itself prints those lines (interval, ETTR, requirement) on the defaults
    res, summary = page03
    answers = summary["answers"]
    lines = made.splitlines()[1:4]
    assert [f"  {a}" for a in answers[:3]] == lines
    for line in lines:
        assert line.strip() in " ".join(res.output.split()) or line.strip() in res.output


def test_the_readme_screenshots_show_the_default_reports_headline(page03):
    """docs/report_summary.png and docs/report_requirements.png carry the headline of the report they show
    (bench/screenshots.py writes it in a PNG text chunk); the default report's page 03 must still give it."""
    from PIL import Image

    now = page03[1]["headline"]
    for png in ("report_summary.png", "report_requirements.png"):
        with Image.open(REPO / "docs" / png) as im:
            shown = json.loads(im.info["relmodel-headline"])
            assert im.size[0] == 1366  # a laptop's width
        for k in ("ettr", "ettr_lo", "ettr_hi", "optimal_interval_h", "job_mtbf_h", "required_node_mtbf_h",
                  "restart_h"):
            assert shown[k] == now[k] or abs(shown[k] - now[k]) <= 1e-9 * abs(now[k]), \
                f"docs/{png} shows {k} = {shown[k]}, the report now {now[k]}: run python bench/screenshots.py"
