"""The Cascade SVM over shards against SVC(tol=1e-8) on the union of the shards."""

import numpy as np
import pytest
from sklearn.svm import SVC

from streamsvm import LASVM, IncrementalSVM
from streamsvm.datasets import make_synthetic_a
from streamsvm.kernels import Kernel
from streamsvm.sharded import ShardError, fit_sharded

from ._backends import ReversedBackend


def dual_objective(support_vectors, coef, kernel):
    """sum |c_i| - 1/2 c K c: the C-SVM dual at the expansion ``coef`` (= y_i alpha_i)."""
    gram = kernel.matrix(support_vectors)
    return np.abs(coef).sum() - 0.5 * coef @ gram @ coef


def assert_matches_svc(model, X, y, X_test):
    """Dual objective within 1e-4 (relative), decision values within 1e-2 of max |f|,
    predictions agreeing on at least 99.5% of the test rows."""
    svc = SVC(C=model.C, gamma=model.gamma_, tol=1e-8).fit(X, y)
    kernel = Kernel("rbf", gamma=model.gamma_)
    want = dual_objective(svc.support_vectors_, svc.dual_coef_[0], kernel)
    got = dual_objective(model.support_vectors_, model.dual_coef_[0], kernel)
    assert abs(got - want) <= 1e-4 * abs(want)
    f_svc, f_got = svc.decision_function(X_test), model.decision_function(X_test)
    assert np.max(np.abs(f_got - f_svc)) <= 1e-2 * np.max(np.abs(f_svc))
    assert np.mean(model.predict(X_test) == svc.predict(X_test)) >= 0.995


def parts_of(X, y, n_parts):
    bounds = np.linspace(0, X.shape[0], n_parts + 1).astype(int)
    return [(X[a:b], y[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def test_cascade_lasvm_reaches_the_svm_of_the_union():
    X, y = make_synthetic_a(4000, random_state=0)
    X_test, _ = make_synthetic_a(2000, random_state=1)
    timings = {}
    model = fit_sharded(LASVM(C=1.0, tau=1e-6, epochs=3), parts_of(X, y, 4),
                        backend="serial", timings=timings)
    assert timings["converged"] and timings["passes"] >= 2
    assert model.gamma == "scale" and model.n_seen_ == 4000
    assert_matches_svc(model, X, y, X_test)


def test_cascade_incremental_svm_reaches_the_svm_of_the_union():
    X, y = make_synthetic_a(600, random_state=5)
    X_test, _ = make_synthetic_a(1000, random_state=6)
    model = fit_sharded(IncrementalSVM(C=1.0), parts_of(X, y, 3), backend="serial")
    assert_matches_svc(model, X, y, X_test)


def test_cascade_does_not_depend_on_the_order_workers_finish_in():
    X, y = make_synthetic_a(1500, random_state=2)
    parts = parts_of(X, y, 3)
    estimator = LASVM(C=1.0, tau=1e-6, epochs=2)
    in_order = fit_sharded(estimator, parts, backend="serial")
    reversed_ = fit_sharded(estimator, parts, backend=ReversedBackend())
    np.testing.assert_array_equal(in_order.dual_coef_, reversed_.dual_coef_)
    np.testing.assert_array_equal(in_order.support_vectors_, reversed_.support_vectors_)


def test_cascade_takes_two_classes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 2))
    y = np.repeat([0, 1, 2], 30)
    with pytest.raises(ShardError, match="two classes"):
        fit_sharded(LASVM(), [(X[::2], y[::2]), (X[1::2], y[1::2])], backend="serial")
    with pytest.raises(ValueError, match="mixing_rounds applies to averaging"):
        fit_sharded(LASVM(), [(X, y)], backend="serial", mixing_rounds=2)


def test_equal_rows_of_the_data_stay_examples_of_their_own():
    """Rows are told apart by shard and position, not content: a data set holding repeated
    rows (as Adult does) gets the SVM of all its rows, repeats included."""
    X, y = make_synthetic_a(600, random_state=8)
    order = np.random.default_rng(0).permutation(900)
    X, y = np.vstack([X, X[:300]])[order], np.concatenate([y, y[:300]])[order]
    X_test, _ = make_synthetic_a(1000, random_state=9)
    model = fit_sharded(LASVM(C=1.0, tau=1e-6, epochs=3), parts_of(X, y, 3), backend="serial")
    assert_matches_svc(model, X, y, X_test)


def test_cascade_models_save_and_load(tmp_path):
    from streamsvm import load, save

    X, y = make_synthetic_a(600, random_state=3)
    model = fit_sharded(LASVM(epochs=2), parts_of(X, y, 2), backend="serial")
    save(model, tmp_path / "model.ssvm")
    loaded = load(tmp_path / "model.ssvm")
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert loaded.gamma == "scale" and loaded.gamma_ == model.gamma_
