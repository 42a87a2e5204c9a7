"""Minimum-enclosing-ball SVMs: StreamSVM (Algorithms 1 and 2) and merging of their balls."""

from .merge import merge
from .streamsvm import StreamSVM

__all__ = ["StreamSVM", "merge"]
