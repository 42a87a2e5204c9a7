"""One-pass linear baselines used by the papers' comparisons."""

from .pegasos import Pegasos
from .perceptron import Perceptron

__all__ = ["Perceptron", "Pegasos"]
