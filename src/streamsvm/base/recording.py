"""Recording for probabilities: each binary learner's prequential scores (the decision
value of a row before it is learnt), which its :class:`~streamsvm.base.calibration.
PlattCalibrator` fits Platt scaling on."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..input.validation import csr_row_range
from .calibration import (
    RESCORED_ROWS,
    CsrRows,
    PlattCalibrator,
)
from .collapse import MIN_MINORITY_ROWS


def first_data_scored_from(y_binary, start: int) -> int:
    """The first of a fresh learner's first rows to score after learning them: ``start``
    (the last ``window`` rows, which the calibration keeps), or 0 (every row) when those
    hold fewer than :data:`~streamsvm.base.collapse.MIN_MINORITY_ROWS` labels of the rows'
    rarer class while all the rows hold at least that many. The scores beyond the window
    only count in the stream-long counts of the collapse guard (:mod:`streamsvm.base.
    collapse`), whose window thus reaches back as far as the class rate needs: w3a in file
    order has its 1,336 positives (3%) in rows 500-2,000 of 44,837, so the last 2,000 rows
    hold none and a model that predicts only the majority went unnoticed. Costs one
    decision pass over the rows, only where the recent rows lack the rarer class."""
    if start == 0:
        return 0
    labels = np.asarray(y_binary)
    positives = int(np.count_nonzero(labels > 0))
    rarer_positive = 2 * positives < labels.shape[0]
    if (positives if rarer_positive else labels.shape[0] - positives) < MIN_MINORITY_ROWS:
        return start
    recent = int(np.count_nonzero(labels[start:] > 0))
    if not rarer_positive:
        recent = labels.shape[0] - start - recent
    return 0 if recent < MIN_MINORITY_ROWS else start


def _scored_whole(X, linear: bool) -> bool:
    """Whether the first rows of ``X`` are scored by scoring all its rows: rows a subclass
    hands its learners in a form of its own (not an array, not a SciPy matrix) over CSR rows
    (``X.sparse``: StreamSVM's linear ball, whose rows are mapped inside one compiled product
    per row), where a slice costs SciPy's row indexing (more than the products of a chunk of
    1,000 rows). So are the CSR chunks of the ``linear`` models (no kernel: Pegasos, the
    Perceptron; one product per row), where a CSR slice costs SciPy's checks, about as much
    as the products of 1,000 rows. The scores of the first rows are the same either way:
    SciPy's and the compiled products sum each row on its own."""
    if sp.issparse(X):
        return linear
    return not isinstance(X, np.ndarray) and getattr(X, "sparse", False) is True


class ScoreRecordingMixin:
    """What the chunk path records for the calibrators, around each learner's update."""

    @staticmethod
    def _calibrator(learner) -> PlattCalibrator:
        """The learner's :class:`~streamsvm.base.calibration.PlattCalibrator` (made on first
        use)."""
        calibrator = getattr(learner, "calibration", None)
        if calibrator is None:
            calibrator = learner.calibration = PlattCalibrator()
        return calibrator

    def _rows_to_score(self, X, rows: slice | None):
        """The rows ``rows`` (None: all) of what the learners were handed, in the form their
        ``decision_function`` takes (a subclass whose :meth:`_prepare_for_learning` hands
        over something else converts it here)."""
        if rows is None:
            return X
        if sp.issparse(X):
            return csr_row_range(X, rows.start or 0, rows.stop)
        return X[rows]

    def _learner_scores(self, learner, X) -> np.ndarray:
        """A binary learner's scores of prepared rows, as :meth:`decision_function` gives
        them (what the calibration records and rescores)."""
        return learner.decision_function(X)

    def _rows_to_keep(self, X, start: int):
        """Rows ``start:`` of what the learners were handed, for the calibrator to keep: a
        dense array it copies now, or :class:`~streamsvm.base.calibration.CsrRows` it writes out
        when the rows are read (CSR rows are copied as their three arrays, not sliced)."""
        if sp.issparse(X):
            return CsrRows.tail(X, start)
        return self._rows_to_score(X, None if start == 0 else slice(start, None))

    def _record_before(self, learner, X, y_binary, weights=None) -> None:
        """Record the prequential scores of a chunk: the decision values of its first rows (at
        most ``per_chunk`` of the calibrator, which bounds the cost on large chunks) against
        the learner as it is before the chunk, in one call. For one row (``learn_one``) this
        is exactly the score before learning the row; for a chunk, rows after the first are
        scored without the chunk's earlier rows learnt. A learner that has learnt nothing
        yet records nothing."""
        calibrator = self._calibrator(learner)
        if calibrator.n_learned > 0:
            if X.shape[0] <= calibrator.per_chunk:
                calibrator.record(self._learner_scores(learner, self._rows_to_score(X, None)),
                                  y_binary, weights)
                return
            head = slice(0, calibrator.per_chunk)
            if _scored_whole(X, linear=not hasattr(self, "kernel")):
                scores = self._learner_scores(learner, self._rows_to_score(X, None))[head]
            else:
                scores = self._learner_scores(learner, self._rows_to_score(X, head))
            calibrator.record(scores, y_binary[head], None if weights is None else weights[head])

    def _record_after(self, learner, X, y_binary, weights=None) -> None:
        """Count the rows learnt; on a fresh learner's first data (``fit``, or the first chunk
        of a stream), whose rows no earlier model could score, record the decisions of the
        model just learnt on the last ``window`` of those rows (in-sample scores). A linear
        model's calibrator also keeps the chunk's last rows, to be rescored by the model of
        the moment when probabilities are asked (:mod:`streamsvm.base.calibration`)."""
        calibrator = self._calibrator(learner)
        if calibrator.n_learned == 0 and X.shape[0] > 1:
            start = first_data_scored_from(
                y_binary, max(0, X.shape[0] - calibrator.scores.shape[0]))
            tail = slice(start, X.shape[0])
            rows = self._rows_to_score(X, None if tail.start == 0 else tail)
            calibrator.record(self._learner_scores(learner, rows), y_binary[tail],
                              None if weights is None else weights[tail])
        if self._scores_are_linear():
            start = max(0, X.shape[0] - RESCORED_ROWS)
            rows = self._rows_to_keep(X, start)
            calibrator.keep_rows_for_rescoring(rows.shape[1])
            calibrator.keep_rows(rows, y_binary[start:],
                                 None if weights is None else weights[start:])
        calibrator.n_learned += X.shape[0]

    def _scores_are_linear(self) -> bool:
        """Whether the decision values are linear in the learners' input (no kernel, or the
        linear one): the calibration then rescores the recent rows (``base/calibration.py``)."""
        return getattr(self, "kernel", "linear") == "linear"
