"""LASVM and its successors: online kernel SVMs built from SMO direction searches.

* :class:`LASVM` (Bordes, Ertekin, Weston & Bottou, JMLR 2005): PROCESS / REPROCESS /
  finishing, with RANDOM, GRADIENT, ACTIVE and AUTOACTIVE example selection.
* :class:`LASVMG`, :class:`LASVMNC`, :class:`LASVMI`, :class:`FullSVM` (Ertekin, Bottou &
  Giles): b = 0, duality-gap-driven REPROCESS, CLEAN, ramp loss.

The shared binary learner (:class:`streamsvm.lasvm.learner._Learner`) documents the internal
API other algorithms (active learning) build on.
"""

from .lasvm import LASVM
from .variants import LASVMG, LASVMI, LASVMNC, FullSVM

__all__ = ["LASVM", "LASVMG", "LASVMNC", "LASVMI", "FullSVM"]
