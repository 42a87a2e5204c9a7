"""Budget family: the exact incremental/decremental SVM (Cauwenberghs & Poggio), the Twin
Vector Machine on a budget (Wang & Vucetic), and the budget baselines of the TVM paper."""

from .incremental import IncrementalSVM
from .tvm import TwinVectorMachine

__all__ = ["IncrementalSVM", "TwinVectorMachine"]
