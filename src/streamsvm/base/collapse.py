"""The collapse guard: a warning when a two-class model predicts one class for almost every row.

A model collapsed to one class (a tiny ``C`` on an imbalanced stream, unscaled features, a
step size far off) still runs and still scores the majority rate, so nothing tells its user.
The guard reads the **prequential** predictions the model already keeps for Platt scaling:
each binary learner's :class:`~streamsvm.base.calibration.PlattCalibrator` holds the decision
value of recent rows before they were learnt (for the first data of a fresh model, the
in-sample value just after: ``base/calibration.py``) with their labels. Over the last
:data:`WINDOW` of them, once at least :data:`MIN_ROWS` are held, when the sign of the score
is one class for at least :data:`PREDICTED_SHARE` of the rows while the other class is at
least :data:`MINORITY_SHARE` of their labels, the model emits one :class:`CollapseWarning`
(once per model: the flag is saved with it) with the counts and what to try.

A minority rarer than that (w3a's 3%) may not even appear among the last rows (the file
orders its labels in places), so the window adapts to the class rate by reaching back over
the whole stream: the calibrator also counts every score it recorded above 0 and every +1
label (``n_scored_positive``, ``n_labelled_positive``), and when the window predicts one
class for at least :data:`PREDICTED_SHARE` of its rows, the guard also warns if over the
whole stream (at least :data:`MIN_ROWS` predictions) the other class holds at least
:data:`MIN_MINORITY_ROWS` labels and :data:`MIN_MINORITY_SHARE` of them while the model
predicted it for at most :data:`MISSED_SHARE` of as many rows as carry it. ``fit`` (a fresh
model's first data) scores its last ``window`` rows in-sample, or every row where those
hold fewer than :data:`MIN_MINORITY_ROWS` of the rarer class
(:func:`streamsvm.base.recording.first_data_scored_from`: w3a in file order, its positives
all in its first 2,000 rows). The check is a
few vectorised operations per ``fit`` / ``partial_fit`` call; it reads nothing the learners
do not already record. Models of more than two classes are not checked (a one-vs-rest
learner that never says yes for its class is usual and does not make the model collapse).
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["CollapseWarning", "MINORITY_SHARE", "MIN_MINORITY_ROWS", "MIN_MINORITY_SHARE",
           "MIN_ROWS", "MISSED_SHARE", "PREDICTED_SHARE", "WINDOW", "collapse_counts",
           "collapse_message", "guard_collapse", "stream_counts", "warn_collapse"]

#: recent prequential predictions the guard reads (of each binary learner)
WINDOW = 1000
#: the guard speaks only once this many predictions are held
MIN_ROWS = 500
#: share of the window predicted as one class that counts as a collapse
PREDICTED_SHARE = 0.99
#: the other class must be at least this share of the window's labels
MINORITY_SHARE = 0.05
#: over the whole stream, a rarer minority counts from this many labels ...
MIN_MINORITY_ROWS = 20
#: ... and this share of the labels
MIN_MINORITY_SHARE = 0.01
#: ... when the model predicted it for at most this share of as many rows as carry it
MISSED_SHARE = 0.1


class CollapseWarning(UserWarning):
    """A two-class model predicted one class for at least 99% of its recent rows (before
    learning each) while the other class was at least 5% of their labels
    (:mod:`streamsvm.base.collapse`). Try ``class_weight='balanced'``, a larger ``C`` (or a
    smaller ``alpha``), or standardised features."""


def collapse_counts(calibrator) -> tuple[int, int, int]:
    """``(rows, predicted +1, labelled +1)`` over the last :data:`WINDOW` predictions
    recorded in ``calibrator`` (a score > 0 predicts +1)."""
    scores, labels, _ = calibrator.prequential()
    ring = scores.shape[0]
    held = min(calibrator.n_recorded, ring, WINDOW)
    start = (calibrator.n_recorded - held) % ring
    pieces = ([slice(start, start + held)] if start + held <= ring
              else [slice(start, ring), slice(0, start + held - ring)])  # the ring wraps
    predicted = sum(int(np.count_nonzero(scores[p] > 0.0)) for p in pieces)
    labelled = sum(int(np.count_nonzero(labels[p] > 0)) for p in pieces)
    return held, predicted, labelled


def stream_counts(calibrator) -> tuple[int, int, int]:
    """``(rows, predicted +1, labelled +1)`` over every prediction ``calibrator`` recorded
    (its stream-long counts; 0 for a calibrator saved before they existed)."""
    return (calibrator.n_recorded, calibrator.n_scored_positive,
            calibrator.n_labelled_positive)


def _rare_minority_missed(counts: tuple[int, int, int]) -> bool:
    """Whether the stream-long ``counts`` show a minority of at least
    :data:`MIN_MINORITY_ROWS` labels and :data:`MIN_MINORITY_SHARE` of them that the model
    predicted for at most :data:`MISSED_SHARE` of as many rows (module doc)."""
    rows, predicted_pos, labelled_pos = counts
    if rows < MIN_ROWS or labelled_pos > rows:
        return False
    minority_positive = labelled_pos * 2 < rows
    minority = labelled_pos if minority_positive else rows - labelled_pos
    predicted = predicted_pos if minority_positive else rows - predicted_pos
    return (minority >= max(MIN_MINORITY_ROWS, MIN_MINORITY_SHARE * rows)
            and predicted <= MISSED_SHARE * minority)


def collapse_message(estimator_name: str, labels, counts: tuple[int, int, int],
                     hints=("class_weight='balanced'", "a larger C"),
                     stream: tuple[int, int, int] | None = None) -> str | None:
    """The warning's text when ``counts`` (of :func:`collapse_counts`) show a collapse, or
    they predict one class and the stream-long ``stream`` counts (of :func:`stream_counts`)
    show a rare minority missed (module doc), else None; ``labels`` are the learner's
    ``(-1 class, +1 class)``, ``hints`` the parameters worth trying (standardised features
    are always suggested)."""
    rows, predicted_pos, labelled_pos = counts
    if rows < MIN_ROWS:
        return None
    predicted_share = max(predicted_pos, rows - predicted_pos) / rows
    minority = min(labelled_pos, rows - labelled_pos)
    if predicted_share < PREDICTED_SHARE:
        return None
    if minority < MINORITY_SHARE * rows:
        if stream is None or not _rare_minority_missed(stream):
            return None
        rows, predicted_pos, labelled_pos = stream
        predicted_share = max(predicted_pos, rows - predicted_pos) / rows
        where = f"the {rows} rows of its stream"
    else:
        where = f"its last {rows} rows"
    majority_predicted = labels[1] if predicted_pos * 2 > rows else labels[0]
    return (
        f"{estimator_name} predicts one class ({majority_predicted!r}) for {predicted_share:.1%} "
        f"of {where} (predicted before learning each: {predicted_pos} as "
        f"{labels[1]!r}, {rows - predicted_pos} as {labels[0]!r}), while {labelled_pos} of them "
        f"are labelled {labels[1]!r} and {rows - labelled_pos} {labels[0]!r}: the model has "
        f"collapsed to one class. Try {''.join(h + ', ' for h in hints)}"
        f"{'or ' if hints else ''}standardised features (e.g. scikit-learn's StandardScaler)."
    )


def warn_collapse(message: str) -> None:
    """Emit the :class:`CollapseWarning`, pointing at the user's ``fit`` / ``partial_fit``
    call (through :func:`guard_collapse` and the estimator's ``_fit`` / ``_partial_fit``)."""
    warnings.warn(message, CollapseWarning, stacklevel=5)


def guard_collapse(estimator) -> None:
    """Warn once per model when a two-class ``estimator`` has collapsed (module doc); its
    flag ``_collapse_warned`` is saved with it."""
    if (getattr(estimator, "_collapse_warned", False) or len(estimator.classes_) != 2
            or len(estimator.learners_) != 1):
        return
    calibrator = getattr(estimator.learners_[0], "calibration", None)
    if calibrator is None:
        return
    low, high = (c.item() if isinstance(c, np.generic) else c for c in estimator.classes_)
    labels = (low, high) if estimator._signs[0] > 0 else (high, low)
    counts = collapse_counts(calibrator)
    stream = stream_counts(calibrator)
    if collapse_message("", labels, counts, (), stream) is None:
        return  # the common case, decided before the hints' parameter look-up
    params = estimator.get_params(deep=False)
    hints = [hint for name, hint in (("class_weight", "class_weight='balanced'"),
                                     ("C", "a larger C"), ("alpha", "a smaller alpha"))
             if name in params]
    message = collapse_message(type(estimator).__name__, labels, counts, hints, stream)
    if message is not None:
        estimator._collapse_warned = True
        warn_collapse(message)
