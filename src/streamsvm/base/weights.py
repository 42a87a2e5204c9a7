"""Class and sample weights on a stream: checking them and turning them into per-row weights.

A weighted example counts in the hinge loss as that many copies: for the kernel SVMs its
dual box becomes ``0 <= alpha_i <= C * w_i`` (the weighted C-SVM of scikit-learn's ``SVC``,
whose ``class_weight`` and ``sample_weight`` multiply), for the perceptron its update is
``w_i * y_i * x_i``. The weight of a row is ``class_weight[y_i] * sample_weight_i``.

``class_weight='balanced'`` gives class ``c`` the weight ``n / (k * n_c)`` (scikit-learn's
rule), with ``n_c`` the number of rows of class ``c`` **the model has counted so far**,
``n`` their sum and ``k`` the number of classes counted: ``fit`` counts all of ``y`` first,
so it equals scikit-learn's weights; ``partial_fit`` counts each chunk's labels *before*
learning the chunk, so the first chunk is learnt with the first chunk's proportions and
every later chunk with the proportions of the stream up to and including it. The counts are
the fitted attribute ``class_counts_`` (saved with the model).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..input.validation import unique_labels
from ..utils.params import Interval, IsNone, Options, WeightDict

__all__ = ["CLASS_WEIGHT", "ClassWeightsMixin", "check_class_weight_labels",
           "check_sample_weight", "class_weights", "count_labels"]

#: ``class_weight`` of the estimators that take it: None, 'balanced' or {label: weight > 0}
CLASS_WEIGHT = [IsNone(), Options("balanced"),
                WeightDict(Interval(numbers.Real, 0, None, closed="neither"))]


def check_sample_weight(sample_weight, n_rows: int, estimator_name: str):
    """``sample_weight`` as a float64 array of ``n_rows`` finite non-negative numbers (None
    stays None), or a ValueError naming the problem."""
    if sample_weight is None:
        return None
    weights = np.asarray(sample_weight)
    if weights.dtype.kind not in "biuf":
        raise ValueError(f"{estimator_name}: sample_weight must hold numbers; got dtype "
                         f"{weights.dtype}")
    weights = weights.astype(np.float64)
    if weights.ndim != 1 or weights.shape[0] != n_rows:
        raise ValueError(f"{estimator_name}: sample_weight must have shape ({n_rows},), one "
                         f"weight per row; got shape {weights.shape}")
    if not np.isfinite(weights).all():
        raise ValueError(f"{estimator_name}: sample_weight holds NaN or infinity")
    if (weights < 0).any():
        raise ValueError(f"{estimator_name}: sample_weight holds negative weights (the first "
                         f"at row {int(np.flatnonzero(weights < 0)[0])}); weights must be >= 0")
    return weights


def check_class_weight_labels(class_weight, labels, *, complete: bool,
                              estimator_name: str) -> None:
    """Refuse a ``class_weight`` dict whose labels are not labels of the model: of another
    kind than ``labels`` (numbers or strings), or, when ``labels`` are all the classes the
    model will see (``complete``: ``fit`` or declared classes), not among them."""
    if not isinstance(class_weight, dict) or not class_weight:
        return
    keys = list(class_weight)
    labels = np.asarray(labels)
    numeric = labels.dtype.kind in "biuf"
    wrong_kind = [k for k in keys
                  if isinstance(k, str | np.str_) == numeric
                  or not isinstance(k, str | np.str_ | numbers.Number)]
    unknown = wrong_kind
    if complete and not wrong_kind:
        unknown = [k for k in keys if not np.isin(np.asarray([k]), labels).all()]
    if unknown:
        raise ValueError(f"{estimator_name}: class_weight names labels {unknown!r} that are not "
                         f"classes of this model (classes: {labels.tolist()})")


def count_labels(classes: np.ndarray, counts, y: np.ndarray,
                 old_classes: np.ndarray | None = None, seen=None) -> np.ndarray:
    """Running counts of each class of ``classes`` after adding the labels ``y``; ``counts``
    were the counts of ``old_classes`` (a subset of ``classes``; None: nothing counted).
    ``seen``: ``unique_labels(y)`` if the caller has it already."""
    total = np.zeros(classes.shape[0])
    if counts is not None and old_classes is not None and old_classes.shape == counts.shape:
        total[np.searchsorted(classes, old_classes)] = counts
    if y.shape[0]:
        seen, n = unique_labels(y) if seen is None else seen
        total[np.searchsorted(classes, seen)] += n
    return total


def class_weights(class_weight, classes: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The weight of each class of ``classes`` (module doc): all ones for None; from the
    running ``counts`` for 'balanced' (1 for a class not counted yet); from the dict (1 for
    a label it does not name) otherwise."""
    if class_weight is None:
        return np.ones(classes.shape[0])
    if isinstance(class_weight, str):  # 'balanced'
        counted = counts > 0
        if not counted.any():
            return np.ones(classes.shape[0])
        out = np.ones(classes.shape[0])
        out[counted] = counts.sum() / (counted.sum() * counts[counted])
        return out
    return np.array([float(class_weight.get(c.item() if isinstance(c, np.generic) else c, 1.0))
                     for c in classes])


class ClassWeightsMixin:
    """The weights of :class:`streamsvm.base.StreamClassifier`: the running class counts
    ``class_counts_`` and the weight of each row or side they give (module doc)."""

    def _count_labels(self, y, counted_classes, seen=None) -> None:
        """Add the chunk's labels to ``class_counts_`` (``counted_classes``: the classes the
        counts were of; a model saved before the counts existed starts counting now;
        ``seen``: ``unique_labels(y)``, if known)."""
        old = getattr(self, "class_counts_", None)
        if old is not None and old.shape != counted_classes.shape:
            old = None
        self.class_counts_ = count_labels(self.classes_, old, y, counted_classes, seen)

    def _class_weight_vector(self):
        """The weight of each class of ``classes_`` (:func:`streamsvm.base.weights.class_weights`
        over the running counts), or None for no ``class_weight``."""
        class_weight = getattr(self, "class_weight", None)
        if class_weight is None or self._weighting in (None, "own"):
            return None
        return class_weights(class_weight, self.classes_, self.class_counts_)

    def _side_weights(self, per_class, target, sign) -> tuple[float, float]:
        """``(weight of -1, weight of +1)`` of a binary learner: its class's weight, and for
        the other side (one class, or the rest in one-vs-rest) the mean weight of its classes
        over the rows counted."""
        if per_class is None:
            return 1.0, 1.0
        position = int(np.searchsorted(self.classes_, target))
        others = np.arange(self.classes_.shape[0]) != position
        counts = self.class_counts_[others]
        rest = (float(np.average(per_class[others], weights=counts)) if counts.sum() > 0
                else float(per_class[others].mean()))
        own = float(per_class[position])
        return (rest, own) if sign > 0 else (own, rest)

    def _row_weights(self, y, sample_weight, per_class):
        """Each row's weight ``class_weight[y_i] * sample_weight_i`` (None: all ones)."""
        if per_class is None and sample_weight is None:
            return None
        rows = np.ones(y.shape[0]) if sample_weight is None else sample_weight
        if per_class is not None:
            rows = rows * per_class[np.searchsorted(self.classes_, y)]
        return rows
