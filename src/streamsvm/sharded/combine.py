"""Combining models learnt on disjoint shards, in shard order: ball merge and averaging.

* **Ball merge** (StreamSVM; Rai, Daumé III & Venkatasubramanian, "Streamed Learning:
  One-Pass SVMs", IJCAI 2009, §4.3): the minimum enclosing ball of the shards' balls
  (:func:`streamsvm.meb.merge`). Each shard's ball encloses its points, so the merged ball
  encloses every point. Its radius R is at most 5/2 of the union's exact MEB radius R*:
  a shard's centre is a convex combination of its points, hence within R* of the exact
  centre c*, and its radius is at most 3/2 R* (one pass of Algorithm 1 is a
  3/2-approximation of the shard's MEB, whose radius is at most R*); the ball of radius
  R* + 3/2 R* around c* encloses every shard's ball, so the smallest such ball is no larger.
* **Cover union** (the Blurred Ball SVM; Nathan & Raghvendra, "Accurate Streaming Support
  Vector Machines", 2014): a blurred ball cover is a set of balls whose (1+ε)-expansions
  cover every point seen; the union of the shards' covers (their core points pooled, their
  balls kept in shard order) covers every point of every shard, and Algorithm 2's vote runs
  over all of them. No ball is dropped: the ε/4 rule is relative to a newest ball, which the
  union does not have.
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
from ..meb.blurred import BlurredBallSVM
from ..meb.streamsvm import StreamSVM

__all__ = ["MERGEABLE", "average_models", "merge_balls", "merge_covers"]


def merge_balls(models: list, n_rows: list[int]):
    """The StreamSVM whose ball encloses the shards' balls (module docstring)."""
    model = models[0]
    if model.kernel != "linear" or model.n_balls != 1:
        raise ValueError("StreamSVM over shards merges one linear ball per shard; kernel="
                         f"{model.kernel!r}, n_balls={model.n_balls} have no ball merge")
    return merge(*models)


_POOL = ("pool_X", "pool_y", "pool_sq", "pool_self", "pool_index")


def _union_of_covers(learners, offsets):
    """One blurred-ball learner holding every ball of ``learners`` (finished), pools stacked;
    ``offsets`` shift each shard's stream positions."""
    out = copy.deepcopy(learners[0])
    sizes = [lr.n_pool for lr in learners]
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    total = int(starts[-1])
    for name in _POOL:
        parts = [getattr(lr, name)[: lr.n_pool] for lr in learners]
        array = np.concatenate(parts) if total else getattr(out, name)[:0]
        if name == "pool_index":
            array = np.concatenate([p + o for p, o in zip(parts, offsets, strict=True)])
        setattr(out, name, np.ascontiguousarray(array))
    X, y = out.pool_X, out.pool_y
    gram = out.augmented_cross(X, y, X, y)  # distinct points: e-parts orthogonal ...
    for lr, a in zip(learners, starts[:-1], strict=True):  # ... except a point with itself
        gram[a : a + lr.n_pool, a : a + lr.n_pool] = lr.pool_K[: lr.n_pool, : lr.n_pool]
    out.pool_K = gram
    out.n_pool = total
    ptr, slots, coef = [0], [], []
    for lr, a in zip(learners, starts[:-1], strict=True):
        nnz = int(lr.ball_ptr[lr.n_balls])
        slots.append(lr.ball_slot[:nnz] + a)
        coef.append(lr.ball_coef[:nnz])
        ptr.extend(ptr[-1] + lr.ball_ptr[1 : lr.n_balls + 1])
    out.ball_ptr = np.asarray(ptr, dtype=np.int64)
    out.ball_slot = np.concatenate(slots).astype(np.int64)
    out.ball_coef = np.concatenate(coef)
    for name in ("radius", "cnorm2", "bias", "W"):
        setattr(out, name, np.concatenate([getattr(lr, name)[: lr.n_balls] for lr in learners]))
    out.n_balls = sum(lr.n_balls for lr in learners)
    for counter in ("n_seen", "n_updates", "n_dropped", "n_kernel_evals"):
        setattr(out, counter, sum(getattr(lr, counter) for lr in learners))
    out.max_balls = max(max(lr.max_balls for lr in learners), out.n_balls)
    out.max_core = max(max(lr.max_core for lr in learners), out.n_pool)
    out._union = None
    out._check_restored()
    return out


def merge_covers(models: list, n_rows: list[int]):
    """The Blurred Ball SVM whose cover is the union of the shards' covers (module
    docstring); every model finished first (its lookahead buffer enclosed)."""
    models = [copy.deepcopy(m).finish() for m in models]
    out = copy.deepcopy(models[0])
    offsets = np.concatenate([[0], np.cumsum([m.n_seen_ for m in models])[:-1]])
    out.learners_ = [
        _union_of_covers([m.learners_[k] for m in models], offsets)
        for k in range(len(out.learners_))
    ]
    out.n_seen_ = sum(m.n_seen_ for m in models)
    return out


def _set_weights(learner, w: np.ndarray, b: float) -> None:
    if hasattr(learner, "set_weights"):  # Pegasos: w = scale * v, the bias inside v
        learner.set_weights(w, b)
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
    BlurredBallSVM: (merge_covers, "cover union"),
    Pegasos: (average_models, "averaging"),
    Perceptron: (average_models, "averaging"),
}
