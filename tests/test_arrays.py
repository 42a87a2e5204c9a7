"""The tables of rows objects append to (``streamsvm.utils.arrays``): made zero-filled, and
given room for more rows with the kept ones unchanged."""

import numpy as np

from streamsvm.utils.arrays import grow_rows, zero_rows


class _Table:
    pass


def test_zero_rows_makes_each_array_of_the_layout():
    table = _Table()
    zero_rows(table, {"X": (np.float64, 3), "ids": np.int64, "flags": np.bool_}, 4)
    assert table.X.shape == (4, 3) and table.X.dtype == np.float64
    assert table.ids.shape == (4,) and table.ids.dtype == np.int64
    assert table.flags.dtype == np.bool_ and not table.flags.any()
    assert not table.X.any() and not table.ids.any()


def test_grow_rows_keeps_the_first_rows_and_zeros_the_rest():
    table = _Table()
    rng = np.random.default_rng(0)
    table.X, table.ids = rng.normal(size=(4, 3)), np.arange(4, dtype=np.int64) + 7
    before_X, before_ids = table.X.copy(), table.ids.copy()
    grow_rows(table, ("X", "ids"), 10, 3)
    assert table.X.shape == (10, 3) and table.ids.shape == (10,)
    assert table.ids.dtype == np.int64
    np.testing.assert_array_equal(table.X[:3], before_X[:3])
    np.testing.assert_array_equal(table.ids[:3], before_ids[:3])
    assert not table.X[3:].any() and not table.ids[3:].any()  # the unkept fourth row too
