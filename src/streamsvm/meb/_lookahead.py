"""Jitted Algorithm 2 of StreamSVM (Rai, Daumé III & Venkatasubramanian, "Streamed Learning:
One-Pass SVMs", IJCAI 2009), linear kernel, one call per chunk: the scan and the buffers'
minimum enclosing balls in one compiled loop.

A point ``p = [y x; C^{-1/2} e_n]`` at distance ``d >= R`` from the ball (centre ``[w; u]``,
``||u||^2 = xi2``, ``d^2 = ||w||^2 - 2 y w·x + ||x||^2 + xi2 + 1/C``, see ``_core``) is
buffered; when ``L`` are buffered, the ball becomes the minimum enclosing ball of itself and
the buffer (Algorithm 2, lines 7 and 13), solved in Gram form by pairwise Frank–Wolfe
warm-started at the previous ball (:func:`streamsvm.qp._frank_wolfe.meb_of_balls_frank_wolfe`).
A row's distance needs only its squared norm and its dot product with ``w``: dense rows get
both from one vectorised sweep of the (centred) row, CSR rows from their non-zeros; only a
buffered row is written out (mapped) into the buffer.
"""

import numpy as np
from numba import njit

from ..qp._frank_wolfe import meb_of_balls_frank_wolfe
from ._core import (
    _ROW_FLAGS,
    N_CORE,
    R_,
    STARTED,
    WNORM2,
    XI2,
    _centred_norm_and_dot,
    _csr_row_scale,
)

#: steps of the Frank-Wolfe solver before the exact active-set solver takes over, per point
_STEPS_PER_POINT = 100


@njit(cache=True, fastmath=_ROW_FLAGS)
def _dot(a, b):
    """``a·b``, vectorised (a loop rather than BLAS: no threads to wake for 300 short rows,
    which on busy cores cost more than the product)."""
    total = 0.0
    for j in range(a.shape[0]):
        total += a[j] * b[j]
    return total


@njit(cache=True)
def _non_zeros(B):
    """``(starts, columns)``: the columns of the non-zero entries of each row of ``B``, row n
    at ``columns[starts[n]:starts[n + 1]]`` (buffered CSR rows are mostly zeros)."""
    starts = np.zeros(B.shape[0] + 1, dtype=np.int64)
    for n in range(B.shape[0]):
        count = 0
        for j in range(B.shape[1]):
            if B[n, j] != 0.0:
                count += 1
        starts[n + 1] = starts[n] + count
    columns = np.empty(starts[B.shape[0]], dtype=np.int64)
    for n in range(B.shape[0]):
        q = starts[n]
        for j in range(B.shape[1]):
            if B[n, j] != 0.0:
                columns[q] = j
                q += 1
    return starts, columns


@njit(cache=True)
def _buffer_gram(w, xi2, buffer_X, buffer_y, k, inv_C):
    """Gram matrix of the centres ``[w; u]`` (``||u||^2 = xi2``) and the first ``k``
    buffered (mapped) points ``[y_n x_n; C^{-1/2} e_n]``: the feature Gram (from each row's
    non-zeros when the buffer is mostly zeros) plus the diagonal (xi2, 1/C, ..., 1/C) of the
    orthogonal e-parts."""
    B = buffer_X[:k]
    labels = buffer_y[:k]
    G = np.empty((k + 1, k + 1))
    G[0, 0] = _dot(w, w) + xi2
    starts, columns = _non_zeros(B)
    sparse = 2 * columns.shape[0] < k * B.shape[1]
    for n in range(k):
        G[0, n + 1] = G[n + 1, 0] = labels[n] * _dot(B[n], w)
        for m in range(n):
            if sparse:  # the products from row n's non-zeros (CSR rows' buffers)
                total = 0.0
                for q in range(starts[n], starts[n + 1]):
                    total += B[n, columns[q]] * B[m, columns[q]]
            else:
                total = _dot(B[n], B[m])
            G[n + 1, m + 1] = G[m + 1, n + 1] = labels[n] * labels[m] * total
        G[n + 1, n + 1] = _dot(B[n], B[n]) + inv_C
    return G


@njit(cache=True)
def _move_centre(w, state, buffer_X, buffer_y, k, inv_C, lam, radius):
    """The new centre ``lam_0 [w; u] + sum_n lam_n p_n`` into ``w`` and ``state``:
    ``xi2 <- lam_0^2 xi2 + sum_n lam_n^2 / C``, ``R <- radius``."""
    xi2 = lam[0] * lam[0] * state[XI2]
    for j in range(w.shape[0]):
        w[j] *= lam[0]
    for n in range(k):
        c = lam[n + 1]
        if c != 0.0:
            xi2 += c * c * inv_C
            c *= buffer_y[n]
            for j in range(w.shape[0]):
                w[j] += c * buffer_X[n, j]
    state[XI2] = xi2
    state[WNORM2] = _dot(w, w)
    state[R_] = radius
    state[N_CORE] += k  # the paper's M: an upper bound on the core vectors


def enclose_buffer(w, state, buffer_X, buffer_y, k, inv_C, tol):
    """Replace the ball by the minimum enclosing ball of itself and the first ``k`` buffered
    (mapped) points ``[y_n x_n; C^{-1/2} e_n]``, solved in Gram form (:func:`_buffer_gram`)
    by pairwise Frank-Wolfe warm-started at the ball (its exact fallback compiled only when a
    solve needs it). Called once per full buffer, so the three compiled steps are not nested:
    each compiles once. Returns the solver's status (0: converged) and its steps."""
    G = _buffer_gram(w, state[XI2], buffer_X, buffer_y, k, inv_C)
    radii = np.zeros(k + 1)
    radii[0] = state[R_]
    start = np.zeros(k + 1)
    start[0] = 1.0
    lam, radius, _, steps, status = meb_of_balls_frank_wolfe(
        G, radii, start, tol, _STEPS_PER_POINT * (k + 1))
    _move_centre(w, state, buffer_X, buffer_y, k, inv_C, lam, radius)
    return status, steps


@njit(cache=True)
def _start_ball(w, label, state, inv_C):
    """The first point, written (mapped) into ``w``, starts the ball: ``w = y x``, R = 0,
    xi2 = 1/C."""
    for j in range(w.shape[0]):
        w[j] *= label
    state[R_], state[XI2], state[WNORM2], state[STARTED] = 0.0, inv_C, _dot(w, w), 1.0
    state[N_CORE] += 1


@njit(cache=True)
def _outside(state, label, dot, xx, inv_C):
    """Whether the point ``[y x; C^{-1/2} e_n]`` with ``x·w = dot`` and ``||x||^2 = xx`` lies
    at distance ``d >= R`` from the ball (``d^2 = ||w||^2 - 2 y w·x + ||x||^2 + xi2 + 1/C``)."""
    dist = np.sqrt(max(state[WNORM2] - 2.0 * label * dot + xx + state[XI2] + inv_C, 0.0))
    return dist >= state[R_]


@njit(cache=True)
def _buffer_slot(buffer_X, buffer_y, n_buffered, label):
    """The next free row of the buffer, its label set: the mapped point is written there."""
    buffer_y[n_buffered] = label
    return buffer_X[n_buffered]


@njit(cache=True)
def _scan_dense(X, start, mean, use_mean, append_one, normalize, y, w, state, inv_C, buffer_X,
                buffer_y, n_buffered, rows_sqnorm):
    """The scan of :func:`algorithm2_dense` from row ``start`` until the buffer is full.

    Returns ``(next_row, n_buffered, rows_sqnorm)`` with ``rows_sqnorm`` carried on from the
    value passed (so the sum is the same as in one sweep)."""
    L = buffer_X.shape[0]
    d = X.shape[1]
    if not use_mean:
        mean = np.zeros(d)
    for i in range(start, X.shape[0]):
        xx, dot = _centred_norm_and_dot(X, i, mean, w)
        rows_sqnorm += xx
        if append_one:
            xx += 1.0
            dot += w[d]
        scale = 1.0
        if normalize and xx > 0.0:
            scale = 1.0 / np.sqrt(xx)
            xx = 1.0
            dot *= scale
        label = y[i]
        starting = state[STARTED] == 0.0
        if not (starting or _outside(state, label, dot, xx, inv_C)):
            continue
        row = w if starting else _buffer_slot(buffer_X, buffer_y, n_buffered, label)
        n_buffered += not starting
        for j in range(d):
            row[j] = (X[i, j] - mean[j]) * scale
        if append_one:
            row[d] = scale
        if starting:
            _start_ball(w, label, state, inv_C)
        elif n_buffered == L:
            return i + 1, n_buffered, rows_sqnorm
    return X.shape[0], n_buffered, rows_sqnorm


@njit(cache=True)
def _scan_csr(indptr, start, indices, data, append_one, normalize, y, w, state, inv_C,
              buffer_X, buffer_y, n_buffered, rows_sqnorm):
    """:func:`_scan_dense` for CSR rows (not centred; the bias feature is column
    ``w.shape[0] - 1`` with ``append_one``): a row's distance costs O(nnz), and only a
    buffered row is written out, densely, into the buffer. ``rows_sqnorm`` is passed
    through."""
    L = buffer_X.shape[0]
    bias = w.shape[0] - 1
    for i in range(start, indptr.shape[0] - 1):
        lo, hi = indptr[i], indptr[i + 1]
        scale = _csr_row_scale(data, lo, hi, append_one, normalize)
        label = y[i]
        if state[STARTED] != 0.0:
            dot = 0.0
            xx = 0.0
            for p in range(lo, hi):
                v = data[p] * scale
                dot += w[indices[p]] * v
                xx += v * v
            if append_one:
                dot += w[bias] * scale
                xx += scale * scale
            if not _outside(state, label, dot, xx, inv_C):
                continue
        starting = state[STARTED] == 0.0
        row = w if starting else _buffer_slot(buffer_X, buffer_y, n_buffered, label)
        n_buffered += not starting
        row[:] = 0.0
        for p in range(lo, hi):
            row[indices[p]] = data[p] * scale
        if append_one:
            row[bias] = scale
        if starting:
            _start_ball(w, label, state, inv_C)
        elif n_buffered == L:
            return i + 1, n_buffered, rows_sqnorm
    return indptr.shape[0] - 1, n_buffered, rows_sqnorm


def _algorithm2(scan, rows, n_rows, mapping, y, w, state, inv_C, buffer_X, buffer_y,
                n_buffered, tol):
    """Scan, enclose each full buffer, scan on (one compiled call per full buffer, so the
    scan and the solver compile apart). ``rows`` are the first arguments of ``scan`` before
    the start row, ``mapping`` those after it."""
    L = buffer_X.shape[0]
    encloses = bad = 0
    rows_sqnorm = 0.0
    i = 0
    while i < n_rows:
        i, n_buffered, rows_sqnorm = scan(*rows, i, *mapping, y, w, state, inv_C, buffer_X,
                                          buffer_y, n_buffered, rows_sqnorm)
        if n_buffered == L:
            status, _ = enclose_buffer(w, state, buffer_X, buffer_y, L, inv_C, tol)
            bad += status != 0
            n_buffered = 0
            encloses += 1
    return n_buffered, encloses, rows_sqnorm, bad


def algorithm2_dense(X, mean, use_mean, append_one, normalize, y, w, state, inv_C, buffer_X,
                     buffer_y, n_buffered, tol):
    """Algorithm 2 over the rows of ``X``, each mapped as
    :func:`~streamsvm.meb._core.prepare_dense` would (centre by ``mean``, append a 1, scale to
    unit norm) inside the compiled scan; a full buffer is enclosed at once
    (:func:`enclose_buffer`).

    Returns ``(n_buffered, n_encloses, rows_sqnorm, bad_solves)``: the points left in the
    buffer, the balls replaced, the sum of the rows' squared norms before the bias feature
    and the scaling (the check of :func:`~streamsvm.base.refuse_rows` without ``use_mean``)
    and how many solves did not certify their tolerance.
    """
    return _algorithm2(_scan_dense, (X,), X.shape[0],
                       (mean, use_mean, append_one, normalize), y, w, state, inv_C, buffer_X,
                       buffer_y, n_buffered, tol)


def algorithm2_csr(indptr, indices, data, append_one, normalize, y, w, state, inv_C, buffer_X,
                   buffer_y, n_buffered, tol):
    """:func:`algorithm2_dense` for CSR rows (:func:`_scan_csr`). Returns ``(n_buffered,
    n_encloses, bad_solves)``."""
    n_buffered, encloses, _, bad = _algorithm2(
        _scan_csr, (indptr,), indptr.shape[0] - 1, (indices, data, append_one, normalize), y,
        w, state, inv_C, buffer_X, buffer_y, n_buffered, tol)
    return n_buffered, encloses, bad
