"""The chunk path: ``fit`` and ``partial_fit``, which validate a chunk, grow the classes,
count the labels and hand the chunk to every binary learner (one-vs-rest learners side
by side where their loops release the GIL), with progress lines when ``verbose``."""

from __future__ import annotations

import numpy as np

from ..input.validation import (
    RowsRefused,
    check_declared_classes,
    check_label_kind,
    feature_names_of,
    is_internal_dense,
    unique_labels,
)
from ..kernels.first_data import FirstDataRule
from ..utils import progress
from ..utils.params import check_params
from ..utils.threads import compiled_threads, for_each
from .collapse import guard_collapse
from .learner import BinaryLearner
from .order import guard_order
from .weights import (
    check_class_weight_labels,
    check_sample_weight,
)


def _put_back(model, before: dict) -> None:
    """Give ``model`` back the attributes ``before`` (a copy of its ``__dict__``)."""
    model.__dict__.clear()
    model.__dict__.update(before)



class SampleWeightMixin:
    """``fit`` and ``partial_fit`` with ``sample_weight``, for the estimators whose learners
    take a weight per row (``_weighting = "rows"``; :mod:`streamsvm.base.weights`). Put it before
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




class ChunkPathMixin:
    """The scikit-learn training face of a :class:`~streamsvm.base.StreamClassifier`."""

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
    #: :class:`~streamsvm.input.validation.RowsRefused`: ``fit`` on a C-contiguous float64 array
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


    #: whether the learners' compiled loops release the GIL, so that one-vs-rest learners gain
    #: from running side by side on Python threads (``streamsvm.utils.threads.for_each``)
    _learners_release_gil: bool = False

    def _side_by_side_jobs(self):
        """``n_jobs`` for :func:`~streamsvm.utils.threads.for_each` over the learners (None: one
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
        """:meth:`_learn`, with progress lines when ``verbose`` (:mod:`streamsvm.utils.progress`).

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
        if type(self)._learn is not ChunkPathMixin._learn:
            return False
        if whole_pass and any(type(learner).fit_pass is not BinaryLearner.fit_pass
                              for learner in self.learners_):
            return False
        for klass in type(self).__mro__:
            if "_chunk_invariant" in vars(klass):
                return klass is FirstDataRule or bool(self._chunk_invariant)
        return False
