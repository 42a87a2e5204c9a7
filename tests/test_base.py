"""The one-vs-rest bookkeeping and validation of streamsvm.base, on the Perceptron."""

import numpy as np
import pytest

from streamsvm import LASVM, Perceptron


def three_class(n=300, seed=0):
    rng = np.random.default_rng(seed)
    centres = np.array([[4.0, 0.0], [0.0, 4.0], [-4.0, -4.0]])
    y = rng.integers(0, 3, size=n)
    return centres[y] + rng.normal(size=(n, 2)), y


def test_binary_to_one_vs_rest_continues_exactly():
    """At the 2 -> 3 class transition the learner of class 0 is the sign-flipped copy of the
    binary learner: identical to a learner trained on 'class 0 vs rest' from the start."""
    X, y = three_class()
    two = np.flatnonzero(y < 2)
    first, later = two[:100], np.arange(len(y))[np.isin(np.arange(len(y)), two[:100], invert=True)]
    model = Perceptron().partial_fit(X[first], y[first]).partial_fit(X[later], y[later])
    # reference: class 0 vs rest over the same order of examples
    order = np.concatenate([first, later])
    ref0 = Perceptron().fit(X[order], np.where(y[order] == 0, 1, -1))
    ref1 = Perceptron().fit(X[order], np.where(y[order] == 1, 1, -1))
    np.testing.assert_allclose(model.decision_function(X)[:, 0], ref0.decision_function(X))
    np.testing.assert_allclose(model.decision_function(X)[:, 1], ref1.decision_function(X))
    # class 2 was learnt only from its first appearance on
    appear = np.flatnonzero(y[later] == 2)[0]
    ref2 = Perceptron().fit(X[later][appear:], np.where(y[later][appear:] == 2, 1, -1))
    np.testing.assert_allclose(model.decision_function(X)[:, 2], ref2.decision_function(X))


def test_declared_classes_are_fixed():
    X, y = three_class()
    model = Perceptron().partial_fit(X[:50], y[:50], classes=[0, 1, 2, 3])
    assert model.classes_.tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="differs from the classes declared"):
        model.partial_fit(X[50:60], y[50:60], classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"labels \[7\] that are not in the declared classes"):
        model.partial_fit(X[:3], [0, 7, 1])


@pytest.mark.parametrize(
    "classes, message", [([1], "only one class"), ([1, 1, 2], "duplicate"), ([[1, 2]], "1-D")]
)
def test_bad_declared_classes(classes, message):
    X, y = three_class()
    with pytest.raises(ValueError, match=message):
        Perceptron().partial_fit(X, y, classes=classes)


def test_error_messages_name_the_problem():
    X, y = three_class()
    model = Perceptron().fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but Perceptron is expecting 2"):
        model.predict(np.ones((2, 3)))
    bad = X.copy()
    bad[17, 1] = np.nan
    with pytest.raises(ValueError, match="NaN \\(first at row 17\\)"):
        model.partial_fit(bad, y)
    with pytest.raises(ValueError, match="Unknown label type"):
        Perceptron().fit(X, np.linspace(0, 1, len(X)))
    with pytest.raises(ValueError, match="only one class"):
        Perceptron().fit(X, np.ones(len(X)))
    with pytest.raises(ValueError, match="one example"):
        model.learn_one(X[:2], 0)


def test_fit_resets_previous_stream():
    X, y = three_class()
    model = Perceptron().partial_fit(X, np.array(["a", "b", "c"])[y])
    model.fit(X, y)
    assert model.classes_.tolist() == [0, 1, 2]
    assert model.n_seen_ == len(X)


def test_predict_one_before_and_after():
    X, y = three_class()
    model = Perceptron()
    assert model.predict_one(X[0]) is None
    model.learn_one(X[0], "north")
    assert model.predict_one(X[1]) == "north"  # one class seen so far
    model.learn_one({0: X[1, 0], 1: X[1, 1]}, "south")
    assert model.classes_.tolist() == ["north", "south"]
    assert model.predict_one({0: 0.0, 1: 0.0}) in ("north", "south")


def test_model_nbytes_counts_learner_arrays():
    X, y = three_class()
    model = Perceptron().fit(X, y)
    # three learners of 2 weights each and, averaging (the default), the sums of their
    # iterates (2 each), plus classes_ (3 int64) and class_counts_ (3 float64), plus each
    # learner's Platt calibration (2,000 scores, 2,000 int8 labels, and for a linear model its
    # 500 rows kept to rescore, float32, with int8 labels; the fitted sigmoid is a cache, left
    # out as files leave it out)
    assert model.model_nbytes_ == 3 * 2 * 8 * 2 + 2 * 3 * 8 + 3 * (2000 * 8 + 2000
                                                                    + 500 * 2 * 4 + 500)


def test_model_nbytes_leaves_the_kernel_cache_out():
    """LASVM's kernel cache (rebuilt on demand, never saved) is not model state: the size
    is that of the support vectors and their coefficients, far below the cache's budget."""
    X, y = three_class()
    model = LASVM(cache_size=50).fit(X, y)
    assert model.model_nbytes_ < 1_000_000
