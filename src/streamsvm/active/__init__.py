"""Active learning for imbalanced data on top of LASVM (Ertekin, Huang, Bottou & Giles,
"Learning on the border", CIKM 2007).

* :func:`pool_size`: ``L = ceil(log eta / log(1 - p))`` random candidates per query (59 for
  p = eta = 5%).
* :class:`ActiveSVM`: a LASVM estimator trained by small-pool active selection with early
  stopping (labels known: ``fit`` simulates the oracle).
"""

from .estimator import ActiveSVM, pool_size

__all__ = ["ActiveSVM", "pool_size"]
