"""Metrics against scikit-learn and slow brute-force references."""

import itertools

import numpy as np
import pytest
from sklearn import metrics as skm

from streamsvm import metrics


def random_case(n=200, ties=False, seed=0, labels=(-1, 1)):
    rng = np.random.default_rng(seed)
    positive = rng.random(n) < 0.2
    positive[:2] = [True, False]  # both classes, always
    scores = 0.7 * positive + rng.normal(size=n)
    if ties:
        scores = np.round(scores, 0)
    y = np.where(positive, labels[1], labels[0])
    return y, scores


# ---------------------------------------------------------------------- slow references
def brute_auc(y, scores, pos_label):
    """Mann–Whitney over all (positive, negative) pairs, a tie counting one half."""
    pos = scores[y == pos_label]
    neg = scores[y != pos_label]
    wins = sum(1.0 if p > q else 0.5 if p == q else 0.0 for p in pos for q in neg)
    return wins / (len(pos) * len(neg))


def brute_prbep_scan(y, scores, pos_label):
    """Scan every threshold; return precision where it equals recall (no ties at the cut)."""
    positive = y == pos_label
    found = []
    for threshold in np.unique(scores):
        predicted = scores >= threshold
        tp = np.sum(predicted & positive)
        precision, recall = tp / predicted.sum(), tp / positive.sum()
        if tp > 0 and precision == recall:
            found.append(precision)
    assert len(set(found)) == 1, "no ties: exactly one break-even value"
    return found[0]


def brute_prbep_orderings(y, scores, pos_label):
    """Precision at the top-P cut, averaged over every ordering that breaks the ties."""
    n = len(y)
    n_pos = int(np.sum(y == pos_label))
    values = []
    for tie_break in itertools.permutations(range(n)):
        order = np.lexsort((np.array(tie_break), -scores))
        values.append(np.mean(y[order[:n_pos]] == pos_label))
    return float(np.mean(values))


# ---------------------------------------------------------------------- ROC / AUC
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_auc_and_roc_match_sklearn(ties, seed):
    y, s = random_case(ties=ties, seed=seed)
    reference = skm.roc_auc_score(y, s)
    assert metrics.roc_auc(y, s) == pytest.approx(reference, abs=1e-12)
    assert metrics.roc_auc(y, s) == pytest.approx(brute_auc(y, s, 1), abs=1e-12)
    fpr, tpr, thresholds = metrics.roc_curve(y, s)
    assert np.trapezoid(tpr, fpr) == pytest.approx(reference, abs=1e-12)
    ref_fpr, ref_tpr, ref_thresholds = skm.roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(fpr, ref_fpr)
    np.testing.assert_allclose(tpr, ref_tpr)
    np.testing.assert_array_equal(thresholds, ref_thresholds)


@pytest.mark.parametrize("seed", range(5))
def test_auc_with_other_labels_and_pos_label(seed):
    y, s = random_case(n=80, ties=True, seed=seed, labels=("common", "rare"))
    assert metrics.roc_auc(y, s, pos_label="rare") == pytest.approx(
        skm.roc_auc_score(y == "rare", s), abs=1e-12
    )
    # the other class as positive: the same pairs seen from the other side
    assert metrics.roc_auc(y, s, pos_label="common") == pytest.approx(
        1 - skm.roc_auc_score(y == "rare", s), abs=1e-12
    )
    assert metrics.roc_auc(y, s, pos_label="common") == pytest.approx(
        brute_auc(y, s, "common"), abs=1e-12
    )


def test_auc_extremes_and_all_tied():
    y = np.array([1, 1, -1, -1])
    assert metrics.roc_auc(y, [4.0, 3.0, 2.0, 1.0]) == 1.0
    assert metrics.roc_auc(y, [1.0, 2.0, 3.0, 4.0]) == 0.0
    assert metrics.roc_auc(y, [5.0, 5.0, 5.0, 5.0]) == 0.5
    fpr, tpr, thresholds = metrics.roc_curve(y, [5.0, 5.0, 5.0, 5.0])
    assert fpr.tolist() == [0.0, 1.0] and tpr.tolist() == [0.0, 1.0]
    assert thresholds.tolist() == [np.inf, 5.0]


def test_auc_does_not_depend_on_input_order():
    y, s = random_case(n=300, ties=True, seed=7)
    perm = np.random.default_rng(0).permutation(len(y))
    assert metrics.roc_auc(y[perm], s[perm]) == metrics.roc_auc(y, s)


# ---------------------------------------------------------------------- PRBEP
@pytest.mark.parametrize("seed", range(8))
def test_prbep_without_ties_is_where_precision_equals_recall(seed):
    y, s = random_case(n=150, seed=seed)
    value = metrics.prbep(y, s)
    assert value == pytest.approx(brute_prbep_scan(y, s, 1), abs=1e-12)
    precision, recall, _ = skm.precision_recall_curve(y, s)
    assert np.any(np.isclose(precision, value) & np.isclose(recall, value))


@pytest.mark.parametrize("seed", range(12))
def test_prbep_with_ties_is_the_expectation_over_orderings(seed):
    rng = np.random.default_rng(100 + seed)
    n = 7
    y = rng.choice([-1, 1], size=n)
    y[:2] = [1, -1]
    s = rng.integers(0, 3, size=n).astype(float)  # heavy ties
    assert metrics.prbep(y, s) == pytest.approx(brute_prbep_orderings(y, s, 1), abs=1e-12)
    assert metrics.prbep(y, s, pos_label=-1) == pytest.approx(
        brute_prbep_orderings(y, s, -1), abs=1e-12
    )


def test_prbep_hand_computed_and_order_invariant():
    # P = 2; one example scores above the cut (positive), three tie at 0.5 for one place,
    # one of them positive: (1 + 1 * 1/3) / 2
    y = np.array([1, -1, 1, -1, -1])
    s = np.array([0.9, 0.5, 0.5, 0.5, 0.1])
    assert metrics.prbep(y, s) == pytest.approx(2 / 3)
    for perm in itertools.permutations(range(5)):
        perm = list(perm)
        assert metrics.prbep(y[perm], s[perm]) == pytest.approx(2 / 3)
    assert metrics.prbep([1, -1], [0.0, 0.0]) == 0.5
    assert metrics.prbep([1, 1, -1], [3.0, 2.0, 1.0]) == 1.0
    assert metrics.prbep([1, 1, -1], [1.0, 2.0, 3.0]) == 0.5


# ---------------------------------------------------------------------- g-means, accuracy
@pytest.mark.parametrize("seed", range(4))
def test_g_means_and_accuracy_match_sklearn(seed):
    y, s = random_case(seed=seed)
    pred = np.where(s > 0.3, 1, -1)
    sens = skm.recall_score(y, pred, pos_label=1)
    spec = skm.recall_score(y, pred, pos_label=-1)
    assert metrics.g_means(y, pred) == pytest.approx(np.sqrt(sens * spec))
    assert metrics.g_means(y, pred, pos_label=-1) == pytest.approx(np.sqrt(sens * spec))
    assert metrics.accuracy(y, pred) == pytest.approx(skm.accuracy_score(y, pred))
    report = metrics.binary_report(y, pred, s)
    assert report["sensitivity"] == pytest.approx(sens)
    assert report["specificity"] == pytest.approx(spec)


def test_g_means_of_a_majority_classifier_is_zero():
    y = np.array([1] + [-1] * 99)
    pred = -np.ones(100, dtype=int)
    assert metrics.accuracy(y, pred) == 0.99
    assert metrics.g_means(y, pred) == 0.0


def test_accuracy_multiclass():
    y = np.array([0, 1, 2, 2, 1])
    pred = np.array([0, 2, 2, 2, 1])
    assert metrics.accuracy(y, pred) == pytest.approx(skm.accuracy_score(y, pred)) == 0.8


# ---------------------------------------------------------------------- SV ratio, report
def test_support_vector_imbalance():
    assert metrics.support_vector_imbalance([1, -1, -1, -1]) == 3.0
    assert metrics.support_vector_imbalance(["a", "b", "b"], pos_label="a") == 2.0
    assert metrics.support_vector_imbalance([-1, -1]) == np.inf
    assert metrics.support_vector_imbalance([1, 1]) == 0.0


def test_string_labels_and_report():
    y = np.array(["rare", "common", "common", "rare", "common"])
    s = np.array([0.9, 0.1, 0.4, 0.3, 0.2])
    pred = np.where(s > 0.35, "rare", "common")
    report = metrics.binary_report(y, pred, s, pos_label="rare")
    assert set(report) == {"accuracy", "sensitivity", "specificity", "g_means", "auc", "prbep"}
    assert report["auc"] == pytest.approx(skm.roc_auc_score(y == "rare", s))
    assert report["accuracy"] == pytest.approx(0.6)
    assert report["g_means"] == pytest.approx(np.sqrt(0.5 * 2 / 3))
    assert report["prbep"] == pytest.approx(0.5)
    assert "auc" not in metrics.binary_report(y, pred, pos_label="rare")


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: metrics.roc_auc([1, 1, 1], [0.1, 0.2, 0.3]), "needs both classes.*only positives"),
        (lambda: metrics.g_means([-1, -1], [1, -1]), "needs both classes.*only negatives"),
        (lambda: metrics.prbep([1, -1], [0.1, np.nan]), "NaN or infinity .*index 1"),
        (lambda: metrics.roc_curve([1, -1], [np.inf, 0.0]), "NaN or infinity"),
        (lambda: metrics.roc_auc([1, -1], ["a", "b"]), "scores must be numeric"),
        (lambda: metrics.accuracy([1, -1], [1]), "has 2 labels but y_pred has 1"),
        (lambda: metrics.roc_auc([1, -1, 1], [0.1, 0.2]), "has 3 labels but scores has 2"),
        (lambda: metrics.g_means([], []), "at least one example"),
        (lambda: metrics.accuracy([1.0, np.nan], [1, 1]), "y_true contains NaN at index 1"),
        (lambda: metrics.accuracy([[1], [-1]], [1, -1]), "1-D"),
        (lambda: metrics.roc_auc([0, 1, 2], [0.1, 0.2, 0.3]), "binary metric.*3 labels"),
        (lambda: metrics.g_means(["a", "b"], ["a", "a"]), "pos_label=1 is not one of"),
        (lambda: metrics.support_vector_imbalance([]), "no support vectors"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_one_class_is_an_undefined_metric_error():
    with pytest.raises(metrics.UndefinedMetricError):
        metrics.prbep([1, 1], [0.0, 1.0])
    assert issubclass(metrics.UndefinedMetricError, ValueError)
