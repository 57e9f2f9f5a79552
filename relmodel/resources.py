"""Where the notebook suite and the bundled data are: the one place that knows.

The repository keeps them at its root (``notebooks/``, ``data/``).  A wheel
carries copies as package data in ``relmodel/_suite/`` (the build step in
``setup.py`` puts them there), found through :mod:`importlib.resources`; a
source checkout or an editable install finds them beside the package, at the
root of the checkout that holds it.  Every other module asks here.

Base layer: imports only the standard library, :mod:`relmodel.errors` and :mod:`relmodel.base.outputs`.
"""

import os
from importlib.resources import files
from pathlib import Path

from .base.outputs import write_output
from .errors import SuiteCopyError

__all__ = ["SUITE", "PARTS", "import_root", "suite_folder", "notebook_dir", "data_dir", "copy_notebooks"]

#: Folder inside the installed package that holds the packaged copies.
SUITE = "_suite"

#: The parts of the repository a wheel carries as package data.
PARTS = ("notebooks", "data")


def _package():
    return Path(str(files("relmodel")))


def import_root():
    """The folder ``relmodel`` is imported from (a checkout's root or a ``site-packages``).

    Returns a ``pathlib.Path``; a kernel puts it first on its import path so
    it runs this relmodel, not another one installed elsewhere.

    Examples
    --------
    >>> (import_root() / "relmodel" / "__init__.py").exists()
    True
    """
    return _package().parent


def suite_folder(part):
    """The folder holding ``part`` ("notebooks" or "data") for the relmodel in use.

    The packaged copy (an installed wheel) comes first; otherwise the folder of
    that name at the root of the checkout holding the package (a checkout is
    told by its ``pyproject.toml``).  Returns a ``pathlib.Path``.  Raises
    :class:`~relmodel.errors.SuiteCopyError` for another name or when neither
    exists (a broken installation).

    Examples
    --------
    >>> suite_folder("notebooks").name
    'notebooks'
    """
    if part not in PARTS:
        raise SuiteCopyError(f"unknown part {part!r}: relmodel ships {' and '.join(PARTS)}")
    packaged = _package() / SUITE / part
    if packaged.is_dir():
        return packaged
    root = import_root()
    if (root / "pyproject.toml").is_file() and (root / part).is_dir():
        return root / part
    raise SuiteCopyError(f"relmodel's {part} folder is missing from {packaged} and from {root}: "
                         "reinstall relmodel from a wheel or a full checkout")


def notebook_dir():
    """The folder of the notebook suite (``*.ipynb``), read-only when installed.

    Returns a ``pathlib.Path``; :func:`copy_notebooks` makes a writable copy.

    Examples
    --------
    >>> sorted(p.name for p in notebook_dir().glob("0[1-2]*.ipynb"))
    ['01_log_explorer.ipynb', '02_failure_distributions.ipynb']
    """
    return suite_folder("notebooks")


def data_dir():
    """The folder of the bundled data: ``$RELMODEL_DATA`` when set, else the packaged ``data/``.

    Returns a ``pathlib.Path``.

    Examples
    --------
    >>> (data_dir() / "llama3-54day" / "table5.csv").exists()
    True
    """
    env = os.environ.get("RELMODEL_DATA")
    return Path(env) if env else suite_folder("data")


def copy_notebooks(target):
    """Copy the notebook suite into ``target`` (created if missing) for JupyterLab.

    Nothing there is overwritten and nothing is written through a link: when
    ``target`` already holds a notebook of the suite, or a symbolic link by
    that name (dangling or not), :class:`~relmodel.errors.SuiteCopyError` names
    it and nothing is copied.  An empty name is refused (it would mean the
    current folder).  Returns the list of copied paths.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     copy_notebooks(Path(folder) / "suite")[0].name
    '01_log_explorer.ipynb'
    """
    if target is None or not str(target).strip():
        raise SuiteCopyError("--copy: the folder name is empty (it would mean the current folder); name a new "
                             "or empty folder, or '.' for the current one")
    target = Path(target)
    if target.is_symlink() and not target.is_dir():
        raise SuiteCopyError(f"{target} is a symbolic link to nothing; name a new or empty folder")
    if target.exists() and not target.is_dir():
        raise SuiteCopyError(f"{target} is a file; name a new or empty folder to copy the notebooks into")
    sources = sorted(notebook_dir().glob("*.ipynb"))
    links = [target / s.name for s in sources if (target / s.name).is_symlink()]
    if links:
        raise SuiteCopyError(f"{links[0]} is a symbolic link (to {os.path.realpath(links[0])}); relmodel does not "
                             "write through links, so nothing was copied: remove it or name another folder")
    clashes = [target / s.name for s in sources if (target / s.name).exists()]
    if clashes:
        raise SuiteCopyError(f"{clashes[0]} already exists ({len(clashes)} of the suite's {len(sources)} notebooks "
                             "do); nothing was copied: name a new or empty folder")
    target.mkdir(parents=True, exist_ok=True)
    return [write_output(target / source.name, source.read_bytes(), "--copy") for source in sources]
