"""Combining models learnt on disjoint shards, in shard order: ball merge and averaging.

* **Ball merge** (StreamSVM; Rai, Daumé III & Venkatasubramanian, "Streamed Learning:
  One-Pass SVMs", IJCAI 2009, §4.3): the minimum enclosing ball of the shards' balls
  (:func:`streamsvm.meb.merge`). Each shard's ball encloses its points, so the merged ball
  encloses every point. Its radius R is at most 5/2 of the union's exact MEB radius R*:
  a shard's centre is a convex combination of its points, hence within R* of the exact
  centre c*, and its radius is at most 3/2 R* (one pass of Algorithm 1 is a
  3/2-approximation of the shard's MEB, whose radius is at most R*); the ball of radius
  R* + 3/2 R* around c* encloses every shard's ball, so the smallest such ball is no larger.
* **Averaging** (Pegasos, the Perceptron): the mean of the shards' ``(w, b)``, uniform or
  weighted by the shards' rows (parameter mixing; McDonald, Hall & Mann, "Distributed
  Training Strategies for the Structured Perceptron", NAACL 2010, §3; iterative mixing runs
  the shards again from the mixed model, see :func:`streamsvm.sharded.fit_sharded`).
"""

from __future__ import annotations

import copy

import numpy as np

from ..linear.pegasos import Pegasos
from ..linear.perceptron import Perceptron
from ..meb import merge
from ..meb.streamsvm import StreamSVM

__all__ = ["MERGEABLE", "average_models", "merge_balls"]


def merge_balls(models: list, n_rows: list[int]):
    """The StreamSVM whose ball encloses the shards' balls (module docstring)."""
    model = models[0]
    if model.kernel != "linear" or model.n_balls != 1:
        raise ValueError("StreamSVM over shards merges one linear ball per shard; kernel="
                         f"{model.kernel!r}, n_balls={model.n_balls} have no ball merge")
    return merge(*models)


def _set_weights(learner, w: np.ndarray, b: float) -> None:
    if hasattr(learner, "v"):  # Pegasos: w = scale * v, no bias
        learner.v = w.copy()
        learner.scale = 1.0
        learner.sqnorm_v = float(w @ w)
    else:
        learner.coef = w.copy()
        learner.intercept = float(b)


def average_models(models: list, n_rows: list[int], *, weighting: str = "rows"):
    """The model whose every learner has the mean ``(w, b)`` of the shards' learners,
    uniform (``weighting="uniform"``) or weighted by the rows of each shard (``"rows"``).
    Counters (updates, Pegasos's step count ``t``) are summed: the result can go on
    learning as a model that has seen every shard."""
    if weighting not in ("rows", "uniform"):
        raise ValueError(f"weighting must be 'rows' or 'uniform'; got {weighting!r}")
    weights = np.asarray(n_rows if weighting == "rows" else [1] * len(models), dtype=np.float64)
    weights = weights / weights.sum()
    out = copy.deepcopy(models[0])
    for k, learner in enumerate(out.learners_):
        parts = [m.learners_[k].weights() for m in models]
        w = sum(a * np.asarray(p[0]) for a, p in zip(weights, parts, strict=True))
        b = float(sum(a * p[1] for a, p in zip(weights, parts, strict=True)))
        _set_weights(learner, np.asarray(w, dtype=np.float64), b)
        for counter in ("t", "n_updates"):
            if hasattr(learner, counter):
                setattr(learner, counter, sum(getattr(m.learners_[k], counter) for m in models))
        learner.n_seen = sum(m.learners_[k].n_seen for m in models)
    out.n_seen_ = sum(m.n_seen_ for m in models)
    return out


#: estimator class -> (what combines its shard models, its name for messages)
MERGEABLE = {
    StreamSVM: (merge_balls, "ball merge"),
    Pegasos: (average_models, "averaging"),
    Perceptron: (average_models, "averaging"),
}
