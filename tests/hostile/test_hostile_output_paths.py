"""Every file relmodel writes at a path the user named: no link followed, no file replaced unasked.

Third hostile corpus, data loss: ``relmodel notebooks --copy DIR`` wrote through
a symbolic link in DIR to a file outside it, ``--copy ''`` copied into the
current folder and ``relmodel fit --plot p.png`` wrote through a dangling link.
The neighbours are each other output path of the CLI and the API's writers.
Each case ends in a named error (CLI: one line, exit 2) and the file the link
points at is neither created nor changed.
"""

import pandas as pd
import pytest
from click.testing import CliRunner

from relmodel.cli import cli
from relmodel.data.formats.synthetic_ops import synthetic_sacct, synthetic_syslog
from relmodel.errors import OutputPathError, SuiteCopyError
from relmodel.resources import copy_notebooks
from relmodel.stragglers.kineto import write_kineto_example

MINE = "my own file\n"


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def one_line(r, *words):
    assert r.exit_code == 2, (r.exit_code, r.output, r.exception)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("relmodel: error: "), r.stderr
    assert "Traceback" not in r.output
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture
def outside(tmp_path):
    """A folder outside the one the command is given, where links point."""
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


# --- relmodel notebooks --copy -------------------------------------------------------------------

def test_copy_refuses_a_dangling_link_to_a_file_outside(tmp_path, outside):
    target = tmp_path / "suite"
    target.mkdir()
    (target / "03_checkpoint_interval.ipynb").symlink_to(outside / "planted.ipynb")
    one_line(run("notebooks", "--copy", target), "symbolic link")
    assert list(outside.iterdir()) == []  # nothing written through the link
    assert sorted(p.name for p in target.iterdir()) == ["03_checkpoint_interval.ipynb"]  # nothing copied


def test_copy_refuses_a_link_to_an_existing_file_outside(tmp_path, outside):
    (outside / "notes.ipynb").write_text(MINE)
    target = tmp_path / "suite"
    target.mkdir()
    (target / "01_log_explorer.ipynb").symlink_to(outside / "notes.ipynb")
    one_line(run("notebooks", "--copy", target), "symbolic link")
    assert (outside / "notes.ipynb").read_text() == MINE


@pytest.mark.parametrize("name", ["", "   "])
def test_copy_to_an_empty_name_is_refused(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    one_line(run("notebooks", "--copy", name), "empty")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(SuiteCopyError):
        copy_notebooks(name)


def test_copy_into_a_dangling_folder_link_is_refused(tmp_path, outside):
    link = tmp_path / "suite"
    link.symlink_to(outside / "nowhere")
    one_line(run("notebooks", "--copy", link), "symbolic link")
    assert list(outside.iterdir()) == []


# --- relmodel fit --plot -----------------------------------------------------------------------

@pytest.mark.parametrize("force", [False, True])
def test_plot_refuses_a_dangling_link(tmp_path, outside, force):
    plot = tmp_path / "p.png"
    plot.symlink_to(outside / "planted.png")
    one_line(run("fit", "stepfun", "--n-boot", 0, "--plot", plot, *(["--force"] if force else [])),
             "symbolic link")
    assert list(outside.iterdir()) == [] and plot.is_symlink()


def test_plot_with_force_does_not_write_through_a_link_to_a_file(tmp_path, outside):
    (outside / "photo.png").write_text(MINE)
    plot = tmp_path / "p.png"
    plot.symlink_to(outside / "photo.png")
    one_line(run("fit", "stepfun", "--n-boot", 0, "--plot", plot, "--force"), "symbolic link")
    assert (outside / "photo.png").read_text() == MINE


@pytest.mark.parametrize("kind", ["folder", "empty"])
def test_plot_refuses_a_folder_and_an_empty_name(tmp_path, kind):
    plot = tmp_path / "p.png"
    if kind == "folder":
        plot.mkdir()
        one_line(run("fit", "stepfun", "--n-boot", 0, "--plot", plot, "--force"), "folder")
        assert plot.is_dir()
    else:
        one_line(run("fit", "stepfun", "--n-boot", 0, "--plot", ".png"))


# --- report --out (its neighbours, already refused: kept so) --------------------------------------

@pytest.mark.parametrize("force", [False, True])
def test_report_out_a_dangling_link(tmp_path, outside, no_kernel, force):
    out = tmp_path / "r"
    out.symlink_to(outside / "report")
    r = run("report", "-q", "-n", "05", "--out", out, *(["--force"] if force else []))
    assert r.exit_code == 2, r.output
    assert list(outside.iterdir()) == []


# --- the API's writers ---------------------------------------------------------------------------

@pytest.mark.parametrize("generator", [synthetic_sacct, synthetic_syslog])
def test_generators_do_not_write_through_a_dangling_link(tmp_path, outside, generator):
    path = tmp_path / "log.txt"
    path.symlink_to(outside / "planted.txt")
    with pytest.raises(OutputPathError, match="symbolic link"):
        generator(path, seed=1, days=2, nodes=10)
    assert list(outside.iterdir()) == []
    mine = tmp_path / "mine.txt"
    mine.write_text(MINE)
    with pytest.raises(OutputPathError, match="exists"):
        generator(mine, seed=1, days=2, nodes=10)
    assert mine.read_text() == MINE


def test_kineto_example_never_replaces_a_file(tmp_path, outside):
    frame = pd.DataFrame({"step": [0, 0], "rank": [0, 1], "optype": ["compute", "compute"],
                          "start_ts": [0.0, 0.0], "duration": [0.1, 0.1]})
    (tmp_path / "rank0.pt.trace.json").write_text(MINE)
    with pytest.raises(OutputPathError, match="exists"):
        write_kineto_example(frame, tmp_path)
    assert (tmp_path / "rank0.pt.trace.json").read_text() == MINE
    (tmp_path / "rank0.pt.trace.json").unlink()
    (tmp_path / "rank0.pt.trace.json").symlink_to(outside / "planted.json")
    with pytest.raises(OutputPathError, match="symbolic link"):
        write_kineto_example(frame, tmp_path)
    assert list(outside.iterdir()) == []
