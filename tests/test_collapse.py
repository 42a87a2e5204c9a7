"""The collapse guard (streamsvm.base.collapse): a constructed collapse warns once, with the counts;
normal problems stay silent; the counts and the flag are saved with the model."""

import re
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification

import streamsvm
from streamsvm import LASVM, CollapseWarning, IncrementalSVM, Pegasos, Perceptron
from streamsvm.base.collapse import (
    MIN_MINORITY_ROWS,
    MIN_ROWS,
    MISSED_SHARE,
    WINDOW,
    collapse_counts,
    collapse_message,
    stream_counts,
)
from streamsvm.datasets import make_checkerboard


def imbalanced_stream(n=6000, seed=0):
    return make_classification(n, n_features=10, weights=[0.9], random_state=seed)


def stream_into(model, X, y, chunk=500):
    for start in range(0, X.shape[0], chunk):
        model.partial_fit(X[start:start + chunk], y[start:start + chunk])
    return model


def collapse_warnings(record):
    return [r for r in record if issubclass(r.category, CollapseWarning)]


def test_tiny_C_on_an_imbalanced_stream_warns_once_with_the_counts():
    X, y = imbalanced_stream()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        model = stream_into(LASVM(C=1e-3), X, y)
    caught = collapse_warnings(record)
    assert len(caught) == 1  # once per model, though every later chunk is as collapsed
    rows, predicted_pos, labelled_pos = collapse_counts(model.learners_[0].calibration)
    assert rows == WINDOW and predicted_pos == 0 and labelled_pos >= 0.05 * rows
    message = str(caught[0].message)  # sent as soon as MIN_ROWS predictions were held
    counts = re.search(r"100.0% of its last (\d+) rows \(predicted before learning each: 0 as 1, "
                       r"(\d+) as 0\), while (\d+) of them are labelled 1 and (\d+) 0", message)
    assert counts is not None, message
    seen, as_zero, ones, zeros = map(int, counts.groups())
    assert seen == as_zero == ones + zeros == MIN_ROWS and ones == y[:seen].sum()
    assert "LASVM predicts one class (0)" in message
    assert message.endswith("Try class_weight='balanced', a larger C, or standardised features "
                            "(e.g. scikit-learn's StandardScaler).")
    # fit makes a new model: it may warn again
    with pytest.warns(CollapseWarning):
        LASVM(C=1e-3).fit(X[:2000], y[:2000])


@pytest.mark.parametrize("make, data", [
    (lambda: Perceptron(), imbalanced_stream),
    (lambda: Pegasos(), imbalanced_stream),
    (lambda: LASVM(C=10.0, gamma=1.0),
     lambda: make_checkerboard(3000, random_state=0, standardize=True)),
    (lambda: LASVM(C=1.0, class_weight="balanced"), imbalanced_stream),
    (lambda: IncrementalSVM(C=1.0, gamma=0.1), lambda: imbalanced_stream(1200)),
])
def test_normal_problems_are_silent(make, data):
    X, y = data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", CollapseWarning)
        stream_into(make(), X, y)
        make().fit(X, y)


def test_rules_of_the_message():
    assert collapse_message("M", (0, 1), (MIN_ROWS - 1, 0, 100)) is None  # too few rows
    assert collapse_message("M", (0, 1), (1000, 0, 49)) is None  # minority below 5%
    assert collapse_message("M", (0, 1), (1000, 11, 100)) is None  # 98.9% one class
    assert collapse_message("M", (0, 1), (1000, 10, 100)) is not None  # 99.0%
    assert "predicts one class ('b')" in collapse_message("M", ("a", "b"), (1000, 995, 900))
    assert collapse_message("M", (0, 1), (1000, 0, 100), hints=()).endswith(
        "Try standardised features (e.g. scikit-learn's StandardScaler).")


def test_more_than_two_classes_are_not_checked():
    X, y = make_classification(3000, n_features=8, n_informative=5, n_classes=3,
                               weights=[0.8, 0.1, 0.1], random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CollapseWarning)
        stream_into(LASVM(C=1e-4), X, y)


def test_counts_and_flag_are_saved(tmp_path):
    X, y = imbalanced_stream(3000)
    with pytest.warns(CollapseWarning):
        model = stream_into(LASVM(C=1e-3), X[:2500], y[:2500])
    streamsvm.save(model, tmp_path / "m.zip")
    loaded = streamsvm.load(tmp_path / "m.zip")
    np.testing.assert_array_equal(loaded.class_counts_, model.class_counts_)
    assert loaded._collapse_warned is True
    with warnings.catch_warnings():
        warnings.simplefilter("error", CollapseWarning)
        loaded.partial_fit(X[2500:], y[2500:])  # warned already: once per model
    np.testing.assert_array_equal(loaded.class_counts_, np.bincount(y))


@pytest.mark.parametrize("damage", [
    lambda m: setattr(m, "class_counts_", np.array([1.0, -2.0])),
    lambda m: setattr(m, "class_counts_", np.array([1.0, 2.0, 3.0])),
    lambda m: setattr(m, "_collapse_warned", 1),
])
def test_damaged_counts_or_flag_are_refused_on_load(tmp_path, damage):
    X, y = imbalanced_stream(600)
    model = Perceptron().fit(X, y)
    damage(model)
    streamsvm.save(model, tmp_path / "m.zip")
    with pytest.raises(streamsvm.persistence.ModelFileError):
        streamsvm.load(tmp_path / "m.zip")


def test_counts_read_the_last_rows_of_the_ring_as_a_naive_reading_does():
    from streamsvm.base.calibration import PlattCalibrator

    rng = np.random.default_rng(0)
    calibrator = PlattCalibrator()
    ring = calibrator.scores.shape[0]
    for _ in range(200):
        n = int(rng.integers(1, 400))
        calibrator.record(rng.normal(size=n), rng.choice([-1, 1], size=n))
        held = min(calibrator.n_recorded, ring, WINDOW)
        slots = [(calibrator.n_recorded - held + k) % ring for k in range(held)]
        expected = (held, sum(calibrator.scores[s] > 0 for s in slots),
                    sum(calibrator.labels[s] > 0 for s in slots))
        assert collapse_counts(calibrator) == expected


def rare_minority_stream(n=4000, seed=0):
    """3% positives spread over the stream (w3a's rate), few features."""
    return make_classification(n, n_features=10, weights=[0.97], flip_y=0.0,
                               random_state=seed)


def test_majority_only_model_of_a_rare_minority_warns_from_the_stream_counts():
    """A 3% minority is below the window rule's 5%; a model that predicts it for none of the
    rows (LASVM with a tiny C) is caught by the stream-long counts, and the message says so."""
    X, y = rare_minority_stream()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        model = stream_into(LASVM(C=1e-4), X, y)
    calibrator = model.learners_[0].calibration
    rows, predicted_pos, labelled_pos = collapse_counts(calibrator)
    assert labelled_pos < 0.05 * rows  # the window rule alone would stay silent
    caught = collapse_warnings(record)
    assert len(caught) == 1
    assert "rows of its stream" in str(caught[0].message)
    stream_rows, stream_pred, stream_pos = stream_counts(calibrator)
    assert stream_rows == calibrator.n_recorded and stream_pos >= MIN_MINORITY_ROWS
    assert stream_pred <= MISSED_SHARE * stream_pos


@pytest.mark.parametrize("make", [Perceptron, lambda: LASVM(C=10.0)])
def test_a_model_that_predicts_a_rare_minority_stays_silent(make):
    X, y = rare_minority_stream()
    with warnings.catch_warnings():
        warnings.simplefilter("error", CollapseWarning)
        model = stream_into(make(), X, y)
    _, predicted_pos, labelled_pos = stream_counts(model.learners_[0].calibration)
    assert predicted_pos > MISSED_SHARE * labelled_pos


def test_rules_of_the_stream_counts():
    window = (1000, 0, 30)  # one class predicted, 3% minority: the window rule is silent
    assert collapse_message("M", (0, 1), window) is None
    assert collapse_message("M", (0, 1), window, stream=(4000, 0, 120)) is not None
    assert collapse_message("M", (0, 1), window, stream=(4000, 12, 120)) is not None  # 10%
    assert collapse_message("M", (0, 1), window, stream=(4000, 13, 120)) is None
    assert collapse_message("M", (0, 1), window, stream=(4000, 0, 19)) is None  # < 20 rows
    assert collapse_message("M", (0, 1), window, stream=(4000, 0, 39)) is None  # < 1%
    assert collapse_message("M", (0, 1), window, stream=(MIN_ROWS - 1, 0, 30)) is None
    # a negative minority, counted from the other side
    assert collapse_message("M", (0, 1), (1000, 1000, 970), stream=(4000, 4000, 3880))


def test_stream_counts_count_every_recorded_score_as_a_naive_count_does():
    from streamsvm.base.calibration import PlattCalibrator

    rng = np.random.default_rng(1)
    calibrator = PlattCalibrator(window=50)
    scores, labels = [], []
    for _ in range(60):
        n = int(rng.integers(1, 120))
        s, lab = rng.normal(size=n), rng.choice([-1, 1], size=n)
        if n == 1:
            calibrator.record_one(s[0], lab[0])
        else:
            calibrator.record(s, lab)
        scores += list(s)
        labels += list(lab)
    assert stream_counts(calibrator) == (len(scores), sum(v > 0 for v in scores),
                                         sum(v > 0 for v in labels))
    calibrator.flip()
    assert stream_counts(calibrator) == (len(scores), sum(v < 0 for v in scores),
                                         sum(v < 0 for v in labels))


def minority_first_stream(n=20000, seed=0):
    """3% positives, all of them in the first rows (w3a's file order: its positives in rows
    500-2,000 of 44,837), so the last rows of the stream hold none."""
    X, y = make_classification(n, n_features=10, weights=[0.97], flip_y=0.0,
                               random_state=seed)
    order = np.argsort(y == 0, kind="stable")
    return X[order], y[order]


def test_fit_of_a_stream_whose_minority_came_first_reaches_back_for_it():
    """``fit`` records in-sample scores of its last rows only; where those hold no minority
    row the guard's window reaches back over every row (the class rate decides), so a
    majority-only model is caught, and a model that predicts the minority stays silent."""
    X, y = minority_first_stream()
    assert y[-2000:].sum() == 0 and y.sum() >= MIN_MINORITY_ROWS
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        model = Pegasos().fit(X, y)
    assert int(np.count_nonzero(model.predict(X) == 1)) == 0  # majority only
    assert stream_counts(model.learners_[0].calibration) == (len(y), 0, int(y.sum()))
    caught = collapse_warnings(record)
    assert len(caught) == 1 and f"the {len(y)} rows of its stream" in str(caught[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CollapseWarning)
        ranking = Pegasos(alpha=10.0).fit(X, y)  # predicts the minority for its rows
    rows, predicted, labelled = stream_counts(ranking.learners_[0].calibration)
    assert rows == len(y) and predicted > MISSED_SHARE * labelled


def test_fit_scores_only_its_last_rows_where_they_hold_the_minority():
    """Where the last rows hold enough of the rarer class, nothing more is scored."""
    X, y = rare_minority_stream(n=6000)
    model = Pegasos().fit(X, y)
    window = model.learners_[0].calibration.scores.shape[0]
    assert y[-window:].sum() >= MIN_MINORITY_ROWS
    assert stream_counts(model.learners_[0].calibration)[0] == window
