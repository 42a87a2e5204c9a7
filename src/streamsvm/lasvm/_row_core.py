"""Compiled per-row pieces of the LASVM family's ``learn_one`` / ``predict_one``
(:mod:`streamsvm.input.row_path`) on a sparse store: the decision value of one example over the
expansion S, and the append of one example to the store, each with the arithmetic of the
chunk path (:func:`~streamsvm.lasvm._decision_core.decision_rows_csr`,
:meth:`~streamsvm.lasvm.learner._Learner.add_examples`), so the bits are the same."""

import numpy as np
from numba import njit

from ..input.row_path import F_HEAD, I_HEAD, gathered_row
from ..kernels._core import kernel_from_dot, self_kernels, sqnorms_csr
from ._expansion_core import B_, N_COLS


@njit(cache=True)
def lasvm_decision_row(cols, vals, iscratch, fscratch, indptr, indices, data, sq, perm, alpha,
                       cnt, st, with_bias, kern, ws):
    """``y(x) = sum_s alpha_s K(x, x_s) + b`` (eq. 2) of one example over the members of S
    with a non-zero coefficient, in the order of their columns; ``kern`` is
    ``(code, gamma, degree, coef0)``. NaN when the example is refused."""
    n = gathered_row(cols, vals, iscratch, fscratch, 0)
    if n < 0:
        return np.nan
    idx, val = iscratch[I_HEAD:], fscratch[F_HEAD:]
    x_sq = sqnorms_csr(iscratch[:2], val, fscratch[1:2])[0]
    code, gamma, degree, coef0 = kern
    for p in range(n):
        ws[idx[p]] = val[p]
    total = 0.0
    for c in range(cnt[N_COLS]):
        a = alpha[c]
        if a == 0.0:
            continue
        s = perm[c]
        dot = 0.0
        for p in range(indptr[s], indptr[s + 1]):
            dot += ws[indices[p]] * data[p]
        total += a * kernel_from_dot(dot, x_sq, sq[s], code, gamma, degree, coef0)
    for p in range(n):
        ws[idx[p]] = 0.0
    return total + (st[B_] if with_bias else 0.0)


@njit(cache=True)
def store_row_csr(iscratch, fscratch, y, start, position, indptr, indices, data, sq, kd, ys,
                  pos_of, row_gen, stream_pos, generation, kern):
    """Append the example gathered in the scratch to the sparse store at ``start`` (whose
    arrays have room): its entries, squared norm, self-kernel, label, stream position."""
    n = iscratch[1]
    nnz0 = indptr[start]
    for p in range(n):
        indices[nnz0 + p] = iscratch[I_HEAD + p]
        data[nnz0 + p] = fscratch[F_HEAD + p]
    indptr[start + 1] = nnz0 + n
    sq[start] = sqnorms_csr(iscratch[:2], fscratch[F_HEAD:], fscratch[1:2])[0]
    code, gamma, degree, coef0 = kern
    kd[start] = self_kernels(sq[start:start + 1], code, gamma, degree, coef0,
                             fscratch[1:2])[0]
    ys[start] = y
    pos_of[start] = -1
    row_gen[start] = generation
    stream_pos[start] = position
