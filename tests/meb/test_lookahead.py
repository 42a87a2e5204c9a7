"""StreamSVM's Algorithm 2 in one compiled loop: each buffer's ball against an exact MEB
solver (the active set of ``streamsvm.qp`` and SLSQP in explicit coordinates), and the
models against those recorded before the loop was compiled (``algorithm2_cases.py``)."""

import json

import numpy as np
import pytest
import scipy.sparse as sp

from streamsvm import StreamSVM
from streamsvm.meb import _core, _lookahead
from streamsvm.qp import augmented_gram, meb_of_balls_and_points
from streamsvm.qp._core import CONVERGED
from streamsvm.qp._frank_wolfe import meb_of_balls_frank_wolfe

from ..qp.reference import slsqp_meb_balls_radius
from .algorithm2_cases import RECORDED, cases, learn


def _ball_and_buffer(seed, k, d, C=2.0):
    """A ball (centre [w; u], ||u||^2 = xi2, radius R) and k buffered unit rows."""
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(k, d))
    B /= np.linalg.norm(B, axis=1)[:, None]
    labels = np.where(rng.random(k) < 0.5, 1.0, -1.0)
    w = 0.3 * rng.normal(size=d)
    state = np.zeros(_core.STATE_SIZE)
    state[_core.R_], state[_core.XI2] = rng.uniform(0.2, 1.2), rng.uniform(0.05, 0.5)
    state[_core.WNORM2], state[_core.STARTED] = w @ w, 1.0
    return w, state, B, labels, 1.0 / C


@pytest.mark.parametrize("seed", range(6))
def test_enclose_buffer_is_the_exact_ball_of_the_ball_and_the_buffer(seed):
    """The compiled step against the active-set solver on the same Gram matrix and against
    SLSQP in explicit coordinates (the e-parts written out as extra coordinates)."""
    k, d = 4 + 3 * seed, 3 + seed
    w, state, B, labels, inv_C = _ball_and_buffer(seed, k, d)
    R, xi2 = state[_core.R_], state[_core.XI2]
    # explicit coordinates: the ball's centre [w, sqrt(xi2), 0...], point n [y x, 0.., c e_n]
    A = np.zeros((k + 1, d + 1 + k))
    A[0, :d], A[0, d] = w, np.sqrt(xi2)
    A[1:, :d] = labels[:, None] * B
    A[1:, d + 1:] = np.sqrt(inv_C) * np.eye(k)
    radii = np.r_[R, np.zeros(k)]
    exact = meb_of_balls_and_points(A @ A.T, radii, tol=1e-12)
    slsqp = slsqp_meb_balls_radius(A, radii)
    status, _ = _lookahead.enclose_buffer(w, state, B.copy(), labels, k, inv_C, 1e-10)
    assert status == CONVERGED
    assert state[_core.R_] == pytest.approx(exact.radius, rel=1e-9)
    assert state[_core.R_] == pytest.approx(slsqp, rel=1e-6)
    centre = exact.weights @ A
    np.testing.assert_allclose(w, centre[:d], rtol=1e-4, atol=1e-6)
    # xi2 is the squared norm of the e-parts of the new centre
    assert state[_core.XI2] == pytest.approx(centre[d:] @ centre[d:], rel=1e-4)
    assert state[_core.WNORM2] == pytest.approx(w @ w, rel=1e-12)
    # the new ball holds the old one and every buffered point
    c = np.r_[w, np.sqrt(state[_core.XI2])]
    assert np.linalg.norm(c[:d] - A[0, :d]) <= state[_core.R_] + 1e-9


@pytest.mark.parametrize("seed", range(5))
def test_frank_wolfe_solver_certifies_its_radius(seed):
    """Balls of several radii: the returned radius encloses every ball, lies within the
    tolerance of the exact solver's, and the lower bound is below both."""
    rng = np.random.default_rng(seed)
    m, d = 5 + 7 * seed, 4
    A = rng.normal(size=(m, d)) + 10.0 * (seed % 2)  # far from the origin every other seed
    radii = np.where(rng.random(m) < 0.3, rng.uniform(0.0, 1.0, m), 0.0)
    G = A @ A.T
    start = np.zeros(m)
    start[0] = 1.0
    lam, radius, lower, _, status = meb_of_balls_frank_wolfe(G, radii, start, 1e-9, 100 * m)
    exact = meb_of_balls_and_points(G, radii, tol=1e-12)
    assert status == CONVERGED
    assert lam.min() >= 0.0 and lam.sum() == pytest.approx(1.0, abs=1e-12)
    reach = np.linalg.norm(A - lam @ A, axis=1) + radii
    assert reach.max() == pytest.approx(radius, rel=1e-9)
    assert exact.radius * (1 - 1e-10) <= radius <= exact.radius * (1 + 1e-8)
    assert lower <= exact.radius * (1 + 1e-12)


def test_unconverged_frank_wolfe_hands_over_to_the_exact_solver():
    """With no step allowed the active-set solver answers (cold start), to its tolerance."""
    w, state, B, labels, inv_C = _ball_and_buffer(0, 12, 5)
    A = np.vstack([w, labels[:, None] * B])
    G = augmented_gram(A @ A.T, np.r_[state[_core.XI2], np.full(12, inv_C)])
    radii = np.r_[state[_core.R_], np.zeros(12)]
    start = np.zeros(13)
    start[0] = 1.0
    lam, radius, lower, _, status = meb_of_balls_frank_wolfe(G, radii, start, 1e-10, 0)
    exact = meb_of_balls_and_points(G, radii, tol=1e-10)
    assert status == CONVERGED
    assert radius == pytest.approx(exact.radius, rel=1e-12)
    np.testing.assert_allclose(lam, exact.weights, atol=1e-12)


_RECORDED = json.loads(RECORDED.read_text())


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_models_match_those_recorded_before_the_compiled_loop(name):
    """The same models as the Python-driven Algorithm 2 with its exact solver to 1e-8: the
    radius within that tolerance, the centre within its square root (a radius within
    (1 + tol) of the optimum puts the centre within about sqrt(2 tol) R of the optimal
    one), the same points buffered."""
    make, X, y, chunk = cases()[name]
    model = learn(make, X, y, chunk)
    before = _RECORDED[name]
    assert model.n_core_vectors_ == before["n_core_vectors"]
    assert model.radius_ == pytest.approx(before["radius"], rel=2e-8)
    coef = np.asarray(before["coef"])
    assert np.linalg.norm(model.coef_.ravel() - coef) <= 3e-4 * np.linalg.norm(coef)
    assert model.score(X, y) == pytest.approx(before["accuracy"], abs=2e-3)


def test_csr_distances_from_non_zeros_match_dense_rows():
    """A CSR stream (not centred) and the same rows dense with center=False learn the same
    model: only the rows' storage differs."""
    make, X, y, _ = cases()["sparse_L50_C2_chunks"]
    sparse = learn(lambda: StreamSVM(lookahead=50, C=2.0), X, y, 700)
    dense = learn(lambda: StreamSVM(lookahead=50, C=2.0, center=False), X.toarray(), y, 700)
    assert sp.issparse(X)
    assert sparse.n_core_vectors_ == dense.n_core_vectors_
    # the two paths round the rows' sums differently, so each ball's solve stops at another
    # step: equal within the solver's tolerance (radii within 1e-8; centres measured within
    # 1e-8, where tol bounds them by sqrt(2 tol) R, about 2e-4)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=0, atol=1e-6)
    assert sparse.radius_ == pytest.approx(dense.radius_, rel=1e-8)
