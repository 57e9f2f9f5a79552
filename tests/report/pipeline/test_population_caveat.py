"""A log that lists only the nodes that failed: every face says the answers take those nodes as the whole cluster,
and how to give the nodes watched; given a population, none says it."""

import html
import json

from conftest import report_cli

ROWS = ["2024-01-0{d} 0{h}:00,2024-01-0{d} 0{h}:30,n{n}".format(d=1 + i % 9, h=i % 10, n=i % 5) for i in range(12)]


def _render(tmp_path, *extra):
    log = tmp_path / "failed.csv"
    log.write_text("start,end,host\n" + "\n".join(ROWS) + "\n")
    out = tmp_path / ("r" + "".join(e.replace("=", "") for e in extra))
    res = report_cli("--out", out, "-n", "03", "-p", f"log={log}", "-p", "start=start", "-p", "end=end",
                     "-p", "node=host", "-p", "n_gpus=256", *(x for e in extra for x in ("-p", e)))
    assert res.exit_code == 0, res.output
    return json.loads((out / "summary.json").read_text()), html.unescape((out / "index.html").read_text()), res


def test_the_five_nodes_a_log_names_are_said_to_be_taken_as_the_whole_cluster(tmp_path):
    summary, index, res = _render(tmp_path)
    caveat = summary["decisions"]["population"]
    assert caveat.startswith("Every answer here takes the 5 nodes the log names as the whole cluster observed")
    assert "population=N, or --population N" in caveat
    assert summary["answers"][-1] == caveat                 # the terminal prints the answers
    assert caveat in " ".join(res.output.split()) and caveat in index
    given, index_given, _ = _render(tmp_path, "population=64")
    assert "population" not in given["decisions"] and "as the whole cluster observed" not in index_given
