"""Budget baselines of the TVM paper against written-out references."""

import numpy as np
import pytest
from sklearn.svm import SVC

from streamsvm import BudgetPerceptron, Forgetron, RandomBudgetSVM
from streamsvm.budget import _state as state
from streamsvm.datasets import make_noisy_checkerboard

from tests import naive

GAMMA = 1.35


@pytest.fixture(scope="module")
def stream():
    return make_noisy_checkerboard(600, random_state=3, standardize=True)


def test_forgetron_matches_the_reference(stream):
    X, y = stream
    model = Forgetron(budget=15, gamma=GAMMA).fit(X, y)
    V, coef = naive.self_tuned_forgetron(X, np.where(y == 1, 1.0, -1.0), 15, GAMMA)
    learner = model.learners_[0]
    n = learner._n()
    ours = {tuple(v): c for v, c in zip(learner.V[:n], learner._coefficients(), strict=True)}
    assert set(ours) == {tuple(v) for v in V}
    for v, c in zip(V, coef, strict=True):
        assert ours[tuple(v)] == pytest.approx(c, rel=1e-4, abs=1e-8)


def test_forgetron_gamma_factor_multiplies_a_resolved_gamma_only(stream):
    """``gamma_factor`` scales 'scale' and 'auto', not a number; with 'scale' the model is the
    reference's at gamma = factor x 'scale'."""
    from streamsvm.kernels import resolve_gamma

    X, y = stream
    scale = resolve_gamma("scale", X)
    model = Forgetron(budget=15).fit(X, y)
    assert model.gamma_ == pytest.approx(4.0 * scale, rel=1e-15)
    assert Forgetron(budget=15, gamma="auto", gamma_factor=2.0).fit(X, y).gamma_ == 1.0
    assert Forgetron(budget=15, gamma=GAMMA, gamma_factor=3.0).fit(X, y).gamma_ == GAMMA
    V, coef = naive.self_tuned_forgetron(X, np.where(y == 1, 1.0, -1.0), 15, model.gamma_)
    learner = model.learners_[0]
    assert {tuple(v) for v in learner.V[:learner._n()]} == {tuple(v) for v in V}
    with pytest.raises(ValueError, match="gamma_factor"):
        Forgetron(gamma_factor=0.0).fit(X, y)


@pytest.mark.parametrize("removal", ["margin", "errors", "window_errors"])
def test_budget_perceptron_matches_the_reference(stream, removal):
    X, y = stream
    model = BudgetPerceptron(budget=12, gamma=GAMMA, removal=removal, window=30).fit(X, y)
    reference = naive.budget_kernel_perceptron(X, np.where(y == 1, 1.0, -1.0), 12, GAMMA,
                                               removal=removal, window=30)
    learner = model.learners_[0]
    n = learner._n()
    ours = {tuple(v): c for v, c in zip(learner.V[:n], learner._coefficients(), strict=True)}
    assert ours == reference


def test_random_is_the_exact_svm_on_a_uniform_reservoir(stream):
    X, y = stream
    model = RandomBudgetSVM(budget=40, C=10.0, gamma=GAMMA, random_state=0)
    for start in range(0, 600, 100):
        model.partial_fit(X[start : start + 100], y[start : start + 100], classes=[-1, 1])
    machine = model.learners_[0].machine
    stored = machine.m[state.M_X][: machine.n]
    assert machine.n == 40
    rows = [int(np.flatnonzero((X == v).all(axis=1))[0]) for v in stored]
    svc = SVC(C=10.0, gamma=GAMMA, tol=1e-12).fit(X[rows], y[rows])
    np.testing.assert_allclose(model.decision_function(X), svc.decision_function(X), atol=1e-4)


def test_reservoir_is_uniform():
    """Algorithm R keeps every stream position with probability B / N."""
    X = np.arange(200, dtype=float)[:, None]
    y = np.where(np.arange(200) % 2 == 0, 1, -1)
    counts = np.zeros(200)
    for seed in range(60):
        model = RandomBudgetSVM(budget=20, C=1.0, kernel="linear", random_state=seed).fit(X, y)
        machine = model.learners_[0].machine
        counts[machine.m[state.M_X][: machine.n, 0].astype(int)] += 1
    first, last = counts[:100].mean(), counts[100:].mean()
    assert abs(first - last) < 0.25 * 60 * 20 / 200 + 1  # both near 6 per position
    assert counts.sum() == 60 * 20


@pytest.mark.parametrize("cls", [Forgetron, BudgetPerceptron, RandomBudgetSVM])
def test_budget_respected_and_memory_flat(cls, stream):
    X, y = stream
    model = cls(budget=10).partial_fit(X[:100], y[:100], classes=[-1, 1])
    small = model.model_nbytes_
    model.partial_fit(X[100:], y[100:])
    assert model.n_support_.sum() <= 10
    assert model.model_nbytes_ == small


@pytest.mark.parametrize("cls", [Forgetron, BudgetPerceptron, RandomBudgetSVM])
def test_bad_budget(cls):
    with pytest.raises(ValueError, match="parameter budget=0 is invalid"):
        cls(budget=0).fit(np.arange(8.0).reshape(4, 2), [0, 1, 0, 1])


def test_error_removal_does_not_fill_the_budget_with_label_noise():
    """The margin rule (Crammer, Kandola & Singer) keeps the stored examples that the
    others misclassify, so on overlapping classes the budget fills with the other class's
    outliers and the model does no better than chance (measured on Banana: balanced
    accuracy 0.50); on this seeded stream the error rule stays within 5 points of the
    budgeted SVM on a random sample (it is not always so close: on heavier overlap it
    falls further behind, see the changelog)."""
    from sklearn.metrics import balanced_accuracy_score

    rng = np.random.default_rng(0)
    y = np.where(rng.random(6000) < 0.5, 1, -1)
    X = rng.normal(size=(6000, 2)) + 1.0 * y[:, None]
    Xt, yt = X[4000:], y[4000:]
    margin = BudgetPerceptron(budget=50, gamma=0.5, removal="margin").fit(X[:1000], y[:1000])
    errors = BudgetPerceptron(budget=50, gamma=0.5).fit(X[:1000], y[:1000])
    random = RandomBudgetSVM(budget=50, C=1.0, gamma=0.5, random_state=0).fit(X[:1000],
                                                                                y[:1000])
    best = balanced_accuracy_score(yt, random.predict(Xt))
    assert balanced_accuracy_score(yt, errors.predict(Xt)) > best - 0.05
    assert balanced_accuracy_score(yt, margin.predict(Xt)) < best - 0.15


def test_window_errors_keep_a_long_noisy_stream_near_the_bayes_rate():
    """StreamSVM's Synthetic A (two Gaussians, Bayes and best linear accuracy 96.5%), one
    pass over 100,000 rows, B = 100: the error rule (Weston, Bordes & Bottou) judges a
    removal by the stored examples, which are the stream's mistakes; once label noise fills
    the budget it keeps noise that explains other noise and the model swings (measured:
    72-96% from one 5,000 rows to the next). Counting the errors on the last rows of the
    stream keeps every snapshot within 4 points of the Bayes rate."""
    from streamsvm.datasets import make_synthetic_a

    X, y = make_synthetic_a(100_000, random_state=0)
    Xt, yt = make_synthetic_a(4000, random_state=1)

    def snapshots(model):
        accuracies = []
        for start in range(0, X.shape[0], 5000):
            model.partial_fit(X[start : start + 5000], y[start : start + 5000], classes=[-1, 1])
            accuracies.append(model.score(Xt, yt))
        return np.array(accuracies[2:])  # from 15,000 rows on

    window = snapshots(BudgetPerceptron(budget=100, gamma=0.5))
    errors = snapshots(BudgetPerceptron(budget=100, gamma=0.5, removal="errors"))
    assert window.min() > 0.925
    assert errors.min() < 0.85
