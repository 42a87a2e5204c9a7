"""Blurred Ball SVM against the explicit-coordinates reference, and the cover's invariants."""

import math

import numpy as np
import pytest
import scipy.sparse as sp

import streamsvm
from streamsvm import BlurredBallSVM
from streamsvm.datasets import make_synthetic_a, make_synthetic_c

from tests import naive
from tests.qp.reference import slsqp_meb_points_sq_radius
from tests.test_contract import assert_same_state, snapshot

COVER_BOUND = (1 + math.sqrt(3)) / 2  # Agarwal & Sharathkumar (Chan & Pathak: < 1.22)


def data(n=150, seed=0, make=make_synthetic_c):
    X, y = make(n, random_state=seed)
    return X, y.astype(float)


def unit_rows(X):
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def point_centre_products(model, X, y):
    """F[i, B] = p_i · c_B for the augmented training points p_i (their own e_i included: a
    core point of B shares its e-part with c_B) and the binary learner's kept balls."""
    learner = model.learners_[0]
    Xp = model._prepare(X)
    yb = np.where(y == model.classes_[1], 1.0, -1.0)
    pool = slice(0, learner.n_pool)
    cross = learner.augmented_cross(Xp, yb, learner.pool_X[pool], learner.pool_y[pool])
    shared = np.zeros_like(cross)
    shared[learner.pool_index[pool], np.arange(learner.n_pool)] = learner.inv_C
    A = learner.coefficients()
    self_products = np.diag(learner.augmented_cross(Xp, yb, Xp, yb)) + learner.inv_C
    return (cross + shared) @ A.T, self_products


def coverage(model, X, y):
    """min over kept balls of ‖p_i − c_B‖ − (1+ε) r_B, for every training point i (≤ 0 when
    the point lies in the expansion of some kept ball)."""
    learner = model.learners_[0]
    F, kappa2 = point_centre_products(model, X, y)
    nb = learner.n_balls
    d2 = kappa2[:, None] - 2 * F + learner.cnorm2[:nb]
    excess = np.sqrt(np.maximum(d2, 0)) - (1 + model.epsilon) * learner.radius[:nb]
    return excess.min(axis=1)


# ---------------------------------------------------------------------------- reference
@pytest.mark.parametrize("C", [2.0, np.inf])
@pytest.mark.parametrize("lookahead", [0, 4])
@pytest.mark.parametrize("epsilon", [0.02, 0.3])
def test_matches_explicit_augmented_space(C, lookahead, epsilon):
    X, y = data(120, seed=3)
    balls, points = naive.blurred_ball_cover(unit_rows(X), y, C, epsilon, lookahead)
    model = BlurredBallSVM(epsilon=epsilon, C=C, lookahead=lookahead, center=False, tol=1e-13)
    model.fit(X, y)
    learner = model.learners_[0]
    assert learner.n_balls == len(balls)
    np.testing.assert_allclose(model.radii_, [r for _, _, r in balls], rtol=1e-8, atol=1e-12)
    for b, (core, centre, _) in enumerate(balls):
        s, e = learner.ball_ptr[b], learner.ball_ptr[b + 1]
        slots = learner.ball_slot[s:e]
        assert sorted(learner.pool_index[slots].tolist()) == sorted(core.tolist())
        # the centre rebuilt from the stored coefficients is the reference centre
        coef = np.zeros(X.shape[0])
        coef[learner.pool_index[slots]] = learner.ball_coef[s:e]
        np.testing.assert_allclose(coef @ points, centre, atol=1e-9)
        assert learner.cnorm2[b] == pytest.approx(centre @ centre, rel=1e-9, abs=1e-12)
    # the core points kept are exactly the union of the kept core sets
    union = sorted({int(k) for core, _, _ in balls for k in core})
    assert sorted(learner.pool_index[: learner.n_pool].tolist()) == union


def test_pool_gram_and_linear_centres_are_consistent():
    X, y = data(200, seed=5)
    model = BlurredBallSVM(epsilon=0.05, C=3.0, center=False).fit(X, y)
    learner = model.learners_[0]
    M = learner.n_pool
    P = np.hstack([learner.pool_y[:M, None] * learner.pool_X[:M], learner.pool_y[:M, None]])
    np.testing.assert_allclose(
        learner.pool_K[:M, :M], P @ P.T + np.eye(M) / 3.0, atol=1e-12
    )
    A = learner.coefficients()
    np.testing.assert_allclose(learner.W[: learner.n_balls], A @ P[:, :-1], atol=1e-12)
    np.testing.assert_allclose(learner.bias[: learner.n_balls], A @ P[:, -1], atol=1e-12)
    # every kept core point is referenced by some kept ball (the others were freed)
    assert np.all((A > 0).any(axis=0))
    np.testing.assert_allclose(A.sum(axis=1), 1.0)


def test_kernel_scan_matches_linear_scan():
    """The normalised degree-1 polynomial kernel is the linear kernel on unit rows: the
    kernel-row scan must build the same cover as the W-based linear scan."""
    X, y = data(200, seed=7)
    linear = BlurredBallSVM(epsilon=0.02, C=5.0, center=False).fit(X, y)
    poly = BlurredBallSVM(
        epsilon=0.02, C=5.0, center=False, kernel="poly", degree=1, gamma=1.0, coef0=0.0
    ).fit(X, y)
    assert poly.n_updates_ == linear.n_updates_
    np.testing.assert_allclose(poly.radii_, linear.radii_, rtol=1e-9)
    for classifier in ("blurred", "union", "last"):
        np.testing.assert_allclose(
            poly.decision_function_of(X, classifier),
            linear.decision_function_of(X, classifier),
            rtol=1e-8,
            atol=1e-10,
        )
    assert poly.n_kernel_evals_ > 0 and linear.n_kernel_evals_ == 0


# ---------------------------------------------------------------------------- invariants
@pytest.mark.parametrize(
    "params",
    [
        {"C": 2.0},
        {"C": np.inf},
        {"C": 2.0, "lookahead": 3},
        {"C": 10.0, "kernel": "rbf", "gamma": 0.5},
        {"C": np.inf, "kernel": "rbf", "gamma": 0.5, "lookahead": 5},
    ],
)
def test_every_seen_point_is_in_an_expanded_kept_ball(params):
    X, y = data(300, seed=11, make=make_synthetic_a)
    model = BlurredBallSVM(epsilon=0.05, center=False, **params).fit(X, y)
    assert coverage(model, X, y).max() <= 1e-9


def test_dropping_small_balls_never_uncovers_a_point():
    """Point by point with a large ε, the stream ordered outward from its first point so that
    the radii grow and balls are dropped often: after every step each point seen so far is
    still inside the (1+ε)-expansion of a kept ball."""
    X, y = data(160, seed=2, make=make_synthetic_a)
    Xn = unit_rows(X)
    order = np.argsort(np.linalg.norm(Xn - Xn[0], axis=1))
    X, y = X[order], y[order]
    model = BlurredBallSVM(epsilon=0.6, C=np.inf, center=False, lookahead=0)
    dropped_at = []
    for i in range(X.shape[0]):
        before = model.n_dropped_ if i else 0
        model.partial_fit(X[i : i + 1], y[i : i + 1], classes=[-1.0, 1.0])
        if model.n_dropped_ > before:
            dropped_at.append(i)
        assert coverage(model, X[: i + 1], y[: i + 1]).max() <= 1e-9, i
    assert len(dropped_at) >= 2  # the check above really saw balls dropped


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("epsilon", [0.01, 0.2])
def test_union_radius_within_the_cover_bound(seed, epsilon):
    X, y = data(250, seed=seed)
    rng = np.random.default_rng(seed)
    if seed == 2:  # an adversarial-looking order: sorted by the first feature
        order = np.argsort(X[:, 0])
    else:
        order = rng.permutation(X.shape[0])
    X, y = X[order], y[order]
    model = BlurredBallSVM(epsilon=epsilon, C=1.0, center=False).fit(X, y)
    ratio = model.approximation_ratio(X, y)
    assert ratio <= COVER_BOUND + epsilon
    # the MEB of the (1+ε)-expanded balls encloses every point, so it cannot beat R*
    assert ratio * (1 + epsilon) >= 1 - 1e-9


def test_exact_meb_radius_matches_slsqp():
    X, y = data(40, seed=4)
    model = BlurredBallSVM(epsilon=0.1, C=2.0, center=False).fit(X, y)
    Xn = unit_rows(X)
    P = np.hstack([y[:, None] * Xn, y[:, None], np.eye(40) / np.sqrt(2.0)])
    exact = math.sqrt(slsqp_meb_points_sq_radius(P @ P.T))
    assert model.approximation_ratio(X, y) == pytest.approx(
        model.union_radius_ / exact, rel=1e-6
    )


def test_newest_radius_grows_geometrically():
    """A point outside (1+ε)·B_u with B_u = MEB(K_u) forces MEB(K_u ∪ {p}) to have radius at
    least r_u·sqrt(1 + δ²), δ = ε(2+ε)/(2(1+ε)) (balance r² + t² = ((1+ε)r − t)²): the number of
    updates is bounded in ε, independently of the stream length."""
    X, y = data(400, seed=8, make=make_synthetic_a)
    epsilon = 0.05
    growth = math.sqrt(1 + (epsilon * (2 + epsilon) / (2 * (1 + epsilon))) ** 2)
    model = BlurredBallSVM(epsilon=epsilon, C=2.0, center=False, tol=1e-12)
    newest = []
    for i in range(X.shape[0]):
        updates = model.n_updates_ if i else 0
        model.partial_fit(X[i : i + 1], y[i : i + 1], classes=[-1.0, 1.0])
        if model.n_updates_ > updates:
            newest.append(model.radii_[-1])
    newest = np.array(newest)
    assert len(newest) >= 5
    ratios = newest[2:] / newest[1:-1]  # from the first ball of positive radius on
    assert np.all(ratios >= growth * (1 - 1e-9))


def test_single_ball_is_the_exact_meb_classifier():
    """With a lookahead longer than the stream the cover is one ball, the exact MEB of all
    points; Algorithm 2 then reduces to the MEB's hyperplane everywhere."""
    X, y = data(80, seed=6)
    Xt, _ = data(300, seed=60)
    C = 5.0
    model = BlurredBallSVM(epsilon=0.01, C=C, lookahead=1000, center=False, tol=1e-13).fit(X, y)
    assert model.n_balls_ == 1
    Xn = unit_rows(X)
    P = np.hstack([y[:, None] * Xn, y[:, None], np.eye(80) / np.sqrt(C)])
    exact_radius = math.sqrt(slsqp_meb_points_sq_radius(P @ P.T))
    assert model.radii_[0] == pytest.approx(exact_radius, rel=1e-6)
    balls, _ = naive.blurred_ball_cover(Xn, y, C, 0.01, 1000)
    centre = balls[0][1]
    w, b = centre[: X.shape[1]], centre[X.shape[1]]
    expected = (unit_rows(Xt) @ w + b) / np.linalg.norm(centre)
    for classifier in ("blurred", "union", "last"):
        np.testing.assert_allclose(
            model.decision_function_of(Xt, classifier), expected, rtol=1e-7, atol=1e-9
        )
    assert np.array_equal(model.predict(Xt), np.where(expected > 0, 1.0, -1.0))


def test_blurred_classifier_follows_definitions_1_and_2():
    """Algorithm 2 recomputed from the kept centres in explicit coordinates."""
    X, y = data(300, seed=9)
    Xt, _ = data(200, seed=90)
    model = BlurredBallSVM(epsilon=0.02, C=np.inf, center=False, classifier="blurred").fit(X, y)
    learner = model.learners_[0]
    nb = learner.n_balls
    assert nb >= 2
    C_feat = np.hstack([learner.W[:nb], learner.bias[:nb, None]])  # feature parts of c_B
    norms = np.sqrt(learner.cnorm2[:nb])  # (C = inf: no e-part)
    P = np.hstack([unit_rows(Xt), np.ones((len(Xt), 1))])  # p = phi(x, +1)
    expected = []
    for p in P:
        def score(q):
            inside = [(q - c) @ c >= 0 for c in C_feat]
            return sum(q @ c / n for c, n, yes in zip(C_feat, norms, inside, strict=True) if yes)
        plus, minus = score(p), score(-p)
        expected.append(plus - minus if plus or minus else np.mean(C_feat @ p / norms))
    np.testing.assert_allclose(model.decision_function(Xt), expected, rtol=1e-9, atol=1e-12)


def test_sparse_input_builds_the_same_cover():
    X, y = data(200, seed=12)
    X[np.abs(X) < 0.5] = 0.0
    dense = BlurredBallSVM(epsilon=0.02, C=3.0, center=False, lookahead=3).fit(X, y)
    sparse = BlurredBallSVM(epsilon=0.02, C=3.0, center=False, lookahead=3).fit(
        sp.csr_matrix(X), y
    )
    np.testing.assert_allclose(dense.radii_, sparse.radii_)
    np.testing.assert_allclose(dense.decision_function(X), sparse.decision_function(X))


def test_save_load_keeps_the_cover_and_resumes(tmp_path):
    X, y = data(300, seed=13)
    model = BlurredBallSVM(epsilon=0.02, C=3.0, lookahead=4).partial_fit(X[:150], y[:150])
    model.decision_function_of(X, "union")  # fills the transient union cache
    streamsvm.save(model, tmp_path / "m.npz")
    resumed = streamsvm.load(tmp_path / "m.npz")
    for m in (model, resumed):
        m.partial_fit(X[150:], y[150:]).finish()
    np.testing.assert_array_equal(model.decision_function_of(X, "union"),
                                  resumed.decision_function_of(X, "union"))
    assert model.n_core_points_ == resumed.n_core_points_


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "params, message",
    [
        ({"epsilon": 0.0}, "parameter epsilon="),
        ({"epsilon": 2.0}, "parameter epsilon="),
        ({"epsilon": "small"}, "parameter epsilon="),
        ({"C": 0.0}, "parameter C="),
        ({"C": -np.inf}, "parameter C="),
        ({"lookahead": -1}, "parameter lookahead="),
        ({"lookahead": 2.5}, "parameter lookahead="),
        ({"classifier": "majority"}, "parameter classifier="),
        ({"tol": 0.0}, "parameter tol="),
        ({"center": "yes"}, "parameter center="),
        ({"kernel": "cosine"}, "parameter kernel="),
        ({"kernel": lambda a, b: a @ b.T}, "parameter kernel="),
        ({"kernel": "rbf", "gamma": -1.0}, "parameter gamma="),
    ],
)
def test_bad_parameters_are_named(params, message):
    X, y = data(20)
    with pytest.raises(ValueError, match=message):
        BlurredBallSVM(**params).fit(X, y)


def test_bad_calls_to_the_cover_methods_leave_the_model_unchanged():
    X, y = data(100)
    model = BlurredBallSVM(epsilon=0.05, C=2.0).fit(X, y)
    before = snapshot(model)
    with pytest.raises(ValueError, match="features"):
        model.approximation_ratio(X[:, :3], y)
    with pytest.raises(ValueError, match="labels"):
        model.approximation_ratio(X, y[:-1])
    with pytest.raises(ValueError, match="not seen"):
        model.approximation_ratio(X, np.where(y > 0, 7.0, -1.0))
    with pytest.raises(ValueError, match="at most 5000"):
        model.approximation_ratio(np.zeros((5001, X.shape[1])), np.ones(5001))
    with pytest.raises(ValueError, match="classifier"):
        model.decision_function_of(X, "vote")
    with pytest.raises(ValueError, match="NaN"):
        model.decision_function_of(np.full_like(X, np.nan), "last")
    assert_same_state(before, snapshot(model))


def test_attributes_describe_the_cover():
    X, y = data(500, seed=14)
    model = BlurredBallSVM(epsilon=0.01, C=1.0).fit(X, y)
    learner = model.learners_[0]
    assert model.n_balls_ == learner.n_balls == len(model.radii_) == len(model.core_set_sizes_)
    assert model.n_core_points_ <= model.core_set_sizes_.sum()
    assert model.n_updates_ == model.n_balls_ + model.n_dropped_
    assert np.all(model.radii_ >= model.epsilon / 4 * model.radii_.max())
    assert model.union_radius_ >= model.radii_.max() * (1 - 1e-9)


def test_multiclass_gives_one_cover_per_class():
    X, y = make_synthetic_a(300, random_state=0)
    labels = np.where(X[:, 0] > 1.0, "c", np.where(y > 0, "a", "b"))
    model = BlurredBallSVM(epsilon=0.02, C=10.0).fit(X, labels)
    assert model.n_balls_.shape == (3,)
    assert len(model.radii_) == 3
    assert model.decision_function(X).shape == (300, 3)


def test_default_finite_C_keeps_learning_where_the_hard_margin_stops():
    """Issue 18: with C = ∞ (the previous default) the balls of data that are not separable
    shrink towards the origin and the cover stops learning; on a 20-d half-space with 10% of
    the training labels flipped the defaults (C = 3, lookahead 10) are clearly more accurate,
    on average over three streams, than the hard margin with lookahead 0."""
    default, hard = [], []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        direction = rng.normal(size=20)
        X = rng.normal(size=(6000, 20))
        y = np.where(X @ direction > 0, 1, -1)
        noisy = np.where(rng.random(4000) < 0.1, -y[:4000], y[:4000])
        default.append(BlurredBallSVM().fit(X[:4000], noisy).score(X[4000:], y[4000:]))
        hard.append(BlurredBallSVM(C=np.inf, lookahead=0).fit(X[:4000], noisy)
                    .score(X[4000:], y[4000:]))
    assert BlurredBallSVM().C == 3.0 and BlurredBallSVM().lookahead == 10
    assert min(default) > 0.75
    assert np.mean(default) > np.mean(hard) + 0.1
