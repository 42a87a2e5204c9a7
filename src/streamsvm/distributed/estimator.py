"""The public estimator: an L2-SVM tracked over K sites (P. Chrysogelos, "Streaming, High
Performance Support Vector Methods", diploma thesis, Technical University of Crete, 2016,
chapter 4).

:class:`DistributedL2SVM` keeps, at every site, the (exact or ε-approximate) two-class or
one-class L2-SVM over the union of the sites' current points, while points are added and
deleted at the sites. It is a thin front over :class:`~streamsvm.distributed.protocol.Tracker`
with the L2-SVM kernel k̂ of section 4.1 and f = ‖·‖².

It is in the estimator registry with the library's contract (``fit``, ``partial_fit(X, y,
classes=None)``, ``learn_one`` / ``predict_one``, CSR input, ``save`` / ``load``), plus what
only it has: ``sites=`` (which site receives each row; default round-robin), ``add`` /
``delete`` of single points by id, and queries at any ``site``. ``predict_proba`` is Platt
scaling of site 0's decision values, fitted on the prequential scores of the rows added
(:mod:`streamsvm.calibration`; a chunk's rows are scored against the model before the chunk);
for ``task='one-class'`` there are no negative labels to fit against, so the probability of
the +1 class is the uncalibrated fallback ``1 / (1 + exp(-f))``. It differs where the tracked
model does: two classes at most (no one-vs-rest: each class pair would be a separate
tracker and protocol), and every row is a protocol step in Python (messages between sites),
so it is far slower per example than the single-machine learners.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Mapping
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError

from .._params import (
    VERBOSE,
    Boolean,
    CheckedParamsMixin,
    Interval,
    IsInstance,
    IsNone,
    LabelPair,
    Options,
    check_params,
)
from .._river import RiverClassifier
from .._validation import (
    check_declared_classes,
    check_feature_names,
    check_features,
    check_label_kind,
    check_labels,
    check_one_example,
    check_row_norms,
    feature_names_of,
)
from ..base import state_nbytes
from ..calibration import RESCORED_ROWS, PlattCalibrator, agree_with_labels
from ..kernels import FirstDataRule, kernel_parameter_constraints
from ..kernels.spec import max_safe_sqnorm
from ..progress import Progress
from ..vocabulary import FeatureVocabulary, integral_keys
from .events import iter_events
from .network import checkpoint_dir_in_use
from .objective import KernelSpace, SquaredNorm
from .protocol import UPDATE_METHODS, Tracker

__all__ = ["DistributedL2SVM"]


class DistributedL2SVM(CheckedParamsMixin, FirstDataRule, ClassifierMixin, BaseEstimator,
                       RiverClassifier):
    """Two-class or one-class L2-SVM held by every one of ``n_sites`` sites.

    Parameters
    ----------
    n_sites : int, number of sites K (paper: 10)
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
        ``partial_fit``; 2: also a last line at the end (``streamsvm.progress``).

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
    #: every example is a protocol step in Python (one fit of 1,000 Adult rows takes about a
    #: CPU minute); the demo and the defaults study train on at most this many rows
    #: (see IncrementalSVM.max_rows_hint)
    max_rows_hint = 500

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_class = False  # two-class (or one-class) only
        return tags

    def __init__(self, n_sites=10, *, task="two-class", kernel="rbf", gamma="scale", degree=3,
                 coef0=0.0, C=1.0, epsilon=0.0, relative=False, update="method1",
                 membership="qp", backend="local", deletion_check="update", monitor_tol=1e-9,
                 shared_cache=10_000, classes=None, checkpoint_every=100, checkpoint_dir=None,
                 verbose=0):
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
        self.checkpoint_every = checkpoint_every
        self.checkpoint_dir = checkpoint_dir
        self.verbose = verbose

    # ------------------------------------------------------------------ set-up

    def _restore_transient(self) -> None:
        """After :func:`streamsvm.load`: files saved before ``n_seen_`` existed count it from
        the additions the tracker recorded."""
        if hasattr(self, "tracker_") and not hasattr(self, "n_seen_"):
            self.n_seen_ = int(self.tracker_.report()["additions"])

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
            checkpoint_every=self.checkpoint_every, checkpoint_dir=self.checkpoint_dir,
        )
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
            self.tracker_.network.call_many(range(self.n_sites), "flip_labels")
            self._calibrator().flip()
        self._add_rows_recorded(X, self._signs(y), sites)
        return self

    def learn_one(self, x, y=None):
        """Learn one example (River's interface); ``x`` is a 1-D array or a dict. The point
        goes to site ``n_seen_ mod n_sites``.

        As for every estimator (``docs/river.md``): with ``gamma='scale'`` the first
        ``WARMUP_ROWS`` examples are gathered and added as the first chunk (``gamma_`` from
        them); until then ``predict_one`` gives the most frequent label so far. Dict keys
        are read through a :class:`~streamsvm.vocabulary.FeatureVocabulary` made of the keys
        of those first examples; unlike the other estimators, this one does not grow its
        feature space afterwards (its sites hold their points at a fixed width): a key first
        seen later counts as 0, with one warning."""
        if hasattr(self, "tracker_") and not self.__dict__.get("_warmup_labels"):
            row = self._one_row(x, learn=True)
            site = getattr(self, "n_seen_", 0) % self.n_sites
            self.partial_fit(row, None if y is None else [y], sites=[site])
            return self
        if not self.__dict__.get("_warmup_labels"):
            self._check_start()
            if isinstance(x, Mapping):
                self._vocabulary = FeatureVocabulary()
            self._warmup_rows, self._warmup_labels = [], []
        n_keys = len(self._vocabulary) if "_vocabulary" in self.__dict__ else 0
        try:
            row = self._one_row(x, learn=True)
            labels = [*self._warmup_labels, y]
            distinct = set(labels)
            if self.task == "two-class" and (
                    len(distinct) > 2 or (self.classes is not None
                                          and not distinct <= set(self.classes))):
                raise ValueError(f"label {y!r} would make the labels {sorted(distinct)}; a "
                                 f"two-class model takes two (classes={self.classes!r})")
        except BaseException:
            if "_vocabulary" in self.__dict__:
                self._vocabulary.forget_after(n_keys)
            raise
        self._warmup_rows = [*self._warmup_rows, row]
        self._warmup_labels = labels
        if len(labels) >= self._learn_one_warmup():
            self._learn_warmup()
        return self

    def _learn_warmup(self) -> None:
        """Add the gathered warm-up examples as the first chunk."""
        rows, labels = self._warmup_rows, self._warmup_labels
        if "_vocabulary" in self.__dict__:
            width = len(self._vocabulary)
            X = sp.vstack([sp.csr_matrix((r.data, r.indices, r.indptr), shape=(1, width))
                           for r in rows], format="csr")
        else:
            X = np.vstack(rows)
        first_site = getattr(self, "n_seen_", 0)
        sites = [(first_site + i) % self.n_sites for i in range(len(labels))]
        y = None if all(label is None for label in labels) else np.asarray(labels)
        self._warmup_rows, self._warmup_labels = [], []
        try:
            self.partial_fit(X, y, sites=sites)
        except BaseException:
            self._warmup_rows, self._warmup_labels = rows, labels
            raise

    def _one_row(self, x, *, learn: bool):
        """One example as a row: dicts through the vocabulary (keys new after the start count
        as 0, with one warning), arrays and integer-keyed dicts as given."""
        width = getattr(self, "n_features_in_", None)
        if isinstance(x, Mapping) and "_vocabulary" in self.__dict__:
            vocabulary = self._vocabulary
            if width is None:
                vocabulary.learn(x)
                return vocabulary.row(x)
            if learn and vocabulary.new_keys(x) and not getattr(self, "_warned_new_keys", False):
                warnings.warn(f"{type(self).__name__} keeps the features of its first data "
                              f"({width}); new keys such as {vocabulary.new_keys(x)[:3]} count "
                              "as 0", UserWarning, stacklevel=3)
                self._warned_new_keys = True
            return vocabulary.row(x, width)
        if isinstance(x, Mapping) and width is None and not integral_keys(x):
            raise ValueError("a dict example of a model started from arrays must use integer "
                             "column indices as keys")
        if width is None and self.__dict__.get("_warmup_rows"):
            width = self._warmup_rows[0].shape[1]
        row, _ = check_one_example(x, feature_names=None, n_features=width)
        return row

    def _warmup_answer(self) -> dict:
        labels = self.__dict__.get("_warmup_labels", [])
        counts: dict = {}
        for label in labels:
            counts[label] = counts.get(label, 0) + 1
        return {label: n / len(labels) for label, n in counts.items()}

    def predict_one(self, x):
        """Label of one example: during ``learn_one``'s warm-up the most frequent label so
        far, None before anything has been learnt."""
        if not self.__sklearn_is_fitted__() or self.__dict__.get("_warmup_labels"):
            answer = self._warmup_answer()
            return max(answer, key=answer.get) if answer else None
        label = self.predict(self._one_row(x, learn=False))[0]
        return label.item() if isinstance(label, np.generic) else label

    def finish(self):
        """Adds the examples ``learn_one`` gathered while warming up, if any; otherwise
        nothing to flush (every point is tracked as it arrives)."""
        if self.__dict__.get("_warmup_labels"):
            self._learn_warmup()
        return self

    # ------------------------------------------------------------------ checks

    def _check_start(self):
        """The parameter check of a fresh start (:func:`~streamsvm._params.check_params`),
        and the checkpoint folder's: an explicit ``checkpoint_dir`` that another live model's
        sites use is refused (each model owns its folder)."""
        check_params(self)
        if self.checkpoint_dir is not None and self.checkpoint_every > 0:
            tracker = self.__dict__.get("tracker_")
            taken = checkpoint_dir_in_use(self.checkpoint_dir,
                                          None if tracker is None else tracker.network)
            if taken:
                raise ValueError(f"{type(self).__name__}: {taken}")

    def _set_feature_names(self, names) -> None:
        """Record the column names of the table a fresh model started on
        (``feature_names_in_``), or forget them (arrays)."""
        if names is None:
            self.__dict__.pop("feature_names_in_", None)
        else:
            self.feature_names_in_ = names

    def _check_feature_names(self, names) -> None:
        """Refuse a table whose column names are not the fitted ones in order; warn when
        only one side has names (:func:`~streamsvm._validation.check_feature_names`, as
        :class:`~streamsvm.base.StreamClassifier` does). A model that learnt from dicts takes
        their keys, in column order, as the names a table must have when all are strings."""
        fitted = self.__dict__.get("feature_names_in_")
        if fitted is None and names is not None and "_vocabulary" in self.__dict__:
            keys = list(self._vocabulary.keys)[: self.n_features_in_]
            if not all(isinstance(k, str) for k in keys):
                return
            fitted = np.asarray(keys, dtype=object)
        if fitted is None and names is None:
            return
        check_feature_names(names, fitted, estimator_name=type(self).__name__)

    def _check_X(self, X, *, first):
        X, sqnorms = check_features(X, n_features=None if first else self.n_features_in_,
                                    accept_sparse=True, estimator_name=type(self).__name__,
                                    return_sqnorms=True)
        self._check_rows(X, sqnorms)
        return X

    def _check_rows(self, X, sqnorms=None):
        """Refuse NaN, infinity and rows too large for the kernel, naming the first such row
        (the bound of :func:`~streamsvm.kernels.spec.max_safe_sqnorm` for the resolved kernel
        once there is one, before that the linear bound, which is the loosest)."""
        if sqnorms is None:
            X, sqnorms = check_features(X, accept_sparse=True, return_sqnorms=True,
                                        estimator_name=type(self).__name__)
        kernel = self.tracker_.space.kernel if hasattr(self, "tracker_") else None
        if kernel is None or kernel.is_callable:
            name, limit = "linear", max_safe_sqnorm("linear")
        else:
            name = kernel.kernel
            limit = max_safe_sqnorm(name, gamma=kernel.gamma_, degree=kernel.degree,
                                    coef0=kernel.coef0)
        check_row_norms(sqnorms, limit, estimator_name=type(self).__name__, kernel_name=name)

    def _check_y(self, X, y, *, first=True):
        if y is None:
            if self.task == "two-class":
                raise ValueError("requires y to be passed, but the target y is None (a "
                                 "two-class model needs labels)")
            return np.ones(X.shape[0])
        y = check_labels(y, X.shape[0])
        if self.task == "two-class" and not first:
            check_label_kind(y, self.classes_)
        return y

    def _check_sites(self, sites, n):
        if sites is None:
            return (getattr(self, "n_seen_", 0) + np.arange(n)) % self.n_sites
        sites = np.asarray(sites)
        if sites.shape != (n,) or not np.issubdtype(sites.dtype, np.integer) \
                or sites.min() < 0 or sites.max() >= self.n_sites:
            raise ValueError(f"sites must give one site in 0..{self.n_sites - 1} per row")
        return sites

    def _check_two_classes(self, classes):
        if classes.size > 2:
            raise ValueError(f"Only binary classification is supported: y holds the labels "
                             f"{classes.tolist()}, and DistributedL2SVM tracks one two-class "
                             "model (task='one-class' ignores labels)")

    @staticmethod
    def _check_known(y, classes):
        unknown = np.setdiff1d(np.unique(y), classes)
        if unknown.size:
            raise ValueError(f"y contains labels {unknown.tolist()} that are not in the "
                             f"declared classes {np.asarray(classes).tolist()}")

    def _next_classes(self, y, classes, first):
        """(classes_ after this chunk, declared?, flip the stored labels?), or (None, ...)
        when nothing changes; raises before anything changes."""
        if self.task == "one-class":
            return (np.array([-1, 1]) if first else None), False, False
        declared_before = not first and getattr(self, "_classes_declared", False)
        if self.classes is not None:
            fixed = np.asarray(self.classes)
            self._check_known(y, fixed)
            return fixed, True, False
        if classes is not None:
            declared = check_declared_classes(classes)
            self._check_two_classes(declared)
            if declared_before and not np.array_equal(declared, self.classes_):
                raise ValueError(f"classes={declared.tolist()} differs from the classes "
                                 f"declared before ({self.classes_.tolist()})")
        elif declared_before:
            declared = self.classes_
        else:
            declared = None
        if declared is not None:
            self._check_known(y, declared)
            flip = not first and not declared_before and self.classes_.size == 1 \
                and self.classes_[0] == declared[0]
            return declared, True, flip
        current = np.empty(0, dtype=y.dtype) if first else self.classes_
        merged = np.union1d(current, y)
        self._check_two_classes(merged)
        flip = current.size == 1 and merged.size == 2 and current[0] == merged[0]
        return merged, False, flip

    def _signs(self, y):
        """±1 per label: classes_[1] → +1, classes_[0] → −1; the only class so far → +1."""
        if self.task == "one-class" or self.classes_.size == 1:
            return np.ones(len(y))
        return np.where(y == self.classes_[1], 1.0, -1.0)

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
        (:mod:`streamsvm.calibration`, "Linear scores")."""
        if self.kernel == "linear":
            calibrator = self._calibrator()
            calibrator.keep_rows_for_rescoring(X.shape[1])
            calibrator.keep_rows(X, signs)

    def _add_rows(self, X, signs, sites, block=256):
        """Add the rows one protocol event each; with ``verbose``, progress lines
        (:mod:`streamsvm.progress`) after each block."""
        verbose = getattr(self, "verbose", 0)
        bar = (Progress(f"{type(self).__name__}.add", X.shape[0], always=verbose >= 2)
               if verbose else None)
        for start in range(0, X.shape[0], block):
            rows = X[start:start + block]
            rows = rows.toarray() if sp.issparse(rows) else rows
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

    def predict_proba_one(self, x):
        """``{class: probability}`` of one example (River's interface): during
        ``learn_one``'s warm-up the frequencies of the labels so far, ``{}`` before anything
        has been learnt."""
        if not self.__sklearn_is_fitted__() or self.__dict__.get("_warmup_labels"):
            return self._warmup_answer()
        proba = self.predict_proba(self._one_row(x, learn=False))[0]
        return {(c.item() if isinstance(c, np.generic) else c): float(p)
                for c, p in zip(self.classes_, proba, strict=True)}

    @property
    def _multiclass(self) -> bool:
        return False  # two classes at most (River's binary checks)

    def _unit_test_skips(self) -> set[str]:
        """River's binary check wants the labels False and True from the first prediction on;
        this model takes any two labels and names none before it has learnt them."""
        return {"check_predict_proba_one_binary"}

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
