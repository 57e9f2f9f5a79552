"""Screenshots of a rendered report for the README: the summary page and notebook 04.

Renders the default report (bundled data) into a temporary folder, or uses
``--report FOLDER``, opens the pages in headless Chromium at 1366 px (a laptop) and
writes ``docs/report_summary.png`` and ``docs/report_requirements.png``.  Each PNG carries, in a text chunk
``relmodel-headline``, the headline of the report it shows (summary.json's ``headline``):
tests/package/test_readme_outputs.py fails when the default report's headline has moved away from it.

Usage: python bench/screenshots.py [--report FOLDER] [--out docs]
"""

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a clone without installing

PAGES = {"index.html": "report_summary.png", "04_requirements_at_scale.html": "report_requirements.png"}


def chromium():
    """Path of a Chromium executable, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _stamp(png, headline):
    """Write ``headline`` (JSON) into ``png``'s text chunk ``relmodel-headline``."""
    import json

    from PIL import Image, PngImagePlugin
    info = PngImagePlugin.PngInfo()
    info.add_text("relmodel-headline", json.dumps(headline, sort_keys=True))
    with Image.open(png) as im:
        im.load()
        im.save(png, pnginfo=info, optimize=True)


def shoot(folder, out, height=1600):
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        for name, png in PAGES.items():
            for attempt in range(3):  # a loaded machine can miss a frame: try again on a fresh page
                page = browser.new_page(viewport={"width": 1366, "height": height})
                try:
                    page.goto((folder / name).resolve().as_uri())
                    page.wait_for_load_state("load")
                    page.screenshot(path=str(out / png), full_page=False, timeout=60_000)
                    break
                except Exception:
                    if attempt == 2:
                        raise
                finally:
                    page.close()
            print(f"wrote {out / png}")
        browser.close()
    import json
    headline = json.loads((folder / "summary.json").read_text(encoding="utf-8"))["headline"]
    for png in PAGES.values():
        _stamp(out / png, headline)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--report", type=Path, help="an existing report folder (default: render one)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs")
    args = ap.parse_args()
    if chromium() is None:
        raise SystemExit("no chromium found: install Debian's chromium package")
    if args.report:
        shoot(args.report, args.out)
        return
    from relmodel.report import render
    with tempfile.TemporaryDirectory() as tmp:
        report = render(out=Path(tmp) / "report")
        shoot(report.path, args.out)


if __name__ == "__main__":
    main()
