"""--force removes only what relmodel wrote, and no output is written through a link (third hostile corpus).

A summary.json is plain text anyone can write: one whose marker lists
``data.csv`` made ``--force`` delete the user's data. A listed file now counts
as relmodel's only when its name is one the report writer produces, its content
is of that kind and its SHA-256 is the one recorded when it was written; the
rest is kept and named. The expected outcome of each case is written out by hand.
"""

import hashlib
import json
import os
from pathlib import Path

import pytest

from conftest import report_cli, run_cli
from relmodel.errors import ReportError, ReportFolderWarning
from relmodel.report.safety import folders as F

DATA = "start,cause\n2024-01-01T00:00:00,gpu\n"
PAGE = "<!DOCTYPE html>\n<html><body>report</body></html>\n"


def _sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def _forged(folder, files, sha256=None, status="complete"):
    folder.mkdir(parents=True, exist_ok=True)
    mark = {**F.marker(status), "files": files}
    if sha256 is not None:
        mark["sha256"] = sha256
    (folder / "summary.json").write_text(json.dumps({"relmodel": mark}))
    return folder


def test_a_forged_list_does_not_delete_user_data(tmp_path, tiny):
    out = _forged(tmp_path / "r", ["data.csv", "index.html"])
    (out / "data.csv").write_text(DATA)
    (out / "index.html").write_text(PAGE)
    res = report_cli("-n", tiny, "--out", out, "--force")
    assert res.exit_code == 2, res.output
    assert "data.csv" in res.output and "did not write" in res.output
    assert (out / "data.csv").read_text() == DATA


def test_a_forged_list_with_the_right_hash_still_keeps_a_csv(tmp_path):
    out = _forged(tmp_path / "r", ["data.csv"], {"data.csv": _sha(DATA)})
    (out / "data.csv").write_text(DATA)
    assert F.foreign_files(out) == ["data.csv"]
    with pytest.raises(ReportError, match="data.csv"):
        F.check_target(out, force=True)


@pytest.mark.parametrize("name", ["notes.html", "sub/page.html"])
def test_a_page_whose_hash_was_not_recorded_is_the_users(tmp_path, name):
    out = _forged(tmp_path / "r", [name], {name: "0" * 64})
    (out / name).parent.mkdir(parents=True, exist_ok=True)
    (out / name).write_text(PAGE)
    assert F.foreign_files(out) == [name]


def test_a_page_edited_since_it_was_written_is_kept(tmp_path):
    out = _forged(tmp_path / "r", ["index.html"], {"index.html": _sha(PAGE)})
    (out / "index.html").write_text(PAGE)
    assert F.foreign_files(out) == []
    (out / "index.html").write_text(PAGE + "<!-- my notes -->")
    assert F.foreign_files(out) == ["index.html"]


def test_a_listed_link_to_a_user_file_is_not_relmodels(tmp_path):
    mine = tmp_path / "mine.html"
    mine.write_text(PAGE)
    out = _forged(tmp_path / "r", ["index.html"], {"index.html": _sha(PAGE)})
    (out / "index.html").symlink_to(mine)
    assert F.foreign_files(out) == ["index.html"]
    with pytest.raises(ReportError, match="index.html"):
        F.check_target(out, force=True)
    assert mine.read_text() == PAGE


def test_wrong_content_under_a_writer_name_is_the_users(tmp_path):
    out = _forged(tmp_path / "r", ["key-1.png", "01.ipynb", "index.html"])  # an older marker: no hashes
    (out / "key-1.png").write_text("my picture")
    (out / "01.ipynb").write_text("not json")
    (out / "index.html").write_text("plain text")
    assert F.foreign_files(out) == ["01.ipynb", "index.html", "key-1.png"]


def test_a_stale_staging_folder_keeps_what_relmodel_did_not_write(tmp_path):
    out = tmp_path / "r"
    stale = _forged(tmp_path / ".r.relmodel-new-abcd1234", ["data.csv"], status="in progress")
    data = json.loads((stale / "summary.json").read_text())
    data["relmodel"]["pid"] = 2 ** 22 + 12345  # no such process
    (stale / "summary.json").write_text(json.dumps(data))
    (stale / "data.csv").write_text(DATA)
    (stale / "page.html").write_text(PAGE)
    with pytest.warns(ReportFolderWarning, match="older format"):
        F.remove_stale(out)
    # this marker lists names only (no sizes and hashes): nothing in the folder is proved relmodel's, so
    # nothing is deleted (fourth hostile corpus: an HTML page the user saved there was deleted before)
    assert (stale / "data.csv").read_text() == DATA and (stale / "page.html").read_text() == PAGE


def test_a_real_report_is_still_replaced(tmp_path, tiny):
    out = tmp_path / "r"
    assert report_cli("-n", tiny, "--out", out).exit_code == 0
    mark = F.read_marker(out)
    on_disk = {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
               for p in out.rglob("*") if p.is_file() and p.name != "summary.json"}
    assert mark["sha256"] == on_disk
    res = report_cli("-n", tiny, "--out", out, "--force")
    assert res.exit_code == 0, res.output
