"""Prequential and holdout evaluation: exact numbers with fake learners, SGDClassifier parity."""

import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import metrics as skm
from sklearn.base import clone
from sklearn.linear_model import SGDClassifier

from streamsvm import Perceptron, metrics
from streamsvm.evaluate import LearningCurve, holdout, prequential


# ---------------------------------------------------------------------- fake learners
class Majority:
    """Predicts the most frequent label seen so far (ties: the smallest label)."""

    def __init__(self):
        self.counts = {}
        self.chunk_sizes = []
        self.classes_declared = []

    def partial_fit(self, X, y, classes=None):
        self.classes_declared.append(classes)
        self.chunk_sizes.append(len(y))
        for label in y:
            self.counts[label] = self.counts.get(label, 0) + 1
        return self

    def predict(self, X):
        if not self.counts:
            raise RuntimeError("predict before partial_fit")
        labels = sorted(self.counts)
        best = max(labels, key=lambda label: self.counts[label])
        return np.full(X.shape[0], best)

    @property
    def model_nbytes_(self):
        return 16 * len(self.counts)


class ShiftedScore(Majority):
    """Scores ``x0 - mean of the x0 seen``; predicts ``sign``. No ``classes_``."""

    def __init__(self):
        super().__init__()
        self.total, self.n = 0.0, 0

    def partial_fit(self, X, y, classes=None):
        super().partial_fit(X, y, classes)
        self.total += float(X[:, 0].sum())
        self.n += X.shape[0]
        return self

    def decision_function(self, X):
        return X[:, 0] - self.total / self.n

    def predict(self, X):
        return np.where(self.decision_function(X) > 0, 1, -1)


# labels of three chunks of sizes 3, 4, 2 (features unused by Majority)
LABELS = [np.array([1, 1, -1]), np.array([-1, -1, 1, -1]), np.array([1, -1])]


def tiny_stream():
    return ((np.zeros((len(y), 1)), y) for y in LABELS)


def linear_data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X @ np.array([1.0, -1.0, 0.5, 0.0]) + 0.5 * rng.normal(size=n) > 0.3, 1, -1)
    return X, y


def chunked(X, y, size):
    return [(X[i : i + size], y[i : i + size]) for i in range(0, len(y), size)]


# ---------------------------------------------------------------------- prequential
def test_prequential_majority_hand_computed():
    # after chunk 0 the majority is 1: chunk 1 gets 1/4 right; then -1 leads 4 to 3, and
    # chunk 2 gets 1/2 right: cumulative 2/6. g-means at the end: positives 1/2 right,
    # negatives 1/4 right.
    learner = Majority()
    curve = prequential(learner, tiny_stream(), classes=[-1, 1], metrics=["accuracy", "g_means"])
    assert curve.examples_seen.tolist() == [3, 7, 9]
    assert np.isnan(curve["accuracy"][0]) and np.isnan(curve["g_means"][0])
    assert curve["accuracy"][1:].tolist() == [0.25, pytest.approx(2 / 6)]
    assert curve["g_means"][1:].tolist() == [0.0, pytest.approx(np.sqrt(1 / 2 * 1 / 4))]
    assert curve.model_nbytes.tolist() == [32, 32, 32]
    assert learner.chunk_sizes == [3, 4, 2]
    assert learner.classes_declared == [[-1, 1], None, None]  # classes on the first call only
    assert curve.kind == "prequential"


def test_prequential_first_chunk_is_not_tested():
    learner = Majority()
    # a first chunk whose labels would all be wrong later changes nothing if it is untested
    stream = [(np.zeros((2, 1)), np.array([5, 5])), (np.zeros((3, 1)), np.array([5, 7, 7]))]
    curve = prequential(learner, stream)
    assert curve["accuracy"].tolist()[1] == pytest.approx(1 / 3)
    assert curve.final["accuracy"] == pytest.approx(1 / 3)


def test_prequential_checkpoints_window_and_max_examples():
    every = prequential(Majority(), tiny_stream(), checkpoint_every=5)
    assert every.examples_seen.tolist() == [7, 9]  # 7 crosses 5; 9 is the end of the stream
    assert every["accuracy"].tolist() == [0.25, pytest.approx(2 / 6)]

    window = prequential(Majority(), tiny_stream(), window=2)
    # last two tested examples: [1, -1] predicted [1, 1], then [1, -1] predicted [-1, -1]
    assert window["accuracy"][1:].tolist() == [0.5, 0.5]

    learner = Majority()
    cut = prequential(learner, tiny_stream(), max_examples=5)
    assert cut.examples_seen.tolist() == [3, 5]
    assert learner.chunk_sizes == [3, 2]
    assert cut["accuracy"][1] == 0.0  # [-1, -1] predicted 1

    # an endless stream stops at max_examples
    def endless():
        while True:
            yield np.zeros((4, 1)), np.array([1, -1, 1, 1])

    assert prequential(Majority(), endless(), max_examples=10).examples_seen.tolist() == [4, 8, 10]


def test_prequential_undefined_metric_is_nan_until_both_classes_are_tested():
    stream = [(np.zeros((2, 1)), np.array([1, -1])), (np.zeros((2, 1)), np.array([-1, -1])),
              (np.zeros((2, 1)), np.array([1, -1]))]
    curve = prequential(Majority(), stream, metrics="g_means")
    assert np.isnan(curve["g_means"][:2]).all()
    assert curve["g_means"][2] == 0.0  # majority (-1) everywhere


def test_prequential_sgd_matches_test_then_train_loop():
    X, y = linear_data()
    chunks = chunked(X, y, 50)
    learner = SGDClassifier(random_state=0, shuffle=False)
    reference = clone(learner)
    names = ("accuracy", "g_means", "auc", "prbep")
    curve = prequential(learner, iter(chunks), classes=[-1, 1], metrics=names)

    tested_y, tested_pred, tested_score, expected = [], [], [], []
    for i, (Xc, yc) in enumerate(chunks):
        if i > 0:
            tested_y.append(yc)
            tested_pred.append(reference.predict(Xc))
            tested_score.append(reference.decision_function(Xc))
        reference.partial_fit(Xc, yc, classes=[-1, 1])
        if i > 0:
            t, p, s = map(np.concatenate, (tested_y, tested_pred, tested_score))
            sens, spec = skm.recall_score(t, p, pos_label=1), skm.recall_score(t, p, pos_label=-1)
            expected.append([skm.accuracy_score(t, p), np.sqrt(sens * spec),
                             skm.roc_auc_score(t, s)])
    expected = np.array(expected)
    assert curve.examples_seen.tolist() == list(range(50, 601, 50))
    np.testing.assert_array_equal(curve["accuracy"][1:], expected[:, 0])
    np.testing.assert_allclose(curve["g_means"][1:], expected[:, 1])
    np.testing.assert_allclose(curve["auc"][1:], expected[:, 2])
    assert 0.8 < curve.final["accuracy"] < 1.0 and curve.final["prbep"] > 0.7
    assert curve.model_nbytes is None and curve.final["model_nbytes"] is None
    np.testing.assert_array_equal(reference.coef_, learner.coef_)  # trained in place
    assert np.all(np.diff(curve.seconds) >= 0) and curve.seconds[0] >= 0


def test_sparse_chunks_match_dense():
    X, y = linear_data(300, seed=1)
    X_test, y_test = linear_data(100, seed=7)
    names = ["accuracy", "auc"]
    dense = prequential(Perceptron(), chunked(X, y, 60), metrics=names)
    sparse = prequential(Perceptron(), chunked(sp.csr_matrix(X), y, 60), metrics=names)
    np.testing.assert_array_equal(dense["accuracy"], sparse["accuracy"])
    np.testing.assert_allclose(dense["auc"], sparse["auc"])
    # holdout splits CSR chunks at the checkpoints
    dense = holdout(Perceptron(), chunked(X, y, 60), X_test, y_test,
                    checkpoints=[25, 90, 300], metrics=names)
    sparse = holdout(Perceptron(), chunked(sp.csr_matrix(X), y, 60), sp.csr_matrix(X_test),
                     y_test, checkpoints=[25, 90, 300], metrics=names)
    assert dense.examples_seen.tolist() == sparse.examples_seen.tolist() == [25, 90, 300]
    np.testing.assert_array_equal(dense["accuracy"], sparse["accuracy"])
    np.testing.assert_allclose(dense["auc"], sparse["auc"])


def test_scores_are_oriented_to_pos_label():
    X, y = linear_data(400, seed=2)
    labels = np.where(y == 1, "pos", "neg")
    runs = {
        pos: prequential(SGDClassifier(random_state=0, shuffle=False), chunked(X, labels, 100),
                         classes=["neg", "pos"], metrics=["auc", "prbep"], pos_label=pos)
        for pos in (None, "pos", "neg")
    }
    # AUC is symmetric in the classes once scores point at pos_label (1 - AUC if they didn't)
    np.testing.assert_allclose(runs["neg"]["auc"], runs["pos"]["auc"])
    np.testing.assert_array_equal(runs[None]["auc"], runs["pos"]["auc"])  # default classes_[1]
    assert runs["pos"].final["auc"] > 0.8
    # PRBEP of the negatives from the negated scores, checked directly
    reference = SGDClassifier(random_state=0, shuffle=False)
    reference.partial_fit(X[:300], labels[:300], classes=["neg", "pos"])
    scores = reference.decision_function(X[300:])
    last_chunk_only = prequential(
        SGDClassifier(random_state=0, shuffle=False),
        [(X[:300], labels[:300]), (X[300:], labels[300:])],
        classes=["neg", "pos"], metrics="prbep", pos_label="neg",
    )
    assert last_chunk_only.final["prbep"] == pytest.approx(
        metrics.prbep(labels[300:], -scores, pos_label="neg")
    )


def test_prequential_with_a_streamsvm_estimator_reports_model_size():
    X, y = linear_data(200, seed=3)
    curve = prequential(Perceptron(), chunked(X, y, 50), metrics=["accuracy", "auc"])
    assert curve.model_nbytes.dtype == np.int64 and np.all(curve.model_nbytes > 0)
    assert curve.final["accuracy"] > 0.6


def test_prequential_without_classes_uses_the_learners_own_discovery():
    X, y = linear_data(200, seed=4)
    learner = ShiftedScore()
    curve = prequential(learner, chunked(X, y, 40), metrics=["accuracy", "auc"])
    assert learner.classes_declared == [None] * 5
    assert len(curve) == 5 and 0.5 < curve.final["auc"] <= 1.0


# ---------------------------------------------------------------------- holdout
def test_holdout_majority_hand_computed_and_split_at_checkpoints():
    learner = Majority()
    X_test, y_test = np.zeros((3, 1)), np.array([1, 1, -1])
    curve = holdout(learner, tiny_stream(), X_test, y_test, checkpoints=[2, 5, 9])
    # stream labels 1 1 -1 | -1 -1 1 -1 | 1 -1: majority after 2, 5, 9 examples: 1, -1, -1
    assert curve.examples_seen.tolist() == [2, 5, 9]
    assert curve["accuracy"].tolist() == [pytest.approx(2 / 3), pytest.approx(1 / 3),
                                          pytest.approx(1 / 3)]
    assert learner.chunk_sizes == [2, 1, 2, 2, 2]  # chunks split exactly at the checkpoints
    assert curve.model_nbytes.tolist() == [16, 32, 32]
    assert curve.kind == "holdout"


def test_holdout_every_and_default_checkpoints():
    X_test, y_test = np.zeros((3, 1)), np.array([1, 1, -1])
    every = holdout(Majority(), tiny_stream(), X_test, y_test, every=4)
    assert every.examples_seen.tolist() == [4, 8, 9]  # and the end of the stream
    default = holdout(Majority(), tiny_stream(), X_test, y_test)
    assert default.examples_seen.tolist() == [3, 7, 9]


def test_holdout_equals_a_fresh_clone_trained_on_the_prefix():
    X, y = linear_data(500, seed=5)
    X_test, y_test = linear_data(300, seed=6)
    chunks = chunked(X, y, 64)
    learner = SGDClassifier(random_state=0, shuffle=False)
    checkpoints = [30, 128, 200, 500]
    curve = holdout(clone(learner), iter(chunks), X_test, y_test, checkpoints=checkpoints,
                    classes=[-1, 1], metrics=["accuracy", "auc"])
    assert curve.examples_seen.tolist() == checkpoints
    for i, k in enumerate(checkpoints):
        fresh = clone(learner)
        for start in range(0, k, 64):
            stop = min(start + 64, k)
            fresh.partial_fit(X[start:stop], y[start:stop], classes=[-1, 1])
        assert curve["accuracy"][i] == skm.accuracy_score(y_test, fresh.predict(X_test))
        assert curve["auc"][i] == pytest.approx(
            skm.roc_auc_score(y_test, fresh.decision_function(X_test)), abs=1e-9
        )
    assert np.all(np.diff(curve.seconds) >= 0)


def test_holdout_checkpoint_past_the_end_warns():
    X_test, y_test = np.zeros((3, 1)), np.array([1, 1, -1])
    with pytest.warns(UserWarning, match=r"ended after 9 examples.*\[20\]"):
        curve = holdout(Majority(), tiny_stream(), X_test, y_test, checkpoints=[5, 20])
    assert curve.examples_seen.tolist() == [5]


# ---------------------------------------------------------------------- the curve
def test_curve_rows_markdown_final():
    curve = prequential(Majority(), tiny_stream(), metrics=["accuracy", "g_means"])
    rows = curve.to_rows()
    assert rows[1] == {"examples_seen": 7, "seconds": rows[1]["seconds"], "model_nbytes": 32,
                       "accuracy": 0.25, "g_means": 0.0}
    assert isinstance(rows[2]["examples_seen"], int) and isinstance(rows[2]["accuracy"], float)
    assert curve.final == rows[-1]
    assert curve.columns == ["examples_seen", "seconds", "model_nbytes", "accuracy", "g_means"]
    table = curve.to_markdown().splitlines()
    assert table[0] == "| examples_seen | seconds | model_nbytes | accuracy | g_means |"
    assert len(table) == 2 + 3
    assert table[2].startswith("| 3 |") and table[2].endswith("| 32 | – | – |")
    assert table[3].endswith("| 32 | 0.2500 | 0.0000 |")
    assert table[4].endswith("| 32 | 0.3333 | 0.3536 |")
    with pytest.raises(KeyError, match="no column 'auc'"):
        curve["auc"]
    empty = LearningCurve(np.array([], dtype=int), np.array([]), None, {"accuracy": np.array([])})
    assert empty.to_rows() == [] and len(empty.to_markdown().splitlines()) == 2
    with pytest.raises(ValueError, match="empty"):
        _ = empty.final


def test_plot(monkeypatch):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = prequential(Majority(), tiny_stream(), metrics=["accuracy", "g_means"])
    ax = curve.plot(metric="g_means")
    x, values = ax.lines[0].get_data()
    assert list(x) == [3, 7, 9] and ax.get_ylabel() == "g means"
    np.testing.assert_array_equal(values, curve["g_means"])
    plt.close("all")

    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install streamsvm\[plot\]"):
        curve.plot()


# ---------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"metrics": ["accuracy", "f1"]},
         r"unknown metric 'f1'; the valid metrics are \['accuracy', 'auc', 'g_means', 'prbep'\]"),
        ({"metrics": ["auc"]}, r"need the learner's decision_function, which Majority"),
        ({"metrics": []}, "no metric given"),
        ({"checkpoint_every": 0}, "checkpoint_every must be a positive integer"),
        ({"window": -1}, "window must be a positive integer"),
        ({"max_examples": 0}, "max_examples must be a positive integer"),
    ],
)
def test_prequential_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        prequential(Majority(), tiny_stream(), **kwargs)


def test_bad_streams():
    with pytest.raises(ValueError, match="the stream yielded no examples"):
        prequential(Majority(), [])
    with pytest.raises(ValueError, match="the stream yielded no examples"):
        holdout(Majority(), [(np.zeros((0, 1)), np.array([]))], np.zeros((2, 1)), [1, -1])
    with pytest.raises(ValueError, match="chunk 1: X has 2 rows but y has 3 labels"):
        prequential(Majority(), [(np.zeros((2, 1)), [1, -1]), (np.zeros((2, 1)), [1, -1, 1])])
    for chunk in (np.zeros((3, 1)), 5):
        with pytest.raises(ValueError, match=r"chunk 0 of the stream is not an \(X, y\) pair"):
            prequential(Majority(), [chunk])


def test_multiclass_scores_are_refused():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 2))
    y = np.repeat([0, 1, 2], 30)
    rng.shuffle(y)
    with pytest.raises(ValueError, match=r"decision_function returned shape \(30, 3\)"):
        prequential(SGDClassifier(random_state=0), chunked(X, y, 30), classes=[0, 1, 2],
                    metrics="auc")
    curve = prequential(SGDClassifier(random_state=0), chunked(X, y, 30), classes=[0, 1, 2])
    assert len(curve) == 3  # accuracy works for any number of classes


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"checkpoints": [3], "every": 2}, "either checkpoints or every"),
        ({"checkpoints": [4, 4]}, "strictly increasing"),
        ({"checkpoints": [0, 4]}, "positive"),
        ({"checkpoints": [1.5]}, "list of integers"),
        ({"every": 0}, "every must be a positive integer"),
        ({"metrics": "g_means", "y_test": [1, 1, 1]}, r"\['g_means'\] need both classes in y_test"),
        ({"X_test": np.zeros((2, 1))}, "X_test has 2 rows but y_test has 3 labels"),
    ],
)
def test_holdout_bad_arguments(kwargs, message):
    arguments = {"X_test": np.zeros((3, 1)), "y_test": [1, 1, -1], **kwargs}
    with pytest.raises(ValueError, match=message):
        holdout(Majority(), tiny_stream(), **arguments)


def test_model_size_reported_at_some_checkpoints_only():
    class SizedOnceTwoClasses(Majority):
        @property
        def model_nbytes_(self):
            return 16 * len(self.counts) if len(self.counts) > 1 else None

    stream = [(np.zeros((2, 1)), np.array([1, 1])), (np.zeros((2, 1)), np.array([1, -1]))]
    curve = prequential(SizedOnceTwoClasses(), stream)
    assert curve.model_nbytes.tolist() == [None, 32]
    assert [row["model_nbytes"] for row in curve.to_rows()] == [None, 32]
    assert curve.to_markdown().splitlines()[2].endswith("| – | – |")
