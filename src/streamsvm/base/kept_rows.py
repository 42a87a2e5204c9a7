"""The rows a linear model's calibrator keeps, to rescore them by the current model.

A linear model's decision values change scale as it learns (Pegasos' ``w`` grows as its steps
``1/(lambda t)`` shrink; the perceptrons' and the balls' ``w`` grow with every update) and its
early models are weaker, so a sigmoid fitted to the scores of the models along the stream is
too flat or too steep for the last one (the prequential window gave 1.4-5.6 times
``SVC(kernel='linear', probability=True)``'s log-loss). For a model whose scores are linear
in its features (no kernel, or ``kernel='linear'``) of at most :data:`MAX_RESCORED_WIDTH`
columns, the calibrator also keeps the most recent ``RESCORED_ROWS`` = 500 rows it was handed
(float32, with their labels and weights; float64 once a row beyond float32's range is kept,
rather than scaled: the rows are rescored by the model as they are, and only models fed such
rows pay the double width), and the sigmoid is fitted to the decision values of the
**current** model on those rows, refitted whenever the model has changed (new rows learnt,
``finish``). These scores are in-sample: a linear model of ``d`` weights fitted to ``n >> d``
rows moves little with any one of them, so they are close to held-out scores of the same model
(as ``SVC(probability=True)``'s cross-validated scores are of models trained on 80% of the
rows); until the model has learnt ``MIN_ROWS_PER_FEATURE`` = 5 rows per feature, the
prequential scores are used. Kernel models, which can fit their own rows, keep the
prequential scores.

Keeping a row costs next to nothing on the hot paths: dense rows (one contiguous copy of the
chunk's last rows, :class:`DenseRows`, mapped by the learner only when written out), CSR
rows (their three arrays, sliced and copied, :class:`CsrRows`) and ``learn_one``'s rows (the
packed bytes the per-row path already holds, listed by the calibrator and joined into one
:class:`CsrRows` when the list is taken in) wait in a short queue; they are written into the
float32 ring only when the rows are read (probabilities asked for, the model saved or
pickled), and rows overwritten before then are never written at all.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .platt import MIN_PER_CLASS

__all__ = ["MAX_RESCORED_WIDTH", "MIN_ROWS_PER_FEATURE", "RESCORED_ROWS", "CsrRows",
           "DenseRows", "KeptRowsMixin"]

#: recent rows a calibrator of a linear model keeps, to rescore by the current model
RESCORED_ROWS = 500
#: widest rows (features) kept for rescoring; wider models keep the prequential scores
MAX_RESCORED_WIDTH = 1000
#: rows learnt per feature before the in-sample scores of the kept rows are trusted
MIN_ROWS_PER_FEATURE = 5
#: the largest float32: kept rows with a larger entry turn the ring float64
_FLOAT32_MAX = float(np.finfo(np.float32).max)


class CsrRows:
    """Rows in CSR form, copied out of their source as the three arrays (no scipy object is
    built until they are written out), waiting to be written into a calibrator's ring:
    :meth:`dense` gives them as a dense array of ``shape``, through ``finish`` (the learner's
    own mapping of its ``n_columns``-wide input rows, e.g. a bias column appended) when one
    is given."""

    __slots__ = ("data", "indices", "indptr", "n_columns", "shape", "finish")

    def __init__(self, data, indices, indptr, n_columns: int, finish=None, width=None):
        self.data, self.indices, self.indptr = data, indices, indptr
        self.n_columns, self.finish = int(n_columns), finish
        self.shape = (indptr.shape[0] - 1, int(n_columns if width is None else width))

    @classmethod
    def tail(cls, X, start: int, finish=None, width=None) -> CsrRows:
        """Rows ``start:`` of the CSR matrix ``X``, copied (the caller may reuse ``X``);
        ``width``: the columns ``finish`` gives them (default: as many as ``X``'s)."""
        lo, hi = X.indptr[start], X.indptr[X.shape[0]]
        return cls(X.data[lo:hi].copy(), X.indices[lo:hi].copy(), X.indptr[start:] - lo,
                   X.shape[1], finish, width)

    @classmethod
    def from_packed(cls, columns: list, values: list, width: int) -> CsrRows:
        """Rows given as lists of packed bytes, int64 columns and float64 values per row (the
        per-row path's form)."""
        lengths = np.fromiter(map(len, columns), np.int64, len(columns)) // 8
        indptr = np.zeros(len(columns) + 1, np.int64)
        np.cumsum(lengths, out=indptr[1:])
        return cls(np.frombuffer(b"".join(values), np.float64),
                   np.frombuffer(b"".join(columns), np.int64), indptr, width)

    def dense(self) -> np.ndarray:
        rows = sp.csr_matrix((self.data, self.indices, self.indptr),
                             shape=(self.shape[0], self.n_columns)).toarray()
        return rows if self.finish is None else self.finish(rows)


class DenseRows:
    """Dense rows copied out of a chunk (one contiguous copy, no conversion), waiting like
    :class:`CsrRows` to be written into a calibrator's ring: :meth:`dense` gives them through
    ``finish`` (the learner's own mapping of its input rows) when one is given."""

    __slots__ = ("rows", "shape", "finish")

    def __init__(self, rows, finish=None, width=None):
        self.rows, self.finish = rows, finish
        self.shape = (rows.shape[0], int(rows.shape[1] if width is None else width))

    def dense(self) -> np.ndarray:
        return self.rows if self.finish is None else self.finish(self.rows)


class KeptRowsMixin:
    """The ring of a calibrator's kept rows (``rows``, ``row_labels``, ``row_weights``;
    ``n_rows_kept`` counts every row kept) and the queue of rows waiting to be written into
    it (module doc). The calibrator it is mixed into owns ``fitted_at`` (set to -1 when the
    kept rows restart), ``n_learned`` (the rows its learner has learnt), ``_queue`` and the
    per-row path's list of learnt rows with its ``_write_learnt``, which takes them in at the
    kept rows' width of the moment: so it runs before the width changes."""

    # calibrators saved before the rescored rows existed (streamsvm 0.1.0 files) have none:
    # they keep the prequential scores until they are told to keep rows
    rows = None
    row_labels = None
    row_weights = None
    n_rows_kept = 0

    def keep_rows_for_rescoring(self, width: int) -> None:
        """From now on keep the most recent :data:`RESCORED_ROWS` rows of ``width`` columns
        (a linear model's calibration, module doc); a model wider than
        :data:`MAX_RESCORED_WIDTH` keeps none."""
        if self.rows is None and 0 < width <= MAX_RESCORED_WIDTH:
            self._write_learnt()  # rows learnt until now are not kept
            self.rows = np.zeros((RESCORED_ROWS, int(width)), dtype=np.float32)
            self.row_labels = np.zeros(RESCORED_ROWS, dtype=np.int8)
            self.n_rows_kept = 0

    def _fit_width(self, width: int) -> bool:
        """Rows of a new ``width`` (a dict-mode model's features grow) restart the kept rows
        (their new columns may not sit at the end: StreamSVM's bias column comes last); past
        :data:`MAX_RESCORED_WIDTH` no rows are kept. False when no rows are kept."""
        if self.rows is None:
            return False
        if width != self.rows.shape[1]:
            self._write_learnt()  # the listed rows, at the old width (then dropped)
            if width > MAX_RESCORED_WIDTH:
                self.rows = self.row_labels = self.row_weights = None
            else:
                self.rows = np.zeros((self.rows.shape[0], int(width)), dtype=np.float32)
                self.row_labels = np.zeros(self.rows.shape[0], dtype=np.int8)
                self.row_weights = None
            self.n_rows_kept = 0
            self.fitted_at = -1
            self._queue = []  # rows of the old width are not kept
        return self.rows is not None

    def keep_rows(self, X, labels, weights=None) -> None:
        """Keep the rows of ``X`` (dense, CSR, :class:`CsrRows` or :class:`DenseRows`, as the
        learner's ``decision_function`` takes them once written out) with their ±1 labels and
        optional weights, the oldest overwritten past :data:`RESCORED_ROWS`; nothing unless
        :meth:`keep_rows_for_rescoring` was called. The rows are queued, copied as they are,
        and written into the ring only when read (module doc)."""
        if not self._fit_width(X.shape[1]):
            return
        capacity = self.rows.shape[0]
        n_rows = X.shape[0]
        kept = min(n_rows, capacity)
        signs = np.where(np.asarray(labels)[n_rows - kept:] > 0, 1, -1).astype(np.int8)
        weights = None if weights is None else np.asarray(weights, np.float64)[n_rows - kept:]
        if isinstance(X, np.ndarray):
            X = DenseRows(np.array(X[n_rows - kept:], copy=True))
        elif sp.issparse(X):
            X = CsrRows.tail(X.tocsr(), n_rows - kept)
        elif kept < n_rows:
            raise ValueError("queued rows must not be longer than the ring")
        self._write_learnt()
        self._enqueue(self.n_rows_kept + n_rows - kept, X, signs, weights)
        self.n_rows_kept += n_rows

    def _enqueue(self, first: int, rows: CsrRows, signs, weights) -> None:
        """Queue rows whose first one is the ``first``-th kept; queued rows that newer ones
        overwrite in the ring are dropped unwritten."""
        queue = self._queue
        queue.append((first, rows, signs, weights))
        newest = first + rows.shape[0]
        while queue and queue[0][0] + queue[0][1].shape[0] <= newest - self.rows.shape[0]:
            queue.pop(0)

    def _write_queue(self) -> None:
        """Write every queued row into the ring, oldest first."""
        self._write_learnt()
        for first, rows, signs, weights in self._queue:
            self._write(first, rows.dense(), signs, weights)
        self._queue = []

    def _write(self, first: int, rows, signs, weights) -> None:
        """Rows whose first one is the ``first``-th kept, into their slots of the ring."""
        capacity = self.rows.shape[0]
        slots = (first + np.arange(rows.shape[0])) % capacity
        if (self.rows.dtype == np.float32 and rows.size
                and not np.abs(rows).max() <= _FLOAT32_MAX):
            # rows beyond float32's range (the contract accepts rows up to about 1e50) would
            # be kept as infinities: the ring keeps float64 from now on (module doc)
            self.rows = self.rows.astype(np.float64)
        self.rows[slots] = rows
        self.row_labels[slots] = signs
        if weights is not None or self.row_weights is not None:
            if self.row_weights is None:
                self.row_weights = np.ones(capacity)
            self.row_weights[slots] = 1.0 if weights is None else weights

    def held_rows(self):
        """``(rows, labels, weights)`` of every row kept so far (float32 rows, or float64
        once a row beyond float32's range was kept; weights None
        when all are 1), the queue written out first; None when no rows are kept."""
        if self.rows is None:
            return None
        self._write_queue()
        held = min(self.n_rows_kept, self.rows.shape[0])
        weights = None if self.row_weights is None else self.row_weights[:held]
        return self.rows[:held], self.row_labels[:held], weights

    def rescored_rows(self):
        """``(rows, labels, weights)`` held for rescoring (float64 rows), or None when no rows
        are kept, either label has fewer than :data:`MIN_PER_CLASS` of them, or the model has
        learnt fewer than :data:`MIN_ROWS_PER_FEATURE` rows per column (in-sample scores of
        a model of ``d`` weights fitted to fewer are over-confident)."""
        if self.rows is None or self.n_learned < MIN_ROWS_PER_FEATURE * self.rows.shape[1]:
            return None
        rows, labels, weights = self.held_rows()
        if min(np.count_nonzero(labels > 0), np.count_nonzero(labels < 0)) < MIN_PER_CLASS:
            return None
        return rows.astype(np.float64), labels, weights

    def _rows_consistent(self) -> bool:
        rows, labels, weights = self.rows, self.row_labels, self.row_weights
        if rows is None:
            return labels is None and weights is None and self.n_rows_kept == 0
        return (
            isinstance(rows, np.ndarray) and rows.ndim == 2
            and rows.dtype in (np.float32, np.float64)
            and 1 <= rows.shape[0] and 1 <= rows.shape[1] <= MAX_RESCORED_WIDTH
            and isinstance(labels, np.ndarray) and labels.shape == (rows.shape[0],)
            and labels.dtype == np.int8 and np.isin(labels, (-1, 0, 1)).all()
            and (weights is None or (isinstance(weights, np.ndarray)
                                     and weights.shape == (rows.shape[0],)
                                     and weights.dtype == np.float64
                                     and (weights >= 0).all()))
        )
