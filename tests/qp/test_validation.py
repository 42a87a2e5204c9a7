"""Bad input gets a clear error; running out of iterations warns and says so."""

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from streamsvm.qp import (
    augmented_gram,
    combined_extra_sq_norm,
    meb_of_balls_and_points,
    meb_of_points,
    min_norm_point,
)

SOLVERS = [
    ("min_norm_point", lambda G, **kw: min_norm_point(G, **kw)),
    ("meb_of_points", lambda G, **kw: meb_of_points(G, **kw)),
    ("meb_of_balls", lambda G, **kw: meb_of_balls_and_points(G, np.zeros(len(G)), **kw)),
]
GOOD = np.array([[2.0, 1.0], [1.0, 2.0]])


@pytest.mark.parametrize(("name", "solve"), SOLVERS)
@pytest.mark.parametrize(
    ("G", "message"),
    [
        (np.ones((2, 3)), "square 2-D Gram matrix"),
        (np.ones(3), "square 2-D Gram matrix"),
        (np.ones((2, 2, 2)), "square 2-D Gram matrix"),
        (np.empty((0, 0)), "empty"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), "NaN or infinity"),
        (np.array([[1.0, 0.0], [0.0, np.inf]]), "NaN or infinity"),
        (np.array([[1.0, 0.5], [0.2, 1.0]]), "not symmetric"),
        (np.array([[-1.0, 0.0], [0.0, 1.0]]), "negative diagonal"),
        (np.array([[1.0, 2.0], [2.0, 1.0]]), "not positive semi-definite"),
        ([["a", "b"], ["c", "d"]], "numeric matrix"),
    ],
)
def test_bad_gram(name, solve, G, message):
    with pytest.raises((ValueError, TypeError), match=message):
        solve(G)


@pytest.mark.parametrize(("name", "solve"), SOLVERS)
@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"tol": 0.0}, ValueError, "tol must be positive"),
        ({"tol": -1e-3}, ValueError, "tol must be positive"),
        ({"tol": float("nan")}, ValueError, "tol must be positive"),
        ({"tol": "small"}, TypeError, "tol must be a real number"),
        ({"max_iter": 0}, ValueError, "max_iter must be at least 1"),
        ({"max_iter": 2.5}, TypeError, "max_iter must be an integer"),
        ({"init": [1.0, 0.0, 0.0]}, ValueError, r"init must have shape \(2,\)"),
        ({"init": [-1.0, 2.0]}, ValueError, "non-negative weights"),
        ({"init": [0.0, 0.0]}, ValueError, "positive sum"),
    ],
)
def test_bad_options(name, solve, kwargs, error, message):
    with pytest.raises(error, match=message):
        solve(GOOD, **kwargs)


@pytest.mark.parametrize(
    ("radii", "message"),
    [
        ([1.0, -0.5], "radii must be non-negative"),
        ([1.0, np.nan], "NaN or infinity"),
        ([1.0], r"radii must have shape \(2,\)"),
        ([[1.0, 1.0]], r"radii must have shape \(2,\)"),
    ],
)
def test_bad_radii(radii, message):
    with pytest.raises(ValueError, match=message):
        meb_of_balls_and_points(GOOD, radii)


def test_max_iter_warns_and_reports():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(40, 40))
    G = A @ A.T
    for solve in (min_norm_point, meb_of_points):
        with pytest.warns(ConvergenceWarning, match="max_iter"):
            res = solve(G, max_iter=2)
        assert not res.converged
        assert np.all(res.weights >= 0) and res.weights.sum() == pytest.approx(1.0)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        res = meb_of_balls_and_points(G, np.full(40, 0.1), max_iter=2)
    assert not res.converged
    # the radius still encloses everything, and the lower bound is still a lower bound
    centre = res.weights @ A
    assert np.max(np.linalg.norm(A - centre, axis=1) + 0.1) <= res.radius * (1 + 1e-12)
    assert res.lower_bound <= meb_of_balls_and_points(G, np.full(40, 0.1)).radius


def test_helpers_validate():
    with pytest.raises(ValueError, match="feature_gram must be square"):
        augmented_gram(np.ones((2, 3)), [1.0, 1.0])
    with pytest.raises(ValueError, match=r"extra must have shape \(2,\) or \(2, 2\)"):
        augmented_gram(np.ones((2, 2)), [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="non-negative"):
        augmented_gram(np.ones((2, 2)), [1.0, -1.0])
    np.testing.assert_allclose(augmented_gram(np.eye(2), np.ones((2, 2))), np.eye(2) + 1)
    with pytest.raises(ValueError, match="equal length"):
        combined_extra_sq_norm([0.5, 0.5], [1.0])


def test_inputs_not_modified_and_lists_accepted():
    G = GOOD.copy()
    meb_of_balls_and_points(G, [0.1, 0.2])
    np.testing.assert_array_equal(G, GOOD)
    assert min_norm_point(GOOD.tolist()).sq_norm == pytest.approx(1.5)
    # float32 and integer input are converted
    assert meb_of_points(GOOD.astype(np.float32)).radius == pytest.approx(np.sqrt(0.5))
    assert meb_of_points(np.array([[2, 1], [1, 2]])).radius == pytest.approx(np.sqrt(0.5))
