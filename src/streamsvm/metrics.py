"""Metrics the papers report: accuracy, g-means, ROC/AUC, PRBEP, support-vector imbalance.

Binary metrics take the true labels, predictions or scores, and ``pos_label`` (the class
counted as positive; default 1). Inputs are validated: equal lengths, no NaN, and two
classes present where the metric needs both.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "accuracy",
    "g_means",
    "roc_curve",
    "roc_auc",
    "prbep",
    "support_vector_imbalance",
    "binary_report",
]


def _pair(y_true, other, name: str):
    y_true = np.asarray(y_true)
    other = np.asarray(other)
    if y_true.ndim != 1 or other.ndim != 1:
        raise ValueError(f"y_true and {name} must be 1-D")
    if y_true.shape[0] != other.shape[0]:
        raise ValueError(f"y_true has {y_true.shape[0]} labels but {name} has {other.shape[0]}")
    if y_true.shape[0] == 0:
        raise ValueError("the metric needs at least one example; got none")
    return y_true, other


def _positives(y_true, pos_label, metric: str) -> np.ndarray:
    positive = y_true == pos_label
    if positive.all() or not positive.any():
        raise ValueError(
            f"{metric} needs both classes in y_true; it holds only "
            f"{'positives' if positive.any() else 'negatives'} (pos_label={pos_label!r})"
        )
    return positive


def _scores(scores) -> np.ndarray:
    scores = np.asarray(scores, dtype=np.float64)
    if not np.isfinite(scores).all():
        raise ValueError("scores contain NaN or infinity")
    return scores


def accuracy(y_true, y_pred) -> float:
    """Fraction of predictions equal to the true label."""
    y_true, y_pred = _pair(y_true, y_pred, "y_pred")
    return float(np.mean(y_true == y_pred))


def g_means(y_true, y_pred, pos_label=1) -> float:
    """``sqrt(sensitivity * specificity)``: the geometric mean of the two classes' recalls,
    the imbalance-aware accuracy of Ertekin et al. (CIKM 2007)."""
    y_true, y_pred = _pair(y_true, y_pred, "y_pred")
    positive = _positives(y_true, pos_label, "g-means")
    predicted = y_pred == pos_label
    sensitivity = np.mean(predicted[positive])
    specificity = np.mean(~predicted[~positive])
    return float(np.sqrt(sensitivity * specificity))


def roc_curve(y_true, scores, pos_label=1):
    """ROC curve: ``(fpr, tpr, thresholds)``, one point per distinct score, from (0, 0).

    Thresholds decrease; point k counts examples with ``score >= thresholds[k]`` as positive.
    """
    y_true, scores = _pair(y_true, scores, "scores")
    scores = _scores(scores)
    positive = _positives(y_true, pos_label, "the ROC curve")
    order = np.argsort(-scores, kind="mergesort")
    s, p = scores[order], positive[order]
    last_of_run = np.r_[np.flatnonzero(np.diff(s)), s.shape[0] - 1]
    tp = np.cumsum(p)[last_of_run]
    fp = (last_of_run + 1) - tp
    tpr = np.r_[0.0, tp / p.sum()]
    fpr = np.r_[0.0, fp / (~p).sum()]
    thresholds = np.r_[np.inf, s[last_of_run]]
    return fpr, tpr, thresholds


def roc_auc(y_true, scores, pos_label=1) -> float:
    """Area under the ROC curve: the probability that a random positive scores above a random
    negative, ties counting one half (the Mann–Whitney statistic)."""
    y_true, scores = _pair(y_true, scores, "scores")
    scores = _scores(scores)
    positive = _positives(y_true, pos_label, "AUC")
    # average ranks handle ties exactly
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(scores.shape[0])
    sorted_scores = scores[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_scores)) + 1]
    ends = np.r_[starts[1:], scores.shape[0]]
    for start, end in zip(starts, ends, strict=True):
        ranks[order[start:end]] = 0.5 * (start + end + 1)
    n_pos = positive.sum()
    n_neg = positive.shape[0] - n_pos
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def prbep(y_true, scores, pos_label=1) -> float:
    """Precision–recall break-even point.

    With ``P`` positives, predict the ``P`` highest-scoring examples positive: then precision
    equals recall, and both equal the fraction of true positives among them. Scores tied at
    the cut count by their expected value over the orderings of the tie (each tied example
    is taken with the same probability).
    """
    y_true, scores = _pair(y_true, scores, "scores")
    scores = _scores(scores)
    positive = _positives(y_true, pos_label, "PRBEP")
    n_pos = int(positive.sum())
    order = np.argsort(-scores, kind="mergesort")
    cut = scores[order[n_pos - 1]]
    above = scores > cut
    tied = scores == cut
    slots = n_pos - int(above.sum())  # how many of the tied examples are taken
    true_positives = positive[above].sum() + slots * positive[tied].mean()
    return float(true_positives / n_pos)


def support_vector_imbalance(y_support, pos_label=1) -> float:
    """Ratio of positive to negative support vectors (Ertekin et al., CIKM 2007, Fig. 5):
    how balanced the examples near the boundary are. ``inf`` when there is no negative one."""
    y_support = np.asarray(y_support)
    n_pos = int(np.sum(y_support == pos_label))
    n_neg = y_support.shape[0] - n_pos
    return float(n_pos / n_neg) if n_neg else float("inf")


def binary_report(y_true, y_pred, scores, pos_label=1) -> dict:
    """All binary metrics at once: accuracy, g-means, AUC and PRBEP."""
    return {
        "accuracy": accuracy(y_true, y_pred),
        "g_means": g_means(y_true, y_pred, pos_label),
        "auc": roc_auc(y_true, scores, pos_label),
        "prbep": prbep(y_true, scores, pos_label),
    }
