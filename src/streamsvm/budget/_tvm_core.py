"""Jitted Twin Vector Machine (Wang & Vucetic, SDM 2009), Algorithms 1-3 and Sec. 4.2-4.3,
over the exact incremental SVM of :mod:`._incremental_core`.

Twin ``j`` is a pivot ``q_j`` with weights ``s_j^+``, ``s_j^-``; each non-zero weight is one
example ``(q_j, ±1)`` of the incremental SVM with bound ``s_j^± C`` (Sec. 3.1), whose id is
``2 j`` (positive) or ``2 j + 1`` (negative). ``f(q_j)`` is read from that example's gradient
(``f = y (g + 1)``), so ``max_j |f(q_j)|`` and the one-sided regions cost O(B).

Tuple ``tw`` of twin arrays (slots named in :mod:`._state`): pivots ``Q`` (B, d), their
squared norms, the weights, the machine slots of each twin's examples, the merge neighbours,
the counters and ``D`` (B, B), where ``D[i, k]`` caches the
squared distance of pivots i and k (``||q_i - q_k||^2``, or ``||phi(q_i) - phi(q_k)||^2``
with feature-space merging); a row is recomputed, O(B d), only when its pivot changes, so
the neighbour search costs O(1) per pair instead of O(d) (without it, twins crossing the
boundary on high-dimensional data made every merge O(B^2 d)).
"""

import numpy as np
from numba import njit

from ..kernels._core import kernel_dense, kernel_from_dot
from . import _incremental_core as core
from ._state import (
    F_C,
    F_COEF0,
    F_GAMMA,
    I_CODE,
    I_DEGREE,
    I_FAIL,
    I_KEVALS,
    I_N,
    M_FS,
    M_G,
    M_IDS,
    M_IST,
    M_SQ,
    M_X,
    M_Y,
    O_B,
    O_FEATURE,
    O_ONE_SIDED,
    O_REJECTION,
    O_SCALE_C,
    O_TRIES,
    P_ETA,
    P_M1,
    P_M2,
    T_ADD,
    T_BENEF,
    T_DIST,
    T_FAILED,
    T_MERGE,
    T_NTW,
    T_REJECT,
    T_REPL,
    T_SEEN,
    TF_CPROD,
    TF_TOTAL,
    TW_CHANGED,
    TW_DIST,
    TW_FS,
    TW_IST,
    TW_NEIGHBOUR,
    TW_NEIGHBOUR_DIST,
    TW_NEIGHBOUR_SIDE,
    TW_PIVOT_SQ,
    TW_PIVOTS,
    TW_SLOT_NEG,
    TW_SLOT_POS,
    TW_WEIGHT_NEG,
    TW_WEIGHT_POS,
)

#: bits of ``opts[O_ONE_SIDED]``: merge within the region of ``sign f(q)`` (Sec. 4.2.3), and
#: only twins whose majority labels agree (files written before the second bit merge as the
#: paper does)
ONE_SIDED_REGION = 1
ONE_SIDED_LABEL = 2


# ------------------------------------------------------------------ kernel rows
@njit(cache=True)
def kernel_row(m, x, xsq, out, nz, par):
    """``out[:N] = K(x, x_j)`` over the machine's stored examples, as
    :func:`._incremental_core.kernel_row`, but with the dot products taken over the
    non-zeros of ``x`` alone when it is sparse (fewer than d/4 non-zeros): O(d + N nnz(x))
    instead of O(N d). Sparse text rows are densified for the jitted loop, and their
    kernel rows dominated the cost per example. ``nz`` is an int buffer of length d;
    ``par``: None on one thread (no parallel function compiled), True on several."""
    d = x.shape[0]
    nnz = 0
    for k in range(d):
        if x[k] != 0.0:
            nz[nnz] = k
            nnz += 1
    if 4 * nnz > d:
        return core.kernel_row(m, x, xsq, out, par)
    X, sq, fs, ist = m[M_X], m[M_SQ], m[M_FS], m[M_IST]
    n = ist[I_N]
    ist[I_KEVALS] += n
    code, degree = ist[I_CODE], ist[I_DEGREE]
    gamma, coef0 = fs[F_GAMMA], fs[F_COEF0]
    for j in range(n):
        row = X[j]
        total = 0.0
        for p in range(nnz):
            k = nz[p]
            total += x[k] * row[k]
        out[j] = kernel_from_dot(total, xsq, sq[j], code, gamma, degree, coef0)
    return out[:n]


# ------------------------------------------------------------------ twins <-> examples
@njit(cache=True)
def twin_f(m, tw, j):
    """``f(q_j)`` from the gradient of one of twin j's examples."""
    slot_p, slot_n = tw[TW_SLOT_POS], tw[TW_SLOT_NEG]
    slot = slot_p[j] if slot_p[j] >= 0 else slot_n[j]
    return m[M_Y][slot] * (m[M_G][slot] + 1.0)


@njit(cache=True)
def _fix_moved(m, tw, slot, moved):
    """After ``remove_slot`` moved the example of old slot ``moved`` into ``slot``."""
    if moved < 0:
        return
    example = m[M_IDS][slot]
    twin = example // 2
    if example % 2 == 0:
        tw[TW_SLOT_POS][twin] = slot
    else:
        tw[TW_SLOT_NEG][twin] = slot


@njit(cache=True, inline="always")  # inlined: no compiled level of its own
def _remove_twin(m, tw, j):
    """Decremental unlearning of twin j's examples."""
    slot_p, slot_n, tst = tw[TW_SLOT_POS], tw[TW_SLOT_NEG], tw[TW_IST]
    for sign in range(2):
        slot = slot_p[j] if sign == 0 else slot_n[j]
        if slot < 0:
            continue
        if sign == 0:
            slot_p[j] = -1
        else:
            slot_n[j] = -1
        moved = core.remove_slot(m, slot)
        _fix_moved(m, tw, slot, moved)
        if m[M_IST][I_FAIL] >= 1000000:
            tst[T_FAILED] = 1


@njit(cache=True, inline="always")  # inlined: no compiled level of its own
def _add_twin(m, tw, j, krow, nz, par):
    """Incremental learning of twin j's examples (one per non-zero weight)."""
    Q, Qsq, wp, wn = tw[TW_PIVOTS], tw[TW_PIVOT_SQ], tw[TW_WEIGHT_POS], tw[TW_WEIGHT_NEG]
    slot_p, slot_n, tst = tw[TW_SLOT_POS], tw[TW_SLOT_NEG], tw[TW_IST]
    for sign in range(2):
        weight = wp[j] if sign == 0 else wn[j]
        if weight <= 0.0:
            continue
        row = kernel_row(m, Q[j], Qsq[j], krow, nz, par)
        label = 1.0 if sign == 0 else -1.0
        slot = core.add_example(m, Q[j], Qsq[j], label, weight, 2 * j + sign, row)
        if slot < 0:
            slot = m[M_IST][I_N] - 1
            tst[T_FAILED] = 1
        if sign == 0:
            slot_p[j] = slot
        else:
            slot_n[j] = slot


@njit(cache=True, inline="always")  # inlined: no compiled level of its own
def _set_C(m, tw, opts):
    """Sec. 4.3: keep ``C * sum_j (s_j^+ + s_j^-)`` constant."""
    tfs, tst = tw[TW_FS], tw[TW_IST]
    if opts[O_SCALE_C]:
        C_new = tfs[TF_CPROD] / tfs[TF_TOTAL]
    else:
        C_new = tfs[TF_CPROD]
    if C_new != m[M_FS][F_C]:
        if not core.set_C(m, C_new):
            tst[T_FAILED] = 1


# ------------------------------------------------------------------ merging (Sec. 4.2)
@njit(cache=True, inline="always")  # inlined: no compiled level of its own
def _kernel(m, a, asq, b, bsq):
    return core.kernel_value(m, a, asq, b, bsq)


@njit(cache=True)
def _pair_distance(Q, Qsq, i, j, feature, code, gamma, degree, coef0):
    """Squared distance of pivots i and j, O(d): input space ``||q_i - q_j||^2``
    (Sec. 4.2.1); feature space ``||phi(q_i) - phi(q_j)||^2 = k_ii + k_jj - 2 k_ij``
    (Sec. 4.2.2). Differences, not ``|q_i|^2 + |q_j|^2 - 2 q_i.q_j``: near-duplicate pivots
    (frequent on sparse text) keep their small distances exact."""
    if feature:
        dist = (kernel_dense(Q[i], Qsq[i], Q[i], Qsq[i], code, gamma, degree, coef0)
                + kernel_dense(Q[j], Qsq[j], Q[j], Qsq[j], code, gamma, degree, coef0)
                - 2.0 * kernel_dense(Q[i], Qsq[i], Q[j], Qsq[j], code, gamma, degree, coef0))
    else:
        dist = 0.0
        for k in range(Q.shape[1]):
            diff = Q[i, k] - Q[j, k]
            dist += diff * diff
    return max(dist, 0.0)


@njit(cache=True)
def _distortion(D, wp, wn, i, j):
    """Minimal distortion of merging twins i and j, ``d*_ij = s_i s_j D_ij / (s_i + s_j)``
    (Sec. 4.2.1-4.2.2; in feature space the distortion of the optimal ``phi`` of the merged
    twin, before the pre-image approximation), from the cached squared distance: O(1)."""
    si = wp[i] + wn[i]
    sj = wp[j] + wn[j]
    return si * sj / (si + sj) * D[i, j]


@njit(cache=True)
def _pair_distance_sparse(Q, Qsq, j, k, nz, nnz, feature, code, gamma, degree, coef0):
    """:func:`_pair_distance` when pivot j has its non-zeros at ``nz[:nnz]``: O(nnz).
    Input space: ``sum_{p in nz} (q_jp - q_kp)^2`` plus the mass of ``q_k`` outside the
    support of ``q_j``, ``|q_k|^2 - sum_{p in nz} q_kp^2``, whose rounding error is
    ~eps |q_k|^2; when the distance is below ``1e-4 |q_k|^2`` (near-duplicate pivots) that
    error is no longer negligible, and the distance is summed exactly in O(d) instead.
    Feature space: the kernel of the sparse dot product."""
    row_j = Q[j]
    row_k = Q[k]
    if feature:
        dot = 0.0
        for p in range(nnz):
            dot += row_j[nz[p]] * row_k[nz[p]]
        dist = (kernel_from_dot(Qsq[j], Qsq[j], Qsq[j], code, gamma, degree, coef0)
                + kernel_from_dot(Qsq[k], Qsq[k], Qsq[k], code, gamma, degree, coef0)
                - 2.0 * kernel_from_dot(dot, Qsq[j], Qsq[k], code, gamma, degree, coef0))
        return max(dist, 0.0)
    inside = 0.0
    within = 0.0
    for p in range(nnz):
        a = row_j[nz[p]]
        c = row_k[nz[p]]
        inside += (a - c) * (a - c)
        within += c * c
    dist = inside + max(Qsq[k] - within, 0.0)
    if dist < 1e-4 * Qsq[k]:  # rounding of |q_k|^2 - within (~eps |q_k|^2) not negligible
        return _pair_distance(Q, Qsq, j, k, np.bool_(False), code, gamma, degree, coef0)
    return dist


@njit(cache=True)
def _refresh_distances(m, tw, opts, n, nz):
    """Rows and columns of the distance cache ``D`` of the twins whose pivot changed
    (``tst[T_DIST]`` counts the pairs): O(B d) per changed twin, O(B nnz) for a sparse
    pivot (fewer than d/4 non-zeros, e.g. text)."""
    Q, Qsq, changed, tst = tw[TW_PIVOTS], tw[TW_PIVOT_SQ], tw[TW_CHANGED], tw[TW_IST]
    D = tw[TW_DIST]
    fs, ist = m[M_FS], m[M_IST]
    code, degree = ist[I_CODE], ist[I_DEGREE]
    gamma, coef0 = fs[F_GAMMA], fs[F_COEF0]
    feature = opts[O_FEATURE] != 0
    d = Q.shape[1]
    for j in range(n):
        if changed[j] == 0:
            continue
        nnz = np.int64(0)  # not a literal: one compiled _pair_distance_sparse
        for p in range(d):
            if Q[j, p] != 0.0:
                nz[nnz] = p
                nnz += 1
        sparse = 4 * nnz <= d
        D[j, j] = 0.0
        for k in range(n):
            if k == j or (changed[k] != 0 and k < j):  # that pair was done with row k
                continue
            tst[T_DIST] += 1
            if sparse:
                dist = _pair_distance_sparse(Q, Qsq, j, k, nz, nnz, feature, code, gamma,
                                             degree, coef0)
            else:
                dist = _pair_distance(Q, Qsq, j, k, feature, code, gamma, degree, coef0)
            D[j, k] = dist
            D[k, j] = dist


@njit(cache=True)
def _update_neighbours(m, tw, opts, side, nz):
    """Remembered best merge neighbour of every twin (Sec. 4.2.1), updated only for twins
    that changed (moved, or crossed the boundary in one-sided mode) instead of a full
    O(B^2) search; distortions come from the distance cache (O(1) each), refreshed in
    O(B d) per moved pivot."""
    wp, wn = tw[TW_WEIGHT_POS], tw[TW_WEIGHT_NEG]
    nb, nbd, nb_side = tw[TW_NEIGHBOUR], tw[TW_NEIGHBOUR_DIST], tw[TW_NEIGHBOUR_SIDE]
    changed, tst, D = tw[TW_CHANGED], tw[TW_IST], tw[TW_DIST]
    n = tst[T_NTW]
    _refresh_distances(m, tw, opts, n, nz)
    moved = np.zeros(n, dtype=np.bool_)
    redo = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        moved[i] = changed[i] != 0 or nb_side[i] != side[i]
    for i in range(n):
        k = nb[i]
        redo[i] = moved[i] or k < 0 or k >= n or moved[k] or side[k] != side[i]
    for i in range(n):
        if redo[i]:
            continue
        for k in range(n):
            if moved[k] and k != i and side[k] == side[i]:
                dk = _distortion(D, wp, wn, i, k)
                if dk < nbd[i]:
                    nbd[i] = dk
                    nb[i] = k
    for i in range(n):
        if not redo[i]:
            continue
        best = np.inf
        who = -1
        for k in range(n):
            if k != i and side[k] == side[i]:
                dk = _distortion(D, wp, wn, i, k)
                if dk < best:
                    best = dk
                    who = k
        nb[i] = who
        nbd[i] = best
        nb_side[i] = side[i]
    for i in range(n):
        changed[i] = 0


@njit(cache=True)
def _preimage(m, tw, i, j, out):
    """Approximate pre-image of ``(s_i phi(q_i) + s_j phi(q_j)) / (s_i + s_j)`` (eq. 4.2) on the
    segment ``q_i + h (q_j - q_i)``, h in [0, 1] (where it lies for RBF and polynomial
    kernels, Nguyen & Ho 2005): minimise ``k(z, z) - 2 (m_i k(z, q_i) + m_j k(z, q_j))`` by a
    grid of 21 points and golden-section refinement around the best."""
    Q, Qsq, wp, wn = tw[TW_PIVOTS], tw[TW_PIVOT_SQ], tw[TW_WEIGHT_POS], tw[TW_WEIGHT_NEG]
    si = wp[i] + wn[i]
    sj = wp[j] + wn[j]
    mi = si / (si + sj)
    mj = sj / (si + sj)
    best_h = 0.0
    best_v = np.inf
    for step in range(21):
        h = step / 20.0
        v = _segment_objective(m, Q, Qsq, i, j, mi, mj, h, out)
        if v < best_v:
            best_v = v
            best_h = h
    lo = max(0.0, best_h - 0.05)
    hi = min(1.0, best_h + 0.05)
    ratio = 0.6180339887498949
    a = hi - ratio * (hi - lo)
    b = lo + ratio * (hi - lo)
    fa = _segment_objective(m, Q, Qsq, i, j, mi, mj, a, out)
    fb = _segment_objective(m, Q, Qsq, i, j, mi, mj, b, out)
    for _ in range(30):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = _segment_objective(m, Q, Qsq, i, j, mi, mj, a, out)
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = _segment_objective(m, Q, Qsq, i, j, mi, mj, b, out)
    h = 0.5 * (lo + hi)
    if min(fa, fb) > best_v:
        h = best_h
    for k in range(Q.shape[1]):
        out[k] = Q[i, k] + h * (Q[j, k] - Q[i, k])


@njit(cache=True)
def _segment_objective(m, Q, Qsq, i, j, mi, mj, h, z):
    sq = 0.0
    for k in range(Q.shape[1]):
        z[k] = Q[i, k] + h * (Q[j, k] - Q[i, k])
        sq += z[k] * z[k]
    return (_kernel(m, z, sq, z, sq) - 2.0 * (mi * _kernel(m, z, sq, Q[i], Qsq[i])
                                               + mj * _kernel(m, z, sq, Q[j], Qsq[j])))


@njit(cache=True)
def _merged_pivot(m, tw, opts, i, j, out):
    Q, wp, wn = tw[TW_PIVOTS], tw[TW_WEIGHT_POS], tw[TW_WEIGHT_NEG]
    if opts[O_FEATURE]:
        _preimage(m, tw, i, j, out)
        return
    si = wp[i] + wn[i]
    sj = wp[j] + wn[j]
    for k in range(Q.shape[1]):
        out[k] = (si * Q[i, k] + sj * Q[j, k]) / (si + sj)


@njit(cache=True)
def _choose_merge(m, tw, opts, fpar, fq, qnew, krow, nz, par):
    """Best pair by remembered neighbours; with Rejection (Sec. 4.2.4), the merge is kept
    only if ``f(q_new)`` lies strictly between ``(1 -+ eta) f_hat``, ``f_hat = (s_i f(q_i) +
    s_j f(q_j)) / (s_i + s_j)``; otherwise the next best remembered pairs are tried, in
    order of distortion, ``opts[O_TRIES]`` pairs in all. Returns ``(i, j)`` or ``(-1, -1)``;
    ``qnew`` holds the merged pivot."""
    wp, wn, nb, nbd = tw[TW_WEIGHT_POS], tw[TW_WEIGHT_NEG], tw[TW_NEIGHBOUR], tw[TW_NEIGHBOUR_DIST]
    tst = tw[TW_IST]
    n = tst[T_NTW]
    tries = opts[O_TRIES] if opts[O_REJECTION] else 1
    order = np.argsort(nbd[:n])
    tried_a = np.full(n, -1, dtype=np.int64)
    tried_b = np.full(n, -1, dtype=np.int64)
    n_tried = 0
    for idx in range(n):
        if n_tried >= tries:
            break
        bi = order[idx]
        bj = nb[bi]
        if bj < 0 or not np.isfinite(nbd[bi]):
            break
        mirror = False
        for a in range(n_tried):
            if tried_a[a] == bj and tried_b[a] == bi:
                mirror = True
        if mirror:
            continue
        tried_a[n_tried] = bi
        tried_b[n_tried] = bj
        n_tried += 1
        _merged_pivot(m, tw, opts, bi, bj, qnew)
        if not opts[O_REJECTION]:
            return bi, bj
        sq = 0.0
        for k in range(qnew.shape[0]):
            sq += qnew[k] * qnew[k]
        f_new = core.decision_from_row(m, kernel_row(m, qnew, sq, krow, nz, par))
        si = wp[bi] + wn[bi]
        sj = wp[bj] + wn[bj]
        f_hat = (si * fq[bi] + sj * fq[bj]) / (si + sj)
        lo = min((1.0 - fpar[P_ETA]) * f_hat, (1.0 + fpar[P_ETA]) * f_hat)
        hi = max((1.0 - fpar[P_ETA]) * f_hat, (1.0 + fpar[P_ETA]) * f_hat)
        if lo < f_new < hi:
            return bi, bj
    return -1, -1


# ------------------------------------------------------------------ one example
@njit(cache=True)
def _place(tw, j, x, xsq, label):
    Q, Qsq, wp, wn = tw[TW_PIVOTS], tw[TW_PIVOT_SQ], tw[TW_WEIGHT_POS], tw[TW_WEIGHT_NEG]
    changed = tw[TW_CHANGED]
    for feat in range(Q.shape[1]):  # a loop: no shape-error code to compile
        Q[j, feat] = x[feat]
    Qsq[j] = xsq
    wp[j] = 1.0 if label > 0 else 0.0
    wn[j] = 0.0 if label > 0 else 1.0
    changed[j] = 1


@njit(cache=True, inline="always")  # inlined: no compiled level of its own
def tvm_step(m, tw, opts, fpar, x, xsq, label, krow, qnew, fq, side, nz, par):
    """Algorithm 1 for one example: Beneficial, UpdateTV, UpdateTVM."""
    Q, Qsq, wp, wn = tw[TW_PIVOTS], tw[TW_PIVOT_SQ], tw[TW_WEIGHT_POS], tw[TW_WEIGHT_NEG]
    changed, tst, tfs = tw[TW_CHANGED], tw[TW_IST], tw[TW_FS]
    B = opts[O_B]
    tst[T_SEEN] += 1
    n = tst[T_NTW]
    f = core.decision_from_row(m, kernel_row(m, x, xsq, krow, nz, par))
    if n >= B and abs(f) > fpar[P_M1]:  # Algorithm 2
        return
    tst[T_BENEF] += 1
    if n < B:  # Algorithm 3, first case: room in the reservoir
        _place(tw, n, x, xsq, label)
        tst[T_NTW] = n + 1
        tfs[TF_TOTAL] += 1.0
        _set_C(m, tw, opts)
        _add_twin(m, tw, n, krow, nz, par)
        tst[T_ADD] += 1
        return
    far = -1.0
    k_far = np.int64(-1)  # not a literal: one compiled _remove_twin, _place, _add_twin
    slot_p, slot_n, my, mg = tw[TW_SLOT_POS], tw[TW_SLOT_NEG], m[M_Y], m[M_G]
    for j in range(n):
        slot = slot_p[j] if slot_p[j] >= 0 else slot_n[j]
        fq[j] = my[slot] * (mg[slot] + 1.0)  # f(q_j), as twin_f
        if abs(fq[j]) > far:
            far = abs(fq[j])
            k_far = j
    if far > fpar[P_M2]:  # second case: replace the twin farthest beyond the margin
        tfs[TF_TOTAL] -= wp[k_far] + wn[k_far]
        _remove_twin(m, tw, k_far)
        _place(tw, k_far, x, xsq, label)
        tfs[TF_TOTAL] += 1.0
        _set_C(m, tw, opts)
        _add_twin(m, tw, k_far, krow, nz, par)
        tst[T_REPL] += 1
        return
    one_sided = opts[O_ONE_SIDED] & ONE_SIDED_REGION
    same_label = opts[O_ONE_SIDED] & ONE_SIDED_LABEL
    for j in range(n):  # third case: merge the best pair (one-sided: within a region)
        side[j] = (1 if fq[j] > 0 else -1) if one_sided else 0
        if same_label:  # and first only twins whose majority labels agree
            side[j] = 2 * side[j] + (1 if wp[j] >= wn[j] else 0)
    _update_neighbours(m, tw, opts, side, nz)
    i, j = _choose_merge(m, tw, opts, fpar, fq, qnew, krow, nz, par)
    if i < 0 and same_label:
        # every same-label pair failed Rejection (label-pure twins at their bounds make f
        # bumpy between them, e.g. label noise): the paper's pairs of the region
        for k in range(n):
            side[k] = (1 if fq[k] > 0 else -1) if one_sided else 0
        _update_neighbours(m, tw, opts, side, nz)
        i, j = _choose_merge(m, tw, opts, fpar, fq, qnew, krow, nz, par)
    if i < 0:
        tst[T_REJECT] += 1
        return
    new_p = wp[i] + wp[j]
    new_n = wn[i] + wn[j]
    _remove_twin(m, tw, i)
    _remove_twin(m, tw, j)
    sq = 0.0
    for k in range(qnew.shape[0]):
        Q[i, k] = qnew[k]
        sq += qnew[k] * qnew[k]
    Qsq[i] = sq
    wp[i] = new_p
    wn[i] = new_n
    changed[i] = 1
    _place(tw, j, x, xsq, label)
    tfs[TF_TOTAL] += 1.0
    _set_C(m, tw, opts)
    _add_twin(m, tw, i, krow, nz, par)
    _add_twin(m, tw, j, krow, nz, par)
    tst[T_MERGE] += 1


@njit(cache=True)
def tvm_run(m, tw, opts, fpar, X, sq, y, start, par):
    """:func:`tvm_step` over rows ``start:`` of a chunk; returns the next row, early after a
    step whose incremental update needs a re-solve (``tst[T_FAILED]``). ``par`` as in
    :func:`kernel_row`."""
    B = opts[O_B]
    krow = np.zeros(m[M_X].shape[0])
    qnew = np.zeros(X.shape[1])
    fq = np.zeros(B)
    side = np.zeros(B, dtype=np.int64)
    nz = np.zeros(X.shape[1], dtype=np.int64)
    for r in range(start, X.shape[0]):
        tvm_step(m, tw, opts, fpar, X[r], sq[r], y[r], krow, qnew, fq, side, nz, par)
        if tw[TW_IST][T_FAILED]:
            return r + 1
    return X.shape[0]
