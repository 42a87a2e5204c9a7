"""Rows of support sets as they travel between Cascade nodes: ``(X, y, ids)`` triples, where
a row's id is its shard and its position there (``shard · 2**40 + row``). Ids, not contents,
say which rows are the same: a data set may hold equal rows (Adult does, many), and each is
an example of its own in the dual problem of the union.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["ROWS_PER_SHARD", "as_layout", "row_ids", "stack_rows", "unique_rows"]

#: ids of shard k are k * ROWS_PER_SHARD + row (2**40 rows per shard at most)
ROWS_PER_SHARD = 2**40


def row_ids(shard_index: int, start: int, n: int) -> np.ndarray:
    """The ids of rows ``start .. start + n - 1`` of shard ``shard_index``."""
    return shard_index * ROWS_PER_SHARD + np.arange(start, start + n, dtype=np.int64)


def unique_rows(X, y, ids):
    """``(X, y, ids)`` without repeated ids (the first of each kept, order unchanged)."""
    _, first = np.unique(ids, return_index=True)
    keep = np.sort(first)
    return X[keep], np.asarray(y)[keep], ids[keep]


def as_layout(X, sparse: bool):
    """X as CSR (``sparse``) or as a dense array."""
    if sparse:
        return sp.csr_matrix(X)
    return X.toarray() if sp.issparse(X) else np.asarray(X)


def stack_rows(parts):
    """Rows of several ``(X, y, ids)`` parts, one after another (CSR if any is sparse)."""
    parts = [p for p in parts if p[1].shape[0]] or parts[:1]
    if any(sp.issparse(p[0]) for p in parts):
        X = sp.vstack([sp.csr_matrix(p[0]) for p in parts], format="csr")
    else:
        X = np.vstack([np.asarray(p[0]) for p in parts])
    return (X, np.concatenate([np.asarray(p[1]) for p in parts]),
            np.concatenate([np.asarray(p[2], dtype=np.int64) for p in parts]))
