"""The public estimator: an L2-SVM tracked over K sites (P. Chrysogelos, "Streaming, High
Performance Support Vector Methods", diploma thesis, Technical University of Crete, 2016,
chapter 4).

:class:`DistributedL2SVM` keeps, at every site, the (exact or ε-approximate) two-class or
one-class L2-SVM over the union of the sites' current points, while points are added and
deleted at the sites. It is a thin front over one of two drivers, chosen by ``tracking``:
:class:`~streamsvm.distributed.budget.BudgetTracker` (the default for the RBF and linear
kernels: ê as a vector of random Fourier features or of the inputs, a bounded cost per row)
or :class:`~streamsvm.distributed.protocol.Tracker` (``tracking='exact'``, the thesis'
protocol, with the L2-SVM kernel k̂ of section 4.1 and f = ‖·‖²).

It is in the estimator registry with the library's contract (``fit``, ``partial_fit(X, y,
classes=None)``, ``learn_one`` / ``predict_one``, CSR input, ``save`` / ``load``), plus what
only it has: ``sites=`` (which site receives each row; default round-robin), ``add`` /
``delete`` of single points by id, and queries at any ``site``. ``predict_proba`` is Platt
scaling of site 0's decision values, fitted on the prequential scores of the rows added
(:mod:`streamsvm.base.calibration`; a chunk's rows are scored against the model before the chunk);
for ``task='one-class'`` there are no negative labels to fit against, so the probability of
the +1 class is the uncalibrated fallback ``1 / (1 + exp(-f))``. It differs where the tracked
model does: two classes at most (no one-vs-rest: each class pair would be a separate
tracker and protocol), and every row is a protocol step in Python (messages between sites):
about a millisecond per row in the budget mode, and a cost that grows with the support
vectors in the exact mode.
"""

from __future__ import annotations

import math
import os
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError

from ..base import state_nbytes
from ..base.calibration import RESCORED_ROWS, PlattCalibrator, agree_with_labels
from ..input.river import RiverClassifier
from ..input.validation import (
    check_features,
    feature_names_of,
)
from ..kernels import FirstDataRule, kernel_parameter_constraints
from ..utils.params import (
    VERBOSE,
    Boolean,
    CheckedParamsMixin,
    Interval,
    IsInstance,
    IsNone,
    LabelPair,
    Options,
    keep_params,
)
from ..utils.progress import Progress
from .budget import BudgetTracker
from .estimator_checks import ChecksMixin
from .estimator_river import RiverMixin
from .events import iter_events
from .features import feature_map_for
from .objective import KernelSpace, SquaredNorm
from .protocol import UPDATE_METHODS, Tracker

__all__ = ["DistributedL2SVM"]


class DistributedL2SVM(RiverMixin, ChecksMixin, CheckedParamsMixin, FirstDataRule,
                       ClassifierMixin, BaseEstimator, RiverClassifier):
    """Two-class or one-class L2-SVM held by every one of ``n_sites`` sites.

    Parameters
    ----------
    n_sites : int, number of sites K (paper: 10)
    tracking : 'auto' (default), 'budget' or 'exact'. 'exact' is the thesis' protocol
        (every point watched, local problems over a site's points and all atoms: the cost
        of a row grows with the stream on noisy data). 'budget' (:mod:`.budget`) tracks ê
        as a vector in an explicit feature space (the input space for the linear kernel,
        ``n_components`` random Fourier features for RBF), checks each row once on
        arrival and keeps ``budget`` active atoms per site: a bounded cost per row. 'auto'
        is 'budget' for the linear and RBF kernels with ``update='method1'`` and
        ``deletion_check='update'``, 'exact' otherwise
    budget : int, active atoms per site in the budget mode (past it the smallest are
        retired: their weight stays in ê, no longer re-optimised)
    n_components : int, random Fourier features D of the budget mode with kernel='rbf'
    n_workers : int, processes (Ray actors) hosting the sites in the budget mode, site k
        at worker k mod n_workers
    random_state : int, seed of the random Fourier features (the same at every site)
    task : 'two-class' (k̂ = y_i y_j (k + 1) + δ_ij/C) or 'one-class' (k̂ = k + δ_ij/C)
    kernel, gamma, degree, coef0 : the kernel k as in scikit-learn; ``gamma`` ('scale' by
        default, or 'auto') is fixed as ``gamma_`` from the first data: all of X in
        :meth:`fit`, the first chunk in :meth:`partial_fit`, the first point in :meth:`add`
        (``docs/design.md``)
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
    checkpoint_every : requests to a site between its checkpoints (0: none; then a site that
        crashes ends the run); see :mod:`~streamsvm.distributed.messages`
    checkpoint_dir : where the sites save their checkpoints (default: a temporary directory;
        with Ray on several machines, a directory every machine can read)
    verbose : int, default 0
        0: silent; 1: a progress line (rows added, rows/s) every few seconds of ``fit`` or
        ``partial_fit``; 2: also a last line at the end (``streamsvm.utils.progress``).

    Attributes
    ----------
    classes_, n_features_in_, tracker_ (the :class:`Tracker`), support_ids_, dual_coef_
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
        "verbose": VERBOSE,
        "n_sites": [Interval(Integral, 1, None)],
        "tracking": [Options("auto", "budget", "exact")],
        "budget": [Interval(Integral, 1, None)],
        "n_components": [Interval(Integral, 1, None)],
        "n_workers": [Interval(Integral, 1, None)],
        "random_state": [Interval(Integral, 0, None)],
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
        "checkpoint_every": [Interval(Integral, 0, None)],
        "checkpoint_dir": [IsNone(), IsInstance((str, os.PathLike), "a path")],
    }
    _accepts_sparse = True
    _test_params = [{"n_sites": 3, "kernel": "rbf", "gamma": 0.1, "C": 1.0}]
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_class = False  # two-class (or one-class) only
        return tags

    def __init__(self, n_sites=10, *, task="two-class", kernel="rbf", gamma="scale", degree=3,
                 coef0=0.0, C=1.0, epsilon=0.0, relative=False, update="method1",
                 membership="qp", backend="local", deletion_check="update", monitor_tol=1e-9,
                 shared_cache=10_000, classes=None, checkpoint_every=100, checkpoint_dir=None,
                 verbose=0, tracking="auto", budget=20, n_components=2048, n_workers=16,
                 random_state=0):
        keep_params(self, locals())

    # ------------------------------------------------------------------ set-up

    def _restore_transient(self) -> None:
        """After :func:`streamsvm.load`: files saved before ``n_seen_`` existed count it from
        the additions the tracker recorded."""
        if hasattr(self, "tracker_") and not hasattr(self, "n_seen_"):
            self.n_seen_ = int(self.tracker_.report()["additions"])
        if isinstance(self.__dict__.get("tracker_"), Tracker):
            # files saved before the budget mode existed hold the exact protocol's state
            self.tracking = "exact"

    def _mode(self) -> str:
        """'budget' or 'exact', the mode ``tracking`` gives with these parameters."""
        if self.tracking != "auto":
            return self.tracking
        simple = self.update == "method1" and self.deletion_check == "update"
        return "budget" if simple and self.kernel in ("linear", "rbf") else "exact"

    def _start(self, n_features, X):
        self._fix_from_first_data(X)
        space = KernelSpace(self._fitted_kernel(), float(self.C), self.task)
        if hasattr(self, "tracker_"):
            self.tracker_.close()
        if self._mode() == "budget":
            self.tracker_ = BudgetTracker(
                self.n_sites, n_features, space,
                feature_map_for(space.kernel, n_features, self.n_components, self.random_state),
                epsilon=self.epsilon, relative=self.relative, budget=self.budget,
                n_workers=self.n_workers, backend=self.backend, monitor_tol=self.monitor_tol,
                checkpoint_every=self.checkpoint_every, checkpoint_dir=self.checkpoint_dir)
        else:
            self.tracker_ = Tracker(
                self.n_sites, n_features, space, SquaredNorm(), epsilon=self.epsilon,
                relative=self.relative, update=self.update, membership=self.membership,
                deletion_check=self.deletion_check, backend=self.backend,
                monitor_tol=self.monitor_tol, shared_cache=self.shared_cache,
                checkpoint_every=self.checkpoint_every, checkpoint_dir=self.checkpoint_dir)
        self.n_features_in_ = int(n_features)
        self.calibration_ = PlattCalibrator()
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
            self._check_start()
            width = np.asarray(x).size
            if width == 0:
                raise ValueError("x is empty")
            label = self._label_before_start(y)
            self._start(width, np.reshape(x, (1, width)))
            record = self.tracker_.add(site, x, label, point_id)
        else:
            label = self._label(y)
            if self.__sklearn_is_fitted__() and np.ndim(x) == 1:
                self._calibrator().record(self._decision_function(x.reshape(1, -1)), [label])
            record = self.tracker_.add(site, x, label, point_id)
        if np.ndim(x) == 1:
            self._keep_rows(np.reshape(x, (1, -1)), np.array([label], dtype=np.float64))
        self._calibrator().n_learned += 1
        self.n_seen_ = getattr(self, "n_seen_", 0) + 1
        return record["point_id"]

    def _label_before_start(self, y):
        classes = np.array([-1, 1]) if self.classes is None or self.task == "one-class" \
            else np.asarray(self.classes)
        self.classes_ = classes
        self._classes_declared = True
        self.n_seen_ = 0
        return self._label(y)

    def delete(self, site, point_id):
        """The point ``point_id`` (added at ``site``) is deleted."""
        self._check_fitted()
        self.tracker_.delete(site, point_id)

    def fit(self, X, y=None, *, sites=None):
        """Reset, then add the rows of X (array or CSR) in order, row i at site ``sites[i]``
        (default ``i mod n_sites``). For two-class, y holds two labels (sorted: the first
        → −1, unless ``classes`` says otherwise). A table's column names (all strings) are
        kept as ``feature_names_in_``: later tables must have the same columns in the same
        order, as for every estimator."""
        self._check_start()
        names = feature_names_of(X)
        X = self._check_X(X, first=True)
        y = self._check_y(X, y)
        sites = self._check_sites(sites, X.shape[0])
        classes = None
        if self.task == "two-class":
            classes = np.unique(y) if self.classes is None else np.asarray(self.classes)
            if np.unique(y).size < 2:
                raise ValueError(f"y contains only one class ({np.unique(y).tolist()}); a "
                                 "two-class model needs two classes")
            self._check_two_classes(np.union1d(classes, y))
            if self.classes is not None:
                self._check_known(y, classes)
        for name in ("_vocabulary", "_warmup_rows", "_warmup_labels", "_warned_new_keys"):
            self.__dict__.pop(name, None)
        self._start(X.shape[1], X)
        self._set_feature_names(names)
        self.n_seen_ = 0
        self._classes_declared = self.classes is not None
        if classes is not None:
            self.classes_ = classes
        self._add_rows_recorded(X, self._signs(y), sites)
        return self

    def partial_fit(self, X, y=None, classes=None, *, sites=None):
        """Add the rows of X (array or CSR; point ids continue) without resetting.

        ``classes``: the two labels the stream will hold (a label outside them is then an
        error); without them, labels are added as they appear (at most two). ``sites`` as in
        :meth:`fit`. Everything is checked before the first row is added; a refused first
        call (after ``learn_one``'s warm-up examples, too) leaves the model unfitted with
        its warm-up examples, as it was."""
        if hasattr(self, "tracker_") and not self.__dict__.get("_warmup_labels"):
            return self._partial_fit_chunk(X, y, classes, sites)
        before = dict(self.__dict__)
        try:
            if self.__dict__.get("_warmup_labels"):  # learn_one's examples come first
                self._learn_warmup()
            return self._partial_fit_chunk(X, y, classes, sites)
        except BaseException:
            tracker = self.__dict__.get("tracker_")
            if tracker is not None and tracker is not before.get("tracker_"):
                tracker.close()  # made by this call: its sites and folder go with it
            self.__dict__.clear()
            self.__dict__.update(before)
            raise

    def _partial_fit_chunk(self, X, y, classes, sites):
        """:meth:`partial_fit` of one chunk, after the warm-up examples are added."""
        first = not hasattr(self, "tracker_")
        if first:
            self._check_start()
        names = feature_names_of(X)
        if not first:
            self._check_feature_names(names)
        X = self._check_X(X, first=first)
        y = self._check_y(X, y, first=first)
        sites = self._check_sites(sites, X.shape[0])
        new_classes, declared, flip = self._next_classes(y, classes, first)
        if first:
            self._start(X.shape[1], X)
            self._set_feature_names(names)
            self.n_seen_ = 0
        if new_classes is not None:
            self.classes_ = new_classes
            self._classes_declared = declared
        if flip:  # the stream met its second class, which sorts after the first
            self.tracker_.flip_labels()
            self._calibrator().flip()
        self._add_rows_recorded(X, self._signs(y), sites)
        return self

    def _calibrator(self) -> PlattCalibrator:
        calibrator = getattr(self, "calibration_", None)
        if calibrator is None:
            calibrator = self.calibration_ = PlattCalibrator()
        return calibrator

    def _add_rows_recorded(self, X, signs, sites):
        """:meth:`_add_rows`, recording the prequential scores of the rows (the first
        ``per_chunk``) against the model before the chunk; a model's first chunk records the
        decisions of the model it built (in-sample, the last ``window`` rows), as
        :class:`~streamsvm.base.StreamClassifier` does."""
        calibrator = self._calibrator()
        tail = slice(max(0, X.shape[0] - calibrator.scores.shape[0]), X.shape[0])
        before = self.__sklearn_is_fitted__() and calibrator.n_learned > 0
        if before:
            head = slice(0, min(X.shape[0], calibrator.per_chunk))
            calibrator.record(self._decision_function(X[head]), signs[head])
        self._add_rows(X, signs, sites)
        if not before and X.shape[0] > 1 and self.__sklearn_is_fitted__():
            calibrator.record(self._decision_function(X[tail]), signs[tail])
        self._keep_rows(X[max(0, X.shape[0] - RESCORED_ROWS):],
                        signs[max(0, X.shape[0] - RESCORED_ROWS):])
        calibrator.n_learned += X.shape[0]

    def _keep_rows(self, X, signs) -> None:
        """With the linear kernel, keep the last rows for the calibration to rescore
        (:mod:`streamsvm.base.calibration`, "Linear scores")."""
        if self.kernel == "linear":
            calibrator = self._calibrator()
            calibrator.keep_rows_for_rescoring(X.shape[1])
            calibrator.keep_rows(X, signs)

    def _add_rows(self, X, signs, sites, block=256):
        """Add the rows one protocol event each; with ``verbose``, progress lines
        (:mod:`streamsvm.utils.progress`) after each block."""
        verbose = getattr(self, "verbose", 0)
        bar = (Progress(f"{type(self).__name__}.add", X.shape[0], always=verbose >= 2)
               if verbose else None)
        for start in range(0, X.shape[0], block):
            rows = X[start:start + block]
            rows = rows.toarray() if sp.issparse(rows) else rows
            if isinstance(self.tracker_, BudgetTracker):
                self.tracker_.add_rows(sites[start:start + block], rows,
                                       signs[start:start + block])
                self.n_seen_ += rows.shape[0]
            else:
                for i in range(rows.shape[0]):
                    self.tracker_.add(int(sites[start + i]), rows[i], float(signs[start + i]))
                    self.n_seen_ += 1
            if bar is not None:
                bar.update(start + rows.shape[0])
        if bar is not None:
            bar.close()

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

    def decision_function(self, X, site=0, block=4096):
        """Decision values as held by ``site`` (no communication, section 4.4); X is an
        array or a CSR matrix (densified ``block`` rows at a time)."""
        self._check_fitted()
        self._check_feature_names(feature_names_of(X))
        return self._decision_function(X, site, block)

    def _decision_function(self, X, site=0, block=4096):
        """:meth:`decision_function` without the column-name check (the rows the model is
        learning, already validated)."""
        X, sqnorms = check_features(X, n_features=self.n_features_in_, accept_sparse=True,
                                    estimator_name=type(self).__name__, return_sqnorms=True)
        self._check_rows(X, sqnorms)
        if not sp.issparse(X):
            return self.tracker_.decision_function(X, site)
        return np.concatenate([
            self.tracker_.decision_function(X[i:i + block].toarray(), site)
            for i in range(0, X.shape[0], block)])

    def predict(self, X, site=0):
        """Class labels (one-class: +1 inside the support, −1 outside)."""
        scores = self.decision_function(X, site)
        if self.task == "one-class":
            return np.where(scores >= 0, 1, -1)
        if self.classes_.size == 1:
            return np.repeat(self.classes_, scores.shape[0])
        return self.classes_[(scores >= 0).astype(int)]

    def predict_proba(self, X, site=0):
        """Probabilities of ``classes_`` (rows sum to 1): Platt scaling of the decision values
        at ``site`` (module doc)."""
        scores = self.decision_function(X, site)
        if self.task == "two-class" and self.classes_.size == 1:
            return np.ones((scores.shape[0], 1))
        positive = agree_with_labels(
            self._calibrator().probability(
                scores, lambda rows: self.tracker_.decision_function(rows, 0)),
            scores >= 0)
        return np.column_stack([1.0 - positive, positive])

    @property
    def model_nbytes_(self) -> int:
        """Bytes of NumPy state held by all the sites together."""
        self._check_fitted()
        return state_nbytes(self.tracker_.network.export_sites())

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
