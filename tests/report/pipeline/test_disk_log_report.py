"""A disk log without ``units_per_node`` through the report: every page renders, and the index, summary.json and
the pages say why there is no answer for a GPU job instead of leaving three decisions out in silence.

The log is written here by hand: 5 failures of 3 disks (d1 twice, d2 twice, d3 once).
"""

import html
import json

from conftest import report_cli

LOG = ("failed,disk,reason\n2024-01-05 10:00,d1,smart\n2024-01-20 03:00,d2,read errors\n"
       "2024-02-02 12:00,d1,smart\n2024-02-14 08:00,d3,not detected\n2024-03-01 00:00,d2,read errors\n")


def test_a_disk_log_renders_every_page_and_says_why_a_gpu_job_gets_no_answer(tmp_path):
    log = tmp_path / "disks.csv"
    log.write_text(LOG)
    out = tmp_path / "r"
    res = report_cli("--out", out, "-n", "01", "-n", "03", "-n", "04", "-n", "05", "-n", "07", "-p", f"log={log}", "-p", "start=failed",
                     "-p", "node=disk", "-p", "cause=reason", "-p", "unit=disk")
    assert res.exit_code == 0, res.output                 # page 07 stopped here with a UnitError before
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "complete"
    for key in ("interval", "vendor", "spares"):
        assert summary["decisions"][key].startswith("No answer for a GPU job:"), key
        assert "units_per_node" in summary["decisions"][key]
    assert summary["headline"] == {} and "units_per_node" in summary["reasons"]["headline"]
    assert summary["answers"][0].startswith("No answer for a GPU job:")       # the terminal prints the answers
    assert "No answer for a GPU job:" in res.output
    index = html.unescape((out / "index.html").read_text(encoding="utf-8"))
    assert index.count("No answer for a GPU job:") >= 3   # the three decisions' rows, each with its reason
    row = index.split("Observed cluster", 1)[1].split("</tr>", 1)[0]
    assert "3 disks" in row and "measured from the log" in row and "given" not in row
    assert "each row's node is a disk" in index and "one row's node" not in index
    # page 07's eviction policy stands on the Llama 3 counts, and the page and the index say it is an example
    page = html.unescape((out / "07_stragglers.html").read_text(encoding="utf-8"))
    assert "an example, not your data: the Llama 3 counts" in page and "disks.csv counts no GPUs" in page
    assert "Llama 3 counts for the fail-stop MTBF" in summary["records"]["07_stragglers"]["example"]
    # page 05 scales GPU nodes: for disks it says so and draws no GPU-job figure (it drew one, each disk a node)
    whatif = html.unescape((out / "05_interactive.html").read_text(encoding="utf-8"))
    assert "No what-if is drawn" in whatif and "counts disks" in whatif and "<img" not in whatif
    # page 01 does not set disks beside published GPU fleets (it called them node-days and "fails less often")
    first = html.unescape((out / "01_log_explorer.html").read_text(encoding="utf-8"))
    assert "Not compared with published fleets: they count the interruptions of GPU servers" in first
    assert "fails less often than" not in first and "fails more often than" not in first
