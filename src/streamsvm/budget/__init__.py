"""Budget family: the exact incremental/decremental SVM (Cauwenberghs & Poggio), the Twin
Vector Machine on a budget (Wang & Vucetic), and the budget baselines of the TVM paper."""

from .baselines import BudgetPerceptron, Forgetron, RandomBudgetSVM
from .incremental import IncrementalSVM
from .tvm import TwinVectorMachine

__all__ = [
    "IncrementalSVM",
    "TwinVectorMachine",
    "RandomBudgetSVM",
    "Forgetron",
    "BudgetPerceptron",
]
