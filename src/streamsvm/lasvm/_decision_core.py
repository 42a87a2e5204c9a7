"""Decision values of the expansion S (eq. 2 of Bordes et al.): of stored examples through
the kernel cache (:func:`decision_value`), and of new rows, dense or CSR, against the support
vectors taken out of S (:func:`decision_rows_dense`, :func:`decision_rows_csr`). Pure jitted
functions; the state tuples are described in :mod:`._expansion_core`.
"""

import numpy as np
from numba import njit

from ..kernels._core import RBF, dot_dense, dot_rows, dot_rows4, exp_nonpositive, kernel_from_dot
from ._expansion_core import B_, N_COLS, SV_ALPHA, WORK_SCATTER, WORK_SCRATCH_C
from ._kernel_rows_core import kernel_row


@njit(cache=True)
def decision_value(k, store, kern, svs, cache, work, cnt, st, scratch, par=True):
    """``y(x_k) = sum_s alpha_s K(x_k, x_s) + b`` for a stored example (eq. 2)."""
    n = cnt[N_COLS]
    row = kernel_row(k, n, store, kern, svs, cache, work[WORK_SCATTER], scratch, cnt, par)
    return dot_dense(svs[SV_ALPHA][:n], row) + st[B_]


@njit(cache=True)
def decision_values(ids, store, kern, svs, cache, work, cnt, st, out, par=True):
    """``out[t] = y(x_ids[t])`` for stored examples, through the kernel cache (eq. 2)."""
    for t in range(ids.shape[0]):
        out[t] = decision_value(ids[t], store, kern, svs, cache, work, cnt, st,
                                work[WORK_SCRATCH_C], par)
    return out


@njit(cache=True)
def _kernel_values_sum(dots, x_sq, SV_sq, coef, code, gamma, degree, coef0):
    """``sum_s coef_s K_s`` where ``dots[s] = x·SV_s``: the dot products turned into kernel
    values in place (one tight loop per kernel, as
    :func:`._kernel_rows_core.dots_to_columns`; the same bits as
    :func:`~streamsvm.kernels._core.kernel_from_dot`), then summed in order."""
    n = dots.shape[0]
    if code == RBF:
        for s in range(n):
            distance = x_sq + SV_sq[s] - 2.0 * dots[s]
            if distance < 0.0:
                distance = 0.0
            dots[s] = -gamma * distance
        for s in range(n):
            dots[s] = exp_nonpositive(dots[s])
    else:
        for s in range(n):
            dots[s] = kernel_from_dot(dots[s], x_sq, SV_sq[s], code, gamma, degree, coef0)
    total = 0.0
    for s in range(n):
        total += coef[s] * dots[s]
    return total


@njit(cache=True, nogil=True)
def decision_rows_dense(X, X_sq, SV, SV_sq, coef, b, code, gamma, degree, coef0, out):
    """``out[r] = sum_s coef_s K(X_r, SV_s) + b`` for dense X and dense support vectors.

    Four rows of X at a time share the loads of each support vector
    (:func:`~streamsvm.kernels._core.dot_rows4`), and the kernel transform runs over whole
    rows of dot products (vectorised); the same bits as one value at a time."""
    n_rows, n_sv = X.shape[0], SV.shape[0]
    dots = np.empty((4, n_sv))
    r = np.int64(0)  # not a literal: one compiled dot_rows4
    while r + 4 <= n_rows:
        for s in range(n_sv):
            d0, d1, d2, d3 = dot_rows4(X, r, r + 1, r + 2, r + 3, SV, s)
            dots[0, s] = d0
            dots[1, s] = d1
            dots[2, s] = d2
            dots[3, s] = d3
        for q in range(4):
            out[r + q] = _kernel_values_sum(dots[q], X_sq[r + q], SV_sq, coef, code, gamma,
                                            degree, coef0) + b
        r += 4
    for rest in range(r, n_rows):
        for s in range(n_sv):
            dots[0, s] = dot_rows(X, rest, SV, s)
        out[rest] = _kernel_values_sum(dots[0], X_sq[rest], SV_sq, coef, code, gamma, degree,
                                       coef0) + b
    return out


@njit(cache=True, nogil=True)
def decision_rows_csr(indptr, indices, data, X_sq, sv_colptr, sv_rows, sv_vals, SV_sq, coef, b,
                      code, gamma, degree, coef0, out):
    """:func:`decision_rows_dense` for CSR X and the support vectors by feature (CSC:
    ``sv_colptr``, ``sv_rows``, ``sv_vals``): each stored value of a row of X is multiplied
    into the dot products of the support vectors that have that feature, so a row costs
    O(the support vectors' values on its features) instead of O(all their values). The
    same bits as scattering the row and gathering each support vector: each dot product
    adds the same products in the same (feature) order, and the gather's other terms are
    zeros, which do not change a sum."""
    n_sv = SV_sq.shape[0]
    dots = np.empty(n_sv)
    for r in range(indptr.shape[0] - 1):
        dots[:] = 0.0
        for p in range(indptr[r], indptr[r + 1]):
            q = indices[p]
            value = data[p]
            for t in range(sv_colptr[q], sv_colptr[q + 1]):
                dots[sv_rows[t]] += value * sv_vals[t]
        out[r] = _kernel_values_sum(dots, X_sq[r], SV_sq, coef, code, gamma, degree,
                                    coef0) + b
    return out
