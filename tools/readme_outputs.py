"""The README's printed report output, made from the commands it shows.

``relmodel report`` prints "report written: <index>" and then the answers
(summary.json's ``answers``).  The interval, ETTR and requirement sentences
come from :func:`relmodel.decide` with the report's defaults (bundled Llama 3
counts, 16,384 GPUs, target 0.9, 1 min checkpoint, the default restart,
2,000 bootstrap draws, seed 0), so they are rebuilt here without rendering
the notebooks.  ``python tools/readme_outputs.py`` rewrites the block between
the ``<!-- report-output -->`` markers of every page that has them (README.md,
and any topic page under docs/); the test suite fails when a page and this
script disagree.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START, END = "<!-- report-output -->", "<!-- /report-output -->"


def pages():
    """README.md and the topic pages under docs/: the files that may show the output."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def showing():
    """The pages that hold a report-output block."""
    return [p for p in pages() if current(p.read_text(encoding="utf-8")) is not None]


def report_output():
    """The terminal lines of ``relmodel report`` on the defaults, its comparison line cut to "..."."""
    sys.path.insert(0, str(ROOT))
    import relmodel
    from relmodel.report.pipeline.summarise import answer_sentences

    dec = relmodel.decide(relmodel.load_source("llama3"), 16384, 0.9, "1min", None, n_boot=2000, seed=0,
                          simulate=False)
    lines = answer_sentences({"decision": dec.to_dict()}, parts=("interval", "ettr", "requirement"))
    return "\n".join(["report written: reports/<timestamp>/index.html"] + [f"  {s}" for s in lines]
                     + ["  For comparison: Simulated with exponential failures (a count table has no times to fit a "
                        "shape to), ..."])


def block(text):
    return f"{START}\n```\n{text}\n```\n{END}"


def current(readme):
    m = re.search(re.escape(START) + r"\n```\n(.*?)\n```\n" + re.escape(END), readme, re.S)
    return None if m is None else m.group(1)


def main():
    found = showing()
    if not found:
        raise SystemExit(f"neither README.md nor docs/*.md has a {START} ... {END} block")
    output = report_output()
    for path in found:
        text = path.read_text(encoding="utf-8")
        new = re.sub(re.escape(START) + r".*?" + re.escape(END), lambda _: block(output), text, flags=re.S)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"rewrote the report output in {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
