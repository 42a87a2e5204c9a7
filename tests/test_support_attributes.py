"""scikit-learn's SVC attributes on the kernel models (streamsvm.base.support): shapes and meaning
as SVC's, checked against each model's own decision function and against SVC itself where
both find the same solution (the exact incremental SVM; LASVM with its finishing step)."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from streamsvm.base.support import SupportVectorsMixin
from streamsvm.registry import available_estimators

ESTIMATORS = {name: cls for name, cls in available_estimators().items()
              if issubclass(cls, SupportVectorsMixin)}
WITH_POSITIONS = {"IncrementalSVM", "LASVM", "LASVMG", "LASVMNC", "LASVMI", "FullSVM"}


def test_every_kernel_expansion_has_the_attributes():
    assert set(ESTIMATORS) == {"LASVM", "LASVMG", "LASVMNC", "LASVMI", "FullSVM", "ActiveSVM",
                               "IncrementalSVM", "TwinVectorMachine", "RandomBudgetSVM",
                               "Forgetron", "BudgetPerceptron"}


def _problem(n_classes, n=150, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = rng.normal(size=(n, 2)) + 1.5 * np.eye(n_classes)[y][:, :2] + (y == 2)[:, None] * -1.5
    return X, y


def _model(name):
    cls = ESTIMATORS[name]
    params = cls().get_params()
    kwargs = {"gamma": 0.5}
    if "budget" in params:
        kwargs["budget"] = 30
    if "random_state" in params:
        kwargs["random_state"] = 0
    return cls(**kwargs)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_attributes_reproduce_the_decision_function(name, n_classes):
    X, y = _problem(n_classes)
    model = _model(name)
    with pytest.raises(NotFittedError):
        model.support_vectors_  # noqa: B018
    model.fit(X, y)
    sv, dual, b, n_support = (model.support_vectors_, model.dual_coef_, model.intercept_,
                              model.n_support_)
    rows = 1 if n_classes == 2 else n_classes
    assert dual.shape == (rows, sv.shape[0]) and b.shape == (rows,)
    assert n_support.dtype == np.int32 and n_support.shape == (n_classes,)
    assert n_support.sum() == sv.shape[0] > 0
    decision = model.decision_function(X)
    expected = rbf_kernel(X, sv, gamma=model.gamma_) @ dual.T + b
    np.testing.assert_allclose(expected[:, 0] if rows == 1 else expected, decision,
                               rtol=1e-9, atol=1e-9)
    if n_classes == 2:  # SVC's order: the vectors of classes_[0] (negative) first
        assert np.all(dual[0, : n_support[0]] < 0) and np.all(dual[0, n_support[0] :] > 0)
    else:  # one block per class, nonzero only on its own row
        edges = np.concatenate([[0], np.cumsum(n_support)])
        for k in range(n_classes):
            outside = np.delete(dual[k], np.arange(edges[k], edges[k + 1]))
            assert not outside.any()
    if name in WITH_POSITIONS:
        np.testing.assert_array_equal(X[model.support_], sv)
    else:
        with pytest.raises(AttributeError, match="has no support_: "):
            model.support_  # noqa: B018


def _svc_order(support, dual):
    order = np.argsort(support)
    return support[order], dual[0, order]


def test_incremental_svm_matches_svc_exactly():
    from streamsvm import IncrementalSVM

    X, y = _problem(2, n=80, seed=3)
    ours = IncrementalSVM(C=2.0, gamma=0.5).fit(X, y)
    svc = SVC(C=2.0, gamma=0.5, tol=1e-10).fit(X, y)
    support, dual = _svc_order(ours.support_, ours.dual_coef_)
    svc_support, svc_dual = _svc_order(svc.support_, svc.dual_coef_)
    np.testing.assert_array_equal(support, svc_support)
    np.testing.assert_allclose(dual, svc_dual, atol=1e-5)  # SVC stops at tol
    np.testing.assert_allclose(ours.intercept_, svc.intercept_, atol=1e-5)
    np.testing.assert_array_equal(ours.n_support_, svc.n_support_)
    np.testing.assert_allclose(ours.support_vectors_, X[ours.support_])


def test_lasvm_with_finishing_matches_svc():
    """LASVM x3 (three epochs, then the finishing step to tau = 1e-4) finds SVC's solution:
    the same support set, per-class counts, coefficients and b within the tolerance. (One
    epoch does not: examples dropped from the expansion are not revisited.)"""
    from streamsvm import LASVM

    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 200)
    X = rng.normal(size=(200, 2))
    X[:, 0] += 1.5 * (2 * y - 1)
    ours = LASVM(C=2.0, gamma=0.5, tau=1e-4, epochs=3, shuffle=True, random_state=0).fit(X, y)
    svc = SVC(C=2.0, gamma=0.5, tol=1e-6).fit(X, y)
    support, dual = _svc_order(ours.support_, ours.dual_coef_)
    svc_support, svc_dual = _svc_order(svc.support_, svc.dual_coef_)
    np.testing.assert_array_equal(support, svc_support)
    np.testing.assert_array_equal(ours.n_support_, svc.n_support_)
    np.testing.assert_allclose(dual, svc_dual, atol=5e-3)
    np.testing.assert_allclose(ours.intercept_, svc.intercept_, atol=1e-3)


@pytest.mark.parametrize("save", [False, True])
def test_lasvm_support_positions_survive_a_stream_and_new_classes(save, tmp_path):
    """support_ counts rows from the start of the stream, through chunks, the compaction of
    the store, a class first seen mid-stream, and a saved file."""
    import streamsvm

    X, y = _problem(3, n=300, seed=2)
    y = np.where(np.arange(300) < 100, np.minimum(y, 1), y)  # class 2 appears after row 100
    model = streamsvm.LASVM(gamma=0.5)
    for start in range(0, 300, 50):
        model.partial_fit(X[start : start + 50], y[start : start + 50])
        if save and start == 150:
            streamsvm.save(model, tmp_path / "model.npz")
            model = streamsvm.load(tmp_path / "model.npz")
    np.testing.assert_array_equal(X[model.support_], model.support_vectors_)
    assert model.support_.max() >= 250  # positions past the saved part


def test_counters_are_the_learners_counts_summed():
    """``summed_over_learners``: a one-vs-rest model's counter is its learners' sum (each
    learner read directly here), and asking an unfitted model refuses."""
    from streamsvm import BlurredBallSVM
    from streamsvm.budget import _state

    X, y = _problem(3)
    cases = [
        (_model("Forgetron"), {"n_updates_": lambda lr: lr.n_updates}),
        (_model("TwinVectorMachine"), {"n_twins_": lambda lr: lr.counter(_state.T_NTW),
                                       "n_merges_": lambda lr: lr.counter(_state.T_MERGE)}),
        (_model("IncrementalSVM"), {"n_error_": lambda lr: lr.machine.sets()[1].size,
                                    "n_kernel_evals_": lambda lr: lr.machine.n_kernel_evals}),
        (BlurredBallSVM(), {"n_core_points_": lambda lr: lr.n_pool}),
    ]
    for model, counters in cases:
        with pytest.raises(NotFittedError):
            getattr(model, next(iter(counters)))
        model.fit(X, y)
        assert len(model.learners_) == 3
        for name, read in counters.items():
            value = getattr(model, name)
            assert type(value) is int and value > 0, (type(model).__name__, name)
            assert value == sum(int(read(lr)) for lr in model.learners_)
