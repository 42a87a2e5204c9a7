"""Jitted exact incremental/decremental C-SVM (Cauwenberghs & Poggio 2001, "IDSVM"), with
per-example bounds ``0 <= alpha_i <= s_i C`` and the C perturbation of Diehl & Cauwenberghs
(2003). Pure functions over a tuple of arrays ("the machine", its slots named in
:mod:`._state`), called from the estimators' jitted loops.

Notation (TVM paper, Sec. 2.1-2.2): ``Q_ij = y_i y_j K(x_i, x_j)``, the dual
``W = 1/2 a'Qa - sum a + b sum y_i a_i``, and the gradient

    g_i = dW/da_i = y_i f(x_i) - 1,   f(x) = sum_j y_j a_j K(x_j, x) + b.

KKT: ``g_i >= 0`` if ``a_i = 0`` (reserve set R), ``g_i = 0`` if ``0 < a_i < s_i C``
(margin set S), ``g_i <= 0`` if ``a_i = s_i C`` (error set E), and ``sum_i y_i a_i = 0``.

The adiabatic step that every operation runs is in :mod:`._adiabatic_core`; the inverse of
the bordered matrix of the margin set, its recursive updates and the numerical safety net in
:mod:`._bordered_inverse_core`.
"""

import numpy as np
from numba import njit

from ..kernels._core import kernel_dense, kernel_row_dense
from ._adiabatic_core import _DRIVE_ALPHA, _DRIVE_C, _drive_safely
from ._bordered_inverse_core import _contract, _position_in_S, refresh
from ._state import (
    DRIVER,
    ERROR,
    F_B,
    F_C,
    F_COEF0,
    F_GAMMA,
    F_TOL,
    I_CODE,
    I_DEGREE,
    I_FAIL,
    I_KEVALS,
    I_N,
    I_OPS,
    M_ALPHA,
    M_FS,
    M_G,
    M_GRAM,
    M_IDS,
    M_IST,
    M_MARGIN,
    M_SQ,
    M_STATUS,
    M_WEIGHT,
    M_X,
    M_Y,
    MARGIN,
    RESERVE,
)

_REFRESH_EVERY = 2000  # operations between routine refreshes


# ------------------------------------------------------------------------ basic pieces
@njit(cache=True, inline="always")  # a tiny wrapper: no compiled level of its own
def kernel_row(m, x, xsq, out, par):
    """``out[:N] = K(x, x_j)`` over the stored examples; returns ``out[:N]``. ``par``: None on
    one thread (no parallel function compiled), True on several
    (:func:`~streamsvm.kernels._core.kernel_row_dense`)."""
    X, sq = m[M_X], m[M_SQ]
    fs, ist = m[M_FS], m[M_IST]
    n = ist[I_N]
    ist[I_KEVALS] += n
    return kernel_row_dense(x, xsq, X[:n], sq[:n], ist[I_CODE], fs[F_GAMMA], ist[I_DEGREE],
                            fs[F_COEF0], out, par)


@njit(cache=True, inline="always")  # a tiny wrapper: no compiled level of its own
def kernel_value(m, a, asq, z, zsq):
    fs, ist = m[M_FS], m[M_IST]
    ist[I_KEVALS] += 1
    return kernel_dense(a, asq, z, zsq, ist[I_CODE], fs[F_GAMMA], ist[I_DEGREE], fs[F_COEF0])


@njit(cache=True, inline="always")  # a tiny leaf: no compiled level of its own
def decision_from_row(m, krow):
    """``f(x) = sum_j y_j a_j K(x_j, x) + b`` from the kernel row of x."""
    y, alpha, fs, ist = m[M_Y], m[M_ALPHA], m[M_FS], m[M_IST]
    total = fs[F_B]
    for j in range(ist[I_N]):
        if alpha[j] != 0.0:
            total += y[j] * alpha[j] * krow[j]
    return total


@njit(cache=True, inline="always")  # inlined: no compiled level of its own
def _after_operation(m):
    ist = m[M_IST]
    ist[I_OPS] += 1
    if ist[I_OPS] >= _REFRESH_EVERY:
        refresh(m)


# ------------------------------------------------------------------------ operations
@njit(cache=True)
def add_example(m, x, xsq, label, weight, example_id, krow):
    """Learn ``(x, label)`` with bound ``weight * C``; ``krow[:N]`` must hold ``K(x, x_j)``.
    Returns the slot of the new example."""
    X, sq, y, s, alpha, g = m[M_X], m[M_SQ], m[M_Y], m[M_WEIGHT], m[M_ALPHA], m[M_G]
    status, G, ids, fs, ist = m[M_STATUS], m[M_GRAM], m[M_IDS], m[M_FS], m[M_IST]
    n = ist[I_N]
    for feat in range(X.shape[1]):  # a loop: no shape-error code to compile
        X[n, feat] = x[feat]
    sq[n] = xsq
    y[n] = label
    s[n] = weight
    alpha[n] = 0.0
    ids[n] = example_id
    for j in range(n):
        G[n, j] = krow[j]
        G[j, n] = krow[j]
    G[n, n] = kernel_value(m, x, xsq, x, xsq)
    ist[I_N] = n + 1
    f = decision_from_row(m, krow)
    g[n] = label * f - 1.0
    if g[n] >= -fs[F_TOL] or weight <= 0.0:
        status[n] = RESERVE if g[n] >= 0.0 or weight > 0.0 else ERROR
    else:
        status[n] = DRIVER
        if not _drive_safely(m, _DRIVE_ALPHA, n, weight * fs[F_C], np.bool_(True)):
            return -1
    _after_operation(m)
    return n


@njit(cache=True)
def remove_slot(m, c):
    """Unlearn the example in slot ``c`` (decremental, adiabatic reversal) and free its slot:
    the last slot moves into ``c``. Returns the old index of the moved slot (-1 if none)."""
    X, sq, y, s, alpha, g = m[M_X], m[M_SQ], m[M_Y], m[M_WEIGHT], m[M_ALPHA], m[M_G]
    status, G, S, ids, ist = m[M_STATUS], m[M_GRAM], m[M_MARGIN], m[M_IDS], m[M_IST]
    if status[c] == MARGIN:
        _contract(m, _position_in_S(m, c))
    ok = True
    if alpha[c] > 0.0:
        status[c] = DRIVER
        ok = _drive_safely(m, _DRIVE_ALPHA, c, 0.0, np.bool_(False))
        alpha[c] = 0.0
    n = ist[I_N]
    last = n - 1
    moved = -1
    if c != last:
        moved = last
        for feat in range(X.shape[1]):  # a loop: no shape-error code to compile
            X[c, feat] = X[last, feat]
        sq[c] = sq[last]
        y[c] = y[last]
        s[c] = s[last]
        alpha[c] = alpha[last]
        g[c] = g[last]
        status[c] = status[last]
        ids[c] = ids[last]
        for j in range(n):
            G[c, j] = G[last, j]
        for j in range(n):
            G[j, c] = G[j, last]
        G[c, c] = G[last, last]
        if status[c] == MARGIN:
            S[_position_in_S(m, last)] = c
    ist[I_N] = last
    if not ok:
        ist[I_FAIL] += 1000000  # flag: the caller re-solves
    _after_operation(m)
    return moved


@njit(cache=True)
def set_weight(m, c, weight):
    """Change example ``c``'s bound to ``weight * C`` (``weight > 0``), keeping KKT."""
    s, alpha, status, fs = m[M_WEIGHT], m[M_ALPHA], m[M_STATUS], m[M_FS]
    upper = weight * fs[F_C]
    old = status[c]
    s[c] = weight
    if old == RESERVE:
        return True
    if old == MARGIN:
        if alpha[c] <= upper:
            return True
        _contract(m, _position_in_S(m, c))
        status[c] = DRIVER
        ok = _drive_safely(m, _DRIVE_ALPHA, c, upper, np.bool_(False))
    else:  # ERROR: a_c sat on the old bound
        status[c] = DRIVER
        ok = _drive_safely(m, _DRIVE_ALPHA, c, upper, upper > alpha[c])
    _after_operation(m)
    return ok


@njit(cache=True, inline="always")  # inlined: no compiled level of its own
def set_C(m, C_new):
    """Change C for every bound ``s_i C`` (Diehl & Cauwenberghs' perturbation), keeping KKT.
    Returns False if the caller must re-solve (see :func:`._adiabatic_core._drive_safely`)."""
    ok = _drive_safely(m, _DRIVE_C, np.int64(-1), C_new, np.bool_(False))
    _after_operation(m)
    return ok


# ------------------------------------------------------------------------ chunk loop
@njit(cache=True)
def add_many(m, Xc, sqc, yc, wc, idc, krow, start, par):
    """:func:`add_example` for the rows ``start:`` of a chunk, in order. Returns the number
    of the next row, stopping early after a row whose update needs a re-solve. ``par`` as
    in :func:`kernel_row`."""
    for r in range(start, Xc.shape[0]):
        row = kernel_row(m, Xc[r], sqc[r], krow, par)
        if add_example(m, Xc[r], sqc[r], yc[r], wc[r], idc[r], row) < 0:
            return r + 1
    return Xc.shape[0]


@njit(cache=True)
def kkt_violation(m):
    """Largest KKT violation over the stored examples, from gradients recomputed from
    scratch (for tests); also ``|sum y a|``."""
    y, s, alpha, G, fs, ist = m[M_Y], m[M_WEIGHT], m[M_ALPHA], m[M_GRAM], m[M_FS], m[M_IST]
    n = ist[I_N]
    C = fs[F_C]
    worst = 0.0
    balance = 0.0
    for i in range(n):
        balance += y[i] * alpha[i]
        total = fs[F_B]
        for j in range(n):
            total += y[j] * alpha[j] * G[i, j]
        gi = y[i] * total - 1.0
        upper = s[i] * C
        if upper <= 0.0:
            worst = max(worst, abs(alpha[i]))
            continue
        if alpha[i] < -1e-12 or alpha[i] > upper * (1 + 1e-12) + 1e-12:
            worst = max(worst, 1.0)
        if alpha[i] <= 1e-12 * max(1.0, upper):
            worst = max(worst, -gi)
        elif alpha[i] >= upper * (1 - 1e-12):
            worst = max(worst, gi)
        else:
            worst = max(worst, abs(gi))
    return worst, abs(balance)


@njit(cache=True)
def rebuild_gram(m, par):
    """Fill ``G[:n, :n]`` as the learning steps wrote it: each stored example's kernel row
    against the examples before it (:func:`kernel_row_dense`, the function of
    :func:`kernel_row`; the values are symmetric to the bit) and the diagonal by
    :func:`kernel_dense`, so a model loaded without its Gram matrix resumes bit-exactly.
    Not counted in ``I_KEVALS``; ``par`` as in :func:`kernel_row`."""
    X, sq, G, fs, ist = m[M_X], m[M_SQ], m[M_GRAM], m[M_FS], m[M_IST]
    n = ist[I_N]
    code, gamma, degree, coef0 = ist[I_CODE], fs[F_GAMMA], ist[I_DEGREE], fs[F_COEF0]
    out = np.empty(max(n, 1))
    for i in range(n):
        row = kernel_row_dense(X[i], sq[i], X[:i], sq[:i], code, gamma, degree, coef0, out,
                               par)
        for j in range(i):
            G[i, j] = row[j]
            G[j, i] = row[j]
        G[i, i] = kernel_dense(X[i], sq[i], X[i], sq[i], code, gamma, degree, coef0)
