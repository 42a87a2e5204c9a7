"""The estimator contract every streamsvm classifier follows.

Each algorithm of the library is written once, as a :class:`BinaryLearner`: the state of one
two-class problem with labels ±1, updated a chunk at a time by jitted code. The estimator
class around it (a :class:`StreamClassifier`) supplies everything else, over that one state:

* the scikit-learn face: ``fit``, ``partial_fit(X, y, classes=None)``, ``predict``,
  ``decision_function``, ``score``, ``get_params``/``set_params``;
* the River face: ``learn_one(x, y)``, ``predict_one(x)`` and ``predict_proba_one(x)``, with
  ``x`` a 1-D array or a dict of feature -> value;
* probabilities (``predict_proba``), always available: Platt scaling of each binary learner's
  decision values, fitted on its prequential scores (:mod:`streamsvm.calibration`);
* any labels, and more than two classes by one-vs-rest over the binary learner;
* input validation before any state changes, so a rejected call leaves the model as it was
  (non-finite values, rows too large for the model's kernel, labels of another type).

Classes may be declared up front (``fit`` sees them all; ``partial_fit(..., classes=...)``
declares them) or discovered as the stream shows them. ``classes_`` is always sorted and of
one kind: numbers (equal values are one class: ``1``, ``1.0`` and ``True``; a new class takes
the dtype ``classes_`` started with when that is exact) or strings (no empty string); a call
whose labels are of the other kind is refused. When a
stream grows from one class to two, the single learner is re-targeted by flipping the sign
of its labels and scores; when it grows past two, the binary learner becomes the
one-vs-rest learner of its positive class and a sign-flipped copy of it the learner of the
other class, both exact continuations of what was learnt, while classes new to the stream
get fresh learners (they start from the moment their class first appears).
"""

from __future__ import annotations

import copy
import functools

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError

from . import _row_path, progress
from ._params import CheckedParamsMixin, check_params
from ._river import RiverClassifier
from ._row_path import MISS
from ._threads import compiled_threads, for_each
from ._validation import (
    RowsRefused,
    check_declared_classes,
    check_feature_names,
    check_features,
    check_label_kind,
    check_labels,
    check_one_example,
    check_row_norms,
    csr_row_range,
    feature_names_of,
    is_internal_dense,
    row_sqnorms,
    unique_labels,
)
from ._widen import Undo, widen_like
from .calibration import (
    RESCORED_ROWS,
    CsrRows,
    PlattCalibrator,
    agree_with_labels,
    agree_with_scores,
)
from .collapse import guard_collapse
from .kernels.first_data import FirstDataRule
from .kernels.spec import max_safe_sqnorm
from .order import guard_order
from .vocabulary import FeatureVocabulary, feature_value, integral_keys, is_dict_example
from .weights import (
    ClassWeightsMixin,
    check_class_weight_labels,
    check_sample_weight,
    count_labels,
)

__all__ = [
    "BinaryLearner", "SampleWeightMixin", "StreamClassifier", "pad_spare_rows", "state_nbytes",
    "trim_spare_rows",
]


#: The largest squared norm of a row a linear model takes: :meth:`StreamClassifier.
#: _max_safe_sqnorm` of the linear kernel (a quarter of its bound), for loops that check rows.
ROW_SQNORM_LIMIT = 0.25 * max_safe_sqnorm("linear")


def refuse_rows(rows_sqnorm: float) -> None:
    """Raise :class:`~streamsvm._validation.RowsRefused` unless the rows a compiled loop just
    learnt, whose squared norms sum to ``rows_sqnorm``, are all finite and within
    :data:`ROW_SQNORM_LIMIT` (a sum within it proves both; a NaN or an infinity makes it
    non-finite, as squares cannot cancel). See :attr:`StreamClassifier._learners_check_rows`."""
    if not rows_sqnorm <= ROW_SQNORM_LIMIT:
        raise RowsRefused("a row holds NaN or infinity, or is too large")


class BinaryLearner:
    """State and update rule of one two-class problem (labels ±1).

    Subclasses implement :meth:`partial_fit` and :meth:`decision_function` over validated
    input: ``X`` a C-contiguous float64 array or a CSR matrix from
    :func:`streamsvm._validation.check_features`, ``y`` a float64 array of ±1. All state
    lives in instance attributes that are NumPy arrays, numbers, strings, lists/dicts of
    those, or other streamsvm objects, so that :func:`streamsvm.save` can store it without
    pickle. Attributes named in ``_transient`` (caches, scratch buffers) are neither saved nor
    pickled, and arrays named in ``_spare_capacity`` lose their spare rows;
    :meth:`_restore_transient` rebuilds both after loading or unpickling.
    """

    _transient: tuple[str, ...] = ()
    #: arrays grown with room to spare, saved without the spare rows
    _spare_capacity: tuple[str, ...] = ()

    def __init__(self, n_features: int, rng: np.random.Generator, **params):
        self.n_features = n_features
        self.rng = rng
        self.n_seen = 0

    def partial_fit(self, X, y: np.ndarray) -> None:
        """Continue the stream with the examples of one chunk, in order."""
        raise NotImplementedError

    def fit_pass(self, X, y: np.ndarray, **weights) -> None:
        """What ``fit`` runs on a fresh learner: by default one pass, then :meth:`finish`
        (``weights``: the ``sample_weight`` of learners that take one per row)."""
        self.partial_fit(X, y, **weights)
        self.finish()

    def finish(self) -> None:
        """End-of-data step of algorithms that have one (lookahead buffers, finishing passes)."""

    def decision_function(self, X) -> np.ndarray:
        """Signed score of each row; positive means the +1 class."""
        raise NotImplementedError

    def _persist_state(self) -> dict:
        """What :func:`streamsvm.save` and pickle keep: the attributes less ``_transient``
        (caches and other rebuildable buffers), the arrays named in ``_spare_capacity``
        without their spare rows (:func:`trim_spare_rows`; loading puts them back)."""
        state = {k: v for k, v in vars(self).items() if k not in self._transient}
        spare = {}
        in_use = self._rows_in_use()
        for name in self._spare_capacity:
            array = state.get(name)
            if isinstance(array, np.ndarray) and array.ndim >= 1:
                if name in in_use:  # rows past the count are written before they are read
                    trimmed = array[: in_use[name]].copy()
                else:
                    trimmed = trim_spare_rows(array)
                if trimmed.shape[0] < array.shape[0]:
                    state[name] = trimmed
                    spare[name] = [int(array.shape[0]), name in in_use]
        if spare:
            state["_spare_rows"] = spare
        return state

    def _restore_transient(self) -> None:
        """Rebuild what :meth:`_persist_state` left out, after loading or unpickling;
        subclasses that rebuild more call this first."""
        pending = self.__dict__.pop("_spare_rows", {})
        try:  # the counts that say how many rows of each array were saved
            in_use = self._rows_in_use() if pending else {}
        except (IndexError, TypeError, ValueError, AttributeError):
            raise ValueError(f"{type(self).__name__}: the saved counts do not fit the saved "
                             "arrays") from None
        for name, (rows, zeros) in pending.items():
            array = getattr(self, name, None)
            if (name not in self._spare_capacity or not isinstance(array, np.ndarray)
                    or array.ndim < 1 or not isinstance(rows, int)
                    or not array.shape[0] <= rows <= _MAX_SPARE_ROWS
                    or (zeros and in_use.get(name) != array.shape[0])):
                raise ValueError(f"{type(self).__name__}: the saved capacity of {name!r} "
                                 f"({rows!r} rows) or its rows in use do not fit the saved "
                                 "array")
            if zeros:
                padded = np.zeros((rows,) + array.shape[1:], dtype=array.dtype)
                padded[: array.shape[0]] = array
                setattr(self, name, padded)
            else:
                setattr(self, name, pad_spare_rows(array, rows))

    def _rows_in_use(self) -> dict[str, int]:
        """Arrays of ``_spare_capacity`` whose rows past a count are never read before they
        are written, by name: they are saved up to that count and padded with zeros on load
        (the others lose only a trailing run of rows equal to their last)."""
        return {}

    def __getstate__(self) -> dict:
        return self._persist_state()

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._restore_transient()


def _put_back(model, before: dict) -> None:
    """Give ``model`` back the attributes ``before`` (a copy of its ``__dict__``)."""
    model.__dict__.clear()
    model.__dict__.update(before)


#: the largest capacity a saved array may claim (a damaged file must not allocate without end)
_MAX_SPARE_ROWS = 2**31


def trim_spare_rows(array: np.ndarray) -> np.ndarray:
    """``array`` without the trailing rows that are bit-identical to its last row, that last
    row kept as the pattern: the spare capacity of an array grown with room to spare.
    :func:`pad_spare_rows` gives back the very same bits."""
    n = array.shape[0]
    if n < 2:
        return array
    raw = np.ascontiguousarray(array).reshape(n, -1).view(np.uint8)
    differs = np.flatnonzero((raw[:-1] != raw[-1]).any(axis=1))
    used = int(differs[-1]) + 1 if differs.size else 0
    return array[: used + 1].copy()


def pad_spare_rows(array: np.ndarray, rows: int) -> np.ndarray:
    """Inverse of :func:`trim_spare_rows`: repeat the last row up to ``rows`` rows."""
    if rows <= array.shape[0]:
        return array
    tail = np.repeat(array[-1:], rows - array.shape[0], axis=0)
    return np.ascontiguousarray(np.concatenate([array, tail]))


def state_nbytes(obj) -> int:
    """Bytes held in NumPy arrays by an object's state (recursively through lists and dicts),
    less what it names in ``_transient`` (caches and scratch, which files and pickles leave
    out: LASVM's kernel cache is not model state)."""
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes)
    if sp.issparse(obj):
        return int(obj.data.nbytes + obj.indices.nbytes + obj.indptr.nbytes)
    if isinstance(obj, list | tuple):
        return sum(state_nbytes(item) for item in obj)
    if isinstance(obj, dict):
        return sum(state_nbytes(item) for item in obj.values())
    if hasattr(obj, "__dict__") and type(obj).__module__.startswith("streamsvm"):
        skip = getattr(obj, "_transient", ())
        return sum(state_nbytes(v) for k, v in vars(obj).items() if k not in skip)
    return 0


class SampleWeightMixin:
    """``fit`` and ``partial_fit`` with ``sample_weight``, for the estimators whose learners
    take a weight per row (``_weighting = "rows"``; :mod:`streamsvm.weights`). Put it before
    :class:`StreamClassifier` in the bases."""

    _weighting = "rows"

    def fit(self, X, y, sample_weight=None):
        """Reset and learn from ``X, y`` with the algorithm's pass(es), rows in the given order.

        ``sample_weight`` (optional, one number >= 0 per row) multiplies each row's weight
        (``class_weight[y] * sample_weight``): a row of weight 2 counts as two copies in the
        loss; weight 0 leaves the row out of the model.

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Continue the stream with one chunk of examples (``sample_weight`` as in ``fit``).

        Returns
        -------
        self
        """
        return self._partial_fit(X, y, classes, sample_weight)


class StreamClassifier(
    ClassWeightsMixin, CheckedParamsMixin, ClassifierMixin, BaseEstimator, RiverClassifier
):
    """Base class of the streamsvm classifiers: a binary learner made into an estimator.

    Subclasses set ``_learner_class`` (a :class:`BinaryLearner` subclass) and list in
    ``_learner_params`` the constructor parameters passed on to it. They may override
    :meth:`_make_learner` for anything more.

    Fitted attributes: ``classes_``, ``n_features_in_``, ``n_seen_`` (examples learnt),
    ``learners_`` (one binary learner, or one per class for more than two classes),
    ``class_counts_`` (rows of each class learnt, which ``class_weight='balanced'`` reads),
    ``model_nbytes_`` (bytes of model state in memory, caches left out; a file may hold less).

    Weights (:mod:`streamsvm.weights`): ``_weighting`` says what the learners take: ``"rows"``
    (a weight per row: ``class_weight`` and ``sample_weight``, through
    :class:`SampleWeightMixin`), ``"sides"`` (one weight per side of each binary problem:
    ``class_weight`` only, handed over by ``learner.set_side_weights``), ``"own"`` (the
    estimator weighs classes its own way) or None; ``_weighting_refusal`` says why not.
    Two-class models warn once when they collapse to one class (:mod:`streamsvm.collapse`).

    Hyper-parameters: subclasses declare ``_parameter_constraints`` (and, for rules tying
    parameters together, ``_parameter_rules``), checked by :func:`streamsvm._params.check_params`
    at ``fit``, at the first ``partial_fit`` and by ``set_params`` on a fitted model.
    """

    _learner_class: type[BinaryLearner] = BinaryLearner
    _learner_params: tuple[str, ...] = ()
    _accepts_sparse: bool = True
    #: attributes that are not saved by :func:`streamsvm.save` (caches and the like)
    _transient: tuple[str, ...] = ("_row_state",)
    #: the per-row path's cache (:meth:`_new_row_state`), None until made
    _row_state = None
    #: what the learners take of class and sample weights (class doc)
    _weighting: str | None = None
    #: whether :meth:`finish` runs compiled code of its own (a finishing step), whose first
    #: use in a process ``verbose`` announces as it announces ``fit``'s
    _finish_compiles: bool = False
    #: why this estimator takes no sample weights (the error's text)
    _weighting_refusal: str = "its algorithm has no weighted form implemented"
    #: whether rows sorted by label make ``fit`` learn a much worse model (measured in
    #: :mod:`streamsvm.order`): then ``fit`` warns when it gets them so
    _order_sensitive: bool = False

    # ------------------------------------------------------------------ sklearn plumbing
    def __getstate__(self):
        state = super().__getstate__()
        if "_row_state" in state:  # a cache of the per-row path (streamsvm._row_path)
            state = {k: v for k, v in state.items() if k != "_row_state"}
        return state

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "classes_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._accepts_sparse
        return tags

    @property
    def _name(self) -> str:
        return type(self).__name__

    @property
    def _finish_use(self) -> str:
        """The name under which the finishing step's first use is announced."""
        return f"{self._name}.finish"

    def _check_fitted(self) -> None:
        if not hasattr(self, "classes_"):
            raise NotFittedError(
                f"This {self._name} instance is not fitted yet. Call 'fit' or 'partial_fit' "
                "with some examples before using this estimator."
            )

    def set_params(self, **params):
        self._forget_row_state()  # the per-row path's cache read the old parameters
        return super().set_params(**params)

    def _reset(self) -> None:
        self._forget_row_state()
        for name in list(vars(self)):
            if name.endswith("_") and not name.startswith("__") or name in self._transient:
                delattr(self, name)
        for name in (
            "_feature_names",
            "_classes_declared",
            "_targets",
            "_signs",
            "_seed_entropy",
            "_n_learners_made",
            "_collapse_warned",
            "_vocabulary",
            "_warmup_rows",
            "_warmup_labels",
        ):
            self.__dict__.pop(name, None)

    # ------------------------------------------------------------------ learners
    def _learner_kwargs(self) -> dict:
        return {name: getattr(self, name) for name in self._learner_params}

    def _make_learner(self) -> BinaryLearner:
        # Learner k draws from the stream (seed entropy, k): reproducible, independent streams.
        rng = np.random.default_rng([self._seed_entropy, self._n_learners_made])
        self._n_learners_made += 1
        return self._learner_class(self.n_features_in_, rng, **self._learner_kwargs())

    def _start(self, n_features: int) -> None:
        random_state = getattr(self, "random_state", None)
        if isinstance(random_state, np.random.RandomState):
            random_state = int(random_state.randint(np.iinfo(np.int32).max))
        self._seed_entropy = int(np.random.SeedSequence(random_state).entropy)
        self._n_learners_made = 0
        self.n_features_in_ = int(n_features)
        self.n_seen_ = 0
        self.classes_ = np.empty(0)
        self.learners_ = []
        self._targets = []
        self._signs = []

    def _grow_classes(self, seen: np.ndarray) -> None:
        """Bring ``classes_`` and the learners up to date with newly seen labels (module doc)."""
        if seen.shape == self.classes_.shape and np.array_equal(seen, self.classes_):
            return  # the common case on a stream: nothing new
        new = np.setdiff1d(seen, self.classes_, assume_unique=True)
        if new.size == 0:
            return
        if self.classes_.size:  # numbers merge by value; keep classes_'s dtype when exact
            same_dtype = new.astype(self.classes_.dtype)
            if np.array_equal(same_dtype, new):
                new = same_dtype
        old = list(self.classes_)
        classes = np.union1d(self.classes_, new) if old else np.unique(seen)
        if len(old) == 0:
            targets = [classes[1]] if len(classes) == 2 else list(classes)
            self.learners_ = [self._make_learner() for _ in targets]
            self._signs = [1.0] * len(targets)
            self._targets = targets
        elif len(classes) == 2:  # one class -> two: retarget the only learner to classes[1]
            if self._targets[0] != classes[1]:
                self._targets = [classes[1]]
                self._signs = [-self._signs[0]]
        else:  # -> one-vs-rest
            by_class = dict(
                zip(self._targets, zip(self.learners_, self._signs, strict=True), strict=True)
            )
            if len(old) == 2:
                learner, sign = by_class[old[1]]
                by_class[old[0]] = (copy.deepcopy(learner), -sign)
            learners, signs = [], []
            for c in classes:
                learner, sign = by_class.get(c, (None, 1.0))
                learners.append(learner if learner is not None else self._make_learner())
                signs.append(sign)
            self.learners_, self._signs, self._targets = learners, signs, list(classes)
        self.classes_ = classes

    # ------------------------------------------------------------------ validation
    def _validate(self, X, y, *, first: bool, row_pass: bool = True):
        """``(X, y, sqnorms)``: the checked chunk and its rows' squared norms (None without
        ``row_pass``: the learners check the rows, see :attr:`_learners_check_rows`)."""
        X, sqnorms = check_features(
            X,
            n_features=None if first else self.n_features_in_,
            accept_sparse=self._accepts_sparse,
            estimator_name=self._name,
            return_sqnorms=True,
            row_pass=row_pass,
        )
        y = check_labels(y, X.shape[0])
        return X, y, sqnorms

    def _set_feature_names(self, names) -> None:
        """Record the column names of the table a fresh model started on (scikit-learn's
        ``feature_names_in_``; after :meth:`_start_checked`, which resets the model)."""
        if names is None:
            self.__dict__.pop("feature_names_in_", None)
        else:
            self.feature_names_in_ = names

    def _check_feature_names(self, names) -> None:
        """Refuse a table whose column names are not the fitted ones in order, warn when only
        one side has names (:func:`~streamsvm._validation.check_feature_names`). A model that
        learnt from dicts (River) takes its keys, in column order, as the names a table must
        have when they are all strings; arrays stay read by position there."""
        fitted = self.__dict__.get("feature_names_in_")
        if fitted is None and names is not None and self._dict_mode():
            keys = list(self._vocabulary.keys)
            if not all(isinstance(k, str) for k in keys):
                return
            fitted = np.asarray(keys, dtype=object)
        if fitted is None and names is None:
            return
        check_feature_names(names, fitted, estimator_name=self._name)

    def _max_safe_sqnorm(self, kernel=None) -> float:
        """Largest squared norm a raw row may have: a quarter of the bound of ``kernel``
        (default: the model's own; :func:`~streamsvm.kernels.spec.max_safe_sqnorm`), so that
        a row centred on a mean of such rows still meets the bound (‖x − m‖ <= ‖x‖ + ‖m‖).
        Linear models (no ``kernel`` parameter) use the linear bound."""
        if kernel is None:
            kernel = getattr(self, "kernel", "linear")
        gamma = getattr(self, "gamma_", None)
        if gamma is None and not isinstance(getattr(self, "gamma", "scale"), str):
            gamma = float(self.gamma)
        return 0.25 * max_safe_sqnorm(kernel, gamma=gamma, degree=getattr(self, "degree", 3),
                                      coef0=getattr(self, "coef0", 0.0))

    def _check_row_norms(self, X, sqnorms=None, kernel=None) -> np.ndarray:
        """Refuse a validated chunk with a row too large for ``kernel`` (default: the model's
        own); returns the rows' squared norms."""
        if sqnorms is None:
            sqnorms = row_sqnorms(X)
        if kernel is None:
            kernel = getattr(self, "kernel", "linear")
        check_row_norms(
            sqnorms,
            self._max_safe_sqnorm(kernel),
            estimator_name=self._name,
            kernel_name=getattr(kernel, "__name__", "callable") if callable(kernel) else kernel,
        )
        return sqnorms

    def _start_checked(self, X, sqnorms):
        """Start a fresh model on its first data: :meth:`_start`, :meth:`_prepare_first`,
        then the row-norm check of the model's kernel (which needs the ``gamma_`` just
        resolved; the linear bound, the loosest, is checked before anything). A refused
        chunk puts every attribute back, so the model is as it was before the call.
        ``sqnorms`` None: the learners check the rows as they learn them (``fit`` with
        :attr:`_learners_check_rows`)."""
        if sqnorms is not None:
            self._check_row_norms(X, sqnorms, kernel="linear")
        before = dict(self.__dict__)
        self._reset()
        self._start(X.shape[1])
        try:
            prepared = self._prepare_first(X)
            if sqnorms is not None:
                self._check_row_norms(X, sqnorms)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise
        return prepared

    def _prepare(self, X):
        """Hook: transform validated input before the learners see it (e.g. centring)."""
        return X

    def _prepare_for_learning(self, X):
        """Hook: what ``partial_fit`` hands the learners; by default :meth:`_prepare`'s output.
        A subclass whose learners apply the transform themselves, fused into their update
        loop, may hand over the validated rows instead."""
        return self._prepare(X)

    # ------------------------------------------------------------------ training
    def fit(self, X, y, **fit_params):
        """Reset and learn from ``X, y`` with the algorithm's pass(es), rows in the given order.

        ``sample_weight=`` is refused (ValueError) with the reason by the estimators without a
        weighted form (``docs/imbalanced.md``); those with one take it through
        :class:`SampleWeightMixin`.

        Returns
        -------
        self
        """
        return self._fit(X, y, self._sample_weight_argument(fit_params, "fit"))

    def _sample_weight_argument(self, fit_params: dict, method: str):
        """``sample_weight`` of ``fit_params``, refused (ValueError, as scikit-learn expects)
        with the reason where the estimator takes none; any other keyword is a TypeError."""
        sample_weight = fit_params.pop("sample_weight", None)
        if fit_params:
            raise TypeError(f"{self._name}.{method}() got unexpected keyword arguments "
                            f"{sorted(fit_params)}")
        if sample_weight is not None and self._weighting != "rows":
            raise ValueError(f"{self._name} does not take sample_weight: "
                             f"{self._weighting_refusal}")
        return sample_weight

    #: True where the learners' compiled loops check dense rows as they learn them (NaN,
    #: infinity, and the linear kernel's bound of :meth:`_max_safe_sqnorm`), raising
    #: :class:`~streamsvm._validation.RowsRefused`: ``fit`` on a C-contiguous float64 array
    #: then reads each row once, with no separate validation pass; on a refusal the model is
    #: put back and the separate checks name the row (the learners are fresh in ``fit``, so
    #: putting back the estimator's attributes puts back everything).
    _learners_check_rows: bool = False

    def _fit(self, X, y, sample_weight=None):
        check_params(self)
        # A refused or failed fit keeps the previous model: fit makes fresh learners and
        # leaves the old ones untouched, so putting the attributes back puts back everything.
        before = dict(self.__dict__)
        try:
            # sample weights of 0 leave rows out of the loops, which must still be checked
            if self._learners_check_rows and sample_weight is None and is_internal_dense(X):
                try:
                    return self._fit_checked(X, y, sample_weight, row_pass=False)
                except RowsRefused:
                    _put_back(self, before)
            return self._fit_checked(X, y, sample_weight)
        except BaseException:
            _put_back(self, before)
            raise

    def _fit_checked(self, X, y, sample_weight=None, row_pass: bool = True):
        """:meth:`_fit` after the parameter check; ``row_pass`` False: the learners check
        the rows (:attr:`_learners_check_rows`)."""
        names = feature_names_of(X)
        X, y, sqnorms = (self._validate(X, y, first=True) if row_pass
                         else self._validate(X, y, first=True, row_pass=False))
        sample_weight = check_sample_weight(sample_weight, X.shape[0], self._name)
        labels = unique_labels(y)
        classes = labels[0]
        if classes.shape[0] < 2:
            raise ValueError(
                f"y contains only one class ({classes.tolist()}); a classifier needs at least "
                "2 classes. To start a stream whose first examples share one class, use "
                "partial_fit(X, y, classes=[...])."
            )
        check_class_weight_labels(getattr(self, "class_weight", None), classes, complete=True,
                                  estimator_name=self._name)
        if sample_weight is not None and not (sample_weight > 0).any():
            raise ValueError(f"{self._name}: sample_weight is all zero: there is nothing to learn")
        guard_order(self, y)
        X = self._start_checked(X, sqnorms)
        self._set_feature_names(names)
        self._grow_classes(classes)
        self._count_labels(y, np.empty(0), labels)
        self._learn_reporting(X, y, whole_pass=True, sample_weight=sample_weight)
        guard_collapse(self)
        return self

    def _prepare_first(self, X):
        """Hook run on the first data a fresh model sees (e.g. to fix a centring mean)."""
        return self._prepare_for_learning(X)

    def partial_fit(self, X, y, classes=None, **fit_params):
        """Continue the stream with one chunk of examples.

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like, optional
            All labels the stream will contain. Declaring them fixes ``classes_`` (a label
            outside them is an error); without them, classes are added as they appear.

        Returns
        -------
        self
        """
        return self._partial_fit(X, y, classes,
                                 self._sample_weight_argument(fit_params, "partial_fit"))

    def _partial_fit(self, X, y, classes=None, sample_weight=None):
        self._forget_row_state()
        if hasattr(self, "classes_") and not self._warmup_y:
            return self._partial_fit_chunk(X, y, classes, sample_weight)
        # A fresh model (perhaps holding learn_one's warm-up examples): a refused call, or one
        # whose learning fails, leaves it unfitted with its warm-up examples, as it was. Its
        # learners are all made by this call, so putting the attributes back is enough.
        before = dict(self.__dict__)
        try:
            if self._warmup_y:  # learn_one's gathered first examples come first
                self._learn_warmup()
            return self._partial_fit_chunk(X, y, classes, sample_weight)
        except BaseException:
            _put_back(self, before)
            raise

    def _partial_fit_chunk(self, X, y, classes=None, sample_weight=None):
        """:meth:`_partial_fit` of one chunk, after the warm-up examples are learnt."""
        first = not hasattr(self, "classes_")
        if first:
            check_params(self)
        names = feature_names_of(X)
        if not first:
            self._check_feature_names(names)
        X, y, sqnorms = self._validate(X, y, first=first)
        sample_weight = check_sample_weight(sample_weight, X.shape[0], self._name)
        if not first:
            check_label_kind(y, self.classes_)
        labels = unique_labels(y)
        seen = labels[0]
        if classes is not None:
            declared = check_declared_classes(classes)
            check_label_kind(y, declared, what="the declared classes")
            if not first:
                check_label_kind(declared, self.classes_)
            if (
                not first
                and getattr(self, "_classes_declared", False)
                and not np.array_equal(declared, self.classes_)
            ):
                raise ValueError(
                    f"classes={declared.tolist()} differs from the classes declared before "
                    f"({self.classes_.tolist()})"
                )
        elif not first and getattr(self, "_classes_declared", False):
            declared = self.classes_
        else:
            declared = None
        if declared is not None and not np.array_equal(seen, declared):
            unknown = np.setdiff1d(seen, declared, assume_unique=True)
            if unknown.size:
                raise ValueError(
                    f"y contains labels {unknown.tolist()} that are not in the declared classes "
                    f"{declared.tolist()}"
                )
        check_class_weight_labels(getattr(self, "class_weight", None),
                                  seen if declared is None else declared,
                                  complete=declared is not None, estimator_name=self._name)
        if first:
            X = self._start_checked(X, sqnorms)
            self._set_feature_names(names)
        else:
            self._check_row_norms(X, sqnorms)
            X = self._prepare_for_learning(X)
        counted = self.classes_
        if declared is not None:
            self._classes_declared = True
            self._grow_classes(declared)
        self._grow_classes(seen)
        self._count_labels(y, counted, labels)
        self._learn_reporting(X, y, whole_pass=False, sample_weight=sample_weight)
        guard_collapse(self)
        return self

    # ------------------------------------------------------------------ weights
    def _check_restored(self) -> None:
        """Raise ValueError unless the saved class counts and collapse flag (e.g. read from a
        model file) fit the classes; files saved before they existed have neither."""
        counts = self.__dict__.get("class_counts_")
        if counts is not None and "classes_" in self.__dict__:  # else: the model checks say
            classes = self.__dict__.get("classes_")
            if (not isinstance(counts, np.ndarray) or counts.dtype != np.float64
                    or not isinstance(classes, np.ndarray) or counts.shape != classes.shape
                    or not np.isfinite(counts).all() or (counts < 0).any()):
                raise ValueError("class_counts_ does not hold one count >= 0 per class")
        if type(self.__dict__.get("_collapse_warned", False)) is not bool:
            raise ValueError("the collapse warning's flag is not a bool")

    #: whether the learners' compiled loops release the GIL, so that one-vs-rest learners gain
    #: from running side by side on Python threads (``streamsvm._threads.for_each``)
    _learners_release_gil: bool = False

    def _side_by_side_jobs(self):
        """``n_jobs`` for :func:`~streamsvm._threads.for_each` over the learners (None: one
        after the other, which is all that learners holding the GIL can do)."""
        return getattr(self, "n_jobs", None) if self._learners_release_gil else None

    def _learn(self, X, y, *, whole_pass: bool, sample_weight=None) -> None:
        per_class = self._class_weight_vector()
        rows = (self._row_weights(y, sample_weight, per_class) if self._weighting == "rows"
                else None)

        def learn(job):  # one-vs-rest learners are independent: in parallel with n_jobs
            learner, target, sign = job
            y_binary = (y == target) * (2.0 * sign) - sign  # float64 ±sign, one vector pass
            if self._weighting == "sides":
                learner.set_side_weights(*self._side_weights(per_class, target, sign))
            self._record_before(learner, X, y_binary, sample_weight)
            weighted = {} if rows is None else {"sample_weight": rows}
            if whole_pass:
                learner.fit_pass(X, y_binary, **weighted)
            else:
                learner.partial_fit(X, y_binary, **weighted)
            self._record_after(learner, X, y_binary, sample_weight)

        jobs = list(zip(self.learners_, self._targets, self._signs, strict=True))
        for_each(learn, jobs, self._side_by_side_jobs())
        self.n_seen_ += X.shape[0]

    def _learn_reporting(self, X, y, *, whole_pass: bool, sample_weight=None) -> None:
        """:meth:`_learn`, with progress lines when ``verbose`` (:mod:`streamsvm.progress`).

        With ``verbose >= 1`` the rows are learnt in pieces, each a compiled call, with a line
        every few seconds, where that gives the very same model (:meth:`_exact_in_pieces`);
        otherwise in one call, announced. The first use of an estimator in a process is
        announced too (it may compile). ``verbose >= 2`` also marks the start and the end."""
        with compiled_threads(getattr(self, "n_jobs", None)):
            self._learn_reporting_threads(X, y, whole_pass=whole_pass,
                                          sample_weight=sample_weight)

    def _learn_reporting_threads(self, X, y, *, whole_pass: bool, sample_weight=None) -> None:
        first = progress.first_use(self._name)
        if whole_pass:  # fit runs the finishing step: its first use is announced with fit's
            progress.first_use(self._finish_use)
        verbose = getattr(self, "verbose", 0) or 0
        if not verbose:
            self._learn(X, y, whole_pass=whole_pass, sample_weight=sample_weight)
            return
        if first:
            progress.say(progress.first_use_notice(self._name))
        n = len(y)
        label = f"{self._name}.{'fit' if whole_pass else 'partial_fit'}"
        with (progress.Progress(label, n, always=verbose >= 2 and n >= 1000) as bar,
              progress.Heartbeat(f"{label}: first use", enabled=first) as compiling):
            if self._exact_in_pieces(X, whole_pass=whole_pass):
                for start, stop in bar.pieces(n):
                    self._learn(X[start:stop], y[start:stop], whole_pass=False,
                                sample_weight=None if sample_weight is None
                                else sample_weight[start:stop])
                    compiling.stop()  # compiled: the progress lines take over
                if whole_pass:
                    for learner in self.learners_:
                        learner.finish()
            else:
                if whole_pass or n >= 10_000:
                    progress.say(f"{label}: {n:,} rows in one compiled pass (this estimator "
                                 "reports no progress inside it)")
                self._learn(X, y, whole_pass=whole_pass, sample_weight=sample_weight)
                bar.update(n)

    def _exact_in_pieces(self, X, *, whole_pass: bool) -> bool:
        """True when learning ``X`` in consecutive pieces gives the model one call gives: the
        learners' ``fit_pass`` is one ``partial_fit`` then ``finish`` (for ``fit``), ``_learn``
        is this class's, and the family does not depend on the chunking once its first data
        are fixed (``_chunk_invariant``, or that of :class:`~streamsvm.kernels.FirstDataRule`,
        which only the first data decide and which are fixed by now)."""
        if not hasattr(X, "__getitem__"):  # arrays, CSR, and StreamSVM's mapped rows slice
            return False
        if type(self)._learn is not StreamClassifier._learn:
            return False
        if whole_pass and any(type(learner).fit_pass is not BinaryLearner.fit_pass
                              for learner in self.learners_):
            return False
        for klass in type(self).__mro__:
            if "_chunk_invariant" in vars(klass):
                return klass is FirstDataRule or bool(self._chunk_invariant)
        return False

    # ------------------------------------------------------------------ calibration
    @staticmethod
    def _calibrator(learner) -> PlattCalibrator:
        """The learner's :class:`~streamsvm.calibration.PlattCalibrator` (made on first use)."""
        calibrator = getattr(learner, "calibration", None)
        if calibrator is None:
            calibrator = learner.calibration = PlattCalibrator()
        return calibrator

    def _rows_to_score(self, X, rows: slice | None):
        """The rows ``rows`` (None: all) of what the learners were handed, in the form their
        ``decision_function`` takes (a subclass whose :meth:`_prepare_for_learning` hands
        over something else converts it here)."""
        if rows is None:
            return X
        if sp.issparse(X):
            return csr_row_range(X, rows.start or 0, rows.stop)
        return X[rows]

    def _learner_scores(self, learner, X) -> np.ndarray:
        """A binary learner's scores of prepared rows, as :meth:`decision_function` gives
        them (what the calibration records and rescores)."""
        return learner.decision_function(X)

    def _rows_to_keep(self, X, start: int):
        """Rows ``start:`` of what the learners were handed, for the calibrator to keep: a
        dense array it copies now, or :class:`~streamsvm.calibration.CsrRows` it writes out
        when the rows are read (CSR rows are copied as their three arrays, not sliced)."""
        if sp.issparse(X):
            return CsrRows.tail(X, start)
        return self._rows_to_score(X, None if start == 0 else slice(start, None))

    def _record_before(self, learner, X, y_binary, weights=None) -> None:
        """Record the prequential scores of a chunk: the decision values of its first rows (at
        most ``per_chunk`` of the calibrator, which bounds the cost on large chunks) against
        the learner as it is before the chunk, in one call. For one row (``learn_one``) this
        is exactly the score before learning the row; for a chunk, rows after the first are
        scored without the chunk's earlier rows learnt. A learner that has learnt nothing
        yet records nothing."""
        calibrator = self._calibrator(learner)
        if calibrator.n_learned > 0:
            if X.shape[0] <= calibrator.per_chunk:
                calibrator.record(self._learner_scores(learner, self._rows_to_score(X, None)),
                                  y_binary, weights)
                return
            head = slice(0, calibrator.per_chunk)
            calibrator.record(self._learner_scores(learner, self._rows_to_score(X, head)),
                              y_binary[head], None if weights is None else weights[head])

    def _record_after(self, learner, X, y_binary, weights=None) -> None:
        """Count the rows learnt; on a fresh learner's first data (``fit``, or the first chunk
        of a stream), whose rows no earlier model could score, record the decisions of the
        model just learnt on the last ``window`` of those rows (in-sample scores). A linear
        model's calibrator also keeps the chunk's last rows, to be rescored by the model of
        the moment when probabilities are asked (:mod:`streamsvm.calibration`)."""
        calibrator = self._calibrator(learner)
        if calibrator.n_learned == 0 and X.shape[0] > 1:
            tail = slice(max(0, X.shape[0] - calibrator.scores.shape[0]), X.shape[0])
            rows = self._rows_to_score(X, None if tail.start == 0 else tail)
            calibrator.record(self._learner_scores(learner, rows), y_binary[tail],
                              None if weights is None else weights[tail])
        if self._scores_are_linear():
            start = max(0, X.shape[0] - RESCORED_ROWS)
            rows = self._rows_to_keep(X, start)
            calibrator.keep_rows_for_rescoring(rows.shape[1])
            calibrator.keep_rows(rows, y_binary[start:],
                                 None if weights is None else weights[start:])
        calibrator.n_learned += X.shape[0]

    def _scores_are_linear(self) -> bool:
        """Whether the decision values are linear in the learners' input (no kernel, or the
        linear one): the calibration then rescores the recent rows (``calibration.py``)."""
        return getattr(self, "kernel", "linear") == "linear"

    def finish(self):
        """Tell the model its stream has ended (flushes lookahead buffers, runs finishing steps).

        ``fit`` does this itself; call it after the last ``partial_fit`` of a stream.
        The model can still continue learning afterwards.

        Returns
        -------
        self
        """
        self._forget_row_state()
        if self._warmup_y:  # a stream that ended during learn_one's warm-up
            self._learn_warmup()
        self._check_fitted()
        first = (self._finish_compiles and getattr(self, "verbose", 0)
                 and progress.first_use(self._finish_use))
        if first:
            progress.say(progress.first_use_notice(self._finish_use))
        with (compiled_threads(getattr(self, "n_jobs", None)),
              progress.Heartbeat(f"{self._finish_use}: first use", enabled=bool(first))):
            for learner in self.learners_:
                learner.finish()
                self._calibrator(learner).model_changed()
        return self

    # ------------------------------------------------------------------ River's dict path
    def learn_one(self, x, y):
        """Learn one example (River's interface); ``x`` is a 1-D array or a dict.

        Dicts: a key not seen before becomes a new feature (value 0 in every earlier
        example; :mod:`streamsvm.vocabulary`, at most ``MAX_FEATURES`` keys). A model whose
        first data fix something (``gamma='scale'``, centring) gathers its first
        ``warmup_rows_`` examples (:data:`streamsvm.kernels.first_data.WARMUP_ROWS`) and
        learns them as one first chunk, the batch path's rule; until then ``predict_one``
        gives the most frequent label so far. ``docs/river.md`` has the details.

        Returns
        -------
        self
        """
        if _row_path.ENABLED:
            state = self._row_state or self._new_row_state()
            if state is not None and state.learn(x, y):
                return self
        if hasattr(self, "classes_") and not getattr(self, "_warmup_y", None):
            undo = Undo()
            n_keys = len(self._vocabulary) if self._dict_mode() else 0
            try:
                row = self._example_row(x, learn=True, undo=undo)
                self.partial_fit(row, [y])
            except BaseException:
                undo()
                if self._dict_mode():
                    self._vocabulary.forget_after(n_keys)
                raise
            return self
        self._gather_warmup(x, y)
        return self

    # ------------------------------------------------------------------ the per-row path
    def _new_row_state(self):
        """A new :class:`~streamsvm._row_path.RowState` (kept as ``_row_state``) for a running
        dict-mode model whose every piece of ``partial_fit`` / ``predict`` is this class's and
        whose learners have a per-row step (``row_ready``), else None (the general path)."""
        d = self.__dict__
        if ("classes_" not in d or "_vocabulary" not in d or d.get("_warmup_labels")
                or getattr(self, "verbose", 0) or "_row_state" not in self._transient):
            return None
        if (getattr(self, "class_weight", None) is not None
                and self._weighting not in (None, "own")):
            return None  # weighted learning stays on the general path
        klass = type(self)
        if klass.partial_fit not in (StreamClassifier.partial_fit, SampleWeightMixin.partial_fit):
            return None
        if any(getattr(klass, name) is not getattr(StreamClassifier, name) for name in (
                "_validate", "_learn", "_learn_reporting", "_record_before",
                "_record_after", "_check_row_norms", "_prepare", "_prepare_for_learning",
                "decision_function", "predict", "predict_proba", "_rows_to_score")):
            return None
        if not self.learners_ or not all(getattr(learner, "row_ready", lambda: False)()
                                         for learner in self.learners_):
            return None
        try:  # the thread count of n_jobs, which the LASVM family's row step runs at
            threads = compiled_threads(getattr(self, "n_jobs", None)).threads
        except (TypeError, ValueError):
            return None  # a bad n_jobs: the general path raises its error
        for learner in self.learners_:
            self._calibrator(learner)
        state = d["_row_state"] = _row_path.RowState(self, self._max_safe_sqnorm(), threads)
        return state

    def _check_collapse(self) -> None:
        """The collapse guard (:func:`streamsvm.collapse.guard_collapse`), for the per-row
        path."""
        guard_collapse(self)

    def _forget_row_state(self) -> None:
        """Drop the per-row path's cache: the general path is about to change the model."""
        self.__dict__.pop("_row_state", None)

    def _row_targets(self, y):
        """The ±1 target of label ``y`` for each learner (as ``_learn`` computes them), or
        None when ``y`` is not a label of ``classes_`` (the general path checks it)."""
        try:
            label = check_labels([y], 1)
            check_label_kind(label, self.classes_)
        except (TypeError, ValueError):
            return None
        if np.setdiff1d(label, self.classes_).size:
            return None
        return tuple(float(np.where(label == target, sign, -sign)[0])
                     for target, sign in zip(self._targets, self._signs, strict=True))

    def _row_second_class(self, y) -> bool:
        """Make label ``y`` the second class of a one-class model as ``partial_fit`` of a row
        labelled ``y`` does before learning it (``classes_`` and the learner's target grown,
        ``class_counts_`` grown with the new class not counted yet), for the per-row path,
        which then learns the row; False (nothing changed) where the general path must do
        it: declared classes, class weights, a label it refuses or already holds."""
        if (len(self.classes_) != 1 or getattr(self, "_classes_declared", False)
                or getattr(self, "class_weight", None) is not None
                or not isinstance(self.__dict__.get("class_counts_"), np.ndarray)):
            return False
        try:
            label = check_labels([y], 1)
            check_label_kind(label, self.classes_)
        except (TypeError, ValueError):
            return False
        counted = self.classes_
        self._grow_classes(np.unique(label))
        if len(self.classes_) != 2:  # a label it holds: nothing changed
            return False
        self.class_counts_ = count_labels(self.classes_, self.class_counts_, label[:0], counted)
        return True

    @property
    def warmup_rows_(self) -> int:
        """Examples ``learn_one`` gathers on a fresh model before it learns them as one first
        chunk: :data:`~streamsvm.kernels.first_data.WARMUP_ROWS` where the first data fix
        ``gamma_`` or ``mean_``, else 1."""
        return self._learn_one_warmup()

    def _learn_one_warmup(self) -> int:
        return 1

    def _dict_mode(self) -> bool:
        """Whether this model reads dicts through a vocabulary (it started on a dict)."""
        if "_vocabulary" not in self.__dict__ and "_feature_names" in self.__dict__:
            # a model saved before vocabularies: its fixed feature names are one
            vocabulary = FeatureVocabulary()
            vocabulary.learn({name: 0.0 for name in self._feature_names})
            vocabulary.keys = list(self._feature_names)
            vocabulary._restore_transient()
            self._vocabulary = vocabulary
        return "_vocabulary" in self.__dict__

    def _example_row(self, x, *, learn: bool, undo: Undo | None = None):
        """One example as a (1, n_features) row of the model: dicts through the vocabulary
        (CSR: absent keys are 0; with ``learn``, new keys widen the model, recorded in
        ``undo``), or, on a model started from arrays, dicts of integer column indices."""
        width = getattr(self, "n_features_in_", None)
        if is_dict_example(x) and self._dict_mode():
            vocabulary = self._vocabulary
            if learn:
                for key, value in x.items():  # values checked before anything changes
                    feature_value(key, value)
                if vocabulary.learn(x) and width is not None and len(vocabulary) > width:
                    self._widen(len(vocabulary), undo)
                if not len(vocabulary):
                    raise ValueError("the example is an empty dict; the model has no "
                                     "feature yet")
                width = len(vocabulary) if width is None else self.n_features_in_
            return vocabulary.row(x, width)
        if is_dict_example(x) and width is None and not learn:
            return None
        if is_dict_example(x) and not integral_keys(x):
            raise ValueError(
                f"{self._name} learnt from arrays of {width} columns; a dict example for it "
                "must use integer column indices as keys")
        row, _ = check_one_example(x, feature_names=None, n_features=width)
        return row

    def _widen(self, width: int, undo: Undo) -> None:
        """Give the model ``width`` features, the new ones 0 in everything learnt
        (:mod:`streamsvm._widen`); replaced attributes are recorded in ``undo``."""
        self._forget_row_state()
        old = self.n_features_in_
        fresh = []
        for learner in self.learners_:
            widen = getattr(learner, "widen_features", None)
            if widen is not None and widen(width - old, undo):
                continue  # its own widening (the linear learners: no fresh learners built)
            if not fresh:
                for n in (old, old + 1):
                    shadow = copy.copy(self)
                    shadow.n_features_in_ = n
                    fresh.append(shadow._make_learner())
            widen_like(learner, fresh[0], fresh[1], old=old, added=width - old, undo=undo)
        mean = getattr(self, "mean_", None)
        if isinstance(mean, np.ndarray):
            undo.set(self, "mean_", np.concatenate([mean, np.zeros(width - old)]))
        undo.set(self, "n_features_in_", width)

    def _gather_warmup(self, x, y) -> None:
        """Warm-up of ``learn_one`` (see there): keep the example; learn the gathered ones as
        the first chunk once there are ``warmup_rows_`` of them."""
        if not getattr(self, "_warmup_y", None):
            check_params(self)
            if is_dict_example(x) and "_vocabulary" not in self.__dict__:
                self._vocabulary = FeatureVocabulary()
        label = check_labels([y], 1)
        if self._warmup_y:
            check_label_kind(label, np.asarray(self._warmup_y))
        n_keys = len(self._vocabulary) if self._dict_mode() else 0
        try:
            row = self._example_row(x, learn=True)
            if not is_dict_example(x) and self._warmup_X and \
                    row.shape[1] != self._warmup_X[0].shape[1]:
                raise ValueError(f"X has {row.shape[1]} features, but {self._name} is "
                                 f"expecting {self._warmup_X[0].shape[1]} features as input")
        except BaseException:
            if self._dict_mode():
                self._vocabulary.forget_after(n_keys)
                if not self._warmup_y:
                    del self._vocabulary
            raise
        self._warmup_X = [*self._warmup_X, row]
        self._warmup_y = [*self._warmup_y, label[0].item() if isinstance(label[0], np.generic)
                          else label[0]]
        if len(self._warmup_y) >= self._learn_one_warmup():
            try:
                self._learn_warmup()
            except BaseException:
                self._warmup_X, self._warmup_y = self._warmup_X[:-1], self._warmup_y[:-1]
                if self._dict_mode():
                    self._vocabulary.forget_after(n_keys)
                raise

    def _learn_warmup(self) -> None:
        """Learn the gathered warm-up examples as one chunk (the model's first data)."""
        X_rows, labels = self._warmup_X, self._warmup_y
        if len(X_rows) == 1:  # one row (no warm-up rule): as it is, without a stack
            X = X_rows[0]
        elif sp.issparse(X_rows[0]):
            width = len(self._vocabulary)
            X = sp.vstack([sp.csr_matrix((r.data, r.indices, r.indptr), shape=(1, width))
                           for r in X_rows], format="csr")
        else:
            X = np.vstack(X_rows)
        vocabulary = self.__dict__.get("_vocabulary")
        self._warmup_X, self._warmup_y = [], []
        try:
            self.partial_fit(X, np.asarray(labels))
        except BaseException:
            self._warmup_X, self._warmup_y = X_rows, labels
            raise
        if vocabulary is not None:
            self._vocabulary = vocabulary

    @property
    def _warmup_X(self) -> list:
        return self.__dict__.get("_warmup_rows", [])

    @_warmup_X.setter
    def _warmup_X(self, rows: list) -> None:
        self.__dict__["_warmup_rows"] = rows

    @property
    def _warmup_y(self) -> list:
        return self.__dict__.get("_warmup_labels", [])

    @_warmup_y.setter
    def _warmup_y(self, labels: list) -> None:
        self.__dict__["_warmup_labels"] = labels

    def _warmup_answer(self) -> dict:
        """``{label: frequency}`` of the gathered warm-up labels (``{}`` when none)."""
        labels = self._warmup_y
        counts: dict = {}
        for label in labels:
            counts[label] = counts.get(label, 0) + 1
        return {label: n / len(labels) for label, n in counts.items()}

    # ------------------------------------------------------------------ prediction
    def decision_function(self, X):
        """Scores: shape (n,) for two classes (positive means ``classes_[1]``), else (n, K)."""
        self._check_fitted()
        self._check_feature_names(feature_names_of(X))
        X, sqnorms = check_features(
            X,
            n_features=self.n_features_in_,
            accept_sparse=self._accepts_sparse,
            estimator_name=self._name,
            return_sqnorms=True,
        )
        self._check_row_norms(X, sqnorms)
        X = self._prepare(X)
        scores = [None] * len(self.learners_)

        def score(position):
            scores[position] = self._signs[position] * self.learners_[position].decision_function(X)

        with compiled_threads(getattr(self, "n_jobs", None)):
            for_each(score, range(len(scores)), self._side_by_side_jobs())
        return scores[0] if len(scores) == 1 else np.column_stack(scores)

    def predict(self, X):
        """Predicted class label of each row."""
        scores = self.decision_function(X)
        if scores.ndim == 2:
            return self.classes_[np.argmax(scores, axis=1)]
        if len(self.classes_) == 1:
            return np.repeat(self.classes_, scores.shape[0])
        return self.classes_[(scores > 0).astype(np.intp)]

    def predict_one(self, x):
        """Label of one example (River's interface): during ``learn_one``'s warm-up the most
        frequent label so far, None before anything has been learnt. Dict keys the model
        has not learnt count as 0."""
        if _row_path.ENABLED:
            state = self._row_state or self._new_row_state()
            if state is not None:
                label = state.predict(x)
                if label is not MISS:
                    return label
        if not hasattr(self, "classes_") or self._warmup_y:
            answer = self._warmup_answer()
            return max(answer, key=answer.get) if answer else None
        label = self.predict(self._example_row(x, learn=False))[0]
        return label.item() if isinstance(label, np.generic) else label

    def predict_proba(self, X):
        """Probability of each class (columns in ``classes_`` order; rows sum to 1).

        Platt scaling of the decision values, fitted on each binary learner's prequential
        scores (:mod:`streamsvm.calibration`); with more than two classes, the one-vs-rest
        probabilities of each class normalised to sum to 1. The most probable class is
        always the one ``predict`` gives (where the sigmoid disagrees with the decision, the
        probability is clipped to 1/2, or, with several classes, the two entries swap). A
        model that has seen one class gives that class probability 1.
        """
        return self._proba_from_scores(self.decision_function(X))

    def _proba_from_scores(self, scores) -> np.ndarray:
        if scores.ndim == 1 and len(self.classes_) == 1:
            return np.ones((scores.shape[0], 1))
        columns = scores[:, None] if scores.ndim == 1 else scores
        proba = np.empty_like(columns)
        for k, (learner, sign) in enumerate(zip(self.learners_, self._signs, strict=True)):
            positive = self._calibrator(learner).probability(
                sign * columns[:, k], functools.partial(self._learner_scores, learner))
            proba[:, k] = positive if sign > 0 else 1.0 - positive
        if scores.ndim == 1:
            positive = agree_with_labels(proba[:, 0], scores > 0)
            return np.column_stack([1.0 - positive, positive])
        total = proba.sum(axis=1, keepdims=True)
        uniform = np.full_like(proba, 1.0 / proba.shape[1])
        proba = np.where(total > 0, proba / np.where(total > 0, total, 1.0), uniform)
        return agree_with_scores(proba, np.argmax(scores, axis=1))

    def predict_proba_one(self, x) -> dict:
        """``{class: probability}`` of one example (River's interface): during ``learn_one``'s
        warm-up the frequencies of the labels so far, ``{}`` before anything has been
        learnt. Dict keys the model has not learnt count as 0."""
        if not hasattr(self, "classes_") or self._warmup_y:
            return self._warmup_answer()
        state = self._row_state or self._new_row_state() \
            if _row_path.ENABLED else None
        scores = None if state is None else state.scores(x)
        if scores is not None:
            scores = np.array(scores)
            proba = self._proba_from_scores(scores if scores.shape[0] == 1 else scores[None])[0]
        else:
            proba = self.predict_proba(self._example_row(x, learn=False))[0]
        return {
            (c.item() if isinstance(c, np.generic) else c): float(p)
            for c, p in zip(self.classes_, proba, strict=True)
        }

    # ------------------------------------------------------------------ introspection
    @property
    def model_nbytes_(self) -> int:
        """Bytes of NumPy state the fitted model holds in memory (learners and estimator
        arrays, caches left out); its file may hold less (no spare rows, no rebuildable
        matrices: ``docs/contract.md``)."""
        self._check_fitted()
        return state_nbytes(self.learners_) + sum(
            state_nbytes(v) for k, v in vars(self).items() if k.endswith("_") and k != "learners_"
        )

    def _sum_over_learners(self, attribute: str) -> int:
        self._check_fitted()
        return int(sum(getattr(learner, attribute) for learner in self.learners_))
