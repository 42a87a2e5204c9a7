"""What the budget-family estimators share: kernel parameters (their constraints, gamma
resolved from the first data) and dense rows for the jitted loops."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..base import StreamClassifier
from ..kernels import KERNEL_CODES, Kernel, kernel_parameter_constraints

_DENSE_BLOCK = 1024


def dense_blocks(X, *arrays):
    """``(rows, *arrays)`` as dense C-contiguous float64 blocks (CSR densified in blocks)."""
    if not sp.issparse(X):
        yield (np.ascontiguousarray(X, dtype=np.float64), *arrays)
        return
    for start in range(0, X.shape[0], _DENSE_BLOCK):
        stop = start + _DENSE_BLOCK
        yield (X[start:stop].toarray(), *(a[start:stop] for a in arrays))


class KernelStreamClassifier(StreamClassifier):
    """Estimator face shared by the kernel models of the family: ``kernel``, ``gamma``,
    ``degree``, ``coef0`` as in scikit-learn (linear, rbf, poly), ``gamma_`` resolved from
    the first data the model sees."""

    #: the kernels of the family's compiled loops; subclasses merge this into their table
    _kernel_constraints = kernel_parameter_constraints(("linear", "rbf", "poly"))

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
