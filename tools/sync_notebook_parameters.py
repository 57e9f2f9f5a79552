"""Write the scenario's parameter lines into the notebooks' parameters cells, and its table into the README.

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
    """The README's table of the scenario's fields, in Markdown."""
    rows = ["| field | default | unit | meaning | default from |", "|---|---|---|---|---|"]
    for f in FIELDS:
        default = "None" if f.default in (None, ()) else f"`{f.default}`"
        rows.append(f"| `{f.name}` | {default} | {f.unit or '-'} | {f.help} | {f.default_from} |")
    return "\n".join(rows)


README_START = "<!-- scenario fields: written by tools/sync_notebook_parameters.py -->"
README_END = "<!-- /scenario fields -->"


def readme_with_table(text):
    """The README's text with its scenario table (between the two markers) rewritten."""
    head, _, rest = text.partition(README_START)
    _, _, tail = rest.partition(README_END)
    return f"{head}{README_START}\n{fields_table()}\n{README_END}{tail}"


def main():
    readme = REPO / "README.md"
    text = readme.read_text(encoding="utf-8")
    if readme_with_table(text) != text:
        readme.write_text(readme_with_table(text), encoding="utf-8")
        print("rewrote README.md's table of the scenario's fields")
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
