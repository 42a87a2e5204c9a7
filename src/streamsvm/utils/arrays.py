"""Arrays that grow: the tables of rows an object appends to, made and given more room."""

from __future__ import annotations

import numpy as np

__all__ = ["grow_rows", "zero_rows"]


def grow_rows(owner, names, rows: int, kept: int) -> None:
    """Replace each array attribute of ``owner`` named in ``names`` by one of ``rows`` rows
    (its other dimensions and dtype kept) that holds its first ``kept`` rows, the rest zeros
    (so that the spare rows are part of a reproducible state)."""
    for name in names:
        old = getattr(owner, name)
        new = np.zeros((rows,) + old.shape[1:], dtype=old.dtype)
        new[:kept] = old[:kept]
        setattr(owner, name, new)


def zero_rows(owner, layout: dict, rows: int) -> None:
    """Give ``owner`` one zero-filled array of ``rows`` rows per entry of ``layout``, a name
    to a dtype (one value per row) or to ``(dtype, columns)``."""
    for name, kind in layout.items():
        dtype, shape = (kind[0], (rows, kind[1])) if isinstance(kind, tuple) else (kind, (rows,))
        setattr(owner, name, np.zeros(shape, dtype=dtype))
