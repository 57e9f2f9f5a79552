"""Writing a file a user named: never through a link, never over a file without leave, never half.

Every file relmodel writes at a path the user gave (``relmodel fit --plot``,
``relmodel notebooks --copy``, the generators' ``path=``, Kineto examples)
goes through :func:`check_output` and :func:`write_output`:

- an empty name is refused (it would mean the current folder);
- a symbolic link is refused, dangling or not, with or without ``force``: a
  link can point anywhere, so writing through it could replace a file outside
  the place the user named;
- a folder, or anything but a regular file, is refused; an existing file is
  replaced only with ``force``; the folder must exist;
- without ``force`` the file is created exclusively (``O_EXCL``: a link or file
  that appears meanwhile is not followed or replaced); with ``force`` it is
  written beside and renamed over the old one, so no truncated file is left.

Each refusal is an :class:`~relmodel.errors.OutputPathError` naming the path.
"""

import os
import tempfile
from pathlib import Path

from ..errors import OutputPathError

__all__ = ["check_output", "write_output"]


def check_output(path, what="output", *, force=False):
    """``path`` as a Path once it is a place a file may be written (see the module notes).

    ``what`` names the option or argument in the message (``"--plot"``).
    """
    if path is None or not str(path).strip():
        raise OutputPathError(f"{what}: the name is empty; give a file name (an empty one would mean the "
                              "current folder)")
    path = Path(path)
    if path.is_symlink():
        where = "to nothing" if not path.exists() else f"to {os.path.realpath(path)}"
        raise OutputPathError(f"{what} {path} is a symbolic link {where}; relmodel does not write through "
                              "links: give the real file or remove the link")
    if path.exists():
        if path.is_dir():
            raise OutputPathError(f"{what} {path} is a folder, not a file")
        if not path.is_file():
            raise OutputPathError(f"{what} {path} is not a regular file")
        if not force:
            leave = "pass --force to replace it" if what.startswith("--") else "remove it first"
            raise OutputPathError(f"{what} {path} exists; choose another name or {leave}")
    folder = path.parent
    if not folder.is_dir():
        raise OutputPathError(f"{what} {path}: the folder {folder} does not exist")
    return path


def write_output(path, data, what="output", *, force=False):
    """Write ``data`` (bytes or str, UTF-8) at ``path`` after :func:`check_output`; returns the Path."""
    path = check_output(path, what, force=force)
    data = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if not force:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
        except FileExistsError:
            raise OutputPathError(f"{what} {path} appeared while relmodel was writing it; nothing was "
                                  "replaced") from None
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
        except BaseException:
            os.unlink(path)
            raise
        return path
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)  # replaces a name, never follows a link
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask
