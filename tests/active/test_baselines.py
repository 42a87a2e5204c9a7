"""The paper's baselines and metrics (Ertekin et al. 2007, Section 6)."""

import numpy as np
import pytest
from sklearn.svm import SVC

from streamsvm import metrics
from streamsvm.active import ActiveLearner, ActiveSVM
from streamsvm.active.baselines import (
    batch,
    different_costs,
    evaluate,
    imbalance_ratio,
    oversample_smote,
    random_sampling,
    undersample,
)


def data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 1.3, 1, -1)
    return X, y


def test_imbalance_ratio_and_bad_labels():
    assert imbalance_ratio([1, -1, -1, -1]) == 3.0
    with pytest.raises(ValueError, match="positive class"):
        imbalance_ratio([-1, -1])


def test_undersample_keeps_every_positive_and_ratio_negatives():
    X, y = data()
    model = undersample(X, y, 2.0, C=10.0, gamma=1.0, random_state=0)
    n_pos = int((y == 1).sum())
    assert model.n_seen_ == n_pos + 2 * n_pos
    assert model.n_labels_ == model.n_seen_  # LASVM in random-sampling mode sees them all
    with pytest.raises(ValueError, match="ratio"):
        undersample(X, y, 0.0)


def test_smote_balances_before_training():
    pytest.importorskip("imblearn", reason="the SMOTE baseline needs imbalanced-learn")
    X, y = data()
    model, seconds = oversample_smote(X, y, C=10.0, gamma=1.0, random_state=0)
    assert model.n_seen_ == 2 * int((y == -1).sum()) and seconds >= 0.0


def test_different_costs_in_lasvm_and_svc():
    X, y = data()
    ratio = imbalance_ratio(y)
    lasvm = different_costs(X, y, C=2.0, gamma=1.0, random_state=0)
    learner = lasvm.learners_[0]
    assert learner.Cp == pytest.approx(2.0 * ratio) and learner.Cn == 2.0
    svc = different_costs(X, y, solver="svc", C=2.0, gamma=1.0)
    reference = SVC(C=2.0, gamma=1.0, class_weight={1: ratio, -1: 1.0}).fit(X, y)
    np.testing.assert_allclose(svc.decision_function(X), reference.decision_function(X))
    with pytest.raises(ValueError, match="solver"):
        different_costs(X, y, solver="libsvm")


def test_evaluate_reports_the_papers_metrics():
    X, y = data()
    for model in (batch(X, y, C=10.0, gamma=1.0),
                  random_sampling(X, y, C=10.0, gamma=1.0, random_state=0)):
        report = evaluate(model, X, y, n_train=len(X))
        scores = model.decision_function(X)
        assert report["auc"] == metrics.roc_auc(y, scores)
        assert report["prbep"] == metrics.prbep(y, scores)
        assert report["g_means"] == metrics.g_means(y, np.where(scores > 0, 1, -1))
        assert report["auc"] > 0.9
        fpr, tpr, _ = report["roc"]
        assert fpr[0] == tpr[0] == 0.0 and fpr[-1] == tpr[-1] == 1.0
        assert 0 < report["sv_ratio"] < np.inf
    assert report["data_efficiency"] == 1.0


def test_the_oracle_respects_the_models_label_budget():
    X, y = data()
    learner = ActiveLearner(X, classes=[-1, 1], budget=50,
                            model=ActiveSVM(max_labels=20, stopping=None, random_state=0))
    learner.run(lambda i, x: y[i])
    assert learner.n_labels_ == 20 and learner.stop_reason_ == "budget"
