"""What the linear learners share: a weight vector, a bias, and their scores."""

import numpy as np
import scipy.sparse as sp

from ..base import BinaryLearner, StreamClassifier


def _with_zero_columns(rows, added: int):
    """The matrix ``rows`` (CSR or dense) with ``added`` zero columns after its own."""
    if sp.issparse(rows):
        rows = rows.tocsr()
        return sp.csr_matrix((rows.data, rows.indices, rows.indptr),
                             shape=(rows.shape[0], rows.shape[1] + added))
    return np.hstack([rows, np.zeros((rows.shape[0], added))])


#: rows whose mean norm exceeds this many times sqrt(n_features) count as unscaled
UNSCALED_NORM_RATIO = 4.0
#: the leading rows of the first chunk that the column factors are estimated from
SCALE_ROWS = 1000


def first_chunk_scale(X):
    """Per-column factors ``1 / max |x_j|`` over the first :data:`SCALE_ROWS` rows of ``X``
    (1 where a column is all 0) when those rows look unscaled: their mean norm exceeds
    :data:`UNSCALED_NORM_RATIO` times ``sqrt(n_features)`` (standardised rows have norm about
    ``sqrt(n_features)``, binary rows less); otherwise None. Measured in
    ``docs/choosing.md`` (raw data)."""
    X = X[:SCALE_ROWS]
    n, d = X.shape
    if n == 0 or d == 0:
        return None
    if sp.issparse(X):
        sq = np.asarray(X.multiply(X).sum(axis=1)).ravel()
    else:
        sq = np.einsum("ij,ij->i", X, X)
    if not np.sqrt(sq).mean() > UNSCALED_NORM_RATIO * np.sqrt(d):
        return None
    return column_peaks_scale(X)


def column_peaks_scale(X):
    """Per-column factors ``1 / max |x_j|`` over the first :data:`SCALE_ROWS` rows of ``X``
    (1 where a column is all 0), whatever their scale: the averaged Perceptron's
    (``docs/choosing.md``, raw data). None (the rows as given) for no rows or no columns,
    or where every factor is 1 (binary rows)."""
    X = X[:SCALE_ROWS]
    if X.shape[0] == 0 or X.shape[1] == 0:
        return None
    if sp.issparse(X):
        peak = np.asarray(abs(X).max(axis=0).todense()).ravel()
    else:
        peak = np.abs(X).max(axis=0)
    factors = np.where(peak > 0.0, 1.0 / np.where(peak > 0.0, peak, 1.0), 1.0)
    return None if (factors == 1.0).all() else factors


def scale_columns(X, factors):
    """``X`` with column j multiplied by ``factors[j]`` (a copy; CSR stays CSR)."""
    if sp.issparse(X):
        X = X.tocsr(copy=True)
        X.data *= factors[X.indices]
        return X
    return X * factors


class LinearLearner(BinaryLearner):
    """A binary learner whose model is ``f(x) = w·x + b``; subclasses expose ``weights()``."""

    #: the arrays along the feature axis (one entry per feature, then any bias weight kept
    #: after them); empty: the generic widening (:func:`streamsvm.input.widen.widen_like`)
    _feature_arrays: tuple[str, ...] = ()
    #: matrices of rows waiting to be learnt (None when none wait): new features are zero
    #: columns of theirs
    _pending_rows: tuple[str, ...] = ()

    def widen_features(self, added: int, undo) -> bool:
        """Give the learner ``added`` more features, 0 in everything learnt, as
        :func:`~streamsvm.input.widen.widen_like` would (the same bits) without the two fresh
        learners it builds to find the feature axes (~100 us per new key of a sparse dict
        stream): zeros inserted after the old features of each of :attr:`_feature_arrays`
        (a bias weight stored last stays last). Replaced values are kept in ``undo``; False
        (nothing changed) for a learner that declares no feature arrays."""
        if not self._feature_arrays:
            return False
        old = self.n_features
        for name in self._feature_arrays:
            array = getattr(self, name)
            undo.set(self, name, np.concatenate((array[:old], np.zeros(added), array[old:])))
        for name in self._pending_rows:
            rows = getattr(self, name)
            if rows is not None:
                undo.set(self, name, _with_zero_columns(rows, added))
        undo.set(self, "n_features", old + added)
        return True

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

    def _factors_from_first_data(self) -> bool:
        """Whether the learners take column factors fixed from the first data
        (:func:`first_chunk_scale`; the estimators override this)."""
        return False

    def _prepare_first(self, X):
        """Fix the column factors from the first data, before ``fit`` learns them, in one
        call or in pieces (``verbose``)."""
        prepared = super()._prepare_first(X)
        if self._factors_from_first_data():
            self.__dict__["_first_factors"] = first_chunk_scale(prepared)
        return prepared

    def _make_learner(self):
        """A learner with the column factors of the first data: those just fixed, or those
        the learners already made hold (a class first seen in a later chunk)."""
        learner = super()._make_learner()
        if not self._factors_from_first_data():
            return learner
        for made in self.__dict__.get("learners_", ()):
            if "col_scale" in vars(made):
                learner.col_scale = made.col_scale
                return learner
        if "_first_factors" in self.__dict__:
            learner.col_scale = self.__dict__["_first_factors"]
        return learner

    def _grow_classes(self, seen) -> None:
        super()._grow_classes(seen)
        self.__dict__.pop("_first_factors", None)  # held by the learners from now on

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
