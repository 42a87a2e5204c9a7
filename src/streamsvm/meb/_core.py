"""Jitted loops of StreamSVM (Rai, Daumé III & Venkatasubramanian, IJCAI 2009), one call per
chunk, over the augmented points ``p_n = [y_n x_n; C^{-1/2} e_n]`` (eq. 7).

The ``e_n`` parts are never stored. The centre is ``c = [w; u]`` with ``u`` a combination
of the ``e_n`` seen, and only ``xi2 = ||u||^2`` is kept: a new point's ``e_n`` is orthogonal
to ``u`` and to everything else, so

    ||c - p_n||^2 = ||w - y_n x_n||^2 + xi2 + 1/C.

Algorithm 1 (closed-form update of Zarrabi-Zadeh & Chan) for a point at distance d >= R:
with ``a = (1 - R/d) / 2`` the centre moves to ``c + a (p - c)``, so

    w   <- w + a (y x - w)            (Alg. 1, line 7)
    R   <- R + (d - R) / 2            (line 8, eq. 4)
    xi2 <- xi2 (1 - a)^2 + a^2 / C    (line 9; the paper prints "+ a^2", the C = 1 case:
                                       the new e-part is (1-a) u + a C^{-1/2} e_n and
                                       u ⟂ e_n, so its squared norm is (1-a)^2 xi2 + a^2/C)

The first point starts the ball: ``w = y_1 x_1``, ``R = 0`` and ``xi2 = 1/C`` (the paper
prints 1, again the C = 1 case: the centre is p_1, whose e-part has squared norm 1/C).
"""

import numpy as np
from numba import njit

from ..kernels._core import (
    kernel_dense,
    kernel_row_dense,
    normalize_row,
    threads_par,  # noqa: F401  (kernel_stream_dense's par, for callers)
)

#: Reassociation lets LLVM vectorise the per-row reductions (squared norm, dot product, the
#: new ||w||^2) of the linear loops; no flag that assumes finite values, so NaN and infinity
#: still behave as IEEE says.
_ROW_FLAGS = {"reassoc", "contract"}

# indices into the learner's scalar state vector
R_ = 0
XI2 = 1
WNORM2 = 2
STARTED = 3
N_CORE = 4
STATE_SIZE = 5


@njit(cache=True)
def _ball_step(R, xi2, d, inv_C):
    """Step size ``a`` and the new ``(R, xi2)`` when a point at distance ``d >= R`` enters."""
    a = 0.5 * (1.0 - R / d)
    return a, R + 0.5 * (d - R), xi2 * (1.0 - a) ** 2 + a * a * inv_C


@njit(cache=True)
def _store(state, R, xi2, wnorm2, started, updates):
    state[R_], state[XI2], state[WNORM2] = R, xi2, wnorm2
    state[STARTED] = 1.0 if started else 0.0
    state[N_CORE] += updates


@njit(cache=True)
def _mapped_row(X, i, mean, use_mean, append_one, normalize, out):
    """Row ``i`` of ``X`` as the estimator's preprocessing maps it (see :func:`prepare_dense`),
    written to ``out``; returns its squared norm."""
    d = X.shape[1]
    norm2 = 0.0
    for j in range(d):
        v = X[i, j] - mean[j] if use_mean else X[i, j]
        out[j] = v
        norm2 += v * v
    if append_one:
        out[d] = 1.0
        norm2 += 1.0
    if normalize and norm2 > 0.0:
        scale = 1.0 / np.sqrt(norm2)
        for j in range(out.shape[0]):
            out[j] *= scale
        norm2 = 1.0
    return norm2


@njit(cache=True, fastmath=_ROW_FLAGS)
def sqnorms_and_column_sums(X, sqnorms, sums):
    """One read of the dense rows for both checks and the centring: ``sqnorms[i] = ||X[i]||^2``
    (non-finite exactly when the row holds NaN or infinity, or overflows) and ``sums += column
    sums of X``, accumulated row after row (as NumPy's ``X.sum(axis=0)``, bit for bit)."""
    acc = sums.copy()  # a local accumulator: no aliasing with X, so the sweep vectorises
    for i in range(X.shape[0]):
        total = 0.0
        for j in range(X.shape[1]):
            v = X[i, j]
            acc[j] += v
            total += v * v
        sqnorms[i] = total
    for j in range(sums.shape[0]):  # a loop, not sums[:] = acc: no shape-error code to compile
        sums[j] = acc[j]
    return sqnorms, sums


@njit(cache=True, fastmath=_ROW_FLAGS)
def _centred_norm_and_dot(X, i, mean, w):
    """``(||x - mean||^2, w[:d]·(x - mean))`` for row ``i`` of ``X`` (d columns), in one
    vectorised sweep of the row (``mean`` of zeros leaves the row as it is, exactly)."""
    norm2 = 0.0
    dot = 0.0
    for j in range(X.shape[1]):
        v = X[i, j] - mean[j]
        norm2 += v * v
        dot += w[j] * v
    return norm2, dot


@njit(cache=True, fastmath=_ROW_FLAGS)
def algorithm1_dense(X, mean, use_mean, append_one, normalize, y, w, state, inv_C):
    """Algorithm 1 over the rows of ``X``, each mapped as :func:`prepare_dense` would
    (centre by ``mean``, append a 1, scale to unit norm) inside the loop, so each row is read
    once from memory and the mapped chunk is never written out; pass
    ``use_mean = append_one = normalize = False`` for rows that are mapped already.

    The distance needs ``||x'||^2`` and ``w·x'`` of the mapped row ``x'``: both come from one
    sweep over the centred row, the scale to unit norm applied to the sums (the row is
    touched again, from cache, only by an update).

    ``state`` holds [R, xi2, ||w||^2, started, n_core] and is updated in place with ``w``.
    Returns the number of ball updates made in this chunk and the sum of the rows' squared
    norms before the bias feature and the scaling (of the raw rows without ``use_mean``: the
    check of :func:`~streamsvm.base.refuse_rows`).
    """
    R, xi2, wnorm2 = state[R_], state[XI2], state[WNORM2]
    started = state[STARTED] > 0.0
    updates = 0
    rows_sqnorm = 0.0
    d = X.shape[1]
    if not use_mean:
        mean = np.zeros(d)
    for i in range(X.shape[0]):
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
        if started:
            dist = np.sqrt(max(wnorm2 - 2.0 * label * dot + xx + xi2 + inv_C, 0.0))
            if not (dist >= R and dist > 0.0):
                continue
            a, R, xi2 = _ball_step(R, xi2, dist, inv_C)
        else:  # the first point starts the ball: w = y x, the step a = 1
            a, R, xi2, started = 1.0, 0.0, inv_C, True
        wnorm2 = 0.0
        for j in range(d):
            target = label * ((X[i, j] - mean[j]) * scale)
            w[j] = target if a == 1.0 else w[j] + a * (target - w[j])
            wnorm2 += w[j] * w[j]
        if append_one:
            target = label * scale
            w[d] = target if a == 1.0 else w[d] + a * (target - w[d])
            wnorm2 += w[d] * w[d]
        updates += 1
    _store(state, R, xi2, wnorm2, started, updates)
    return updates, rows_sqnorm


@njit(cache=True)
def _csr_row_scale(data, lo, hi, append_one, normalize):
    """The factor that scales CSR row ``data[lo:hi]`` (and the appended 1) to unit norm: one
    over the norm, summed in the order of the stored values then the 1 (1 for a zero row or
    without ``normalize``)."""
    if not normalize:
        return 1.0
    norm2 = 0.0
    for p in range(lo, hi):
        norm2 += data[p] * data[p]
    if append_one:
        norm2 += 1.0
    return 1.0 / np.sqrt(norm2) if norm2 > 0.0 else 1.0


@njit(cache=True)
def algorithm1_csr(indptr, indices, data, append_one, normalize, y, w, state, inv_C):
    """:func:`algorithm1_dense` for CSR rows (not centred), the bias feature (column
    ``w.shape[0] - 1`` with ``append_one``) and the scale to unit norm applied in the loop,
    as :func:`~streamsvm.meb.streamsvm.map_rows` would, without building a mapped matrix.
    A test costs O(nnz), an update O(n_features)."""
    R, xi2, wnorm2 = state[R_], state[XI2], state[WNORM2]
    started = state[STARTED] > 0.0
    updates = 0
    n = indptr.shape[0] - 1
    bias = w.shape[0] - 1
    for i in range(n):
        lo, hi = indptr[i], indptr[i + 1]
        scale = _csr_row_scale(data, lo, hi, append_one, normalize)
        if not started:
            w[:] = 0.0
            wnorm2 = 0.0
            for p in range(lo, hi):
                v = data[p] * scale
                w[indices[p]] = y[i] * v
                wnorm2 += v * v
            if append_one:
                w[bias] = y[i] * scale
                wnorm2 += scale * scale
            R, xi2, started = 0.0, inv_C, True
            updates += 1
            continue
        dot = 0.0
        xx = 0.0
        for p in range(lo, hi):
            v = data[p] * scale
            dot += w[indices[p]] * v
            xx += v * v
        if append_one:
            dot += w[bias] * scale
            xx += scale * scale
        d2 = wnorm2 - 2.0 * y[i] * dot + xx + xi2 + inv_C
        d = np.sqrt(max(d2, 0.0))
        if d >= R and d > 0.0:
            a, R, xi2 = _ball_step(R, xi2, d, inv_C)
            for j in range(w.shape[0]):
                w[j] *= 1.0 - a
            for p in range(lo, hi):
                w[indices[p]] += a * y[i] * (data[p] * scale)
            if append_one:
                w[bias] += a * y[i] * scale
            wnorm2 = 0.0
            for j in range(w.shape[0]):
                wnorm2 += w[j] * w[j]
            updates += 1
    _store(state, R, xi2, wnorm2, started, updates)
    return updates


@njit(cache=True)
def kernel_stream_dense(
    X,
    x_sq,
    y,
    start,
    core,
    core_sq,
    core_self,
    alpha,
    n_stored,
    n_buffered,
    lookahead,
    buffer_y,
    buffer_f,
    state,
    inv_C,
    code,
    gamma,
    degree,
    coef0,
    normalized,
    bias,
    row,
    par=True,
):
    """Kernelised StreamSVM (Sec. 4.2) from row ``start`` on: Algorithm 1 when
    ``lookahead == 1``, else the scan of Algorithm 2.

    The centre's feature part is ``w = sum_m alpha_m phi(z_m)`` over the ``n_stored`` core
    vectors (``alpha_m = y_m beta_m`` with ``beta`` the convex weights), and ``state`` keeps
    ``||w||^2`` so that a distance costs one kernel row over the core vectors:

        d^2 = ||w||^2 - 2 y f(x) + k(x, x) + xi2 + 1/C,   f(x) = sum_m alpha_m k(z_m, x).

    Algorithm 1: a point at ``d >= R`` scales ``alpha`` by ``1 - a``, is stored with
    ``alpha = a y``, and ``||w||^2 <- (1-a)^2 ||w||^2 + 2 a (1-a) y f(x) + a^2 k(x, x)``.
    Algorithm 2: such a point is stored after the core vectors (slot ``n_stored +
    n_buffered``, ``alpha = 0``) with its label in ``buffer_y`` and ``y f(x) = <w, y phi(x)>``
    in ``buffer_f``, until ``lookahead`` are
    buffered; the caller then replaces the ball by the MEB of the ball and the buffer.
    With ``normalized`` the kernel is ``k / sqrt(k(x,x) k(z,z))`` (``core_self`` holds the
    raw self-kernels); ``bias`` is added to every kernel value (1 for the feature map
    ``[phi(x); 1]`` of a model with an intercept, which keeps ``k(x, x)`` constant).
    ``par`` is None on one thread (the kernel rows compile no parallel function), True on
    several (:func:`streamsvm.kernels._core.kernel_row_dense`).

    Returns ``(next_row, n_stored, n_buffered, kernel_evaluations)``. It stops early when
    the storage is full (the caller grows it and calls again) or the buffer is.
    """
    evals = 0
    capacity = core.shape[0]
    i = start
    while i < X.shape[0]:
        if n_stored + n_buffered == capacity or (lookahead > 1 and n_buffered == lookahead):
            return i, n_stored, n_buffered, evals
        x = X[i]
        raw_self = kernel_dense(x, x_sq[i], x, x_sq[i], code, gamma, degree, coef0)
        kxx = ((1.0 if raw_self > 0.0 else 0.0) if normalized else raw_self) + bias
        evals += 1
        if state[STARTED] == 0.0:
            for j in range(x.shape[0]):
                core[0, j] = x[j]
            core_sq[0], core_self[0], alpha[0] = x_sq[i], raw_self, y[i]
            n_stored = 1
            state[R_], state[XI2], state[WNORM2], state[STARTED] = 0.0, inv_C, kxx, 1.0
            state[N_CORE] += 1
            i += 1
            continue
        n = n_stored
        out = row[:n]
        kernel_row_dense(x, x_sq[i], core[:n], core_sq[:n], code, gamma, degree, coef0, out,
                         par)
        if normalized:
            normalize_row(out, raw_self, core_self[:n])
        evals += n
        f = 0.0
        for m in range(n):
            f += alpha[m] * (out[m] + bias)
        R, xi2, wnorm2 = state[R_], state[XI2], state[WNORM2]
        d = np.sqrt(max(wnorm2 - 2.0 * y[i] * f + kxx + xi2 + inv_C, 0.0))
        if d >= R and d > 0.0:
            slot = n + n_buffered
            for j in range(x.shape[0]):
                core[slot, j] = x[j]
            core_sq[slot], core_self[slot] = x_sq[i], raw_self
            if lookahead > 1:
                alpha[slot] = 0.0
                buffer_y[n_buffered] = y[i]
                buffer_f[n_buffered] = y[i] * f
                n_buffered += 1
            else:
                a, R, xi2 = _ball_step(R, xi2, d, inv_C)
                for m in range(n):
                    alpha[m] *= 1.0 - a
                alpha[n] = a * y[i]
                n_stored += 1
                wnorm2 = (1.0 - a) ** 2 * wnorm2 + 2.0 * a * (1.0 - a) * y[i] * f + a * a * kxx
                _store(state, R, xi2, wnorm2, True, 1)
        i += 1
    return i, n_stored, n_buffered, evals


@njit(cache=True)
def _pair_ball(gram_aa, gram_bb, gram_ab, xi2_a, xi2_b, r_a, r_b):
    """Smallest ball enclosing two balls whose centres' e-parts are orthogonal.

    ``delta^2 = ||w_a - w_b||^2 + xi2_a + xi2_b``. Returns ``(t, R)``: the centre is
    ``(1 - t) c_a + t c_b`` (t = 0 or 1 when one ball contains the other)."""
    delta = np.sqrt(max(gram_aa + gram_bb - 2.0 * gram_ab + xi2_a + xi2_b, 0.0))
    if delta + r_b <= r_a:
        return 0.0, r_a
    if delta + r_a <= r_b:
        return 1.0, r_b
    radius = 0.5 * (delta + r_a + r_b)
    return (radius - r_a) / delta, radius


@njit(cache=True)
def multiball_dense(X, y, W, xi2, R, gram, n_used, inv_C, dots):
    """Section 4.3, L balls kept at once (``L = W.shape[0]``), one pass over the rows.

    A point inside some ball is skipped. Otherwise, while fewer than L balls exist it becomes
    a ball of radius 0; else, of the L + 1 balls (the L kept and the point), the pair whose
    enclosing ball is smallest is replaced by that ball (the merge rule is not given in the
    paper; this is the natural greedy one). Balls own disjoint sets of points, so their
    centres' e-parts are orthogonal and the Gram matrix of the full centres is
    ``gram + diag(xi2)``, with ``gram = W W^T`` kept up to date.

    Returns ``(n_used, n_merges)``.
    """
    L = W.shape[0]
    merges = 0
    for i in range(X.shape[0]):
        x = X[i]
        label = y[i]
        xx = 0.0
        for j in range(x.shape[0]):
            xx += x[j] * x[j]
        inside = False
        for b in range(n_used):
            dot = 0.0
            for j in range(x.shape[0]):
                dot += W[b, j] * x[j]
            dots[b] = label * dot
            d2 = gram[b, b] - 2.0 * dots[b] + xx + xi2[b] + inv_C
            if np.sqrt(max(d2, 0.0)) <= R[b]:
                inside = True
                break
        if inside:
            continue
        if n_used < L:
            k = n_used
            for j in range(x.shape[0]):
                W[k, j] = label * x[j]
            for b in range(n_used):
                gram[k, b] = dots[b]
                gram[b, k] = dots[b]
            gram[k, k] = xx
            xi2[k], R[k] = inv_C, 0.0
            n_used += 1
            continue
        # ball index L stands for the new point: centre [y x; C^{-1/2} e_n], radius 0
        best_r, best_a, best_b, best_t = np.inf, -1, -1, 0.0
        for a in range(L + 1):
            for b in range(a + 1, L + 1):
                g_aa = gram[a, a] if a < L else xx
                x2_a = xi2[a] if a < L else inv_C
                r_a = R[a] if a < L else 0.0
                if b < L:
                    g_bb, g_ab, x2_b, r_b = gram[b, b], gram[a, b], xi2[b], R[b]
                else:
                    g_bb, g_ab, x2_b, r_b = xx, dots[a], inv_C, 0.0
                t, radius = _pair_ball(g_aa, g_bb, g_ab, x2_a, x2_b, r_a, r_b)
                if radius < best_r:
                    best_r, best_a, best_b, best_t = radius, a, b, t
        a, b, t = best_a, best_b, best_t
        merges += 1
        # the merged ball goes to slot a; if b is a kept ball, the point takes slot b
        new_row = np.empty(L)
        for k in range(L):
            g_bk = gram[b, k] if b < L else dots[k]
            new_row[k] = (1.0 - t) * gram[a, k] + t * g_bk
        g_bb = gram[b, b] if b < L else xx
        x2_b = xi2[b] if b < L else inv_C
        new_self = (
            (1.0 - t) ** 2 * gram[a, a]
            + 2.0 * t * (1.0 - t) * (gram[a, b] if b < L else dots[a])
            + t * t * g_bb
        )
        for j in range(W.shape[1]):
            wb = W[b, j] if b < L else label * x[j]
            W[a, j] = (1.0 - t) * W[a, j] + t * wb
        xi2[a] = (1.0 - t) ** 2 * xi2[a] + t * t * x2_b
        R[a] = best_r
        for k in range(L):
            gram[a, k] = new_row[k]
            gram[k, a] = new_row[k]
        gram[a, a] = new_self
        if b < L:  # the point becomes ball b
            for j in range(x.shape[0]):
                W[b, j] = label * x[j]
            for k in range(L):
                gram[b, k] = dots[k] if k != a else 0.0
            # dot of the point with the merged ball a
            dot_pa = 0.0
            for j in range(x.shape[0]):
                dot_pa += W[a, j] * label * x[j]
            gram[b, a] = dot_pa
            for k in range(L):
                gram[k, b] = gram[b, k]
            gram[b, b] = xx
            xi2[b], R[b] = inv_C, 0.0
    return n_used, merges


@njit(cache=True)
def prepare_dense(X, mean, use_mean, append_one, normalize, out):
    """StreamSVM's preprocessing of dense rows in one pass: subtract ``mean`` (if
    ``use_mean``), append a constant 1 (if ``append_one``), scale to unit norm (if
    ``normalize``; zero rows stay zero). ``out`` has ``X.shape[1] + append_one`` columns."""
    for i in range(X.shape[0]):
        _mapped_row(X, i, mean, use_mean, append_one, normalize, out[i])
    return out


@njit(cache=True, fastmath=_ROW_FLAGS)
def mapped_dots_dense(X, mean, use_mean, append_one, normalize, w, out):
    """``out[i] = w·x'`` for each row ``x'`` of ``X`` mapped as :func:`prepare_dense` maps it,
    from one sweep of the row (the mapped rows are not written out)."""
    d = X.shape[1]
    if not use_mean:
        mean = np.zeros(d)
    for i in range(X.shape[0]):
        xx, dot = _centred_norm_and_dot(X, i, mean, w)
        if append_one:
            xx += 1.0
            dot += w[d]
        if normalize and xx > 0.0:
            dot /= np.sqrt(xx)
        out[i] = dot
    return out


@njit(cache=True)
def mapped_dots_csr(indptr, indices, data, append_one, normalize, w, out):
    """:func:`mapped_dots_dense` for CSR rows (not centred; the bias feature is column
    ``w.shape[0] - 1`` with ``append_one``)."""
    bias = w.shape[0] - 1
    for i in range(indptr.shape[0] - 1):
        lo, hi = indptr[i], indptr[i + 1]
        scale = _csr_row_scale(data, lo, hi, append_one, normalize)
        dot = w[bias] * scale if append_one else 0.0
        for p in range(lo, hi):
            dot += w[indices[p]] * (data[p] * scale)
        out[i] = dot
    return out
