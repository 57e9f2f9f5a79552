"""One decision, every face: the index, pages 03 and 04, summary.json, the terminal, the CLI and the API say the
same headline numbers for a matrix of sources (bundled: Llama 3's counts, StepFun, LANL; a Slurm export, one joined to its syslog, and logs generated
here with a rising rate, mostly reboots, one GPU a node, disks, and causes that strike the whole cluster at once).

Numbers are compared as people read them: each face's text must hold the headline formatted the one way
(:mod:`relmodel.report.blocks.present`), and the machine faces (summary.json, ``--format json``, the API) must hold the
same floats."""

import html
import json
import os
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from conftest import REPO, run_cli
from relmodel.data.source import load_source
from relmodel.report.blocks import present as P
from relmodel.scale.targets.decision import decide

NOTEBOOKS = ["01", "02", "03", "04"]
#: The sources whose fit page (02) a test reads; the others render 03 and 04 (the headline's pages).
WITH_FITS = ("count table", "stepfun", "slurm + syslog", "rising", "reboots")
#: The sources whose data page (01) a test reads.
WITH_DATA = ("count table", "slurm + syslog", "rising", "reboots")
#: Small pages, the decision's own defaults (n_boot 2000, n_runs 200, seed 0) so the CLI and API match them.
SMALL = {"work": "5d", "sizes": [4096], "ckpt_costs": ["1min"]}
KEYS = ("ettr", "ettr_lo", "ettr_hi", "optimal_interval_h", "job_mtbf_h", "required_node_mtbf_h",
        "todays_node_mtbf_h", "restart_h")


def _write(path, start_h, length_h, nodes, causes, t0="2024-01-01"):
    t0 = pd.Timestamp(t0)
    pd.DataFrame({"start": [t0 + pd.Timedelta(hours=float(h)) for h in start_h],
                  "end": [t0 + pd.Timedelta(hours=float(h + d)) for h, d in zip(start_h, length_h)],
                  "node": nodes, "cause": causes}).to_csv(path, index=False)
    return path


def rising_log(path, beta=2.0, expected=300, window_h=2000.0, n_nodes=100, seed=3):
    """A power-law (Crow-AMSAA) process: E[N(t)] = expected * (t/T)^beta; returns (path, true rate at T per h)."""
    rng = np.random.default_rng(seed)
    n = rng.poisson(expected)
    t = np.sort(window_h * rng.uniform(size=n) ** (1 / beta))
    _write(path, t, rng.uniform(0.5, 4, n), rng.integers(0, n_nodes, n).astype(str),
           rng.choice(["GPU Xid 79", "NIC flap", "Host memory"], n))
    return path, expected * beta / window_h


def steady_log(path, n=240, n_nodes=60, window_h=2400.0, seed=5, **kw):
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0, window_h, n))
    return _write(path, t, rng.uniform(0.5, 6, n), rng.integers(0, n_nodes, n).astype(str),
                  rng.choice(["GPU Xid 79", "NIC flap", "PSU"], n), **kw)


def reboot_log(path, seed=7):
    """81% of outages are 3-9 minute reboots."""
    rng = np.random.default_rng(seed)
    n = 260
    t = np.sort(rng.uniform(0, 2400, n))
    short = rng.uniform(size=n) < 0.81
    length = np.where(short, rng.uniform(3, 9, n) / 60, rng.uniform(1, 8, n))
    return _write(path, t, length, rng.integers(0, 80, n).astype(str),
                  np.where(short, "Reboot", rng.choice(["GPU Xid 79", "NIC flap"], n)))


def cluster_wide_log(path, seed=11):
    """Node faults plus 'Storage stall' events that take 12 nodes down within a minute of each other."""
    rng = np.random.default_rng(seed)
    t = list(np.sort(rng.uniform(0, 2400, 150)))
    nodes = list(rng.integers(0, 64, 150).astype(str))
    causes = list(rng.choice(["GPU Xid 79", "NIC flap"], 150))
    for s in np.sort(rng.uniform(0, 2400, 8)):
        t += list(s + rng.uniform(0, 0.01, 12))
        nodes += [str(x) for x in rng.choice(64, 12, replace=False)]
        causes += ["Storage stall"] * 12
    order = np.argsort(t)
    return _write(path, np.asarray(t)[order], np.full(len(t), 1.0), np.asarray(nodes)[order],
                  np.asarray(causes)[order])


def slurm_syslog(folder, seed=13, days=30, n_nodes=16, mtbf_h=30.0, weights=None):
    """A Slurm run and the syslog of its nodes, written here: each fault is an Xid 79 on one node (uniformly, or in
    proportion to ``weights``, one per node); the job hangs a known 5-20 min, ends NODE_FAIL and restarts 20-30 min
    later.  Returns (sacct path, syslog path, latencies in hours): the truth the report's measured detection
    latency must equal (its median)."""
    rng = np.random.default_rng(seed)
    t0, total = pd.Timestamp("2024-03-01"), days * 86400
    iso = lambda sec: (t0 + pd.Timedelta(seconds=int(sec))).strftime("%Y-%m-%dT%H:%M:%S")  # noqa: E731
    nodes = [f"gpu{i:02d}" for i in range(1, n_nodes + 1)]
    rows, lines, lat, start = ["JobID|JobName|State|ExitCode|Start|End|Elapsed|NNodes|NodeList"], [], [], 0
    lines += [(0, n, "kernel: Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP") for n in nodes]
    while True:
        fault = start + int(rng.exponential(mtbf_h * 3600)) + 600
        hang = int(rng.integers(5 * 60, 20 * 60 + 1))
        end, state = (fault + hang, "NODE_FAIL") if fault + hang < total else (total, "COMPLETED")
        el = end - start
        rows.append(f"{100 + len(rows)}|train|{state}|0:0|{iso(start)}|{iso(end)}|{el // 86400}-"
                    f"{el % 86400 // 3600:02d}:{el % 3600 // 60:02d}:{el % 60:02d}|{n_nodes}|gpu[01-{n_nodes:02d}]")
        if state == "COMPLETED":
            break
        node = nodes[int(rng.integers(n_nodes)) if weights is None else
                     int(rng.choice(n_nodes, p=np.asarray(weights, float) / np.sum(weights)))]
        lines += [(fault, node, "kernel: NVRM: Xid (PCI:0000:cb:00): 79, pid=77, GPU has fallen off the bus."),
                  (fault + 3600, node, "kernel: Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP")]
        lat.append(hang / 3600)
        start = end + int(rng.integers(20 * 60, 30 * 60 + 1))
    lines.sort(key=lambda x: x[0])
    stamp = lambda sec: (t0 + pd.Timedelta(seconds=int(sec))).strftime("%b %e %H:%M:%S")  # noqa: E731
    (folder / "sacct.txt").write_text("\n".join(rows) + "\n")
    (folder / "syslog.log").write_text("".join(f"{stamp(t)} {n} {m}\n" for t, n, m in lines))
    return folder / "sacct.txt", folder / "syslog.log", np.asarray(lat)


LOG = {"start": "start", "end": "end", "node": "node", "cause": "cause"}


def _cli_log(params):
    """The report's data parameters as the CLI's options."""
    out = [params["log"]]
    names = {"start": "--start", "end": "--end", "node": "--node", "cause": "--cause", "format": "--log-format",
             "unit": "--unit", "job": "--job", "syslog": "--syslog", "year": "--year"}
    for k, opt in names.items():
        if k in params:
            out += [opt, params[k]]
    return out


def _sources(tmp):
    rising, _ = rising_log(tmp / "rising.csv")
    small = {"n_gpus": 256}  # the generated clusters are small: a job that still makes progress on them
    sacct, syslog, _ = slurm_syslog(tmp)
    return {
        "count table": ({"log": "llama3"}, {"n_gpus": 16384}),
        "stepfun": ({"log": "stepfun"}, {"n_gpus": 16384}),
        "lanl": ({"log": "lanl"}, {"n_gpus": 16384}),
        "slurm export": ({"log": str(REPO / "data" / "ops-example" / "sacct.txt"), "format": "sacct"}, small),
        "slurm + syslog": ({"log": str(sacct), "format": "sacct", "job": "train", "syslog": str(syslog),
                            "year": 2024}, {**small, "ckpt_interval": "1h"}),
        "rising": ({"log": str(rising), **LOG}, small),
        "reboots": ({"log": str(reboot_log(tmp / "reboots.csv")), **LOG}, small),
        "one gpu a node": ({"log": str(steady_log(tmp / "titan.csv")), **LOG, "gpus_per_node": 1}, small),
        "disks": ({"log": str(steady_log(tmp / "disks.csv")), **LOG, "unit": "disk"},
                  {**small, "units_per_node": 4}),
        "cluster-wide": ({"log": str(cluster_wide_log(tmp / "wide.csv")), **LOG}, small),
    }


def _text(path):
    """A page's visible text, tags and entities removed, whitespace folded."""
    raw = re.sub(r"<style.*?</style>|<script.*?</script>", " ", path.read_text(encoding="utf-8"), flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", raw)))


def _said(h):
    """The headline as people read it, the phrases every text face must hold."""
    out = [f"Checkpoint every {P.duration(h['optimal_interval_h'])}", f"Expected ETTR {P.pct(h['ettr'])}",
           f"interrupted every {P.duration(h['job_mtbf_h'])}"]
    if P.pct(h["ettr_lo"]) != P.pct(h["ettr_hi"]):
        out.append(P.pct_range(h["ettr_lo"], h["ettr_hi"]))
    if h.get("required_node_mtbf_h") is not None and h["ettr"] < 0.9:  # a target already met needs no node MTBF
        out.append(f"nodes must reach {P.hours_text(h['required_node_mtbf_h'])}")
    return out


class _Renders:
    """Each source's report, rendered the first time a test asks for it, once for the whole run: under pytest-xdist
    the two test processes share the renders through a file lock (:func:`conftest._render_once`), so each source is
    rendered by whichever process asks first and the tests of one source can run in either process."""

    def __init__(self, root):
        self.root = root
        self.inputs = root / f"one-inputs-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
        self.got = {}

    def _sources(self):
        if not hasattr(self, "sources"):  # each process writes its own copy of the (seeded, identical) inputs
            self.inputs.mkdir(exist_ok=True)
            self.sources = _sources(self.inputs)
        return self.sources

    def __getitem__(self, name):
        if name not in self.got:
            from types import SimpleNamespace

            from conftest import _render_once
            params, extra = self._sources()[name]
            slug = "one-" + re.sub(r"\W+", "-", name)

            def render(root, out):
                args = ["report", "-q", "-j", "1", "--out", out]
                skip = {"01": name not in WITH_DATA, "02": name not in WITH_FITS}
                for n in NOTEBOOKS:
                    args += [] if skip.get(n) else ["-n", n]
                for k, v in {**params, **extra, **SMALL}.items():
                    args += ["-p", f"{k}={json.dumps(v) if isinstance(v, list) else v}"]
                res = run_cli(*args)
                return {"output": res.output, "exit_code": res.exit_code}

            _render_once(self.root, slug, SimpleNamespace(render=render))
            done = json.loads((self.root / f"{slug}.json").read_text())
            self.got[name] = (params, extra, self.root / slug, SimpleNamespace(**done))
        return self.got[name]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    from conftest import _shared_folder
    return _Renders(_shared_folder(tmp_path_factory))


@pytest.mark.parametrize("name", ["count table", "stepfun", "lanl", "slurm export", "slurm + syslog", "rising", "reboots", "one gpu a node",
                                  "disks", "cluster-wide"])
def test_every_face_says_the_one_decision(rendered, name):
    params, extra, folder, res = rendered[name]
    assert res.exit_code == 0, res.output
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["status"] == "complete", summary["failed"]
    h = summary["headline"]
    for k in KEYS + ("source",):
        assert k in h, k
    assert h["source"]["restart"] in ("measured from the log", "assumption")
    said = _said(h)
    faces = {"index": _text(folder / "index.html"), "answers": " ".join(summary["answers"]),
             "terminal": res.output}
    for face, text in faces.items():
        for phrase in said:
            assert phrase in text, (face, phrase)
    assert said[0] in _text(folder / "03_checkpoint_interval.html")
    page4 = _text(folder / "04_requirements_at_scale.html")
    assert said[1] in page4 and said[-1] in page4
    if h["basis"] == "simulation" and said[-1].startswith("nodes must reach"):  # the requirement's law, said alike
        law = f"The requirement is solved with the {h['law']} law the data support"
        assert law in faces["index"] and law in page4 and law in faces["terminal"]
    assert "(x–x)" not in faces["index"] and not re.search(r"\((\d+\.\d)%?–\1%\)", faces["index"])
    # the CLI and the API: the same floats
    gpn = [] if "gpus_per_node" not in params else ["--source-gpus-per-node", params["gpus_per_node"],
                                                     "--gpus-per-node", params["gpus_per_node"]]
    warnings.simplefilter("ignore")  # the generated logs' overlap notes, said by the CLI and the API alike
    n = extra["n_gpus"]
    more = [] if "units_per_node" not in extra else ["--units-per-node", extra["units_per_node"]]
    cli_int = run_cli("interval", "--log", *_cli_log(params), "--gpus", n, *gpn, *more, "--format", "json",
                      "--seed", 0)
    assert cli_int.exit_code == 0, cli_int.output
    cli_req = run_cli("requirements", "--log", *_cli_log(params), "--gpus", n, *gpn[:2], *more,
                      "--format", "json")
    assert cli_req.exit_code == 0, cli_req.output
    kw = {k: v for k, v in params.items() if k not in ("log",)}
    api = decide(load_source(params["log"], **kw), n, 0.9, "1min", None, gpus_per_node=params.get("gpus_per_node"),
                 seed=0, units_per_node=extra.get("units_per_node")).headline()
    for face, got in (("interval", json.loads(cli_int.output[cli_int.output.index("{"):])["decision"]),
                      ("requirements", json.loads(cli_req.output[cli_req.output.index("{"):])["decision"]),
                      ("api", api)):
        for k in KEYS:
            if h[k] is None:
                assert got[k] is None, (face, k)
            else:
                assert got[k] == pytest.approx(h[k], rel=1e-9), (face, k)


def test_today_does_not_move_with_the_planned_size(tmp_path):
    src = load_source(str(steady_log(tmp_path / "s.csv")), **LOG)
    small, big = (decide(src, n, 0.9, "1min", "10min", simulate=False, n_boot=200, seed=0) for n in (4096, 131072))
    assert small.todays_node_mtbf_h == big.todays_node_mtbf_h


def test_the_index_names_its_inputs_and_choices(rendered):
    text = _text(rendered["slurm export"][2] / "index.html")
    assert "measured from the log" in text and "requeue gaps" in text  # restart read from the export
    assert "Observed cluster" in text
    index = _text(rendered["stepfun"][2] / "index.html")
    assert re.search(r"Observed cluster [^|]*? measured from the log", index)
    wide = json.loads((rendered["cluster-wide"][2] / "summary.json").read_text())
    assert "Storage stall" in wide["records"]["03_checkpoint_interval"]["decision"]["per_job_causes"]
    assert "Storage stall (strikes many nodes at once)" in _text(rendered["cluster-wide"][2] / "index.html")
    rising = _text(rendered["rising"][2] / "index.html")
    assert "The failure rate is rising: the job is interrupted every" in rising and "on average over the window" in \
        rising
    reboots = " ".join(json.loads((rendered["reboots"][2] / "summary.json").read_text())["warnings"])
    assert "of the outages last under 10 minutes" in reboots


def test_todays_rate_recovers_the_generators_truth(tmp_path):
    """A power-law log whose rate doubles: today's rate is the generator's rate at the window's end, not the
    average (the average is half of it for beta = 2)."""
    path, truth = rising_log(tmp_path / "r.csv", expected=400, seed=21)
    src = load_source(str(path), **LOG, source_gpus=800)  # 100 nodes of 8 GPUs
    d = decide(src, 800, 0.9, "1min", "10min", simulate=False, n_boot=200, seed=0)
    assert d.trend == "rising"
    true_node = 100 / truth  # every cause here is a hardware cause
    assert d.todays_node_lo <= true_node <= d.todays_node_hi
    assert d.average_node_mtbf_h == pytest.approx(2 * d.todays_node_mtbf_h, rel=0.35)
    assert d.todays_node_hi < 100 / (400 / 2000.0)  # the window's average rate is ruled out as "today"


def test_detection_latency_is_the_generators(tmp_path):
    """The headline's detection latency is the median of the hangs the generator wrote (whole seconds, so exact),
    labelled measured; the restart is the generator's requeue gaps plus that latency, not the 10-min default."""
    sacct, syslog, truth = slurm_syslog(tmp_path, seed=29)
    src = load_source(str(sacct), format="sacct", job="train", syslog=str(syslog), year=2024)
    h = decide(src, 256, 0.9, "1min", None, simulate=False, n_boot=200, seed=0).headline()
    assert h["detection_latency_h"] == pytest.approx(float(np.median(truth)), abs=1e-6)
    assert h["source"]["detection_latency"] == "measured from the log"
    assert h["source"]["restart"] == "measured from the log"
    assert h["restart_h"] > 20 / 60  # every generated requeue gap is 20-30 min


def test_the_syslog_report_says_latency_was_measured_and_backtests_at_the_fault(rendered):
    params, _, folder, _ = rendered["slurm + syslog"]
    index = _text(folder / "index.html")
    assert re.search(r"Detection latency \(fault to job end\) [^|]*? measured from the log", index)
    bt = json.loads((folder / "summary.json").read_text())["records"]["03_checkpoint_interval"]["backtest"]
    from relmodel import read_sacct, read_xid
    from relmodel.checkpoint import backtest
    run = read_sacct(params["log"], job="train")
    kern = read_xid(params["syslog"], year=2024)
    assert bt["observed_ettr"] == pytest.approx(backtest(run, "1h", "1min", kernel=kern).observed_ettr, rel=1e-9)
    assert bt["observed_ettr"] < backtest(run, "1h", "1min").observed_ettr  # the hang after each fault is lost


def _tables(path):
    """Each table of a page as (header alignments, rows of (cell alignment, text))."""
    from html.parser import HTMLParser

    class Tables(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tables, self.cell = [], None

        def handle_starttag(self, tag, attrs):
            style = dict(attrs).get("style") or ""
            align = re.search(r"text-align:\s*(\w+)", style)
            if tag == "table":
                self.tables.append([])
            elif tag == "tr" and self.tables:
                self.tables[-1].append([])
            elif tag in ("th", "td") and self.tables and self.tables[-1]:
                self.cell = [tag, align.group(1) if align else None, ""]
                self.tables[-1][-1].append(self.cell)

        def handle_endtag(self, tag):
            if tag in ("th", "td"):
                self.cell = None

        def handle_data(self, data):
            if self.cell is not None:
                self.cell[2] += data

    p = Tables()
    p.feed(path.read_text(encoding="utf-8"))
    return p.tables


@pytest.mark.parametrize("name", ["count table", "slurm + syslog", "rising", "reboots"])
def test_pages_read_as_a_buyer_reads_them(rendered, name):
    """What a person reading the pages at 1280 px saw: no range whose ends are one figure ("(2–2 ...)", "(93.1–93.1%)",
    "(18 min to 18 min)"); the interval, job MTBF and node MTBF ranges say what they cover; every table header names
    its column and sits over its cells (the same alignment); no cell holds parentheses inside parentheses; a law
    named for a person is capitalised."""
    folder = rendered[name][2]
    pages = sorted(folder.glob("*.html"))
    assert len(pages) == len(NOTEBOOKS) + 1
    for page in pages:
        text = _text(page)
        assert not re.search(r"\((\d[\d.,]*)(%?)–\1\2(?![\d.,])", text), (page.name, text)
        assert not re.search(r"\((\d[\d.,]*(?: \w+)?) to \1\)", text), page.name
        for m in re.finditer(r"(Checkpoint every [\d.,]+ \w+|every [\d.,]+ \w+ (?:on average|now)|nodes must reach [\d,]+ h) "
                             r"\((\d[\d.,]* ?\w* ?(?:to|–)[^()]*)\)", text):  # a range right after the figure it bounds
            assert "range" in m.group(2) or "same" in m.group(2), (page.name, m.group(0))
        assert "weibull law" not in text, page.name
        assert not re.search(r"\b1 (?:\w+ )?rows\b", text), page.name  # one row, not "1 rows"
        for table in _tables(page):
            head = [c for c in table[0] if c[0] == "th"]
            assert all(c[2].strip() for c in head), (page.name, [c[2] for c in head])
            for row in table[1:]:
                if len(row) == len(head):
                    assert [c[1] for c in row] == [c[1] for c in head], (page.name, [c[2] for c in head])
                for c in row:
                    assert not re.search(r"\([^()]*\(", c[2]), (page.name, c[2])


def test_short_outage_share_is_one_figure_on_the_index_and_the_data_page(rendered):
    """The reboots log's share of outages under 10 minutes, counted by hand from the CSV the generator wrote (no two
    outages of a node overlap there), is printed the same on the index's warning and page 01."""
    params, _, folder, _ = rendered["reboots"]
    log = pd.read_csv(params["log"], parse_dates=["start", "end"])
    share = f"{100 * ((log['end'] - log['start']) < pd.Timedelta(minutes=10)).mean():.1f}%"
    assert f"{share} of the outages last under 10 minutes" in _text(folder / "index.html")
    assert f"{share} under 10 min" in _text(folder / "01_log_explorer.html")


@pytest.mark.parametrize("name", ["stepfun", "slurm + syslog", "rising", "reboots"])
def test_the_fit_page_names_the_law_the_answer_uses(rendered, name):
    """Page 02 ranks laws on its own durations; it must also say which law the headline simulates with, and that law
    must be the one summary.json's headline names (basis simulation) or exponential (formula)."""
    _, _, folder, _ = rendered[name]
    h = json.loads((folder / "summary.json").read_text())["headline"]
    page2 = _text(folder / "02_failure_distributions.html")
    law = h["law"] if h["basis"] == "simulation" else "exponential"
    law = {"loglogistic": "log-logistic"}.get(law, law)
    said = re.search(r"The answer on pages 03 and 04 and the index (?:simulates the job with|uses) the ([\w-]+) law",
                     page2)
    assert said, page2[:3000]
    assert said.group(1).lower() == law.lower()
