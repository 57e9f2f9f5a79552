"""What a report page loads from the network: only the scripts its own content needs.

nbconvert's lab template puts ``<script src=...>`` tags for require.js,
MathJax and Mermaid from a CDN in the head of every page, and the Jupyter
widget manager in any notebook that stored widget state. A report page is
a file opened where the user is, often on a cluster without internet access,
where a blocking script in the head holds the page blank until the request
fails. So the page template (:data:`TEMPLATE`, a child of the lab template)
keeps each script only when :func:`scripts_needed` finds content that uses
it: TeX math for MathJax, a Mermaid diagram for Mermaid, JavaScript outputs
for require.js. The widget manager is never loaded: widgets need a live
kernel, which a rendered page does not have (the what-if page says so and
shows its figure instead).
"""

import re

__all__ = ["TEMPLATE_NAME", "TEMPLATE", "html_exporter", "scripts_needed"]

#: The name the page template is registered under.
TEMPLATE_NAME = "relmodel_page.html.j2"

#: nbconvert's lab page with each CDN script kept only when ``resources.relmodel_scripts`` says so.
TEMPLATE = """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js_requirejs -%}
{%- if resources.relmodel_scripts.requirejs -%}{{ super() }}{%- endif -%}
{%- endblock html_head_js_requirejs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}
{%- if resources.relmodel_scripts.mathjax -%}{{ super() }}{%- endif -%}
{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}
{%- if resources.relmodel_scripts.mermaid -%}{{ super() }}{%- endif -%}
{%- endblock html_head_js_mermaidjs -%}
"""

# TeX as MathJax reads it: $...$, $$...$$, \(...\), \[...\] or an environment.
_MATH = re.compile(r"\$[^$\n]+\$|\\\(|\\\[|\\begin\{")
_MERMAID = re.compile(r"^\s*```\s*mermaid", re.M)
_REQUIRE = re.compile(r"\brequire(js)?\s*[(.\[]|\bdefine\s*\(")


def _text(value):
    return "".join(value) if isinstance(value, list) else str(value)


def scripts_needed(nb):
    """{"requirejs", "mathjax", "mermaid"}: whether the executed notebook ``nb`` has content that uses each."""
    need = {"requirejs": False, "mathjax": False, "mermaid": False}
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            source = _text(cell.get("source", ""))
            need["mathjax"] |= bool(_MATH.search(source))
            need["mermaid"] |= bool(_MERMAID.search(source))
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            need["mathjax"] |= "text/latex" in data or bool(_MATH.search(_text(data.get("text/markdown", ""))))
            need["mermaid"] |= "text/vnd.mermaid" in data
            need["requirejs"] |= ("application/javascript" in data
                                  or bool(_REQUIRE.search(_text(data.get("text/html", "")))))
    return need


_EXPORTER = None


def html_exporter():
    """The report's nbconvert ``HTMLExporter``: the page template, inputs and prompts hidden; made once per process.

    Made (and its templates compiled) in the fork server, it is every pool worker's (:mod:`.kernels.worker_start`).
    """
    global _EXPORTER
    if _EXPORTER is None:
        import jinja2
        from nbconvert import HTMLExporter

        _EXPORTER = HTMLExporter(extra_loaders=[jinja2.DictLoader({TEMPLATE_NAME: TEMPLATE})],
                                 template_file=TEMPLATE_NAME, exclude_input=True, exclude_input_prompt=True,
                                 exclude_output_prompt=True)
    return _EXPORTER
