"""Convex-hull membership and extreme points in Gram form (P. Chrysogelos, "Streaming, High
Performance Support Vector Methods", diploma thesis, Technical University of Crete, 2016,
section 4.3.2).

Everything takes the Gram matrix ``G`` of the points (inner products in whatever space they
live in), so it works through a kernel unchanged.

* :func:`hull_distance_qp` — squared distance of p from conv(V): the QP
  ``min_a ‖Ξa − p‖²`` over the simplex, i.e. the min-norm point of {v_k − p}.
* :func:`hull_membership_lp` — the linear program of Theorem 6:
  ``min_{a, β} pᵀ(Ξa − p) − β`` s.t. ``a ≥ 0, Σa = 1, v_jᵀ(Ξa − p) ≥ β ∀j``; p ∈ conv(V) iff
  its optimum is ≥ 0 (for p ∉ conv(V) the nearest point gives a negative value; for p in the
  hull the objective is ≥ 0 everywhere, and 0 at Ξa = p, β = 0).
* :func:`extreme_points` — indices of the extreme points of a set (one copy of duplicates):
  first a Cholesky test of affine independence (then every point is extreme, no QP needed),
  otherwise elimination: drop a point when it lies in the hull of the points still kept
  (dropping such a point never changes the hull).
"""

from __future__ import annotations

import numpy as np

from . import _core
from .objective import minimise_gram

__all__ = ["hull_distance_qp", "hull_membership_lp", "in_hull", "extreme_points"]

#: relative (to max diag G) squared distance below which a point counts as in the hull
MEMBERSHIP_TOL = 1e-10


def hull_distance_qp(G, members, j):
    """Squared distance of point j from conv(points ``members``), from their Gram matrix."""
    members = np.asarray(members, dtype=np.int64)
    if members.size == 0:
        return np.inf
    T = _core.translated_gram(np.ascontiguousarray(G, dtype=np.float64), members, int(j))
    _lam, value = minimise_gram(T, None, 1e-13)
    return max(value, 0.0)


def hull_membership_lp(G, members, j):
    """Optimal value of the LP of Theorem 6 for point j against ``members`` (≥ 0 iff inside).

    Variables (a_1..a_m, β); objective Σ_i G_ji a_i − G_jj − β; constraints Σa = 1, a ≥ 0,
    Σ_i G_ki a_i − G_kj ≥ β for every member k. Solved by scipy's HiGHS.
    """
    from scipy.optimize import linprog

    members = np.asarray(members, dtype=np.int64)
    m = members.size
    if m == 0:
        return -np.inf
    G = np.asarray(G, dtype=np.float64)
    Gmm = G[np.ix_(members, members)]
    gj = G[members, j]
    c = np.r_[gj, -1.0]
    # β − Σ_i G_ki a_i ≤ −G_kj
    A_ub = np.hstack([-Gmm, np.ones((m, 1))])
    b_ub = -gj
    A_eq = np.r_[np.ones(m), 0.0].reshape(1, -1)
    bounds = [(0.0, None)] * m + [(None, None)]
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=bounds,
                  method="highs")
    if res.status != 0:
        raise RuntimeError(f"hull membership LP failed: {res.message}")
    return float(res.fun - G[j, j])


def in_hull(G, members, j, method="qp", tol=MEMBERSHIP_TOL):
    """Whether point j lies in conv(points ``members``) (``method`` 'qp' or 'lp')."""
    scale = max(float(np.max(np.diag(G))), 1e-300)
    if method == "qp":
        return hull_distance_qp(G, members, j) <= tol * scale
    if method == "lp":
        return hull_membership_lp(G, members, j) >= -tol * scale
    raise ValueError(f"method must be 'qp' or 'lp'; got {method!r}")


def extreme_points(G, method="qp", tol=MEMBERSHIP_TOL):
    """Indices (ascending) of extreme points of the points with Gram matrix G.

    Returns ``(indices, n_membership_problems)``.
    """
    G = np.ascontiguousarray(G, dtype=np.float64)
    m = G.shape[0]
    if m <= 1 or _core.affinely_independent(G, 1e-10):
        return np.arange(m), 0
    keep = np.ones(m, dtype=bool)
    solved = 0
    for j in range(m):
        others = np.flatnonzero(keep)
        others = others[others != j]
        if others.size == 0:
            continue
        solved += 1
        if in_hull(G, others, j, method, tol):
            keep[j] = False
    return np.flatnonzero(keep), solved
