"""Write the scenario's parameter lines into the notebooks' parameters cells, and its table into the docs.

The table of the scenario's fields goes between two markers on the page that holds them (the README or a topic
page under docs/; today docs/reports.md, under "Notebook parameters").

Every notebook parameter named like a field of :class:`relmodel.scenario.Scenario` (except ``gpus_per_node``, which
the pages also read the log with) is declared by the field's own line, :meth:`relmodel.scenario.Field.parameter_line`:
one default and one help text in the API, the command line and the report.  Run it after changing a field;
tests/scale/test_scenario.py fails while a notebook holds another line.

    python tools/sync_notebook_parameters.py
"""

import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from relmodel.scenario import FIELDS  # noqa: E402

#: Fields the notebooks declare otherwise: the pages read the log with gpus_per_node (8 when the data do not say).
OWN_LINES = ("gpus_per_node",)


def synced(source):
    """The parameters cell's text with each scenario field's line replaced by the field's own."""
    lines = source.splitlines(keepends=True)
    for i, line in enumerate(lines):
        m = re.match(r"(\w+)\s*:", line)
        field = next((f for f in FIELDS if m and f.name == m.group(1) and f.name not in OWN_LINES), None)
        if field is not None:
            lines[i] = field.parameter_line() + ("\n" if line.endswith("\n") else "")
    return "".join(lines)


def fields_table():
    """The table of the scenario's fields, in Markdown."""
    rows = ["| field | default | unit | meaning | default from |", "|---|---|---|---|---|"]
    for f in FIELDS:
        default = "None" if f.default in (None, ()) else f"`{f.default}`"
        rows.append(f"| `{f.name}` | {default} | {f.unit or '-'} | {f.help} | {f.default_from} |")
    return "\n".join(rows)


TABLE_START = "<!-- scenario fields: written by tools/sync_notebook_parameters.py -->"
TABLE_END = "<!-- /scenario fields -->"


def table_pages():
    """The pages (README.md, docs/*.md) that hold the scenario table's markers."""
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    return [p for p in pages if TABLE_START in p.read_text(encoding="utf-8")]


def with_table(text):
    """The page's text with its scenario table (between the two markers) rewritten."""
    head, _, rest = text.partition(TABLE_START)
    _, _, tail = rest.partition(TABLE_END)
    return f"{head}{TABLE_START}\n{fields_table()}\n{TABLE_END}{tail}"


def main():
    pages = table_pages()
    if not pages:
        raise SystemExit(f"no page of README.md or docs/*.md holds {TABLE_START}")
    for page in pages:
        text = page.read_text(encoding="utf-8")
        if with_table(text) != text:
            page.write_text(with_table(text), encoding="utf-8")
            print(f"rewrote {page.relative_to(REPO)}'s table of the scenario's fields")
    changed = []
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        touched = False
        for cell in nb["cells"]:
            if cell["cell_type"] == "code" and "parameters" in cell.get("metadata", {}).get("tags", []):
                old = "".join(cell["source"])
                new = synced(old)
                if new != old:
                    cell["source"] = new.splitlines(keepends=True)
                    touched = True
        if touched:
            path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            changed.append(path.name)
    print("rewrote " + ", ".join(changed) if changed else "every notebook already holds the scenario's lines")


if __name__ == "__main__":
    main()
