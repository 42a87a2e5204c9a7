"""Spaces and convex objectives of the tracking protocol (P. Chrysogelos, "Streaming, High
Performance Support Vector Methods", diploma thesis, Technical University of Crete, 2016,
chapters 2–4).

The protocol only ever manipulates *points* (a :class:`PointBlock`: ids, raw vectors,
labels) and convex combinations of them. What a point means geometrically is a
:class:`Space`:

* :class:`KernelSpace` — the implicit feature space of the L2-SVM, inner products
  ``k̂(x_i, x_j) = y_i y_j (k + 1) + δ_ij / C`` (two-class), ``k + δ_ij / C`` (one-class) or
  ``k`` (plain points; ``C = inf`` drops δ/C), section 4.1;
* :class:`EuclideanSpace` — the points themselves in Rⁿ (chapters 2–3 in general).

What is minimised is an objective:

* :class:`SquaredNorm` — f = ‖·‖² (the L2-SVM, section 4.2), everything through Gram
  matrices, so it works in any space; local problems (eq. 2.3, 2.4, 4.5) by the qp toolkit's
  minimum-norm-point solver;
* :class:`ConvexFunction` — any convex differentiable f given as ``value`` and ``gradient``
  callables over explicit vectors (a :class:`EuclideanSpace` only); local problems by SLSQP.

Both give the *slack* of a point, ``∇f(ê)ᵀ(x − ê)``, the quantity all local constraints,
certificates and ray intersections are written in.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..kernels import Kernel
from ..qp import _core as qp_core
from . import _core

__all__ = ["PointBlock", "KernelSpace", "EuclideanSpace", "SquaredNorm", "ConvexFunction"]


class PointBlock:
    """Points of the protocol: ``ids`` (int64), ``X`` (float64, (n, d)), ``y`` (float64)."""

    def __init__(self, ids, X, y):
        self.ids = np.ascontiguousarray(ids, dtype=np.int64).reshape(-1)
        X = np.ascontiguousarray(X, dtype=np.float64)
        self.X = X.reshape(len(self.ids), -1) if X.ndim != 2 else X
        self.y = np.ascontiguousarray(y, dtype=np.float64).reshape(-1)

    def __len__(self):
        return len(self.ids)

    @classmethod
    def empty(cls, n_features):
        return cls(np.empty(0, np.int64), np.empty((0, n_features)), np.empty(0))

    def take(self, index):
        index = np.asarray(index, dtype=np.int64)
        return PointBlock(self.ids[index], self.X[index], self.y[index])

    def concat(self, other):
        return PointBlock(np.r_[self.ids, other.ids], np.vstack([self.X, other.X]),
                          np.r_[self.y, other.y])

    def nbytes_each(self):
        """Bytes to ship one point: its vector, label and id (float64 / int64)."""
        return 8 * self.X.shape[1] + 16


# --------------------------------------------------------------------------- spaces

_TASKS = {"plain": 0, "one-class": 1, "two-class": 2}


class KernelSpace:
    """Feature space of the L2-SVM kernel k̂ (section 4.1), through a :class:`Kernel`.

    ``task``: ``'two-class'`` (k̂ = y_i y_j (k + 1) + δ_ij/C), ``'one-class'``
    (k̂ = k + δ_ij/C) or ``'plain'`` (k̂ = k + δ_ij/C, labels ignored). ``C = inf`` drops the
    δ_ij/C term (hard margin / the plain hull of the φ(x_i)).
    """

    explicit = False

    def __init__(self, kernel: Kernel, C: float = 1.0, task: str = "two-class"):
        if task not in _TASKS:
            raise ValueError(f"task must be one of {sorted(_TASKS)}; got {task!r}")
        self.kernel = kernel
        self.C = float(C)
        self.task = task
        self.inv_c = 0.0 if math.isinf(self.C) else 1.0 / self.C

    def gram(self, A: PointBlock, B: PointBlock | None = None) -> np.ndarray:
        """k̂(a_i, b_j) for every pair (B = None: A with itself)."""
        B = A if B is None else B
        if len(A) == 0 or len(B) == 0:
            return np.zeros((len(A), len(B)))
        K = self.kernel.matrix(A.X, B.X)
        _core.augment_gram(K, A.y, B.y, A.ids, B.ids, _TASKS[self.task], self.inv_c)
        if B is A:
            K = 0.5 * (K + K.T)
        return K

    def raw_gram(self, A: PointBlock, B: PointBlock) -> np.ndarray:
        """Plain kernel values k(a_i, b_j) (for the decision function; not counted in the
        kernel's ``n_evals``, so that a query leaves the model exactly as it was)."""
        counted = self.kernel.n_evals
        K = self.kernel.matrix(A.X, B.X)
        self.kernel.n_evals = counted
        return K


class EuclideanSpace:
    """The points themselves in Rⁿ (labels ignored): inner product ``x·z``."""

    explicit = True
    task = "plain"

    def gram(self, A: PointBlock, B: PointBlock | None = None) -> np.ndarray:
        B = A if B is None else B
        return A.X @ B.X.T

    def vectors(self, A: PointBlock) -> np.ndarray:
        return A.X


# ----------------------------------------------------------------------- objectives


class GlobalSummary:
    """What a site derives from the global vector ê = Σ coef_i atom_i: f(ê) and, for an
    explicit objective, ê and ∇f(ê)."""

    def __init__(self, f, e=None, grad=None, scale=1.0):
        self.f = float(f)
        self.e = e
        self.grad = grad
        self.scale = float(scale)  # size of the slacks' rounding: max diag of the atoms' Gram


class SquaredNorm:
    """f(e) = ‖e‖², ∇f = 2e, in any space via Gram matrices (the L2-SVM of section 4.2)."""

    name = "squared_norm"

    def __init__(self, tol: float = 1e-12):
        self.tol = float(tol)

    def summarise(self, space, atoms: PointBlock, coef: np.ndarray) -> GlobalSummary:
        return self.summarise_gram(space.gram(atoms), coef)

    def summarise_gram(self, G: np.ndarray, coef: np.ndarray) -> GlobalSummary:
        """:meth:`summarise` from the atoms' Gram matrix ``G`` (a site that keeps it)."""
        f = _core.quadratic_value(G, coef)
        return GlobalSummary(f, scale=max(float(np.max(np.diag(G), initial=0.0)), abs(f), 1e-300))

    def slacks(self, space, atoms, coef, summary, block: PointBlock) -> np.ndarray:
        """∇f(ê)ᵀ(φ̂(x_j) − ê) = 2 (Σ_i coef_i k̂(a_i, x_j) − f(ê)) (eq. 4.1, corrected)."""
        return self.slacks_gram(space.gram(atoms, block), coef, summary)

    def slacks_gram(self, cross: np.ndarray, coef, summary) -> np.ndarray:
        """:meth:`slacks` from ``cross[i, j] = k̂(a_i, x_j)`` (a site that keeps it)."""
        out = np.empty(cross.shape[1])
        if cross.shape[1]:
            _core.slacks_from_cross(cross, coef, summary.f, out)
        return out

    def minimise(self, space, base: PointBlock, W=None, init=None):
        """Weights μ over the points W·base minimising ‖Σ μ_k (W·base)_k‖² (eq. 2.3/2.4/4.5).

        Returns (μ, f value)."""
        G = space.gram(base)
        if W is not None:
            G = W @ G @ W.T
            G = 0.5 * (G + G.T)
        return minimise_gram(G, init, self.tol)


def minimise_gram(G, init=None, tol=1e-12):
    """min_λ λᵀGλ over the simplex by :func:`streamsvm.qp._core.min_norm_point_core`."""
    G = np.ascontiguousarray(G, dtype=np.float64)
    m = G.shape[0]
    lam0 = np.empty(0) if init is None else np.ascontiguousarray(init, dtype=np.float64)
    if lam0.shape[0] == m and not lam0.sum() > 0:
        lam0 = np.empty(0)
    lam, sq, gap, _lower, _n, status = qp_core.min_norm_point_core(G, lam0, tol, 50 * m + 200)
    if status == qp_core.NOT_PSD:
        raise ValueError("the Gram matrix of a local problem is not positive semi-definite")
    if status == qp_core.MAX_ITER:
        warnings.warn(f"local problem stopped at max_iter (gap {gap:.3g})", ConvergenceWarning,
                      stacklevel=3)
    return lam, float(sq)


class ConvexFunction:
    """A convex differentiable f: Rⁿ → R given by ``value(e)`` and ``gradient(e)``.

    Works over explicit vectors (:class:`EuclideanSpace`). Local problems
    min_λ f(Σ λ_k p_k) over the simplex are solved by SLSQP with the chain-rule gradient
    Pᵀ∇f; ``tol`` is its stopping tolerance (the paper's approximate local solves, section
    3.2.1, only need precision finer than ε).
    """

    name = "convex_function"

    def __init__(self, value, gradient, tol: float = 1e-12):
        if not callable(value) or not callable(gradient):
            raise TypeError("value and gradient must be callables taking a 1-D vector")
        self.value = value
        self.gradient = gradient
        self.tol = float(tol)

    def _check_space(self, space):
        if not getattr(space, "explicit", False):
            raise TypeError("ConvexFunction needs explicit vectors (EuclideanSpace); use "
                            "SquaredNorm for a kernel space")

    def summarise(self, space, atoms, coef) -> GlobalSummary:
        self._check_space(space)
        e = coef @ space.vectors(atoms)
        f = float(self.value(e))
        grad = np.asarray(self.gradient(e), dtype=np.float64)
        return GlobalSummary(f, e, grad, max(1.0, abs(f), abs(float(grad @ e))))

    def slacks(self, space, atoms, coef, summary, block) -> np.ndarray:
        if len(block) == 0:
            return np.empty(0)
        return space.vectors(block) @ summary.grad - float(summary.grad @ summary.e)

    def minimise(self, space, base, W=None, init=None):
        from scipy.optimize import minimize

        self._check_space(space)
        P = space.vectors(base)
        if W is not None:
            P = W @ P
        m = P.shape[0]
        if m == 1:
            return np.ones(1), float(self.value(P[0]))
        x0 = np.full(m, 1.0 / m) if init is None or not np.sum(init) > 0 else \
            np.asarray(init, dtype=np.float64) / np.sum(init)
        res = minimize(
            lambda lam: float(self.value(lam @ P)),
            x0,
            jac=lambda lam: P @ np.asarray(self.gradient(lam @ P), dtype=np.float64),
            method="SLSQP",
            bounds=[(0.0, 1.0)] * m,
            constraints=[{"type": "eq", "fun": lambda lam: lam.sum() - 1.0,
                          "jac": lambda lam: np.ones_like(lam)}],
            options={"ftol": self.tol, "maxiter": 1000},
        )
        lam = np.clip(res.x, 0.0, None)
        lam[lam < 1e-12] = 0.0
        lam /= lam.sum()
        return lam, float(self.value(lam @ P))
