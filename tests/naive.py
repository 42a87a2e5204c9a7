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


def streamsvm_kernel_algorithm1(X, y, C, kernel):
    """Kernelised StreamSVM (Sec. 4.2) in plain Python: the centre is
    [sum_m beta_m y_m phi(x_m); sum_m beta_m C^{-1/2} e_m] with convex weights beta, and every
    distance is computed from scratch with kernel evaluations (no incremental norms).
    ``kernel(a, b)`` returns k(a, b). Returns (beta over all examples, radius)."""
    n = X.shape[0]
    beta = np.zeros(n)
    beta[0] = 1.0
    radius = 0.0
    for i in range(1, n):
        support = np.flatnonzero(beta)
        w_norm2 = sum(beta[a] * beta[b] * y[a] * y[b] * kernel(X[a], X[b])
                      for a in support for b in support)
        f = sum(beta[m] * y[m] * kernel(X[m], X[i]) for m in support)
        xi2 = np.sum(beta**2) / C
        d = np.sqrt(w_norm2 - 2 * y[i] * f + kernel(X[i], X[i]) + xi2 + 1 / C)
        if d >= radius:
            a = 0.5 * (1 - radius / d)
            beta *= 1 - a
            beta[i] = a
            radius += 0.5 * (d - radius)
    return beta, radius


def tvm_best_neighbours(Q, weights, side):
    """Twin Vector Machine (Wang & Vucetic 2009, Sec. 4.2.1), brute force: for each twin i,
    the twin j != i on the same side minimising ``s_i s_j ||q_i - q_j||^2 / (s_i + s_j)``.
    Returns (neighbour, distortion) arrays (-1 and inf when there is none)."""
    n = Q.shape[0]
    s = weights.sum(axis=1)
    best = np.full(n, np.inf)
    who = np.full(n, -1)
    for i in range(n):
        for j in range(n):
            if i == j or side[i] != side[j]:
                continue
            d = s[i] * s[j] / (s[i] + s[j]) * float(np.sum((Q[i] - Q[j]) ** 2))
            if d < best[i]:
                best[i], who[i] = d, j
    return who, best


def rbf_preimage_on_segment(qi, qj, si, sj, gamma, n_grid=20001):
    """Point of the segment [qi, qj] closest in RBF feature space to the weighted mean of
    phi(qi), phi(qj), by a dense grid (Nguyen & Ho 2005 / TVM eq. 4.2)."""
    h = np.linspace(0.0, 1.0, n_grid)
    dist2 = float(np.sum((qj - qi) ** 2))
    value = si * np.exp(-gamma * h**2 * dist2) + sj * np.exp(-gamma * (1 - h) ** 2 * dist2)
    return qi + h[np.argmax(value)] * (qj - qi)


def _rbf(a, b, gamma):
    return float(np.exp(-gamma * np.sum((a - b) ** 2)))


def self_tuned_forgetron(X, y, budget, gamma):
    """Self-tuned Forgetron (Dekel, Shalev-Shwartz & Singer 2008), RBF kernel, written out:
    lists of (x, y, sigma) oldest first. Returns (support vectors, coefficients sigma*y)."""
    svs, Q, M = [], 0.0, 0
    for x, label in zip(X, y, strict=True):
        f = sum(s * yy * _rbf(v, x, gamma) for v, yy, s in svs)
        if label * f > 0:
            continue
        M += 1
        svs.append([x, label, 1.0])
        if len(svs) <= budget:
            continue
        v_r, y_r, s_r = svs[0]
        mu = y_r * sum(s * yy * _rbf(v, v_r, gamma) for v, yy, s in svs)
        c = 15 / 32 * M - Q
        phis = np.linspace(1.0, 0.0, 200001)
        lam = s_r * phis
        ok = lam**2 + 2 * lam - 2 * lam * mu <= c
        phi = float(phis[np.argmax(ok)]) if ok.any() else 0.0
        lam = s_r * phi
        Q += lam**2 + 2 * lam - 2 * lam * mu
        for entry in svs:
            entry[2] *= phi
        svs.pop(0)
    return np.array([v for v, _, _ in svs]), np.array([s * yy for _, yy, s in svs])


def budget_kernel_perceptron(X, y, budget, gamma, beta=0.0):
    """Budget kernel perceptron (Crammer, Kandola & Singer 2004), RBF kernel, written out.
    Returns the set of stored rows (as tuples) and their coefficients by row."""
    svs = []  # [x, coef]
    for x, label in zip(X, y, strict=True):
        f = sum(a * _rbf(v, x, gamma) for v, a in svs)
        if label * f > beta:
            continue
        if len(svs) == budget:
            scores = []
            for v, a in svs:
                fv = sum(b * _rbf(u, v, gamma) for u, b in svs)
                scores.append(np.sign(a) * (fv - a * _rbf(v, v, gamma)))
            svs.pop(int(np.argmax(scores)))
        svs.append([x, float(label)])
    return {tuple(v): a for v, a in svs}
