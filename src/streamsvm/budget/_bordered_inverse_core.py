"""The inverse ``R = J^{-1}`` of the bordered matrix of the margin set S of the exact
incremental SVM (:mod:`._incremental_core`; Cauwenberghs & Poggio 2001), kept in step with S
by recursive updates in O(P^2), refactorised in O(P^3) when its conditioning degrades, and
the Newton correction of the KKT drift (:func:`refresh`). Pure jitted functions over the
machine tuple (slots named in :mod:`._state`).

The recursive updates, in O(P^2):

* expansion by ``i`` (bordered column ``v = [y_i; Q_S,i]``): ``beta_i = -R v``,
  ``kappa = Q_ii + v' beta_i`` (the Schur complement of J in the enlarged matrix; > 0 for a
  strictly positive definite kernel on distinct points) and
  ``R' = [[R, 0], [0, 0]] + [beta_i; 1][beta_i; 1]' / kappa``;
* contraction by index ``m``: ``R'_ij = R_ij - R_im R_mj / R_mm`` (the inverse of a
  principal submatrix from the inverse of the whole: block inversion read backwards).

Numerical safety: after every solve ``beta = -R h`` the residual ``J beta + h`` is checked in
O(P^2); when it exceeds ``1e-8 (1 + |h|)`` (conditioning degraded) R is refactorised from J
in O(P^3) and the KKT state is corrected by one Newton step
``[db; da_S] = -R [sum y a; g_S]`` (:func:`refresh`), which also recomputes every ``g`` from
scratch. An example that would enter S with ``kappa`` ~ 0 (its bordered row is a
combination of those of S, e.g. a duplicate of a margin vector) has ``g`` pinned at 0 by
the others and satisfies KKT in the set it is in, so it is left there for the rest of the
operation.
"""

import numpy as np
from numba import njit, objmode

from ._state import (
    F_B,
    F_C,
    I_N,
    I_OPS,
    I_P,
    I_REFACTOR,
    M_ALPHA,
    M_FS,
    M_G,
    M_GRAM,
    M_IST,
    M_MARGIN,
    M_R,
    M_WEIGHT,
    M_Y,
)

_KAPPA_TOL = 1e-9  # relative Schur complement below which an entrant is refused


@njit(cache=True)
def _q(m, i, j):
    y, G = m[M_Y], m[M_GRAM]
    return y[i] * y[j] * G[i, j]


@njit(cache=True)
def _bordered_column(m, i, v):
    """``v[:P+1] = [y_i; Q_S,i]``."""
    y, G, S, ist = m[M_Y], m[M_GRAM], m[M_MARGIN], m[M_IST]
    P = ist[I_P]
    v[0] = y[i]
    for k in range(P):
        v[k + 1] = y[S[k]] * y[i] * G[S[k], i]


@njit(cache=True)
def _apply_R(m, v, out):
    """``out[:P+1] = -R v``."""
    R, ist = m[M_R], m[M_IST]
    n = ist[I_P] + 1
    for a in range(n):
        total = 0.0
        for c in range(n):
            total += R[a, c] * v[c]
        out[a] = -total


@njit(cache=True)
def _expand(m, i, work_v, work_b):
    """Add example ``i`` to S (last position), updating R in O(P^2). Returns False (and
    changes nothing) if the Schur complement is ~0 relative to ``Q_ii``."""
    y, G, S, R, ist = m[M_Y], m[M_GRAM], m[M_MARGIN], m[M_R], m[M_IST]
    P = ist[I_P]
    qii = G[i, i]
    if P == 0:
        R[0, 0] = -qii
        R[0, 1] = y[i]
        R[1, 0] = y[i]
        R[1, 1] = 0.0
        S[0] = i
        ist[I_P] = 1
        return True
    _bordered_column(m, i, work_v)
    _apply_R(m, work_v, work_b)
    kappa = qii
    for a in range(P + 1):
        kappa += work_v[a] * work_b[a]
    if kappa <= _KAPPA_TOL * max(1.0, abs(qii)):
        return False
    n = P + 1
    for a in range(n):
        R[a, n] = work_b[a] / kappa
        R[n, a] = work_b[a] / kappa
        for c in range(n):
            R[a, c] += work_b[a] * work_b[c] / kappa
    R[n, n] = 1.0 / kappa
    S[P] = i
    ist[I_P] = P + 1
    return True


@njit(cache=True)
def _contract(m, k):
    """Remove the margin vector at position ``k`` of S, updating R in O(P^2); the last
    margin vector takes its position (rows/columns of R permuted alike)."""
    S, R, ist = m[M_MARGIN], m[M_R], m[M_IST]
    P = ist[I_P]
    if P == 1:
        ist[I_P] = 0
        return
    n = P + 1
    mi = k + 1
    pivot = R[mi, mi]
    if abs(pivot) < 1e-300:
        pivot = 1e-300
    for a in range(n):
        if a == mi:
            continue
        ra = R[a, mi] / pivot
        for c in range(n):
            if c != mi:
                R[a, c] -= ra * R[mi, c]
    last = P  # index of the last margin vector in R
    if mi != last:
        for c in range(n):
            R[mi, c] = R[last, c]
        for a in range(n):
            R[a, mi] = R[a, last]
        R[mi, mi] = R[last, last]
        S[k] = S[P - 1]
    ist[I_P] = P - 1


@njit(cache=True)
def _position_in_S(m, i):
    S, ist = m[M_MARGIN], m[M_IST]
    for k in range(ist[I_P]):
        if S[k] == i:
            return k
    return -1


@njit(cache=True)
def refactor(m):
    """:func:`refactor_now` called through Python (numba's object mode): rare (when the
    conditioning degraded), and so its callers do not compile the pseudo-inverse into
    themselves; it compiles on its first use."""
    with objmode():
        refactor_now(m)


@njit(cache=True)
def refactor_now(m):
    """R = J^{-1} from scratch (O(P^3))."""
    y, S, R, ist = m[M_Y], m[M_MARGIN], m[M_R], m[M_IST]
    P = ist[I_P]
    ist[I_REFACTOR] += 1
    if P == 0:
        return
    J = np.zeros((P + 1, P + 1))
    for a in range(P):
        J[0, a + 1] = y[S[a]]
        J[a + 1, 0] = y[S[a]]
        for c in range(P):
            J[a + 1, c + 1] = _q(m, S[a], S[c])
    inv = np.linalg.pinv(J)
    for a in range(P + 1):
        for c in range(P + 1):
            R[a, c] = inv[a, c]


@njit(cache=True)
def recompute_gradients(m):
    """Every ``g_i`` from scratch (O(N n_sv))."""
    y, alpha, g, G, fs, ist = m[M_Y], m[M_ALPHA], m[M_G], m[M_GRAM], m[M_FS], m[M_IST]
    n = ist[I_N]
    b = fs[F_B]
    for i in range(n):
        total = b
        for j in range(n):
            if alpha[j] != 0.0:
                total += y[j] * alpha[j] * G[i, j]
        g[i] = y[i] * total - 1.0


@njit(cache=True)
def refresh(m):
    """:func:`refresh_now` called through Python (numba's object mode), as :func:`refactor`:
    every ``_REFRESH_EVERY`` operations and after a failed drive."""
    with objmode():
        refresh_now(m)


@njit(cache=True)
def refresh_now(m):
    """Refactorise R, correct the drift of ``g_S`` and ``sum y a`` by one Newton step, and
    recompute all gradients."""
    y, s, alpha, g, S, fs = m[M_Y], m[M_WEIGHT], m[M_ALPHA], m[M_G], m[M_MARGIN], m[M_FS]
    ist = m[M_IST]
    refactor_now(m)
    recompute_gradients(m)
    P = ist[I_P]
    n = ist[I_N]
    C = fs[F_C]
    if P > 0:
        r = np.zeros(P + 1)
        for i in range(n):
            r[0] += y[i] * alpha[i]
        before = abs(r[0])
        for k in range(P):
            r[k + 1] = g[S[k]]
            before = max(before, abs(g[S[k]]))
        delta = np.zeros(P + 1)
        _apply_R(m, r, delta)
        saved_b = fs[F_B]
        saved = np.empty(P)
        fs[F_B] += delta[0]
        for k in range(P):
            j = S[k]
            saved[k] = alpha[j]
            a = alpha[j] + delta[k + 1]
            upper = s[j] * C
            alpha[j] = min(max(a, 0.0), upper)
        recompute_gradients(m)
        after = 0.0
        balance = 0.0
        for i in range(n):
            balance += y[i] * alpha[i]
        after = abs(balance)
        for k in range(P):
            after = max(after, abs(g[S[k]]))
        if after > before:  # the correction did not help (ill-conditioned J): undo it
            fs[F_B] = saved_b
            for k in range(P):
                alpha[S[k]] = saved[k]
            recompute_gradients(m)
        for k in range(P):
            g[S[k]] = 0.0
    ist[I_OPS] = 0
