"""What the budget-family estimators share: the kernel estimator face (``gamma_`` fixed by
:class:`~streamsvm.kernels.FirstDataRule`) and the constraints of their kernel parameters."""

from __future__ import annotations

from ..base import StreamClassifier
from ..base.support import SupportVectorsMixin
from ..kernels import FirstDataRule, kernel_parameter_constraints
from . import _state as state


class KernelStreamClassifier(SupportVectorsMixin, FirstDataRule, StreamClassifier):
    """Estimator face shared by the kernel models of the family: ``kernel``, ``gamma``,
    ``degree``, ``coef0`` as in scikit-learn (linear, rbf, poly), ``gamma_`` fixed from the
    first data the model sees (``docs/design.md``)."""

    # support_vectors_, dual_coef_, intercept_, n_support_, support_ (streamsvm.base.support)
    def _learner_expansion(self, learner):
        """The exact SVM the learner keeps (its ``machine``): slots with ``alpha > 0``; the
        ids of the slots are the stream positions for the models that say so."""
        machine = learner.machine
        sv = machine.support()
        m = machine.m
        return m[state.M_X][sv].copy(), m[state.M_Y][sv] * m[state.M_ALPHA][sv], machine.b, \
            m[state.M_IDS][sv].copy()

    #: the kernels of the family's compiled loops; subclasses merge this into their table
    _kernel_constraints = kernel_parameter_constraints(("linear", "rbf", "poly"))
