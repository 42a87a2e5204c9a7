"""Jitted scans of the Blurred Ball SVM (Nathan & Raghvendra, "Accurate Streaming Support
Vector Machines", 2014), one call per chunk.

Every example becomes the augmented point of the Core Vector Machine map (section 3)

    p = [y φ(x); y; C^{-1/2} e],    ‖p‖² = k(x, x) + 1 + 1/C  (= κ²),

and every kept ball B has a centre c_B = Σ_j a_Bj p_j, a convex combination over the core
points j of its core set. A new point's e is orthogonal to every centre, so

    p · c_B = y Σ_j a_Bj y_j (k(x, x_j) + 1),    ‖p − c_B‖² = κ² − 2 p·c_B + ‖c_B‖².

For the linear kernel the scan keeps W_B = Σ_j a_Bj y_j x_j and b_B = Σ_j a_Bj y_j, so that
p·c_B = y (x·W_B + b_B) costs O(d); for other kernels it computes one kernel row over the
core points and takes the sparse sums over each ball's core set.

The scans run Algorithm 1's lines 3–7: a point is *covered* when it lies in the
(1+ε)-expansion of some kept ball, ‖p − c_B‖ ≤ (1+ε) r_B (newest ball first, since it is the
largest). With ``capacity`` = 1 (L = 0 or 1) a covered point is dropped at once; otherwise
every point enters the lookahead buffer, and a full buffer is either discarded (all its
points covered) or handed back to the caller, which adds a new ball (line 8).
"""

import numpy as np
from numba import njit

from ..kernels._core import dot_dense, kernel_dense, kernel_row_dense, normalize_row


@njit(cache=True)
def _covers(kappa2, label, s, cnorm2, radius, expand2):
    """Whether the point with ``‖p‖² = kappa2`` and ``p·c_B = label s`` lies in the
    (1+ε)-expansion of the ball (centre norm² ``cnorm2``, ``radius``; ``expand2 = (1+ε)²``)."""
    d2 = kappa2 - 2.0 * label * s + cnorm2
    return d2 <= expand2 * radius * radius


@njit(cache=True)
def _take(x, label, index, covered, buf_X, buf_y, buf_index, buf_covered, n_buf):
    """A scanned point into the lookahead buffer (a covered one is dropped at once when the
    capacity is 1). Returns ``(n_buf, flush)``: a full buffer is handed back (``flush``)
    when it holds an uncovered point, else discarded."""
    capacity = buf_X.shape[0]
    if capacity == 1 and covered:
        return n_buf, False
    for feat in range(buf_X.shape[1]):  # a loop: no shape-error code to compile
        buf_X[n_buf, feat] = x[feat]
    buf_y[n_buf] = label
    buf_index[n_buf] = index
    buf_covered[n_buf] = covered
    n_buf += 1
    if n_buf == capacity:
        for k in range(n_buf):
            if not buf_covered[k]:
                return n_buf, True
        n_buf = 0
    return n_buf, False


@njit(cache=True)
def scan_linear(X, y, start, first_index, W, bias, radius, cnorm2, n_balls, expand2, inv_C,
                buf_X, buf_y, buf_index, buf_covered, n_buf):
    """Coverage scan with the linear kernel from row ``start``.

    ``expand2 = (1+ε)²``. Returns ``(next_row, n_buf, flush)``; ``flush`` is True when the
    buffer (capacity ``buf_X.shape[0]``) is full and holds an uncovered point.
    """
    d = X.shape[1]
    i = start
    n = X.shape[0]
    while i < n:
        x = X[i]
        label = y[i]
        kappa2 = dot_dense(x, x) + 1.0 + inv_C
        covered = False
        for b in range(n_balls - 1, -1, -1):
            s = bias[b]
            w = W[b]
            for j in range(d):
                s += x[j] * w[j]
            if _covers(kappa2, label, s, cnorm2[b], radius[b], expand2):
                covered = True
                break
        i += 1
        n_buf, flush = _take(x, label, first_index + i - 1, covered, buf_X, buf_y, buf_index,
                             buf_covered, n_buf)
        if flush:
            return i, n_buf, True
    return i, n_buf, False


@njit(cache=True)
def scan_kernel(X, x_sq, y, start, first_index, pool_X, pool_sq, pool_self, pool_y, n_pool,
                ball_ptr, ball_slot, ball_coef, radius, cnorm2, n_balls, expand2, inv_C,
                code, gamma, degree, coef0, normalized, row, buf_X, buf_y, buf_index,
                buf_covered, n_buf, par):
    """Coverage scan with a non-linear kernel: one kernel row over the ``n_pool`` core points
    per example, then ``p·c_B`` over each ball's core set (CSR ``ball_ptr/slot/coef``).

    ``normalized`` uses ``k / sqrt(k(x,x) k(z,z))`` (``pool_self`` holds the raw self values);
    ``par`` is None on one thread (the kernel rows compile no parallel function), True on
    several. Returns ``(next_row, n_buf, flush, kernel_evaluations)``.
    """
    evals = 0
    i = start
    n = X.shape[0]
    while i < n:
        x = X[i]
        label = y[i]
        raw_self = kernel_dense(x, x_sq[i], x, x_sq[i], code, gamma, degree, coef0)
        kxx = (1.0 if raw_self > 0.0 else 0.0) if normalized else raw_self
        kappa2 = kxx + 1.0 + inv_C
        out = row[:n_pool]
        if n_balls > 0:
            kernel_row_dense(x, x_sq[i], pool_X[:n_pool], pool_sq[:n_pool], code, gamma,
                             degree, coef0, out, par)
            if normalized:
                normalize_row(out, raw_self, pool_self[:n_pool])
            evals += n_pool + 1
        covered = False
        for b in range(n_balls - 1, -1, -1):
            s = 0.0
            for t in range(ball_ptr[b], ball_ptr[b + 1]):
                j = ball_slot[t]
                s += ball_coef[t] * pool_y[j] * (out[j] + 1.0)
            if _covers(kappa2, label, s, cnorm2[b], radius[b], expand2):
                covered = True
                break
        i += 1
        n_buf, flush = _take(x, label, first_index + i - 1, covered, buf_X, buf_y, buf_index,
                             buf_covered, n_buf)
        if flush:
            return i, n_buf, True, evals
    return i, n_buf, False, evals


@njit(cache=True)
def blurred_scores(F, cnorm2, out):
    """Algorithm 2 from the inner products ``F[i, B] = p_i · c_B`` of ``p_i = φ̄(x_i, +1)``.

    Definition 1: p ∈ B iff (p − c_B)·c_B ≥ 0, i.e. F ≥ ‖c_B‖² (Lemma 1, part 3); −p ∈ B iff
    −F ≥ ‖c_B‖². Definition 2: S(p) = Σ_{B ∋ p} F/‖c_B‖. ``out[i] = S(p) − S(−p)``, whose sign
    is H(p). When neither p nor −p lies in any ball, Algorithm 2 gives 0 (no decision); the
    score is then the mean signed distance Σ_B F/‖c_B‖ / n_B to the balls' hyperplanes, so
    with a single ball the score is F/‖c‖ everywhere: the exact-MEB classifier. Balls with
    ‖c_B‖ = 0 (no separator, Lemma 1 part 1 fails) are skipped.
    """
    n, nb = F.shape
    for i in range(n):
        s_plus = 0.0
        s_minus = 0.0
        mean = 0.0
        used = 0
        support = False
        for b in range(nb):
            c2 = cnorm2[b]
            if c2 <= 0.0:
                continue
            cn = np.sqrt(c2)
            f = F[i, b]
            used += 1
            mean += f / cn
            if f >= c2:
                s_plus += f / cn
                support = True
            elif -f >= c2:
                s_minus -= f / cn
                support = True
        if support:
            out[i] = s_plus - s_minus
        elif used > 0:
            out[i] = mean / used
        else:
            out[i] = 0.0
    return out
