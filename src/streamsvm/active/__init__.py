"""Active learning for imbalanced data on top of LASVM (Ertekin, Huang, Bottou & Giles,
"Learning on the border", CIKM 2007).

* :func:`pool_size`: ``L = ceil(log eta / log(1 - p))`` random candidates per query (59 for
  p = eta = 5%).
* :class:`ActiveSVM`: a LASVM estimator trained by small-pool active selection with early
  stopping (labels known: ``fit`` simulates the oracle).
* :class:`ActiveLearner`: the same over an unlabelled pool (array, sparse, streamed file),
  asking a labelling function or the caller for each label, with a budget.
* :class:`ActiveSampler`: stream-based, River style: ``y_pred, ask = predict_one(x)``, then
  ``learn_one(x, y)`` for the examples asked about.
"""

from .estimator import ActiveSVM, pool_size
from .oracle import ActiveLearner, Query
from .sampler import ActiveSampler

__all__ = ["ActiveSVM", "ActiveLearner", "ActiveSampler", "Query", "pool_size"]
