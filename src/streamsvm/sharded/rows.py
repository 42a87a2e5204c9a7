"""Rows of support sets as they travel between Cascade nodes: one key per row, the union of
sets without repeats, stacking, and the layout (CSR or dense) of the shards.

Rows are identified by a key: dense rows by their bytes and label; sparse rows by their
label, count of non-zeros, sum, and sum weighted by column (two different rows that agree
on all four would be taken as one; real data does not do that).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["as_layout", "row_keys", "stack_rows", "unique_rows"]


def row_keys(X, y) -> np.ndarray:
    """One comparable key per row (module docstring), a 1-D array of raw bytes."""
    labels = np.asarray(y)
    if labels.dtype.kind in "OUS":  # text labels: hashed to a number each
        labels = np.array([hash(str(v)) for v in labels], dtype=np.float64)
    labels = labels.astype(np.float64)
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        columns = X.indices.astype(np.float64) + 1.0
        weighted = sp.csr_matrix((X.data * columns, X.indices, X.indptr), shape=X.shape)
        table = np.column_stack([
            labels, np.diff(X.indptr).astype(np.float64),
            np.asarray(X.sum(axis=1)).ravel(), np.asarray(weighted.sum(axis=1)).ravel()])
    else:
        table = np.column_stack([labels, np.asarray(X, dtype=np.float64)])
    table = np.ascontiguousarray(table)
    return table.view(np.dtype((np.void, table.dtype.itemsize * table.shape[1]))).ravel()


def unique_rows(X, y):
    """``(X, y)`` without repeated rows (the first of each kept, order unchanged)."""
    _, first = np.unique(row_keys(X, y), return_index=True)
    keep = np.sort(first)
    return X[keep], np.asarray(y)[keep]


def as_layout(X, sparse: bool):
    """X as CSR (``sparse``) or as a dense array."""
    if sparse:
        return sp.csr_matrix(X)
    return X.toarray() if sp.issparse(X) else np.asarray(X)


def stack_rows(parts):
    """Rows of several ``(X, y)`` parts, one after another (CSR if any is sparse)."""
    parts = [p for p in parts if p[1].shape[0]] or parts[:1]
    if any(sp.issparse(X) for X, _ in parts):
        X = sp.vstack([sp.csr_matrix(X) for X, _ in parts], format="csr")
    else:
        X = np.vstack([np.asarray(X) for X, _ in parts])
    return X, np.concatenate([np.asarray(y) for _, y in parts])
