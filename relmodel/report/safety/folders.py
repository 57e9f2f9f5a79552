"""Report folders: marked as relmodel's, replaced atomically, written without truncated files.

A report folder carries a marker: its ``summary.json`` holds a ``"relmodel"``
entry with :data:`SIGNATURE` and a status (``"in progress"``, ``"complete"``,
``"interrupted"``). The marker is written first and completed at the end, with
the files written and the SHA-256 of each; a listed file counts as relmodel's
only when its name, kind and hash check out (:mod:`.ownership`), so a forged
summary.json cannot make ``--force`` delete the user's files.

``--force`` (``force=True``) replaces only a marked folder (or an empty one),
and never ``.``, the working folder or a parent of it, the home folder, the
file-system root, or a symlink. :class:`Staging` renders into a new sibling
folder and swaps it in (old folder renamed aside, new one renamed in, old one
deleted), so a failure midway leaves the old report whole. Every file is
written to a temporary name and renamed into place; an ``OSError`` (disk full,
permission denied) becomes :class:`~relmodel.errors.ReportWriteError` naming
the path.
"""

import datetime as _dt
import errno
import hashlib
import json
import os
import shutil
import uuid
from pathlib import Path

from ...errors import ReportError, ReportInterrupted, ReportWriteError
from .ownership import digests, owned

__all__ = ["SIGNATURE", "marker", "read_marker", "check_target", "Staging", "write_bytes",
           "write_text", "write_error", "default_out", "remove_stale", "remove_owned", "listing",
           "written_files", "foreign_files"]

#: The signature in a report's summary.json that says relmodel wrote the folder.
SIGNATURE = "relmodel report"


def marker(status):
    """The ``"relmodel"`` entry of summary.json for a report in this status."""
    return {"signature": SIGNATURE, "status": status, "pid": os.getpid(),
            "updated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}


def _gone(pid):
    try:
        os.kill(int(pid), 0)
    except (OSError, ValueError, TypeError):
        return True
    return False


#: What this process wrote through :func:`write_bytes`: absolute path -> (size, SHA-256).  A staging
#: folder's marker records its share (``"written"``), so a later run can tell relmodel's files from others.
_WRITTEN = {}


def _written_records(mark):
    """The marker's ``{name: (size, sha256)}`` of the files relmodel wrote, or None when it records none
    (a marker of the older format, which lists names only: not trusted for deletion)."""
    found = (mark or {}).get("written")
    if not isinstance(found, dict):
        return None
    out = {}
    for name, rec in found.items():
        if isinstance(name, str) and isinstance(rec, (list, tuple)) and len(rec) == 2 \
                and isinstance(rec[0], int) and not isinstance(rec[0], bool) and isinstance(rec[1], str):
            out[name] = (rec[0], rec[1])
    return out


def _matching(folder, records):
    """``{name: sha256}`` of the recorded files that are still the size relmodel wrote (the hash is checked
    by :func:`.ownership.owned` before anything is deleted)."""
    same = {}
    for name, (size, sha) in records.items():
        try:
            if (Path(folder) / name).stat().st_size == size:
                same[name] = sha
        except (OSError, ValueError):
            pass
    return same


def remove_stale(out):
    """Clear staging folders of ``out`` left by runs that were killed (their process is gone).

    Only the files the folder's marker records as written by relmodel, with the same size and SHA-256,
    are deleted; anything else (a file put there, or changed since) stays with its folder, and
    :class:`~relmodel.errors.ReportFolderWarning` says so.  A marker of the older format (names only,
    no sizes and hashes) proves nothing: that folder is left whole, and said.  Returns the folders kept.
    """
    import warnings

    from ...errors import ReportFolderWarning
    out, kept = Path(out), []
    for folder in sorted(out.parent.glob(f".{out.name}.relmodel-new-*")):
        mark = read_marker(folder)
        if mark is None or mark.get("status") != "in progress" or not _gone(mark.get("pid")):
            continue
        records = _written_records(mark)
        if records is None and listing(folder) == ["summary.json"]:  # the marker alone: nothing to prove
            remove_owned(folder, {})
            continue
        if records is None:
            kept.append(folder)
            warnings.warn(ReportFolderWarning(
                f"{folder} was left by a report run that stopped, but its marker does not record what relmodel "
                "wrote (an older format), so nothing in it was deleted; remove it yourself once nothing in it "
                "is yours"), stacklevel=2)
            continue
        remove_owned(folder, _matching(folder, records))
        left = listing(folder) if folder.exists() else []
        if left:
            kept.append(folder)
            shown = ", ".join(left[:5]) + (f" and {len(left) - 5} more" if len(left) > 5 else "")
            warnings.warn(ReportFolderWarning(
                f"{folder} was left by a report run that stopped; relmodel removed the files it wrote there and "
                f"kept the folder with what it cannot prove it wrote: {shown}"), stacklevel=2)
    return kept


def remove_owned(folder, hashes):
    """Delete the files of ``folder`` relmodel wrote (:func:`.ownership.owned`: recorded in ``hashes``
    with the same SHA-256), then its empty folders; summary.json (the marker) last, and only when nothing
    else is left.

    Anything else is left where it is, and so are the folders holding it.
    """
    folder = Path(folder)
    for name in listing(folder):
        if name != "summary.json" and owned(folder, name, hashes):
            try:
                os.unlink(folder / name)
            except OSError:
                pass
    if listing(folder) == ["summary.json"]:
        try:
            os.unlink(folder / "summary.json")
        except OSError:
            pass
    for root, dirs, _files in os.walk(folder, topdown=False, followlinks=False):
        for name in dirs:
            path = Path(root) / name
            if not path.is_symlink():
                try:
                    path.rmdir()
                except OSError:
                    pass
    try:
        folder.rmdir()
    except OSError:
        pass


def read_marker(folder):
    """The marker of a report folder, or None when the folder is not marked as relmodel's."""
    try:
        data = json.loads((Path(folder) / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    mark = data.get("relmodel") if isinstance(data, dict) else None
    return mark if isinstance(mark, dict) and mark.get("signature") == SIGNATURE else None


def listing(folder):
    """Every file under ``folder`` as a sorted list of relative POSIX paths (links not followed)."""
    folder, found = Path(folder), []
    for root, dirs, files in os.walk(folder, followlinks=False):
        rel = Path(root).relative_to(folder)
        found += [(rel / name).as_posix() for name in files]
        found += [(rel / name).as_posix() for name in dirs if (Path(root) / name).is_symlink()]
    return sorted(found)


def _hashes(mark):
    """The marker's ``{name: sha256}``: its final hashes, else the records of files written so far; None
    when it has neither (an older format, which proves nothing about who wrote a file)."""
    found = (mark or {}).get("sha256")
    if isinstance(found, dict):
        return found
    records = _written_records(mark)
    return None if records is None else {name: sha for name, (_size, sha) in records.items()}


def written_files(folder):
    """The files relmodel wrote into the marked report ``folder``: listed by its marker, and checked.

    A listed name counts only when :func:`.ownership.owned` agrees (a name the writer produces,
    inside the folder, of the right kind, with the recorded SHA-256).  A marker of the older format
    (no hashes) proves nothing: only its summary.json counts, so ``--force`` refuses such a folder
    while it holds anything else.
    """
    mark = read_marker(folder) or {}
    files = mark.get("files")
    listed = {f for f in files if isinstance(f, str)} if isinstance(files, list) else set()
    return {f for f in listed | {"summary.json"} if owned(folder, f, _hashes(mark))}


def foreign_files(folder):
    """Files in a marked report folder that relmodel did not write (the user's), sorted."""
    mine = written_files(folder)
    return [f for f in listing(folder) if f not in mine]


def write_error(exc, path):
    """A ReportWriteError for an OSError met while writing ``path``."""
    if exc.errno == errno.EFBIG:
        from .file_limit import size_error
        return size_error(path)
    reason = exc.strerror or str(exc)
    return ReportWriteError(exc.errno, f"cannot write {path}: {reason}", str(path))


def write_bytes(path, data):
    """Write ``data`` to ``path`` through a temporary file, so no truncated file is left."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
        _WRITTEN[os.path.abspath(path)] = (len(data), hashlib.sha256(data).hexdigest())
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise write_error(exc, path) from None


def write_text(path, text):
    """:func:`write_bytes` for UTF-8 text."""
    write_bytes(path, text.encode("utf-8"))


def default_out():
    """``reports/<timestamp>``, with a suffix if that exists."""
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out, k = Path("reports") / stamp, 1
    while out.exists() or out.is_symlink():
        k += 1
        out = Path("reports") / f"{stamp}-{k}"
    return out


def _protected(out):
    target = out.resolve()
    cwd = Path.cwd().resolve()
    home = Path.home().resolve()
    if target == cwd or target in cwd.parents:
        return "the working folder or a folder that holds it"
    if target == home or target == Path(target.anchor):
        return "the home folder or the file-system root"
    return None


def check_target(out, force):
    """Check where a report may go; returns the folder as a Path.

    Raises ReportError (nothing is touched) when it exists and ``force`` is
    false, or when ``force`` cannot safely replace it.
    """
    out = Path(out) if out is not None else default_out()
    exists = out.exists() or out.is_symlink()
    if not exists:
        if out.parent.exists() and not out.parent.is_dir():
            raise ReportError(f"{out}: {out.parent} is a file, not a folder")
        return out
    if not force:
        raise ReportError(f"{out} already exists; choose another --out or pass --force to replace it")
    if out.is_symlink():
        raise ReportError(f"{out} is a symbolic link; --force does not replace through links, "
                          "give the real folder")
    if not out.is_dir():
        raise ReportError(f"{out} is a file, not a report folder; refusing to replace it")
    why = _protected(out)
    if why:
        raise ReportError(f"{out} is {why}; --force replaces only a report folder of its own")
    if any(out.iterdir()) and read_marker(out) is None:
        raise ReportError(f"{out} is not empty and holds no report (no summary.json marked by relmodel); "
                          "refusing to replace it")
    _refuse_foreign(out)
    return out


def _refuse_foreign(out):
    theirs = foreign_files(out) if any(out.iterdir()) else []
    if theirs:
        shown = ", ".join(str(out / f) for f in theirs[:5]) + (f" and {len(theirs) - 5} more"
                                                               if len(theirs) > 5 else "")
        raise ReportError(f"{out} holds files relmodel did not write ({shown}); --force replaces only "
                          "a report's own files: move them out of the folder or choose another --out")


class Staging:
    """A new sibling folder a report is rendered into, then swapped in for ``out``.

    ``replace`` says that an existing ``out`` may be replaced (``--force``, checked by
    :func:`check_target`); otherwise an empty folder is created at once to hold the
    name, so a second run racing for it stops. Use as a context manager: on leaving with an error the staging folder is
    removed and ``out`` is untouched; on KeyboardInterrupt the partial report
    is marked ``"interrupted"`` and moved to ``out`` when ``out`` held nothing
    (otherwise removed, keeping the old report whole). Call :meth:`commit`
    to swap a finished report in.
    """

    def __init__(self, out, replace=False):
        self.out, self.replace = Path(out), replace
        self.path = self.out.parent / f".{self.out.name}.relmodel-new-{uuid.uuid4().hex[:8]}"
        self.committed = False
        self.kept_partial = False
        self.reserved = False  # ``out`` did not exist: an empty folder holds the name meanwhile

    def __enter__(self):
        try:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            if not self.out.exists():
                try:
                    self.out.mkdir()  # a second run racing for the same folder stops here
                except FileExistsError:
                    raise ReportError(f"{self.out} was just created by another run; choose another "
                                      "--out") from None
                self.reserved = True
            elif not self.replace:
                raise ReportError(f"{self.out} was just created by another run; choose another --out")
            remove_stale(self.out)
            self.path.mkdir()
        except OSError as exc:
            self._release()
            raise write_error(exc, self.out) from None
        try:
            self.mark("in progress")
        except ReportWriteError as exc:
            self.__exit__(type(exc), exc, None)
        return self

    def mark(self, status, summary=None):
        """Write summary.json (``summary`` or a bare one) with the marker in ``status``."""
        data = dict(summary or {})
        files = sorted(set(listing(self.path)) | {"summary.json"})
        data["relmodel"] = {**marker(status), "files": files, "written": self._written()}
        if status != "in progress":  # hashed once at the end, not after every page of a long sweep
            data["relmodel"]["sha256"] = digests(self.path, files)
        write_text(self.path / "summary.json", json.dumps(data, indent=2, default=str))

    def _written(self):
        """``{name: [size, sha256]}`` of the files this process wrote into the staging folder (summary.json,
        the marker itself, aside)."""
        root = os.path.abspath(self.path) + os.sep
        return {Path(p[len(root):]).as_posix(): list(rec) for p, rec in sorted(_WRITTEN.items())
                if p.startswith(root) and p[len(root):] != "summary.json"}

    def _stamp_files(self):
        """Add the list of the files written to the finished report's marker."""
        try:
            data = json.loads((self.path / "summary.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if isinstance(data, dict) and isinstance(data.get("relmodel"), dict):
            files = sorted(set(listing(self.path)) | {"summary.json"})
            data["relmodel"].update(files=files, sha256=digests(self.path, files))
            write_text(self.path / "summary.json", json.dumps(data, indent=2, default=str))

    def commit(self):
        """Swap the staging folder in for ``out`` (old folder aside, new in, old deleted)."""
        aside, hashes = None, _hashes(read_marker(self.out))
        self._stamp_files()
        if self.out.is_dir() and not self.reserved:
            _refuse_foreign(self.out)  # a file the user put there while the report ran
        try:
            if self.reserved:
                self.out.rmdir()  # the empty placeholder
            elif self.out.exists():
                aside = self.out.parent / f".{self.out.name}.relmodel-old-{uuid.uuid4().hex[:8]}"
                os.rename(self.out, aside)
            os.rename(self.path, self.out)
        except OSError as exc:
            if aside is not None and not self.out.exists():
                os.rename(aside, self.out)
            raise write_error(exc, self.out) from None
        self.committed = True
        if aside is not None:
            remove_owned(aside, hashes)  # checked by _refuse_foreign; a file that came since stays

    def _release(self):
        if self.reserved:
            try:
                self.out.rmdir()  # only if still the empty placeholder
            except OSError:
                pass

    def interrupted(self):
        """The ReportInterrupted to raise after Ctrl-C, saying where the partial report is."""
        if self.kept_partial:
            return ReportInterrupted(f"interrupted; the partial report in {self.out} is marked "
                                     "as interrupted (--force replaces it)")
        return ReportInterrupted(f"interrupted; {self.out} is unchanged")

    def __exit__(self, kind, exc, tb):
        if self.committed:
            return False
        if isinstance(exc, ReportWriteError):
            shutil.rmtree(self.path, ignore_errors=True)
            self._release()
            inside = Path(exc.filename or "")
            part = f" ({inside.relative_to(self.path)})" if self.path in inside.parents else ""
            kept = "the old report is unchanged" if self.out.exists() else "nothing was written"
            reason = str(exc).rsplit(": ", 1)[-1]
            raise ReportWriteError(exc.errno, f"cannot write the report {self.out}{part}: {reason}; "
                                   f"{kept}", str(self.out)) from None
        if kind is not None and issubclass(kind, KeyboardInterrupt) and self.path.exists():
            try:
                summary = json.loads((self.path / "summary.json").read_text(encoding="utf-8"))
                self.mark("interrupted", summary)
                empty = self.out.is_dir() and not any(self.out.iterdir())
                if empty:
                    self.out.rmdir()
                if not self.out.exists():
                    os.rename(self.path, self.out)
                    self.kept_partial = True
                    return False
            except (OSError, ValueError, ReportError):
                pass
        shutil.rmtree(self.path, ignore_errors=True)
        self._release()
        return False
