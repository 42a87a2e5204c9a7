"""Rosenblatt's perceptron, one pass: the simplest baseline of StreamSVM's Table 1."""

import numpy as np
import scipy.sparse as sp

from ..base import SampleWeightMixin, refuse_rows
from ..base.support import summed_over_learners
from ..base.weights import CLASS_WEIGHT
from ..input.row_path import plain_float_arrays
from ..utils.params import VERBOSE, Boolean, keep_params
from ._common import LinearLearner, LinearStreamClassifier
from ._core import perceptron_csr, perceptron_dense
from ._row_core import direct


class _PerceptronLearner(LinearLearner):
    _feature_arrays = ("coef",)

    def __init__(self, n_features, rng, *, fit_intercept):
        super().__init__(n_features, rng)
        self.fit_intercept = bool(fit_intercept)
        self.coef = np.zeros(n_features)
        self.intercept = 0.0
        self.n_updates = 0

    def partial_fit(self, X, y, sample_weight=None):
        n_rows = X.shape[0]
        if sample_weight is not None:  # the update w_i y_i x_i: the labels scaled by w_i > 0
            kept = sample_weight > 0
            if not kept.all():
                X, y, sample_weight = X[kept], y[kept], sample_weight[kept]
            y = y * sample_weight
        if sp.issparse(X):
            self.intercept, mistakes = perceptron_csr(
                X.indptr, X.indices, X.data, y, self.coef, self.intercept, self.fit_intercept
            )
        else:
            self.intercept, mistakes, rows_sqnorm = perceptron_dense(
                X, y, self.coef, self.intercept, self.fit_intercept
            )
            refuse_rows(rows_sqnorm)
        self.n_updates += int(mistakes)
        self.n_seen += n_rows

    def weights(self):
        return self.coef, self.intercept

    # the per-row path of learn_one / predict_one (streamsvm.input.row_path)
    def row_ready(self) -> bool:
        """Weights as the compiled steps take them."""
        return plain_float_arrays(self.coef)

    def learn_row(self, cols, vals, y, state, known=None):
        """Learn one example (``state``: the model's :class:`~streamsvm.input.row_path.RowState`);
        its score before, or None if refused. ``known``: its score, just computed by
        :meth:`decision_row` (whose gathered row is reused; no mistake, nothing to do)."""
        if known is not None:
            if y * known <= 0.0:  # a mistake: the rule on the row the block holds
                if self.coef is not state.weights and not state._point_at(self.coef):
                    return None
                self.intercept, mistakes = direct.perceptron_learn_at(state.address, y,
                                                                      self.intercept)
                self.n_updates += mistakes
            self.n_seen += 1
            return known
        score, intercept, mistakes = direct.perceptron_learn_row(
            cols, vals, state.iscratch, state.fscratch, 0 if known is None else 1, y, self.coef,
            self.intercept, 1 if self.fit_intercept else 0)
        if score != score:
            return None
        self.intercept = intercept
        self.n_updates += mistakes
        self.n_seen += 1
        return score

    #: the per-row path's linear decision on its block (RowState: ``coef``, ``intercept``)
    row_kind = "linear"

    def row_header(self):
        """The block header's bias entry, flags and parameter for the per-row steps."""
        return -1, int(self.fit_intercept), 0, 0.0

    def decision_row(self, cols, vals, state):
        """The decision value of one example, or None if refused."""
        score = direct.linear_decision_row(cols, vals, state.iscratch, state.fscratch,
                                           self.coef, 1.0, self.intercept)
        return None if score != score else score


class Perceptron(SampleWeightMixin, LinearStreamClassifier):
    """The perceptron (Rosenblatt 1958): on a mistake ``y (w·x + b) <= 0``, ``w += y x``.

    With weights (``class_weight``, ``sample_weight``) a mistake on row i updates
    ``w += w_i y_i x_i`` (and ``b += w_i y_i``): a row of weight 2 moves the model as two
    mistakes on it would; weight 0 skips the row.

    ``fit`` makes a single pass over the rows in the given order, as in the one-pass
    comparison of Rai et al. (IJCAI 2009, Table 1). Choose it as a fast reference point:
    it keeps one weight vector and needs no parameter, but it does not maximise a margin
    and its one-pass accuracy depends on the order of the stream.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn a bias ``b`` (updated like the weight of a constant feature 1).
    class_weight : None, "balanced" or dict {label: weight > 0}, default=None
        Multiplies the update of the rows of a class. "balanced" is ``n / (k n_c)`` from
        the rows counted so far (``class_counts_``: ``fit`` counts all of ``y``;
        ``partial_fit`` counts each chunk before learning it; ``docs/imbalanced.md``).
    verbose : int, default 0
        0: silent; 1: a progress line (rows done, rows/s) every few seconds of ``fit`` or
        ``partial_fit`` and a notice before the first use compiles; 2: also their start and
        end (``streamsvm.utils.progress``).

    Attributes
    ----------
    coef_, intercept_ : the weights, shape (1, n_features) and (1,) for two classes.
    n_updates_ : int, the number of mistakes (= updates), summed over one-vs-rest learners.

    Examples
    --------
    >>> from streamsvm import Perceptron
    >>> from streamsvm.datasets import make_synthetic_a
    >>> X, y = make_synthetic_a(2000, random_state=0)
    >>> model = Perceptron().fit(X, y)
    >>> model.score(X, y) > 0.7
    True
    """

    _order_sensitive = True  # sorted labels: streamsvm.base.order

    _learner_class = _PerceptronLearner
    _chunk_invariant = True  # the same stream gives the same model however it is chunked
    _bounded_memory = True
    _learner_params = ("fit_intercept",)

    _parameter_constraints = {"fit_intercept": [Boolean()], "class_weight": CLASS_WEIGHT,
                              "verbose": VERBOSE}
    _expected_failed_checks = {
        **{check: "one update of 2 y x on a mistake is not two passes of the perceptron rule "
                  "(the second copy of a row may not be a mistake any more)"
           for check in ("check_sample_weight_equivalence_on_dense_data",
                         "check_sample_weight_equivalence_on_sparse_data")},
        "check_class_weight_classifiers": (
            "the weighted perceptron criterion has no margin: weights of 1000 and 1e-4 scale "
            "the updates of one pass over noisy blobs, which predicts class 0 for 52% of the "
            "test rows, not the 87% the check asks (LASVM with the same weights: 100%)"),
    }

    def __init__(self, *, fit_intercept=True, class_weight=None, verbose=0):
        keep_params(self, locals())

    n_updates_ = summed_over_learners("n_updates",
                                      "Mistakes (= updates), summed over the learners.")
