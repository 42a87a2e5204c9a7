"""Compiled loops of the shard scan: one read of a chunk for the sums the gamma and centring
rule needs (``docs/design.md``), without temporaries.

Each column is summed row after row, as NumPy's ``X.sum(axis=0)`` does (bit for bit), so the
centring mean from these sums is the one ``fit`` on the concatenated data fixes; the sums of
squares likewise. The entry sums of the union (``gamma='scale'``) are the sums of these
column sums. NaN or infinity in a chunk makes a column's sum of squares non-finite (it can
also overflow; the caller tells the two apart).
"""

import numpy as np
from numba import njit


@njit(cache=True)
def dense_column_sums(X, sums, sqsums):
    """``sums[j] += sum_i X[i, j]`` and ``sqsums[j] += sum_i X[i, j]^2`` (rows in order)."""
    acc = sums.copy()  # local accumulators (no aliasing with X): the sweep over j vectorises
    acc2 = sqsums.copy()
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            v = X[i, j]
            acc[j] += v
            acc2[j] += v * v
    sums[:] = acc
    sqsums[:] = acc2


@njit(cache=True)
def csr_column_sums(indptr, indices, data, sums, sqsums):
    """The same for CSR rows (stored entries in row order); returns the smallest column
    index stored (-1 when none)."""
    smallest = -1
    for i in range(indptr.shape[0] - 1):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            v = data[k]
            sums[j] += v
            sqsums[j] += v * v
            if smallest < 0 or j < smallest:
                smallest = j
    return smallest


def chunk_sums(X):
    """``(column sums, column sums of squares, smallest stored column)`` of a dense or CSR
    chunk (float64), in one compiled read; the smallest column is a CSR chunk's (-1 when it
    stores nothing; for a dense chunk, 0)."""
    sums = np.zeros(X.shape[1])
    sqsums = np.zeros(X.shape[1])
    if hasattr(X, "indptr"):
        data = np.asarray(X.data, dtype=np.float64)
        smallest = csr_column_sums(X.indptr, X.indices, data, sums, sqsums)
        return sums, sqsums, int(smallest)
    dense_column_sums(np.ascontiguousarray(X, dtype=np.float64), sums, sqsums)
    return sums, sqsums, 0
