"""A notebook that stopped at a failing cell: where it stopped, and how each page says so.

The executed notebook keeps the full error; the HTML pages and the index show
one styled sentence instead of a traceback (presentation rule 7 of
:mod:`relmodel.report`).
"""

from relmodel.base.escape import html_text

__all__ = ["ERROR_CELL_TAG", "failed_cell", "failure_message", "stopped_note", "failure_sentence",
           "status_text"]

#: Tag of the banner cells papermill adds above a failing cell.
ERROR_CELL_TAG = "papermill-error-cell-tag"

_SKIP_TAGS = {"injected-parameters", ERROR_CELL_TAG}


def failed_cell(source_nb, executed):
    """1-based position, in the user's notebook, of the executed notebook's failing cell."""
    failing = next((c for c in executed.cells if any(o.get("output_type") == "error"
                                                     for o in c.get("outputs", []))), None)
    if failing is None:
        return None
    ids = [c.get("id") for c in source_nb.cells]
    if failing.get("id") in ids and failing.get("id") is not None:
        return ids.index(failing.get("id")) + 1
    own = [c for c in executed.cells if not _SKIP_TAGS & set(c.metadata.get("tags", []))]
    return next((i + 1 for i, c in enumerate(own) if c is failing), None)


def failure_message(name, exc, number):
    """The error of one notebook for the terminal and summary.json (names notebook and cell)."""
    source = (exc.source or "").strip().splitlines()
    first = source[0] if source else ""
    where = f"cell {number} of the notebook" if number else "a cell"
    return (f"{name}: {where} (In [{exc.exec_count}]: {first!r}) failed with "
            f"{exc.ename}: {exc.evalue}; the partly executed notebook is kept as {name}.ipynb")


def stopped_note(output):
    """An error output of a notebook as one styled sentence, for its HTML page."""
    import nbformat

    text = (f"This page stops here: the next step failed with {output.get('ename', 'an error')}: "
            f"{output.get('evalue', '')}. What comes before it is complete; the executed notebook "
            "beside this page holds the full error.")
    note = ("<div style='border-left:4px solid #a00;background:#fbeaea;padding:.4em .8em'>"
            f"{html_text(text)}</div>")
    return nbformat.v4.new_output("display_data", data={"text/html": note, "text/plain": text})


def status_text(entry):
    """The status cell of a notebook on the index: "complete" or where it stopped.

    Examples
    --------
    >>> status_text({"error": None})
    'complete'
    >>> status_text({"error": "...", "failure": {"cell": 5, "error": "ModelInputError"}})
    'stopped at cell 5 (ModelInputError)'
    """
    if not entry.get("error"):
        return "complete"
    failure = entry.get("failure") or {}
    cell = f" at cell {failure['cell']}" if failure.get("cell") else ""
    kind = f" ({failure['error']})" if failure.get("error") else ""
    return f"stopped{cell}{kind}"


def failure_sentence(entry, title):
    """One sentence for the index: which page stopped, where, and where to read why.

    Examples
    --------
    >>> failure_sentence({"name": "06_designs", "error": "...", "failure": {"cell": 5, "error": "ModelInputError"}},
    ...                  "Cluster designs")
    'This report is partial: page 06 (Cluster designs) stopped at cell 5 (ModelInputError); its page shows the error and the answers it would give are missing.'
    """
    number = entry["name"].split("_")[0]
    page = f"page {number}" if number.isdigit() else f"page {entry['name']}"
    where = status_text(entry)
    return (f"This report is partial: {page} ({title}) {where}; its page shows the error and the "
            "answers it would give are missing.")
