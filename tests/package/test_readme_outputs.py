"""The README's printed report output is what the report prints: a script makes it from the command, and this test
fails when the README, the script and a rendered report drift apart."""

import json
import sys

from conftest import REPO, run_cli


def _tool():
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import readme_outputs
    finally:
        sys.path.pop(0)
    return readme_outputs


def test_readme_report_output_is_the_scripts(tmp_path):
    tool = _tool()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    shown = tool.current(readme)
    assert shown is not None, "README.md lost its report-output block"
    assert shown == tool.report_output(), "README's report output is stale: run python tools/readme_outputs.py"
    # and the report itself prints those lines (interval, ETTR, requirement) on the defaults
    res = run_cli("report", "--out", tmp_path / "r", "-q", "-n", "03")
    assert res.exit_code == 0, res.output
    answers = json.loads((tmp_path / "r" / "summary.json").read_text())["answers"]
    lines = shown.splitlines()[1:4]
    assert [f"  {a}" for a in answers[:3]] == lines
    for line in lines:
        assert line.strip() in " ".join(res.output.split()) or line.strip() in res.output
