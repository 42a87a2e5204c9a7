"""Kernelised StreamSVM (Sec. 4.2) against a from-scratch reference, and its invariants."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import pairwise_kernels

from streamsvm import StreamSVM
from streamsvm.datasets import make_checkerboard, make_synthetic_c

from tests import naive


def raw_kernel(kind, **params):
    def k(a, b):
        return float(pairwise_kernels(a[None], b[None], metric=kind, **params)[0, 0])

    return k


@pytest.mark.parametrize("C", [0.5, 10.0])
def test_rbf_matches_reference(C):
    X, y = make_checkerboard(70, random_state=1)
    y = y.astype(float)
    model = StreamSVM(kernel="rbf", gamma=0.7, C=C, center=False, fit_intercept=False,
                      lookahead=1).fit(X, y)
    beta, radius = naive.streamsvm_kernel_algorithm1(X, y, C, raw_kernel("rbf", gamma=0.7))
    learner = model.learners_[0]
    n = learner.n_stored
    assert n == np.count_nonzero(beta)
    np.testing.assert_allclose(learner.alpha[:n], (beta * y)[beta > 0], rtol=1e-10)
    assert model.radius_ == pytest.approx(radius, rel=1e-10)
    # invariants: convex weights, xi2 = sum beta^2 / C
    assert np.abs(learner.alpha[:n]).sum() == pytest.approx(1.0)
    assert learner.state[1] == pytest.approx(np.sum(beta**2) / C)
    expected = pairwise_kernels(X, X[beta > 0], metric="rbf", gamma=0.7) @ (beta * y)[beta > 0]
    np.testing.assert_allclose(model.decision_function(X), expected, rtol=1e-10, atol=1e-12)


def test_intercept_is_the_kernel_plus_one():
    """With an intercept the feature map is [phi(x); 1]: the reference run with k + 1."""
    X, y = make_checkerboard(80, random_state=5)
    y = y.astype(float)
    rbf = raw_kernel("rbf", gamma=0.7)
    model = StreamSVM(kernel="rbf", gamma=0.7, C=3.0, center=False, lookahead=1).fit(X, y)
    beta, radius = naive.streamsvm_kernel_algorithm1(X, y, 3.0, lambda a, b: rbf(a, b) + 1.0)
    learner = model.learners_[0]
    n = learner.n_stored
    np.testing.assert_allclose(learner.alpha[:n], (beta * y)[beta > 0], rtol=1e-10)
    assert model.radius_ == pytest.approx(radius, rel=1e-10)
    support = beta > 0
    kernel = pairwise_kernels(X, X[support], metric="rbf", gamma=0.7) + 1.0
    np.testing.assert_allclose(model.decision_function(X), kernel @ (beta * y)[support])


def test_ball_encloses_every_point_in_kernel_space():
    X, y = make_synthetic_c(150, random_state=2)
    C, gamma = 2.0, 0.3
    model = StreamSVM(kernel="rbf", gamma=gamma, C=C, center=False, fit_intercept=False).fit(X, y)
    learner = model.learners_[0]
    n = learner.n_stored
    core, alpha = learner.core[:n], learner.alpha[:n]
    K = pairwise_kernels(X, core, metric="rbf", gamma=gamma)
    w_norm2 = alpha @ pairwise_kernels(core, core, metric="rbf", gamma=gamma) @ alpha
    # beta_n of each example: its weight if it is a core vector, else 0
    beta = np.zeros(len(X))
    for m in range(n):
        beta[np.flatnonzero((X == core[m]).all(axis=1))[0]] = abs(alpha[m])
    xi2 = np.sum(alpha**2) / C
    d2 = w_norm2 - 2 * y * (K @ alpha) + 1.0 + xi2 - 2 * beta / C + 1 / C
    assert np.all(np.sqrt(d2) <= model.radius_ * (1 + 1e-9))
    assert learner.state[2] == pytest.approx(w_norm2)  # the incremental ||w||^2


def test_linear_kernel_path_equals_explicit_weights():
    """The kernelised loop with a linear kernel is Algorithm 1 with an explicit w."""
    from streamsvm.kernels import LINEAR
    from streamsvm.meb.streamsvm import _KernelStreamSVMLearner, _StreamSVMLearner

    X, y = make_synthetic_c(200, random_state=3)
    y = y.astype(float)
    X = X / np.linalg.norm(X, axis=1, keepdims=True)
    rng = np.random.default_rng(0)
    explicit = _StreamSVMLearner(X.shape[1], rng, C=3.0, lookahead=1, tol=1e-8)
    kernelised = _KernelStreamSVMLearner(
        X.shape[1], rng, C=3.0, jit_kernel=(LINEAR, 1.0, 1, 0.0, False), lookahead=1, tol=1e-8
    )
    explicit.partial_fit(X, y)
    kernelised.partial_fit(X, y)
    np.testing.assert_allclose(kernelised.decision_function(X), explicit.decision_function(X))
    np.testing.assert_allclose(kernelised.state, explicit.state, rtol=1e-10)
    assert kernelised.n_kernel_evals > 0


def test_kernel_parameters_are_validated():
    X, y = make_checkerboard(40, random_state=0)
    with pytest.raises(ValueError, match="parameter gamma="):
        StreamSVM(kernel="rbf", gamma=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="parameter kernel="):
        StreamSVM(kernel="cosine").fit(X, y)
    with pytest.raises(ValueError, match="parameter lookahead="):
        StreamSVM(kernel="rbf", lookahead=0).fit(X, y)


def _exact_meb_radius_of_gram(gram):
    """The dual of the minimum enclosing ball, max Σ λ_i G_ii − λᵀGλ on the simplex, solved
    by SLSQP (independent of the library's QP toolkit)."""
    from scipy.optimize import minimize

    n, diag = len(gram), np.diag(gram)
    result = minimize(
        lambda lam: -(lam @ diag - lam @ gram @ lam),
        np.full(n, 1.0 / n),
        jac=lambda lam: -(diag - 2 * gram @ lam),
        bounds=[(0, 1)] * n,
        constraints=[{"type": "eq", "fun": lambda lam: lam.sum() - 1}],
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 1000},
    )
    return np.sqrt(-result.fun)


def _kernel_distances(model, X, y, C, gamma):
    """Distance of every augmented point [y phi(x); C^{-1/2} e] to the final centre, with
    ``beta`` (a core vector's weight, else 0) recovered from the storage."""
    learner = model.learners_[0]
    n = learner.n_stored
    core, alpha = learner.core[:n], learner.alpha[:n]
    w_norm2 = alpha @ pairwise_kernels(core, core, metric="rbf", gamma=gamma) @ alpha
    f = pairwise_kernels(X, core, metric="rbf", gamma=gamma) @ alpha
    beta = np.zeros(len(X))
    for m in range(n):
        beta[np.flatnonzero((X == core[m]).all(axis=1))[0]] = abs(alpha[m])
    xi2 = learner.state[1]
    return np.sqrt(np.maximum(w_norm2 - 2 * y * f + 1.0 + xi2 - 2 * beta / C + 1 / C, 0.0))


@pytest.mark.parametrize("lookahead", [3, 10])
def test_kernel_lookahead_ball_encloses_every_point(lookahead):
    X, y = make_synthetic_c(160, random_state=6)
    y = y.astype(float)
    C, gamma = 2.0, 0.4
    model = StreamSVM(
        kernel="rbf", gamma=gamma, C=C, lookahead=lookahead, center=False, fit_intercept=False
    )
    model.partial_fit(X[:70], y[:70], classes=[-1, 1]).partial_fit(X[70:], y[70:]).finish()
    learner = model.learners_[0]
    assert learner.n_buffered == 0
    assert np.abs(learner.alpha[: learner.n_stored]).sum() == pytest.approx(1.0, abs=1e-8)
    distances = _kernel_distances(model, X, y, C, gamma)
    assert np.all(distances <= model.radius_ * (1 + 1e-6))
    # ||w||^2 kept by the Gram updates equals the one recomputed from the core vectors
    n = learner.n_stored
    alpha, core = learner.alpha[:n], learner.core[:n]
    w_norm2 = alpha @ pairwise_kernels(core, core, metric="rbf", gamma=gamma) @ alpha
    assert learner.state[2] == pytest.approx(w_norm2, rel=1e-8)


def test_kernel_lookahead_of_the_whole_stream_is_the_exact_meb():
    X, y = make_checkerboard(50, random_state=3)
    y = y.astype(float)
    C, gamma = 1e4, 0.8  # a large C: a sparse ball, so dropping weightless points shows
    model = StreamSVM(
        kernel="rbf", gamma=gamma, C=C, lookahead=len(X), center=False, fit_intercept=False
    ).fit(X, y)
    gram = np.outer(y, y) * pairwise_kernels(X, metric="rbf", gamma=gamma) + np.eye(len(X)) / C
    assert model.radius_ == pytest.approx(_exact_meb_radius_of_gram(gram), rel=1e-6)
    # only points with weight are stored: the support of the exact ball
    assert model.learners_[0].n_stored < len(X)


def test_kernel_lookahead_with_linear_kernel_equals_linear_lookahead():
    """Algorithm 2 in Gram form with a linear kernel is Algorithm 2 with an explicit w."""
    from streamsvm.kernels import LINEAR
    from streamsvm.meb.streamsvm import _KernelStreamSVMLearner, _StreamSVMLearner

    X, y = make_synthetic_c(200, random_state=4)
    y = y.astype(float)
    X = X / np.linalg.norm(X, axis=1, keepdims=True)
    rng = np.random.default_rng(0)
    explicit = _StreamSVMLearner(X.shape[1], rng, C=3.0, lookahead=7, tol=1e-10)
    kernelised = _KernelStreamSVMLearner(
        X.shape[1], rng, C=3.0, jit_kernel=(LINEAR, 1.0, 1, 0.0, False), lookahead=7, tol=1e-10
    )
    for learner in (explicit, kernelised):
        learner.partial_fit(X[:90], y[:90])
        learner.partial_fit(X[90:], y[90:])
        learner.finish()
    np.testing.assert_allclose(
        kernelised.decision_function(X), explicit.decision_function(X), rtol=1e-6, atol=1e-9
    )
    assert kernelised.radius == pytest.approx(explicit.radius, rel=1e-7)
    assert kernelised.n_updates == explicit.n_updates
