"""Logs no other test has seen, each written here from a fixed seed, rendered through the pages that
read them and checked against the public API (and, where it can be, a count by hand):

* a log with start, end and host only (no cause column);
* a log where nine outages in ten are reboots of a few minutes;
* a log of disks, not GPU nodes (``unit="disk"``);
* a log with a 60-day stretch without a record;
* a log whose failure rate rises (a power-law process with beta 2);
* the bundled data at 1,048,576 GPUs and at 65,536 (every headline figure against the API), read from
  the shared reports of tests/conftest.py (a run of the sweep, and the default-data report).

The held-out logs are rendered once per test run (``render_heldout``, through tests/conftest.py).

The browser tier (headless Chromium through Playwright) reads the same pages at 1280 px.
"""

import json
from concurrent.futures import ThreadPoolExecutor
import re
import shutil

import numpy as np
import pandas as pd
import papermill
import pytest

import relmodel
from relmodel.errors import NoProgressError
from conftest import SCALE_OPTIONS, SUITE_PARAMS, grown_restart
from relmodel.data.source import load_source
from relmodel.report import NOTEBOOK_DIR
from relmodel.report.blocks import present as P
from relmodel.report.notebook_pages.pages import trend_block
from relmodel.report.pipeline.params import notebook_parameters
from relmodel.report.pipeline.summary import recommendation
from relmodel.scale.targets.decision import decide, failure_law

T0 = pd.Timestamp("2024-01-01")
SMALL = {"n_boot": 50, "n_runs": 20}


def _stamp(days):
    return (T0 + pd.to_timedelta(np.asarray(days), unit="D")).strftime("%Y-%m-%d %H:%M:%S")


def _no_cause(rng):
    n = 150
    start = np.sort(rng.uniform(0, 90, n))
    return pd.DataFrame({"start": _stamp(start), "end": _stamp(start + rng.uniform(0.5, 12, n) / 24),
                         "host": [f"h{i:03d}" for i in rng.integers(0, 200, n)]})


def _reboots(rng):
    n = 400
    start = np.sort(rng.uniform(0, 60, n))
    long = rng.random(n) < 0.1
    minutes = np.where(long, rng.uniform(120, 600, n), rng.uniform(1, 6, n))
    return pd.DataFrame({"start": _stamp(start), "end": _stamp(start + minutes / 1440),
                         "host": [f"n{i:03d}" for i in rng.integers(0, 256, n)],
                         "cause": np.where(long, "hardware", "reboot"), "minutes": minutes})


def _disks(rng):
    n = 60
    start = np.sort(rng.uniform(0, 120, n))
    return pd.DataFrame({"failed": _stamp(start), "replaced": _stamp(start + rng.uniform(2, 30, n) / 24),
                         "disk": [f"d{i:03d}" for i in rng.integers(0, 300, n)],
                         "reason": rng.choice(["media", "smart", "controller"], n)})


def _gap(rng):
    days = np.sort(np.concatenate([rng.uniform(0, 40, 60), rng.uniform(100, 140, 60)]))
    return pd.DataFrame({"start": _stamp(days), "end": _stamp(days + 0.1),
                         "host": [f"n{i:03d}" for i in rng.integers(0, 128, days.size)],
                         "cause": rng.choice(["GPU", "network"], days.size)})


def _rising(rng):
    days = np.sort(120.0 * rng.uniform(0, 1, 150) ** 0.5)  # cumulative intensity grows as t^2
    return pd.DataFrame({"start": _stamp(days), "end": _stamp(days + 0.05),
                         "host": [f"n{i:03d}" for i in rng.integers(0, 128, days.size)],
                         "cause": rng.choice(["GPU", "memory", "network"], days.size)})


#: name -> (writer, seed, columns, extra parameters, notebooks)
KINDS = {
    "no_cause": (_no_cause, 1, {"start": "start", "end": "end", "node": "host"}, {}, ["01", "03"]),
    "reboots": (_reboots, 2, {"start": "start", "end": "end", "node": "host", "cause": "cause"}, {}, ["01", "03"]),
    "disks": (_disks, 3, {"start": "failed", "end": "replaced", "node": "disk", "cause": "reason"},
              {"unit": "disk"}, ["01", "04"]),
    "gap": (_gap, 4, {"start": "start", "end": "end", "node": "host", "cause": "cause"}, {}, ["01"]),
    "rising": (_rising, 5, {"start": "start", "end": "end", "node": "host", "cause": "cause"}, {}, ["02", "03"]),
}


def _render(out, params, notebooks):
    takes = {"n_boot": ("02", "03", "04"), "n_runs": ("03",)}
    params = {**params, **{k: v for k, v in SMALL.items() if any(n in takes[k] for n in notebooks)}}
    with ThreadPoolExecutor(1) as one:  # in this process: one warm kernel runs every page of the render
        relmodel.report.render(params=params, out=out, notebooks=notebooks, executor=one)


def _log(root, name):
    """The frame of log ``name`` (as written from its seed), its file under ``root`` and its columns."""
    write, seed, columns, extra, _ = KINDS[name]
    return write(np.random.default_rng(seed)), root / f"{name}.csv", {**columns, **extra}


def render_heldout(root):
    """Write every held-out log into ``root`` and render its pages into ``root/report_<name>``.

    Returns ``{"failed": {name: error}}`` for the renders that raised (the fixture reports them).
    """
    root.mkdir()
    failed = {}
    for name, kind in KINDS.items():
        frame, path, columns = _log(root, name)
        frame.drop(columns=["minutes"], errors="ignore").to_csv(path, index=False)
        try:
            _render(root / f"report_{name}", {"log": str(path), **columns}, kind[4])
        except Exception as exc:  # noqa: BLE001 - named in the fixture, not in whichever test rendered
            failed[name] = f"{type(exc).__name__}: {exc}"
    return {"failed": failed}


def _summary(folder):
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    assert summary["status"] == "complete", summary.get("failed")
    return summary


def _sweep_run(sweep, n_gpus):
    """The folder of the shared sweep's run at ``n_gpus``."""
    runs = json.loads((sweep.path / "summary.json").read_text(encoding="utf-8"))["runs"]
    return sweep.path / next(r["folder"] for r in runs if r["values"]["n_gpus"] == n_gpus)


#: The bundled data as the shared reports of tests/conftest.py render it: name -> (GPUs, checkpoint
#: cost, bootstrap draws, simulated runs); "default" is the shared report, "million" a run of the sweep.
_SWEPT = dict(a.split("=", 1) for a in SCALE_OPTIONS[1::2])
BUNDLED = {"default": (SUITE_PARAMS["n_gpus"], SUITE_PARAMS["ckpt_cost"], SUITE_PARAMS["n_boot"], SUITE_PARAMS["n_runs"]),
           "million": (1_048_576, "1min", int(_SWEPT["n_boot"]), int(_SWEPT["n_runs"]))}


@pytest.fixture(scope="module")
def heldout(heldout_reports):
    """name -> (frame written, log path, source through the API, report folder, summary.json)."""
    assert heldout_reports.path.is_dir() and not heldout_reports.failed, heldout_reports.failed
    out = {}
    for name in KINDS:
        frame, path, columns = _log(heldout_reports.path, name)
        folder = heldout_reports.path / f"report_{name}"
        out[name] = (frame, path, load_source(str(path), **columns), folder, _summary(folder))
    return out


@pytest.fixture(scope="module")
def bundled(suite_report, scale_sweep):
    """name -> (None, None, source through the API, report folder, summary.json) of :data:`BUNDLED`."""
    assert suite_report.exit_code == 0 and scale_sweep.exit_code == 0, suite_report.output + scale_sweep.output
    src = load_source("llama3")
    return {name: (None, None, src, folder, _summary(folder))
            for name, folder in (("default", suite_report.path),
                                 ("million", _sweep_run(scale_sweep, BUNDLED["million"][0])))}


def _text(path):
    """The visible words of a rendered page (tags, styles and scripts dropped)."""
    html = path.read_text(encoding="utf-8")
    html = re.sub(r"<(style|script)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#x27;", "'").replace("&amp;", "&")


def _records(summary, notebook):
    return summary["records"][next(k for k in summary["records"] if k.startswith(notebook))]


def test_no_papermill_noise_every_parameter_is_one_papermill_knows():
    for path in sorted(NOTEBOOK_DIR.glob("0[1-5]_*.ipynb")):
        assert set(notebook_parameters(path)) <= set(papermill.inspect_notebook(str(path))), path.name


def test_a_log_without_causes_renders(heldout):
    frame, _, src, folder, summary = heldout["no_cause"]
    page = _text(folder / "01_log_explorer.html")
    assert "names no causes" in page
    assert _records(summary, "01")["log_outages"] == src.n_events == len(frame)  # no two rows merge: hand check
    dec = decide(src, 16384, 0.9, "1min", "10min", n_boot=SMALL["n_boot"], seed=0)
    assert summary["headline"]["job_mtbf_h"] == pytest.approx(dec.job_mtbf_h, rel=1e-12)


def test_a_reboot_dominated_log_leads_with_no_useful_progress(heldout):
    frame, _, src, folder, summary = heldout["reboots"]
    share = _records(summary, "01")["outage_share_under_10min"]
    assert share == pytest.approx(relmodel.data.outage_durations(src.data).reboot_share, abs=1e-12)
    assert share == pytest.approx(float((frame["minutes"] < 10).mean()), abs=0.01)  # hand count, rows as written
    page = _text(folder / "01_log_explorer.html")
    assert f"{100 * share:.1f}% under 10 min" in page
    dec = decide(src, 16384, 0.9, "1min", grown_restart(16384), n_boot=SMALL["n_boot"], seed=0)
    assert dec.ettr < 0.5 and summary["headline"]["ettr"] == pytest.approx(dec.ettr, rel=1e-12)
    assert summary["answers"][0].startswith("The job cannot make useful progress at this size with this data")
    assert "cannot make useful progress" in _text(folder / "index.html")


def test_a_log_of_disks_is_counted_in_disks(heldout):
    frame, _, src, folder, summary = heldout["disks"]
    n_disks = frame["disk"].nunique()  # hand count
    assert src.units_text() == f"{n_disks:,} disks"
    for nb in ("01", "04"):
        facts = _records(summary, nb)["source"]
        assert facts["unit"] == "disk" and facts["units"] == n_disks and facts["source_gpus"] is None
    index = _text(folder / "index.html")
    assert f"Observed cluster {n_disks:,} disks ({n_disks:,} disks seen in the log)" in index
    page = _text(folder / "01_log_explorer.html")
    held = page.split("What the data holds", 1)[1].split("Causes", 1)[0]
    rates = page.split("Failure rates by cause", 1)[1].split("Against published fleets", 1)[0]
    assert f"{n_disks:,} disks" in held and "MTBF per disk" in rates
    assert not re.search(r"\d[\d,]* GPUs", held + rates)  # no GPU figure for a log of disks
    observed = index.split("Planned job")[0].split("Warnings")[0]
    assert "GPU" not in observed.split("Inputs", 1)[1].split("No answer for a GPU job")[0]   # the inputs table
    # disks are not mapped to GPU nodes: the only answer says so (the terminal prints it), as the decisions do
    assert "No answer for a GPU job" in index
    assert len(summary["answers"]) == 1 and summary["answers"][0].startswith("No answer for a GPU job:")


def test_a_long_gap_is_a_gap_not_a_rate_of_zero(heldout):
    _, _, src, folder, _ = heldout["gap"]
    page = _text(folder / "01_log_explorer.html")
    fleets = relmodel.stats.fleet_summary(src.data)
    text = fleets.text()
    # the records stop on day 40 and resume on day 100 (as written): a gap of about 60 days, said as one
    gap = re.search(r"From (\S+) to (\S+) there are no records \(([\d.]+) d", text)
    assert gap and 58 <= float(gap.group(3)) <= 62
    assert "no data, not a rate of zero" in page and gap.group(0) in page
    assert not re.search(r"\bto 0\.00\b", page)  # never a rate falling to zero


def test_a_rising_rate_is_a_warning(heldout):
    _, _, src, folder, summary = heldout["rising"]
    verdict, _ = trend_block(relmodel.stats.trend(src.data, alpha=0.05, conf=0.95))
    assert _records(summary, "02")["trend"] == verdict == "wearing out"
    index = _text(folder / "index.html")
    assert "The failure rate is rising" in index


@pytest.mark.parametrize("name", ["default", "million"])
def test_headline_figures_equal_the_api(bundled, name):
    _, _, src, folder, summary = bundled[name]
    n_gpus, ckpt_cost, n_boot, n_runs = BUNDLED[name]
    dec = decide(src, n_gpus, 0.9, ckpt_cost, grown_restart(n_gpus), gpus_per_node=8, n_boot=n_boot, seed=0)
    head, r03, r04 = summary["headline"], _records(summary, "03"), _records(summary, "04")
    expect = {"job_mtbf_h": dec.job_mtbf_h, "optimal_interval_h": dec.interval_h, "ettr": dec.ettr,
              "required_node_mtbf_h": dec.required_node_mtbf_h if dec.reachable else None}
    for key, value in expect.items():
        assert head.get(key) == (pytest.approx(value, rel=1e-9) if value is not None else None), key
    assert r04["required_job_mtbf_h"] == pytest.approx(dec.required_job_mtbf_h, rel=1e-9)
    law, text = failure_law(src, dec.job_mtbf_h)
    try:
        search = relmodel.checkpoint.best_interval(law, ckpt_cost=ckpt_cost, restart=grown_restart(n_gpus), n_runs=n_runs, seed=0)
    except NoProgressError:  # a simulated job would never finish a segment: the page says so, no simulated figures
        assert dec.ettr < 0.001 and r03.get("simulated_best_interval_h") is None
        assert summary["answers"][0].startswith("The job cannot make useful progress")
        return
    assert r03["simulated_best_interval_h"] == pytest.approx(search.interval_h, rel=1e-9)
    assert r03["simulated_ettr"] == pytest.approx(search.ettr, rel=1e-9)
    rec = recommendation(dec.to_dict(), {"law": text, "best_interval_h": search.interval_h, "ettr": search.ettr})
    assert rec["basis"] == "formula"  # a count table has no times to fit a shape to
    index = _text(folder / "index.html")
    assert f"{n_gpus:,} GPUs" in index
    if dec.ettr < 0.5:  # no schedule is the answer: the lead says the job cannot make useful progress
        assert summary["answers"][0].startswith("The job cannot make useful progress")
        assert f"only {P.pct(dec.ettr)} of its wall time is training" in index
        assert "Checkpoint every" not in index
        return
    assert f"Checkpoint every {P.duration(rec['interval_h'])}" in index
    # one recommendation: every interval the index states (answers, four decisions) is the same one
    assert set(re.findall(r"Checkpoint every ([\d.,]+ \w+)", index)) == {P.duration(rec["interval_h"])}
    assert f"Expected ETTR {P.pct(rec['ettr'])}" in index


CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium found (install Debian's chromium package)")
def test_heldout_pages_read_right_in_a_browser(heldout, bundled):
    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser tier needs the playwright package")
    bad = [(re.compile(r"Traceback \(most recent call last\)"), "a traceback"),
           (re.compile(r"(?<![\w-])(nan|NaN|inf|None)(?![\w-])"), "nan/inf/None as a value"),
           (re.compile(r"\d(\.\d+)?e[+-]\d+"), "scientific notation")]
    problems = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for name, (_, _, src, folder, summary) in {**heldout, **bundled}.items():
            for path in sorted(folder.glob("*.html")):
                if name in bundled and not path.name.startswith(("03", "04", "index")):
                    continue  # the pages the headline test reads; tests/report/test_browser.py reads the rest
                page.goto(path.resolve().as_uri())
                page.wait_for_load_state("load")
                if page.evaluate("document.scrollingElement.scrollWidth") > 1280:
                    problems.append(f"{name}/{path.name}: scrolls horizontally")
                text = page.inner_text("body")
                problems += [f"{name}/{path.name}: {what}" for pattern, what in bad if pattern.search(text)]
                if path.name == "index.html":
                    for answer in summary["answers"]:
                        if answer not in re.sub(r"\s+", " ", text):
                            problems.append(f"{name}: the index does not show {answer[:60]!r}")
                if name == "disks":
                    if f"{src.n_nodes:,} disks" not in text:
                        problems.append(f"disks/{path.name}: the disks are not counted")
        browser.close()
    assert not problems, "\n".join(problems)
