"""Refused calls: non-finite values, rows too large for the model's kernel, wrong widths and
labels of the wrong kind are refused with a ValueError naming the problem, and the model is
left bit-identical (every registered estimator)."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from streamsvm import LASVM, Perceptron
from streamsvm.kernels.spec import KERNEL_VALUE_LIMIT, Kernel, max_safe_sqnorm
from streamsvm.registry import available_estimators

ESTIMATORS = available_estimators()


def blobs(n=120, n_features=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n)
    X = rng.normal(size=(n, n_features)) + 2.0 * y[:, None]
    return X, y


def with_last_row(X, value):
    X = X.copy()
    X[-1, -1] = value
    return X


# (a)-(e): bad content at the END of the chunk, so that a model updating row by row before
# checking would already have learnt the first rows.
BAD_CHUNKS = {
    "nan": (lambda X, y: (with_last_row(X, np.nan), y), r"NaN \(first at row 39\)"),
    "inf": (lambda X, y: (with_last_row(X, -np.inf), y), r"infinity \(first at row 39\)"),
    "overflow": (lambda X, y: (with_last_row(X, 1e300), y), r"row 39 of X is too large"),
    "large": (lambda X, y: (with_last_row(X, 1e60), y), r"row 39 of X is too large"),
    "sparse overflow": (
        lambda X, y: (sp.csr_matrix(with_last_row(X, 1e300)), y),
        r"row 39 of X is too large",
    ),
    "width": (lambda X, y: (X[:, :-1], y), "features"),
    "string labels": (lambda X, y: (X, np.where(y == 1, "b", "a")), "strings"),
    "mixed labels": (lambda X, y: (X, [*y[:-1].tolist(), "a"]), "mixes label types"),
    "empty label": (lambda X, y: (X, np.array([""] * len(y))), "strings|empty"),
}


def state(model):
    """Everything the model holds, as pickle bytes, plus its decisions on fixed rows."""
    return pickle.dumps(model, protocol=5)


@pytest.mark.parametrize("bad", list(BAD_CHUNKS))
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_refused_chunk_leaves_model_bit_identical(name, bad):
    X, y = blobs()
    model = ESTIMATORS[name]().partial_fit(X[:80], y[:80])
    # queried first: a DistributedL2SVM query is a sequenced request of its message layer,
    # which advances the layer's counters (the model itself does not change)
    scores = model.decision_function(X[:10])
    before = state(model)
    make, message = BAD_CHUNKS[bad]
    Xb, yb = make(X[80:], y[80:])
    if sp.issparse(Xb) and not model._accepts_sparse:
        pytest.skip(f"{name} takes dense input only")
    with pytest.raises(ValueError, match=message):
        model.partial_fit(Xb, yb)
    assert state(model) == before
    np.testing.assert_array_equal(model.decision_function(X[:10]), scores)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_refused_fit_and_first_chunk_leave_model_as_it_was(name):
    X, y = blobs()
    fitted = ESTIMATORS[name]().fit(X[:80], y[:80])
    before = state(fitted)
    with pytest.raises(ValueError, match="row 79 of X is too large"):
        fitted.fit(with_last_row(X[:80], 1e200), y[:80])
    assert state(fitted) == before
    fresh = ESTIMATORS[name]()
    before = state(fresh)
    with pytest.raises(ValueError, match="row 79 of X is too large"):
        fresh.partial_fit(with_last_row(X[:80], 1e200), y[:80])
    assert state(fresh) == before
    assert not hasattr(fresh, "classes_")


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_prediction_refuses_rows_too_large(name):
    X, y = blobs()
    model = ESTIMATORS[name]().fit(X, y)
    with pytest.raises(ValueError, match="row 2 of X is too large"):
        model.decision_function(with_last_row(X[:3], 1e300))
    with pytest.raises(ValueError, match="infinity"):
        model.predict(with_last_row(X[:3], np.inf))
    with pytest.raises(ValueError, match="too large"):
        model.predict_one(with_last_row(X[:1], 1e300)[0])


def test_decisions_stay_finite_after_a_huge_row():
    """Reproducer (issue 17): after a row of values near 1e300 every later decision of the
    kernel models was NaN."""
    X, y = blobs()
    model = LASVM().partial_fit(X[:80], y[:80])
    huge = np.full((1, X.shape[1]), 1e300)
    with pytest.raises(ValueError, match="too large"):
        model.partial_fit(np.vstack([X[80:100], huge]), np.r_[y[80:100], 1])
    with pytest.raises(ValueError, match="too large"):
        model.learn_one(huge[0], 1)
    model.partial_fit(X[80:], y[80:])
    assert np.isfinite(model.decision_function(X)).all()


@pytest.mark.parametrize(
    "kernel, gamma, degree, coef0",
    [("linear", None, 3, 0.0), ("rbf", 0.5, 3, 0.0), ("poly", 1.0, 3, 0.0),
     ("poly", 0.01, 2, 1.0), ("poly", 2.0, 5, -3.0), ("sigmoid", 1e-3, 3, 0.5)],
)
def test_max_safe_sqnorm_is_the_bound(kernel, gamma, degree, coef0):
    """At the bound the kernel's value and dot products stay within the limit; for poly, a
    row four times larger (squared norm) exceeds it."""
    bound = max_safe_sqnorm(kernel, gamma=gamma, degree=degree, coef0=coef0)
    spec = Kernel(kernel, gamma=gamma if gamma is not None else "scale", degree=degree,
                  coef0=coef0)
    x = np.zeros((2, 3))
    x[0, 0] = np.sqrt(bound)
    x[1, 0] = -np.sqrt(bound)
    gram = spec.matrix(x)
    assert np.isfinite(gram).all()
    assert np.abs(gram).max() <= KERNEL_VALUE_LIMIT * (1 + 1e-9)
    assert abs(x[0] @ x[1]) <= KERNEL_VALUE_LIMIT * (1 + 1e-9)
    if kernel == "poly":
        assert np.abs(spec.matrix(2 * x)).max() > KERNEL_VALUE_LIMIT


def test_poly_bound_is_far_below_linear():
    """A degree-3 polynomial overflows far below the linear kernel: entries of 1e20 are
    refused by a poly LASVM (gamma=1) and accepted by a linear one."""
    X, y = blobs()
    Xb = X.copy()
    Xb[:5] *= 1e20
    poly = LASVM(kernel="poly", degree=3, gamma=1.0, coef0=1.0)
    with pytest.raises(ValueError, match="row 0 of X is too large for LASVM with the poly"):
        poly.fit(Xb, y)
    linear = LASVM(kernel="linear").fit(Xb, y)
    assert np.isfinite(linear.decision_function(Xb)).all()


# ------------------------------------------------------------------------------- labels


def test_numbers_merge_by_value_and_keep_their_dtype():
    X, y = blobs()
    model = Perceptron().partial_fit(X[:40], y[:40])
    assert model.classes_.dtype.kind == "i"
    model.partial_fit(X[40:60], np.where(y[40:60] == 1, 1.0, 2.0))
    model.partial_fit(X[60:62], [True, np.int64(0)])
    model.learn_one(X[62], 2.0)
    assert model.classes_.tolist() == [0, 1, 2]
    assert model.classes_.dtype.kind == "i"
    assert model.predict(X[:5]).dtype.kind == "i"


def test_a_new_class_that_does_not_fit_the_dtype_promotes_it():
    X, y = blobs()
    model = Perceptron().partial_fit(X[:40], y[:40].astype(bool))
    model.partial_fit(X[40:42], [2, 0])
    assert model.classes_.tolist() == [0, 1, 2]
    assert model.classes_.dtype.kind == "i"
    with pytest.raises(ValueError, match="Unknown label type: 'continuous'"):
        model.partial_fit(X[42:44], [2.5, 1])


@pytest.mark.parametrize("later", [["a", "b"], np.array(["a", "b"]), ["1", "0"]])
def test_strings_after_numbers_are_refused(later):
    """Reproducer (issue 17): string labels after integers turned every class into a string."""
    X, y = blobs()
    model = Perceptron().partial_fit(X[:40], y[:40])
    before = state(model)
    with pytest.raises(ValueError, match="holds strings .* are numbers"):
        model.partial_fit(X[40:42], later)
    with pytest.raises(ValueError, match="holds strings"):
        model.learn_one(X[0], "a")
    assert state(model) == before
    assert model.classes_.tolist() == [0, 1]


def test_numbers_after_strings_are_refused():
    X, y = blobs()
    model = Perceptron().partial_fit(X[:40], np.array(["no", "yes"])[y[:40]])
    with pytest.raises(ValueError, match="holds numbers .* are strings"):
        model.partial_fit(X[40:42], [0, 1])
    with pytest.raises(ValueError, match="holds numbers"):
        model.learn_one(X[0], 1)
    with pytest.raises(ValueError, match="holds numbers"):
        model.partial_fit(X[40:42], [0, 1], classes=[0, 1])
    assert model.classes_.tolist() == ["no", "yes"]


@pytest.mark.parametrize(
    "labels, message",
    [([0, "a"], "entry 1 is 'a' but entry 0 is 0"),
     (np.array([0, "a", 1], dtype=object), "entry 1 is 'a'"),
     ([1.5, None], "entry 1 is None"),
     ([None, 1], "entry 0 is None"),
     (["a", ""], "empty label"),
     ([1 + 2j, 1], "complex")],
)
def test_labels_of_mixed_kinds_are_refused(labels, message):
    X, _ = blobs()
    n = len(labels)
    with pytest.raises(ValueError, match=message):
        Perceptron().fit(X[:n], labels)
    with pytest.raises(ValueError, match=message):
        Perceptron().partial_fit(X[:n], labels)


@pytest.mark.parametrize(
    "classes, message",
    [([0, "a"], "mixes label types"), (["a", ""], "empty label"), ([0.0, np.nan], "NaN")],
)
def test_declared_classes_of_mixed_kinds_are_refused(classes, message):
    X, _ = blobs()
    with pytest.raises(ValueError, match=message):
        Perceptron().partial_fit(X[:2], [0, 0], classes=classes)


def test_declared_classes_and_labels_must_be_one_kind():
    X, _ = blobs()
    with pytest.raises(ValueError, match="holds numbers .* declared classes are strings"):
        Perceptron().partial_fit(X[:2], [0, 1], classes=["a", "b"])


def test_object_labels_of_one_kind_are_accepted():
    X, y = blobs()
    model = Perceptron().fit(X, np.array(["a", "b"], dtype=object)[y])
    assert model.classes_.tolist() == ["a", "b"]
    model = Perceptron().fit(X, np.array([0, 1.0], dtype=object)[y])
    assert model.classes_.tolist() == [0, 1]
    assert clone(model).fit(X, y.tolist()).classes_.tolist() == [0, 1]


@pytest.mark.parametrize("bad, message", [(np.nan, "NaN"), (np.inf, "infinity"),
                                          (1e300, "too large"), (1e60, "too large")])
def test_distributed_refuses_bad_rows_naming_them(bad, message):
    from streamsvm.distributed.estimator import DistributedL2SVM

    X, y = blobs(n=30)
    model = DistributedL2SVM(n_sites=3).fit(X, np.where(y == 1, 1, -1))
    scores = model.decision_function(X)
    Xb = with_last_row(X[:5], bad)
    with pytest.raises(ValueError, match=f"{message}.*row 4|row 4.*{message}"):
        model.partial_fit(Xb, np.ones(5))
    with pytest.raises(ValueError, match=message):
        model.decision_function(Xb)
    with pytest.raises(ValueError, match=message):
        model.add(0, Xb[4], 1)
    np.testing.assert_array_equal(model.decision_function(X), scores)


def test_active_wrappers_refuse_rows_too_large():
    from streamsvm import ActiveLearner, ActiveSampler, ActiveSVM

    X, y = blobs(n=40)
    huge = with_last_row(X, 1e200)
    with pytest.raises(ValueError, match="row 39 of X is too large"):
        ActiveLearner(huge, classes=[0, 1], model=ActiveSVM()).ask()
    sampler = ActiveSampler(classes=[0, 1], model=ActiveSVM(stopping=None))
    with pytest.raises(ValueError, match="too large"):
        sampler.predict_one(huge[-1])
    sampler.predict_one(X[0])
    sampler.learn_one(X[0], y[0])
    with pytest.raises(ValueError, match="too large"):
        sampler.predict_one(huge[-1])


def test_gamma_that_overflows_on_tiny_values_is_refused():
    """Found by fuzzing: values near 1e-160 have a variance that underflows to a subnormal,
    so gamma='scale' = 1 / (n_features * variance) became infinite and every kernel value
    NaN. The first chunk is refused and the model left as it was."""
    X = np.zeros((4, 1))
    X[0, 0] = 6.3e-160
    y = np.array([0, 1, 0, 1])
    model = LASVM()
    with pytest.raises(ValueError, match="gamma='scale' is not a positive finite number"):
        model.fit(X, y)
    assert not hasattr(model, "classes_")
    assert np.isfinite(LASVM(gamma=1.0).fit(X, y).decision_function(X)).all()


KERNEL_ESTIMATORS = [name for name, cls in ESTIMATORS.items() if "kernel" in cls().get_params()]


@pytest.mark.parametrize("name", KERNEL_ESTIMATORS)
def test_poly_models_refuse_rows_beyond_their_own_bound(name):
    """Entries of 1e20 are fine for a linear or RBF model but overflow a degree-3
    polynomial: refused at the end of a chunk, and the model is left bit-identical."""
    X, y = blobs()
    model = ESTIMATORS[name](kernel="poly", degree=3, gamma=1.0, coef0=1.0)
    model.partial_fit(X[:80], y[:80])
    before = state(model)
    with pytest.raises(ValueError, match="row 39 of X is too large .* poly kernel"):
        model.partial_fit(with_last_row(X[80:], 1e20), y[80:])
    assert state(model) == before
    model.partial_fit(X[80:], y[80:])
    assert np.isfinite(model.decision_function(X)).all()


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_sparse_input_of_hostile_width_is_refused_before_any_allocation(name):
    """An svmlight index like 99999999999 once became a CSR matrix of 1e11 columns, and
    ``Perceptron.fit`` asked for 745 GiB. The width of sparse input is capped (the readers'
    ``max_features`` default is the same), with a ValueError naming the cap."""
    X = sp.csr_matrix(([1.0, 2.0], ([0, 1], [3, 99_999_999_998])), shape=(2, 99_999_999_999))
    model = ESTIMATORS[name]()
    if not model._accepts_sparse:
        pytest.skip(f"{name} takes dense input only")
    with pytest.raises(ValueError, match="at most 16,777,216 columns"):
        model.fit(X, [0, 1])
    assert not hasattr(model, "classes_")
