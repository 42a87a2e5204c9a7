"""Checks of the distributed estimator's input (parameters, rows, labels, sites, classes)
for :class:`~streamsvm.distributed.estimator.DistributedL2SVM`."""

from __future__ import annotations

import numpy as np

from ..input.validation import (
    check_declared_classes,
    check_feature_names,
    check_features,
    check_label_kind,
    check_labels,
    check_row_norms,
)
from ..kernels.spec import max_safe_sqnorm
from ..utils.params import check_params
from .network import checkpoint_dir_in_use

__all__ = ["ChecksMixin"]


class ChecksMixin:
    """Input checks of the distributed estimator."""

    def _check_start(self):
        """The parameter check of a fresh start (:func:`~streamsvm.utils.params.check_params`),
        and the checkpoint folder's: an explicit ``checkpoint_dir`` that another live model's
        sites use is refused (each model owns its folder)."""
        check_params(self)
        if self.tracking == "budget" and (
                callable(self.kernel) or self.kernel not in ("linear", "rbf")
                or self.update != "method1" or self.deletion_check != "update"):
            raise ValueError(
                "tracking='budget' needs kernel='rbf' (random Fourier features) or 'linear', "
                f"update='method1' and deletion_check='update'; got kernel={self.kernel!r}, "
                f"update={self.update!r}, deletion_check={self.deletion_check!r}: use "
                "tracking='exact' (or 'auto')")
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
        only one side has names (:func:`~streamsvm.input.validation.check_feature_names`, as
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
