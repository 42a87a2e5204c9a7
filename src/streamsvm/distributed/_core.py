"""Jitted pieces of the distributed L2-SVM tracker (P. Chrysogelos, "Streaming, High
Performance Support Vector Methods", diploma thesis, Technical University of Crete, 2016),
pure functions over arrays.

* :func:`augment_gram` — the L2-SVM kernel of section 4.1 from raw kernel values:
  ``k̂ = y_i y_j (k + 1) + δ_ij / C`` (two-class), ``k + δ_ij / C`` (one-class) or ``k``
  (plain points), δ_ij meaning "the same point id".
* :func:`slacks_from_cross` — the local constraints ``∇f(ê)ᵀ(φ̂(x_i) − ê)`` of eq. 4.1 for
  f = ‖·‖², from the cross Gram of the atoms of ê and the points.
* :func:`ray_lambdas` — the ray intersections of eq. 4.2 in terms of slacks.
* :func:`ray_matrix` — the convex-combination matrix W of the ray points
  ``y_i = λ_i x_i + (1 − λ_i) x_N`` over the base points [x_N, x_1, …]; their Gram matrix is
  ``W G Wᵀ`` (eq. 4.3 written as one product).
* :func:`affinely_independent` — Cholesky test of affine independence (then every point is an
  extreme point of the set's hull, and no membership problem needs solving).
"""

import numpy as np
from numba import njit


@njit(cache=True)
def augment_gram(K, ya, yb, ida, idb, task, inv_c):
    """In place: K[i, j] ← k̂(a_i, b_j) from raw kernel values k(a_i, b_j).

    task 2: y_a y_b (k + 1) + δ/C; task 1: k + δ/C; task 0: k (δ/C still added when
    inv_c > 0). δ is 1 when ``ida[i] == idb[j]``.
    """
    m, n = K.shape
    for i in range(m):
        for j in range(n):
            v = K[i, j]
            if task == 2:
                v = ya[i] * yb[j] * (v + 1.0)
            if ida[i] == idb[j]:
                v += inv_c
            K[i, j] = v


@njit(cache=True)
def quadratic_value(G, coef):
    """coefᵀ G coef (G symmetric)."""
    m = coef.shape[0]
    total = 0.0
    for i in range(m):
        ci = coef[i]
        if ci != 0.0:
            s = 0.0
            for j in range(m):
                s += G[i, j] * coef[j]
            total += ci * s
    return total


@njit(cache=True)
def slacks_from_cross(Kab, coef, f_value, out):
    """out[j] = 2 (Σ_i coef_i k̂(a_i, b_j) − f(ê)) = ∇f(ê)ᵀ(φ̂(b_j) − ê) for f = ‖·‖².

    The paper's eq. 4.1 prints ``Σ_j a_j k̂(x_j, x_i) − 2 f(ê)``; with ∇f(ê) = 2ê the inner
    product is ``2 êᵀφ̂(x_i) − 2 ‖ê‖² = 2 (Σ_j a_j k̂(x_j, x_i) − f(ê))`` (a factor 2 on the
    first term is missing in print). The factor matters for the relaxed constraint ≥ −ε;
    eq. 4.2 is consistent with the corrected form.
    """
    m, n = Kab.shape
    for j in range(n):
        s = 0.0
        for i in range(m):
            s += coef[i] * Kab[i, j]
        out[j] = 2.0 * (s - f_value)


@njit(cache=True)
def ray_lambdas(slacks, s_new, b, out):
    """λ_i of eq. 4.2: the ray from x_N (slack s_new < b) to x_i (slack ≥ b) meets the
    hyperplane {∇f(ê)ᵀ(ψ − ê) = b} at λ_i x_i + (1 − λ_i) x_N.

    Slacks are linear along the ray, so λ_i = (b − s_new) / (s_i − s_new), which is eq. 4.2
    divided through by 2 (there ``⟨ê, φ̂(x)⟩ − f(ê) = s/2``). Points at most rounding below b
    give λ > 1, clipped to 1 (the point itself).
    """
    for i in range(slacks.shape[0]):
        denom = slacks[i] - s_new
        if denom <= 0.0:
            out[i] = 1.0
        else:
            lam = (b - s_new) / denom
            out[i] = 1.0 if lam > 1.0 else lam


@njit(cache=True)
def ray_matrix(lambdas):
    """W of shape (m + 1, m + 1): row 0 = x_N, row i = λ_i e_i + (1 − λ_i) e_0."""
    m = lambdas.shape[0]
    W = np.zeros((m + 1, m + 1))
    W[0, 0] = 1.0
    for i in range(m):
        W[i + 1, i + 1] = lambdas[i]
        W[i + 1, 0] = 1.0 - lambdas[i]
    return W


@njit(cache=True)
def ray_gram(G, lambdas):
    """W G Wᵀ for the ray matrix W of :func:`ray_matrix`, in O(m²) (eq. 4.3):
    k̂(y_i, y_j) = λ_iλ_j k̂(x_i, x_j) + (1−λ_i)(1−λ_j) k̂(x_N, x_N)
    + (1−λ_i)λ_j k̂(x_N, x_j) + (1−λ_j)λ_i k̂(x_N, x_i), and
    k̂(y_i, x_N) = λ_i k̂(x_i, x_N) + (1−λ_i) k̂(x_N, x_N) (index 0 is x_N)."""
    m = lambdas.shape[0]
    out = np.empty((m + 1, m + 1))
    gnn = G[0, 0]
    out[0, 0] = gnn
    for i in range(m):
        li = lambdas[i]
        v = li * G[i + 1, 0] + (1.0 - li) * gnn
        out[i + 1, 0] = v
        out[0, i + 1] = v
    for i in range(m):
        li = lambdas[i]
        for j in range(i, m):
            lj = lambdas[j]
            v = (li * lj * G[i + 1, j + 1] + (1.0 - li) * (1.0 - lj) * gnn
                 + (1.0 - li) * lj * G[0, j + 1] + (1.0 - lj) * li * G[0, i + 1])
            out[i + 1, j + 1] = v
            out[j + 1, i + 1] = v
    return out


@njit(cache=True)
def affinely_independent(G, rel_tol):
    """True when the points with Gram matrix G are affinely independent.

    Cholesky of the Gram matrix of the differences p_i − p_0 (i ≥ 1); a pivot below
    ``rel_tol · max diag`` counts as dependence.
    """
    m = G.shape[0]
    if m <= 1:
        return True
    n = m - 1
    D = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            D[i, j] = G[i + 1, j + 1] - G[i + 1, 0] - G[0, j + 1] + G[0, 0]
    scale = 0.0
    for i in range(m):
        if G[i, i] > scale:
            scale = G[i, i]
    floor = rel_tol * max(scale, 1e-300)
    L = np.zeros((n, n))
    for j in range(n):
        s = D[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        if s <= floor:
            return False
        L[j, j] = np.sqrt(s)
        for i in range(j + 1, n):
            t = D[i, j]
            for k in range(j):
                t -= L[i, k] * L[j, k]
            L[i, j] = t / L[j, j]
    return True


@njit(cache=True)
def translated_gram(G, keep, j):
    """Gram matrix of p_k − p_j for k in ``keep`` (hull membership of p_j, section 4.3.2)."""
    n = keep.shape[0]
    out = np.empty((n, n))
    for a in range(n):
        ka = keep[a]
        for b in range(n):
            kb = keep[b]
            out[a, b] = G[ka, kb] - G[ka, j] - G[kb, j] + G[j, j]
    return out
