"""Probabilities from decision values: Platt scaling fitted on prequential scores.

The sigmoid and its fit (Platt 1999, the Newton method of Lin, Lin & Weng 2007) are
:mod:`streamsvm.base.platt`'s. On a stream the out-of-sample scores it needs come free: each
binary learner records, for each row it learns, its decision value **before** learning that
row (the prequential score) in a :class:`PlattCalibrator`, a ring buffer of the most recent
``window`` scores and labels (default 2,000: 18 KB per binary learner, 34 KB once sample
weights are given). Of a large chunk only the first ``per_chunk`` rows (default 250) are
scored, which bounds what scoring costs next to learning. The sigmoid is fitted lazily, when
probabilities are asked for, and cached until new scores arrive. With fewer than
``MIN_PER_CLASS`` scores of either label the fallback ``(A, B) = (-1, 0)`` is used.

A linear model's calibrator also keeps its most recent rows and fits the sigmoid to the
current model's scores of them (:mod:`streamsvm.base.kept_rows`: why, and how a row is kept
at next to no cost). Every name of those two modules that this one's users need is
importable from here too.
"""

from __future__ import annotations

import numpy as np

from .kept_rows import (
    MAX_RESCORED_WIDTH,
    MIN_ROWS_PER_FEATURE,
    RESCORED_ROWS,
    CsrRows,
    DenseRows,
    KeptRowsMixin,
)
from .platt import (
    FALLBACK,
    MIN_PER_CLASS,
    agree_with_labels,
    agree_with_scores,
    fit_platt,
    platt_probability,
)

__all__ = ["MAX_RESCORED_WIDTH", "MIN_PER_CLASS", "MIN_ROWS_PER_FEATURE", "RESCORED_ROWS",
           "CsrRows", "DenseRows", "PlattCalibrator",
           "agree_with_labels", "agree_with_scores", "fit_platt", "platt_probability"]

#: default number of recent prequential scores a calibrator keeps
DEFAULT_WINDOW = 2000
#: default number of rows of one chunk that are scored (its first ones)
DEFAULT_PER_CHUNK = 250
#: ``learn_one``'s rows wait in a list until this many (or until read): one tuple each
LEARNT_BATCH = 256
#: saved counts at or above this are damage: slot arithmetic on them must stay in int64
_MAX_COUNT = 2**62


class PlattCalibrator(KeptRowsMixin):
    """The most recent ``window`` prequential scores of one binary learner, and the Platt
    sigmoid fitted to them (module doc). ``n_recorded`` counts every score recorded;
    ``n_learned`` the rows the learner has learnt (scores are recorded only once it is > 0).
    For a linear model (:meth:`keep_rows_for_rescoring`) also its most recent rows
    (``rows``, ``row_labels``, ``row_weights``; ``n_rows_kept`` counts every row kept), to
    which the sigmoid is fitted by the current model's scores instead; rows not yet written
    into ``rows`` wait in a queue (:mod:`streamsvm.base.kept_rows`), so read them through
    :meth:`held_rows`.
    The fitted sigmoid is a cache (not saved; refitted from the scores after loading); the
    queue is written out before the calibrator is saved or pickled."""

    _transient = ("sigmoid", "fitted_at", "_queue", "_learnt", "_learnt_rows_from")
    # every recorded score > 0 and every recorded label +1, over the whole stream (the
    # collapse guard's stream-long counts); files saved before they existed start at 0
    n_scored_positive = 0
    n_labelled_positive = 0

    def __init__(self, window: int = DEFAULT_WINDOW, per_chunk: int = DEFAULT_PER_CHUNK):
        self.per_chunk = int(per_chunk)
        self.scores = np.zeros(int(window))
        self.labels = np.zeros(int(window), dtype=np.int8)
        self.weights = None  # all ones until a weighted row arrives
        self.n_recorded = 0
        self.n_learned = 0
        self.sigmoid = np.array(FALLBACK)
        self.fitted_at = 0
        self._queue = []  # [(first row's count, CsrRows, labels, weights or None)]
        # learn_one's rows not yet written: (score or None, label, columns or None, values),
        # of which those before _learnt_rows_from are of a width no longer kept
        self._learnt = []
        self._learnt_rows_from = 0

    def record(self, scores, labels, weights=None) -> None:
        """Append scores of rows (with their ±1 labels and optional weights), the oldest
        overwritten past ``window``."""
        self._write_learnt()
        window = self.scores.shape[0]
        scores = np.asarray(scores, dtype=np.float64)
        labels = np.asarray(labels)
        n_rows = scores.shape[0]
        if n_rows == 1:
            self.record_one(scores[0], labels[0], None if weights is None else weights[0])
            return
        kept = min(n_rows, window)
        slots = (self.n_recorded + n_rows - kept + np.arange(kept)) % window
        self.scores[slots] = scores[n_rows - kept:]
        self.labels[slots] = np.where(labels[n_rows - kept:] > 0, 1, -1)
        self.n_scored_positive += int(np.count_nonzero(scores > 0.0))
        self.n_labelled_positive += int(np.count_nonzero(labels > 0))
        if weights is not None or self.weights is not None:
            self._weights()[slots] = 1.0 if weights is None else np.asarray(weights)[n_rows - kept:]
        self.n_recorded += n_rows

    def record_one(self, score: float, label: float, weight: float | None = None) -> None:
        """Append the score of one row (without array temporaries)."""
        self._write_learnt()
        slot = self.n_recorded % self.scores.shape[0]
        self.scores[slot] = score
        self.labels[slot] = 1 if label > 0 else -1
        self.n_scored_positive += int(score > 0.0)
        self.n_labelled_positive += int(label > 0)
        if weight is not None or self.weights is not None:
            self._weights()[slot] = 1.0 if weight is None else weight
        self.n_recorded += 1

    def _weights(self) -> np.ndarray:
        if self.weights is None:
            self.weights = np.ones(self.scores.shape[0])
        return self.weights

    # ------------------------------------------------------------------ rescored rows
    def record_learnt_row(self, score: float, label: float, columns: bytes, values: bytes,
                          width: int) -> None:
        """``learn_one``'s bookkeeping of one learnt row, as cheap as one append: its
        prequential ``score`` (once the learner had learnt a row before it), the row kept for
        rescoring (a linear model's; ``columns`` and ``values``: bytes of int64 and float64,
        the per-row path's form), the counts. The rows wait in a list and are written into
        the rings when read (:meth:`prequential`, :meth:`held_rows`), or
        :data:`LEARNT_BATCH` at a time."""
        rows = self.rows
        kept = rows is not None and (width == rows.shape[1] or self._fit_width(width))
        if self.n_learned:
            self.n_recorded += 1
        else:
            score = None  # no model before the first row: nothing to score it with
        self.n_learned += 1
        if kept:
            self.n_rows_kept += 1
        else:
            columns = None
        learnt = self._learnt
        learnt.append((score, label, columns, values))
        if len(learnt) == LEARNT_BATCH:
            self._write_learnt()

    def _write_learnt(self) -> None:
        """Write the rows :meth:`record_learnt_row` listed: their scores into the window,
        the kept ones into the queue of rows (as one :class:`CsrRows`)."""
        learnt = self._learnt
        if not learnt:
            return
        first_row = self._learnt_rows_from
        self._learnt, self._learnt_rows_from = [], 0
        scores, labels, columns, values = zip(*learnt, strict=True)
        signs = np.where(np.array(labels) > 0, 1, -1).astype(np.int8)
        scored = 1 if scores[0] is None else 0  # only a learner's first row has no score
        window = self.scores.shape[0]
        self.n_scored_positive += sum(1 for v in scores[scored:] if v > 0.0)
        self.n_labelled_positive += int(np.count_nonzero(signs[scored:] > 0))
        scored = max(scored, len(scores) - window)  # those a smaller window would overwrite
        if scored < len(scores):
            n_scored = len(scores) - scored
            slots = (self.n_recorded - n_scored + np.arange(n_scored)) % window
            self.scores[slots] = scores[scored:]
            self.labels[slots] = signs[scored:]
            if self.weights is not None:
                self.weights[slots] = 1.0
        if self.rows is None:
            return
        kept = [k for k in range(first_row, len(columns)) if columns[k] is not None]
        n_kept = len(kept)
        kept = kept[max(0, n_kept - self.rows.shape[0]):]  # those the ring would overwrite
        if len(kept) < len(columns):  # rows listed before rows were kept, or overwritten
            columns, values, signs = ([columns[k] for k in kept], [values[k] for k in kept],
                                      signs[kept])
        if kept:
            rows = CsrRows.from_packed(columns, values, self.rows.shape[1])
            self._enqueue(self.n_rows_kept - len(kept), rows, signs, None)

    def prequential(self):
        """``(scores, labels, weights)``: the window of prequential scores (a ring whose
        newest entry is at ``(n_recorded - 1) % window``; weights None when all are 1), with
        every score recorded so far written in."""
        self._write_learnt()
        return self.scores, self.labels, self.weights

    def model_changed(self) -> None:
        """The learner changed without learning rows (``finish``): refit before next use."""
        self.fitted_at = -1

    def _restore_transient(self) -> None:
        self.sigmoid = np.array(FALLBACK)
        self.fitted_at = -1
        self._queue = []
        self._learnt = []
        self._learnt_rows_from = 0

    def _persist_state(self) -> dict:
        """What :func:`streamsvm.save` and pickle keep: the waiting scores and rows written
        out first."""
        self._write_learnt()
        if self.rows is not None:
            self._write_queue()
        return {k: v for k, v in vars(self).items() if k not in self._transient}

    def __getstate__(self) -> dict:
        return self._persist_state()

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._restore_transient()

    def _check_restored(self) -> None:
        """Raise ValueError unless the saved window (e.g. read from a model file) is one
        :meth:`record` and :meth:`keep_rows` could have written: matching 1-D arrays, labels
        ±1 (0 where nothing was recorded yet), finite non-negative weights, counts that are
        non-negative ints below 2**62 (the ring's slots are computed from them in int64),
        kept rows of at most :data:`MAX_RESCORED_WIDTH` columns."""
        scores, labels, weights = self.scores, self.labels, self.weights
        window = scores.shape[0] if isinstance(scores, np.ndarray) and scores.ndim == 1 else 0
        ok = (
            window >= 1 and scores.dtype == np.float64
            and isinstance(labels, np.ndarray) and labels.shape == (window,)
            and labels.dtype == np.int8 and np.isin(labels, (-1, 0, 1)).all()
            and (weights is None or (isinstance(weights, np.ndarray)
                                     and weights.shape == (window,)
                                     and weights.dtype == np.float64
                                     and (weights >= 0).all()))
            and all(type(v) is int and 0 <= v < _MAX_COUNT
                    for v in (self.per_chunk, self.n_recorded, self.n_learned,
                              self.n_rows_kept))
            and self.per_chunk >= 1
            and all(type(v) is int and 0 <= v <= self.n_recorded
                    for v in (self.n_scored_positive, self.n_labelled_positive))
            and self._rows_consistent()
        )
        if not ok:
            raise ValueError("the calibration window's arrays or counts are inconsistent")

    def flip(self) -> None:
        """The learner's labels and scores changed sign (its positive class changed)."""
        self._write_learnt()
        self.scores *= -1.0
        self.labels *= -1
        # the stream-long counts: every label flips; a score of exactly 0 stays not positive
        # (rare: the count may then be one high)
        self.n_scored_positive = self.n_recorded - self.n_scored_positive
        self.n_labelled_positive = self.n_recorded - self.n_labelled_positive
        if self.row_labels is not None:
            self._write_queue()
            self.row_labels *= -1
        self.fitted_at = -1

    def coefficients(self, rescore=None) -> tuple[float, float]:
        """``(A, B)`` fitted to the scores held, refitted only when they or the learner
        changed.
        ``rescore`` (the learner's ``decision_function``) scores the kept rows, when there
        are any (module doc); otherwise the prequential scores are used."""
        version = self.n_learned + self.n_recorded + self.n_rows_kept  # grows on any change
        if self.fitted_at != version:
            rows = None if rescore is None else self.rescored_rows()
            if rows is not None:
                rows, labels, weights = rows
                self.sigmoid = np.array(fit_platt(rescore(rows), labels, weights))
            else:
                self._write_learnt()
                held = min(self.n_recorded, self.scores.shape[0])
                self.sigmoid = np.array(
                    fit_platt(self.scores[:held], self.labels[:held],
                              None if self.weights is None else self.weights[:held])
                )
            self.fitted_at = version
        return float(self.sigmoid[0]), float(self.sigmoid[1])

    def probability(self, scores, rescore=None) -> np.ndarray:
        """``P(+1)`` of each decision value (``rescore`` as in :meth:`coefficients`)."""
        a, b = self.coefficients(rescore)
        return platt_probability(scores, a, b)
