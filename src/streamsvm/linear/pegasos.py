"""Pegasos with block size ``k``, one sweep: the sub-gradient baseline of StreamSVM's Table 1."""

import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp

from .._params import VERBOSE, Boolean, Interval
from .._row_path import F_DOT
from ._common import LinearLearner, LinearStreamClassifier
from ._core import pegasos_csr, pegasos_dense
from ._row_core import linear_decision_row, pegasos_learn_gathered, pegasos_learn_row


def _take_rows(X, start, stop):
    return X[start:stop]


def _stack_rows(A, B):
    if A is None:
        return B
    return sp.vstack([A, B], format="csr") if sp.issparse(B) else np.vstack([A, B])


class _PegasosLearner(LinearLearner):
    def __init__(self, n_features, rng, *, alpha, block_size, projection):
        super().__init__(n_features, rng)
        self.alpha = float(alpha)
        self.block_size = int(block_size)
        self.projection = bool(projection)
        self.v = np.zeros(n_features)  # w = scale * v
        self.scale = 1.0
        self.sqnorm_v = 0.0
        self.t = 0
        self.n_updates = 0
        self.pending_X = None  # < block_size rows waiting for their block to fill
        self.pending_y = np.empty(0)

    def _check_restored(self) -> None:
        """Raise ValueError unless the saved weights and pending rows (e.g. read from a model
        file) fit each other and the block size."""
        pending = self.pending_y.shape[0] if self.pending_y.ndim == 1 else -1
        rows = (None if self.pending_X is None
                else getattr(self.pending_X, "shape", None))
        ok = (
            self.v.shape == (self.n_features,) and self.scale > 0 and self.sqnorm_v >= 0
            and 0 <= pending < self.block_size
            and (rows is None if pending == 0 else rows == (pending, self.n_features))
        )
        if not ok:
            raise ValueError("the weights, the scale or the pending rows are inconsistent")

    def _run(self, X, y, block_size):
        margins = np.empty(block_size)
        if sp.issparse(X):
            out = pegasos_csr(
                X.indptr,
                X.indices,
                X.data,
                y,
                self.v,
                self.scale,
                self.sqnorm_v,
                self.t,
                self.alpha,
                block_size,
                self.projection,
                margins,
            )
        else:
            out = pegasos_dense(
                X,
                y,
                self.v,
                self.scale,
                self.sqnorm_v,
                self.t,
                self.alpha,
                block_size,
                self.projection,
                margins,
            )
        self.scale, self.sqnorm_v, self.t, updates = out
        self.n_updates += int(updates)

    def partial_fit(self, X, y):
        k = self.block_size
        n_pending = self.pending_y.shape[0]
        if n_pending:
            # complete the pending block with the head of this chunk
            need = min(k - n_pending, X.shape[0])
            head_X = _stack_rows(self.pending_X, _take_rows(X, 0, need))
            head_y = np.concatenate([self.pending_y, y[:need]])
            X, y = _take_rows(X, need, X.shape[0]), y[need:]
            if head_y.shape[0] < k:
                self.pending_X, self.pending_y = head_X, head_y
                self.n_seen += need
                return
            self._run(head_X, head_y, k)
            self.n_seen += need
        n_full = (X.shape[0] // k) * k
        self._run(X, y, k)
        self.pending_X = _take_rows(X, n_full, X.shape[0]) if n_full < X.shape[0] else None
        self.pending_y = y[n_full:].copy()
        self.n_seen += X.shape[0]

    def finish(self):
        """The last, incomplete block of a pass is one smaller block (k = its size)."""
        n_pending = self.pending_y.shape[0]
        if n_pending:
            self._run(self.pending_X, self.pending_y, n_pending)
            self.pending_X, self.pending_y = None, np.empty(0)

    def weights(self):
        return self.scale * self.v, 0.0

    # the per-row path of learn_one / predict_one (streamsvm._row_path)
    def row_ready(self) -> bool:
        """Blocks of one example only (larger blocks wait in ``pending_X``)."""
        return self.block_size == 1 and self.pending_y.shape[0] == 0

    def learn_row(self, cols, vals, y, state, known=None):
        """One step on one example (``state``: the model's
        :class:`~streamsvm._row_path.RowState`); its score before, or None if refused.
        ``known``: its score, just computed by :meth:`decision_row` (whose gathered row is
        reused)."""
        if known is not None and self.t > 0:
            # margin y w·x >= 1 (w at the step's start, as pegasos_csr computes it): the
            # step only shrinks and projects w = scale v, which is scalar arithmetic
            if y * self.scale * state.fscratch.item(F_DOT) >= 1.0:
                t = self.t + 1
                scale = self.scale * (1.0 - 1.0 / t)
                if self.projection and self.sqnorm_v > 0.0:
                    norm_w = scale * math.sqrt(self.sqnorm_v)
                    radius = 1.0 / math.sqrt(self.alpha)
                    if norm_w > radius:
                        scale *= radius / norm_w
                if scale >= 1e-9:  # else v takes the scale: the compiled step below
                    self.scale, self.t = scale, t
                    self.n_seen += 1
                    return known
        if known is not None:
            self.scale, self.sqnorm_v, self.t, updates = pegasos_learn_gathered(
                state.iscratch, state.fscratch, y, self.v, self.scale, self.sqnorm_v, self.t,
                self.alpha, 1 if self.projection else 0)
            self.n_updates += updates
            self.n_seen += 1
            return known
        score, scale, sqnorm_v, t, updates = pegasos_learn_row(
            cols, vals, state.iscratch, state.fscratch, 0 if known is None else 1, y, self.v,
            self.scale, self.sqnorm_v, self.t, self.alpha, 1 if self.projection else 0)
        if score != score:
            return None
        self.scale, self.sqnorm_v, self.t = scale, sqnorm_v, t
        self.n_updates += updates
        self.n_seen += 1
        return score

    def decision_row(self, cols, vals, state):
        """The decision value of one example, or None if refused."""
        score = linear_decision_row(cols, vals, state.iscratch, state.fscratch, self.v,
                                    self.scale, 0.0)
        return None if score != score else score


class Pegasos(LinearStreamClassifier):
    """Pegasos (Shalev-Shwartz, Singer & Srebro, ICML 2007) as a single sweep over the stream.

    Minimises ``lambda/2 ||w||^2 + mean hinge loss`` by sub-gradient steps on blocks of
    ``block_size`` consecutive examples: with ``eta_t = 1/(lambda t)``,
    ``w <- (1 - eta_t lambda) w + eta_t/k sum_{A_t^+} y x`` over the examples of the block
    with margin below 1, then the projection onto the ball ``||w|| <= 1/sqrt(lambda)``.
    As in the one-pass comparison of Rai et al. (IJCAI 2009, Table 1), ``fit`` makes one
    sweep and ``block_size`` plays the role of a lookahead (they use k = 1 and k = 20).
    The hyperplane has no bias, as in the Pegasos paper. Choose it when a fast primal
    linear SVM is enough; it needs ``alpha`` tuned.

    Blocks span ``partial_fit`` calls: up to ``block_size - 1`` examples wait for their
    block to fill (they are learnt when it does, or at the end of ``fit``).

    Parameters
    ----------
    alpha : float, default=1e-4
        The regularisation ``lambda`` of the paper.
    block_size : int, default=1
        Examples per sub-gradient step (``k``).
    projection : bool, default=True
        Project onto ``||w|| <= 1/sqrt(alpha)`` after each step.
    verbose : int, default 0
        0: silent; 1: a progress line (rows done, rows/s) every few seconds of ``fit`` or
        ``partial_fit`` and a notice before the first use compiles; 2: also their start and
        end (``streamsvm.progress``).

    Examples
    --------
    >>> from streamsvm import Pegasos
    >>> from streamsvm.datasets import make_synthetic_a
    >>> X, y = make_synthetic_a(2000, random_state=0)
    >>> Pegasos(block_size=20).fit(X, y).score(X, y) > 0.7
    True
    """

    _learner_class = _PegasosLearner
    _chunk_invariant = True  # the same stream gives the same model however it is chunked
    _bounded_memory = True
    _learner_params = ("alpha", "block_size", "projection")

    _parameter_constraints = {
        "verbose": VERBOSE,
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "block_size": [Interval(Integral, 1, None)],
        "projection": [Boolean()],
    }

    def __init__(self, *, alpha=1e-4, block_size=1, projection=True, verbose=0):
        self.alpha = alpha
        self.block_size = block_size
        self.projection = projection
        self.verbose = verbose

    @property
    def n_updates_(self) -> int:
        return self._sum_over_learners("n_updates")
