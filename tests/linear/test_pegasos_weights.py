"""Pegasos' class and sample weights (the weighted hinge loss, as scikit-learn's
SGDClassifier weighs it) against a slow NumPy implementation of the weighted block steps."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification

from streamsvm import CollapseWarning, Pegasos


def reference_pegasos(X, y_pm, weights, lam, k, project=True):
    """Pegasos with blocks of ``k`` rows, bias as a constant feature 1, each violating row's
    step multiplied by its weight; the last incomplete block is one smaller block."""
    Xb = np.hstack([X, np.ones((X.shape[0], 1))])
    w = np.zeros(Xb.shape[1])
    t = 0
    for start in range(0, X.shape[0], k):
        rows = slice(start, min(start + k, X.shape[0]))
        size = rows.stop - rows.start
        violating = y_pm[rows] * (Xb[rows] @ w) < 1.0
        t += 1
        eta = 1.0 / (lam * t)
        w = w * (1.0 - 1.0 / t)
        step = (weights[rows] * y_pm[rows] * violating) @ Xb[rows]
        w = w + eta / size * step
        norm = np.linalg.norm(w)
        if project and norm > 1.0 / np.sqrt(lam):
            w *= (1.0 / np.sqrt(lam)) / norm
    return w[:-1], w[-1]


def _data(seed=0, n=900):
    X, y = make_classification(n, n_features=6, weights=[0.8], random_state=seed)
    return X, np.where(y == 1, "yes", "no")


def _check(model, X, y, weights, lam, k):
    y_pm = np.where(y == model.classes_[1], 1.0, -1.0)
    coef, bias = reference_pegasos(X, y_pm, weights, lam, k)
    np.testing.assert_allclose(model.coef_[0], coef, rtol=1e-9, atol=1e-12)
    assert model.intercept_[0] == pytest.approx(bias, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("block_size", [1, 7])
@pytest.mark.parametrize("sparse", [False, True])
def test_sample_and_class_weights_in_fit_match_the_reference(block_size, sparse):
    X, y = _data()
    rng = np.random.default_rng(block_size)
    sample_weight = rng.uniform(0.0, 3.0, size=len(y))
    sample_weight[::13] = 0.0  # a weight of 0 still counts as a step, as in SGD
    class_weight = {"no": 0.5, "yes": 4.0}
    model = Pegasos(alpha=0.05, block_size=block_size, class_weight=class_weight,
                    average=False)  # the reference keeps the last iterate
    model.fit(sp.csr_matrix(X) if sparse else X, y, sample_weight=sample_weight)
    weights = sample_weight * np.where(y == "yes", 4.0, 0.5)
    _check(model, X, y, weights, 0.05, block_size)


def test_balanced_weights_come_from_the_running_counts():
    """partial_fit: each chunk is weighted n / (2 n_c) with the labels counted up to and
    including it; blocks span the chunks (weights of the pending rows kept)."""
    X, y = _data(seed=1)
    model = Pegasos(alpha=0.02, block_size=4, class_weight="balanced", average=False)
    weights = np.empty(len(y))
    counts = {"no": 0, "yes": 0}
    bounds = [0, 37, 250, 251, 600, 900]
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        model.partial_fit(X[lo:hi], y[lo:hi], classes=["no", "yes"])
        for label in counts:
            counts[label] += int(np.sum(y[lo:hi] == label))
        total = sum(counts.values())
        present = [c for c in counts.values() if c > 0]
        per_class = {label: total / (len(present) * c) if c else 0.0
                     for label, c in counts.items()}
        weights[lo:hi] = [per_class[label] for label in y[lo:hi]]
    model.finish()
    _check(model, X, y, weights, 0.02, 4)


def test_unweighted_is_unchanged_by_weights_of_one():
    X, y = _data(seed=2)
    plain = Pegasos(block_size=3, average=False).fit(X, y)
    ones = Pegasos(block_size=3, average=False).fit(X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_array_equal(plain.coef_, ones.coef_)
    assert plain.intercept_[0] == ones.intercept_[0]
    _check(plain, X, y, np.ones(len(y)), 1e-2, 3)


def test_balanced_weights_raise_the_minority_recall():
    X, y = make_classification(3000, n_features=10, weights=[0.95], random_state=3)
    with pytest.warns(CollapseWarning):  # unweighted, the 5% minority is never predicted
        plain = Pegasos().fit(X, y)
    balanced = Pegasos(class_weight="balanced").fit(X, y)
    recall = [np.mean(m.predict(X[y == 1]) == 1) for m in (plain, balanced)]
    assert recall[1] > recall[0] + 0.1
