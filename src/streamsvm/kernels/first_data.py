"""The gamma and centring rule of ``docs/design.md``, for the estimators: what a kernel model
fixes once, from the first data it sees, and when that makes it depend on the chunking."""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from .spec import Kernel, resolve_gamma, uses_gamma

__all__ = [
    "FirstDataRule", "WARMUP_ROWS", "centring_mean", "fixed_by_first_data",
    "resolve_gamma_from_sums",
]

#: Examples ``learn_one`` gathers on a fresh model whose first data fix something
#: (``gamma='scale'`` on a kernel with a gamma, a centring mean) before it fixes them and
#: learns the examples as its first chunk: one row is a poor sample (after River's
#: ``StandardScaler`` the first row is all zeros, which would make ``gamma_`` 1).
WARMUP_ROWS = 32


def centring_mean(X) -> np.ndarray:
    """Column means of X (dense or sparse) as a 1-D float64 array."""
    return np.asarray(X.mean(axis=0), dtype=np.float64).ravel()


def resolve_gamma_from_sums(gamma, n_rows: int, n_features: int, entry_sum: float,
                            entry_sqsum: float) -> float:
    """:func:`~streamsvm.kernels.resolve_gamma` of data known only by its shape and the sums
    of its entries and of their squares (e.g. the union of shards read by several workers):
    ``Var = sqsum / N - (sum / N)²`` over its ``N = n_rows · n_features`` entries, the same
    value as on the whole data up to rounding.

    >>> X = np.array([[0.0, 2.0], [2.0, 0.0]])
    >>> resolve_gamma_from_sums("scale", 2, 2, X.sum(), (X * X).sum())
    0.5
    """
    if not isinstance(gamma, str):
        return float(gamma)
    if n_rows <= 0 or n_features <= 0:
        raise ValueError(f"gamma={gamma!r} needs non-empty data to be resolved; got "
                         f"{n_rows} rows of {n_features} features")
    if gamma == "auto":
        return 1.0 / n_features
    if gamma != "scale":
        raise ValueError(f"gamma must be 'scale', 'auto' or a positive float; got {gamma!r}")
    n_entries = float(n_rows) * float(n_features)
    mean = float(entry_sum) / n_entries
    variance = max(float(entry_sqsum) / n_entries - mean * mean, 0.0)
    if variance == 0:
        return 1.0
    value = float(1.0 / (n_features * variance))
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"gamma='scale' is not a positive finite number on this data "
                         f"(Var(X) = {variance!r}); give gamma as a number")
    return value


def fixed_by_first_data(kernel, gamma) -> bool:
    """Whether the first data fix this kernel: ``gamma='scale'`` on a kernel with a gamma.
    (``'auto'`` is ``1 / n_features``, the same for every chunk.)"""
    return uses_gamma(kernel) and isinstance(gamma, str) and gamma == "scale"


class FirstDataRule:
    """Mixin for estimators with the parameters ``kernel``, ``gamma``, ``degree``, ``coef0``:
    on the first data a fresh model sees (all of X in ``fit``, the first chunk in
    ``partial_fit``, the first row in ``learn_one``), before any centring, it fixes

    * ``gamma_``: :func:`~streamsvm.kernels.resolve_gamma` of ``gamma`` (None for a kernel
      without gamma: 'linear', callables);
    * ``mean_`` (classes with ``_centres_input = True`` and a ``center`` parameter
      True/False/'auto', 'auto' centring dense input only): the column means, or None.

    ``learn_one`` follows the same rule over its first :data:`WARMUP_ROWS` examples, learnt
    as one first chunk, where those data fix something (:meth:`_learn_one_warmup`).

    Listed before :class:`~streamsvm.base.StreamClassifier` among the bases, it does this in
    ``_prepare_first``; other estimators call :meth:`_fix_from_first_data` themselves.
    """

    _centres_input = False

    def _fix_from_first_data(self, X) -> None:
        self.gamma_ = (self._scaled_gamma(resolve_gamma(self.gamma, X))
                       if uses_gamma(self.kernel) else None)
        if self._centres_input:
            centre = self.center is True or (self.center == "auto" and not sp.issparse(X))
            self.mean_ = centring_mean(X) if centre else None

    def _scaled_gamma(self, gamma: float) -> float:
        """``gamma_`` from the resolved ``gamma`` (a class whose learner wants another width
        than 'scale' and 'auto' give, the Forgetron, multiplies them)."""
        return gamma

    def _prepare_first(self, X):
        self._fix_from_first_data(X)
        return super()._prepare_first(X)

    def _fitted_kernel(self, *, normalized=False) -> Kernel:
        """The :class:`Kernel` with the fixed ``gamma_``."""
        gamma = self.gamma_ if uses_gamma(self.kernel) else "scale"
        return Kernel(self.kernel, gamma=gamma, degree=self.degree, coef0=self.coef0,
                      normalized=normalized)

    @property
    def _jit_kernel(self) -> tuple[int, float, int, float]:
        """``(code, gamma, degree, coef0)`` for the jitted loops (gamma 0.0 for 'linear')."""
        return self._fitted_kernel().jit_params

    def _learn_one_warmup(self) -> int:
        """Examples ``learn_one`` gathers before learning: :data:`WARMUP_ROWS` where the first
        data fix ``gamma_`` or ``mean_``, else 1 (nothing to wait for)."""
        return 1 if FirstDataRule._chunk_invariant.fget(self) else WARMUP_ROWS

    @property
    def _chunk_invariant(self) -> bool:
        """True unless the first chunk fixes something: ``gamma='scale'`` on a kernel with a
        gamma, or a centring mean (``center`` other than False)."""
        if fixed_by_first_data(self.kernel, self.gamma):
            return False
        return not self._centres_input or self.center is False
