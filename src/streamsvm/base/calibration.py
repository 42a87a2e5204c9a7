"""Probabilities from decision values: Platt scaling fitted on prequential scores.

Platt (1999), "Probabilistic Outputs for Support Vector Machines and Comparisons to
Regularized Likelihood Methods", maps a decision value ``f`` to ``P(y = +1 | f) =
1 / (1 + exp(A f + B))`` with ``(A, B)`` fitted by maximum likelihood on scores of examples
the model did not learn from, against the regularised targets ``(N+ + 1) / (N+ + 2)`` for
positives and ``1 / (N- + 2)`` for negatives. The fit here is the Newton method with
backtracking line search of Lin, Lin & Weng (2007), "A note on Platt's probabilistic
outputs for support vector machines" (start ``A = 0``, ``B = log((N- + 1) / (N+ + 1))``, a
tiny ridge on the Hessian's diagonal, a numerically stable likelihood), run until the
gradient vanishes to machine precision rather than the note's 1e-5.

On a stream the out-of-sample scores come free: each binary learner records, for each row it
learns, its decision value **before** learning that row (the prequential score) in a
:class:`PlattCalibrator`, a ring buffer of the most recent ``window`` scores and labels
(default 2,000: 18 KB per binary learner, 34 KB once sample weights are given). Of a large
chunk only the first ``per_chunk`` rows (default 250) are scored, which bounds what scoring
costs next to learning. The sigmoid
is fitted lazily, when probabilities are asked for, and cached until new scores arrive. With
fewer than ``MIN_PER_CLASS`` scores of either label the fit is not attempted and the fallback
``(A, B) = (-1, 0)``, the logistic function of the raw decision value, is used.

**Linear scores: the recent rows rescored.** A linear model's decision values change scale
as it learns (Pegasos' ``w`` grows as its steps ``1/(lambda t)`` shrink; the perceptrons' and
the balls' ``w`` grow with every update) and its early models are weaker, so a sigmoid fitted
to the scores of the models along the stream is too flat or too steep for the last one (the
prequential window gave 1.4-5.6 times ``SVC(kernel='linear', probability=True)``'s log-loss).
For a model whose scores are linear in its features (no kernel, or ``kernel='linear'``) of at
most :data:`MAX_RESCORED_WIDTH` columns, the calibrator also keeps the most recent
``RESCORED_ROWS`` = 500 rows it was handed (float32, with their labels and weights; float64
once a row beyond float32's range is kept, rather than scaled: the rows are rescored by the
model as they are, and only models fed such rows pay the double width), and the
sigmoid is fitted to the decision values of the **current** model on those rows, refitted
whenever the model has changed (new rows learnt, ``finish``). These scores are in-sample: a
linear model of ``d`` weights fitted to ``n >> d`` rows moves little with any one of them,
so they are close to held-out scores of the same model (as ``SVC(probability=True)``'s
cross-validated scores are of models trained on 80% of the rows); until the model has learnt
``MIN_ROWS_PER_FEATURE`` = 5 rows per feature, the prequential scores are used. Kernel models,
which can fit their own rows, keep the prequential scores.

Keeping a row costs next to nothing on the hot paths: dense rows (one contiguous copy of the
chunk's last rows, :class:`DenseRows`, mapped by the learner only when written out), CSR
rows (their three arrays, sliced and copied, :class:`CsrRows`) and ``learn_one``'s rows (the
packed bytes the per-row path already holds) wait in a short queue; they are written into the
float32 ring only when the rows are read (probabilities asked for, the model saved or
pickled), and rows overwritten before then are never written at all.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit

__all__ = ["MAX_RESCORED_WIDTH", "MIN_PER_CLASS", "MIN_ROWS_PER_FEATURE", "RESCORED_ROWS",
           "CsrRows", "DenseRows", "PlattCalibrator",
           "agree_with_labels", "agree_with_scores", "fit_platt", "platt_probability"]

#: fewer scores than this of either label: the fallback sigmoid (A, B) = (-1, 0)
MIN_PER_CLASS = 10
#: default number of recent prequential scores a calibrator keeps
DEFAULT_WINDOW = 2000
#: default number of rows of one chunk that are scored (its first ones)
DEFAULT_PER_CHUNK = 250
#: recent rows a calibrator of a linear model keeps, to rescore by the current model
RESCORED_ROWS = 500
#: ``learn_one``'s rows wait in a list until this many (or until read): one tuple each
LEARNT_BATCH = 256
#: widest rows (features) kept for rescoring; wider models keep the prequential scores
MAX_RESCORED_WIDTH = 1000
#: rows learnt per feature before the in-sample scores of the kept rows are trusted
MIN_ROWS_PER_FEATURE = 5
_FALLBACK = (-1.0, 0.0)


@njit(cache=True)
def _log1p_exp(z):
    """log(1 + exp(z)) without overflow."""
    if z > 0.0:
        return z + np.log1p(np.exp(-z))
    return np.log1p(np.exp(z))


@njit(cache=True)
def _platt_objective(scores, targets, weights, a, b):
    """Negative log-likelihood sum_i w_i [log(1 + e^z_i) - (1 - t_i) z_i], z_i = a f_i + b."""
    total = 0.0
    for i in range(scores.shape[0]):
        z = a * scores[i] + b
        total += weights[i] * (_log1p_exp(z) - (1.0 - targets[i]) * z)
    return total


@njit(cache=True)
def _fit_platt_core(scores, positive, weights, max_iter):
    n = scores.shape[0]
    n_pos = 0.0
    n_all = 0.0
    for i in range(n):
        n_all += weights[i]
        if positive[i]:
            n_pos += weights[i]
    n_neg = n_all - n_pos
    hi = (n_pos + 1.0) / (n_pos + 2.0)
    lo = 1.0 / (n_neg + 2.0)
    targets = np.empty(n)
    for i in range(n):
        targets[i] = hi if positive[i] else lo
    ridge = 1e-12
    a = 0.0
    b = np.log((n_neg + 1.0) / (n_pos + 1.0))
    value = _platt_objective(scores, targets, weights, a, b)
    for _ in range(max_iter):
        # gradient and Hessian of the objective in (a, b); p = P(+1) = 1 / (1 + e^z)
        h11 = ridge
        h22 = ridge
        h21 = 0.0
        g1 = 0.0
        g2 = 0.0
        for i in range(n):
            z = a * scores[i] + b
            if z >= 0.0:
                e = np.exp(-z)
                p = e / (1.0 + e)
                q = 1.0 / (1.0 + e)
            else:
                e = np.exp(z)
                p = 1.0 / (1.0 + e)
                q = e / (1.0 + e)
            w = weights[i] * p * q
            f = scores[i]
            h11 += f * f * w
            h22 += w
            h21 += f * w
            d = weights[i] * (targets[i] - p)
            g1 += f * d
            g2 += d
        scale = max(1.0, np.abs(scores).max()) * n_all
        if abs(g1) < 1e-13 * scale and abs(g2) < 1e-13 * n_all:
            break
        det = h11 * h22 - h21 * h21
        da = -(h22 * g1 - h21 * g2) / det
        db = -(-h21 * g1 + h11 * g2) / det
        slope = g1 * da + g2 * db
        step = 1.0
        moved = False
        while step >= 1e-10:
            new_a = a + step * da
            new_b = b + step * db
            new_value = _platt_objective(scores, targets, weights, new_a, new_b)
            if new_value < value + 1e-4 * step * slope:
                a, b, value = new_a, new_b, new_value
                moved = True
                break
            step *= 0.5
        if not moved:
            break  # no decrease left to find: converged to rounding
    return a, b


def fit_platt(scores, labels, weights=None, *, max_iter: int = 100) -> tuple[float, float]:
    """``(A, B)`` of Platt's sigmoid ``P(+1 | f) = 1 / (1 + exp(A f + B))`` fitted to decision
    values ``scores`` of examples with ``labels`` (±1 or booleans, True = +1) and optional
    ``weights`` (a weight counts as that many copies of the example); the fallback ``(-1, 0)``
    when either label has a total weight below :data:`MIN_PER_CLASS`."""
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    positive = np.ascontiguousarray(np.asarray(labels) > 0)
    weights = (np.ones(scores.shape) if weights is None
               else np.ascontiguousarray(weights, dtype=np.float64))
    if scores.shape != positive.shape or scores.shape != weights.shape or scores.ndim != 1:
        raise ValueError("scores, labels and weights must be 1-D of one length; got "
                         f"{scores.shape}, {positive.shape}, {weights.shape}")
    n_pos = float(weights[positive].sum())
    n_neg = float(weights[~positive].sum())
    if min(n_pos, n_neg) < MIN_PER_CLASS or not np.all(np.isfinite(scores)):
        return _FALLBACK
    a, b = _fit_platt_core(scores, positive, weights, max_iter)
    if a > 0.0:  # decreasing in the score: keep only the base rate (the optimum with A = 0)
        rate = (n_pos * (n_pos + 1.0) / (n_pos + 2.0) + n_neg / (n_neg + 2.0)) / (n_pos + n_neg)
        return 0.0, float(np.log((1.0 - rate) / rate))
    return float(a), float(b)


def platt_probability(scores, a: float, b: float) -> np.ndarray:
    """``1 / (1 + exp(a f + b))`` for each score ``f``, without overflow."""
    z = a * np.asarray(scores, dtype=np.float64) + b
    return np.exp(-np.logaddexp(0.0, z))


def agree_with_labels(positive, predicted_positive) -> np.ndarray:
    """``P(+1)`` moved to the nearest value on the side of 1/2 that the model predicts (just
    above 1/2 where it predicts +1, at most 1/2 elsewhere), so that the more probable class
    is the predicted one. The sigmoid's offset ``B`` moves its midpoint off the decision
    boundary; this clips the band between the two."""
    above = np.nextafter(0.5, 1.0)
    return np.where(predicted_positive, np.maximum(positive, above), np.minimum(positive, 0.5))


def agree_with_scores(proba, predicted) -> np.ndarray:
    """Rows of class probabilities whose largest entry is the ``predicted`` column: where
    another column is larger, the two entries swap (the row still sums to 1); an exact tie is
    broken by a relative nudge of 1e-12 and renormalising."""
    rows = np.arange(proba.shape[0])
    top = np.argmax(proba, axis=1)
    swap = top != predicted
    if np.any(swap):
        proba = proba.copy()
        r, p, t = rows[swap], predicted[swap], top[swap]
        proba[r, p], proba[r, t] = proba[r, t], proba[r, p]
        tied = np.argmax(proba, axis=1) != predicted
        if np.any(tied):
            r = rows[tied]
            proba[r, predicted[tied]] = proba[r].max(axis=1) * (1.0 + 1e-12)
            proba[r] /= proba[r].sum(axis=1, keepdims=True)
    return proba


#: the largest float32: kept rows with a larger entry turn the ring float64
_FLOAT32_MAX = float(np.finfo(np.float32).max)

#: saved counts at or above this are damage: slot arithmetic on them must stay in int64
_MAX_COUNT = 2**62

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


class PlattCalibrator:
    """The most recent ``window`` prequential scores of one binary learner, and the Platt
    sigmoid fitted to them (module doc). ``n_recorded`` counts every score recorded;
    ``n_learned`` the rows the learner has learnt (scores are recorded only once it is > 0).
    For a linear model (:meth:`keep_rows_for_rescoring`) also its most recent rows
    (``rows``, ``row_labels``, ``row_weights``; ``n_rows_kept`` counts every row kept), to
    which the sigmoid is fitted by the current model's scores instead; rows not yet written
    into ``rows`` wait in a queue (module doc), so read them through :meth:`held_rows`.
    The fitted sigmoid is a cache (not saved; refitted from the scores after loading); the
    queue is written out before the calibrator is saved or pickled."""

    _transient = ("sigmoid", "fitted_at", "_queue", "_learnt", "_learnt_rows_from")
    # calibrators saved before the rescored rows existed (streamsvm 0.1.0 files) have none:
    # they keep the prequential scores until they are told to keep rows
    rows = None
    row_labels = None
    row_weights = None
    n_rows_kept = 0
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
        self.sigmoid = np.array(_FALLBACK)
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
    def keep_rows_for_rescoring(self, width: int) -> None:
        """From now on keep the most recent :data:`RESCORED_ROWS` rows of ``width`` columns
        (a linear model's calibration, module doc); a model wider than
        :data:`MAX_RESCORED_WIDTH` keeps none."""
        if self.rows is None and 0 < width <= MAX_RESCORED_WIDTH:
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
            self._learnt_rows_from = len(self._learnt)  # listed rows of the old width go
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

    def model_changed(self) -> None:
        """The learner changed without learning rows (``finish``): refit before next use."""
        self.fitted_at = -1

    def _restore_transient(self) -> None:
        self.sigmoid = np.array(_FALLBACK)
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
