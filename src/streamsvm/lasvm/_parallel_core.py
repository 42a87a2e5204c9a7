"""LASVM's loops over the expansion S and over rows to score, on several threads (numba
``prange`` over fixed blocks; :mod:`streamsvm._threads` sets the thread count from
``n_jobs``).

Each loop here computes every value exactly as its one-thread form does (elementwise
updates; sums over S kept whole within one row), so the result does not depend on the thread
count. The searches that pick the next pair (``extremes``, with their ``TIE`` rule) stay in
one thread: combining per-block winners would not give the sequential choice. The kernel rows
of S are computed in blocks by ``_expansion_core.columns_in_blocks``.
"""

import numpy as np
from numba import njit, prange

from ..kernels._core import PARALLEL_BLOCK, dot_dense, kernel_from_dot, parallel_worth

__all__ = ["gradient_step", "decision_rows_dense", "decision_rows_csr"]

#: the least size of S whose gradient update (eq. 9, ``g_s -= lam (K_is - K_js)``) is split
#: over threads: below it the update costs less than waking them
GRADIENT_MIN_PARALLEL = 1 << 15


@njit(cache=True, parallel=True)
def _gradient_step_blocks(g, lam, ri, rj, n):
    for b in prange((n + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK):
        lo = b * PARALLEL_BLOCK
        for s in range(lo, min(lo + PARALLEL_BLOCK, n)):
            g[s] -= lam * (ri[s] - rj[s])


@njit(cache=True)
def gradient_step(g, lam, ri, rj, n):
    """``g[s] -= lam (ri[s] - rj[s])`` for ``s < n`` (the gradient update after a direction
    search, eq. 9 of Bordes et al. 2005), on several threads when S is large."""
    if n >= GRADIENT_MIN_PARALLEL and parallel_worth(n, 0):
        _gradient_step_blocks(g, lam, ri, rj, n)
    else:
        for s in range(n):
            g[s] -= lam * (ri[s] - rj[s])


@njit(cache=True)
def _decision_row_dense(X, X_sq, r, SV, SV_sq, coef, b, code, gamma, degree, coef0):
    total = 0.0
    for s in range(SV.shape[0]):
        total += coef[s] * kernel_from_dot(dot_dense(X[r], SV[s]), X_sq[r], SV_sq[s], code,
                                           gamma, degree, coef0)
    return total + b


@njit(cache=True, parallel=True)
def _decision_rows_dense_blocks(X, X_sq, SV, SV_sq, coef, b, code, gamma, degree, coef0, out):
    n = X.shape[0]
    for blk in prange((n + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK):
        lo = blk * PARALLEL_BLOCK
        for r in range(lo, min(lo + PARALLEL_BLOCK, n)):
            out[r] = _decision_row_dense(X, X_sq, r, SV, SV_sq, coef, b, code, gamma, degree,
                                         coef0)


@njit(cache=True, nogil=True)
def decision_rows_dense(X, X_sq, SV, SV_sq, coef, b, code, gamma, degree, coef0, out):
    """``out[r] = sum_s coef_s K(X_r, SV_s) + b`` (eq. 2) for dense X and support vectors;
    rows on several threads when worth it, each row's sum over S in order (the same bits)."""
    if parallel_worth(X.shape[0], SV.shape[0] * (X.shape[1] + 8)):
        _decision_rows_dense_blocks(X, X_sq, SV, SV_sq, coef, b, code, gamma, degree, coef0,
                                    out)
    else:
        for r in range(X.shape[0]):
            out[r] = _decision_row_dense(X, X_sq, r, SV, SV_sq, coef, b, code, gamma, degree,
                                         coef0)
    return out


@njit(cache=True)
def _decision_rows_csr_range(lo, hi, indptr, indices, data, X_sq, sv_indptr, sv_indices,
                             sv_data, SV_sq, coef, b, code, gamma, degree, coef0, ws, out):
    for r in range(lo, hi):
        for p in range(indptr[r], indptr[r + 1]):
            ws[indices[p]] = data[p]
        total = 0.0
        for s in range(sv_indptr.shape[0] - 1):
            dot = 0.0
            for p in range(sv_indptr[s], sv_indptr[s + 1]):
                dot += ws[sv_indices[p]] * sv_data[p]
            total += coef[s] * kernel_from_dot(dot, X_sq[r], SV_sq[s], code, gamma, degree,
                                               coef0)
        out[r] = total + b
        for p in range(indptr[r], indptr[r + 1]):
            ws[indices[p]] = 0.0


@njit(cache=True, parallel=True)
def _decision_rows_csr_blocks(indptr, indices, data, X_sq, sv_indptr, sv_indices, sv_data,
                              SV_sq, coef, b, code, gamma, degree, coef0, n_features, out):
    n = indptr.shape[0] - 1
    for blk in prange((n + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK):
        lo = blk * PARALLEL_BLOCK
        ws = np.zeros(n_features)  # one scatter workspace per block
        _decision_rows_csr_range(lo, min(lo + PARALLEL_BLOCK, n), indptr, indices, data, X_sq,
                                 sv_indptr, sv_indices, sv_data, SV_sq, coef, b, code, gamma,
                                 degree, coef0, ws, out)


@njit(cache=True, nogil=True)
def decision_rows_csr(indptr, indices, data, X_sq, sv_indptr, sv_indices, sv_data, SV_sq, coef,
                      b, code, gamma, degree, coef0, ws, out):
    """:func:`decision_rows_dense` for CSR X and CSR support vectors (scatter/gather; ``ws``
    a zeroed workspace of ``n_features`` values for the one-thread path)."""
    n = indptr.shape[0] - 1
    if parallel_worth(n, sv_data.shape[0] + 8 * sv_indptr.shape[0]):
        _decision_rows_csr_blocks(indptr, indices, data, X_sq, sv_indptr, sv_indices, sv_data,
                                  SV_sq, coef, b, code, gamma, degree, coef0, ws.shape[0], out)
    else:
        _decision_rows_csr_range(0, n, indptr, indices, data, X_sq, sv_indptr, sv_indices,
                                 sv_data, SV_sq, coef, b, code, gamma, degree, coef0, ws, out)
    return out
