"""One table of defaults: the functions, the CLI options and the notebooks' parameters agree with it."""

import inspect

import pytest

import relmodel
from conftest import REPO, write_notebook
from relmodel.defaults import DEFAULTS
from relmodel.report.pipeline.params import notebook_parameters
from relmodel.units import hours

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


def _parameters(path):
    """{name: default} as the report pipeline reads the cell tagged ``parameters``."""
    return {name: p.default for name, p in notebook_parameters(path).items()}


def _same(name, value):
    want = DEFAULTS[name]
    if isinstance(want, str):
        return hours(value) == pytest.approx(hours(want))
    return value == want


def test_parser_reads_annotated_and_plain_lines(tmp_path):
    p = write_notebook(tmp_path / "x.ipynb", ['restart: str = "10min"  # time to restart\n'
                                              "n_gpus = 16384  # GPUs\n", "print(restart)"])
    params = notebook_parameters(p)
    assert {k: v.default for k, v in params.items()} == {"restart": "10min", "n_gpus": 16384}
    assert (params["restart"].annotation, params["restart"].comment) == ("str", "time to restart")
    assert params["n_gpus"].comment == "GPUs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_parameter_defaults_equal_the_table(path):
    params = _parameters(path)
    # restart None: measured from the log where it can be read, else the table's default (the comment says so)
    wrong = {k: v for k, v in params.items() if k in DEFAULTS and not (k == "restart" and v is None)
             and not _same(k, v)}
    assert not wrong, f"{path.name}: {wrong} differ from relmodel.defaults.DEFAULTS"


def test_some_notebook_takes_each_default():
    seen = set().union(*(_parameters(p) for p in NOTEBOOKS)) if NOTEBOOKS else set()
    assert {"restart", "ckpt_cost", "target_ettr", "n_gpus"} <= seen


def _public_functions():
    names = set(relmodel.checkpoint.__all__) | set(relmodel.scale.__all__)
    for name in sorted(names):
        obj = getattr(relmodel.checkpoint, name, None) or getattr(relmodel.scale, name)
        if inspect.isfunction(obj):
            yield name, obj
    from relmodel.plots import checkpoint, interactive, scaling
    for mod in (checkpoint, interactive, scaling):
        for name in mod.__all__:
            if inspect.isfunction(getattr(mod, name)):
                yield f"{mod.__name__}.{name}", getattr(mod, name)


def test_every_function_default_is_the_table():
    wrong, checked = [], 0
    for name, fn in _public_functions():
        for p in inspect.signature(fn).parameters.values():
            key = {"fast_restart": "restart", "slow_restart": "restart"}.get(p.name, p.name)
            if (key in DEFAULTS and p.default is not inspect.Parameter.empty and p.default is not None
                    and not isinstance(p.default, (tuple, list))):  # a list of sizes is another thing
                checked += 1
                if not _same(key, p.default):
                    wrong.append(f"{name}({p.name}={p.default!r})")
    assert checked >= 25 and not wrong, wrong


@pytest.mark.parametrize("command, option, key", [
    ("interval", "restart", "restart"), ("interval", "ckpt_cost", "ckpt_cost"),
    ("interval", "fast_restart", "restart"), ("interval", "gpus_per_node", "gpus_per_node"),
    ("requirements", "restart", "restart"), ("requirements", "ckpt_cost", "ckpt_cost"),
    ("requirements", "target_ettr", "target_ettr"), ("requirements", "n_gpus", "n_gpus")])
def test_cli_defaults_are_the_table(command, option, key):
    from relmodel.cli import cli
    opt = next(p for p in cli.commands[command].params if p.name == option)
    if option == "restart" and opt.default is None:  # measured from --log, else the table's default
        assert "10min" in opt.help
        return
    assert _same(key, opt.default)
