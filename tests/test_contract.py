"""The estimator contract, checked on every estimator of the registry.

Two harnesses: scikit-learn's ``parametrize_with_checks`` (expected failures are declared by
each estimator class in ``_expected_failed_checks`` with a reason), and the streaming checks
of docs/contract.md: prediction before learning, prediction never changes the model, a failed call
leaves the model unchanged, save/load resumes exactly, memory bounded for budgeted models.
An estimator joins both by being listed in ``streamsvm.registry.ESTIMATORS``.
"""

import copy
import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

import streamsvm
from streamsvm.lasvm import _expansion_core
from streamsvm.persistence import _Encoder
from streamsvm.registry import available_estimators

ESTIMATOR_CLASSES = list(available_estimators().values())


def _instances():
    out = []
    for cls in ESTIMATOR_CLASSES:
        out.extend(cls(**params) for params in getattr(cls, "_test_params", [{}]))
    return out


INSTANCES = _instances()


def _expected_failed_checks(estimator):
    return dict(getattr(estimator, "_expected_failed_checks", {}))


@parametrize_with_checks(INSTANCES, expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def snapshot(model):
    """Everything the model holds, as (JSON text, arrays), for exact comparisons."""
    encoder = _Encoder()
    state = encoder.encode(
        {k: v for k, v in vars(model).items() if k not in model._transient}, "model"
    )
    return json.dumps(state, sort_keys=True), encoder.arrays


def without_costs(model):
    """A copy without what a model loaded from a file may hold differently, since files leave
    the kernel cache out: the cost counters (kernel values computed, cache hits and misses),
    and the gradients at the holes of LASVM's expansion S (never read: a hole has alpha =
    A = B = 0; they absorb whatever a cached row held in that column, 0 in a fresh row)."""
    model = copy.deepcopy(model)
    for learner in getattr(model, "learners_", []):
        if hasattr(learner, "cache_totals"):
            learner.cache_totals[:] = 0
            learner.cnt[_expansion_core.KEVALS] = 0
            n = int(learner.cnt[_expansion_core.N_COLS])
            learner.g[:n][learner.perm[:n] < 0] = 0.0
    return model


def assert_same_state(a, b):
    text_a, arrays_a = a
    text_b, arrays_b = b
    assert text_a == text_b
    assert arrays_a.keys() == arrays_b.keys()
    for key in arrays_a:
        np.testing.assert_array_equal(arrays_a[key], arrays_b[key])


def blobs(n=300, n_features=5, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=3.0, size=(n_classes, n_features))
    y = rng.integers(0, n_classes, size=n)
    X = centres[y] + rng.normal(size=(n, n_features))
    return X, y


ids = [repr(m) for m in INSTANCES]


@pytest.fixture(params=INSTANCES, ids=ids)
def model(request):
    return clone(request.param)


def test_predict_before_learning(model):
    X, _ = blobs()
    assert model.predict_one(X[0]) is None
    with pytest.raises(NotFittedError):
        model.predict(X)
    with pytest.raises(NotFittedError):
        model.decision_function(X)


def test_prediction_never_changes_the_model(model):
    X, y = blobs()
    model.partial_fit(X[:200], y[:200], classes=[0, 1])
    before = snapshot(model)
    model.predict(X)
    model.decision_function(X)
    model.predict_one(X[0])
    model.score(X, y)
    assert_same_state(before, snapshot(model))


BAD_CALLS = {
    "nan": (lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 7, np.nan, X), y), "NaN"),
    "inf": (
        lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 7, np.inf, X), y),
        "infinity",
    ),
    "wrong width": (lambda X, y: (X[:, :-1], y), "features"),
    "label count": (lambda X, y: (X, y[:-1]), "labels"),
    "unknown label": (lambda X, y: (X, np.where(y == 0, 5, y)), "not in the declared classes"),
    "empty": (lambda X, y: (X[:0], y[:0]), "0 sample"),
    "strings": (lambda X, y: (np.full(X.shape, "a", dtype=object), y), "could not convert|string"),
    "2d labels": (lambda X, y: (X, np.column_stack([y, y])), "1-D"),
}


@pytest.mark.parametrize("bad", list(BAD_CALLS))
def test_failed_call_leaves_model_unchanged(model, bad):
    X, y = blobs()
    model.partial_fit(X[:100], y[:100], classes=[0, 1])
    before = snapshot(model)
    make, message = BAD_CALLS[bad]
    Xb, yb = make(X[100:150], y[100:150])
    with pytest.raises((ValueError, TypeError), match=message):
        model.partial_fit(Xb, yb)
    assert_same_state(before, snapshot(model))
    # and the model still learns afterwards
    model.partial_fit(X[100:150], y[100:150])
    assert model.n_seen_ == 150


def test_fit_rejects_a_single_class(model):
    X, _ = blobs()
    with pytest.raises(ValueError, match="only one class"):
        model.fit(X, np.zeros(len(X)))


def multiclass(model) -> bool:
    """Whether the estimator takes more than two classes (DistributedL2SVM does not: it
    tracks one two-class model; its tag says so and the checks below use two classes)."""
    return model.__sklearn_tags__().classifier_tags.multi_class


def test_save_load_resumes_mid_stream(model, tmp_path):
    names = ["cat", "dog", "eel"] if multiclass(model) else ["cat", "dog"]
    X, y = blobs(n=400, n_classes=len(names))
    y = np.array(names)[y]
    model.partial_fit(X[:150], y[:150])
    path = tmp_path / "model.npz"
    streamsvm.save(model, path)
    resumed = streamsvm.load(path)
    assert type(resumed) is type(model)
    assert resumed.get_params() == model.get_params()
    assert_same_state(snapshot(model), snapshot(resumed))
    for start in (150, 275):
        model.partial_fit(X[start : start + 125], y[start : start + 125])
        resumed.partial_fit(X[start : start + 125], y[start : start + 125])
    np.testing.assert_array_equal(model.decision_function(X), resumed.decision_function(X))
    assert_same_state(snapshot(without_costs(model)), snapshot(without_costs(resumed)))


def test_learn_one_matches_partial_fit(model):
    if not getattr(model, "_chunk_invariant", False):
        pytest.skip(f"{type(model).__name__} does not promise chunking-invariant updates")
    X, y = blobs(n=120)
    by_chunk = clone(model).partial_fit(X, y)
    one_by_one = clone(model)
    for xi, yi in zip(X, y, strict=True):
        one_by_one.learn_one(xi, yi)
    np.testing.assert_allclose(by_chunk.decision_function(X), one_by_one.decision_function(X))


def test_dict_examples_follow_river(model):
    X, y = blobs(n=60, n_features=3)
    names = ["a", "b", "c"]
    for xi, yi in zip(X, y, strict=True):
        model.learn_one(dict(zip(names, xi, strict=True)), yi)
    assert model.n_seen_ == 60
    prediction = model.predict_one({"b": X[0, 1], "a": X[0, 0], "c": X[0, 2]})
    assert prediction == model.predict(X[:1])[0]
    assert model.predict_one({"a": X[0, 0], "b": X[0, 1], "c": X[0, 2], "new": 5.0}) \
        == prediction  # a key not learnt counts as 0
    width = model.n_features_in_
    model.learn_one({"z": 1.0}, y[0])  # a new key is a new feature (tests/test_river.py)
    if hasattr(model, "tracker_"):  # DistributedL2SVM keeps the width of its first data
        assert model.n_features_in_ == width
    else:
        assert model.n_features_in_ == width + 1
    with pytest.raises(TypeError, match="non-numeric"):
        model.learn_one({"a": "high"}, 0)


def test_sparse_input_matches_dense(model):
    if not model._accepts_sparse:
        pytest.skip("dense-only estimator")
    if not getattr(model, "_same_on_sparse", True):
        pytest.skip(f"{model!r} treats sparse input differently by design (see its docstring)")
    X, y = blobs(n=200)
    X[np.abs(X) < 1.0] = 0.0
    dense = clone(model).fit(X, y)
    sparse = clone(model).fit(sp.csr_matrix(X), y)
    scores = dense.decision_function(X)
    # StreamSVM's lookahead balls are solved to tol=1e-8 by an iterative solver whose path
    # follows the rounding of its sums (one sweep of a dense row, the non-zeros of a CSR row):
    # the two models agree to that tolerance, not to the last bits
    atol = 1e-6 * np.abs(scores).max() if getattr(model, "lookahead", 1) > 1 else 0.0
    np.testing.assert_allclose(scores, sparse.decision_function(sp.csr_matrix(X)), atol=atol)


def test_classes_discovered_mid_stream(model):
    names = ["d", "c", "b", "a"] if multiclass(model) else ["d", "c"]
    n = 150 * len(names)
    X, y = blobs(n=n, n_classes=len(names))
    labels = np.array(names)[y]
    order = np.argsort(y, kind="stable")  # classes appear one after another: d, c, b, a
    model.partial_fit(X[order[:100]], labels[order[:100]])
    assert model.classes_.tolist() == ["d"]
    for start in range(100, n, 100):
        model.partial_fit(X[order[start : start + 100]], labels[order[start : start + 100]])
    assert model.classes_.tolist() == sorted(names)
    shape = (n, len(names)) if len(names) > 2 else (n,)
    assert model.decision_function(X).shape == shape
    assert set(model.predict(X)) <= set(names)


def test_two_class_stream_is_exact_continuation(model):
    """A stream that starts with one class and then meets the second is the same model as
    one that declared both classes up front (the one-class learner is re-targeted exactly)."""
    X, y = blobs(n=200)
    for first_class in (0, 1):  # the first class sorts before / after the second
        order = np.argsort(y != first_class, kind="stable")
        Xo, yo = X[order], y[order]
        head = np.flatnonzero(yo != first_class)[0] - 5  # all of one class
        declared = clone(model).partial_fit(Xo[:head], yo[:head], classes=[0, 1])
        discovered = clone(model).partial_fit(Xo[:head], yo[:head])
        assert discovered.classes_.tolist() == [first_class]
        declared.partial_fit(Xo[head:], yo[head:])
        discovered.partial_fit(Xo[head:], yo[head:])
        np.testing.assert_allclose(declared.decision_function(X), discovered.decision_function(X))


def test_memory_bounded_for_budgeted_models(model):
    if not getattr(model, "_bounded_memory", False):
        pytest.skip(f"{type(model).__name__} grows with its support vectors, as its paper says")
    X, y = blobs(n=6000)
    model.partial_fit(X[:1000], y[:1000])
    small = model.model_nbytes_
    model.partial_fit(X[1000:], y[1000:])
    assert model.model_nbytes_ <= small
