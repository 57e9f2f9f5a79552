"""A notebook's cells read straight from its JSON, for the steps that only look at them.

Importing nbformat loads its schema checker (jsonschema and the format
checkers it finds installed), which can take seconds; reading the parameters
cell of a notebook for ``relmodel report --help`` or for checking values needs
none of it.  A file that is not nbformat 4 is read through nbformat, which
converts it.
"""

import json
from pathlib import Path
from types import SimpleNamespace

from ...errors import NotebookFileError, NotebookKernelError

__all__ = ["read_cells"]


def _cell(raw):
    source = raw.get("source", "")
    return SimpleNamespace(cell_type=raw.get("cell_type"), metadata=raw.get("metadata") or {},
                           source="".join(source) if isinstance(source, list) else source)


def read_cells(path):
    """The notebook at ``path`` as an object whose ``cells`` have ``cell_type``, ``metadata`` and ``source`` (text).

    ``path`` is the path of an ``.ipynb`` file; a file that is not JSON or not a
    notebook raises :class:`~relmodel.errors.NotebookFileError`, one that is not
    nbformat 4 is converted by nbformat.  A notebook whose kernelspec or language
    names another language than Python raises :class:`~relmodel.errors.NotebookKernelError`:
    a report's kernels run Python, where an R cell (``x <- 1``) would fail.

    Examples
    --------
    >>> from relmodel.resources import notebook_dir
    >>> nb = read_cells(notebook_dir() / "03_checkpoint_interval.ipynb")
    >>> [c.cell_type for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    ['code']
    """
    path = Path(path)
    try:
        with path.open(encoding="utf-8") as f:
            raw = json.load(f)
    except UnicodeDecodeError:
        raise NotebookFileError(f"{path}: not a notebook (not UTF-8 text); give an .ipynb file saved by "
                                "Jupyter") from None
    except json.JSONDecodeError as exc:
        raise NotebookFileError(f"{path}: not a notebook (not JSON: {exc.msg} at line {exc.lineno}, column "
                                f"{exc.colno}); give an .ipynb file saved by Jupyter") from None
    if not isinstance(raw, dict) or raw.get("nbformat") != 4 or not isinstance(raw.get("cells"), list):
        nb = _converted(path, raw)
        _check_language(path, nb.metadata)
        return nb
    _check_language(path, raw.get("metadata"))
    return SimpleNamespace(cells=[_cell(c) for c in raw["cells"] if isinstance(c, dict)])


def _text(value):
    return value.strip() if isinstance(value, str) else ""


def _check_language(path, metadata):
    """Refuse a notebook whose kernelspec or language_info names a language other than Python."""
    metadata = metadata if isinstance(metadata, dict) else {}
    spec = metadata.get("kernelspec") if isinstance(metadata.get("kernelspec"), dict) else {}
    info = metadata.get("language_info") if isinstance(metadata.get("language_info"), dict) else {}
    language = _text(spec.get("language")) or _text(info.get("name"))
    if not language or language.lower() in ("python", "python3", "ipython", "ipython3"):
        return
    kernel = _text(spec.get("display_name")) or _text(spec.get("name")) or language
    raise NotebookKernelError(
        f"{path}: a notebook for the {kernel!r} kernel (language {language!r}); a report runs every notebook "
        "in Python, so its cells would fail there: run it with Jupyter or papermill under its own kernel, "
        "or give a Python notebook")


def _converted(path, raw):
    """A notebook that is JSON but not nbformat 4, read through nbformat (NotebookFileError when it cannot)."""
    import nbformat

    if not isinstance(raw, dict) or not isinstance(raw.get("nbformat"), int):
        raise NotebookFileError(f"{path}: JSON, but not a notebook (no nbformat version); give an .ipynb file "
                                "saved by Jupyter")
    try:
        return nbformat.read(path, as_version=4)
    except Exception as exc:  # noqa: BLE001 -- nbformat raises many kinds for a file it cannot convert
        raise NotebookFileError(f"{path}: a notebook of format {raw.get('nbformat')} that cannot be read as "
                                f"format 4 ({type(exc).__name__}); save it again with Jupyter") from None
