"""Input checks of the estimator contract: features, column names and the rows' norms,
checked before any state changes (a refused call leaves the model as it was)."""

from __future__ import annotations

import numpy as np

from ..input.validation import (
    check_feature_names,
    check_features,
    check_labels,
    check_row_norms,
    row_sqnorms,
)
from ..kernels.spec import max_safe_sqnorm


class InputChecksMixin:
    """Validation of the chunks a :class:`~streamsvm.base.StreamClassifier` learns from and
    predicts on, and the hooks that prepare them for its learners."""

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
        one side has names (:func:`~streamsvm.input.validation.check_feature_names`). A model that
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
