"""Compare two rendered report folders: the same pages, byte for byte, apart from what changes per render.

Run from the repository root, for example before and after moving modules::

    python tools/compare_reports.py /tmp/report_before /tmp/report_after

Every ``.html``, ``.json`` and ``.png`` file of the first folder is compared
with its namesake in the second, after the parts that differ between any two
renders are replaced by a placeholder: creation times, the seconds each
notebook took, the commit in the footer (and whether the tree had local
changes), process ids, and the random ids of widgets (whose
models are compared in sorted order).  Exit status 0 when every file is
the same after that; 1 with the differing lines listed otherwise.
"""

import difflib
import json
import re
import sys
from pathlib import Path

__all__ = ["normalise", "compare", "main"]

#: (pattern, placeholder) for what differs between two renders of the same report.
VOLATILE = [
    (rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:\d\d|Z)?", b"<time>"),
    (rb"(notebook</a></td><td>)[^<]*(</td>)", rb"\1<seconds>\2"),
    (rb'("seconds": )[0-9.e-]+', rb"\1<seconds>"),
    (rb"commit [0-9a-f]{7,40}(?: \+ local changes)?", b"commit <commit>"),
    (rb'("commit": ")[0-9a-f]{7,40}(?: \+ local changes)?', rb"\1<commit>"),
    (rb'("pid": )\d+', rb"\1<pid>"),
    (rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", b"<uuid>"),
    (rb"[0-9a-f]{32}", b"<id>"),
]


def normalise(data):
    """``data`` (bytes) with every volatile part replaced by its placeholder."""
    for pattern, placeholder in VOLATILE:
        data = re.sub(pattern, placeholder, data)
    return data


def _widget_state(data):
    """Each widget-state script as its models, normalised and sorted: their random ids give their order."""
    def models(match):
        state = json.loads(match.group(2))["state"].values()
        return match.group(1) + json.dumps(sorted(normalise(json.dumps(m, sort_keys=True).encode()).decode()
                                                  for m in state)).encode() + match.group(3)
    return re.sub(rb'(<script type="application/vnd.jupyter.widget-state\+json">)(.*?)(</script>)', models, data,
                  flags=re.S)


def compare(before, after):
    """Lines that differ, per file, between the folders ``before`` and ``after`` (empty when the same)."""
    out = {}
    names = sorted({p.name for p in Path(before).iterdir() if p.suffix in (".html", ".json", ".png")})
    for name in names:
        a, b = Path(before) / name, Path(after) / name
        if not b.exists():
            out[name] = ["missing in the second folder"]
            continue
        x, y = a.read_bytes(), b.read_bytes()
        if x == y:
            continue
        if name.endswith(".png"):
            out[name] = ["the images differ"]
            continue
        x, y = normalise(_widget_state(x)), normalise(_widget_state(y))
        if x == y:
            continue
        lines = difflib.unified_diff(x.replace(b">", b">\n").decode().splitlines(),
                                     y.replace(b">", b">\n").decode().splitlines(), lineterm="", n=0)
        out[name] = [line[:200] for line in lines if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    return out


def main(argv=None):
    before, after = (argv or sys.argv[1:])[:2]
    differ = compare(before, after)
    names = sorted(p.name for p in Path(before).iterdir() if p.suffix in (".html", ".json", ".png"))
    for name in names:
        print(f"{name}: {'differs' if name in differ else 'same'}")
        for line in differ.get(name, []):
            print(f"    {line}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
