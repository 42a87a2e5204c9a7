"""Stream-based active learning, River style: ``y_pred, ask = sampler.predict_one(x)``.

:class:`ActiveSampler` sees the unlabelled examples one at a time (a stream that cannot be
revisited) and says, for each, whether its label is worth asking for. It is the small-pool
selection of "Learning on the border" (Ertekin, Huang, Bottou & Giles, CIKM 2007, Section
3.2) turned into a stream decision: the pool is the newest example together with the
``L - 1`` examples seen just before it, all scored under the *current* model, and the label
is asked for when the newest one is the closest of them to the hyperplane. On an i.i.d.
stream the newest of ``L`` is the closest with probability ``1 / L``, so about one example
in ``L`` is asked about, and an asked example is among the closest fraction ``p`` of the
stream with probability ``1 - (1 - p)^L`` (eq. 6; 95% for ``L = 59``, ``p = 5%``). (The
window keeps the examples asked about: were they dropped, as the pool version drops its
picks, the window would hold only the examples that lost, far from the hyperplane, and
about every other example would be asked about.)
Asking stops once the model's stopping rule holds (support-vector count saturated, or the
margin exhausted) or the label budget is spent; predictions go on.

Until both classes have support vectors every example scores the same, and every example
is asked about (the pool version draws at random then: one label per query either way).
After that, asking waits until the window holds its ``L - 1`` examples.

An example is a 1-D array, a dict, or a one-row sparse matrix. With sparse rows (text, say)
the model and the window stay sparse: the first example fixes the kind, and later ones are
converted to it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..input.validation import check_features, check_one_example, row_sqnorms
from ..lasvm._expansion_core import N_COLS
from . import _core
from .oracle import check_learner_setup

__all__ = ["ActiveSampler"]


class ActiveSampler:
    """Ask for labels of a stream of unlabelled examples, River's ``(y_pred, ask)`` protocol.

    Parameters
    ----------
    classes : sequence of two labels
        The labels the caller answers with; ``classes[1]`` after sorting is the positive
        class of ``decision_function``.
    model : ActiveSVM, optional
        Settings (cloned): kernel, ``C``, ``gamma`` (give a number: ``"scale"`` would be
        fixed from the first example alone), ``pool_size`` (``L``, the stream window, 59),
        ``stopping``, ``window``, ``tolerance``, ``margin_span``, ``class_weight``.
    budget : int or None
        Most labels to ask for (``model.max_labels`` also caps them).

    Attributes
    ----------
    model : the ActiveSVM being trained (usable once a label has been learnt).
    n_seen_ : int, examples given to :meth:`predict_one`.
    n_asked_ : int, examples for which ``ask`` was True.
    n_labels_ : int, labels learnt (:meth:`learn_one` calls).
    stop_reason_ : str, "" while asking; then "sv_count", "margin" or "budget".

    Examples
    --------
    >>> import numpy as np
    >>> from streamsvm.active import ActiveSampler, ActiveSVM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(3000, 2))
    >>> truth = np.where(X[:, 0] > 1.5, "rare", "common")
    >>> sampler = ActiveSampler(classes=["common", "rare"], budget=200,
    ...                         model=ActiveSVM(C=10.0, gamma=1.0, random_state=0))
    >>> for i, x in enumerate(X):
    ...     y_pred, ask = sampler.predict_one(x)
    ...     if ask:
    ...         _ = sampler.learn_one(x, truth[i])     # the caller's oracle
    >>> sampler.n_labels_ == sampler.n_asked_ <= 200, sampler.n_labels_ < 400
    (True, True)
    >>> float(np.mean(sampler.model.predict(X) == truth)) > 0.97
    True
    """

    def __init__(self, *, classes, model=None, budget=None):
        self.classes, model = check_learner_setup(classes, model, budget)
        if model.pool_size == "full":
            raise ValueError("a stream cannot be searched in full: give pool_size an integer")
        self.model = model
        caps = [c for c in (budget, model.max_labels) if c is not None]
        self.budget = min(caps) if caps else None
        self.n_seen_ = 0
        self.n_asked_ = 0
        self.n_labels_ = 0
        self.stop_reason_ = ""
        self._learner = None
        self._names = None
        self._sparse = False  # the kind of the first example: the model and window keep it
        self._window = None  # the last L - 1 examples seen (a ring): (L - 1, d) or CSR rows
        self._window_f = None  # their y(x) under the current model
        self._n_window = 0
        self._next = 0  # ring position of the next entry
        self._pending = None  # (row, y(x)) of the example last asked about

    # ------------------------------------------------------------------ input
    def _row(self, x):
        n_features = None if self._learner is None else self.model.n_features_in_
        if sp.issparse(x):
            if x.ndim != 2 or x.shape[0] != 1:
                raise ValueError(f"a sparse example must be one row; got shape {x.shape}")
            row, names = check_features(x, n_features=n_features,
                                        estimator_name="ActiveSampler"), self._names
        else:
            row, names = check_one_example(x, feature_names=self._names,
                                           n_features=n_features)
            row = np.ascontiguousarray(row, dtype=np.float64)
            if not np.all(np.isfinite(row)):
                raise ValueError("the example holds NaN or infinite values")
        if self._learner is not None and row.shape[1] != self.model.n_features_in_:
            raise ValueError(f"the example has {row.shape[1]} features; the sampler was started "
                             f"with {self.model.n_features_in_}")
        if self._learner is not None and sp.issparse(row) != self._sparse:
            row = (check_features(sp.csr_matrix(row), estimator_name="ActiveSampler")
                   if self._sparse else row.toarray())
        if self._learner is not None:
            self.model._check_row_norms(row)
        return row, names

    def _start(self, row, names):
        model = self.model
        model._start_checked(row, row_sqnorms(row))
        model._grow_classes(self.classes)
        self._learner = model.learners_[0]
        self._names = names
        self._sparse = sp.issparse(row)
        size = max(int(model.pool_size) - 1, 0)
        self._window = [None] * size if self._sparse else np.zeros((size, row.shape[1]))
        self._window_f = np.zeros(size)

    # ------------------------------------------------------------------ protocol
    def predict_one(self, x):
        """``(y_pred, ask)`` for one unlabelled example (1-D array or dict): the current
        prediction (None before any label) and whether its label should be asked for.
        Answer an ``ask`` with :meth:`learn_one` before the next example."""
        row, names = self._row(x)
        if self._learner is None:
            self._start(row, names)
        learner = self._learner
        f = float(learner.decision_function(row)[0]) if self.n_labels_ else 0.0
        y_pred = None if self.n_labels_ == 0 else self.classes.tolist()[int(f > 0)]
        self.n_seen_ += 1
        self._pending = None  # an unanswered ask is forgotten
        ask = False
        radius = 0.0
        if not self.stop_reason_ and self.budget is not None and self.n_labels_ >= self.budget:
            self.stop_reason_ = "budget"
        if not self.stop_reason_:
            if learner.both_at < 0:
                ask = True
            elif self._n_window == len(self._window) and (
                    self._n_window == 0 or abs(f) < np.abs(self._window_f).min()):
                radius = self._radius()
                ask = self._margin_check(abs(f), radius)
        if ask:
            self._pending = (row, f, radius)
            self.n_asked_ += 1
        size = len(self._window)
        if size:
            self._window[self._next] = row if self._sparse else row[0]
            self._window_f[self._next] = f
            self._next = (self._next + 1) % size
            self._n_window = min(self._n_window + 1, size)
        return y_pred, ask

    def _radius(self) -> float:
        """``min(1, max_s |y(x_s)|)`` over the support vectors."""
        learner = self._learner
        n_cols = int(learner.cnt[N_COLS])
        _, _, r = _core.support_stats(learner.alpha, learner.g, learner.perm, learner.ys,
                                      learner.intercept, n_cols)
        return min(1.0, r)

    def _margin_check(self, distance, radius) -> bool:
        """The margin rule (Section 3.4) on the closest example of the window, as in the
        pool version: when it is no closer to the hyperplane than every support vector the
        point is recorded, and with ``stopping`` "margin" or "either" asking ends (False);
        otherwise it is asked about, inside the margin or not."""
        learner = self._learner
        ist = learner.ist
        if distance >= radius:
            if ist[_core.I_MSTOP] < 0:
                ist[_core.I_MSTOP] = ist[_core.I_NLABELS]
            if learner.rule in (_core.RULE_MARGIN, _core.RULE_EITHER):
                self.stop_reason_ = "margin"
                return False
            return True
        ist[_core.I_LASTIN] = ist[_core.I_NLABELS] + 1
        return True

    def learn_one(self, x, y):
        """Learn the label ``y`` of ``x`` (one LASVM iteration). Normally the example just
        asked about; another example is learnt too and counts as a label. Raises ValueError
        (and changes nothing) for a label outside ``classes`` or once the budget is spent."""
        row, names = self._row(x)
        if np.ndim(y) != 0 or not any(c == y for c in self.classes.tolist()):
            raise ValueError(f"label {y!r} is not one of the classes {self.classes.tolist()}")
        if self.budget is not None and self.n_labels_ >= self.budget:
            raise ValueError(f"the label budget of {self.budget} is spent")
        if self._learner is None:
            self._start(row, names)
        pending = self._pending
        if pending is not None and _same_row(pending[0], row):
            _, f, radius = pending
        else:
            f = float(self._learner.decision_function(row)[0]) if self.n_labels_ else 0.0
            radius = self._radius() if self._learner.both_at >= 0 else 0.0
        self._pending = None
        label = 1.0 if y == self.classes[1] else -1.0
        self._learner.learn_example(row, label, self.n_seen_ - 1, f, radius)
        self.model.n_seen_ += 1
        self.n_labels_ += 1
        if self._learner.stop_reason == "sv_count":
            self.stop_reason_ = "sv_count"
        if self._n_window:  # the model moved: rescore the window
            window = self._window[: self._n_window]
            self._window_f[: self._n_window] = self._learner.decision_function(
                sp.vstack(window, format="csr") if self._sparse else window)
        return self

    def stream(self, examples, oracle):
        """Run over an iterable of examples, calling ``oracle(index, x)`` for the label of
        each example asked about (and for no other); yields ``(y_pred, ask)`` per example."""
        if not callable(oracle):
            raise TypeError(f"oracle must be callable as oracle(index, x); got {oracle!r}")
        for index, x in enumerate(examples):
            y_pred, ask = self.predict_one(x)
            if ask:
                self.learn_one(x, oracle(index, x))
            yield y_pred, ask

    # ------------------------------------------------------------------ model
    def predict(self, X):
        return self.model.predict(X)

    def decision_function(self, X):
        return self.model.decision_function(X)


def _same_row(a, b) -> bool:
    """Whether two (1, d) rows, dense or CSR (of the same kind), hold the same values."""
    if sp.issparse(a):
        return a.shape == b.shape and (a != b).nnz == 0
    return np.array_equal(a, b)
