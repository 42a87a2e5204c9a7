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


def blurred_ball_cover(X, y, C, epsilon, lookahead, tol=1e-13):
    """The Blurred Ball SVM's training (Nathan & Raghvendra 2014, Algorithm 1) with the augmented
    points written out in full, p_n = [y_n x_n; y_n; C^{-1/2} e_n] in d + 1 + n dimensions, and
    every distance computed from coordinates. A point outside the (1+ε)-expansion of every kept ball
    (for L > 1: a buffer of L points holding one) adds the ball MEB(buffer ∪ kept core sets),
    its core set the points of positive weight; balls with radius < ε/4 of it are dropped.
    The MEB is solved by the qp toolkit at a tight tolerance on the explicit Gram matrix.
    Returns (balls, points) with balls a list of (core indices, centre, radius), oldest first."""
    from streamsvm.qp import meb_of_points

    n = X.shape[0]
    scale = 0.0 if np.isinf(C) else 1.0 / np.sqrt(C)
    points = np.hstack([y[:, None] * X, y[:, None], scale * np.eye(n)])
    balls = []

    def uncovered(i):
        return all(np.linalg.norm(points[i] - c) > (1 + epsilon) * r for _, c, r in balls)

    def new_ball(buffer):
        nonlocal balls
        kept = [int(k) for core, _, _ in balls for k in core]
        candidates = np.array(sorted(set(buffer) | set(kept)))
        P = points[candidates]
        result = meb_of_points(P @ P.T, tol=tol)
        support = result.weights > 0
        centre = result.weights[support] @ P[support]
        radius = float(np.max(np.linalg.norm(P - centre, axis=1)))
        balls.append((candidates[support], centre, radius))
        balls = [ball for ball in balls if ball[2] >= epsilon / 4 * radius]

    buffer = []
    for i in range(n):
        buffer.append(i)
        if len(buffer) < max(lookahead, 1):
            continue
        if any(uncovered(j) for j in buffer):
            new_ball(buffer)
        buffer = []
    if buffer and any(uncovered(j) for j in buffer):
        new_ball(buffer)
    return balls, points
def l2svm_hat_gram(X, y, ids, kernel, C, task):
    """Gram matrix of the distributed L2-SVM (Chrysogelos 2016, section 4.1), entry by entry:
    two-class y_i y_j (k(x_i, x_j) + 1) + δ_ij / C, one-class k(x_i, x_j) + δ_ij / C.
    ``kernel(a, b)`` returns k(a, b); δ_ij compares point ids."""
    n = len(ids)
    G = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            k = kernel(X[i], X[j])
            v = y[i] * y[j] * (k + 1.0) if task == "two-class" else k
            if ids[i] == ids[j] and np.isfinite(C):
                v += 1.0 / C
            G[i, j] = v
    return G


def simplex_qp_scipy(G):
    """min aᵀGa over the probability simplex by scipy's SLSQP (a solver of record for the
    distributed tracker's centralised oracle). Returns (a, value)."""
    from scipy.optimize import minimize

    m = G.shape[0]
    res = minimize(lambda a: a @ G @ a, np.full(m, 1.0 / m), jac=lambda a: 2 * G @ a,
                   method="SLSQP", bounds=[(0, 1)] * m,
                   constraints=[{"type": "eq", "fun": lambda a: a.sum() - 1}],
                   options={"ftol": 1e-15, "maxiter": 2000})
    a = np.clip(res.x, 0, None)
    a /= a.sum()
    return a, float(a @ G @ a)
def lasvm_online(K, y, C, tau=1e-3, n_seed=5):
    """LASVM online iterations (Bordes et al. 2005, Sec. 3.2), one epoch in the given order,
    on a precomputed kernel matrix K, following the paper's PROCESS / REPROCESS line by line
    (REPROCESS steps 4-5 also run when step 2 bails out; the first ``n_seed`` examples of
    each class seed S with alpha = 0). Returns (alpha over all examples, b, delta)."""
    n = len(y)
    alpha = np.zeros(n)
    g = np.zeros(n)
    S = []
    A = np.minimum(0, C * y)
    B = np.maximum(0, C * y)
    b = delta = 0.0
    seeds = {1.0: 0, -1.0: 0}

    def step(i, j):
        lam = min((g[i] - g[j]) / max(K[i, i] + K[j, j] - 2 * K[i, j], 1e-12),
                  B[i] - alpha[i], alpha[j] - A[j])
        alpha[i] += lam
        alpha[j] -= lam
        for s in S:
            g[s] -= lam * (K[i, s] - K[j, s])

    def extremes():  # first in S order among gradients within 1e-12 of the best
        i = j = None
        for s in S:
            if alpha[s] < B[s] and (i is None or g[s] > g[i] + 1e-12):
                i = s
            if alpha[s] > A[s] and (j is None or g[s] < g[j] - 1e-12):
                j = s
        return i, j

    for k in range(n):
        if k in S:
            continue
        if seeds[y[k]] < n_seed:
            g[k] = y[k] - sum(alpha[s] * K[k, s] for s in S)
            S.append(k)
            seeds[y[k]] += 1
            continue
        # PROCESS(k)
        g[k] = y[k] - sum(alpha[s] * K[k, s] for s in S)
        S.append(k)
        i, j = extremes()
        if y[k] > 0:
            i = k
        else:
            j = k
        if i is not None and j is not None and alpha[i] < B[i] and alpha[j] > A[j] \
                and g[i] - g[j] > tau:
            step(i, j)
        # REPROCESS
        i, j = extremes()
        if i is not None and j is not None and g[i] - g[j] > tau:
            step(i, j)
        i, j = extremes()
        for s in list(S):
            if alpha[s] == 0:
                if (y[s] < 0 and i is not None and g[s] >= g[i]) or \
                        (y[s] > 0 and j is not None and g[s] <= g[j]):
                    S.remove(s)
        i, j = extremes()
        if i is not None and j is not None:
            b, delta = (g[i] + g[j]) / 2, g[i] - g[j]
    return alpha, b, delta


def box_qp_no_bias(K, y, C):
    """The SVM dual without bias, max sum(alpha y) - alpha K alpha / 2 over 0 <= y alpha <= C,
    solved by L-BFGS-B (a smooth box-constrained problem). Returns (alpha, W)."""
    from scipy.optimize import minimize

    Q = K * np.outer(y, y)

    def objective(u):
        Qu = Q @ u
        return 0.5 * u @ Qu - u.sum(), Qu - 1.0

    result = minimize(objective, np.zeros(len(y)), jac=True, method="L-BFGS-B",
                      bounds=[(0.0, C)] * len(y),
                      options={"maxiter": 20000, "ftol": 1e-15, "gtol": 1e-11})
    return result.x * y, -result.fun
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


def budget_kernel_perceptron(X, y, budget, gamma, beta=0.0, removal="margin", window=None):
    """Budget kernel perceptron (Crammer, Kandola & Singer 2003), RBF kernel, written out;
    ``removal="errors"``: Weston, Bordes & Bottou's (2005) rule, the stored example whose
    removal leaves the fewest stored examples misclassified (ties: the largest margin
    without itself), after the new one is added; ``removal="window_errors"``: the same,
    with the errors counted on the last ``window`` rows of the stream (the current one
    included) instead of the stored examples. Returns the set of stored rows (as tuples)
    and their coefficients by row."""
    svs = []  # [x, coef]
    recent = []  # [x, label], the last `window` rows
    for x, label in zip(X, y, strict=True):
        f = sum(a * _rbf(v, x, gamma) for v, a in svs)
        recent = (recent + [[x, float(label)]])[-(window or budget):]
        if label * f > beta:
            continue
        if removal in ("errors", "window_errors"):
            svs.append([x, float(label)])
            if len(svs) > budget:
                judged = ([[u, np.sign(b)] for u, b in svs] if removal == "errors"
                          else recent)
                f_judged = [sum(b * _rbf(v, u, gamma) for v, b in svs) for u, _ in judged]
                f_stored = [sum(b * _rbf(u, v, gamma) for u, b in svs) for v, _ in svs]
                keys = []
                for (v, a), fv in zip(svs[:-1], f_stored, strict=False):
                    errors = sum(yu * (fu - a * _rbf(v, u, gamma)) <= 0
                                 for (u, yu), fu in zip(judged, f_judged, strict=True))
                    keys.append((errors, -np.sign(a) * (fv - a * _rbf(v, v, gamma))))
                svs.pop(min(range(len(keys)), key=keys.__getitem__))
            continue
        if len(svs) == budget:
            scores = []
            for v, a in svs:
                fv = sum(b * _rbf(u, v, gamma) for u, b in svs)
                scores.append(np.sign(a) * (fv - a * _rbf(v, v, gamma)))
            svs.pop(int(np.argmax(scores)))
        svs.append([x, float(label)])
    return {tuple(v): a for v, a in svs}
