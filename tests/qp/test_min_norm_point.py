"""min_norm_point against plane geometry, SLSQP and its own optimality conditions."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from streamsvm.qp import min_norm_point

from .reference import plane_min_norm_sq, slsqp_min_norm

TOL = 1e-10


def assert_optimal(G, res, tol=TOL):
    """Simplex membership, KKT conditions, certificate consistency."""
    lam = res.weights
    scale = max(np.max(np.diag(G)), 1e-300)
    assert lam.shape == (G.shape[0],)
    assert np.all(lam >= 0)
    assert abs(lam.sum() - 1) < 1e-12
    Glam = G @ lam
    sq_norm = lam @ Glam
    assert res.sq_norm == pytest.approx(max(sq_norm, 0.0), abs=1e-12 * scale)
    # (Gλ)_i ≥ λᵀGλ − tol·scale everywhere, equality on the support
    assert np.all(Glam >= sq_norm - tol * scale - 1e-13 * scale)
    support = lam > 0
    assert np.all(np.abs(Glam[support] - sq_norm) <= 1e-9 * scale)
    assert res.converged
    assert 0 <= res.gap <= tol * scale
    assert res.lower_bound <= res.sq_norm


def random_points(rng, m, d, offset=0.0):
    return rng.normal(size=(m, d)) + offset


@pytest.mark.parametrize("seed", range(8))
def test_plane_brute_force(seed):
    rng = np.random.default_rng(seed)
    P = random_points(rng, int(rng.integers(1, 8)), 2, offset=rng.normal(scale=2.0, size=2))
    G = P @ P.T
    res = min_norm_point(G)
    assert_optimal(G, res)
    assert res.sq_norm == pytest.approx(plane_min_norm_sq(P), abs=1e-10)
    assert res.lower_bound <= plane_min_norm_sq(P) + 1e-12


@pytest.mark.parametrize(
    ("m", "d", "offset"),
    [(5, 3, 1.0), (30, 3, 2.0), (40, 60, 0.3), (25, 25, 0.5), (60, 4, 3.0)],
)
def test_against_slsqp(m, d, offset):
    rng = np.random.default_rng(m * 100 + d)
    P = random_points(rng, m, d, offset)
    G = P @ P.T
    res = min_norm_point(G)
    assert_optimal(G, res)
    reference = slsqp_min_norm(G)
    # ours is optimal up to the gap; SLSQP is only approximately so
    assert res.sq_norm <= reference + 1e-9
    assert res.sq_norm == pytest.approx(reference, rel=1e-6, abs=1e-9)
    assert res.lower_bound <= reference + 1e-12


def test_closed_forms():
    # segment between (1, 1) and (1, -1): nearest point (1, 0)
    P = np.array([[1.0, 1.0], [1.0, -1.0]])
    res = min_norm_point(P @ P.T)
    np.testing.assert_allclose(res.weights, [0.5, 0.5], atol=1e-12)
    assert res.sq_norm == pytest.approx(1.0)
    # one point
    res = min_norm_point([[4.0]])
    assert res.weights.tolist() == [1.0] and res.sq_norm == 4.0 and res.gap == 0.0
    # a point of the set is the answer when every other point is beyond its hyperplane
    P = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, -1.0]])
    res = min_norm_point(P @ P.T)
    np.testing.assert_allclose(res.weights, [1.0, 0.0, 0.0], atol=1e-12)


def test_origin_inside_hull_gives_zero():
    P = np.array([[1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0], [0.5, 0.5]])
    G = P @ P.T
    res = min_norm_point(G)
    assert_optimal(G, res)
    assert res.sq_norm <= 1e-12
    np.testing.assert_allclose(res.weights @ P, 0.0, atol=1e-7)


@pytest.mark.parametrize(
    "case", ["duplicates", "collinear", "rank_deficient", "identical", "zeros", "far_away"]
)
def test_degenerate_sets(case):
    rng = np.random.default_rng(7)
    if case == "duplicates":
        base = rng.normal(size=(6, 3)) + 1.0
        P = np.vstack([base, base[[0, 2, 2, 5]]])
    elif case == "collinear":
        t = rng.uniform(-1, 2, size=12)
        P = np.outer(t, [1.0, 2.0, -1.0]) + np.array([0.5, -0.3, 0.2])
    elif case == "rank_deficient":
        P = rng.normal(size=(40, 2)) @ rng.normal(size=(2, 10)) + 0.7
    elif case == "identical":
        P = np.tile([[1.0, -2.0]], (5, 1))
    elif case == "zeros":
        P = np.zeros((4, 3))
    else:
        P = rng.normal(size=(20, 3)) + 1e3
    G = P @ P.T
    res = min_norm_point(G)
    assert_optimal(G, res)
    if P.shape[1] == 2 or case == "collinear":
        assert res.sq_norm <= slsqp_min_norm(G) + 1e-9 * max(np.max(np.diag(G)), 1)
    else:
        assert res.sq_norm == pytest.approx(slsqp_min_norm(G), rel=1e-6, abs=1e-9)


def test_rbf_kernel_gram():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 5))
    y = np.where(rng.random(50) < 0.5, -1.0, 1.0)
    # the distributed tracker's kernel: y_i y_k (k + 1) + δ_ik / C
    G = np.outer(y, y) * (rbf_kernel(X, gamma=0.3) + 1.0) + np.eye(50) / 10.0
    res = min_norm_point(G)
    assert_optimal(G, res)
    assert res.sq_norm == pytest.approx(slsqp_min_norm(G), rel=1e-6)


def test_warm_start_reaches_same_optimum():
    rng = np.random.default_rng(11)
    P = rng.normal(size=(30, 8)) + 0.5
    G = P @ P.T
    cold = min_norm_point(G)
    for init in (cold.weights, np.ones(30), rng.random(30), np.eye(30)[4]):
        warm = min_norm_point(G, init=init)
        assert_optimal(G, warm)
        assert warm.sq_norm == pytest.approx(cold.sq_norm, rel=1e-12, abs=1e-14)
    assert min_norm_point(G, init=cold.weights).n_iter <= 2


def test_warm_start_with_dependent_support():
    # the start's support holds affinely dependent points (duplicates, collinear)
    P = np.array([[1.0, 1.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [1.0, -2.0]])
    G = P @ P.T
    res = min_norm_point(G, init=np.ones(5))
    assert_optimal(G, res)
    assert res.sq_norm == pytest.approx(plane_min_norm_sq(P), abs=1e-12)


def test_scale_invariance():
    rng = np.random.default_rng(5)
    P = rng.normal(size=(15, 4)) + 1.0
    G = P @ P.T
    a = min_norm_point(G)
    b = min_norm_point(1e6 * G)
    assert b.sq_norm == pytest.approx(1e6 * a.sq_norm, rel=1e-9)
    np.testing.assert_allclose(a.weights @ P, b.weights @ P, atol=1e-8)
