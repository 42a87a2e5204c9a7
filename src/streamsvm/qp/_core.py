"""Jitted solvers for small convex problems over the probability simplex, in Gram form.

Everything here is a pure function over float64 arrays (C-contiguous, no input validation),
callable from other ``@njit`` code, e.g. a per-chunk StreamSVM / Blurred Ball loop that calls
:func:`meb_of_balls_core` at each buffer flush. No Python objects, no warnings: problems are
reported through an integer status (CONVERGED, MAX_ITER, STALLED, NOT_PSD).

The workhorse is :func:`simplex_qp`, a primal active-set method for

    minimise  f(λ) = ½ h λᵀGλ + qᵀλ   over   Δ = {λ ≥ 0, Σλ = 1},

with G symmetric PSD and h > 0 a scalar. It is Wolfe's minimum-norm-point algorithm (1976)
generalised to a linear term:

* a *corral* S of indices is kept whose points are affinely independent in the geometry of G
  (write G = AᵀA; "point i" is column a_i). The affine minimiser of f on aff(S) comes from the
  Cholesky factor of M_S = h G_SS + τ 11ᵀ, which is positive definite exactly when the a_i,
  i ∈ S, are affinely independent. With u = M_S⁻¹1 and w = M_S⁻¹q_S the minimiser of f on
  {Σμ = 1} is μ = ν u − w, ν = (1 + 1ᵀw) / 1ᵀu (the multiplier of Σμ = 1 is ν − τ).
* major cycle: with g = ∇f(λ) = h Gλ + q, the Frank–Wolfe gap λᵀg − min_i g_i bounds
  f(λ) − f* from above (convexity); stop when it is below tolerance, otherwise the index j
  with the smallest g_j enters S (rank-one Cholesky update, O(|S|²)).
* minor cycle: move from λ towards μ; if μ leaves the simplex, stop at the first bound,
  drop that index (Cholesky downdate by Givens rotations, O(|S|²)) and repeat.
* a point j that is affinely dependent on S (its new Cholesky pivot vanishes) can only occur
  when q ≠ 0 (for q = 0 Wolfe's argument shows the entering point leaves aff(S)). Along the
  dependence direction d = e_j − z (a_j = Σ z_i a_i, Σz = 1) f is linear, with slope
  g_j − Σ z_i g_i < 0, so λ moves along d until an index of S reaches zero; that index leaves
  and j is tried again. The same step places the support of a warm start.

Each cycle costs O(m|S| + |S|²); the method is finite in exact arithmetic and its answer is
exact up to rounding, which is why it is preferred here over (away-step) Frank–Wolfe, whose
convergence near a degenerate optimum is only linear with a constant depending on the
geometry.

Numerics: pivots within the rounding level of G (``noise_level``) count as dependence, so
rank-deficient and duplicate-laden Gram matrices are handled by the dependence step; the affine
minimiser is computed with q shifted by a constant (harmless on the simplex) so that a large
linear term does not cancel; the enclosing-ball solvers work on the centroid-centred Gram
matrix (:func:`centred_gram`), since balls are translation invariant and a far-away cloud
would otherwise condition the corral by its distance from the origin.
"""

import numpy as np
from numba import njit

CONVERGED = 0
MAX_ITER = 1
STALLED = 2
NOT_PSD = 3

_EPS = 2.220446049250313e-16
# A new Cholesky pivot below this fraction of its diagonal (plus the rounding level of G)
# means "affinely dependent".
_DEPENDENCE_TOL = 1e-11
# A pivot below minus this fraction means that G is not positive semi-definite.
_NOT_PSD_TOL = 1e-6
# Floor of every gap test, in units of the largest diagonal entry: the rounding level of
# quantities such as G_ii - 2 (Gλ)_i + λᵀGλ computed from a Gram matrix.
ROUNDING_FLOOR = 256.0 * _EPS


@njit(cache=True)
def _forward_solve(L, n, b, out):
    """Solve L out = b for the leading n×n lower triangle of L."""
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= L[i, k] * out[k]
        out[i] = s / L[i, i]


@njit(cache=True)
def _backward_solve(L, n, b, out):
    """Solve Lᵀ out = b for the leading n×n lower triangle of L."""
    for i in range(n - 1, -1, -1):
        s = b[i]
        for k in range(i + 1, n):
            s -= L[k, i] * out[k]
        out[i] = s / L[i, i]


@njit(cache=True)
def _gradient(G, h, q, lam, g):
    """g = h Gλ + q, touching only the rows of G where λ is non-zero (G is symmetric)."""
    m = q.shape[0]
    for i in range(m):
        g[i] = q[i]
    for k in range(m):
        lk = lam[k]
        if lk != 0.0:
            c = h * lk
            for i in range(m):
                g[i] += c * G[k, i]


@njit(cache=True)
def _try_append(G, h, tau, L, order, n, j, r):
    """Cholesky append of index j to the corral order[:n].

    Writes r = L⁻¹ M_Sj and returns the new squared pivot M_jj − rᵀr. The caller accepts j
    (sets row n of L and order[n]) when the pivot is large enough.
    """
    for k in range(n):
        r[k] = h * G[order[k], j] + tau
    _forward_solve(L, n, r, r)
    pivot = h * G[j, j] + tau
    for k in range(n):
        pivot -= r[k] * r[k]
    return pivot


@njit(cache=True)
def _remove_position(L, order, in_corral, n, p):
    """Remove the p-th corral member and restore L to lower-triangular form (Givens).

    Returns the new corral size n − 1.
    """
    in_corral[order[p]] = False
    for i in range(p, n - 1):
        order[i] = order[i + 1]
        for k in range(i + 2):
            L[i, k] = L[i + 1, k]
    n -= 1
    for k in range(p, n):
        a = L[k, k]
        b = L[k, k + 1]
        rad = np.hypot(a, b)
        if rad == 0.0:
            continue
        c = a / rad
        s = b / rad
        for i in range(k, n):
            x = L[i, k]
            y = L[i, k + 1]
            L[i, k] = c * x + s * y
            L[i, k + 1] = -s * x + c * y
        L[k, k + 1] = 0.0
    for i in range(n + 1):
        L[i, n] = 0.0
        L[n, i] = 0.0
    return n


@njit(cache=True)
def _affine_minimiser(L, order, n, q, ones, u, w, mu):
    """μ minimising f on aff(corral): μ = ν u − w with u = M⁻¹1, w = M⁻¹(q_S − q₀1).

    Shifting q by the constant q₀ = q_{order[0]} changes f on the simplex by a constant only,
    and keeps w (hence μ = νu − w) free of cancellation when q is large next to hG (as in
    the weighted MEB problems of meb_of_balls_core, where q ≈ −2R r_j). Σμ = 1 is then
    restored exactly by rescaling.
    """
    _forward_solve(L, n, ones, mu)
    _backward_solve(L, n, mu, u)
    shift = q[order[0]]
    for k in range(n):
        mu[k] = q[order[k]] - shift
    _forward_solve(L, n, mu, mu)
    _backward_solve(L, n, mu, w)
    su = 0.0
    sw = 0.0
    for k in range(n):
        su += u[k]
        sw += w[k]
    if not su > 0.0:
        return False
    nu = (1.0 + sw) / su
    total = 0.0
    for k in range(n):
        mu[k] = nu * u[k] - w[k]
        total += mu[k]
    if not (total > 0.0 and np.isfinite(total)):
        return False
    for k in range(n):
        mu[k] /= total
    return True


@njit(cache=True)
def _insert_with_dependence(G, h, q, tau, noise, lam, g, L, order, in_corral, n, j, r, z):
    """Bring index j (λ_j ≥ 0) into the corral, resolving affine dependence.

    While j's pivot vanishes, f is linear along d = e_j − z (a_j = Σ z_k a_{order[k]},
    Σz = 1): move λ along ±d in the descending direction until a coordinate reaches zero. If
    that coordinate is j, j leaves the support; otherwise the corral member leaves and j is
    tried again. f never increases. Returns (n, status) with status NOT_PSD on a negative
    pivot, STALLED when the step cannot be taken, else CONVERGED (meaning "done").
    """
    while True:
        pivot = _try_append(G, h, tau, L, order, n, j, r)
        scale = h * G[j, j] + tau
        if pivot < -(_NOT_PSD_TOL * scale + noise):
            return n, NOT_PSD
        if pivot > _DEPENDENCE_TOL * scale + noise:
            for k in range(n):
                L[n, k] = r[k]
            L[n, n] = np.sqrt(pivot)
            order[n] = j
            in_corral[j] = True
            return n + 1, CONVERGED
        if n == 0:
            # a zero pivot with an empty corral only happens when h G_jj + tau = 0
            return n, STALLED
        _backward_solve(L, n, r, z)
        total = 0.0
        for k in range(n):
            total += z[k]
        if not total > 0.5:
            return n, STALLED
        slope = g[j]
        for k in range(n):
            z[k] /= total
            slope -= z[k] * g[order[k]]
        leaving = np.int64(-1)  # not a literal (one compiled _remove_position)
        if slope < 0.0:
            # increase λ_j, decrease λ_S by t z
            step = np.inf
            for k in range(n):
                if z[k] > 0.0:
                    t = lam[order[k]] / z[k]
                    if t < step:
                        step = t
                        leaving = k
        else:
            # decrease λ_j, increase λ_S by t z
            step = lam[j]
            for k in range(n):
                if z[k] < 0.0:
                    t = lam[order[k]] / -z[k]
                    if t < step:
                        step = t
                        leaving = k
            step = -step
        if leaving < 0 and step == 0.0:
            return n, CONVERGED  # λ_j = 0 already and moving would raise f: j stays out
        lam[j] += step
        for k in range(n):
            i = order[k]
            lam[i] -= step * z[k]
            if lam[i] < 0.0:
                lam[i] = 0.0
        if leaving < 0:
            lam[j] = 0.0
            _gradient(G, h, q, lam, g)
            return n, CONVERGED
        lam[order[leaving]] = 0.0
        n = _remove_position(L, order, in_corral, n, leaving)
        _gradient(G, h, q, lam, g)


@njit(cache=True)
def _minor_cycles(L, order, in_corral, n, q, lam, ones, u, w, mu, entering):
    """Move λ to the affine minimiser of the corral, dropping members that hit zero.

    Returns (n, number of cycles, stalled) where stalled means that the entering index left
    again without any movement (only possible through rounding at the optimum).
    """
    cycles = 0
    while True:
        if not _affine_minimiser(L, order, n, q, ones, u, w, mu):
            return n, cycles, True
        cycles += 1
        step = 1.0
        leaving = np.int64(-1)
        for k in range(n):
            if mu[k] <= 0.0:
                lk = lam[order[k]]
                t = lk / (lk - mu[k]) if lk - mu[k] > 0.0 else 0.0
                if t < step:
                    step = t
                    leaving = k
        if leaving < 0:
            for k in range(n):
                lam[order[k]] = mu[k]
            return n, cycles, False
        for k in range(n):
            i = order[k]
            lam[i] += step * (mu[k] - lam[i])
            if lam[i] < 0.0:
                lam[i] = 0.0
        stalled = step == 0.0 and order[leaving] == entering
        lam[order[leaving]] = 0.0
        n = _remove_position(L, order, in_corral, n, leaving)
        if stalled:
            return n, cycles, True


@njit(cache=True)
def simplex_qp(G, h, q, lam0, tol_abs, tol_rel, max_iter, noise_level):
    """Minimise f(λ) = ½ h λᵀGλ + qᵀλ over the simplex (Wolfe-type active set, see module).

    Parameters: G (m×m symmetric PSD), h > 0, q (m,), lam0 a warm start (m,) or an empty
    array for a cold start at the best vertex argmin_i ½hG_ii + q_i, tolerances, an
    iteration cap (major + minor cycles) and noise_level, the absolute rounding level of the
    entries of G (e.g. ROUNDING_FLOOR · max_i G_ii of the matrix G was computed from): a new
    Cholesky pivot within 4h·noise_level of zero counts as affine dependence.

    Stops when the Frank–Wolfe gap λᵀg − min_i g_i (g = h Gλ + q), an upper bound on
    f(λ) − f*, is at most ``tol_abs + tol_rel·|f(λ)|``.

    Returns (λ, gap, n_iter, status) with status CONVERGED, MAX_ITER, STALLED (rounding
    prevents further progress; λ is the best point found) or NOT_PSD.
    """
    m = q.shape[0]
    lam = np.zeros(m)
    g = np.empty(m)
    L = np.zeros((m + 1, m + 1))
    order = np.empty(m, dtype=np.int64)
    in_corral = np.zeros(m, dtype=np.bool_)
    ones = np.ones(m)
    r = np.empty(m)
    z = np.empty(m)
    u = np.empty(m)
    w = np.empty(m)
    mu = np.empty(m)
    diag_max = 0.0
    for i in range(m):
        if G[i, i] > diag_max:
            diag_max = G[i, i]
    tau = h * diag_max if diag_max > 0.0 else 1.0
    noise = 4.0 * h * noise_level  # pivots within ±noise may be rounding of a PSD matrix

    if lam0.shape[0] == m:
        total = 0.0
        for i in range(m):
            if lam0[i] > 0.0:
                lam[i] = lam0[i]
                total += lam0[i]
        for i in range(m):
            lam[i] /= total
    else:
        best = 0
        for i in range(1, m):
            if 0.5 * h * G[i, i] + q[i] < 0.5 * h * G[best, best] + q[best]:
                best = i
        lam[best] = 1.0
    _gradient(G, h, q, lam, g)

    # place the support of the start in the corral, largest weights first (n a NumPy int,
    # not a literal 0: one compiled version of each function it is passed to)
    n = np.int64(0)
    support = np.argsort(-lam)
    for idx in range(m):
        j = support[idx]
        if lam[j] <= 0.0:
            continue
        n, status = _insert_with_dependence(
            G, h, q, tau, noise, lam, g, L, order, in_corral, n, j, r, z
        )
        if status == NOT_PSD or status == STALLED:
            return lam, np.inf, 0, status
    n_iter = 0
    if n > 1:
        n, cycles, stalled = _minor_cycles(L, order, in_corral, n, q, lam, ones, u, w, mu,
                                              np.int64(-1))
        n_iter += cycles
        _gradient(G, h, q, lam, g)

    status = MAX_ITER
    gap = np.inf
    while True:
        g_min = np.inf
        entering = np.int64(-1)  # not a literal (one compiled insertion)
        g_enter = np.inf
        for i in range(m):
            if g[i] < g_min:
                g_min = g[i]
            if not in_corral[i] and g[i] < g_enter:
                g_enter = g[i]
                entering = i
        # gap = Σλ_i (g_i − g_min), summed as differences to avoid cancellation in large g
        gap = 0.0
        lam_g = 0.0
        lam_q = 0.0
        for k in range(n):
            i = order[k]
            gap += lam[i] * (g[i] - g_min)
            lam_g += lam[i] * g[i]
            lam_q += lam[i] * q[i]
        if gap < 0.0:
            gap = 0.0
        objective = 0.5 * (lam_g + lam_q)
        if gap <= tol_abs + tol_rel * abs(objective):
            status = CONVERGED
            break
        if n_iter >= max_iter:
            status = MAX_ITER
            break
        if entering < 0 or not g_enter - g_min < gap:
            status = STALLED
            break
        n_before = n
        n, status = _insert_with_dependence(
            G, h, q, tau, noise, lam, g, L, order, in_corral, n, entering, r, z
        )
        n_iter += 1
        if status == NOT_PSD or status == STALLED:
            break
        if not in_corral[entering]:
            if n == n_before:
                status = STALLED
                break
            continue
        n, cycles, stalled = _minor_cycles(L, order, in_corral, n, q, lam, ones, u, w, mu, entering)
        n_iter += cycles
        _gradient(G, h, q, lam, g)
        if stalled:
            status = STALLED
            break
    return lam, gap, n_iter, status


@njit(cache=True)
def _quadratic_form(G, lam, Glam):
    """Writes Gλ into Glam and returns λᵀGλ."""
    m = lam.shape[0]
    for i in range(m):
        Glam[i] = 0.0
    for k in range(m):
        lk = lam[k]
        if lk != 0.0:
            for i in range(m):
                Glam[i] += lk * G[k, i]
    value = 0.0
    for i in range(m):
        value += lam[i] * Glam[i]
    return value


@njit(cache=True)
def _max_diagonal(G):
    value = 0.0
    for i in range(G.shape[0]):
        if G[i, i] > value:
            value = G[i, i]
    return value


def min_norm_point_core(G, lam0, tol, max_iter):
    """Minimum-norm point of conv{p_i} from G_ik = p_i·p_k: minimise λᵀGλ over the simplex.

    Stops when λᵀGλ − min_i (Gλ)_i ≤ tol · max_i G_ii.

    Returns (λ, ‖x‖², gap, lower, n_iter, status) with x = Σλ_i p_i, gap = ‖x‖² − min_i x·p_i
    and lower = max(‖x‖² − 2 gap, (min_i x·p_i)₊² / ‖x‖²) ≤ min over the hull of ‖·‖².
    Plain Python around the compiled :func:`simplex_qp`, which it calls once: a compiled
    driver would compile the solver a second time inside itself.
    """
    m = G.shape[0]
    scale = _max_diagonal(G)
    tol_abs = max(tol, ROUNDING_FLOOR) * scale
    lam, gap, n_iter, status = simplex_qp(
        G, 1.0, np.zeros(m), lam0, tol_abs, 0.0, max_iter, ROUNDING_FLOOR * scale
    )
    Glam = np.empty(m)
    sq_norm = _quadratic_form(G, lam, Glam)
    if sq_norm < -tol_abs:
        status = NOT_PSD
    sq_norm = max(sq_norm, 0.0)
    lowest = float(np.min(Glam, initial=np.inf))
    gap = max(sq_norm - lowest, 0.0)
    lower = max(sq_norm - 2.0 * gap, 0.0)
    if lowest > 0.0 and sq_norm > 0.0:
        lower = max(lower, lowest * lowest / sq_norm)
    lower = min(lower, sq_norm)
    if status == STALLED and gap <= tol_abs:
        status = CONVERGED
    return lam, sq_norm, gap, lower, n_iter, status


@njit(cache=True)
def _ball_bounds(G, radii, lam, Glam):
    """Enclosing radius and dual lower bound of the centre c = Σλ_j c_j.

    upper = max_j ‖c − c_j‖ + r_j (every ball lies in B(c, upper));
    lower = ā + sqrt(ā² + V), ā = Σλ_j r_j, V = Σλ_j (G_jj − r_j²) − λᵀGλ (≤ R*, see
    :func:`meb_of_balls_core`). Also returns λᵀGλ.
    """
    m = lam.shape[0]
    centre_sq = max(_quadratic_form(G, lam, Glam), 0.0)
    upper = 0.0
    a_bar = 0.0
    spread = -centre_sq
    for j in range(m):
        d2 = G[j, j] - 2.0 * Glam[j] + centre_sq
        reach = np.sqrt(max(d2, 0.0)) + radii[j]
        if reach > upper:
            upper = reach
        a_bar += lam[j] * radii[j]
        spread += lam[j] * (G[j, j] - radii[j] * radii[j])
    lower = a_bar + np.sqrt(max(a_bar * a_bar + spread, 0.0))
    return upper, lower, centre_sq


@njit(cache=True)
def centred_gram(G):
    """Gram matrix of the points translated by their centroid: G − ḡ1ᵀ − 1ḡᵀ + ḡ̄ 11ᵀ.

    Enclosing balls are translation invariant and the weights λ are unchanged (Σλ = 1).
    Solving on the centred matrix keeps the corral's Cholesky factor conditioned by the
    spread of the points rather than by their distance from the origin: points 10⁴ away
    from the origin with unit spread would otherwise lose 8 digits in every solve.
    """
    m = G.shape[0]
    row_mean = np.zeros(m)
    for i in range(m):
        for k in range(m):
            row_mean[i] += G[i, k]
        row_mean[i] /= m
    total_mean = 0.0
    for i in range(m):
        total_mean += row_mean[i]
    total_mean /= m
    out = np.empty((m, m))
    for i in range(m):
        for k in range(m):
            out[i, k] = G[i, k] - row_mean[i] - row_mean[k] + total_mean
    for i in range(m):
        for k in range(i + 1, m):
            mean = 0.5 * (out[i, k] + out[k, i])
            out[i, k] = mean
            out[k, i] = mean
    return out


def meb_of_points_core(G, lam0, tol, max_iter):
    """Minimum enclosing ball of points p_i from their Gram matrix (CVM / StreamSVM dual).

    maximise D(λ) = Σλ_i G_ii − λᵀGλ over the simplex (simplex_qp with h = 2, q = −diag G,
    on the centred Gram matrix, see :func:`centred_gram`); centre c = Σλ_i p_i. For any λ,
    D(λ) = Σλ_i‖p_i − c‖² ≤ R*² ≤ max_i ‖p_i − c‖², and the difference of the two ends is the
    Frank–Wolfe gap, so stopping at max_i ‖p_i − c‖² ≤ (1 + tol) D(λ) certifies
    radius ≤ (1 + tol) R*.

    Returns (λ, radius, lower, centre_sq_norm, n_iter, status) with radius = max_i ‖p_i − c‖,
    lower = sqrt(D(λ)) ≤ R* and centre_sq_norm = ‖c‖² = λᵀGλ (of the uncentred points).
    Plain Python around the compiled steps (as :func:`min_norm_point_core`).
    """
    m = G.shape[0]
    Gc = centred_gram(G)
    q = -np.diagonal(Gc)  # a new array
    tol_abs = ROUNDING_FLOOR * _max_diagonal(G)
    lam, gap, n_iter, status = simplex_qp(Gc, 2.0, q, lam0, tol_abs, tol, max_iter, tol_abs)
    Glam = np.empty(m)
    upper, lower, _ = _ball_bounds(Gc, np.zeros(m), lam, Glam)
    centre_sq = max(_quadratic_form(G, lam, Glam), 0.0)
    if status == STALLED and upper * upper - lower * lower <= tol * lower * lower + tol_abs:
        status = CONVERGED
    return lam, upper, min(lower, upper), centre_sq, n_iter, status


@njit(cache=True)
def meb_of_balls_core(G, radii, lam0, tol, max_iter, max_outer):
    """Minimum enclosing ball of balls B(c_j, r_j) from the Gram matrix of the centres.

    R* = min_c max_j ‖c − c_j‖ + r_j. The optimal c lies in conv{c_j} (projecting any c onto
    the hull moves it closer to every c_j), so c = Σλ_j c_j with λ on the simplex.

    Method (a parametric sequence of weighted MEB problems). For R ≥ max_j r_j,
    ‖c − c_j‖ + r_j ≤ R ⇔ ‖c − c_j‖² − (R − r_j)² ≤ 0, so R is feasible iff
    F(R) = min_c max_j ‖c‖² − 2c·c_j + s_j(R) − R² ≤ 0 with s_j(R) = G_jj − r_j² + 2R r_j.
    By minimax F(R) = max_λ ℓ_λ(R) − R² with ℓ_λ(R) = Σλ_j s_j(R) − λᵀGλ = 2āR + V
    (ā = Σλ_j r_j, V = Σλ_j(G_jj − r_j²) − λᵀGλ), an MEB-of-points dual with the diagonal
    replaced by s(R) (simplex_qp with h = 2, q = −s(R)). For every λ, R* is at least the
    larger root ā + sqrt(ā² + V) of R² = ℓ_λ(R) (as ℓ_λ ≤ max_λ ℓ), and at least max_j r_j.

    Iteration: R₀ = max_j r_j; λ_k solves the QP at R_k (warm-started from λ_{k−1}: G is
    unchanged so the old corral stays affinely independent); R_{k+1} = ā_k + sqrt(ā_k² + V_k).
    Because ℓ_{λ_k} is the tangent of the convex h(R) = max_λ ℓ_λ(R) at R_k and
    h(R_k) ≥ R_k² for R_k ≤ R*, the R_k increase monotonically to the smallest root R* of
    h(R) = R² (a Newton step for h − R² that keeps R² exact: quadratic convergence where h
    is smooth, finite when the optimal active set is reached). Certificate: the centre of
    λ_k encloses every ball with radius U_k = max_j ‖c_k − c_j‖ + r_j, and the loop stops when
    U_k ≤ (1 + tol)·max(lower bounds so far).

    Returns (λ, radius, lower, centre_sq_norm, n_iter, status), radius = U of the returned
    λ, lower ≤ R*; n_iter counts the simplex-QP cycles over all outer steps.
    """
    m = G.shape[0]
    scale = _max_diagonal(G)
    G_original = G
    G = centred_gram(G_original)
    noise_level = ROUNDING_FLOOR * scale
    r_max = 0.0
    for j in range(m):
        if radii[j] > r_max:
            r_max = radii[j]
    scale = max(scale, r_max * r_max)
    tol_abs_sq = ROUNDING_FLOOR * scale
    q = np.empty(m)
    Glam = np.empty(m)
    lam = lam0.copy()
    best_lam = np.zeros(m)
    best_upper = np.inf
    lower = r_max
    radius = r_max
    n_iter = 0
    status = MAX_ITER
    inner_tol = 0.01 * tol
    for _ in range(max_outer):
        for j in range(m):
            q[j] = -(G[j, j] - radii[j] * radii[j] + 2.0 * radius * radii[j])
        lam, gap, cycles, inner_status = simplex_qp(
            G, 2.0, q, lam, tol_abs_sq, inner_tol, max(max_iter - n_iter, 1), noise_level
        )
        n_iter += cycles
        if inner_status == NOT_PSD:
            status = NOT_PSD
            break
        upper, candidate, _ = _ball_bounds(G, radii, lam, Glam)
        if upper < best_upper:
            best_upper = upper
            for j in range(m):
                best_lam[j] = lam[j]
        # rounding level of a distance d computed from d² = G_jj − 2(Gλ)_j + λᵀGλ
        floor_radius = min(np.sqrt(tol_abs_sq), tol_abs_sq / max(lower, 1e-300))
        improved = candidate > lower * (1.0 + 0.01 * tol) + 0.01 * floor_radius
        if candidate > lower:
            lower = candidate
        if best_upper <= (1.0 + tol) * lower or best_upper - lower <= floor_radius:
            status = CONVERGED
            break
        if n_iter >= max_iter:
            status = MAX_ITER
            break
        if not improved:
            status = STALLED
            break
        radius = lower
    centre_sq = max(_quadratic_form(G_original, best_lam, Glam), 0.0)
    return best_lam, best_upper, min(lower, best_upper), centre_sq, n_iter, status
