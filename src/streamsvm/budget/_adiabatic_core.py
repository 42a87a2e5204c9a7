"""The adiabatic step of the exact incremental SVM (:mod:`._incremental_core`; Cauwenberghs
& Poggio 2001, with the C perturbation of Diehl & Cauwenberghs 2003): one variable (a
coefficient ``a_c``, or C) driven toward a target while every other example keeps its KKT
condition, in steps that end at the first change of set. Pure jitted functions over the
machine tuple (slots named in :mod:`._state`); the inverse of the bordered matrix they solve
with is kept by :mod:`._bordered_inverse_core`.

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

With one margin vector ``J = [[0, y], [y, Q]]``, whose inverse is ``[[-Q, y], [y, 0]]``
(``y^2 = 1``). With S empty ``J = [0]`` is singular; then the only free variable is b, and
the step moves b alone, ``db = rho dt`` with ``rho = sign(sum_k y_k r_k)``, which keeps every
other KKT condition (derivation): ``dg_i = y_i rho dt``, so reserve vectors with
``y_i rho > 0`` and error vectors with ``y_i rho < 0`` move away from 0; the first reserve
vector with ``y_i rho < 0`` or error vector with ``y_i rho > 0`` to reach ``g = 0`` enters S,
and exactly these have the sign of ``da_i = -y_i sum_k y_k r_k`` that their bound allows,
so the next step is feasible. (A change of C never needs it: with S empty every ``a`` is on
a bound, so ``sum y a = C sum_E y_k s_k = 0`` and the E rates already balance.)
"""

import numpy as np
from numba import njit

from ._bordered_inverse_core import _apply_R, _contract, _expand, _position_in_S, refactor, refresh
from ._state import (
    DRIVER,
    ERROR,
    F_B,
    F_C,
    I_EVENTS,
    I_FAIL,
    I_N,
    I_P,
    M_ALPHA,
    M_FS,
    M_G,
    M_GRAM,
    M_IST,
    M_MARGIN,
    M_STATUS,
    M_WEIGHT,
    M_Y,
    MARGIN,
    RESERVE,
)

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


@njit(cache=True, inline="always")  # inlined: no compiled level of its own
def _drive_safely(m, mode, c, target, stop_at_margin):
    """:func:`_drive`, refreshing and retrying once if it hits its iteration limit. Returns
    False if the retry fails too: the caller then re-solves from scratch (the Python side's
    ``Machine.rebuild``, numerically degenerate problems only)."""
    if _drive(m, mode, c, target, stop_at_margin):
        return True
    m[M_IST][I_FAIL] += 1
    refresh(m)
    return _drive(m, mode, c, target, stop_at_margin)
