"""The public estimator: an L2-SVM tracked over K sites (``003_…`` chapter 4).

:class:`DistributedL2SVM` keeps, at every site, the (exact or ε-approximate) two-class or
one-class L2-SVM over the union of the sites' current points, while points are added and
deleted at the sites. It is a thin front over :class:`~streamsvm.distributed.protocol.Tracker`
with the L2-SVM kernel k̂ of section 4.1 and f = ‖·‖².

It is not in the estimator registry: its stream is one of *events at sites* (which site holds
a point, deletions by id), not chunks of (X, y); the model is two-class or one-class only;
and every event is a protocol step in Python (messages between sites), so scikit-learn's
generic check suite would mostly exercise the simulation rather than the model. It still
offers ``fit`` / ``partial_fit`` (points dealt to the sites round-robin, or as given),
``predict``, ``decision_function`` and ``score``, and ``get_params`` / ``clone``.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError

from .._params import (
    Boolean,
    CheckedParamsMixin,
    Interval,
    IsNone,
    LabelPair,
    Options,
    check_params,
)
from .._validation import check_features, check_row_norms
from ..kernels import FirstDataRule, kernel_parameter_constraints
from ..kernels.spec import max_safe_sqnorm
from .events import iter_events
from .objective import KernelSpace, SquaredNorm
from .protocol import UPDATE_METHODS, Tracker

__all__ = ["DistributedL2SVM"]


class DistributedL2SVM(CheckedParamsMixin, FirstDataRule, ClassifierMixin, BaseEstimator):
    """Two-class or one-class L2-SVM held by every one of ``n_sites`` sites.

    Parameters
    ----------
    n_sites : int, number of sites K (paper: 10)
    task : 'two-class' (k̂ = y_i y_j (k + 1) + δ_ij/C) or 'one-class' (k̂ = k + δ_ij/C)
    kernel, gamma, degree, coef0 : the kernel k as in scikit-learn; ``gamma`` ('scale' by
        default, or 'auto') is fixed as ``gamma_`` from the first data: all of X in
        :meth:`fit`, the first point in :meth:`add` (``docs/design.md``)
    C : float > 0 or inf, the L2-SVM penalty (inf: no δ_ij/C term, hard margin)
    epsilon : float ≥ 0; 0 tracks the exact optimum, > 0 an ε-approximation of f(ê)
    relative : read epsilon as the relative ε̂ of section 3.3
    update : 'method1' (iterated local solves) or 'method2' (one collection, one solve)
    membership : 'qp' or 'lp' hull membership (method 2's extreme points)
    backend : 'local' (in-process, deterministic) or 'ray' (one actor per site)
    deletion_check : 'update' or 'hull' (exact mode: try to re-express ê before updating)
    monitor_tol : rounding allowance of the exact constraints (relative to max k̂(x, x))
    shared_cache : entries of every site's dictionary of broadcast vectors, so that a point
        is broadcast at most once while it stays there (0: the thesis' counting, where an
        atom that leaves ê and re-enters it is sent again)
    classes : two labels (negative, positive) to map to −1 / +1 in :meth:`add`

    Attributes
    ----------
    classes_, n_features_in_, gamma_ (None for 'linear' and callables), tracker_ (the
    :class:`Tracker`), support_ids_, dual_coef_
    (coefficients a_i of ê), objective_ (f(ê) = ‖ê‖²), n_support_ (atoms of ê).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2)); y = np.where(X[:, 0] > 0, 1, -1)
    >>> svm = DistributedL2SVM(n_sites=4, kernel="linear", C=10.0)
    >>> for i in range(40):
    ...     _ = svm.add(i % 4, X[i], y[i], point_id=i)
    >>> svm.delete(0, 0)
    >>> float(svm.score(X, y)) > 0.9
    True
    >>> svm.communication_report()["additions"]
    40

    Saved and loaded like every streamsvm model (:func:`streamsvm.save` / :func:`streamsvm.load`,
    no pickle), with every site's state, the communication counts and the event records, so
    the event stream continues exactly where it stopped.
    """

    _streamsvm_model = True  # streamsvm.save / load take it (it is not a StreamClassifier)
    _transient = ()
    _parameter_constraints = {
        "n_sites": [Interval(Integral, 1, None)],
        "task": [Options("two-class", "one-class")],
        **kernel_parameter_constraints(callable_kernel=True),
        "C": [Interval(Real, 0, math.inf, closed="right")],
        "epsilon": [Interval(Real, 0, None)],
        "relative": [Boolean()],
        "update": [Options(*UPDATE_METHODS)],
        "membership": [Options("qp", "lp")],
        "backend": [Options("local", "ray")],
        "deletion_check": [Options("update", "hull")],
        "monitor_tol": [Interval(Real, 0, None)],
        "shared_cache": [Interval(Integral, 0, None)],
        "classes": [IsNone(), LabelPair()],
    }

    def __init__(self, n_sites=10, *, task="two-class", kernel="rbf", gamma="scale", degree=3,
                 coef0=0.0, C=1.0, epsilon=0.0, relative=False, update="method1",
                 membership="qp", backend="local", deletion_check="update", monitor_tol=1e-9,
                 shared_cache=10_000, classes=None):
        self.n_sites = n_sites
        self.task = task
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.C = C
        self.epsilon = epsilon
        self.relative = relative
        self.update = update
        self.membership = membership
        self.backend = backend
        self.deletion_check = deletion_check
        self.monitor_tol = monitor_tol
        self.shared_cache = shared_cache
        self.classes = classes

    # ------------------------------------------------------------------ set-up

    def _start(self, n_features, X):
        self._fix_from_first_data(X)
        space = KernelSpace(self._fitted_kernel(), float(self.C), self.task)
        if hasattr(self, "tracker_"):
            self.tracker_.close()
        self.tracker_ = Tracker(
            self.n_sites, n_features, space, SquaredNorm(), epsilon=self.epsilon,
            relative=self.relative, update=self.update, membership=self.membership,
            deletion_check=self.deletion_check, backend=self.backend,
            monitor_tol=self.monitor_tol, shared_cache=self.shared_cache,
        )
        self.n_features_in_ = int(n_features)
        if self.task == "one-class":
            self.classes_ = np.array([-1, 1])
        elif self.classes is not None:
            self.classes_ = np.asarray(self.classes)
        else:
            self.classes_ = np.array([-1, 1])

    def _label(self, y):
        if self.task == "one-class":
            return 1.0
        if self.classes is not None or not np.array_equal(self.classes_, [-1, 1]):
            hits = np.flatnonzero(self.classes_ == y)
            if hits.size == 0:
                raise ValueError(f"label {y!r} is not one of the classes "
                                 f"{self.classes_.tolist()}")
            return -1.0 if hits[0] == 0 else 1.0
        if y not in (-1, 1):
            raise ValueError(f"a two-class label must be -1 or +1 (or pass classes=); got {y!r}")
        return float(y)

    # ------------------------------------------------------------------ events

    def add(self, site, x, y=1, point_id=None):
        """A point arrives at ``site``; returns its point id."""
        x = np.asarray(x, dtype=np.float64).ravel() if not np.isscalar(x) else x
        if np.ndim(x) == 1 and np.size(x):
            self._check_rows(x.reshape(1, -1))
        if not hasattr(self, "tracker_"):
            check_params(self)
            width = np.asarray(x).size
            if width == 0:
                raise ValueError("x is empty")
            label = self._label_before_start(y)
            self._start(width, np.reshape(x, (1, width)))
            record = self.tracker_.add(site, x, label, point_id)
        else:
            record = self.tracker_.add(site, x, self._label(y), point_id)
        return record["point_id"]

    def _label_before_start(self, y):
        classes = np.array([-1, 1]) if self.classes is None or self.task == "one-class" \
            else np.asarray(self.classes)
        self.classes_ = classes
        return self._label(y)

    def delete(self, site, point_id):
        """The point ``point_id`` (added at ``site``) is deleted."""
        self._check_fitted()
        self.tracker_.delete(site, point_id)

    def fit(self, X, y=None, sites=None):
        """Reset, then add the rows of X in order, row i at site ``sites[i]`` (default
        ``i mod n_sites``). For two-class, y holds two labels (sorted: the first → −1)."""
        check_params(self)
        X, y, sites = self._check_batch(X, y, sites)
        if self.task == "two-class":
            classes = np.unique(y)
            if classes.size != 2:
                raise ValueError(f"y must contain exactly two classes; got {classes.tolist()}")
        self._start(X.shape[1], X)
        if self.task == "two-class":
            self.classes_ = classes if self.classes is None else np.asarray(self.classes)
        self._add_rows(X, y, sites)
        return self

    def partial_fit(self, X, y=None, sites=None):
        """Add the rows of X (continuing point ids) without resetting."""
        if not hasattr(self, "tracker_"):
            return self.fit(X, y, sites)
        X, y, sites = self._check_batch(X, y, sites)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, the model {self.n_features_in_}")
        labels = [self._label(v) for v in y]  # check every label before changing anything
        self._add_rows(X, labels, sites, mapped=True)
        return self

    def _check_batch(self, X, y, sites):
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[0] == 0:
            raise ValueError(f"X must be a non-empty 2-D array; got shape {X.shape}")
        self._check_rows(X)
        if y is None:
            if self.task == "two-class":
                raise ValueError("a two-class model needs labels y")
            y = np.ones(X.shape[0])
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y must have one label per row of X; got shape {y.shape}")
        if sites is None:
            sites = np.arange(X.shape[0]) % self.n_sites
        sites = np.asarray(sites)
        if sites.shape != (X.shape[0],) or not np.issubdtype(sites.dtype, np.integer) \
                or sites.min() < 0 or sites.max() >= self.n_sites:
            raise ValueError(f"sites must give one site in 0..{self.n_sites - 1} per row")
        return X, y, sites

    def _check_rows(self, X):
        """Refuse NaN, infinity and rows too large for the kernel, naming the first such row
        (the bound of :func:`~streamsvm.kernels.spec.max_safe_sqnorm` for the resolved kernel
        once there is one, before that the linear bound, which is the loosest)."""
        X, sqnorms = check_features(X, accept_sparse=False, estimator_name="DistributedL2SVM",
                                    return_sqnorms=True)
        kernel = self.tracker_.space.kernel if hasattr(self, "tracker_") else None
        if kernel is None or kernel.is_callable:
            name, limit = "linear", max_safe_sqnorm("linear")
        else:
            name = kernel.kernel
            limit = max_safe_sqnorm(name, gamma=kernel.gamma_, degree=kernel.degree,
                                    coef0=kernel.coef0)
        check_row_norms(sqnorms, limit, estimator_name="DistributedL2SVM", kernel_name=name)

    def _add_rows(self, X, y, sites, mapped=False):
        for i in range(X.shape[0]):
            label = y[i] if mapped else self._label(y[i])
            self.tracker_.add(int(sites[i]), X[i], label)

    def run_events(self, events, *, on_query=None):
        """Replay an event log (a path, lines, or :class:`~.events.Event` objects).

        ``on_query(event, decision_value)`` is called for each query. Returns the number of
        events run. Errors name the line of the offending event."""
        if isinstance(events, str) or hasattr(events, "__fspath__"):
            events = iter_events(events)
        else:
            events = list(events)
            if events and isinstance(events[0], str):
                events = iter_events(events)
        count = 0
        for event in events:
            try:
                if event.kind == "add":
                    self.add(event.site, event.x, _as_label(event.label), event.point_id)
                elif event.kind == "delete":
                    self.delete(event.site, event.point_id)
                else:
                    value = float(self.decision_function(event.x.reshape(1, -1),
                                                         site=event.site)[0])
                    if on_query is not None:
                        on_query(event, value)
            except (ValueError, TypeError, NotFittedError) as exc:
                raise type(exc)(f"line {event.line}: {exc}") from exc
            count += 1
        return count

    # ----------------------------------------------------------------- queries

    def _check_fitted(self):
        if not hasattr(self, "tracker_") or not self.tracker_._has_global:
            raise NotFittedError("DistributedL2SVM has no model yet: add points or call fit")

    def __sklearn_is_fitted__(self):
        return hasattr(self, "tracker_") and self.tracker_._has_global

    def decision_function(self, X, site=0):
        """Decision values as held by ``site`` (no communication, section 4.4)."""
        self._check_fitted()
        X = np.asarray(X, dtype=np.float64)
        self._check_rows(X.reshape(1, -1) if X.ndim == 1 else X)
        return self.tracker_.decision_function(X, site)

    def predict(self, X, site=0):
        """Class labels (one-class: +1 inside the support, −1 outside)."""
        scores = self.decision_function(X, site)
        return self.classes_[(scores >= 0).astype(int)] if self.task == "two-class" \
            else np.where(scores >= 0, 1, -1)

    def communication_report(self) -> dict:
        """Totals of messages, vectors, scalars, bytes, rounds, beside the naive protocol's."""
        self._check_fitted()
        return self.tracker_.report()

    @property
    def events_(self):
        """Per-event records (:class:`~.network.EventRecord`)."""
        self._check_fitted()
        return self.tracker_.stats.events

    @property
    def support_ids_(self):
        self._check_fitted()
        return self.tracker_.global_vector()[0]

    @property
    def dual_coef_(self):
        self._check_fitted()
        return self.tracker_.global_vector()[1]

    @property
    def n_support_(self):
        return int(self.support_ids_.size)

    @property
    def objective_(self):
        self._check_fitted()
        return self.tracker_.objective_value()

    def close(self):
        """Release the backend (stops Ray actors)."""
        if hasattr(self, "tracker_"):
            self.tracker_.close()


def _as_label(value):
    return int(value) if float(value).is_integer() else value
