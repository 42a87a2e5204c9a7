"""Metrics against scikit-learn and brute-force references."""

import numpy as np
import pytest
from sklearn import metrics as skm

from streamsvm import metrics


def random_case(n=200, ties=False, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice([-1, 1], size=n, p=[0.8, 0.2])
    scores = y * 0.7 + rng.normal(size=n)
    if ties:
        scores = np.round(scores, 0)
    return y, scores


def brute_prbep(y, scores):
    """Average over random orderings of tied scores of precision at the top-P cut."""
    rng = np.random.default_rng(1)
    n_pos = int((y == 1).sum())
    values = []
    for _ in range(4000):
        order = np.lexsort((rng.random(len(y)), -scores))
        values.append((y[order[:n_pos]] == 1).mean())
    return float(np.mean(values))


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_auc_and_roc_match_sklearn(ties, seed):
    y, s = random_case(ties=ties, seed=seed)
    assert metrics.roc_auc(y, s) == pytest.approx(skm.roc_auc_score(y, s))
    fpr, tpr, _ = metrics.roc_curve(y, s)
    assert np.trapezoid(tpr, fpr) == pytest.approx(skm.roc_auc_score(y, s))
    ref_fpr, ref_tpr, _ = skm.roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(fpr, ref_fpr)
    np.testing.assert_allclose(tpr, ref_tpr)


def test_prbep_without_ties_is_precision_at_p():
    y, s = random_case(seed=4)
    p = (y == 1).sum()
    top = np.argsort(-s)[:p]
    assert metrics.prbep(y, s) == pytest.approx((y[top] == 1).mean())
    precision, recall, _ = skm.precision_recall_curve(y, s)
    assert np.any(np.isclose(precision, metrics.prbep(y, s)) & np.isclose(recall, metrics.prbep(y, s)))


def test_prbep_with_ties_matches_expected_value():
    y, s = random_case(n=60, ties=True, seed=5)
    assert metrics.prbep(y, s) == pytest.approx(brute_prbep(y, s), abs=0.01)


def test_g_means_and_accuracy_match_sklearn():
    y, s = random_case(seed=6)
    pred = np.where(s > 0.3, 1, -1)
    sens = skm.recall_score(y, pred, pos_label=1)
    spec = skm.recall_score(y, pred, pos_label=-1)
    assert metrics.g_means(y, pred) == pytest.approx(np.sqrt(sens * spec))
    assert metrics.accuracy(y, pred) == pytest.approx(skm.accuracy_score(y, pred))


def test_string_labels_and_report():
    y = np.array(["rare", "common", "common", "rare", "common"])
    s = np.array([0.9, 0.1, 0.4, 0.3, 0.2])
    pred = np.where(s > 0.35, "rare", "common")
    report = metrics.binary_report(y, pred, s, pos_label="rare")
    assert report["auc"] == pytest.approx(skm.roc_auc_score(y == "rare", s))
    assert report["accuracy"] == pytest.approx(0.6)
    assert metrics.support_vector_imbalance(y, pos_label="rare") == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: metrics.roc_auc([1, 1, 1], [0.1, 0.2, 0.3]), "needs both classes"),
        (lambda: metrics.prbep([1, -1], [0.1, np.nan]), "NaN"),
        (lambda: metrics.accuracy([1, -1], [1]), "has 2 labels but y_pred has 1"),
        (lambda: metrics.g_means([], []), "at least one example"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
