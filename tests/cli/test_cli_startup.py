"""The command starts light: ``--help`` and the one-line answers (``interval --mtbf``, ``requirements --mtbf``)
import only what they show.

Commands are imported when first used; the line ``relmodel --help`` lists each
with is kept in :data:`relmodel.cli.main.COMMANDS` and checked here against the
command itself and against the listing click writes for a group that holds
every command.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import click.testing
import pytest

from conftest import REPO, run_cli
from relmodel.cli import cli
from relmodel.cli.main import COMMANDS

LIBRARIES = ("numpy", "pandas", "scipy", "pyarrow", "lifelines", "matplotlib", "papermill", "nbformat", "nbconvert",
             "jsonschema", "dask", "yaml")

_PROBE = """
import json, sys
sys.argv = ["relmodel", *json.loads(sys.argv[1])]
from relmodel.cli import main
try:
    main()
except SystemExit as exc:
    status = exc.code
sys.stdout.flush()
print("\\n" + json.dumps({{"status": status, "loaded": [m for m in {libraries!r} if m in sys.modules]}}))
"""


def start(*args):
    """Run ``relmodel *args`` in a fresh interpreter: (exit status, libraries of LIBRARIES loaded, output)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", _PROBE.format(libraries=LIBRARIES), json.dumps(args)], cwd=REPO,
                          env=env, capture_output=True, text=True, check=True)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return found["status"], found["loaded"], done.stdout


def test_relmodel_help_loads_no_library():
    status, loaded, out = start("--help")
    assert status == 0 and "requirements" in out
    assert loaded == [], f"relmodel --help loaded {loaded}"


def test_report_help_loads_no_data_library_and_still_lists_the_data_parameters():
    status, loaded, out = start("report", "--help")
    assert status == 0 and "--sweep" in out and "ckpt_cost" in out
    assert not set(loaded) - {"numpy"}, f"relmodel report --help loaded {loaded}"


HEAVY = {"pandas", "scipy", "matplotlib"}


@pytest.mark.parametrize("args", [("requirements", "--help"), ("interval", "--help"),
                                  ("requirements", "--gpus", "100000", "--mtbf", "3h", "--ckpt-cost", "1min"),
                                  ("requirements", "--mtbf", "3h", "--format", "json"),
                                  ("interval", "--mtbf", "3h", "--ckpt-cost", "1min", "--restart", "10min")])
def test_help_and_one_line_answers_load_no_heavy_library(args):
    status, loaded, out = start(*args)
    assert status in (0, None) and ("Usage:" in out if "--help" in args else "mtbf" in out.lower())
    assert not set(loaded) & HEAVY, f"relmodel {' '.join(args)} loaded {sorted(set(loaded) & HEAVY)}"


def test_the_answer_from_a_log_does_load_them():
    """Not blind: the same command reading the bundled rates bootstraps with pandas and scipy."""
    status, loaded, _ = start("requirements", "--gpus", "16384", "--n-boot", "100", "--format", "json")
    assert status in (0, None) and {"pandas", "scipy"} <= set(loaded)


def test_a_command_loads_what_it_needs():
    """Not blind: the rates command does load pandas and scipy (a hand count of its imports)."""
    status, loaded, _ = start("rates", "--format", "csv")
    assert status == 0 and {"numpy", "pandas", "scipy"} <= set(loaded)


def test_every_command_module_is_in_the_table():
    modules = sorted(p.stem for p in (REPO / "relmodel" / "cli").glob("*.py")
                     if re.search(r"^def command\(", p.read_text(encoding="utf-8"), re.M))
    assert sorted(module for module, _ in COMMANDS.values()) == modules


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_listed_line_is_the_commands_first_docstring_line(name):
    command = cli.commands[name]
    assert command.name == name
    assert COMMANDS[name][1] == command.help.splitlines()[0]


@pytest.mark.parametrize("width", [60, 80, 120])
def test_the_listing_is_what_click_writes_for_every_command(width):
    plain = click.Group("cli", help=cli.help, params=cli.params,
                        context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
    for name in COMMANDS:
        plain.add_command(cli.commands[name])
    ours = click.testing.CliRunner().invoke(cli, ["--help"], terminal_width=width).output
    reference = click.testing.CliRunner().invoke(plain, ["--help"], terminal_width=width).output
    assert ours == reference


def test_an_unknown_command_is_one_usage_error():
    result = run_cli("no-such-command")
    assert result.exit_code == 2 and "No such command 'no-such-command'" in result.output
    assert cli.get_command(None, "no-such-command") is None
