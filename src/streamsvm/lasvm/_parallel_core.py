"""LASVM's loops over the expansion S and over rows to score, on several threads (numba
``prange`` over fixed blocks; :mod:`streamsvm._threads` sets the thread count from
``n_jobs``).

Each loop here computes every value exactly as its one-thread form does (elementwise
updates; sums over S kept whole within one row), so the result does not depend on the thread
count. The searches that pick the next pair (``extremes``, with their ``TIE`` rule) stay in
one thread: combining per-block winners would not give the sequential choice. The kernel rows
of S are computed in blocks by ``_expansion_core.columns_in_blocks``.
"""

from numba import njit, prange

from ..kernels._core import PARALLEL_BLOCK, parallel_worth
from ._expansion_core import decision_rows_csr as rows_csr
from ._expansion_core import decision_rows_dense as rows_dense

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


@njit(cache=True, parallel=True)
def _decision_rows_dense_blocks(X, X_sq, SV, SV_sq, coef, b, code, gamma, degree, coef0, out):
    n = X.shape[0]
    for blk in prange((n + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK):
        lo = blk * PARALLEL_BLOCK
        hi = min(lo + PARALLEL_BLOCK, n)
        rows_dense(X[lo:hi], X_sq[lo:hi], SV, SV_sq, coef, b, code, gamma, degree, coef0,
                   out[lo:hi])


@njit(cache=True, nogil=True)
def decision_rows_dense(X, X_sq, SV, SV_sq, coef, b, code, gamma, degree, coef0, out):
    """``out[r] = sum_s coef_s K(X_r, SV_s) + b`` (eq. 2) for dense X and support vectors
    (``_expansion_core.decision_rows_dense``), in blocks of rows on several threads when worth
    it; every row's value is computed as in one thread (the same bits)."""
    if parallel_worth(X.shape[0], SV.shape[0] * (X.shape[1] + 8)):
        _decision_rows_dense_blocks(X, X_sq, SV, SV_sq, coef, b, code, gamma, degree, coef0,
                                    out)
    else:
        rows_dense(X, X_sq, SV, SV_sq, coef, b, code, gamma, degree, coef0, out)
    return out


@njit(cache=True, parallel=True)
def _decision_rows_csr_blocks(indptr, indices, data, X_sq, sv_colptr, sv_rows, sv_vals, SV_sq,
                              coef, b, code, gamma, degree, coef0, out):
    n = indptr.shape[0] - 1
    for blk in prange((n + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK):
        lo = blk * PARALLEL_BLOCK
        hi = min(lo + PARALLEL_BLOCK, n)
        rows_csr(indptr[lo : hi + 1], indices, data, X_sq[lo:hi], sv_colptr, sv_rows, sv_vals,
                 SV_sq, coef, b, code, gamma, degree, coef0, out[lo:hi])


@njit(cache=True, nogil=True)
def decision_rows_csr(indptr, indices, data, X_sq, sv_colptr, sv_rows, sv_vals, SV_sq, coef, b,
                      code, gamma, degree, coef0, out):
    """:func:`decision_rows_dense` for CSR X and the support vectors by feature (CSC;
    ``_expansion_core.decision_rows_csr``)."""
    n = indptr.shape[0] - 1
    if parallel_worth(n, sv_vals.shape[0] + 8 * SV_sq.shape[0]):
        _decision_rows_csr_blocks(indptr, indices, data, X_sq, sv_colptr, sv_rows, sv_vals,
                                  SV_sq, coef, b, code, gamma, degree, coef0, out)
    else:
        rows_csr(indptr, indices, data, X_sq, sv_colptr, sv_rows, sv_vals, SV_sq, coef, b,
                 code, gamma, degree, coef0, out)
    return out
