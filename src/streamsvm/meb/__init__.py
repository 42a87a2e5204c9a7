"""Minimum-enclosing-ball SVMs: StreamSVM (Algorithms 1 and 2) and merging of their balls;
the Blurred Ball SVM (a blurred ball cover with a non-convex classifier)."""

from .blurred import BlurredBallSVM
from .merge import merge
from .streamsvm import StreamSVM

__all__ = ["StreamSVM", "BlurredBallSVM", "merge"]
