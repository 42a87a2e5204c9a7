"""The calibration's rows and scores are taken in lazily (issue 38 item 2): learning lists
them, and they are counted and written out only when read (probabilities, a save, the
collapse guard). Checked against an eager write-out after every learning call (the previous
implementation's discipline) and against a slow reference of the window and the kept rows
built from the stream by hand."""

import io
import json
import pickle
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

import streamsvm
from streamsvm.base.calibration import PlattCalibrator
from streamsvm.base.kept_rows import RESCORED_ROWS

MODELS = {
    "Perceptron": streamsvm.Perceptron,
    "Pegasos": streamsvm.Pegasos,
    "StreamSVM": streamsvm.StreamSVM,
}
FORMS = ("dense", "csr", "dict")
HEADER = "__streamsvm_header__.npy"


def stream(n=2600, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.7)
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1, 0)
    return X, y


def as_dicts(X):
    # every row with all its keys (zeros included): one schema, the per-row path's own case
    return [{f"f{j}": float(v) for j, v in enumerate(row)} for row in X]


def learn(model, X, y, form, start, stop, eager):
    """Learn rows ``start:stop`` (chunks of 97 rows, or row by row for dicts); ``eager``:
    write the calibrators out after every call, as the previous implementation kept them."""
    if form == "dict":
        rows = as_dicts(X[start:stop])
        for x, label in zip(rows, y[start:stop], strict=True):
            model.predict_one(x)  # River's loop: learn_one reuses the row predict_one read
            model.learn_one(x, int(label))
            if eager:
                write_out(model)
        return
    for lo in range(start, stop, 97):
        hi = min(lo + 97, stop)
        chunk = X[lo:hi] if form == "dense" else sp.csr_matrix(X[lo:hi])
        model.partial_fit(chunk, y[lo:hi], classes=[0, 1])
        if eager:
            write_out(model)


def write_out(model):
    for learner in getattr(model, "learners_", []):
        calibrator = getattr(learner, "calibration", None)
        if calibrator is not None:
            calibrator.prequential()
            calibrator.held_rows()


def file_contents(model, path) -> dict:
    """The members of ``model``'s file, saved to ``path``, by name: their bytes (the zip's own
    time stamps left out), the header as its JSON (:func:`without_entropy`: two fresh models
    draw their own)."""
    streamsvm.save(model, path)
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    header = json.loads(np.load(io.BytesIO(members.pop(HEADER))).tobytes())
    return {HEADER: without_entropy(header), **members}


def without_entropy(value):
    """A decoded header without the unseeded randomness of a fresh model (its entropy, its
    learners' generator states)."""
    if isinstance(value, dict):
        if "__generator__" in value:
            return "a generator"
        return {k: without_entropy(v) for k, v in value.items() if k != "_seed_entropy"}
    if isinstance(value, list):
        return [without_entropy(v) for v in value]
    return value


def queries(X, form):
    return as_dicts(X[:50]) if form == "dict" else X[:50]


def probabilities(model, X, form):
    if form == "dict":
        return np.array([[p[c] for c in (0, 1)] for p in
                         (model.predict_proba_one(x) for x in queries(X, form))])
    return model.predict_proba(X[:50])


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_lazy_calibration_equals_an_eager_write_out_through_save_and_resume(name, form,
                                                                           tmp_path):
    """Probabilities and model files of a model whose calibrator takes its rows in lazily
    equal those of the same stream written out after every call, mid-stream, after a save
    and load, and after resuming the loaded model (its own file equal to the original's)."""
    X, y = stream()
    lazy, eager = MODELS[name](), MODELS[name]()
    learn(lazy, X, y, form, 0, 1300, eager=False)
    learn(eager, X, y, form, 0, 1300, eager=True)
    saved = file_contents(lazy, tmp_path / "lazy.npz")  # the save writes the waiting rows out
    assert saved == file_contents(eager, tmp_path / "eager.npz")
    loaded = streamsvm.load(tmp_path / "lazy.npz")
    pickled = pickle.loads(pickle.dumps(lazy))
    for model in (lazy, eager, loaded, pickled):
        learn(model, X, y, form, 1300, 2600, eager=model is eager)
    expected = probabilities(eager, X, form)
    for model in (lazy, loaded, pickled):
        np.testing.assert_array_equal(probabilities(model, X, form), expected)
    final = file_contents(eager, tmp_path / "final.npz")
    assert file_contents(lazy, tmp_path / "a.npz") == final
    assert file_contents(loaded, tmp_path / "b.npz") == final
    assert file_contents(pickled, tmp_path / "c.npz") == final


class SlowReference:
    """The window of prequential scores and the ring of kept rows as the module doc defines
    them, written by hand from each learnt row's score, ±1 label and row, from a point of the
    stream where ``calibrator`` had recorded ``recorded`` scores and kept ``kept`` rows."""

    def __init__(self, calibrator):
        self.recorded, self.kept = calibrator.n_recorded, calibrator.n_rows_kept
        self.scores, self.labels, self.rows = [], [], []

    def learnt(self, score, label, row):
        self.scores.append(score)
        self.labels.append(label)
        self.rows.append(row)

    def check(self, calibrator):
        n = len(self.scores)
        assert calibrator.n_recorded == self.recorded + n
        assert calibrator.n_rows_kept == self.kept + n
        scores, labels, weights = calibrator.prequential()
        slots = (self.recorded + np.arange(n)) % scores.shape[0]
        last = slice(max(0, n - scores.shape[0]), n)  # those the window still holds
        np.testing.assert_allclose(scores[slots[last]], self.scores[last], rtol=1e-12,
                                   atol=1e-12)
        np.testing.assert_array_equal(labels[slots[last]], self.labels[last])
        assert weights is None
        held, held_labels, _ = calibrator.held_rows()
        slots = (self.kept + np.arange(n)) % RESCORED_ROWS
        last = slice(max(0, n - RESCORED_ROWS), n)
        np.testing.assert_array_equal(held[slots[last]],
                                      np.array(self.rows[last], dtype=np.float32))
        np.testing.assert_array_equal(held_labels[slots[last]], self.labels[last])


@pytest.mark.parametrize("name", ["Perceptron", "Pegasos"])
def test_learn_ones_lazy_window_and_kept_rows_equal_a_slow_reference(name):
    """``learn_one``'s rows, listed and taken in lazily, give the window, the stream-long
    counts and the kept rows of a reference written row by row from the scores before
    learning (the model's own decision values of each dict, asked before its learn_one),
    read at odd points of the stream and across the collapse guard's write-outs."""
    X, y = stream(n=4500, seed=3)
    rows = as_dicts(X)
    model = MODELS[name]()
    for x, label in zip(rows[:20], y[:20], strict=True):  # both classes met
        model.learn_one(x, int(label))
    assert len(model.classes_) == 2
    calibrator = model.learners_[0].calibration
    reference = SlowReference(calibrator)
    positives = (calibrator.n_scored_positive, calibrator.n_labelled_positive)
    learned = calibrator.n_learned
    target, sign = model._targets[0], model._signs[0]
    for i in range(20, 4500):
        x = rows[i]
        score = sign * model.decision_function(model._example_row(x, learn=False))[0]
        model.predict_one(x)
        model.learn_one(x, int(y[i]))
        reference.learnt(score, sign if y[i] == target else -sign, X[i])
        if i in (21, 700, 2047, 2048, 2049, 4499):
            assert calibrator.n_learned == learned + i - 19
            assert calibrator.n_scored_positive == positives[0] + sum(
                s > 0 for s in reference.scores)
            assert calibrator.n_labelled_positive == positives[1] + sum(
                v > 0 for v in reference.labels)
            reference.check(calibrator)


def test_the_counts_read_take_the_listed_rows_in_first():
    """Counts read or written while rows wait in the list see them counted first, so the
    chunk path's reads between learn_one calls (``n_learned``) never miss a row."""
    calibrator = PlattCalibrator()
    calibrator.keep_rows_for_rescoring(2)
    columns, values = np.arange(2).tobytes(), np.ones(2).tobytes()
    calibrator.learnt.extend((None, 1.0, columns, values))  # the first row: no score
    calibrator.learnt.extend((0.5, -1.0, columns, values))
    calibrator.learnt.extend((-0.25, 1.0, columns, values))
    assert calibrator.n_learned == 3
    assert not calibrator.learnt
    assert (calibrator.n_recorded, calibrator.n_rows_kept) == (2, 3)
    assert (calibrator.n_scored_positive, calibrator.n_labelled_positive) == (1, 1)
    calibrator.learnt.extend((1.5, 1.0, columns, values))
    calibrator.n_learned += 1  # a read then a write: the listed row counted once
    assert calibrator.n_learned == 5 and calibrator.n_recorded == 3
    np.testing.assert_array_equal(calibrator.prequential()[0][:3], [0.5, -0.25, 1.5])
    np.testing.assert_array_equal(calibrator.held_rows()[1], [1, -1, 1, 1])
