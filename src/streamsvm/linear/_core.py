"""Jitted one-pass loops of the linear baselines (dense and CSR), one call per chunk."""

import numpy as np
from numba import njit

from ..kernels._core import dot_csr_dense, dot_dense

#: Reassociation and contraction let LLVM vectorise the per-row reductions; no flag that
#: assumes finite values, so a NaN or an infinity still reaches the row checks.
_ROW_FLAGS = {"reassoc", "contract"}


@njit(cache=True)
def _dot_dense(w, x):
    return dot_dense(w, x)


@njit(cache=True)
def _dot_csr(w, indices, data, start, stop):
    return dot_csr_dense(indices[start:stop], data[start:stop], w)


@njit(cache=True, fastmath=_ROW_FLAGS)
def _row_dot_and_sqnorm(X, i, w):
    """``(w[:d]·X[i], ||X[i]||^2)`` in one vectorised sweep of the row (d = its width).
    Only these reductions are reassociated: the updates round as written."""
    dot = 0.0
    xx = 0.0
    for j in range(X.shape[1]):
        x = X[i, j]
        dot += w[j] * x
        xx += x * x
    return dot, xx


@njit(cache=True)
def perceptron_dense(X, y, w, bias, fit_intercept):
    """Rosenblatt's rule over the rows of X in order: on ``y (w·x + b) <= 0``, ``w += y x``
    (and ``b += y``). Updates ``w`` in place; returns ``(bias, n_mistakes, rows_sqnorm)``.

    The one sweep of a row gives its dot product with ``w`` and its squared norm;
    ``rows_sqnorm`` is the sum of the rows' squared norms, the check of
    :func:`~streamsvm.base.refuse_rows`
    (NaN or infinity in a row make it non-finite: squares cannot cancel)."""
    mistakes = 0
    rows_sqnorm = 0.0
    d = X.shape[1]
    for i in range(X.shape[0]):
        dot, xx = _row_dot_and_sqnorm(X, i, w)
        rows_sqnorm += xx
        label = y[i]
        if label * (dot + bias) <= 0.0:
            mistakes += 1
            for j in range(d):
                w[j] += label * X[i, j]
            if fit_intercept:
                bias += label
    return bias, mistakes, rows_sqnorm


@njit(cache=True)
def perceptron_csr(indptr, indices, data, y, w, bias, fit_intercept):
    """:func:`perceptron_dense` for CSR rows."""
    mistakes = 0
    for i in range(indptr.shape[0] - 1):
        start, stop = indptr[i], indptr[i + 1]
        if y[i] * (_dot_csr(w, indices, data, start, stop) + bias) <= 0.0:
            mistakes += 1
            for p in range(start, stop):
                w[indices[p]] += y[i] * data[p]
            if fit_intercept:
                bias += y[i]
    return bias, mistakes


@njit(cache=True)
def _pegasos_step(t, lam, scale, sqnorm_v, v):
    """Shrink ``w = scale * v`` by ``1 - eta_t lam = 1 - 1/t``; returns (eta, scale, sqnorm_v)."""
    eta = 1.0 / (lam * t)
    shrink = 1.0 - 1.0 / t
    if shrink <= 0.0:  # t == 1: w is reset to 0
        v[:] = 0.0
        return eta, 1.0, 0.0
    return eta, scale * shrink, sqnorm_v


@njit(cache=True)
def _pegasos_finish_block(lam, project, scale, sqnorm_v, v):
    """Projection onto the ball of radius 1/sqrt(lam), and folding a tiny scale into v."""
    if project and sqnorm_v > 0.0:
        norm_w = scale * np.sqrt(sqnorm_v)
        radius = 1.0 / np.sqrt(lam)
        if norm_w > radius:
            scale *= radius / norm_w
    if scale < 1e-9:
        for j in range(v.shape[0]):
            v[j] *= scale
        sqnorm_v *= scale * scale
        scale = 1.0
    return scale, sqnorm_v


@njit(cache=True)
def pegasos_dense(X, y, yw, v, scale, sqnorm_v, t, lam, block_size, project, margins,
                  intercept):
    """Pegasos (Shalev-Shwartz, Singer, Srebro & Cotter 2011, Fig. 2 with blocks) over the
    complete blocks of ``block_size`` rows.

    Per block A_t: ``w <- (1 - 1/t) w + (eta_t / k) sum_{A_t^+} y x`` with
    ``eta_t = 1/(lam t)`` and ``A_t^+`` the rows of the block with margin ``y w·x < 1``
    (measured with ``w`` at the block's start), then the optional projection onto
    ``||w|| <= 1/sqrt(lam)``. ``yw`` is each row's label times its weight (``y`` itself
    unweighted): a violating row steps by ``eta_t / k * yw x``, the weighted hinge loss's
    sub-gradient as in scikit-learn's ``SGDClassifier``; a row of weight 0 still counts as a
    step (``t`` grows, ``w`` shrinks), as there. ``w = scale * v`` so that the shrink costs
    O(1). With
    ``intercept``, every row carries a constant feature 1 whose weight is ``v[-1]`` (the
    paper's first way to incorporate a bias: a regularised one), without writing the row out.
    Only ``X.shape[0] // block_size`` blocks are processed. Returns
    ``(scale, sqnorm_v, t, n_updates, rows_sqnorm)``.

    Each row is swept once for its dot product with ``v`` and its squared norm (the update
    ``||v + c x||^2 = ||v||^2 + 2c v·x + c^2 ||x||^2`` reuses both while ``v`` has not moved
    within the block); ``rows_sqnorm`` sums the processed rows' squared norms, the check of
    :func:`~streamsvm.base.refuse_rows`.
    """
    n_updates = 0
    rows_sqnorm = 0.0
    k = block_size
    d = X.shape[1]
    one = 1.0 if intercept else 0.0
    dots = np.empty(k)
    row_sqnorms = np.empty(k)
    for start in range(0, X.shape[0] - k + 1, k):
        bias = v[d] if intercept else 0.0
        for i in range(k):
            r = start + i
            dot, xx = _row_dot_and_sqnorm(X, r, v)
            dots[i] = dot + bias
            row_sqnorms[i] = xx + one
            rows_sqnorm += xx
            margins[i] = y[r] * scale * dots[i]
        t += 1
        eta, scale, sqnorm_v = _pegasos_step(t, lam, scale, sqnorm_v, v)
        reset = t == 1  # _pegasos_step set v to 0: every dot with it is 0
        moved = False  # whether v moved within this block (then dots are recomputed)
        for i in range(k):
            if margins[i] < 1.0:
                n_updates += 1
                r = start + i
                c = eta * yw[r] / (k * scale)
                if moved:
                    dot = _dot_dense(v[:d], X[r]) + (v[d] if intercept else 0.0)
                else:
                    dot = 0.0 if reset else dots[i]
                sqnorm_v += 2.0 * c * dot + c * c * row_sqnorms[i]
                for j in range(d):
                    v[j] += c * X[r, j]
                if intercept:
                    v[d] += c
                moved = True
        scale, sqnorm_v = _pegasos_finish_block(lam, project, scale, sqnorm_v, v)
    return scale, sqnorm_v, t, n_updates, rows_sqnorm


@njit(cache=True)
def pegasos_csr(indptr, indices, data, y, yw, v, scale, sqnorm_v, t, lam, block_size,
                project, margins, intercept):
    """:func:`pegasos_dense` for CSR rows (the bias weight ``v[-1]`` with ``intercept``)."""
    n_updates = 0
    k = block_size
    n = indptr.shape[0] - 1
    last = v.shape[0] - 1
    one = 1.0 if intercept else 0.0
    for start in range(0, n - k + 1, k):
        for i in range(k):
            r = start + i
            bias = v[last] if intercept else 0.0
            margins[i] = y[r] * scale * (_dot_csr(v, indices, data, indptr[r], indptr[r + 1])
                                         + bias)
        t += 1
        eta, scale, sqnorm_v = _pegasos_step(t, lam, scale, sqnorm_v, v)
        for i in range(k):
            if margins[i] < 1.0:
                n_updates += 1
                r = start + i
                lo, hi = indptr[r], indptr[r + 1]
                c = eta * yw[r] / (k * scale)
                xx = one
                for p in range(lo, hi):
                    xx += data[p] * data[p]
                bias = v[last] if intercept else 0.0
                sqnorm_v += 2.0 * c * (_dot_csr(v, indices, data, lo, hi) + bias) + c * c * xx
                for p in range(lo, hi):
                    v[indices[p]] += c * data[p]
                if intercept:
                    v[last] += c
        scale, sqnorm_v = _pegasos_finish_block(lam, project, scale, sqnorm_v, v)
    return scale, sqnorm_v, t, n_updates



# ---------------------------------------------------------------- averaged iterates (issue 38)
# The loops above as they are, plus the running sums of the average of the iterates; kept
# apart so that the per-row steps (``_row_core``) and the unaveraged models are unchanged.


@njit(cache=True)
def perceptron_avg_dense(X, y, w, bias, fit_intercept, u, u_bias, count):
    """:func:`perceptron_dense` with the sums of the averaged perceptron (Freund & Schapire,
    "Large margin classification using the perceptron algorithm", 1999) in the form that
    costs nothing on rows without a mistake: ``count`` is the row counter ``c`` (1 before
    the first row), a mistake at ``c`` also adds ``c y x`` to ``u`` (``c y`` to ``u_bias``),
    and ``w - u / c`` is the mean of the iterates ``w_0 … w_{c-1}``. Returns
    ``(bias, n_mistakes, rows_sqnorm, u_bias, count)``."""
    mistakes = 0
    rows_sqnorm = 0.0
    d = X.shape[1]
    for i in range(X.shape[0]):
        dot, xx = _row_dot_and_sqnorm(X, i, w)
        rows_sqnorm += xx
        label = y[i]
        if label * (dot + bias) <= 0.0:
            mistakes += 1
            cy = count * label
            for j in range(d):
                x = X[i, j]
                w[j] += label * x
                u[j] += cy * x
            if fit_intercept:
                bias += label
                u_bias += cy
        count += 1.0
    return bias, mistakes, rows_sqnorm, u_bias, count


@njit(cache=True)
def perceptron_avg_csr(indptr, indices, data, y, w, bias, fit_intercept, u, u_bias, count):
    """:func:`perceptron_avg_dense` for CSR rows; returns ``(bias, n_mistakes, u_bias,
    count)``."""
    mistakes = 0
    for i in range(indptr.shape[0] - 1):
        start, stop = indptr[i], indptr[i + 1]
        label = y[i]
        if label * (_dot_csr(w, indices, data, start, stop) + bias) <= 0.0:
            mistakes += 1
            cy = count * label
            for p in range(start, stop):
                w[indices[p]] += label * data[p]
                u[indices[p]] += cy * data[p]
            if fit_intercept:
                bias += label
                u_bias += cy
        count += 1.0
    return bias, mistakes, u_bias, count


#: the averaged loops fold the scale into ``v`` below this (the last iterate's loops: 1e-9),
#: writing the sum ``avg_s v - u`` out into ``-u`` then: ``avg_s v`` never grows far past the
#: sum it stands for, so the difference keeps its digits (a shrinking scale, e.g. the many
#: projections of a small ``lam``, would make both terms huge beside it)
AVERAGE_FOLD = 1e-3


@njit(cache=True)
def _fold_average(scale, sqnorm_v, v, u, avg_s, lam, project):
    """:func:`_pegasos_finish_block` for the averaged loops (:data:`AVERAGE_FOLD`); returns
    ``(scale, sqnorm_v, avg_s)``."""
    if project and sqnorm_v > 0.0:
        norm_w = scale * np.sqrt(sqnorm_v)
        radius = 1.0 / np.sqrt(lam)
        if norm_w > radius:
            scale *= radius / norm_w
    if scale < AVERAGE_FOLD:
        for j in range(v.shape[0]):
            u[j] -= avg_s * v[j]  # sum_t t w_t = 0 v - u from here
            v[j] *= scale
        sqnorm_v *= scale * scale
        avg_s = 0.0
        scale = 1.0
    return scale, sqnorm_v, avg_s


@njit(cache=True)
def pegasos_avg_dense(X, y, yw, v, scale, sqnorm_v, t, lam, block_size, project, margins,
                      intercept, u, avg_s):
    """:func:`pegasos_dense` that also keeps the sum ``sum_t t w_t`` of its iterates (after
    each block's step and projection) weighted by ``t``, the average of Lacoste-Julien,
    Schmidt & Bach ("A simpler approach to obtaining an O(1/t) convergence rate for the
    projected stochastic subgradient method", 2012) for Pegasos's strongly convex objective
    and step ``1/(lam t)``, without a pass over ``w`` per block: ``sum_t t w_t = avg_s v - u``,
    where ``avg_s`` sums ``t scale_t`` (``w_t = scale_t v``, in the units of today's ``v``)
    and a step ``v += c x`` adds ``avg_s c x`` to ``u``; the mean divides by ``sum_t t``.
    Returns ``(scale, sqnorm_v, t, n_updates, rows_sqnorm, avg_s)``."""
    n_updates = 0
    rows_sqnorm = 0.0
    k = block_size
    d = X.shape[1]
    one = 1.0 if intercept else 0.0
    dots = np.empty(k)
    row_sqnorms = np.empty(k)
    for start in range(0, X.shape[0] - k + 1, k):
        bias = v[d] if intercept else 0.0
        for i in range(k):
            r = start + i
            dot, xx = _row_dot_and_sqnorm(X, r, v)
            dots[i] = dot + bias
            row_sqnorms[i] = xx + one
            rows_sqnorm += xx
            margins[i] = y[r] * scale * dots[i]
        t += 1
        eta, scale, sqnorm_v = _pegasos_step(t, lam, scale, sqnorm_v, v)
        reset = t == 1
        moved = False
        for i in range(k):
            if margins[i] < 1.0:
                n_updates += 1
                r = start + i
                c = eta * yw[r] / (k * scale)
                if moved:
                    dot = _dot_dense(v[:d], X[r]) + (v[d] if intercept else 0.0)
                else:
                    dot = 0.0 if reset else dots[i]
                sqnorm_v += 2.0 * c * dot + c * c * row_sqnorms[i]
                cu = avg_s * c
                for j in range(d):
                    x = X[r, j]
                    v[j] += c * x
                    u[j] += cu * x
                if intercept:
                    v[d] += c
                    u[d] += cu
                moved = True
        scale, sqnorm_v, avg_s = _fold_average(scale, sqnorm_v, v, u, avg_s, lam, project)
        avg_s += t * scale
    return scale, sqnorm_v, t, n_updates, rows_sqnorm, avg_s


@njit(cache=True)
def pegasos_avg_csr(indptr, indices, data, y, yw, v, scale, sqnorm_v, t, lam, block_size,
                    project, margins, intercept, u, avg_s):
    """:func:`pegasos_avg_dense` for CSR rows; returns ``(scale, sqnorm_v, t, n_updates,
    avg_s)``."""
    n_updates = 0
    k = block_size
    n = indptr.shape[0] - 1
    last = v.shape[0] - 1
    one = 1.0 if intercept else 0.0
    for start in range(0, n - k + 1, k):
        for i in range(k):
            r = start + i
            bias = v[last] if intercept else 0.0
            margins[i] = y[r] * scale * (_dot_csr(v, indices, data, indptr[r], indptr[r + 1])
                                         + bias)
        t += 1
        eta, scale, sqnorm_v = _pegasos_step(t, lam, scale, sqnorm_v, v)
        for i in range(k):
            if margins[i] < 1.0:
                n_updates += 1
                r = start + i
                lo, hi = indptr[r], indptr[r + 1]
                c = eta * yw[r] / (k * scale)
                xx = one
                for p in range(lo, hi):
                    xx += data[p] * data[p]
                bias = v[last] if intercept else 0.0
                sqnorm_v += 2.0 * c * (_dot_csr(v, indices, data, lo, hi) + bias) + c * c * xx
                cu = avg_s * c
                for p in range(lo, hi):
                    v[indices[p]] += c * data[p]
                    u[indices[p]] += cu * data[p]
                if intercept:
                    v[last] += c
                    u[last] += cu
        scale, sqnorm_v, avg_s = _fold_average(scale, sqnorm_v, v, u, avg_s, lam, project)
        avg_s += t * scale
    return scale, sqnorm_v, t, n_updates, avg_s
