"""Mergeable StreamSVM models: the ball that encloses the balls of several models.

Each model's ball encloses the augmented points of its own part of the stream. The parts
are disjoint, so the ``e_n`` parts of the centres are mutually orthogonal and the centres'
Gram matrix is ``G_ij = w_i·w_j`` off the diagonal and ``||w_i||^2 + xi2_i`` on it. The
minimum enclosing ball of the balls then encloses every point of every part: a stream split
over partitions or machines can be learnt in parallel and combined.
"""

from __future__ import annotations

import copy

import numpy as np

from ..qp import meb_of_balls_and_points
from . import _core
from .streamsvm import StreamSVM

__all__ = ["merge"]


def _same_preprocessing(models):
    first = models[0]
    for other in models[1:]:
        if other.get_params() != first.get_params():
            raise ValueError(
                "merge needs models with the same parameters; "
                f"got {first.get_params()} and {other.get_params()}"
            )
        if other.n_features_in_ != first.n_features_in_:
            raise ValueError("merge needs models of the same number of features")
        if (first.mean_ is None) != (other.mean_ is None) or (
            first.mean_ is not None and not np.array_equal(first.mean_, other.mean_)
        ):
            raise ValueError(
                "the models were centred with different means, so their balls live in different "
                "spaces; train the parts with center=False (on data centred beforehand)"
            )
        if not np.array_equal(np.asarray(first.classes_), np.asarray(other.classes_)):
            raise ValueError(
                f"merge needs the same classes; got {first.classes_} and {other.classes_}"
            )


def merge(*models: StreamSVM, tol: float = 1e-10) -> StreamSVM:
    """The StreamSVM whose ball is the minimum enclosing ball of the given models' balls.

    The models must have learnt disjoint parts of one stream with the same parameters and
    preprocessing (e.g. ``center=False``). Pending lookahead buffers are enclosed first (on
    copies; the inputs are not changed). The result can go on learning.

    Examples
    --------
    >>> import numpy as np
    >>> from streamsvm import StreamSVM
    >>> from streamsvm.meb import merge
    >>> from streamsvm.datasets import make_synthetic_a
    >>> X, y = make_synthetic_a(2000, random_state=0)
    >>> left = StreamSVM(center=False).fit(X[:1000], y[:1000])
    >>> right = StreamSVM(center=False).fit(X[1000:], y[1000:])
    >>> both = merge(left, right)
    >>> bool(both.radius_ >= max(left.radius_, right.radius_))
    True
    """
    if not models:
        raise ValueError("merge needs at least one model")
    for model in models:
        if not isinstance(model, StreamSVM):
            raise TypeError(f"merge takes StreamSVM models; got {type(model).__name__}")
        model._check_fitted()
    if any(len(m.classes_) < 2 for m in models):
        raise ValueError("merge needs models that have seen both classes")
    _same_preprocessing(models)
    models = [copy.deepcopy(m).finish() for m in models]
    merged = copy.deepcopy(models[0])
    for k, learner in enumerate(merged.learners_):
        target = merged._targets[k]
        sign = merged._signs[k]
        centres, xi2, radii, n_core, n_seen = [], [], [], 0, 0
        for model in models:
            j = model._targets.index(target)
            other = model.learners_[j]
            # a learner trained with the opposite sign is the mirrored ball: centre [-w; u]
            flip = model._signs[j] * sign
            centres.append(flip * other.w)
            xi2.append(other.state[_core.XI2])
            radii.append(other.state[_core.R_])
            n_core += int(other.state[_core.N_CORE])
            n_seen += other.n_seen
        centres = np.asarray(centres)
        gram = centres @ centres.T + np.diag(xi2)
        ball = meb_of_balls_and_points(gram, np.asarray(radii), tol=tol)
        learner.w = ball.weights @ centres
        learner.state[_core.XI2] = float(np.sum(ball.weights**2 * np.asarray(xi2)))
        learner.state[_core.WNORM2] = float(learner.w @ learner.w)
        learner.state[_core.R_] = ball.radius
        learner.state[_core.N_CORE] = n_core
        learner.n_seen = n_seen
    merged.n_seen_ = sum(m.n_seen_ for m in models)
    return merged
