"""What the linear learners share: a weight vector, a bias, and their scores."""

import numpy as np
import scipy.sparse as sp

from ..base import BinaryLearner, StreamClassifier


class LinearLearner(BinaryLearner):
    """A binary learner whose model is ``f(x) = w·x + b``; subclasses expose ``weights()``."""

    def weights(self) -> tuple[np.ndarray, float]:
        """The current ``(w, b)``."""
        raise NotImplementedError

    def decision_function(self, X) -> np.ndarray:
        w, b = self.weights()
        scores = X @ w if sp.issparse(X) else X.dot(w)
        return np.asarray(scores, dtype=np.float64).ravel() + b


class LinearStreamClassifier(StreamClassifier):
    """Estimator face of a :class:`LinearLearner`: adds ``coef_`` and ``intercept_``."""

    #: the learners' dense loops check each row as they learn it (:func:`refuse_rows`)
    _learners_check_rows = True

    @property
    def coef_(self) -> np.ndarray:
        """Weights, shape (1, n_features) for two classes, else (n_classes, n_features)."""
        self._check_fitted()
        return np.vstack(
            [s * l.weights()[0] for l, s in zip(self.learners_, self._signs, strict=True)]
        )

    @property
    def intercept_(self) -> np.ndarray:
        """Biases, shape (1,) for two classes, else (n_classes,)."""
        self._check_fitted()
        return np.array(
            [s * l.weights()[1] for l, s in zip(self.learners_, self._signs, strict=True)]
        )
