"""The baselines of "Learning on the border" (Ertekin et al., CIKM 2007, Section 6) and the
metrics its tables report.

Every baseline returns a fitted classifier; the positive class is the minority one
(``pos_label``, default 1). As in the paper, LASVM runs in random-sampling mode (examples in a
random order, one pass, finishing step) for RS, US, SMOTE and DC:

* :func:`random_sampling` (RS): LASVM on the examples in random order (``pool_size=1``);
* :func:`undersample` (US): all positives and ``ratio`` negatives per positive drawn at
  random (the paper sets ``ratio`` to the final support-vector ratio SV-/SV+ of AL);
* :func:`oversample_smote` (SMOTE): the positives oversampled with SMOTE (imbalanced-learn) to
  as many as the negatives, then RS;
* :func:`different_costs` (DC): the positives' C multiplied by the imbalance ratio N/P, in
  LASVM (``solver="lasvm"``) or scikit-learn's SVC (``solver="svc"``, ``class_weight``);
* :func:`batch` (Batch): SVC on all the data.

:func:`evaluate` gives g-means, AUC, PRBEP, the ROC curve and the support-vector imbalance.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from sklearn.svm import SVC

from .. import metrics
from .estimator import ActiveSVM

__all__ = ["random_sampling", "undersample", "oversample_smote", "different_costs", "batch",
           "evaluate", "imbalance_ratio"]


def _binary(y, pos_label):
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D; got shape {y.shape}")
    positive = y == pos_label
    if positive.all() or not positive.any():
        raise ValueError(f"y must hold the positive class {pos_label!r} and at least one other "
                         "label")
    return positive


def imbalance_ratio(y, pos_label=1) -> float:
    """Negatives per positive, N / P (the "Imb. Rat." column of Table 1)."""
    positive = _binary(y, pos_label)
    return float((~positive).sum() / positive.sum())


def _lasvm_rs(random_state, **params):
    return ActiveSVM(pool_size=1, stopping=None, random_state=random_state, **params)


def random_sampling(X, y, *, random_state=None, **params):
    """RS: LASVM over the examples in a random order (``ActiveSVM(pool_size=1)``)."""
    return _lasvm_rs(random_state, **params).fit(X, y)


def undersample(X, y, ratio, *, pos_label=1, random_state=None, **params):
    """US: keep every positive and ``round(ratio * P)`` random negatives, then RS."""
    positive = _binary(y, pos_label)
    if not np.isfinite(ratio) or ratio <= 0:
        raise ValueError(f"ratio must be a positive number; got {ratio!r}")
    rng = np.random.default_rng(random_state)
    negatives = np.flatnonzero(~positive)
    n_keep = min(negatives.shape[0], max(1, round(ratio * positive.sum())))
    keep = np.sort(np.r_[np.flatnonzero(positive), rng.choice(negatives, n_keep, replace=False)])
    return _lasvm_rs(random_state, **params).fit(X[keep], np.asarray(y)[keep])


def oversample_smote(X, y, *, pos_label=1, k_neighbors=5, random_state=None, **params):
    """SMOTE (Chawla et al. 2002, via imbalanced-learn) up to balanced classes, then RS.

    Returns ``(model, seconds spent in SMOTE)``."""
    try:
        from imblearn.over_sampling import SMOTE
    except ImportError as error:
        raise ImportError(
            "the SMOTE baseline needs imbalanced-learn: pip install 'streamsvm[bench]'"
        ) from error

    _binary(y, pos_label)
    start = time.perf_counter()
    Xs, ys = SMOTE(k_neighbors=k_neighbors, random_state=random_state).fit_resample(X, y)
    seconds = time.perf_counter() - start
    if sp.issparse(Xs):
        Xs = sp.csr_matrix(Xs)
    return _lasvm_rs(random_state, **params).fit(Xs, ys), seconds


def different_costs(X, y, *, solver="lasvm", pos_label=1, random_state=None, C=1.0,
                    kernel="rbf", gamma="scale", **params):
    """DC: the cost of a positive's error ``C * N/P``, of a negative's ``C``."""
    positive = _binary(y, pos_label)
    ratio = float((~positive).sum() / positive.sum())
    if solver == "lasvm":
        weights = {label: (ratio if label == pos_label else 1.0) for label in np.unique(y)}
        return _lasvm_rs(random_state, C=C, kernel=kernel, gamma=gamma, class_weight=weights,
                         **params).fit(X, y)
    if solver == "svc":
        weights = {label: (ratio if label == pos_label else 1.0) for label in np.unique(y)}
        return SVC(C=C, kernel=kernel, gamma=gamma, class_weight=weights, **params).fit(X, y)
    raise ValueError(f"solver must be 'lasvm' or 'svc'; got {solver!r}")


def batch(X, y, *, C=1.0, kernel="rbf", gamma="scale", **params):
    """Batch: scikit-learn's SVC (libsvm) on all the training data."""
    return SVC(C=C, kernel=kernel, gamma=gamma, **params).fit(X, y)


def _support_labels(model):
    if isinstance(model, SVC):
        return model.classes_[np.repeat(np.arange(len(model.classes_)), model.n_support_)]
    coef = model.dual_coef_[0]
    return model.classes_[(coef > 0).astype(int)]


def evaluate(model, X_test, y_test, *, pos_label=1, n_train=None) -> dict:
    """The paper's metrics of a fitted two-class model on a test set.

    Keys: ``g_means``, ``auc``, ``prbep`` (from ``decision_function``), ``roc`` (``(fpr,
    tpr, thresholds)``), ``sv_ratio`` (SV- / SV+), ``n_sv``, and, for an
    :class:`ActiveSVM` given ``n_train``, ``data_efficiency`` (labels spent / ``n_train``).
    """
    scores = np.asarray(model.decision_function(X_test), dtype=np.float64)
    if list(model.classes_).index(pos_label) == 0:
        scores = -scores
    y_pred = np.where(scores > 0, pos_label, _other(model.classes_, pos_label))
    sv = _support_labels(model)
    out = {
        "g_means": metrics.g_means(y_test, y_pred, pos_label),
        "auc": metrics.roc_auc(y_test, scores, pos_label),
        "prbep": metrics.prbep(y_test, scores, pos_label),
        "roc": metrics.roc_curve(y_test, scores, pos_label),
        "sv_ratio": metrics.support_vector_imbalance(sv, pos_label),
        "n_sv": int(sv.shape[0]),
    }
    if isinstance(model, ActiveSVM) and n_train:
        out["data_efficiency"] = model.n_labels_ / n_train
    return out


def _other(classes, pos_label):
    rest = [c for c in classes if c != pos_label]
    return rest[0] if rest else -pos_label
