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

``learn_one`` pays for none of this while it learns: each row adds its score, label and
packed row (four references, no copy) to a flat list, and the counts, the window and the
kept rows take the list in only when they are read: probabilities asked for, the model saved
or pickled, a chunk learnt, and every 2,048 rows of the per-row path, where the collapse guard
reads the window (under 0.1 us a row, against 0.8-0.9 us a row to count and batch each row as
it came). The counts (``n_learned``, ``n_recorded``, ...) are properties that take the list in
first, so no reader sees a stale one; files and pickles hold what an eager write-out would.
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


def _write_ring(ring: np.ndarray, first: int, values: np.ndarray) -> None:
    """``values`` (at most ``len(ring)``) into the slots ``first, first + 1, ...`` of
    ``ring``, modulo its length (two slices where it wraps)."""
    size = ring.shape[0]
    start = first % size
    head = min(values.shape[0], size - start)
    ring[start:start + head] = values[:head]
    ring[:values.shape[0] - head] = values[head:]


def _counted(name: str) -> property:
    """A count of the calibrator kept in its ``__dict__`` under ``name`` (as files and pickles
    save it; 0 when absent: files saved before it existed), read and written after the rows
    listed by ``learn_one`` are taken in (:meth:`PlattCalibrator._write_learnt`)."""

    def get(self) -> int:
        d = self.__dict__
        if d.get("_learnt"):
            self._write_learnt()
        return d.get(name, 0)

    def put(self, value: int) -> None:
        d = self.__dict__
        if d.get("_learnt"):
            self._write_learnt()
        d[name] = value

    return property(get, put)


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
    # the counts (class doc); every recorded score > 0 and every recorded label +1, over the
    # whole stream (the collapse guard's stream-long counts; files saved before they
    # existed start at 0)
    n_recorded = _counted("n_recorded")
    n_learned = _counted("n_learned")
    n_rows_kept = _counted("n_rows_kept")
    n_scored_positive = _counted("n_scored_positive")
    n_labelled_positive = _counted("n_labelled_positive")

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
        # learn_one's rows not yet counted nor written, flat: score, label, columns, values
        self._learnt = []

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
        first = self.n_recorded + n_rows - kept
        _write_ring(self.scores, first, scores[n_rows - kept:])
        _write_ring(self.labels, first, np.where(labels[n_rows - kept:] > 0, 1, -1))
        self.n_scored_positive += int(np.count_nonzero(scores > 0.0))
        self.n_labelled_positive += int(np.count_nonzero(labels > 0))
        if weights is not None or self.weights is not None:
            _write_ring(self._weights(), first, np.ones(kept) if weights is None
                        else np.asarray(weights, dtype=np.float64)[n_rows - kept:])
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
        """``learn_one``'s bookkeeping of one learnt row of ``width`` columns: its prequential
        ``score`` (ignored for the learner's first row: no model scored it), its ``label``,
        the row (``columns`` and ``values``: bytes of int64 and float64, the per-row path's
        form) kept for rescoring where rows are kept. Four items added to the flat list
        :attr:`learnt`; the counts, the window and the kept rows take them in when read
        (module doc), or :data:`LEARNT_BATCH` rows at a time. The per-row path extends
        :attr:`learnt` itself while the width stays that of the kept rows."""
        rows = self.rows
        if rows is not None and width != rows.shape[1]:
            self._write_learnt()  # the rows listed so far are of the kept rows' width
            self._fit_width(width)
        learnt = self._learnt
        learnt.extend((score, label, columns, values))
        if len(learnt) >= 4 * LEARNT_BATCH:
            self._write_learnt()

    @property
    def learnt(self) -> list:
        """The flat list of learnt rows waiting to be counted and written
        (:meth:`record_learnt_row`): one may extend it directly by ``(score, label, columns,
        values)`` for rows of the kept rows' width (the per-row path); it is emptied in
        place, never replaced, while the calibrator lives."""
        return self._learnt

    def _write_learnt(self) -> None:
        """Take in the rows listed by :meth:`record_learnt_row`: count them, write their
        scores into the window and queue the last :data:`RESCORED_ROWS` of them (as one
        :class:`CsrRows`) where rows are kept. The counts are updated here, so every read of
        them goes through this first (:func:`_counted`)."""
        learnt = self._learnt
        if not learnt:
            return
        n = len(learnt) // 4
        scores, labels, columns, values = (learnt[0::4], learnt[1::4], learnt[2::4],
                                           learnt[3::4])
        learnt.clear()
        d = self.__dict__
        n_learned = d["n_learned"]
        d["n_learned"] = n_learned + n
        scored = 0 if n_learned else 1  # no model scored the learner's first row
        positive = np.fromiter(labels, np.float64, n) > 0
        new = np.fromiter(scores[scored:] if scored else scores, np.float64, n - scored)
        d["n_scored_positive"] = (d.get("n_scored_positive", 0)
                                  + int(np.count_nonzero(new > 0.0)))
        d["n_labelled_positive"] = (d.get("n_labelled_positive", 0)
                                    + int(np.count_nonzero(positive[scored:])))
        n_new = n - scored
        if n_new:
            n_recorded = d["n_recorded"] + n_new
            d["n_recorded"] = n_recorded
            window = self.scores.shape[0]
            kept = min(n_new, window)  # those a smaller window would overwrite are not
            signs = np.where(positive[n - kept:], 1, -1).astype(np.int8)
            _write_ring(self.scores, n_recorded - kept, new[n_new - kept:])
            _write_ring(self.labels, n_recorded - kept, signs)
            if self.weights is not None:
                _write_ring(self.weights, n_recorded - kept, np.ones(kept))
        if self.rows is not None:
            kept = min(n, self.rows.shape[0])  # those the ring would overwrite are not
            n_rows_kept = d["n_rows_kept"] + n
            d["n_rows_kept"] = n_rows_kept
            rows = CsrRows.from_packed(columns[n - kept:], values[n - kept:],
                                       self.rows.shape[1])
            signs = np.where(positive[n - kept:], 1, -1).astype(np.int8)
            self._enqueue(n_rows_kept - kept, rows, signs, None)

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
