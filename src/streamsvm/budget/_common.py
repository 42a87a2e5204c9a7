"""What the budget-family estimators share: the kernel estimator face (``gamma_`` fixed by
:class:`~streamsvm.kernels.FirstDataRule`) and parameter checks."""

from __future__ import annotations

import numbers

import numpy as np

from ..base import StreamClassifier
from ..kernels import FirstDataRule, validate_kernel_params


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


class KernelStreamClassifier(FirstDataRule, StreamClassifier):
    """Estimator face shared by the kernel models of the family: ``kernel``, ``gamma``,
    ``degree``, ``coef0`` as in scikit-learn (linear, rbf, poly), ``gamma_`` fixed from the
    first data the model sees (``docs/design.md``)."""

    _kernels = ("linear", "rbf", "poly")

    def _check_kernel(self):
        if callable(self.kernel) or self.kernel not in self._kernels:
            raise ValueError(
                f"kernel must be one of {', '.join(map(repr, self._kernels))}; got "
                f"{self.kernel!r}"
            )
        validate_kernel_params(self.kernel, gamma=self.gamma, degree=self.degree,
                               coef0=self.coef0)
