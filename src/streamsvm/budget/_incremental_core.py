"""Jitted exact incremental/decremental C-SVM (Cauwenberghs & Poggio 2001, "IDSVM"), with
per-example bounds ``0 <= alpha_i <= s_i C`` and the C perturbation of Diehl & Cauwenberghs
(2003). Pure functions over a tuple of arrays ("the machine", its slots named in
:mod:`._state`), called from the estimators' jitted loops.

Notation (TVM paper, Sec. 2.1-2.2): ``Q_ij = y_i y_j K(x_i, x_j)``, the dual
``W = 1/2 a'Qa - sum a + b sum y_i a_i``, and the gradient

    g_i = dW/da_i = y_i f(x_i) - 1,   f(x) = sum_j y_j a_j K(x_j, x) + b.

KKT: ``g_i >= 0`` if ``a_i = 0`` (reserve set R), ``g_i = 0`` if ``0 < a_i < s_i C``
(margin set S), ``g_i <= 0`` if ``a_i = s_i C`` (error set E), and ``sum_i y_i a_i = 0``.

Adiabatic step (eq. 2.1). Some variables outside S move at given rates ``r_k`` (the driving
example ``c``: ``r_c = ±1``; a change of C: ``r_k = s_k`` for ``k`` in E, since error vectors
sit on their bound ``s_k C``). Keeping ``g_S = 0`` and ``sum y a = 0`` along the move,

    J [db; da_S] = -h dt,   J = [[0, y_S'], [y_S, Q_SS]],   h = [sum_k y_k r_k; Q_S,k r_k]

so ``[db; da_S] = beta dt`` with ``beta = -J^{-1} h``, and every other gradient moves as
``dg_i = gamma_i dt`` with ``gamma_i = sum_k Q_ik r_k + sum_{j in S} Q_ij beta_j + y_i beta_b``.
The step length is the largest ``dt`` before the first change of set (bookkeeping of [1]):
a margin vector reaching 0 (-> R) or its bound (-> E), an error vector's ``g`` rising to 0 or
a reserve vector's ``g`` falling to 0 (-> S), the driver reaching its target or (when it
increases) its own ``g`` reaching 0 (-> S), or C reaching its new value.

Inverse of the bordered matrix ``R = J^{-1}``, updated recursively in O(P^2):

* expansion by ``i`` (bordered column ``v = [y_i; Q_S,i]``): ``beta_i = -R v``,
  ``kappa = Q_ii + v' beta_i`` (the Schur complement of J in the enlarged matrix; > 0 for a
  strictly positive definite kernel on distinct points) and
  ``R' = [[R, 0], [0, 0]] + [beta_i; 1][beta_i; 1]' / kappa``;
* contraction by index ``m``: ``R'_ij = R_ij - R_im R_mj / R_mm`` (the inverse of a
  principal submatrix from the inverse of the whole: block inversion read backwards).

With one margin vector ``J = [[0, y], [y, Q]]``, whose inverse is ``[[-Q, y], [y, 0]]``
(``y^2 = 1``). With S empty ``J = [0]`` is singular; then the only free variable is b, and
the step moves b alone, ``db = rho dt`` with ``rho = sign(sum_k y_k r_k)``, which keeps every
other KKT condition (derivation): ``dg_i = y_i rho dt``, so reserve vectors with
``y_i rho > 0`` and error vectors with ``y_i rho < 0`` move away from 0; the first reserve
vector with ``y_i rho < 0`` or error vector with ``y_i rho > 0`` to reach ``g = 0`` enters S,
and exactly these have the sign of ``da_i = -y_i sum_k y_k r_k`` that their bound allows,
so the next step is feasible. (A change of C never needs it: with S empty every ``a`` is on
a bound, so ``sum y a = C sum_E y_k s_k = 0`` and the E rates already balance.)

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
from numba import njit

from ..kernels._core import kernel_dense, kernel_row_dense
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
    I_EVENTS,
    I_FAIL,
    I_KEVALS,
    I_N,
    I_OPS,
    I_P,
    I_REFACTOR,
    M_ALPHA,
    M_FS,
    M_G,
    M_GRAM,
    M_IDS,
    M_IST,
    M_MARGIN,
    M_R,
    M_SQ,
    M_STATUS,
    M_WEIGHT,
    M_X,
    M_Y,
    MARGIN,
    RESERVE,
)

_KAPPA_TOL = 1e-9  # relative Schur complement below which an entrant is refused
_REFRESH_EVERY = 2000  # operations between routine refreshes


# ------------------------------------------------------------------------ basic pieces
@njit(cache=True)
def kernel_row(m, x, xsq, out):
    """``out[:N] = K(x, x_j)`` over the stored examples; returns ``out[:N]``."""
    X, sq = m[M_X], m[M_SQ]
    fs, ist = m[M_FS], m[M_IST]
    n = ist[I_N]
    ist[I_KEVALS] += n
    return kernel_row_dense(x, xsq, X[:n], sq[:n], ist[I_CODE], fs[F_GAMMA], ist[I_DEGREE],
                            fs[F_COEF0], out)


@njit(cache=True)
def kernel_value(m, a, asq, z, zsq):
    fs, ist = m[M_FS], m[M_IST]
    ist[I_KEVALS] += 1
    return kernel_dense(a, asq, z, zsq, ist[I_CODE], fs[F_GAMMA], ist[I_DEGREE], fs[F_COEF0])


@njit(cache=True)
def decision_from_row(m, krow):
    """``f(x) = sum_j y_j a_j K(x_j, x) + b`` from the kernel row of x."""
    y, alpha, fs, ist = m[M_Y], m[M_ALPHA], m[M_FS], m[M_IST]
    total = fs[F_B]
    for j in range(ist[I_N]):
        if alpha[j] != 0.0:
            total += y[j] * alpha[j] * krow[j]
    return total


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
    """Refactorise R, correct the drift of ``g_S`` and ``sum y a`` by one Newton step, and
    recompute all gradients."""
    y, s, alpha, g, S, fs = m[M_Y], m[M_WEIGHT], m[M_ALPHA], m[M_G], m[M_MARGIN], m[M_FS]
    ist = m[M_IST]
    refactor(m)
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


# ------------------------------------------------------------------------ the adiabatic loop
#: what :func:`_drive` moves: the coefficient ``a_c``, or C (NumPy ints, not Python ones, so
#: that numba compiles one ``_drive`` for both, not one per literal)
_DRIVE_ALPHA = np.int64(0)
_DRIVE_C = np.int64(1)


@njit(cache=True)
def _drive(m, mode, c, target, stop_at_margin):
    """Move the driver (mode ``_DRIVE_ALPHA``: ``a_c`` toward ``target``; ``_DRIVE_C``: C
    toward ``target``) while keeping KKT on every other example (module docstring). Returns
    False if the iteration limit was hit."""
    y, s, alpha, g, status, G = m[M_Y], m[M_WEIGHT], m[M_ALPHA], m[M_G], m[M_STATUS], m[M_GRAM]
    S, fs, ist = m[M_MARGIN], m[M_FS], m[M_IST]
    n = ist[I_N]
    u = np.zeros(n)
    gam = np.zeros(n)
    h = np.zeros(n + 2)
    beta = np.zeros(n + 2)
    work_v = np.zeros(n + 2)
    work_b = np.zeros(n + 2)
    blocked = np.zeros(n, dtype=np.bool_)
    u_direction = 0.0
    sigma = 0.0
    qscale = 0.0
    for i in range(n):
        qscale = max(qscale, abs(G[i, i]))
    if qscale == 0.0:
        qscale = 1.0
    limit = 50 * (n + 10)
    for _ in range(limit):
        P = ist[I_P]
        C = fs[F_C]
        if mode == _DRIVE_ALPHA:
            remaining = target - alpha[c]
        else:
            remaining = target - C
        scale = max(1.0, abs(target))
        if abs(remaining) <= 1e-14 * scale:
            _finish_drive(m, mode, c, target)
            return True
        d = 1.0 if remaining > 0 else -1.0
        t_end = abs(remaining)
        # rates of the driven variables: u_i = sum_k Q_ik r_k, sigma = sum_k y_k r_k; for a
        # change of C computed once per direction and then updated in O(N) whenever a
        # member joins or leaves E (r_k = d s_k on E)
        if d != u_direction:
            u_direction = d
            sigma = 0.0
            for i in range(n):
                u[i] = 0.0
            if mode == _DRIVE_ALPHA:
                sigma = y[c] * d
                for i in range(n):
                    u[i] = d * y[i] * y[c] * G[i, c]
            else:
                for k in range(n):
                    if status[k] == ERROR:
                        sigma += _error_rates(m, u, k, d * s[k])
        # ---------------------------------------------------------- S empty: move b alone
        if P == 0 and (mode == _DRIVE_ALPHA or abs(sigma) > 1e-9 * (1.0 + C)):
            rho = 1.0 if sigma > 0 else -1.0
            best = np.inf
            who = np.int64(-1)
            for i in range(n):
                if blocked[i] or (s[i] <= 0.0 and status[i] != DRIVER):
                    continue
                rate = y[i] * rho
                if status[i] == RESERVE and rate < 0:
                    t = max(g[i], 0.0)
                elif status[i] == ERROR and rate > 0:
                    t = max(-g[i], 0.0)
                elif status[i] == DRIVER and mode == _DRIVE_ALPHA and d > 0 and stop_at_margin:
                    t = max(-g[i], 0.0)  # rate y_c rho = d = +1
                else:
                    continue
                if t < best:
                    best = t
                    who = i
            if who < 0:
                return False
            fs[F_B] += rho * best
            for i in range(n):
                g[i] += y[i] * rho * best
            g[who] = 0.0
            ist[I_EVENTS] += 1
            if who == c and mode == _DRIVE_ALPHA:
                if alpha[c] <= 0.0:
                    alpha[c] = 0.0
                    status[c] = RESERVE
                else:
                    status[c] = MARGIN
                    if not _expand(m, c, work_v, work_b):
                        status[c] = ERROR if alpha[c] >= s[c] * C else RESERVE
                return True
            if _expand(m, who, work_v, work_b):
                if mode == _DRIVE_C and status[who] == ERROR:
                    sigma += _error_rates(m, u, who, -d * s[who])
                status[who] = MARGIN
            else:
                blocked[who] = True
            continue
        # ---------------------------------------------------------- sensitivities
        if P > 0:
            h[0] = sigma
            for k in range(P):
                h[k + 1] = u[S[k]]
            _apply_R(m, h, beta)
            # residual J beta + h (O(P^2)); refactorise when conditioning degraded
            worst = abs(h[0])
            res0 = h[0]
            for k in range(P):
                res0 += y[S[k]] * beta[k + 1]
            resid = abs(res0)
            for a in range(P):
                sa = S[a]
                total = h[a + 1] + y[sa] * beta[0]
                for k in range(P):
                    total += y[sa] * y[S[k]] * G[sa, S[k]] * beta[k + 1]
                resid = max(resid, abs(total))
                worst = max(worst, abs(h[a + 1]))
            if resid > 1e-8 * (1.0 + worst):
                refactor(m)
                _apply_R(m, h, beta)
        else:
            beta[0] = 0.0
        # rates below roundoff of the sums that make them count as zero
        bsum = 1.0
        for k in range(P):
            bsum += abs(beta[k + 1])
        usum = 0.0
        for i in range(n):
            usum = max(usum, abs(u[i]))
        tiny_beta = 1e-11 * max(bsum, abs(beta[0]) + 1.0)
        tiny_gamma = 1e-10 * (qscale * bsum + usum + abs(beta[0]))
        # gamma_i = u_i + y_i (beta_b + sum_k y_Sk G_Sk,i beta_k), accumulated a row of G
        # at a time (G is symmetric: contiguous rows instead of a gather per entry)
        _sensitivities(G, y, S, P, beta, u, status, gam, n)
        # ---------------------------------------------------------- step length
        best = t_end
        kind = 0  # 0 end, 1 driver to S, 2 S leaves to R, 3 S leaves to E, 4 enters S
        who = np.int64(-1)
        if mode == _DRIVE_ALPHA and d > 0 and stop_at_margin and gam[c] > tiny_gamma:
            t = max(-g[c] / gam[c], 0.0)
            if t < best:
                best, kind, who = t, 1, c
        bound_rate = d if mode == _DRIVE_C else 0.0
        for k in range(P):
            j = S[k]
            rate = beta[k + 1]
            if rate < -tiny_beta:
                t = max(alpha[j] / (-rate), 0.0)
                if t < best:
                    best, kind, who = t, 2, j
            excess = rate - s[j] * bound_rate
            if excess > tiny_beta:
                t = max((s[j] * C - alpha[j]) / excess, 0.0)
                if t < best:
                    best, kind, who = t, 3, j
        for i in range(n):
            if blocked[i] or status[i] == DRIVER or s[i] <= 0.0:
                continue
            if status[i] == ERROR and gam[i] > tiny_gamma:
                t = max(-g[i] / gam[i], 0.0)
            elif status[i] == RESERVE and gam[i] < -tiny_gamma:
                t = max(-g[i] / gam[i], 0.0)
            else:
                continue
            if t < best:
                best, kind, who = t, 4, i
        # ---------------------------------------------------------- take the step
        t = best
        if mode == _DRIVE_ALPHA:
            alpha[c] += d * t
        else:
            fs[F_C] = C + d * t
            for k in range(n):
                if status[k] == ERROR:
                    alpha[k] = s[k] * fs[F_C]
        fs[F_B] += beta[0] * t
        for k in range(P):
            j = S[k]
            alpha[j] += beta[k + 1] * t
        for i in range(n):
            if status[i] != MARGIN:
                g[i] += gam[i] * t
        ist[I_EVENTS] += 1
        # ---------------------------------------------------------- bookkeeping
        if kind == 0:
            _finish_drive(m, mode, c, target)
            return True
        if kind == 1:
            g[c] = 0.0
            if _expand(m, c, work_v, work_b):
                status[c] = MARGIN
            else:
                status[c] = ERROR if alpha[c] >= s[c] * fs[F_C] else RESERVE
            return True
        if kind == 2 or kind == 3:
            pos = _position_in_S(m, who)
            _contract(m, pos)
            if kind == 2:
                alpha[who] = 0.0
                status[who] = RESERVE
            else:
                alpha[who] = s[who] * fs[F_C]
                status[who] = ERROR
                if mode == _DRIVE_C:
                    sigma += _error_rates(m, u, who, d * s[who])
            g[who] = 0.0
            continue
        g[who] = 0.0
        if _expand(m, who, work_v, work_b):
            if mode == _DRIVE_C and status[who] == ERROR:
                sigma += _error_rates(m, u, who, -d * s[who])
            status[who] = MARGIN
        else:
            blocked[who] = True
    return False


@njit(cache=True)
def _error_rates(m, u, k, rate):
    """Add the rate ``rate`` of ``a_k`` to ``u_i = sum_k Q_ik r_k``; returns ``y_k rate``."""
    y, G, ist = m[M_Y], m[M_GRAM], m[M_IST]
    yk = y[k] * rate
    for i in range(ist[I_N]):
        u[i] += y[i] * G[i, k] * yk
    return yk


@njit(cache=True, fastmath=True)
def _sensitivities(G, y, S, P, beta, u, status, gam, n):
    for i in range(n):
        gam[i] = beta[0]
    for k in range(P):
        w = y[S[k]] * beta[k + 1]
        row = G[S[k]]
        for i in range(n):
            gam[i] += row[i] * w
    for i in range(n):
        if status[i] == MARGIN:
            gam[i] = 0.0
        else:
            gam[i] = u[i] + y[i] * gam[i]


@njit(cache=True)
def _finish_drive(m, mode, c, target):
    s, alpha, status, fs = m[M_WEIGHT], m[M_ALPHA], m[M_STATUS], m[M_FS]
    if mode == _DRIVE_ALPHA:
        alpha[c] = target
        if target <= 0.0:
            alpha[c] = 0.0
            status[c] = RESERVE
        else:
            status[c] = ERROR
    else:
        fs[F_C] = target
        n = m[M_IST][I_N]
        for k in range(n):
            if status[k] == ERROR:
                alpha[k] = s[k] * target


@njit(cache=True)
def _after_operation(m):
    ist = m[M_IST]
    ist[I_OPS] += 1
    if ist[I_OPS] >= _REFRESH_EVERY:
        refresh(m)


@njit(cache=True)
def _drive_safely(m, mode, c, target, stop_at_margin):
    """:func:`_drive`, refreshing and retrying once if it hits its iteration limit. Returns
    False if the retry fails too: the caller then re-solves from scratch (the Python side's
    ``Machine.rebuild``, numerically degenerate problems only)."""
    if _drive(m, mode, c, target, stop_at_margin):
        return True
    m[M_IST][I_FAIL] += 1
    refresh(m)
    return _drive(m, mode, c, target, stop_at_margin)


# ------------------------------------------------------------------------ operations
@njit(cache=True)
def add_example(m, x, xsq, label, weight, example_id, krow):
    """Learn ``(x, label)`` with bound ``weight * C``; ``krow[:N]`` must hold ``K(x, x_j)``.
    Returns the slot of the new example."""
    X, sq, y, s, alpha, g = m[M_X], m[M_SQ], m[M_Y], m[M_WEIGHT], m[M_ALPHA], m[M_G]
    status, G, ids, fs, ist = m[M_STATUS], m[M_GRAM], m[M_IDS], m[M_FS], m[M_IST]
    n = ist[I_N]
    X[n, :] = x
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
        X[c, :] = X[last, :]
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


@njit(cache=True)
def set_C(m, C_new):
    """Change C for every bound ``s_i C`` (Diehl & Cauwenberghs' perturbation), keeping KKT.
    Returns False if the caller must re-solve (see :func:`_drive_safely`)."""
    ok = _drive_safely(m, _DRIVE_C, np.int64(-1), C_new, np.bool_(False))
    _after_operation(m)
    return ok


# ------------------------------------------------------------------------ chunk loop
@njit(cache=True)
def add_many(m, Xc, sqc, yc, wc, idc, krow, start):
    """:func:`add_example` for the rows ``start:`` of a chunk, in order. Returns the number
    of the next row, stopping early after a row whose update needs a re-solve."""
    for r in range(start, Xc.shape[0]):
        row = kernel_row(m, Xc[r], sqc[r], krow)
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
def rebuild_gram(m):
    """Fill ``G[:n, :n]`` as the learning steps wrote it: each stored example's kernel row
    against the examples before it (:func:`kernel_row_dense`, the function of
    :func:`kernel_row`; the values are symmetric to the bit) and the diagonal by
    :func:`kernel_dense`, so a model loaded without its Gram matrix resumes bit-exactly.
    Not counted in ``I_KEVALS``."""
    X, sq, G, fs, ist = m[M_X], m[M_SQ], m[M_GRAM], m[M_FS], m[M_IST]
    n = ist[I_N]
    code, gamma, degree, coef0 = ist[I_CODE], fs[F_GAMMA], ist[I_DEGREE], fs[F_COEF0]
    out = np.empty(max(n, 1))
    for i in range(n):
        row = kernel_row_dense(X[i], sq[i], X[:i], sq[:i], code, gamma, degree, coef0, out)
        for j in range(i):
            G[i, j] = row[j]
            G[j, i] = row[j]
        G[i, i] = kernel_dense(X[i], sq[i], X[i], sq[i], code, gamma, degree, coef0)
