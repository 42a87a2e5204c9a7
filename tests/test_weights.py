"""class_weight and sample_weight (streamsvm.base.weights): exactness against scikit-learn's SVC,
sample weights as copies, the stream's 'balanced' rule, refusals that leave the model as it
was, and the estimators that refuse weights with the reason."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.svm import SVC
from sklearn.utils.class_weight import compute_class_weight

from streamsvm import LASVM, LASVMG, IncrementalSVM, Pegasos, Perceptron
from streamsvm.registry import available_estimators

GAMMA = 0.2


def imbalanced(n=300, seed=1):
    X, y = make_classification(n, n_features=5, weights=[0.85], flip_y=0.05, random_state=seed)
    return X, y


def assert_same_state(before: bytes, model) -> None:
    assert pickle.dumps(model) == before, "a refused call changed the model"


def assert_has_free_support_vectors(svc, C, weights):
    """Some support vectors strictly inside their box (the solution is not all at bounds)."""
    box = C * np.array([weights[label] for label in svc.classes_[(svc.dual_coef_[0] > 0)
                                                               .astype(int)]])
    free = (np.abs(svc.dual_coef_[0]) > 1e-8) & (np.abs(svc.dual_coef_[0]) < box - 1e-8)
    assert free.sum() >= 3


@pytest.mark.parametrize("class_weight", [{0: 1.0, 1: 4.0}, {0: 0.5, 1: 2.5}, "balanced"])
def test_incremental_svm_with_class_weight_equals_svc(class_weight):
    X, y = imbalanced()
    C = 2.0
    svc = SVC(C=C, gamma=GAMMA, class_weight=class_weight, tol=1e-12).fit(X, y)
    weights = (dict(zip([0, 1], compute_class_weight("balanced", classes=np.array([0, 1]), y=y),
                        strict=True))
               if class_weight == "balanced" else class_weight)
    assert_has_free_support_vectors(svc, C, weights)
    model = IncrementalSVM(C=C, gamma=GAMMA, class_weight=class_weight).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), svc.decision_function(X), atol=1e-6)


def test_lasvm_with_class_weight_reaches_svc_within_tau():
    X, y = imbalanced(400)
    C, weights = 2.0, {0: 1.0, 1: 4.0}
    svc = SVC(C=C, gamma=GAMMA, class_weight=weights, tol=1e-12).fit(X, y)
    # several epochs reach the SVM solution; the finishing step stops at delta <= tau
    model = LASVM(C=C, gamma=GAMMA, class_weight=weights, tau=1e-6, epochs=3).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), svc.decision_function(X), atol=1e-4)
    unweighted = SVC(C=C, gamma=GAMMA, tol=1e-12).fit(X, y)
    assert np.abs(unweighted.decision_function(X) - svc.decision_function(X)).max() > 0.1


def test_integer_sample_weights_are_copies_for_the_incremental_svm():
    X, y = imbalanced(120)
    w = np.random.default_rng(0).integers(1, 4, size=y.shape[0])
    weighted = IncrementalSVM(C=1.0, gamma=GAMMA).fit(X, y, sample_weight=w)
    copies = IncrementalSVM(C=1.0, gamma=GAMMA).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.decision_function(X), copies.decision_function(X),
                               atol=1e-6)


@pytest.mark.parametrize("make", [lambda: Perceptron(),
                                  lambda: IncrementalSVM(C=1.0, gamma=GAMMA)])
def test_zero_weight_leaves_a_row_out(make):
    X, y = imbalanced(200)
    w = np.ones(y.shape[0])
    w[::3] = 0.0
    kept = w > 0
    weighted = make()
    for start in range(0, 200, 50):
        rows = slice(start, start + 50)
        weighted.partial_fit(X[rows], y[rows], classes=[0, 1], sample_weight=w[rows])
    without = make()
    for start in range(0, 200, 50):
        rows = np.arange(start, start + 50)[kept[start:start + 50]]
        without.partial_fit(X[rows], y[rows], classes=[0, 1])
    np.testing.assert_allclose(weighted.decision_function(X), without.decision_function(X),
                               atol=1e-9)


def test_perceptron_weight_scales_each_update():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([1, 0])
    model = Perceptron(fit_intercept=False, average=False)  # the last iterate
    model.fit(X, y, sample_weight=[3.0, 0.5])
    # both rows are mistakes of the zero model: w = 3 * (+1) * x0 + 0.5 * (-1) * x1
    np.testing.assert_array_equal(model.coef_, [[3.0, -0.5]])


def test_balanced_fit_equals_the_weights_of_scikit_learn():
    X, y = imbalanced()
    expected = dict(zip([0, 1], compute_class_weight("balanced", classes=np.array([0, 1]), y=y),
                        strict=True))
    balanced = Perceptron().fit(X, y, sample_weight=None)
    balanced.set_params(class_weight="balanced").fit(X, y)
    explicit = Perceptron(class_weight=expected).fit(X, y)
    np.testing.assert_array_equal(balanced.coef_, explicit.coef_)
    np.testing.assert_array_equal(balanced.class_counts_, np.bincount(y))


def test_balanced_on_a_stream_reads_the_counts_of_each_chunk_before_learning_it():
    X, y = imbalanced(600)
    C = 2.0
    model = LASVM(C=C, gamma=GAMMA, class_weight="balanced")
    counts = np.zeros(2)
    for start in range(0, 600, 200):
        chunk = y[start:start + 200]
        counts += np.bincount(chunk, minlength=2)
        model.partial_fit(X[start:start + 200], chunk)
        np.testing.assert_array_equal(model.class_counts_, counts)
        learner = model.learners_[0]
        weights = counts.sum() / (2 * counts)
        assert learner.Cn == pytest.approx(C * weights[0])
        assert learner.Cp == pytest.approx(C * weights[1])


def test_one_vs_rest_rest_side_takes_the_mean_weight_of_its_classes():
    X, y = make_classification(300, n_features=6, n_informative=4, n_classes=3,
                               random_state=0)
    weights = {0: 1.0, 1: 2.0, 2: 4.0}
    model = LASVMG(C=1.0, gamma=GAMMA, class_weight=weights).fit(X, y)
    counts = np.bincount(y)
    for learner, target in zip(model.learners_, model._targets, strict=True):
        others = [c for c in range(3) if c != target]
        rest = np.average([weights[c] for c in others], weights=counts[others])
        assert learner.Cp == pytest.approx(weights[target])
        assert learner.Cn == pytest.approx(rest)


BAD_WEIGHTS = [
    ({"sample_weight": [-1.0] + [1.0] * 49}, "negative"),
    ({"sample_weight": [np.nan] + [1.0] * 49}, "NaN"),
    ({"sample_weight": [1.0] * 49}, "shape"),
    ({"sample_weight": ["a"] * 50}, "numbers"),
]


@pytest.mark.parametrize("bad, match", BAD_WEIGHTS)
@pytest.mark.parametrize("make", [lambda: Perceptron(), lambda: IncrementalSVM(gamma=GAMMA),
                                  lambda: Pegasos(block_size=3)])
def test_bad_sample_weight_is_refused_and_the_model_kept(make, bad, match):
    X, y = imbalanced(100)
    model = make().partial_fit(X[:50], y[:50])
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match=match):
        model.partial_fit(X[50:], y[50:], **bad)
    assert_same_state(before, model)
    with pytest.raises(ValueError, match=match):
        make().fit(X[50:], y[50:], **bad)


def test_all_zero_weights_cannot_fit():
    X, y = imbalanced(50)
    with pytest.raises(ValueError, match="all zero"):
        Perceptron().fit(X, y, sample_weight=np.zeros(50))


@pytest.mark.parametrize("class_weight", [{0: 1.0, 7: 2.0}, {"a": 2.0}])
def test_class_weight_naming_an_unknown_label_is_refused(class_weight):
    X, y = imbalanced(100)
    with pytest.raises(ValueError, match="class_weight names labels"):
        Perceptron(class_weight=class_weight).fit(X, y)
    model = Perceptron().partial_fit(X[:50], y[:50], classes=[0, 1])
    before = pickle.dumps(model)
    model.set_params(class_weight=class_weight)
    with pytest.raises(ValueError, match="class_weight names labels"):
        model.partial_fit(X[50:], y[50:])
    model.set_params(class_weight=None)
    assert_same_state(before, model)


@pytest.mark.parametrize("class_weight", [{0: -1.0}, {0: 0.0}, "balance", 3.0])
def test_invalid_class_weight_values_are_refused(class_weight):
    X, y = imbalanced(50)
    with pytest.raises(ValueError, match="class_weight"):
        LASVM(class_weight=class_weight).fit(X, y)


WEIGHTED_ROWS = {"IncrementalSVM", "Pegasos", "Perceptron"}
WEIGHTED_SIDES = {"LASVM", "LASVMG", "LASVMNC", "LASVMI", "FullSVM"}


@pytest.mark.parametrize("name, cls", [
    (name, cls) for name, cls in available_estimators().items()
    if name not in WEIGHTED_ROWS | {"DistributedL2SVM"}
])
def test_estimators_without_row_weights_refuse_them_with_the_reason(name, cls):
    X, y = imbalanced(60)
    model = cls()
    with pytest.raises(ValueError, match=f"{name} does not take sample_weight: .{{40}}"):
        model.fit(X, y, sample_weight=np.ones(60))
    assert not hasattr(model, "classes_")
    if name in WEIGHTED_SIDES | {"ActiveSVM"}:
        assert "class_weight" in model.get_params()
    else:
        assert "class_weight" not in model.get_params()


def test_unknown_fit_keywords_are_a_type_error():
    X, y = imbalanced(50)
    with pytest.raises(TypeError, match="unexpected keyword"):
        LASVM().fit(X, y, weights=np.ones(50))


@pytest.mark.parametrize("make", [Perceptron, lambda **kw: Pegasos(block_size=3, **kw)])
def test_weighted_fit_in_progress_pieces_is_the_same_model(monkeypatch, capsys, make):
    """With verbose, the Perceptron and Pegasos (blocks across the pieces) learn in pieces:
    the weights are cut with the rows and 'balanced' reads the counts of the whole call."""
    from streamsvm.utils import progress

    ticks = iter(range(10**6))
    monkeypatch.setattr(progress, "clock", lambda: float(next(ticks)))
    monkeypatch.setattr(progress, "FIRST_PIECE", 20)
    X, y = imbalanced(240)
    w = np.random.default_rng(3).uniform(0, 2, size=240)
    quiet = make(class_weight="balanced").fit(X, y, sample_weight=w)
    talking = make(class_weight="balanced", verbose=1).fit(X, y, sample_weight=w)
    assert "/240 rows (" in capsys.readouterr().err  # it did learn in pieces
    np.testing.assert_array_equal(talking.coef_, quiet.coef_)
    np.testing.assert_array_equal(talking.intercept_, quiet.intercept_)


def test_a_model_file_of_0_1_0_resumes_with_balanced_weights_counting_from_then():
    import pathlib

    import streamsvm

    fixtures = pathlib.Path(__file__).parent / "fixtures" / "models-0.1.0"
    with np.load(fixtures / "lasvm_midstream.expected.npz", allow_pickle=False) as f:
        X_rest, y_rest = f["X_rest"], f["y_rest"]
    model = streamsvm.load(fixtures / "lasvm_midstream.npz")
    assert not hasattr(model, "class_counts_")  # files of 0.1.0 hold no counts
    model.set_params(class_weight="balanced").partial_fit(X_rest, y_rest)
    counts = np.array([np.sum(y_rest == c) for c in model.classes_], dtype=float)
    np.testing.assert_array_equal(model.class_counts_, counts)
    weights = counts.sum() / (2 * counts)
    assert model.learners_[0].Cp == pytest.approx(model.C * weights[1])


@pytest.mark.parametrize("labels", [
    np.array([3, -1, 3, 7, -1], dtype=np.int8), np.array([0, 255, 7], dtype=np.uint8),
    np.array([1, -1, -1, 1]), np.array([2**63 - 1, 2**63 - 3]),
    np.array([-2**63, 2**63 - 1]), np.array([2**64 - 1, 5], dtype=np.uint64),
    np.array([0, 10**7, 3]), np.array([0.5, -1.0, 0.5]), np.array(["b", "a", "b"]),
])
def test_unique_labels_is_numpys_unique_with_counts(labels):
    from streamsvm.input.validation import unique_labels

    classes, counts = unique_labels(labels)
    expected_classes, expected_counts = np.unique(labels, return_counts=True)
    assert classes.dtype == expected_classes.dtype
    np.testing.assert_array_equal(classes, expected_classes)
    np.testing.assert_array_equal(counts, expected_counts)
