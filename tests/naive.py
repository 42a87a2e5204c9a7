"""Slow, obviously-correct reference implementations the fast code is checked against.

Each function follows its paper line by line in plain Python/NumPy, one example at a time.
"""

import numpy as np


def perceptron(X, y, fit_intercept=True):
    """Rosenblatt's perceptron, one pass: returns (w, b, n_mistakes)."""
    w = np.zeros(X.shape[1])
    b = 0.0
    mistakes = 0
    for x, label in zip(X, y, strict=True):
        if label * (w @ x + b) <= 0:
            w = w + label * x
            if fit_intercept:
                b += label
            mistakes += 1
    return w, b, mistakes


def pegasos(X, y, lam, k, project=True):
    """Pegasos (Shalev-Shwartz et al. 2007, Fig. 2) with blocks of k consecutive examples,
    one sweep, the last block possibly smaller. Returns w."""
    w = np.zeros(X.shape[1])
    t = 0
    for start in range(0, X.shape[0], k):
        A = slice(start, min(start + k, X.shape[0]))
        XA, yA = X[A], y[A]
        t += 1
        eta = 1.0 / (lam * t)
        violators = yA * (XA @ w) < 1
        w = (1 - eta * lam) * w + eta / len(yA) * (yA[violators] @ XA[violators])
        if project:
            norm = np.linalg.norm(w)
            if norm > 1 / np.sqrt(lam):
                w = w / (norm * np.sqrt(lam))
    return w


def streamsvm_algorithm1(X, y, C):
    """StreamSVM Algorithm 1 with the augmented points written out in full:
    p_n = [y_n x_n; C^{-1/2} e_n] in D + N dimensions, and the ball update of Zarrabi-Zadeh &
    Chan (a point at distance d >= R moves the centre by (d - R)/2 toward it and grows R by
    the same). Returns (centre, R, number of updates, points)."""
    n = X.shape[0]
    points = np.hstack([y[:, None] * X, np.eye(n) / np.sqrt(C)])
    centre = points[0].copy()
    radius = 0.0
    updates = 1
    for p in points[1:]:
        d = np.linalg.norm(p - centre)
        if d >= radius:
            step = (d - radius) / 2
            centre = centre + step / d * (p - centre)
            radius += step
            updates += 1
    return centre, radius, updates, points
