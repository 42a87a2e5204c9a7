"""Active learning for imbalanced data on top of LASVM (Ertekin, Huang, Bottou & Giles,
"Learning on the border", CIKM 2007).

* :func:`pool_size`: ``L = ceil(log eta / log(1 - p))`` random candidates per query (59 for
  p = eta = 5%).
* :class:`ActiveSVM`: a LASVM estimator trained by small-pool active selection with early
  stopping (labels known: ``fit`` simulates the oracle).
* :class:`ActiveLearner`: the same over an unlabelled pool (array, sparse, streamed file),
  asking a labelling function or the caller for each label, with a budget.
"""

from .estimator import ActiveSVM, pool_size
from .oracle import ActiveLearner, Query

__all__ = ["ActiveSVM", "ActiveLearner", "Query", "pool_size"]
