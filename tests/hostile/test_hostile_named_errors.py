"""Named errors everywhere (second hostile corpus, kind 4): each case raises a relmodel.errors
class whose message says what would be valid; report parameters are refused before any kernel
starts, with one line on stderr and no traceback, whatever their size.
"""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import relmodel
from relmodel import errors as E
from relmodel.cli import cli
from relmodel.stats.priors import GammaPrior

EVICT = dict(slowdown=0.2, detection="30min", restart="10min", interval="1h", mtbf="20h")


def _write(path, data, newline=""):
    with open(path, "w", newline=newline) as fh:
        fh.write(data)
    return path


API = {
    "turnbull of nothing": (lambda tmp: relmodel.stats.turnbull([], []), E.EmptyDataError, "at least one"),
    "unknown design": (lambda tmp: relmodel.scale.design_presets(16384)["bogus"], E.DesignError, "h100-rail"),
    "compare_rates conf 1.5": (lambda tmp: relmodel.stats.compare_rates((3, 100.0), (2, 100.0), per="job", conf=1.5),
                               E.ModelInputError, "between 0 and 1"),
    "update_rate conf 0": (lambda tmp: relmodel.stats.update_rate(GammaPrior(shape=2.0, rate_h=1e4), 10, "100d", conf=0),
                           E.PriorError, "between 0 and 1"),
    "combined_goodput nan": (lambda tmp: relmodel.stragglers.combined_goodput(float("nan"), 0.1), E.ModelInputError, "[0, 1]"),
    "rate_changes penalty inf": (lambda tmp: relmodel.stats.rate_changes(np.array([10.0, 20.0, 300.0]), window=(0, 400),
                                                                   per="job", penalty=float("inf")),
                                 E.CountError, "finite number"),
    "eviction mtbf 0": (lambda tmp: relmodel.stragglers.eviction_policy(**{**EVICT, "mtbf": 0}), E.ModelInputError, "> 0"),
    "eviction negative detection": (lambda tmp: relmodel.stragglers.eviction_policy(**{**EVICT, "detection": "-30min"}),
                                    E.ModelInputError, ">= 0"),
    "two_level k_max 0": (lambda tmp: relmodel.checkpoint.two_level_optimum("20h", "10s", "5min", fast_fraction=0.8, k_max=0),
                          E.CountError, "whole number"),
    "power_law_gof n_runs 0": (lambda tmp: relmodel.stats.power_law_gof(np.array([10.0, 50.0, 90.0]), end=100.0, n_runs=0),
                              E.CountError, "whole number"),
    "read_megatron folder": (lambda tmp: relmodel.data.read_megatron(str(tmp)), E.NotARegularFileError, "folder"),
    "CR-only line endings": (lambda tmp: relmodel.read_log(
        _write(tmp / "cr.csv", "start,node\r2024-01-01T00:00:00,a\r2024-01-02T00:00:00,b\r"), start="start",
        node="node"), E.LogFormatError, "line endings"),
    "deeply nested JSON": (lambda tmp: relmodel.read_log(_write(tmp / "deep.json", "[" * 100_000 + "]" * 100_000),
                                                         start="start"), E.LogFormatError, "nests too deeply"),
    "huge duration": (lambda tmp: relmodel.units.hours(10**400), E.DurationError, "too large"),
    "record an object": (lambda tmp: relmodel.report.record("x", object()), E.InputTypeError, "a number"),
    "count table n_gpus many": (lambda tmp: relmodel.count_table(pd.DataFrame({"component": ["a"], "count": [3]}),
                                                                 n_gpus="many", gpus_per_node=8, duration="30d"),
                                E.CountError, "whole number"),
}


@pytest.mark.parametrize("case", list(API))
def test_api_cases_raise_named_errors(case, tmp_path):
    call, kind, needle = API[case]
    with pytest.raises(kind) as err:
        call(tmp_path)
    assert isinstance(err.value, E.RelmodelError) and needle in str(err.value)


def test_an_unknown_design_is_still_a_key_error_for_dict_code():
    presets = relmodel.scale.design_presets(16384)
    assert presets.get("bogus") is None and "bogus" not in presets
    with pytest.raises(KeyError):
        presets["bogus"]


def test_poisson_interval_takes_a_duration():
    rate, lo, hi = relmodel.stats.poisson_interval(5, "10d")
    assert rate == pytest.approx(5 / 240)  # 5 events in 240 hours, by hand
    assert relmodel.stats.poisson_interval(5, 240.0)[1] == lo


# --- report parameters: refused before any kernel starts -----------------------------------------

BIG = "9" * 5000


@pytest.mark.parametrize("args, needle", [
    (["-n", "06", "-p", "design=bogus"], "named designs"),
    (["-n", "06", "-p", "designs=[h100-rail, bogus]"], "named designs"),
    (["-n", "08", "-p", "data_path=/nonexistent"], "no such folder"),
    (["-n", "07", "-p", "steps=missing.csv"], "no such file"),
    (["-n", "08", "-p", "n_synthetic=0"], "from 10 to 1,000,000"),
    (["-n", "08", "-p", "n_synthetic=200000000"], "from 10 to 1,000,000"),
    (["-n", "08", "-p", "max_lives=-5"], "from 0"),
    (["-n", "07", "-p", "baseline=max"], "'median' or 'mean'"),
    (["-n", "03", "-p", f"n_gpus={BIG}"], "far too large"),
    (["-n", "01", "-p", "log=" + "a" * 100_000], "too long"),
    (["-n", "03", "-p", "ckpt_cost=1h-30min"], "duration > 0"),
])
def test_report_parameters_are_checked_before_any_kernel(tmp_path, no_kernel, args, needle):
    res = CliRunner().invoke(cli, ["report", "-q", "--out", str(tmp_path / "r"), *args])
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit), res.output
    assert needle in res.output and "Traceback" not in res.output
    assert len(res.output) < 2000  # a 100 kB value is not echoed back
    assert not (tmp_path / "r").exists()


def test_a_relative_step_log_resolves_from_the_callers_folder(tmp_path, monkeypatch):
    from relmodel.report.parameters.rules import check_values
    (tmp_path / "steps.csv").write_text("step,rank,duration_ms\n0,0,1000\n")
    monkeypatch.chdir(tmp_path)
    assert check_values({"steps": "steps.csv"})["steps"] == str((tmp_path / "steps.csv").resolve())


def test_huge_integer_in_a_yaml_file_is_a_named_error(tmp_path, no_kernel):
    params = tmp_path / "p.yaml"
    params.write_text(f"n_gpus: {BIG}\nlog: {'x' * 100_000}\n")
    res = CliRunner().invoke(cli, ["report", "-q", "--params", str(params), "--out", str(tmp_path / "r"), "-n", "03"])
    assert res.exit_code == 2 and "Traceback" not in res.output and len(res.output) < 2000, res.output
