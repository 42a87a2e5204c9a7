"""What the budget-family estimators share: the kernel estimator face (``gamma_`` fixed by
:class:`~streamsvm.kernels.FirstDataRule`) and the constraints of their kernel parameters."""

from __future__ import annotations

from ..base import StreamClassifier
from ..kernels import FirstDataRule, kernel_parameter_constraints


class KernelStreamClassifier(FirstDataRule, StreamClassifier):
    """Estimator face shared by the kernel models of the family: ``kernel``, ``gamma``,
    ``degree``, ``coef0`` as in scikit-learn (linear, rbf, poly), ``gamma_`` fixed from the
    first data the model sees (``docs/design.md``)."""

    #: the kernels of the family's compiled loops; subclasses merge this into their table
    _kernel_constraints = kernel_parameter_constraints(("linear", "rbf", "poly"))
