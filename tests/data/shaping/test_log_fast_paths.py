"""The vectorised orderings behind read_log's clean-up, against numpy's and pandas' own."""

import numpy as np
import pandas as pd
import pytest

from relmodel.data.shaping.clean import _codes, stable_order


@pytest.mark.parametrize("seed", range(5))
def test_stable_order_is_numpys_stable_argsort(seed):
    rng = np.random.default_rng(seed)
    code = rng.integers(0, rng.integers(1, 50), rng.integers(0, 3000))
    assert np.array_equal(stable_order(code), np.argsort(code, kind="stable"))


def test_stable_order_falls_back_when_packed_keys_would_overflow():
    code = np.array([2 ** 62, 0, 2 ** 62, 5, 0], dtype=np.int64)
    assert stable_order(code).tolist() == [1, 4, 3, 0, 2]  # by hand: 0, 0, 5, 2**62, 2**62 in row order


def test_categorical_codes_drop_unused_categories_like_pandas():
    col = pd.Series(pd.Categorical(["b", "a", "d", "b"], categories=["a", "b", "c", "d", "e"]))
    codes, text = _codes(col)
    ref = col.cat.remove_unused_categories()
    assert codes.tolist() == ref.cat.codes.tolist() == [1, 0, 2, 1]
    assert list(text) == list(ref.cat.categories) == ["a", "b", "d"]
