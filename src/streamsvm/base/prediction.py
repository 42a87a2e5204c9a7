"""Prediction over arrays: decision values, labels and probabilities (one-vs-rest
probabilities normalised, always agreeing with the predicted label)."""

from __future__ import annotations

import functools

import numpy as np

from ..input.validation import (
    check_features,
    feature_names_of,
)
from ..utils.threads import compiled_threads, for_each
from .calibration import (
    agree_with_labels,
    agree_with_scores,
)


class PredictionMixin:
    """The scikit-learn prediction face of a :class:`~streamsvm.base.StreamClassifier`."""

    def decision_function(self, X):
        """Scores: shape (n,) for two classes (positive means ``classes_[1]``), else (n, K)."""
        self._check_fitted()
        self._check_feature_names(feature_names_of(X))
        X, sqnorms = check_features(
            X,
            n_features=self.n_features_in_,
            accept_sparse=self._accepts_sparse,
            estimator_name=self._name,
            return_sqnorms=True,
        )
        self._check_row_norms(X, sqnorms)
        X = self._prepare(X)
        scores = [None] * len(self.learners_)

        def score(position):
            scores[position] = self._signs[position] * self.learners_[position].decision_function(X)

        with compiled_threads(getattr(self, "n_jobs", None)):
            for_each(score, range(len(scores)), self._side_by_side_jobs())
        return scores[0] if len(scores) == 1 else np.column_stack(scores)

    def predict(self, X):
        """Predicted class label of each row."""
        scores = self.decision_function(X)
        if scores.ndim == 2:
            return self.classes_[np.argmax(scores, axis=1)]
        if len(self.classes_) == 1:
            return np.repeat(self.classes_, scores.shape[0])
        return self.classes_[(scores > 0).astype(np.intp)]

    def predict_proba(self, X):
        """Probability of each class (columns in ``classes_`` order; rows sum to 1).

        Platt scaling of the decision values, fitted on each binary learner's prequential
        scores (:mod:`streamsvm.base.calibration`); with more than two classes, the one-vs-rest
        probabilities of each class normalised to sum to 1. The most probable class is
        always the one ``predict`` gives (where the sigmoid disagrees with the decision, the
        probability is clipped to 1/2, or, with several classes, the two entries swap). A
        model that has seen one class gives that class probability 1.
        """
        return self._proba_from_scores(self.decision_function(X))

    def _proba_from_scores(self, scores) -> np.ndarray:
        if scores.ndim == 1 and len(self.classes_) == 1:
            return np.ones((scores.shape[0], 1))
        columns = scores[:, None] if scores.ndim == 1 else scores
        proba = np.empty_like(columns)
        for k, (learner, sign) in enumerate(zip(self.learners_, self._signs, strict=True)):
            positive = self._calibrator(learner).probability(
                sign * columns[:, k], functools.partial(self._learner_scores, learner))
            proba[:, k] = positive if sign > 0 else 1.0 - positive
        if scores.ndim == 1:
            positive = agree_with_labels(proba[:, 0], scores > 0)
            return np.column_stack([1.0 - positive, positive])
        total = proba.sum(axis=1, keepdims=True)
        uniform = np.full_like(proba, 1.0 / proba.shape[1])
        proba = np.where(total > 0, proba / np.where(total > 0, total, 1.0), uniform)
        return agree_with_scores(proba, np.argmax(scores, axis=1))
