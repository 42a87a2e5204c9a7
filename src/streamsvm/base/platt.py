"""Platt's sigmoid: its fit to decision values, and the probabilities it gives.

Platt (1999), "Probabilistic Outputs for Support Vector Machines and Comparisons to
Regularized Likelihood Methods", maps a decision value ``f`` to ``P(y = +1 | f) =
1 / (1 + exp(A f + B))`` with ``(A, B)`` fitted by maximum likelihood on scores of examples
the model did not learn from, against the regularised targets ``(N+ + 1) / (N+ + 2)`` for
positives and ``1 / (N- + 2)`` for negatives. The fit here is the Newton method with
backtracking line search of Lin, Lin & Weng (2007), "A note on Platt's probabilistic
outputs for support vector machines" (start ``A = 0``, ``B = log((N- + 1) / (N+ + 1))``, a
tiny ridge on the Hessian's diagonal, a numerically stable likelihood), run until the
gradient vanishes to machine precision rather than the note's 1e-5. With fewer than
:data:`MIN_PER_CLASS` scores of either label the fit is not attempted and the fallback
``(A, B) = (-1, 0)``, the logistic function of the raw decision value, is used.

What scores the sigmoid is fitted to is :mod:`streamsvm.base.calibration`'s; how
``predict_proba`` keeps its probabilities on the side of the prediction is
:func:`agree_with_labels` (two classes) and :func:`agree_with_scores` (one-vs-rest).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["FALLBACK", "MIN_PER_CLASS", "agree_with_labels", "agree_with_scores", "fit_platt",
           "platt_probability"]

#: fewer scores than this of either label: the fallback sigmoid (A, B) = (-1, 0)
MIN_PER_CLASS = 10
#: the sigmoid (A, B) of too few scores: the logistic function of the decision value
FALLBACK = (-1.0, 0.0)


@njit(cache=True)
def _log1p_exp(z):
    """log(1 + exp(z)) without overflow."""
    if z > 0.0:
        return z + np.log1p(np.exp(-z))
    return np.log1p(np.exp(z))


@njit(cache=True)
def _platt_objective(scores, targets, weights, a, b):
    """Negative log-likelihood sum_i w_i [log(1 + e^z_i) - (1 - t_i) z_i], z_i = a f_i + b."""
    total = 0.0
    for i in range(scores.shape[0]):
        z = a * scores[i] + b
        total += weights[i] * (_log1p_exp(z) - (1.0 - targets[i]) * z)
    return total


@njit(cache=True)
def _fit_platt_core(scores, positive, weights, max_iter):
    n = scores.shape[0]
    n_pos = 0.0
    n_all = 0.0
    for i in range(n):
        n_all += weights[i]
        if positive[i]:
            n_pos += weights[i]
    n_neg = n_all - n_pos
    hi = (n_pos + 1.0) / (n_pos + 2.0)
    lo = 1.0 / (n_neg + 2.0)
    targets = np.empty(n)
    for i in range(n):
        targets[i] = hi if positive[i] else lo
    ridge = 1e-12
    a = 0.0
    b = np.log((n_neg + 1.0) / (n_pos + 1.0))
    value = _platt_objective(scores, targets, weights, a, b)
    for _ in range(max_iter):
        # gradient and Hessian of the objective in (a, b); p = P(+1) = 1 / (1 + e^z)
        h11 = ridge
        h22 = ridge
        h21 = 0.0
        g1 = 0.0
        g2 = 0.0
        for i in range(n):
            z = a * scores[i] + b
            if z >= 0.0:
                e = np.exp(-z)
                p = e / (1.0 + e)
                q = 1.0 / (1.0 + e)
            else:
                e = np.exp(z)
                p = 1.0 / (1.0 + e)
                q = e / (1.0 + e)
            w = weights[i] * p * q
            f = scores[i]
            h11 += f * f * w
            h22 += w
            h21 += f * w
            d = weights[i] * (targets[i] - p)
            g1 += f * d
            g2 += d
        scale = max(1.0, np.abs(scores).max()) * n_all
        if abs(g1) < 1e-13 * scale and abs(g2) < 1e-13 * n_all:
            break
        det = h11 * h22 - h21 * h21
        da = -(h22 * g1 - h21 * g2) / det
        db = -(-h21 * g1 + h11 * g2) / det
        slope = g1 * da + g2 * db
        step = 1.0
        moved = False
        while step >= 1e-10:
            new_a = a + step * da
            new_b = b + step * db
            new_value = _platt_objective(scores, targets, weights, new_a, new_b)
            if new_value < value + 1e-4 * step * slope:
                a, b, value = new_a, new_b, new_value
                moved = True
                break
            step *= 0.5
        if not moved:
            break  # no decrease left to find: converged to rounding
    return a, b


def fit_platt(scores, labels, weights=None, *, max_iter: int = 100) -> tuple[float, float]:
    """``(A, B)`` of Platt's sigmoid ``P(+1 | f) = 1 / (1 + exp(A f + B))`` fitted to decision
    values ``scores`` of examples with ``labels`` (±1 or booleans, True = +1) and optional
    ``weights`` (a weight counts as that many copies of the example); the fallback ``(-1, 0)``
    when either label has a total weight below :data:`MIN_PER_CLASS`."""
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    positive = np.ascontiguousarray(np.asarray(labels) > 0)
    weights = (np.ones(scores.shape) if weights is None
               else np.ascontiguousarray(weights, dtype=np.float64))
    if scores.shape != positive.shape or scores.shape != weights.shape or scores.ndim != 1:
        raise ValueError("scores, labels and weights must be 1-D of one length; got "
                         f"{scores.shape}, {positive.shape}, {weights.shape}")
    n_pos = float(weights[positive].sum())
    n_neg = float(weights[~positive].sum())
    if min(n_pos, n_neg) < MIN_PER_CLASS or not np.all(np.isfinite(scores)):
        return FALLBACK
    a, b = _fit_platt_core(scores, positive, weights, max_iter)
    if a > 0.0:  # decreasing in the score: keep only the base rate (the optimum with A = 0)
        rate = (n_pos * (n_pos + 1.0) / (n_pos + 2.0) + n_neg / (n_neg + 2.0)) / (n_pos + n_neg)
        return 0.0, float(np.log((1.0 - rate) / rate))
    return float(a), float(b)


def platt_probability(scores, a: float, b: float) -> np.ndarray:
    """``1 / (1 + exp(a f + b))`` for each score ``f``, without overflow."""
    z = a * np.asarray(scores, dtype=np.float64) + b
    return np.exp(-np.logaddexp(0.0, z))


def agree_with_labels(positive, predicted_positive) -> np.ndarray:
    """``P(+1)`` moved to the nearest value on the side of 1/2 that the model predicts (just
    above 1/2 where it predicts +1, at most 1/2 elsewhere), so that the more probable class
    is the predicted one. The sigmoid's offset ``B`` moves its midpoint off the decision
    boundary; this clips the band between the two."""
    above = np.nextafter(0.5, 1.0)
    return np.where(predicted_positive, np.maximum(positive, above), np.minimum(positive, 0.5))


def agree_with_scores(proba, predicted) -> np.ndarray:
    """Rows of class probabilities whose largest entry is the ``predicted`` column: where
    another column is larger, the two entries swap (the row still sums to 1); an exact tie is
    broken by a relative nudge of 1e-12 and renormalising."""
    rows = np.arange(proba.shape[0])
    top = np.argmax(proba, axis=1)
    swap = top != predicted
    if np.any(swap):
        proba = proba.copy()
        r, p, t = rows[swap], predicted[swap], top[swap]
        proba[r, p], proba[r, t] = proba[r, t], proba[r, p]
        tied = np.argmax(proba, axis=1) != predicted
        if np.any(tied):
            r = rows[tied]
            proba[r, predicted[tied]] = proba[r].max(axis=1) * (1.0 + 1e-12)
            proba[r] /= proba[r].sum(axis=1, keepdims=True)
    return proba
