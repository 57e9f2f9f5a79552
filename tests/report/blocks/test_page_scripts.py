"""A report page loads from the network only what its content needs (relmodel.report.blocks.page_scripts).

The pages are checked as HTML here: every ``<script src>`` and ``<link href>``
is listed with a plain regular expression, and nbconvert's own lab page (the
stock HTMLExporter) is the reference for what the scripts look like.
"""

import re

import nbformat
import pytest
from nbconvert import HTMLExporter

from relmodel.report.pipeline.execute import to_html
from relmodel.report.blocks.page_scripts import scripts_needed

_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.I | re.S)
_URL = re.compile(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}[^\s\"'<>]*", re.I)


def _remote(html):
    """Every network address a script of the page names: its ``src``, or a URL in its code (imports, loaders)."""
    return sorted({u for attrs, code in _SCRIPT.findall(html) for u in _URL.findall(attrs + " " + code)})


def _notebook(*cells, metadata=None):
    nb = nbformat.v4.new_notebook(cells=list(cells))
    nb.metadata.update(metadata or {})
    return nb


def _code(**data):
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [nbformat.v4.new_output("display_data", data=data)]
    return cell


def test_a_plain_page_loads_nothing_that_the_stock_page_loads():
    nb = _notebook(nbformat.v4.new_markdown_cell("# Checkpoint every 16 min\n\nETTR 86.5%, at 16,384 GPUs."),
                   _code(**{"text/plain": "table", "text/html": "<b>86.5%</b>"}))
    stock, _ = HTMLExporter(exclude_input=True).from_notebook_node(nb)
    assert any("require" in u for u in _remote(stock)) and any("mathjax" in u for u in _remote(stock))
    assert _remote(to_html(nb)) == []


@pytest.mark.parametrize("cell, needle", [
    (nbformat.v4.new_markdown_cell("the hazard $h(t) = \\lambda$"), "mathjax"),
    (nbformat.v4.new_markdown_cell("$$\\int_0^\\tau f$$"), "mathjax"),
    (_code(**{"text/latex": "$x^2$", "text/plain": "x"}), "mathjax"),
    (_code(**{"text/vnd.mermaid": "graph TD; A-->B", "text/plain": "g"}), "mermaid"),
    (_code(**{"application/javascript": "console.log(1)", "text/plain": ""}), "require"),
    (_code(**{"text/html": "<script>require(['plotly'], function (p) {})</script>", "text/plain": ""}), "require"),
])
def test_content_that_needs_a_script_keeps_it(cell, needle):
    remote = _remote(to_html(_notebook(cell)))
    assert any(needle in u.lower() for u in remote), remote


def test_dollar_amounts_on_separate_lines_are_not_math():
    nb = _notebook(nbformat.v4.new_markdown_cell("spares cost $40,000\n\nand save $1.2M a year"))
    assert scripts_needed(nb) == {"requirejs": False, "mathjax": False, "mermaid": False}


def test_stored_widget_state_does_not_load_the_widget_manager():
    state = {"application/vnd.jupyter.widget-state+json": {"version_major": 2, "version_minor": 0, "state": {}}}
    nb = _notebook(_code(**{"application/vnd.jupyter.widget-view+json": {"model_id": "a", "version_major": 2,
                                                                          "version_minor": 0},
                            "text/plain": "IntSlider(value=3)"}),
                   metadata={"widgets": state})
    stock, _ = HTMLExporter(exclude_input=True).from_notebook_node(nb)
    assert any("unpkg" in u for u in _remote(stock))  # the stock page loads the widget manager from a CDN
    assert _remote(to_html(nb)) == []
