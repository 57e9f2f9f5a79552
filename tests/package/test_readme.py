"""The README's Python examples run as written, and the numbers they show are right.

The README and its topic pages under docs/ are read as one text (conftest.DOC_PAGES).  Every ```python
block of each page runs on its own, in a fresh namespace.  A line whose comment
ends in ``-> value`` is checked: the expression's value must equal the
literal, rounded to the digits written (``-> 0.2739`` means 4 decimals,
``-> 6_335`` a whole number).  Numbers stated in prose are recomputed here
from closed forms and published counts, independently of relmodel.
"""

import ast
import io
import math
import re
import tokenize
import warnings

import numpy as np
import pytest
from scipy import optimize, stats

from conftest import DOC_PAGES, REPO, doc_blocks
from relmodel.errors import ArgumentOrderWarning

README = (REPO / "README.md").read_text(encoding="utf-8")
#: The README and its topic pages as one text, for the figures their prose states.
PAGES = "\n\n".join(page.read_text(encoding="utf-8") for page in DOC_PAGES)
#: (page, block number on the page, text) of every python block of the README and the topic pages.
BLOCKS = doc_blocks("python")
README_MAX_LINES = 450
ARROW = re.compile(r"->\s*(.+?)\s*$")


def _arrows(source):
    """{line number: expected literal text} from comments ending in ``-> value``."""
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT and (m := ARROW.search(tok.string)):
            out[tok.start[0]] = m.group(1)
    return out


def _numbers(text):
    """Number literals in ``text``, in order, with the decimals each is written with."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NUMBER:
            s = tok.string.replace("_", "")
            out.append(len(s.split(".")[1]) if "." in s else 0)
    return out


def _flatten(x):
    if isinstance(x, (tuple, list)):
        return [y for v in x for y in _flatten(v)]
    return [x]


def _matches(actual, text):
    want = ast.literal_eval(text)
    got, exp, decimals = _flatten(actual), _flatten(want), iter(_numbers(text))
    if len(got) != len(exp):
        return False
    for g, e in zip(got, exp):
        if isinstance(e, (int, float)) and not isinstance(e, bool):
            if round(float(g), next(decimals)) != e:
                return False
        elif g != e:
            return False
    return True


def _run_block(block, ns, where):
    arrows, checked = _arrows(block), 0
    for node in ast.parse(block).body:
        code = ast.get_source_segment(block, node)
        expected = arrows.get(node.end_lineno)
        if expected is None:
            exec(compile(ast.Module([node], []), where, "exec"), ns)
            continue
        assert isinstance(node, ast.Expr), f"{where}: '-> {expected}' must follow an expression: {code}"
        value = eval(compile(ast.Expression(node.value), where, "eval"), ns)
        assert _matches(value, expected), f"{where}: {code}\n  shows -> {expected}\n  returns {value!r}"
        checked += 1
    return checked


def test_readme_has_examples():
    assert len(re.findall(r"```python\n", README)) >= 4
    assert len(BLOCKS) >= 30  # the topic pages keep the detailed examples the README links to


def test_the_readme_stays_short_enough_to_read():
    assert len(README.splitlines()) <= README_MAX_LINES, "move the detail into a topic page under docs/"


def test_arrow_checker_can_fail():
    assert _matches((0.27386, 501.04), "(0.2739, 501)")
    assert not _matches((0.27386, 501.04), "(0.2738, 501)")
    assert not _matches(1.16e107, "62.63")
    assert _matches(101290.4, "101_290") and _matches("steady", "'steady'")


def test_readme_python_blocks_run_alone_and_show_true_values():
    """Each block of the README and of the topic pages runs on its own, in a fresh namespace, as a reader pastes it."""
    checked, names = 0, {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # reading a raw log warns about its rows, as documented
        warnings.simplefilter("error", ArgumentOrderWarning)  # but no example may look swapped
        for page, i, block in BLOCKS:
            ns = {}
            checked += _run_block(block, ns, f"{page} python block {i}")
            names.update(ns)
    assert checked >= 40, "the README's examples should show (and so check) their values"
    assert names["tau"] > 0 and names["plan"].feasible


# --- numbers stated in prose, recomputed from closed forms and published counts ---

LLAMA_H, LLAMA_N, LLAMA_JOB = 54 * 24, 419, 63  # Llama 3 (arXiv 2407.21783), Table 5: 54 days, 419
# interruptions on 16,384 GPUs / 2,048 nodes; software bug, NCCL watchdog and dependency: 63 per job


def _daly_ettr(t, m, d, r):
    return t / (m * math.exp(r / m) * math.expm1((t + d) / m))


def _best(m, d, r):
    res = optimize.minimize_scalar(lambda t: -_daly_ettr(t, m, d, r), bounds=(1e-6, 10 * m), method="bounded",
                                   options={"xatol": 1e-12})
    return res.x, -res.fun


def _required_job_mtbf(target, d, r):
    return math.exp(optimize.brentq(lambda x: _best(math.exp(x), d, r)[1] - target, -5, 15, xtol=1e-12))


def _says(*phrases):
    text = " ".join(PAGES.split())
    for p in phrases:
        assert p in text, f"neither the README nor docs/*.md says {p!r} any more; update this test with the new figure"


def test_prose_rates_on_llama3():
    lo, hi = stats.chi2.ppf(0.025, 2 * LLAMA_N) / 2, stats.chi2.ppf(0.975, 2 * LLAMA_N + 2) / 2  # Garwood
    job = LLAMA_H / LLAMA_N
    _says(f"job MTBF {job:.2f} h ({LLAMA_H / hi:.2f} to {LLAMA_H / lo:.2f} h, 95%)",
          f"node MTBF {job * 2048:,.0f} h", f"GPU MTBF {job * 16384:,.0f} h",
          f"148/419 = {100 * 148 / 419:.1f}%")


def test_prose_checkpoint_example():
    m, d, r = 3.0, 45 / 3600, 10 / 60
    tau, e = _best(m, d, r)
    wall = 54 * 24 / e
    _says(f"best interval of {60 * tau:.1f} minutes", f"Young's rule says {60 * math.sqrt(2 * d * m):.1f}",
          f"ETTR of {e:.3f}", f"takes {wall / 24:.1f} days", f"about {wall / m:.0f} failures")


def test_prose_requirements_example():
    need = _required_job_mtbf(0.9, 1 / 60, 10 / 60)
    nodes = 100_000 / 8
    held = nodes / (1 / need - LLAMA_JOB / LLAMA_H)
    _says(f"{LLAMA_JOB} of {LLAMA_N} interruptions", f"same number ({held:,.0f} h above)",
          f"asks less of them ({nodes * need:,.0f} h above)",
          f"held at {24 * LLAMA_JOB / LLAMA_H:.1f} a day")


def test_report_headline_numbers_shown():
    m = LLAMA_H / LLAMA_N
    r = 10 / 60 + 265 / 3600 * 16384 / 98304  # the default restart: 10 min plus NCCL start-up grown to 16,384 GPUs
    tau, e = _best(m, 1 / 60, r)
    node = 2048 / (1 / _required_job_mtbf(0.9, 1 / 60, r) - LLAMA_JOB / LLAMA_H)
    need = _required_job_mtbf(0.9, 1 / 60, r)
    _says(f"Checkpoint every {60 * tau:.0f} min", f"Expected ETTR {100 * e:.1f}%", f"every {m:.1f} h on average",
          f"needs an MTBF of {need:.2g} h", f"observed {24 * LLAMA_JOB / LLAMA_H:.1f} a day",
          f"nodes must reach {float(f'{node:.3g}'):,.0f} h", f"reaches ETTR {e:.2f}")


