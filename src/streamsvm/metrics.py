"""Metrics the papers report: accuracy, g-means, ROC/AUC, PRBEP, support-vector imbalance.

Binary metrics take the true labels, then predictions or real-valued scores (larger means
more positive, as ``decision_function`` returns), and ``pos_label``: the class counted as
positive (default 1; labels can be any two values, every label other than ``pos_label``
counts as negative). Inputs are validated before anything is computed:

* ``y_true`` and the predictions/scores must be 1-D, of the same, non-zero length;
* labels and scores must not hold NaN (scores not infinity either);
* ``y_true`` may hold at most two distinct labels, and a metric that needs both classes
  (g-means, ROC/AUC, PRBEP) raises :class:`UndefinedMetricError` (a ``ValueError``) when one
  is missing; :mod:`streamsvm.evaluate` records such a value as NaN.

The imbalance-aware metrics follow Ertekin, Huang, Bottou & Giles, "Learning on the border:
active learning in imbalanced data classification", CIKM 2007, Section 6 (g-means, AUC,
PRBEP, and the support-vector ratio of Table 1).

>>> from streamsvm import metrics
>>> y = [1, 1, -1, -1, -1]
>>> report = metrics.binary_report(y, [1, -1, -1, -1, 1], scores=[0.9, 0.2, 0.1, -0.5, 0.3])
>>> for name, value in report.items():
...     print(f"{name}: {value:.4f}")
accuracy: 0.6000
sensitivity: 0.5000
specificity: 0.6667
g_means: 0.5774
auc: 0.8333
prbep: 0.5000
"""

from __future__ import annotations

import numpy as np
from sklearn import metrics as _sk_metrics

__all__ = [
    "UndefinedMetricError",
    "accuracy",
    "g_means",
    "roc_curve",
    "roc_auc",
    "prbep",
    "support_vector_imbalance",
    "binary_report",
]


class UndefinedMetricError(ValueError):
    """A metric is undefined on this input (e.g. AUC when ``y_true`` holds one class only)."""


# ---------------------------------------------------------------------- validation
def _labels(values, name: str) -> np.ndarray:
    values = np.asarray(values)
    if values.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got an array of shape {values.shape}")
    if values.dtype.kind in "fc" and np.isnan(values).any():
        raise ValueError(f"{name} contains NaN at index {int(np.flatnonzero(np.isnan(values))[0])}")
    return values


def _pair(y_true, other, name: str) -> tuple[np.ndarray, np.ndarray]:
    y_true = _labels(y_true, "y_true")
    if name == "scores":
        other = np.asarray(other)
        if other.ndim != 1:
            raise ValueError(f"scores must be 1-D; got an array of shape {other.shape}")
        try:
            other = other.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"scores must be numeric; got dtype {other.dtype}") from None
        bad = ~np.isfinite(other)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"scores contain NaN or infinity (first at index {i}: {other[i]})")
    else:
        other = _labels(other, name)
    if y_true.shape[0] != other.shape[0]:
        raise ValueError(f"y_true has {y_true.shape[0]} labels but {name} has {other.shape[0]}")
    if y_true.shape[0] == 0:
        raise ValueError("the metric needs at least one example; got none")
    return y_true, other


def _positives(y_true: np.ndarray, pos_label, metric: str) -> np.ndarray:
    """Boolean mask of the positives; checks that y_true is binary and holds both classes."""
    classes = np.unique(y_true)
    if classes.shape[0] > 2:
        raise ValueError(
            f"{metric} is a binary metric but y_true holds {classes.shape[0]} labels "
            f"({classes[:5].tolist()}{' ...' if classes.shape[0] > 5 else ''}); "
            "pass y_true == label for one class against the rest"
        )
    positive = y_true == pos_label
    if positive.all() or not positive.any():
        if classes.shape[0] == 2:
            raise ValueError(
                f"pos_label={pos_label!r} is not one of the labels in y_true: {classes.tolist()}"
            )
        raise UndefinedMetricError(
            f"{metric} needs both classes in y_true; it holds only "
            f"{'positives' if positive.any() else 'negatives'} (pos_label={pos_label!r})"
        )
    return positive


# ---------------------------------------------------------------------- metrics
def accuracy(y_true, y_pred) -> float:
    """Fraction of predictions equal to the true label: ``mean(y_pred == y_true)``.

    Works for any number of classes.

    >>> accuracy(["a", "b", "b", "a"], ["a", "b", "a", "a"])
    0.75
    """
    y_true, y_pred = _pair(y_true, y_pred, "y_pred")
    return float(np.mean(y_true == y_pred))


def _sensitivity_specificity(y_true, y_pred, pos_label, metric: str) -> tuple[float, float]:
    y_true, y_pred = _pair(y_true, y_pred, "y_pred")
    positive = _positives(y_true, pos_label, metric)
    predicted = y_pred == pos_label
    return float(np.mean(predicted[positive])), float(np.mean(~predicted[~positive]))


def g_means(y_true, y_pred, pos_label=1) -> float:
    r"""Geometric mean of the two classes' accuracies (Kubat & Matwin, ICML 1997).

    :math:`g = \sqrt{\mathrm{sensitivity} \cdot \mathrm{specificity}}` with
    :math:`\mathrm{sensitivity} = TP / (TP + FN)` (accuracy on the positives) and
    :math:`\mathrm{specificity} = TN / (TN + FP)` (accuracy on the negatives), as in
    Ertekin et al., CIKM 2007, Section 6. A classifier that predicts the majority class
    everywhere scores 0, however imbalanced the data.

    >>> g_means([1, 1, -1, -1, -1, -1], [1, -1, -1, -1, -1, 1])  # sqrt(1/2 * 3/4)
    0.6123724356957945
    """
    sensitivity, specificity = _sensitivity_specificity(y_true, y_pred, pos_label, "g-means")
    return float(np.sqrt(sensitivity * specificity))


def roc_curve(y_true, scores, pos_label=1):
    """ROC curve: ``(fpr, tpr, thresholds)``, one point per distinct score, from (0, 0).

    Thresholds decrease, starting at ``inf``; point ``k`` predicts positive the examples with
    ``score >= thresholds[k]``, so ``tpr[k] = TP/P`` and ``fpr[k] = FP/N`` at that cut. Every
    distinct score gives a point: this is scikit-learn's
    ``roc_curve(..., drop_intermediate=False)`` behind this module's input checks. The
    trapezoidal area under it is :func:`roc_auc`.

    >>> fpr, tpr, thresholds = roc_curve([1, -1, 1, -1], [0.8, 0.6, 0.6, 0.1])
    >>> fpr.tolist(), tpr.tolist(), thresholds.tolist()
    ([0.0, 0.0, 0.5, 1.0], [0.0, 0.5, 1.0, 1.0], [inf, 0.8, 0.6, 0.1])
    """
    y_true, scores = _pair(y_true, scores, "scores")
    positive = _positives(y_true, pos_label, "the ROC curve")
    fpr, tpr, thresholds = _sk_metrics.roc_curve(positive, scores, drop_intermediate=False)
    return fpr, tpr, thresholds


def roc_auc(y_true, scores, pos_label=1) -> float:
    r"""Area under the ROC curve, ties counted one half (scikit-learn's ``roc_auc_score``).

    It equals the Mann–Whitney statistic: over all ``P * N`` (positive, negative) pairs, the
    fraction in which the positive scores higher, a tie counting one half,

    .. math:: \mathrm{AUC} = \frac{\#\{s_i > s_j\} + \tfrac{1}{2} \#\{s_i = s_j\}}{P N},
        \quad i \text{ positive}, j \text{ negative}.

    >>> roc_auc([1, -1, 1, -1], [0.8, 0.6, 0.6, 0.1])  # pairs: 1, 1, 0.5, 1 out of 4
    0.875
    """
    y_true, scores = _pair(y_true, scores, "scores")
    positive = _positives(y_true, pos_label, "AUC")
    return float(_sk_metrics.roc_auc_score(positive, scores))


def prbep(y_true, scores, pos_label=1) -> float:
    """Precision–recall break-even point: the precision at the cut where it equals recall.

    With ``P`` positives, predicting the ``k`` highest-scoring examples positive gives
    ``precision = TP_k / k`` and ``recall = TP_k / P``; they are equal (and nonzero) only at
    ``k = P``. So PRBEP ``= TP_P / P``, the fraction of positives among the top ``P`` scores
    (Ertekin et al., CIKM 2007, Section 6: "the accuracy of the positive class at the
    threshold where precision equals recall"; also known as R-precision).

    Ties at the cut: when the ``P``-th score is shared by ``t`` examples of which ``t_+`` are
    positive, and ``a`` examples score strictly higher (of which ``A_+`` are positive), the
    ``P - a`` remaining places go to tied examples in random order, and the value is the
    expectation over those orderings: ``(A_+ + (P - a) t_+ / t) / P`` (the mean of a
    hypergeometric draw). It does not depend on how the input happens to be ordered.

    >>> prbep([1, 1, -1, -1, -1], [0.9, 0.1, 0.5, 0.1, -1.0])  # top 2: one positive
    0.5
    >>> prbep([1, 1, -1, -1], [0.9, 0.5, 0.5, 0.5])  # 1 place for 3 tied, 1 of them positive
    0.6666666666666666
    """
    y_true, scores = _pair(y_true, scores, "scores")
    positive = _positives(y_true, pos_label, "PRBEP")
    n_pos = int(positive.sum())
    cut = np.partition(-scores, n_pos - 1)[n_pos - 1]  # minus the P-th largest score
    above = -scores < cut
    tied = -scores == cut
    places = n_pos - int(above.sum())  # places at the top taken by tied examples
    expected_tp = int(positive[above].sum()) + places * int(positive[tied].sum()) / int(
        tied.sum()
    )
    return float(expected_tp / n_pos)


def support_vector_imbalance(y_support, pos_label=1) -> float:
    """Support-vector imbalance ratio ``SV- / SV+``: negative over positive support vectors.

    The "SV- / SV+" column of Ertekin et al., CIKM 2007, Table 1 (and Figure 8), read beside
    the data's imbalance ratio ``N / P``: a learner that focuses on the margin keeps this ratio
    far below ``N / P``. ``y_support`` holds the labels of the support vectors; it is ``inf``
    when no support vector is positive.

    >>> support_vector_imbalance([1, -1, -1, -1, 1, -1])
    2.0
    """
    y_support = _labels(y_support, "y_support")
    if y_support.shape[0] == 0:
        raise ValueError("y_support is empty: the model has no support vectors")
    n_pos = int(np.sum(y_support == pos_label))
    n_neg = y_support.shape[0] - n_pos
    return float(n_neg / n_pos) if n_pos else float("inf")


def binary_report(y_true, y_pred, scores=None, pos_label=1) -> dict:
    """All binary metrics at once, as a dict.

    Keys: ``accuracy``, ``sensitivity`` (recall of the positives), ``specificity`` (recall of
    the negatives), ``g_means``, and, when ``scores`` are given, ``auc`` and ``prbep``.
    ``y_true`` must hold both classes.
    """
    sensitivity, specificity = _sensitivity_specificity(y_true, y_pred, pos_label, "g-means")
    report = {
        "accuracy": accuracy(y_true, y_pred),
        "sensitivity": sensitivity,
        "specificity": specificity,
        "g_means": float(np.sqrt(sensitivity * specificity)),
    }
    if scores is not None:
        report["auc"] = roc_auc(y_true, scores, pos_label)
        report["prbep"] = prbep(y_true, scores, pos_label)
    return report
