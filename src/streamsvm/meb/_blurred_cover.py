"""The cover of the Blurred Ball SVM (Nathan & Raghvendra, "Accurate Streaming Support
Vector Machines", 2014): the kept balls over their pool of core points, how a new ball is
added and small ones dropped (Algorithm 1, lines 9-10), the union ball, and the scores of the
balls (Algorithm 2). A part of :class:`~streamsvm.meb.blurred._BlurredBallLearner`."""

from __future__ import annotations

import numpy as np

from ..qp import augmented_gram, meb_of_balls_and_points
from . import _blurred_core

_PREDICT_BLOCK = 2048


def _grown(array, size):
    """``array`` with its first axis (and second, for square pool Gram) grown to ``size``."""
    shape = (size,) + array.shape[1:]
    out = np.zeros(shape, dtype=array.dtype)
    out[: array.shape[0]] = array
    return out


class _CoverOfBalls:
    """The ball-cover half of the Blurred Ball learner (its pool ``pool_*``, balls
    ``radius``, ``cnorm2``, ``bias``, ``W`` and ``ball_*`` arrays are the learner's)."""

    def _ensure_pool(self, size):
        capacity = self.pool_X.shape[0]
        if size <= capacity:
            return
        while capacity < size:
            capacity *= 2
        for name in ("pool_X", "pool_y", "pool_sq", "pool_self", "pool_index"):
            setattr(self, name, _grown(getattr(self, name), capacity))
        K = np.zeros((capacity, capacity))
        K[: self.n_pool, : self.n_pool] = self.pool_K[: self.n_pool, : self.n_pool]
        self.pool_K = K

    def _append_ball(self, slots, coef, radius, cnorm2):
        nb = self.n_balls
        if nb + 1 > self.radius.shape[0]:
            capacity = 2 * self.radius.shape[0]
            for name in ("radius", "cnorm2", "bias", "W"):
                setattr(self, name, _grown(getattr(self, name), capacity))
            self.ball_ptr = _grown(self.ball_ptr, capacity + 1)
        start = self.ball_ptr[nb]
        stop = start + slots.shape[0]
        if stop > self.ball_slot.shape[0]:
            capacity = self.ball_slot.shape[0]
            while capacity < stop:
                capacity *= 2
            self.ball_slot = _grown(self.ball_slot, capacity)
            self.ball_coef = _grown(self.ball_coef, capacity)
        self.ball_slot[start:stop] = slots
        self.ball_coef[start:stop] = coef
        self.ball_ptr[nb + 1] = stop
        self.radius[nb] = radius
        self.cnorm2[nb] = cnorm2
        weights = coef * self.pool_y[slots]
        self.bias[nb] = weights.sum()
        if self.linear:
            # W_B = Σ a y x over the pool, without copying the core rows out (wide sparse
            # text: a fancy-indexed copy of every core row per new ball dominated the pass)
            dense_weights = np.zeros(self.n_pool)
            np.add.at(dense_weights, slots, weights)
            self.W[nb] = dense_weights @ self.pool_X[: self.n_pool]
        self.n_balls = nb + 1

    def _drop_small_balls(self, newest_radius):
        nb = self.n_balls
        keep = np.flatnonzero(self.radius[:nb] >= 0.25 * self.epsilon * newest_radius)
        if keep.shape[0] == nb:
            return
        self.n_dropped += nb - keep.shape[0]
        ptr, slot, coef = self.ball_ptr, self.ball_slot, self.ball_coef
        pieces = [(slot[ptr[b] : ptr[b + 1]], coef[ptr[b] : ptr[b + 1]]) for b in keep]
        referenced = np.unique(np.concatenate([p[0] for p in pieces]))
        remap = np.full(self.n_pool, -1, dtype=np.int64)
        remap[referenced] = np.arange(referenced.shape[0])
        # compact the balls
        for name in ("radius", "cnorm2", "bias"):
            array = getattr(self, name)
            array[: keep.shape[0]] = array[keep]
        if self.linear:
            self.W[: keep.shape[0]] = self.W[keep]
        position = 0
        for b, (s, c) in enumerate(pieces):
            self.ball_slot[position : position + s.shape[0]] = remap[s]
            self.ball_coef[position : position + s.shape[0]] = c
            self.ball_ptr[b] = position
            position += s.shape[0]
        self.ball_ptr[keep.shape[0]] = position
        self.n_balls = keep.shape[0]
        # free the core points no kept ball refers to
        if referenced.shape[0] < self.n_pool:
            for name in ("pool_X", "pool_y", "pool_sq", "pool_self", "pool_index"):
                array = getattr(self, name)
                array[: referenced.shape[0]] = array[referenced]
            self.pool_K[: referenced.shape[0], : referenced.shape[0]] = self.pool_K[
                np.ix_(referenced, referenced)
            ]
            self.n_pool = referenced.shape[0]

    # ------------------------------------------------------------------ the cover
    def coefficients(self) -> np.ndarray:
        """Dense (n_balls, n_core) matrix A of the centres' weights over the core points."""
        A = np.zeros((self.n_balls, self.n_pool))
        for b in range(self.n_balls):
            s, e = self.ball_ptr[b], self.ball_ptr[b + 1]
            A[b, self.ball_slot[s:e]] = self.ball_coef[s:e]
        return A

    def ball_gram(self) -> np.ndarray:
        """Gram matrix of the kept centres, c_B·c_B' = a_Bᵀ K a_B', split as the feature part
        plus the overlapping e-parts (``augmented_gram`` with a 2-D extra part)."""
        A = self.coefficients()
        K = self.pool_K[: self.n_pool, : self.n_pool]
        feature = A @ (K - self.inv_C * np.eye(self.n_pool)) @ A.T
        return augmented_gram(0.5 * (feature + feature.T), self.inv_C * (A @ A.T))

    def union_ball(self):
        """``(weights over balls, radius)`` of the MEB of the kept balls (the cover's MEB
        approximation, Agarwal & Sharathkumar); cached until the next update."""
        if self._union is None:
            nb = self.n_balls
            if nb == 1:
                self._union = (np.ones(1), float(self.radius[0]))
            else:
                ball = meb_of_balls_and_points(self.ball_gram(), self.radius[:nb], tol=1e-10)
                self._union = (ball.weights, ball.radius)
        return self._union

    def core_set_sizes(self) -> np.ndarray:
        return np.diff(self.ball_ptr[: self.n_balls + 1]).astype(np.int64)

    # ------------------------------------------------------------------ prediction
    def centre_products(self, X) -> np.ndarray:
        """``F[i, B] = φ̄(x_i, +1) · c_B`` for every kept ball (a test point's e is new)."""
        nb = self.n_balls
        if self.linear:
            return np.asarray(X @ self.W[:nb].T) + self.bias[:nb]
        A = self.coefficients() * self.pool_y[: self.n_pool]
        kernel = self.kernel()
        out = np.empty((X.shape[0], nb))
        for start in range(0, X.shape[0], _PREDICT_BLOCK):
            block = X[start : start + _PREDICT_BLOCK]
            K = kernel.matrix(block, self.pool_X[: self.n_pool])
            out[start : start + block.shape[0]] = (K + 1.0) @ A.T
        return out

    def decision(self, X, classifier) -> np.ndarray:
        if self.n_balls == 0:
            return np.zeros(X.shape[0])
        F = self.centre_products(X)
        cnorm2 = self.cnorm2[: self.n_balls]
        if classifier == "blurred":
            return _blurred_core.blurred_scores(np.ascontiguousarray(F), cnorm2,
                                                np.empty(X.shape[0]))
        if classifier == "last":
            c2 = cnorm2[-1]
            return F[:, -1] / np.sqrt(c2) if c2 > 0 else np.zeros(X.shape[0])
        weights, _ = self.union_ball()
        G = self.ball_gram()
        c2 = float(weights @ G @ weights)
        return F @ weights / np.sqrt(c2) if c2 > 0 else np.zeros(X.shape[0])
