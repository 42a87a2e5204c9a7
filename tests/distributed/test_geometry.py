"""Hull membership (QP and the LP of Theorem 6), extreme points, and the ray intersections
of eq. 4.2–4.3, against explicit geometry."""

import numpy as np
import pytest
from scipy.spatial import ConvexHull

from streamsvm.distributed import _core
from streamsvm.distributed.geometry import (
    extreme_points,
    hull_distance_qp,
    hull_membership_lp,
    in_hull,
)


def test_qp_and_lp_membership_agree_with_explicit_geometry():
    rng = np.random.default_rng(0)
    V = rng.normal(size=(8, 2))
    hull = ConvexHull(V)
    P = rng.normal(scale=1.5, size=(40, 2))
    A = np.vstack([V, P])
    G = A @ A.T
    members = np.arange(8)
    for j, p in enumerate(P, start=8):
        inside = bool(np.all(hull.equations[:, :2] @ p + hull.equations[:, 2] <= 1e-12))
        assert in_hull(G, members, j, "qp") == inside
        assert in_hull(G, members, j, "lp") == inside
        # the QP's value is the squared distance to the hull; the LP is negative outside
        assert (hull_distance_qp(G, members, j) > 1e-9) == (not inside)
        assert (hull_membership_lp(G, members, j) < -1e-9) == (not inside)


def test_extreme_points_are_the_hull_vertices():
    rng = np.random.default_rng(1)
    P = rng.normal(size=(30, 2))
    P = np.vstack([P, P[:3]])  # duplicates: one copy kept
    idx, solved = extreme_points(P @ P.T)
    assert solved > 0
    vertices = set(ConvexHull(P[:30]).vertices.tolist())
    assert set(idx.tolist()) == vertices
    # affinely independent points are all extreme, found without any membership problem
    Q = rng.normal(size=(5, 8))
    idx, solved = extreme_points(Q @ Q.T)
    assert idx.tolist() == [0, 1, 2, 3, 4] and solved == 0


def test_ray_intersections_lie_on_the_hyperplane_and_gram_matches_eq_4_3():
    rng = np.random.default_rng(2)
    e_hat = np.array([1.0, 0.5, -0.2])
    grad = 2 * e_hat
    X = rng.normal(size=(6, 3)) + 2.0 * e_hat  # mostly on the far side
    slacks = (X - e_hat) @ grad
    x_new = e_hat - 0.8 * grad  # a violator
    s_new = float((x_new - e_hat) @ grad)
    b = -0.1
    keep = slacks >= b
    lam = np.empty(int(keep.sum()))
    _core.ray_lambdas(slacks[keep], s_new, b, lam)
    Y = lam[:, None] * X[keep] + (1 - lam[:, None]) * x_new
    np.testing.assert_allclose((Y - e_hat) @ grad, b, atol=1e-12)
    assert np.all((lam > 0) & (lam <= 1))
    # eq. 4.3 as the product W G Wᵀ over the base [x_N, x_i...]
    base = np.vstack([x_new, X[keep]])
    W = _core.ray_matrix(lam)
    explicit = np.vstack([x_new, Y]) @ np.vstack([x_new, Y]).T
    np.testing.assert_allclose(W @ (base @ base.T) @ W.T, explicit, atol=1e-12)
    np.testing.assert_allclose(_core.ray_gram(base @ base.T, lam), explicit, atol=1e-12)


def test_slacks_use_the_corrected_eq_4_1():
    """∇f(ê)ᵀ(x − ê) with f = ‖·‖² is 2 Σ a_j k̂(x_j, x) − 2 f(ê) (the print drops a 2)."""
    rng = np.random.default_rng(3)
    atoms = rng.normal(size=(4, 3))
    a = rng.dirichlet(np.ones(4))
    e = a @ atoms
    pts = rng.normal(size=(5, 3))
    out = np.empty(5)
    _core.slacks_from_cross(atoms @ pts.T, a, float(e @ e), out)
    np.testing.assert_allclose(out, (pts - e) @ (2 * e), atol=1e-12)


@pytest.mark.parametrize("task, expected", [("two-class", lambda k, yy, d: yy * (k + 1) + d),
                                            ("one-class", lambda k, yy, d: k + d)])
def test_augmented_kernel(task, expected):
    K = np.array([[1.0, 0.3], [0.3, 1.0]])
    y = np.array([1.0, -1.0])
    ids = np.array([4, 9])
    out = K.copy()
    _core.augment_gram(out, y, y, ids, ids, {"two-class": 2, "one-class": 1}[task], 0.5)
    ref = expected(K, np.outer(y, y), 0.5 * np.eye(2))
    np.testing.assert_allclose(out, ref)


def test_finite_C_makes_every_point_and_every_cut_point_extreme():
    """Method 2's finding, checked: the thesis does hull membership in the space of
    φ̂(x) = [φ(x); e_i/√C] (section 4.3.2 writes both tests with k̂), where every point has a
    private direction, so every point, and every cut point λ_i φ̂(x_i) + (1 − λ_i) φ̂(x_N)
    (λ_i > 0), is extreme. Pruning in φ-space instead would drop points the optimum needs."""
    from streamsvm.qp import min_norm_point

    rng = np.random.default_rng(4)
    P = rng.normal(size=(25, 2)) + np.array([3.0, 0.0])
    K = P @ P.T  # linear kernel: few hull vertices in φ-space
    G = K + np.eye(25) / 2.0  # k̂ = k + δ_ij / C with C = 2
    idx_phi, _ = extreme_points(K)
    assert len(idx_phi) < 10
    idx_hat, solved = extreme_points(G)
    assert idx_hat.tolist() == list(range(25)) and solved == 0
    lam = rng.uniform(0.05, 1.0, size=24)
    Gy = _core.ray_gram(G, lam)  # base [x_N = point 0, points 1..24]
    assert extreme_points(Gy[1:, 1:])[0].tolist() == list(range(24))
    # the L2-SVM optimum over all points is below the one over φ-space's hull vertices
    f_all = min_norm_point(G, tol=1e-13).sq_norm
    f_pruned = min_norm_point(G[np.ix_(idx_phi, idx_phi)], tol=1e-13).sq_norm
    assert f_all < f_pruned - 1e-3
