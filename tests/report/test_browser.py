"""Reports looked at in a real browser: headless Chromium (Debian's chromium) through Playwright.

Every page of the default report and of a report from a log with custom
column names is opened at 1280 px: no horizontal scroll, every image loaded,
every link resolving to a file, no request beyond the page's own files, and
no traceback, warning line, nan/inf/None
value or scientific notation in the visible text.  Without a Chromium the
tier is skipped with the reason.
"""

import json
import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

pytest.importorskip("playwright.sync_api", reason="the browser tier needs the playwright package")

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium found (install Debian's chromium package)")

BAD = [
    (re.compile(r"Traceback \(most recent call last\)"), "a traceback"),
    (re.compile(r"^\s*\w*Warning: ", re.M), "a Python warning line"),
    (re.compile(r"(?<![\w-])(nan|NaN|inf|None)(?![\w-])"), "nan/inf/None as a value"),
    (re.compile(r"\d(\.\d+)?e[+-]\d+"), "scientific notation"),
]


@pytest.fixture(scope="module")
def reports(suite_report, custom_report):
    """The session's shared reports (tests/conftest.py): the bundled data, and a log with custom columns."""
    for rep in (suite_report, custom_report):
        assert rep.exit_code == 0, rep.output
    return [suite_report.path, custom_report.path]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def _check_page(page, path):
    requests = []  # a page is a file: it must load nothing from the network (a cluster may have none)
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.resolve().as_uri())
    page.wait_for_load_state("load")
    problems = [f"loads {url} from the network" for url in requests if urlparse(url).scheme not in ("file", "data")]
    width = page.evaluate("document.scrollingElement.scrollWidth")
    if width > 1280:
        problems.append(f"scrolls horizontally ({width} px)")
    broken = page.evaluate("[...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).length")
    if broken:
        problems.append(f"{broken} image(s) not loaded")
    for href in page.evaluate("[...document.querySelectorAll('a[href]')].map(a => a.href)"):
        url = urlparse(href)
        if url.scheme == "file" and not Path(unquote(url.path)).exists():
            problems.append(f"broken link {href}")
    if page.locator("table.dataframe").count():
        problems.append("a raw DataFrame table")
    text = page.inner_text("body")
    for pattern, what in BAD:
        m = pattern.search(text)
        if m:
            problems.append(f"{what}: ...{text[max(0, m.start() - 60):m.end() + 20]!r}")
    return problems


def test_every_page_reads_right_at_1280px(reports, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    found = {}
    for folder in reports:
        pages = sorted(folder.glob("*.html"))
        rendered = json.loads((folder / "summary.json").read_text(encoding="utf-8"))["notebooks"]
        assert len(pages) == 1 + len(rendered) and all(nb["html"] for nb in rendered)  # index and each notebook
        for path in pages:
            problems = _check_page(page, path)
            if problems:
                found[f"{folder.name}/{path.name}"] = problems
    assert not found, found


def test_index_states_question_inputs_and_answers(reports, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto((reports[0] / "index.html").resolve().as_uri())
    text = page.inner_text("body")
    for needle in ("The question", "Inputs", "default (assumption)", "Answers", "Checkpoint every",
                   "Detail pages", "16,384 GPUs"):
        assert needle in text, needle
    page.goto((reports[1] / "index.html").resolve().as_uri())
    assert "our outages.csv" in page.inner_text("body")


def test_the_checks_catch_a_bad_page(tmp_path, browser):
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><table><tr><td style='min-width:3000px'>wide</td></tr></table>"
                   "<img src='missing.png'><a href='gone.html'>x</a><p>Traceback (most recent call last)</p>"
                   "<pre>UserWarning: careful</pre><p>MTBF nan h, 1.6e+04 h</p>"
                   "<table class='dataframe'><tr><td>1</td></tr></table>"
                   "<script src='http://127.0.0.1:9/cdn.js'></script></body></html>")
    problems = " | ".join(_check_page(browser.new_page(viewport={"width": 1280, "height": 900}), bad))
    for what in ("scrolls horizontally", "image(s) not loaded", "broken link", "a traceback",
                 "a Python warning line", "nan/inf/None", "scientific notation", "a raw DataFrame table",
                 "from the network"):
        assert what in problems, what
