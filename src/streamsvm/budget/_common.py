"""What the budget-family estimators share: kernel parameters (validated, gamma resolved
from the first data), dense rows for the jitted loops, parameter checks."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from ..base import StreamClassifier
from ..kernels import KERNEL_CODES, Kernel, validate_kernel_params

_DENSE_BLOCK = 1024


def dense_blocks(X, *arrays):
    """``(rows, *arrays)`` as dense C-contiguous float64 blocks (CSR densified in blocks)."""
    if not sp.issparse(X):
        yield (np.ascontiguousarray(X, dtype=np.float64), *arrays)
        return
    for start in range(0, X.shape[0], _DENSE_BLOCK):
        stop = start + _DENSE_BLOCK
        yield (X[start:stop].toarray(), *(a[start:stop] for a in arrays))


def check_positive(name, value, *, integer=False, allow_zero=False):
    if integer:
        ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
        ok = ok and (value >= 0 if allow_zero else value >= 1)
        if not ok:
            raise ValueError(f"{name} must be an integer >= {0 if allow_zero else 1}; "
                             f"got {value!r}")
        return
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value)
    ok = ok and (value >= 0 if allow_zero else value > 0)
    if not ok:
        raise ValueError(f"{name} must be a {'non-negative' if allow_zero else 'positive'} "
                         f"finite number; got {value!r}")


class KernelStreamClassifier(StreamClassifier):
    """Estimator face shared by the kernel models of the family: ``kernel``, ``gamma``,
    ``degree``, ``coef0`` as in scikit-learn (linear, rbf, poly), ``gamma_`` resolved from
    the first data the model sees."""

    _kernels = ("linear", "rbf", "poly")

    def _check_kernel(self):
        if callable(self.kernel) or self.kernel not in self._kernels:
            raise ValueError(
                f"kernel must be one of {', '.join(map(repr, self._kernels))}; got "
                f"{self.kernel!r}"
            )
        validate_kernel_params(self.kernel, gamma=self.gamma, degree=self.degree,
                               coef0=self.coef0)

    def _prepare_first(self, X):
        X = self._prepare(X)
        spec = Kernel(self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0)
        self.gamma_ = float(spec.resolve(X).gamma_) if self.kernel != "linear" else 0.0
        return X

    @property
    def _jit_kernel(self):
        return (KERNEL_CODES[self.kernel], float(self.gamma_), int(self.degree),
                float(self.coef0))

    @property
    def _chunk_invariant(self) -> bool:
        """Chunking changes nothing unless gamma is resolved from the first chunk."""
        return self.kernel == "linear" or not isinstance(self.gamma, str) or self.gamma == "auto"
