"""Explicit feature maps z(x) for the bounded ("budget") tracking mode: the kernel k is
replaced by the inner product ``z(x)·z(x')`` in a space of fixed size D, so that the global
vector ê is a vector of D numbers (plus three scalars) instead of a list of atoms.

* :class:`IdentityMap` — the linear kernel: z(x) = x (exact, D = n_features);
* :class:`RandomFourierMap` — the RBF kernel ``exp(−γ‖x − x'‖²)``: random Fourier features
  (A. Rahimi and B. Recht, "Random Features for Large-Scale Kernel Machines", NIPS 2007):
  ``z(x) = √(2/D) cos(Ωᵀx + φ)``, Ω with N(0, 2γ) entries, φ uniform on [0, 2π), so that
  ``E[z(x)·z(x')] = k(x, x')`` (their Claim 1: the error is uniform in x, x' and falls as
  1/√D). Every site draws the same Ω and φ from the same seed (one scalar sent once).
"""

from __future__ import annotations

import numpy as np

__all__ = ["IdentityMap", "RandomFourierMap", "feature_map_for"]


class IdentityMap:
    """z(x) = x: the linear kernel, exactly (``n_components`` = ``n_features``)."""

    def __init__(self, n_features):
        self.n_features = int(n_features)
        self.n_components = self.n_features

    def transform(self, X) -> np.ndarray:
        """z of each row of X (2-D)."""
        return np.asarray(X, dtype=np.float64)


class RandomFourierMap:
    """Random Fourier features of ``exp(−γ‖x − x'‖²)`` (Rahimi & Recht 2007, Algorithm 1).

    Files and checkpoints keep the seed, not Ω and φ (n_features × n_components numbers, 136
    MB on 8,315-d text): they are drawn again on loading, the same bits, and shared by the
    maps of one process that have the same seed and sizes."""

    _transient = ("omega", "phase")

    def __init__(self, n_features, n_components, gamma, seed):
        self.n_features = int(n_features)
        self.n_components = int(n_components)
        self.gamma = float(gamma)
        self.seed = int(seed)
        self.scale = float(np.sqrt(2.0 / self.n_components))
        self._restore_transient()

    def _restore_transient(self) -> None:
        key = (self.n_features, self.n_components, self.gamma, self.seed)
        if key not in _DRAWN:
            rng = np.random.default_rng(self.seed)
            omega = rng.normal(0.0, np.sqrt(2.0 * self.gamma),
                               size=(self.n_features, self.n_components))
            _DRAWN[key] = (omega, rng.uniform(0.0, 2.0 * np.pi, size=self.n_components))
            while len(_DRAWN) > 4:
                _DRAWN.pop(next(iter(_DRAWN)))
        self.omega, self.phase = _DRAWN[key]

    def __getstate__(self):  # copies (pickle, Ray) carry the seed, as files do
        return {k: v for k, v in vars(self).items() if k not in self._transient}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._restore_transient()

    def transform(self, X) -> np.ndarray:
        """z of each row of X (2-D): √(2/D) cos(XΩ + φ). One row with more than half its
        entries 0 is multiplied by its non-zero entries' rows of Ω only (text: ~50 of 8,315
        columns)."""
        X = np.asarray(X, dtype=np.float64)
        nz = np.flatnonzero(X[0]) if X.shape[0] == 1 else None
        if nz is not None and 2 * nz.size < X.shape[1]:
            Z = (X[0, nz] @ self.omega[nz])[None, :]
        else:
            Z = X @ self.omega
        Z += self.phase
        np.cos(Z, out=Z)
        Z *= self.scale
        return Z


#: the last drawn (Ω, φ) by (n_features, n_components, gamma, seed): never changed in place
_DRAWN: dict = {}


def feature_map_for(kernel, n_features, n_components, seed):
    """The map of a resolved :class:`~streamsvm.kernels.Kernel` ('linear' or 'rbf')."""
    if kernel.is_callable or kernel.kernel not in ("linear", "rbf"):
        raise ValueError("tracking='budget' needs kernel='rbf' (random Fourier features) or "
                         f"kernel='linear'; got kernel={kernel.kernel!r}: use tracking='exact'")
    if kernel.kernel == "linear":
        return IdentityMap(n_features)
    return RandomFourierMap(n_features, n_components, kernel.gamma_, seed)
