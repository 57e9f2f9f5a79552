"""Text that may not be UTF-8: one decoder for every reader of logs (tables, JSON, Slurm exports).

UTF-8 first (a byte-order mark dropped); a UTF-16 file with its byte-order mark as UTF-16; in a file that is not
UTF-8, each byte that is not is read as Windows-1252, where curly quotes, dashes and accented letters from Windows
tools live (Latin-1 for the five bytes it lacks), and the UTF-8 around it as UTF-8.
The fallback is said once per file by a :class:`LogWarning` that names the line and the byte.
Belongs here: decoding and its warning; imports only the standard library.
"""

import codecs
import warnings

__all__ = ["FALLBACK_ENCODINGS", "FALLBACK_ERRORS", "LogWarning", "decode_text"]

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
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):   # a UTF-16 file (Windows tools write them) says so by its mark
        try:
            return raw.decode("utf-16"), "utf-16"
        except UnicodeDecodeError:
            pass
    for encoding in FALLBACK_ENCODINGS:
        try:
            raw.decode(encoding)
        except UnicodeDecodeError:
            continue
        # UTF-8 where the bytes are UTF-8 (two exports joined, one from Windows), the fallback byte by byte elsewhere
        text = raw.decode("utf-8-sig", errors=FALLBACK_ERRORS[encoding])
        line = first_line + raw.count(b"\n", 0, pos)
        warnings.warn(LogWarning(
            f"{label}, line {line}: byte 0x{bad:02x} is not UTF-8; such bytes are read as {_NAMES[encoding]}, where "
            f"it is {bytes([bad]).decode(encoding)!r}; save the file as UTF-8 if that is not what it says"),
            stacklevel=3)
        return text, encoding
    raise AssertionError("latin-1 reads every byte")


def _fallback(encoding):
    """A codecs error handler that reads each byte that is not UTF-8 as ``encoding`` (Latin-1 where it has none)."""
    def read(b):
        try:
            return bytes([b]).decode(encoding)
        except UnicodeDecodeError:
            return chr(b)

    def handler(err):
        return "".join(map(read, err.object[err.start:err.end])), err.end
    return handler


#: The codecs error handler of each fallback encoding: it reads a byte that is not UTF-8 as that encoding.
FALLBACK_ERRORS = {}
for _enc in FALLBACK_ENCODINGS:
    FALLBACK_ERRORS[_enc] = f"relmodel-{_enc}"
    codecs.register_error(FALLBACK_ERRORS[_enc], _fallback(_enc))


_NAMES = {"cp1252": "Windows-1252 (cp1252)", "latin-1": "Latin-1 (ISO 8859-1)"}
