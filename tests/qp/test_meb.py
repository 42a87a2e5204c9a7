"""meb_of_points and meb_of_balls_and_points against geometry, closed forms and SLSQP."""

import numpy as np
import pytest

from streamsvm.qp import (
    augmented_gram,
    combined_extra_sq_norm,
    meb_of_balls_and_points,
    meb_of_points,
)

from .reference import (
    plane_meb_radius,
    slsqp_meb_balls_radius,
    slsqp_meb_points_sq_radius,
    two_balls_radius,
)

TOL = 1e-10


def assert_encloses(A, radii, res, tol=TOL):
    """Explicit-coordinate check: simplex weights, every ball inside B(c, radius), the radius
    attained, and radius ≤ (1 + tol)·lower_bound."""
    lam = res.weights
    assert np.all(lam >= 0)
    assert abs(lam.sum() - 1) < 1e-12
    assert res.converged
    centre = lam @ A
    reach = np.linalg.norm(A - centre, axis=1) + radii
    size = max(np.max(np.linalg.norm(A, axis=1)), np.max(radii), 1e-300)
    assert np.all(reach <= res.radius + 1e-9 * size)
    assert np.max(reach) == pytest.approx(res.radius, abs=1e-9 * size)
    assert res.lower_bound <= res.radius
    assert res.radius <= (1 + tol) * res.lower_bound + 1e-7 * size
    assert res.centre_sq_norm == pytest.approx(centre @ centre, abs=1e-10 * size**2)


# ---------------------------------------------------------------- points


def test_two_points_and_triangles():
    P = np.array([[0.0, 0.0], [2.0, 0.0]])
    res = meb_of_points(P @ P.T)
    assert res.radius == pytest.approx(1.0)
    np.testing.assert_allclose(res.weights, [0.5, 0.5], atol=1e-12)
    # acute triangle: circumradius; equilateral of side 1 has R = 1/sqrt(3)
    P = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, np.sqrt(3) / 2]])
    res = meb_of_points(P @ P.T)
    assert res.radius == pytest.approx(1 / np.sqrt(3), rel=1e-12)
    np.testing.assert_allclose(res.weights, [1 / 3] * 3, atol=1e-10)
    # obtuse triangle: half the longest side, the obtuse corner has weight 0
    P = np.array([[0.0, 0.0], [4.0, 0.0], [2.0, 0.5]])
    res = meb_of_points(P @ P.T)
    assert res.radius == pytest.approx(2.0, rel=1e-12)
    assert res.weights[2] == 0.0


@pytest.mark.parametrize("seed", range(10))
def test_plane_brute_force(seed):
    rng = np.random.default_rng(seed)
    P = rng.normal(size=(int(rng.integers(1, 9)), 2)) + rng.normal(scale=3.0, size=2)
    res = meb_of_points(P @ P.T)
    assert_encloses(P, np.zeros(len(P)), res)
    assert res.radius == pytest.approx(plane_meb_radius(P), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(
    ("m", "d", "offset"), [(10, 3, 0.0), (40, 5, 2.0), (30, 50, 0.0), (60, 60, 1.0)]
)
def test_points_against_slsqp(m, d, offset):
    rng = np.random.default_rng(m + d)
    P = rng.normal(size=(m, d)) + offset
    G = P @ P.T
    res = meb_of_points(G)
    assert_encloses(P, np.zeros(m), res)
    reference = np.sqrt(slsqp_meb_points_sq_radius(G))
    assert res.lower_bound <= reference * (1 + 1e-9)
    assert res.radius == pytest.approx(reference, rel=1e-7)


@pytest.mark.parametrize(
    "case", ["one", "identical", "duplicates", "collinear", "rank_deficient", "sphere", "far"]
)
def test_points_degenerate(case):
    rng = np.random.default_rng(2)
    if case == "one":
        P = np.array([[3.0, 4.0]])
    elif case == "identical":
        P = np.tile([[1.0, 2.0, 3.0]], (6, 1))
    elif case == "duplicates":
        base = rng.normal(size=(5, 2))
        P = np.vstack([base, base, base[:2]])
    elif case == "collinear":
        t = rng.uniform(-3, 5, size=15)
        P = np.outer(t, [1.0, -1.0, 0.5])
    elif case == "rank_deficient":
        P = rng.normal(size=(30, 3)) @ rng.normal(size=(3, 8))
    elif case == "sphere":
        # unit-norm points, as in the CVM augmented space where k(x, x) is constant
        P = rng.normal(size=(25, 6))
        P /= np.linalg.norm(P, axis=1, keepdims=True)
    else:
        P = rng.normal(size=(12, 2)) + 1e3
    G = P @ P.T
    res = meb_of_points(G)
    if case in ("one", "identical"):
        assert res.radius <= 1e-6 and res.converged
        np.testing.assert_allclose(res.weights @ P, P[0], atol=1e-9)
        return
    assert_encloses(P, np.zeros(len(P)), res, tol=TOL if case != "far" else 1e-6)
    if P.shape[1] == 2:
        assert res.radius == pytest.approx(plane_meb_radius(P), rel=1e-7)
    elif case == "collinear":
        assert res.radius == pytest.approx((t.max() - t.min()) * 1.5 / 2, rel=1e-10)
    else:
        assert res.radius == pytest.approx(np.sqrt(slsqp_meb_points_sq_radius(G)), rel=1e-7)


def test_points_warm_start():
    rng = np.random.default_rng(4)
    P = rng.normal(size=(40, 10))
    G = P @ P.T
    cold = meb_of_points(G)
    warm = meb_of_points(G, init=np.ones(40))
    assert warm.radius == pytest.approx(cold.radius, rel=1e-10)
    assert meb_of_points(G, init=cold.weights).n_iter <= 2


# ---------------------------------------------------------------- balls


@pytest.mark.parametrize(
    ("c2", "r1", "r2"),
    [
        ([4.0, 0.0], 1.0, 2.0),  # disjoint
        ([1.0, 1.0], 1.0, 1.5),  # overlapping, neither contains the other
        ([0.5, 0.0], 3.0, 1.0),  # the first contains the second
        ([2.0, 0.0], 3.0, 1.0),  # internally tangent
        ([0.0, 0.0], 1.0, 2.0),  # concentric
        ([3.0, 0.0], 0.0, 0.0),  # two points
        ([0.3, 0.4], 1.0, 0.0),  # a point inside a ball
        ([3.0, 4.0], 1.0, 0.0),  # a point outside a ball
    ],
)
def test_two_balls_closed_form(c2, r1, r2):
    A = np.array([[0.0, 0.0], c2])
    radii = np.array([r1, r2])
    res = meb_of_balls_and_points(A @ A.T, radii)
    assert_encloses(A, radii, res)
    assert res.radius == pytest.approx(two_balls_radius(A[0], r1, A[1], r2), rel=2 * TOL)


def test_equal_radii_is_meb_of_centres_plus_radius():
    rng = np.random.default_rng(8)
    A = rng.normal(size=(20, 4))
    G = A @ A.T
    res = meb_of_balls_and_points(G, np.full(20, 0.7))
    assert_encloses(A, np.full(20, 0.7), res)
    assert res.radius == pytest.approx(meb_of_points(G).radius + 0.7, rel=1e-10)


def test_zero_radii_match_meb_of_points():
    rng = np.random.default_rng(9)
    A = rng.normal(size=(25, 6)) + 1.0
    G = A @ A.T
    balls = meb_of_balls_and_points(G, np.zeros(25))
    points = meb_of_points(G)
    assert balls.radius == pytest.approx(points.radius, rel=1e-10)
    np.testing.assert_allclose(balls.weights @ A, points.weights @ A, atol=1e-7)


def test_one_ball_and_a_big_ball_containing_all():
    res = meb_of_balls_and_points([[2.0]], [0.5])
    assert res.radius == 0.5 and res.weights.tolist() == [1.0]
    rng = np.random.default_rng(1)
    A = np.vstack([[0.0, 0.0, 0.0], rng.uniform(-1, 1, size=(8, 3))])
    radii = np.r_[5.0, rng.uniform(0, 1, size=8) * 0.5]
    res = meb_of_balls_and_points(A @ A.T, radii)
    assert res.radius == pytest.approx(5.0, rel=1e-12)
    np.testing.assert_allclose(res.weights @ A, 0.0, atol=1e-9)


@pytest.mark.parametrize(
    ("m", "d", "radius_scale"),
    [(3, 2, 1.0), (6, 2, 0.5), (10, 3, 1.0), (20, 5, 0.3), (15, 30, 2.0), (40, 8, 0.1)],
)
def test_balls_against_slsqp(m, d, radius_scale):
    rng = np.random.default_rng(10 * m + d)
    A = rng.normal(size=(m, d)) + 0.5
    radii = rng.uniform(0, radius_scale, size=m)
    radii[rng.random(m) < 0.3] = 0.0  # some points among the balls
    G = A @ A.T
    res = meb_of_balls_and_points(G, radii)
    assert_encloses(A, radii, res)
    reference = slsqp_meb_balls_radius(A, radii)
    assert res.lower_bound <= reference * (1 + 1e-8)
    assert res.radius == pytest.approx(reference, rel=1e-7)


@pytest.mark.parametrize("case", ["duplicate_centres", "collinear", "rank_deficient", "same_ball"])
def test_balls_degenerate(case):
    rng = np.random.default_rng(12)
    if case == "duplicate_centres":
        A = np.vstack([rng.normal(size=(4, 3))] * 2)
        radii = rng.uniform(0, 1, size=8)
    elif case == "collinear":
        t = rng.uniform(-2, 2, size=10)
        A = np.outer(t, [1.0, 1.0])
        radii = rng.uniform(0, 0.5, size=10)
    elif case == "rank_deficient":
        A = rng.normal(size=(25, 2)) @ rng.normal(size=(2, 6))
        radii = rng.uniform(0, 0.3, size=25)
    else:
        A = np.tile([[1.0, 1.0]], (4, 1))
        radii = np.full(4, 0.25)
    res = meb_of_balls_and_points(A @ A.T, radii)
    assert_encloses(A, radii, res)
    if case == "collinear":
        expected = (np.max(t * np.sqrt(2) + radii) - np.min(t * np.sqrt(2) - radii)) / 2
        assert res.radius == pytest.approx(expected, rel=1e-10)
    else:
        assert res.radius == pytest.approx(slsqp_meb_balls_radius(A, radii), rel=1e-7)


def test_streamsvm_lookahead_in_augmented_space():
    """Gram form with the e_n parts left implicit equals the explicit augmented construction."""
    rng = np.random.default_rng(6)
    C, L, d = 3.0, 6, 4
    n_old = 5  # the old centre's e-part lives on 5 earlier coordinates
    w = rng.normal(size=d)
    alpha_old = rng.random(n_old)
    xi_part = alpha_old / np.sqrt(C)
    xi2 = xi_part @ xi_part
    R = 0.8
    X = rng.normal(size=(L, d))
    y = np.where(rng.random(L) < 0.5, -1.0, 1.0)
    # explicit coordinates: [features | old e's | new e's]
    A = np.zeros((L + 1, d + n_old + L))
    A[0, :d], A[0, d : d + n_old] = w, xi_part
    A[1:, :d] = y[:, None] * X
    A[1:, d + n_old :] = np.eye(L) / np.sqrt(C)
    F = np.vstack([w, y[:, None] * X])
    extra = np.r_[xi2, np.full(L, 1.0 / C)]
    G = augmented_gram(F @ F.T, extra)
    np.testing.assert_allclose(G, A @ A.T, atol=1e-12)
    radii = np.r_[R, np.zeros(L)]
    res = meb_of_balls_and_points(G, radii)
    assert_encloses(A, radii, res)
    assert res.radius == pytest.approx(slsqp_meb_balls_radius(A, radii), rel=1e-7)
    centre = res.weights @ A
    assert combined_extra_sq_norm(res.weights, extra) == pytest.approx(centre[d:] @ centre[d:])


def test_one_point_outside_a_ball_is_algorithm_1():
    """Ball (c, R) and one point at distance δ ≥ R: R' = (δ + R)/2 and the centre moves by
    a = ½(1 − R/δ) towards the point; ξ² ← ξ²(1 − a)² + a²/C (StreamSVM Algorithm 1)."""
    C, R, xi2 = 2.0, 0.5, 0.4
    w = np.array([0.3, 0.1])
    x, y = np.array([-0.8, 0.9]), 1.0
    F = np.vstack([w, y * x])
    extra = np.array([xi2, 1.0 / C])
    G = augmented_gram(F @ F.T, extra)
    distance = np.sqrt(G[0, 0] - 2 * G[0, 1] + G[1, 1])
    a = 0.5 * (1 - R / distance)
    res = meb_of_balls_and_points(G, [R, 0.0])
    assert res.radius == pytest.approx((distance + R) / 2, rel=2 * TOL)
    np.testing.assert_allclose(res.weights, [1 - a, a], rtol=1e-10)
    assert combined_extra_sq_norm(res.weights, extra) == pytest.approx(
        xi2 * (1 - a) ** 2 + a**2 / C, rel=1e-10
    )


def test_balls_warm_start_and_scale():
    rng = np.random.default_rng(13)
    A = rng.normal(size=(30, 5))
    radii = rng.uniform(0, 0.5, size=30)
    G = A @ A.T
    cold = meb_of_balls_and_points(G, radii)
    warm = meb_of_balls_and_points(G, radii, init=cold.weights)
    assert warm.radius == pytest.approx(cold.radius, rel=1e-10)
    scaled = meb_of_balls_and_points(G * 1e4, radii * 1e2)
    assert scaled.radius == pytest.approx(1e2 * cold.radius, rel=1e-9)
