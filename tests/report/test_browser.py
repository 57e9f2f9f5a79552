"""Reports looked at in a real browser: headless Chromium (Debian's chromium) through Playwright.

Every page of the default report and of a report from a log with custom
column names is opened at 1280 px: no horizontal scroll, every image loaded,
every link resolving to a file, no request beyond the page's own files, and
no traceback, warning line, nan/inf/None
value or scientific notation in the visible text.  At a 1366 px laptop
viewport every figure's smallest text is shown at least 10 px tall: the
size written in each PNG (image pixels, :mod:`relmodel.plots.legible`) times
the width Chromium shows the image at over its pixel width.  Without a
Chromium the tier is skipped with the reason.
"""

import base64
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


LAPTOP = {"width": 1366, "height": 768}


def _small_text(page, path, least):
    """Figures of the page at ``path`` whose smallest text is shown under ``least`` px, or carries no size."""
    from relmodel.plots.legible import smallest_text_px

    page.goto(path.resolve().as_uri())
    page.wait_for_load_state("load")
    shown = page.evaluate("[...document.images].map(i => [i.getAttribute('src'), i.alt, "
                          "i.getBoundingClientRect().width, i.naturalWidth])")
    problems = []
    for k, (src, alt, width, natural) in enumerate(shown):
        if src.startswith("data:image/png;base64,"):
            png = base64.b64decode(src.split(",", 1)[1])
        elif src.startswith("data:"):
            problems.append(f"figure {k + 1} ({alt}) is not a PNG")
            continue
        else:
            png = (path.parent / unquote(src)).read_bytes()
        px = smallest_text_px(png)
        if px is None:
            problems.append(f"figure {k + 1} ({alt}) does not say its smallest text's size")
        elif px * width / natural < least:
            problems.append(f"figure {k + 1} ({alt}): text {px * width / natural:.1f} px")
    return problems


def test_every_figure_text_is_at_least_10px_on_a_laptop(reports, browser):
    from relmodel.plots.legible import MIN_TEXT_PX

    page = browser.new_page(viewport=LAPTOP)
    found, figures = {}, 0
    for folder in reports:
        for path in sorted(folder.glob("*.html")):
            problems = _small_text(page, path, MIN_TEXT_PX)
            figures += page.evaluate("document.images.length")
            if problems:
                found[f"{folder.name}/{path.name}"] = problems
    assert figures >= 20, figures  # the reports' figures were looked at
    assert not found, found


def test_the_text_size_check_catches_small_text(tmp_path, browser):
    from matplotlib.figure import Figure

    from relmodel.plots.legible import figure_png

    def fig(size, width=8):
        f = Figure(figsize=(width, 3), dpi=90)
        ax = f.subplots()
        ax.plot([0, 1])
        ax.set_xlabel("x", fontsize=size)
        ax.tick_params(labelsize=12)
        return f

    (tmp_path / "big.png").write_bytes(figure_png(fig(12)))
    (tmp_path / "small.png").write_bytes(figure_png(fig(7)))
    (tmp_path / "wide.png").write_bytes(figure_png(fig(10, width=30)))  # 12.5 px drawn, shown at a third
    plain = fig(12)
    plain.savefig(tmp_path / "plain.png")
    inline = base64.b64encode(figure_png(fig(6))).decode("ascii")
    html = tmp_path / "figs.html"
    html.write_text("<html><body style='max-width:60em'><img src='big.png' alt='big'><img src='small.png' alt='small'>"
                    "<img src='wide.png' alt='wide' style='max-width:100%'><img src='plain.png' alt='plain'>"
                    f"<img src='data:image/png;base64,{inline}' alt='inline'></body></html>")
    problems = " | ".join(_small_text(browser.new_page(viewport=LAPTOP), html, 10))
    assert "(big)" not in problems, problems
    for what in ("(small): text 8.8 px", "(wide): text", "(plain) does not say", "(inline): text 7.5 px"):
        assert what in problems, (what, problems)


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
