"""conftest's no_kernel guard is not blind: a render and a sweep under it reach no kernel."""

import pytest

from relmodel.report import render


def test_a_render_under_the_guard_stops_at_the_kernel(tmp_path, tiny, no_kernel, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AssertionError, match="a kernel was started"):
        render(notebooks=[tiny], out="one")


def test_a_sweep_under_the_guard_stops_at_the_kernel(tmp_path, tiny, no_kernel, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AssertionError, match="a kernel was started"):
        render(notebooks=[tiny], sweep={"n_gpus": [1024, 2048]}, out="sweep")
