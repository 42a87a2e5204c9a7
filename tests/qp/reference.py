"""Slow references for the simplex solvers: SLSQP on the textbook formulations and brute
force over the small candidate sets of plane geometry."""

import itertools

import numpy as np
from scipy.optimize import minimize


def _simplex_constraints(m):
    return [{"type": "eq", "fun": lambda lam: lam.sum() - 1.0, "jac": lambda lam: np.ones(m)}]


def slsqp_min_norm(G):
    """min λᵀGλ over the simplex by SLSQP; returns the optimal value."""
    m = G.shape[0]
    res = minimize(
        lambda lam: lam @ G @ lam,
        np.full(m, 1.0 / m),
        jac=lambda lam: 2.0 * G @ lam,
        bounds=[(0.0, 1.0)] * m,
        constraints=_simplex_constraints(m),
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 2000},
    )
    return float(res.fun)


def slsqp_meb_points_sq_radius(G):
    """max Σλ_i G_ii − λᵀGλ over the simplex by SLSQP; returns R*²."""
    m = G.shape[0]
    d = np.diag(G)
    res = minimize(
        lambda lam: lam @ G @ lam - d @ lam,
        np.full(m, 1.0 / m),
        jac=lambda lam: 2.0 * G @ lam - d,
        bounds=[(0.0, 1.0)] * m,
        constraints=_simplex_constraints(m),
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 2000},
    )
    return float(-res.fun)


def slsqp_meb_balls_radius(A, radii):
    """min R s.t. ‖c − a_j‖² ≤ (R − r_j)², R ≥ r_j, in explicit coordinates; returns R*."""
    A = np.asarray(A, dtype=float)
    radii = np.asarray(radii, dtype=float)
    centre = A.mean(axis=0)
    start = np.r_[centre, np.max(np.linalg.norm(A - centre, axis=1) + radii) * 1.01 + 1e-3]

    def constraints(v):
        c, R = v[:-1], v[-1]
        return np.r_[(R - radii) ** 2 - ((A - c) ** 2).sum(axis=1), R - radii]

    res = minimize(
        lambda v: v[-1],
        start,
        jac=lambda v: np.r_[np.zeros(A.shape[1]), 1.0],
        constraints=[{"type": "ineq", "fun": constraints}],
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 2000},
    )
    return float(res.x[-1])


def plane_min_norm_sq(P):
    """Squared distance from the origin to conv(P) for points in the plane, by brute force:
    0 if a triangle (or segment, or point) of P contains the origin, else the nearest segment."""
    P = np.asarray(P, dtype=float)
    best = np.inf
    for i, k in itertools.combinations_with_replacement(range(len(P)), 2):
        a, b = P[i], P[k]
        d = b - a
        t = 0.0 if d @ d == 0 else np.clip(-(a @ d) / (d @ d), 0.0, 1.0)
        best = min(best, float(np.sum((a + t * d) ** 2)))
    for i, k, l in itertools.combinations(range(len(P)), 3):
        T = np.column_stack([P[k] - P[i], P[l] - P[i]])
        if abs(np.linalg.det(T)) < 1e-12:
            continue
        s, t = np.linalg.solve(T, -P[i])
        if s >= 0 and t >= 0 and s + t <= 1:
            return 0.0
    return best


def plane_meb_radius(P):
    """Radius of the smallest circle enclosing the plane points P, by brute force over the
    circles through two points (as diameter) and three points (circumcircle)."""
    P = np.asarray(P, dtype=float)
    if len(P) == 1:
        return 0.0
    candidates = []
    for i, k in itertools.combinations(range(len(P)), 2):
        candidates.append(((P[i] + P[k]) / 2, np.linalg.norm(P[i] - P[k]) / 2))
    for i, k, l in itertools.combinations(range(len(P)), 3):
        a, b, c = P[i], P[k], P[l]
        M = 2 * np.array([b - a, c - a])
        if abs(np.linalg.det(M)) < 1e-12:
            continue
        centre = np.linalg.solve(M, np.array([b @ b - a @ a, c @ c - a @ a]))
        candidates.append((centre, np.linalg.norm(a - centre)))
    best = np.inf
    for centre, radius in candidates:
        if np.all(np.linalg.norm(P - centre, axis=1) <= radius * (1 + 1e-12) + 1e-12):
            best = min(best, radius)
    return float(best)


def two_balls_radius(c1, r1, c2, r2):
    """Closed form: the larger ball if it contains the other, else (‖c1 − c2‖ + r1 + r2) / 2."""
    distance = float(np.linalg.norm(np.asarray(c1) - np.asarray(c2)))
    if distance + min(r1, r2) <= max(r1, r2):
        return float(max(r1, r2))
    return (distance + r1 + r2) / 2
