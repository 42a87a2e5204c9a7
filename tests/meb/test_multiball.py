"""StreamSVM with several balls (Sec. 4.3)."""

import numpy as np
import pytest

from streamsvm import StreamSVM
from streamsvm.datasets import make_synthetic_c
from streamsvm.meb.streamsvm import _MultiBallLearner, _StreamSVMLearner

from tests import naive
from tests.meb.test_streamsvm import exact_meb_radius


def test_one_ball_is_algorithm_1():
    """Merging the ball and an outside point is Zarrabi-Zadeh & Chan's update."""
    X, y = make_synthetic_c(300, random_state=0)
    y = y.astype(float)
    rng = np.random.default_rng(0)
    multi = _MultiBallLearner(5, rng, C=2.0, n_balls=1, tol=1e-10)
    single = _StreamSVMLearner(5, rng, C=2.0, lookahead=1, tol=1e-8)
    multi.partial_fit(X, y)
    single.partial_fit(X, y)
    np.testing.assert_allclose(multi.W[0], single.w, atol=1e-12)
    assert multi.R[0] == pytest.approx(single.radius)
    assert multi.xi2[0] == pytest.approx(single.state[1])


@pytest.mark.parametrize("n_balls", [2, 4, 9])
def test_balls_cover_every_point_and_the_gram_is_kept(n_balls):
    X, y = make_synthetic_c(250, random_state=n_balls)
    y = y.astype(float)
    C = 1.5
    learner = _MultiBallLearner(5, np.random.default_rng(0), C=C, n_balls=n_balls, tol=1e-10)
    learner.partial_fit(X, y)
    n = learner.n_used
    np.testing.assert_allclose(learner.gram[:n, :n], learner.W[:n] @ learner.W[:n].T, atol=1e-10)
    # a point inside ball k: its distance is at least ||w_k - y x||^2 + (sqrt(xi2_k) - C^-1/2)^2
    gaps = [
        np.sqrt(
            np.sum((learner.W[k] - y[:, None] * X) ** 2, axis=1)
            + (np.sqrt(learner.xi2[k]) - np.sqrt(1 / C)) ** 2
        )
        - learner.R[k]
        for k in range(n)
    ]
    assert np.all(np.min(gaps, axis=0) <= 1e-9)
    w, xi2, R = learner.final_ball()
    lower = np.sum((w - y[:, None] * X) ** 2, axis=1) + (np.sqrt(xi2) - np.sqrt(1 / C)) ** 2
    assert np.all(np.sqrt(lower) <= R * (1 + 1e-9))


def test_as_many_balls_as_points_is_the_exact_ball():
    X, y = make_synthetic_c(50, random_state=3)
    _, _, _, points = naive.streamsvm_algorithm1(X, y.astype(float), 1.0)
    model = StreamSVM(n_balls=50, lookahead=1, center=False, normalize=False,
                      fit_intercept=False).fit(X, y)
    assert model.radius_ == pytest.approx(exact_meb_radius(points), rel=1e-6)


def test_n_balls_parameter_checks():
    X, y = make_synthetic_c(40, random_state=0)
    with pytest.raises(ValueError, match="parameter n_balls=0 is invalid"):
        StreamSVM(n_balls=0).fit(X, y)
    with pytest.raises(ValueError, match="parameter n_balls=3 is invalid; allowed: 1, or an int "
                                         "> 1 with kernel='linear' and lookahead=1"):
        StreamSVM(n_balls=3, lookahead=5).fit(X, y)
