"""Pegasos with block size ``k``, one sweep: the sub-gradient baseline of StreamSVM's Table 1."""

import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp

from ..base import SampleWeightMixin, refuse_rows
from ..base.support import summed_over_learners
from ..base.weights import CLASS_WEIGHT
from ..input.row_path import F_DOT, plain_float_arrays
from ..utils.params import VERBOSE, Boolean, Interval, keep_params
from ._avg_row_core import NO_FACTORS
from ._avg_row_core import direct as averaged_direct
from ._common import LinearLearner, LinearStreamClassifier, first_chunk_scale, scale_columns
from ._core import (
    AVERAGE_FOLD,
    pegasos_avg_csr,
    pegasos_avg_dense,
    pegasos_csr,
    pegasos_dense,
)
from ._row_core import direct


def _weight_sum(t0, t1):
    """The weights ``t0 + 1 + … + t1`` of the iterates of blocks ``t0 + 1 … t1``."""
    return float(t1 * (t1 + 1) - t0 * (t0 + 1)) / 2.0


def _take_rows(X, start, stop):
    return X[start:stop]


def _stack_rows(A, B):
    if A is None:
        return B
    return sp.vstack([A, B], format="csr") if sp.issparse(B) else np.vstack([A, B])


class _PegasosLearner(LinearLearner):
    #: Learners saved before the bias existed (streamsvm 0.1.0 files) have none; the class
    #: attribute is what they read once loaded, so they predict and continue as they did.
    fit_intercept = False
    _feature_arrays = ("v",)  # its bias, with fit_intercept, is v[-1]
    _pending_rows = ("pending_X",)  # rows of a block not full yet (block_size > 1)
    #: ``||v||^2`` overflows to NaN when ``v`` nears float64's range (``alpha=1e-300``): only
    #: the projection reads it, and a file the library wrote must load
    _may_hold_nan = ("sqnorm_v",)
    #: the pending rows' weights (None: all 1); files saved before weights existed have none
    pending_w = None
    #: per-column factors fixed from the first chunk when it looked unscaled (None: the rows
    #: as given; files saved before they existed learnt on the rows as given)
    col_scale = None
    #: the weighted average of the iterates (``u``, ``avg_s``, ``n_avg = sum_t t``: the sums
    #: of :func:`~._core.pegasos_avg_dense`); learners saved before it existed predict with
    #: the last iterate, as they did
    average = False
    u = None

    def __init__(self, n_features, rng, *, alpha, block_size, projection, fit_intercept,
                 average=False):
        super().__init__(n_features, rng)
        self.alpha = float(alpha)
        self.block_size = int(block_size)
        self.projection = bool(projection)
        self.fit_intercept = bool(fit_intercept)
        # w = scale * v; with fit_intercept the last entry is the bias (a constant feature 1)
        self.v = np.zeros(n_features + int(self.fit_intercept))
        self.scale = 1.0
        self.sqnorm_v = 0.0
        self.t = 0
        self.n_updates = 0
        self.pending_X = None  # < block_size rows waiting for their block to fill
        self.pending_y = np.empty(0)
        if average:  # an instance attribute only here: a fresh learner without it is one
            self.average = True  # of a file saved before it existed
            self.u = np.zeros_like(self.v)
            self.avg_s = 0.0
            self.n_avg = 0.0

    def _check_restored(self) -> None:
        """Raise ValueError unless the saved weights and pending rows (e.g. read from a model
        file) fit each other and the block size."""
        pending = self.pending_y.shape[0] if self.pending_y.ndim == 1 else -1
        rows = (None if self.pending_X is None
                else getattr(self.pending_X, "shape", None))
        ok = (
            self.v.shape == (self.n_features + int(self.fit_intercept),)
            and self.scale > 0 and not self.sqnorm_v < 0
            and 0 <= pending < self.block_size
            and (rows is None if pending == 0 else rows == (pending, self.n_features))
            and (self.col_scale is None
                 or (isinstance(self.col_scale, np.ndarray)
                     and self.col_scale.shape == (self.n_features,)
                     and np.isfinite(self.col_scale).all() and (self.col_scale > 0).all()))
            and (not self.average
                 or (isinstance(self.u, np.ndarray) and self.u.shape == self.v.shape
                     and self.n_avg >= 0 and np.isfinite(self.avg_s)))
            and (self.pending_w is None
                 or (isinstance(self.pending_w, np.ndarray)
                     and self.pending_w.shape == (pending,) and (self.pending_w >= 0).all()))
        )
        if not ok:
            raise ValueError("the weights, the scale or the pending rows are inconsistent")

    def _run(self, X, y, block_size, weights=None):
        """Pegasos over the complete blocks of ``X`` (``weights``: each row's, None: all 1)."""
        margins = np.empty(block_size)
        yw = y if weights is None else y * weights
        if self.average:
            self._run_averaged(X, y, yw, block_size, margins)
            return
        if sp.issparse(X):
            out = pegasos_csr(X.indptr, X.indices, X.data, y, yw, self.v, self.scale,
                              self.sqnorm_v, self.t, self.alpha, block_size, self.projection,
                              margins, self.fit_intercept)
        else:
            out = pegasos_dense(X, y, yw, self.v, self.scale, self.sqnorm_v, self.t,
                                self.alpha, block_size, self.projection, margins,
                                self.fit_intercept)
            refuse_rows(out[4])
        self.scale, self.sqnorm_v, self.t, updates = out[:4]
        self.n_updates += int(updates)

    def _run_averaged(self, X, y, yw, block_size, margins):
        """:meth:`_run` that keeps the sums of the average of the iterates."""
        t = self.t
        if sp.issparse(X):
            out = pegasos_avg_csr(X.indptr, X.indices, X.data, y, yw, self.v, self.scale,
                                  self.sqnorm_v, t, self.alpha, block_size, self.projection,
                                  margins, self.fit_intercept, self.u, self.avg_s)
        else:
            out = pegasos_avg_dense(X, y, yw, self.v, self.scale, self.sqnorm_v, t,
                                    self.alpha, block_size, self.projection, margins,
                                    self.fit_intercept, self.u, self.avg_s)
            refuse_rows(out[4])
        self.scale, self.sqnorm_v, self.t, updates = out[:4]
        self.avg_s = float(out[-1])
        self.n_avg += _weight_sum(t, self.t)
        self.n_updates += int(updates)

    def partial_fit(self, X, y, sample_weight=None):
        if "col_scale" not in vars(self) and self.n_seen == 0 and self.pending_y.shape[0] == 0:
            self.col_scale = first_chunk_scale(X)  # a learner its estimator gave none
        if self.col_scale is not None:  # the model learns on the scaled rows
            if not sp.issparse(X):  # the loop checks the scaled rows: check the rows as given
                refuse_rows(float(np.einsum("ij,ij->", X, X)))
            X = scale_columns(X, self.col_scale)
        k = self.block_size
        n_pending = self.pending_y.shape[0]
        weighted = sample_weight is not None or self.pending_w is not None
        if weighted:
            sample_weight = (np.ones(X.shape[0]) if sample_weight is None
                             else np.asarray(sample_weight, dtype=np.float64))
        if n_pending:
            # complete the pending block with the head of this chunk
            need = min(k - n_pending, X.shape[0])
            head_X = _stack_rows(self.pending_X, _take_rows(X, 0, need))
            head_y = np.concatenate([self.pending_y, y[:need]])
            head_w = None
            if weighted:
                before = np.ones(n_pending) if self.pending_w is None else self.pending_w
                head_w = np.concatenate([before, sample_weight[:need]])
                sample_weight = sample_weight[need:]
            X, y = _take_rows(X, need, X.shape[0]), y[need:]
            if head_y.shape[0] < k:
                self.pending_X, self.pending_y, self.pending_w = head_X, head_y, head_w
                self.n_seen += need
                return
            self._run(head_X, head_y, k, head_w)
            self.n_seen += need
        n_full = (X.shape[0] // k) * k
        self._run(X, y, k, sample_weight)
        self.pending_X = _take_rows(X, n_full, X.shape[0]) if n_full < X.shape[0] else None
        self.pending_y = y[n_full:].copy()
        self.pending_w = (sample_weight[n_full:].copy()
                          if weighted and n_full < X.shape[0] else None)
        self.n_seen += X.shape[0]

    def finish(self):
        """The last, incomplete block of a pass is one smaller block (k = its size)."""
        n_pending = self.pending_y.shape[0]
        if n_pending:
            self._run(self.pending_X, self.pending_y, n_pending, self.pending_w)
            self.pending_X, self.pending_y, self.pending_w = None, np.empty(0), None

    def weights(self):
        """``(w, b)`` on the rows as given (the first chunk's column factors folded in); with
        ``average``, the weighted mean of the iterates so far (the last iterate before any
        step)."""
        if self.average and self.n_avg > 0:
            w = (self.avg_s * self.v - self.u) / self.n_avg
        else:
            w = self.scale * self.v
        b = 0.0
        if self.fit_intercept:
            w, b = w[:-1], float(w[-1])
        return (w if self.col_scale is None else w * self.col_scale), b

    def widen_features(self, added: int, undo) -> bool:
        """New features (dict streams) get the factor 1."""
        scale, u = self.col_scale, self.u
        if not super().widen_features(added, undo):
            return False
        if u is not None:
            old = self.n_features - added
            undo.set(self, "u", np.concatenate((u[:old], np.zeros(added), u[old:])))
        if scale is not None:
            undo.set(self, "col_scale", np.concatenate((scale, np.ones(added))))
        return True

    def set_weights(self, w: np.ndarray, b: float) -> None:
        """Make the hyperplane ``(w, b)`` (e.g. an average of shards' models); ``b`` must be 0
        without ``fit_intercept``."""
        if not self.fit_intercept and b != 0.0:
            raise ValueError("a Pegasos model without fit_intercept has no bias to set")
        if self.col_scale is not None:
            w = np.asarray(w, dtype=np.float64) / self.col_scale
        self.v = np.append(w, b) if self.fit_intercept else np.array(w, dtype=np.float64)
        self.scale = 1.0
        self.sqnorm_v = float(self.v @ self.v)
        if self.average:  # the mean is then (w, b), as if every iterate so far had been it
            if self.n_avg > 0:
                self.u, self.avg_s = -self.n_avg * self.v, 0.0
            else:  # no step yet: the weights are the live iterate, scale * v
                self.u, self.avg_s = np.zeros_like(self.v), 0.0

    # the per-row path of learn_one / predict_one (streamsvm.input.row_path)
    def row_ready(self) -> bool:
        """Blocks of one example only (larger blocks wait in ``pending_X``), weights as the
        compiled steps take them; column factors only with ``average`` (its own steps,
        :mod:`._avg_row_core`)."""
        if not (self.block_size == 1 and self.pending_y.shape[0] == 0
                and self.pending_w is None and plain_float_arrays(self.v)):
            return False
        if self.average:
            return (plain_float_arrays(self.u)
                    and (self.col_scale is None or plain_float_arrays(self.col_scale)))
        return self.col_scale is None

    def _row_factors(self):
        return NO_FACTORS if self.col_scale is None else self.col_scale

    def _shrunk_scale(self, t):
        """``w = scale v``'s scale after step ``t`` without an update (margin >= 1): the
        shrink and the projection as pegasos_csr makes them, scalar arithmetic, the exact
        projection test skipped well inside the ball (``||w||^2 lambda < 0.99``: no rounding
        makes ``||w|| > 1/sqrt(lambda)``)."""
        scale = self.scale * (1.0 - 1.0 / t)
        sqnorm_v = self.sqnorm_v
        if (self.projection and sqnorm_v > 0.0
                and scale * scale * sqnorm_v * self.alpha >= 0.99):
            norm_w = scale * math.sqrt(sqnorm_v)
            radius = 1.0 / math.sqrt(self.alpha)
            if norm_w > radius:
                scale *= radius / norm_w
        return scale

    def learn_row(self, cols, vals, y, state, known=None):
        """One step on one example (``state``: the model's
        :class:`~streamsvm.input.row_path.RowState`); its score before, or None if refused.
        ``known``: its score, just computed by :meth:`decision_row` or :meth:`decision_at`
        (whose gathered row is reused)."""
        if self.average:
            if known is None:
                return self._learn_averaged_row(cols, vals, y, state)
            t = self.t
            # margin y w·x >= 1 (w the live iterate): a shrink, the projection and the sums'
            # scalars, as pegasos_avg_csr computes them (unless v is to take the scale: the
            # compiled step below)
            if t > 0 and y * self.scale * state.fview[F_DOT] >= 1.0:
                scale = self._shrunk_scale(t + 1)
                if scale >= AVERAGE_FOLD:
                    self.scale, self.t = scale, t + 1
                    self.avg_s += (t + 1) * scale
                    self.n_avg += float(t + 1)
                    self.n_seen += 1
                    return known
            v, u = self.v, self.u
            if ((v is not state.weights or u is not state.sums)
                    and not state._point_at(v, u, self.col_scale)):
                return None
            # the step on the row the block holds (t advances by 1: its weight t + 1)
            self.scale, self.sqnorm_v, self.t, updates, self.avg_s = (
                averaged_direct.pegasos_avg_learn_at(state.address, y, self.scale,
                                                     self.sqnorm_v, t, self.avg_s))
            self.n_avg += _weight_sum(t, self.t)
            self.n_updates += updates
            self.n_seen += 1
            return known
        t = self.t
        # margin y w·x >= 1 (w at the step's start, as pegasos_csr computes it; x·v + bias:
        # decision_row): the step only shrinks and projects w = scale v
        if known is not None and t > 0 and y * self.scale * state.fview[F_DOT] >= 1.0:
            scale = self._shrunk_scale(t + 1)
            if scale >= 1e-9:  # else v takes the scale: the compiled step below
                self.scale, self.t = scale, t + 1
                self.n_seen += 1
                return known
        if known is not None:  # the step on the row the block holds
            if self.v is not state.weights and not state._point_at(self.v):
                return None
            self.scale, self.sqnorm_v, self.t, updates = direct.pegasos_learn_at(
                state.address, y, self.scale, self.sqnorm_v, self.t)
            self.n_updates += updates
            self.n_seen += 1
            return known
        score, scale, sqnorm_v, t, updates = direct.pegasos_learn_row(
            cols, vals, state.iscratch, state.fscratch, 0 if known is None else 1, y, self.v,
            self.scale, self.sqnorm_v, self.t, self.alpha, 1 if self.projection else 0,
            self.fit_intercept)
        if score != score:
            return None
        self.scale, self.sqnorm_v, self.t = scale, sqnorm_v, t
        self.n_updates += updates
        self.n_seen += 1
        return score

    def _learn_averaged_row(self, cols, vals, y, state):
        """:meth:`learn_row` of the averaged model on a row not scored just before (the
        row gathered here)."""
        t = self.t
        score, scale, sqnorm_v, t, updates, avg_s = averaged_direct.pegasos_avg_learn_row(
            cols, vals, state.iscratch, state.fscratch, 0, y, self.v, self.u, self.avg_s,
            self.n_avg, self.scale, self.sqnorm_v, self.t, self.alpha,
            1 if self.projection else 0, self.fit_intercept, self._row_factors())
        if score != score:
            return None
        self.n_avg += _weight_sum(self.t, t)
        self.scale, self.sqnorm_v, self.t, self.avg_s = scale, sqnorm_v, t, avg_s
        self.n_updates += updates
        self.n_seen += 1
        return score

    @property
    def row_kind(self):
        """The per-row path's decision on its block: with ``v`` and ``scale`` read by the
        path (``"pegasos"``), or the averaged model's :meth:`decision_at`."""
        return "averaged" if self.average else "pegasos"

    def decision_at(self, vals, n, state):
        """The averaged model's decision value of the example of ``n`` values ``vals`` on
        the schema's columns (the row state's block, pointed at ``v``, ``u`` and the
        factors first where it names others); NaN if refused."""
        v, u = self.v, self.u
        if ((v is not state.weights or u is not state.sums)
                and not state._point_at(v, u, self.col_scale)):
            return math.nan
        return averaged_direct.pegasos_avg_decision_at(vals, n, state.address, self.avg_s,
                                                       self.n_avg, self.scale)

    def row_header(self):
        """The block header's bias entry (``v[-1]``, with ``fit_intercept``), flags
        (``projection``, ``fit_intercept``) and parameter (``alpha``) for the per-row steps."""
        return (self.v.shape[0] - 1 if self.fit_intercept else -1, int(self.projection),
                int(self.fit_intercept), self.alpha)

    def decision_row(self, cols, vals, state):
        """The decision value of one example, or None if refused."""
        if self.average:
            score = averaged_direct.pegasos_avg_decision_row(
                cols, vals, state.iscratch, state.fscratch, self.v, self.u, self.avg_s,
                self.n_avg, self.scale, self.fit_intercept, self._row_factors())
            return None if score != score else score
        score = direct.pegasos_decision_row(cols, vals, state.iscratch, state.fscratch, self.v,
                                            self.scale, self.fit_intercept)
        return None if score != score else score


class Pegasos(SampleWeightMixin, LinearStreamClassifier):
    """Pegasos (Shalev-Shwartz, Singer, Srebro & Cotter, 2011) as a single sweep over the stream.

    The paper: "Pegasos: Primal Estimated sub-GrAdient SOlver for SVM", Mathematical
    Programming 127, 2011 (first at ICML 2007, without Cotter).
    Minimises ``lambda/2 ||w||^2 + mean hinge loss`` by sub-gradient steps on blocks of
    ``block_size`` consecutive examples: with ``eta_t = 1/(lambda t)``,
    ``w <- (1 - eta_t lambda) w + eta_t/k sum_{A_t^+} y x`` over the examples of the block
    with margin below 1, then the projection onto the ball ``||w|| <= 1/sqrt(lambda)``.
    As in the one-pass comparison of Rai et al. (IJCAI 2009, Table 1), ``fit`` makes one
    sweep and ``block_size`` plays the role of a lookahead (they use k = 1 and k = 20).
    Choose it when a fast primal linear SVM is enough.

    Blocks span ``partial_fit`` calls: up to ``block_size - 1`` examples wait for their
    block to fill (they are learnt when it does, or at the end of ``fit``).

    Parameters
    ----------
    alpha : float, default=1e-2
        The regularisation ``lambda`` of the paper. Chosen because the first steps
        ``eta_t = 1/(lambda t)`` are huge with a small lambda, so that the first examples
        weigh too much: one pass in chunks of 1,000 on raw Adult (a9a) gives 84.4–84.8% on
        the file order and on each of 5 shuffles with 1e-2 (and the bias), against 77.1–83.4%
        (median 83.2%, file order 80.8%) with 1e-4, the previous default; on small
        standardised tables 1e-4 fell to 0.31 balanced accuracy (scikit-learn's diabetes
        table, file order; ``benchmarks/results/defaults_adult_one_pass.md``). The paper
        tunes lambda per dataset; Rai et al.'s Table 1 gives none (its benchmark here uses
        1e-4).
    block_size : int, default=1
        Examples per sub-gradient step (``k``).
    projection : bool, default=True
        Project onto ``||w|| <= 1/sqrt(alpha)`` after each step.
    average : bool, default=True
        Predict with the mean of the iterates ``w_1 … w_T`` (one per block, after its
        projection) weighted by ``t``, ``sum_t t w_t / sum_t t``: the average that gives
        Pegasos's strongly convex objective the O(1/T) rate (Lacoste-Julien, Schmidt &
        Bach, "A simpler approach to obtaining an O(1/t) convergence rate for the projected
        stochastic subgradient method", 2012), instead of the last iterate ``w_T``. Kept in
        O(1) per block without a pass over ``w``: ``sum_t t w_t = s v - u`` with
        ``w_t = scale_t v``, ``s`` the sum of ``t scale_t`` and ``u`` gaining ``s c x`` with
        each step ``v += c x``. Chosen because one pass of the last iterate is as noisy as
        its last steps: on raw scikit-learn digits (one-vs-rest) at the defaults the test
        accuracy is 0.831 with the last iterate, 0.905 with the plain mean and 0.924 with
        the weighted one (``SGDClassifier()``: 0.907); breast cancer 0.906 → 0.901, ijcnn1,
        a9a, w3a and satimage 4-vs-rest within 0.1 point; the defaults study's mean balanced
        accuracy 76.5 → 77.5 (``docs/choosing.md``, raw data). ``learn_one`` after
        ``predict_one`` costs about 1.1× the last iterate's
        (``benchmarks/results/per_row.md``). False: the paper's output, the
        last iterate; files saved before this parameter existed keep it.
    fit_intercept : bool, default=True
        Append a constant feature 1 to every row, its weight the bias (regularised with
        ``w``: the first of the paper's ways to incorporate a bias term; the row is
        not written out). Chosen because without it the hyperplane passes through the
        origin, which on imbalanced standardised data predicted the wrong class: 0.31
        balanced accuracy on scikit-learn's diabetes table (progression > 250, 15%
        positive) in file order, 0.72 with it. False is the paper's unbiased SVM.
    class_weight : None, "balanced" or dict {label: weight > 0}, default=None
        Weights of the classes, multiplying ``sample_weight`` (``fit`` and ``partial_fit``
        take one per row) as in scikit-learn's ``SGDClassifier``: a row of weight ``w_i``
        with margin below 1 steps by ``eta_t / k * w_i y_i x_i`` (the sub-gradient of the
        weighted hinge loss); a row of weight 0 still shrinks ``w`` and advances ``t``.
        ``'balanced'`` gives class ``c`` the weight ``n / (k n_c)`` from the labels counted
        so far (:mod:`streamsvm.base.weights`). Weighted learning takes the general path of
        ``learn_one``.
    verbose : int, default 0
        0: silent; 1: a progress line (rows done, rows/s) every few seconds of ``fit`` or
        ``partial_fit`` and a notice before the first use compiles; 2: also their start and
        end (``streamsvm.utils.progress``).

    Attributes
    ----------
    coef_, intercept_ : the weights, shape (1, n_features) and (1,) for two classes (one row
        per class with more), on the features as given (also where the first chunk fixed
        column factors for unscaled data).
    n_updates_ : int, sub-gradient steps that moved the weights, summed over one-vs-rest
        learners.

    Examples
    --------
    >>> from streamsvm import Pegasos
    >>> from streamsvm.datasets import make_synthetic_a
    >>> X, y = make_synthetic_a(2000, random_state=0)
    >>> Pegasos(block_size=20).fit(X, y).score(X, y) > 0.7
    True
    """

    _order_sensitive = True  # sorted labels: streamsvm.base.order

    _learner_class = _PegasosLearner
    _bounded_memory = True
    _learner_params = ("alpha", "block_size", "projection", "fit_intercept", "average")

    _parameter_constraints = {
        "verbose": VERBOSE,
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "block_size": [Interval(Integral, 1, None)],
        "projection": [Boolean()],
        "fit_intercept": [Boolean()],
        "average": [Boolean()],
        "class_weight": CLASS_WEIGHT,
    }
    _expected_failed_checks = {
        **{check: ("as SGDClassifier's, a row of weight 0 still counts as a step (t grows and "
                   "w shrinks) and a row of weight 2 takes one step of twice the size, not two")
           for check in ("check_sample_weight_equivalence_on_dense_data",
                         "check_sample_weight_equivalence_on_sparse_data")},
    }

    def __init__(self, *, alpha=1e-2, block_size=1, projection=True, fit_intercept=True,
                 average=True, class_weight=None, verbose=0):
        keep_params(self, locals())

    @property
    def _chunk_invariant(self) -> bool:
        """Whether the rest of the stream gives the same model however it is chunked: yes
        once the first data have fixed the column factors of raw rows (``fit``: from its
        first 1,000 rows, whatever pieces it learns them in); a fresh model's factors come
        from its first chunk, and a first chunk of fewer rows may fix others (as
        :class:`~streamsvm.kernels.FirstDataRule`'s ``gamma='scale'``)."""
        return "classes_" in self.__dict__

    def _factors_from_first_data(self) -> bool:
        """Raw rows: the column factors of the first data (:func:`first_chunk_scale`)."""
        return True

    n_updates_ = summed_over_learners("n_updates",
                                      "Sub-gradient steps that moved the weights.")
