"""Text that may not be UTF-8: one decoder for every reader of logs (tables, JSON, Slurm exports).

UTF-8 first (a byte-order mark dropped); a file that is not is read as Windows-1252, where curly
quotes, dashes and accented letters from Windows tools live, else as Latin-1, which reads any byte.
The fallback is said once per file by a :class:`LogWarning` that names the line and the byte.
Belongs here: decoding and its warning; imports only the standard library.
"""

import warnings

__all__ = ["FALLBACK_ENCODINGS", "LogWarning", "decode_text"]

#: What a file that is not UTF-8 is read as, in this order: Windows' Western code page (curly quotes,
#: dashes, accented letters), then Latin-1 (which reads any byte).
FALLBACK_ENCODINGS = ("cp1252", "latin-1")


class LogWarning(UserWarning):
    """A log had duplicate, overlapping or out-of-window rows (see ``problems()``), or was not UTF-8 text."""


def decode_text(raw, label, first_line=1):
    """``(text, encoding)`` of the bytes ``raw``: UTF-8 (a byte-order mark dropped), else a fallback.

    When ``raw`` is not UTF-8 it is read as the first of :data:`FALLBACK_ENCODINGS`
    that reads all of it, and a :class:`LogWarning` names ``label``, the line
    (``raw``'s first line is ``first_line``) and the byte that is not UTF-8, and
    the encoding used.
    """
    try:
        return raw.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError as exc:
        bad, pos = raw[exc.start], exc.start
    for encoding in FALLBACK_ENCODINGS:
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            continue
        line = first_line + raw.count(b"\n", 0, pos)
        warnings.warn(LogWarning(
            f"{label}, line {line}: byte 0x{bad:02x} is not UTF-8; the file is read as {_NAMES[encoding]}, where "
            f"it is {bytes([bad]).decode(encoding)!r}; save the file as UTF-8 if that is not what it says"),
            stacklevel=3)
        return text, encoding
    raise AssertionError("latin-1 reads every byte")


_NAMES = {"cp1252": "Windows-1252 (cp1252)", "latin-1": "Latin-1 (ISO 8859-1)"}
