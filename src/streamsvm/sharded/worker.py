"""What a worker runs on one shard: a scan, a streaming pass of a model, a Cascade node.

Each task is a module-level function of one picklable argument, so that spawned processes
and Ray workers import it by name. Data problems are raised as :class:`ShardError` with a
one-argument message (it pickles back to the driver unchanged); a worker that dies instead
(killed, out of memory) is the backend's to retry. ``kill_after_chunks`` makes a test
worker die mid-shard (``os._exit``), as a killed machine would.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

from ..kernels import FirstDataRule, resolve_gamma_from_sums, uses_gamma
from ..utils.params import check_params
from .rows import ROWS_PER_SHARD, row_ids, stack_rows, unique_rows
from .shards import Layout, Shard, ShardError, read_shard, scan_shard

__all__ = ["ScanTask", "TrainTask", "NodeTask", "run_task", "start_shared"]

#: exit status of a worker killed on purpose by a test
KILLED_STATUS = 17
#: a row off the support set is optimal when its margin y f(x) >= 1 - KKT_TOL (libsvm's tol)
KKT_TOL = 1e-3


def start_shared(estimator, layout: Layout):
    """A fresh clone of ``estimator`` started as if its first data were the union of all
    shards (``docs/design.md``, "The gamma and centring rule"): ``n_features_in_``,
    ``classes_`` (declared), ``gamma_`` from the union's entry sums and the centring
    ``mean_`` from its column sums. Its learners are built; every shard then continues it."""
    model = clone(estimator)
    check_params(model)
    model._reset()
    model._start(layout.n_features)
    if isinstance(model, FirstDataRule):
        model.gamma_ = (model._scaled_gamma(resolve_gamma_from_sums(
                            model.gamma, layout.n_rows, layout.n_features, layout.entry_sum,
                            layout.entry_sqsum))
                        if uses_gamma(model.kernel) else None)
        if model._centres_input:
            centre = model.center is True or (model.center == "auto" and not layout.sparse)
            model.mean_ = layout.column_sums / layout.n_rows if centre else None
    if layout.classes.shape[0] < 2:
        raise ShardError(f"the shards hold one class only ({layout.classes.tolist()}); a "
                         "classifier needs at least 2")
    model._classes_declared = True
    model._grow_classes(layout.classes)
    return model


@dataclass
class ScanTask:
    shard: Shard
    chunk_size: int
    attempt: int = 0
    kill_after_chunks: int | None = None


@dataclass
class TrainTask:
    """Continue ``model`` over ``shard`` (after ``head``, rows learnt first), then finish.
    ``support_only``: return the support rows only, ``polish`` (a :class:`NodeTask`
    estimator) first refitting them with ``head`` and the rows where ``root`` (the last
    root model) breaks the optimality conditions (a Cascade's first layer)."""

    shard: Shard
    layout: Layout
    model: object
    chunk_size: int
    head: tuple | None = None
    support_only: bool = False
    polish: object = None
    root: object = None
    attempt: int = 0
    kill_after_chunks: int | None = None


@dataclass
class NodeTask:
    """A Cascade node: ``estimator.fit`` (all its epochs) on in-memory rows (with their
    ids), then ``gamma`` given back to the user's value (``gamma_`` stays the shared one)."""

    estimator: object
    X: object
    y: np.ndarray
    ids: np.ndarray
    name: str
    gamma: object = None
    attempt: int = 0
    kill_after_chunks: int | None = None


def _maybe_die(task, chunks_done: int) -> None:
    if task.kill_after_chunks is not None and chunks_done >= task.kill_after_chunks:
        os._exit(KILLED_STATUS)


def support_rows(model, ids):
    """``(X, y, ids)``: the support vectors of a two-class kernel expansion with their labels
    (``classes_[1]`` where the coefficient is positive) and ids (``ids`` of the rows it
    learnt, in its stream order: ``support_`` indexes them), in a fixed shuffled order:
    ``support_vectors_`` lists one class first, and an online learner (LASVM) fed a
    stream sorted by class converges slowly."""
    rows = model.support_vectors_
    coef = model.dual_coef_[0]
    y = np.where(coef > 0, model.classes_[1], model.classes_[0])
    order = np.random.default_rng(coef.shape[0]).permutation(coef.shape[0])
    return rows[order], y[order], np.asarray(ids)[model.support_][order]


def _scan(task: ScanTask):
    _maybe_die(task, 0)
    return scan_shard(task.shard, task.chunk_size)


def _train(task: TrainTask):
    model = copy.deepcopy(task.model)  # Ray hands arrays over read-only
    n_rows = 0
    head_ids = np.empty(0, dtype=np.int64)
    skipped = []  # shard rows also in the head: learnt once (a set union)
    violators = []
    cascade = task.support_only or task.head is not None or task.root is not None  # row ids
    # a Cascade node that meets one class only (a shard of one class, as label-sorted shards
    # are, and no feedback yet) has no support vectors: its rows go up whole, as a node of
    # the tree does with rows of one class (_node), so that the node above learns them
    one_class = [] if task.support_only else None
    labels_seen = np.empty(0)
    if task.head is not None and task.head[1].shape[0]:
        model.partial_fit(task.head[0], task.head[1])
        head_ids = task.head[2]
        labels_seen = np.unique(task.head[1])
        if labels_seen.shape[0] >= 2:  # the fed-back rows hold both classes
            one_class = None
    for done, (X, y) in enumerate(read_shard(task.shard, task.layout, task.chunk_size)):
        _maybe_die(task, done)
        y = np.asarray(y)
        n_chunk = y.shape[0]
        ids = row_ids(task.shard.index, n_rows, n_chunk) if cascade else None
        if head_ids.shape[0]:
            known = np.isin(ids, head_ids)
            if known.any():
                skipped.append(np.flatnonzero(known) + n_rows)
                X, y, ids = X[~known], y[~known], ids[~known]
        if one_class is not None and labels_seen.shape[0] < 2:
            labels_seen = np.unique(np.concatenate([labels_seen, np.unique(y)]))
            one_class = one_class + [(X, y, ids)] if labels_seen.shape[0] < 2 else None
        if y.shape[0]:
            if task.root is not None:  # margin y f(x) < 1 off the support set: not optimal
                signs = np.where(y == task.root.classes_[1], 1.0, -1.0)
                wrong = signs * task.root.decision_function(X) < 1.0 - KKT_TOL
                if wrong.any():
                    violators.append((X[wrong], y[wrong], ids[wrong]))
            try:
                model.partial_fit(X, y)
            except ValueError as exc:
                raise ShardError(f"shard {task.shard.name}, rows {n_rows + 1}-"
                                 f"{n_rows + X.shape[0]}: {exc}") from None
        n_rows += n_chunk
    model.finish()
    if not task.support_only:
        return model, n_rows
    if one_class is not None:  # the head's rows and the shard's, in stream order
        parts = [task.head] if head_ids.shape[0] else []
        return stack_rows(parts + one_class), n_rows, sum(v[1].shape[0] for v in violators)
    rows = support_rows(model, _learnt_ids(task.shard.index, head_ids, skipped,
                                           model.support_))
    n_violators = sum(v[1].shape[0] for v in violators)
    if task.polish is not None:  # the one pass is approximate: refit its support ∪ head
        parts = [task.head] if head_ids.shape[0] else []
        rows = unique_rows(*stack_rows(parts + [rows] + violators))
        _, rows, _ = _node(NodeTask(task.polish, *rows, name=f"shard {task.shard.name}"))
    return rows, n_rows, n_violators


def _learnt_ids(shard_index, head_ids, skipped, positions):
    """Ids of the rows a first-layer model learnt, indexed by its stream positions (only
    those in ``positions`` are right): the head's, then the shard's rows less ``skipped``."""
    h = head_ids.shape[0]
    out = np.empty(int(positions.max()) + 1 if positions.shape[0] else 0, dtype=np.int64)
    out[:h] = head_ids[: out.shape[0]]
    if out.shape[0] > h:
        kept = np.arange(out.shape[0] - h)  # the k-th kept row of the shard ...
        gaps = np.concatenate(skipped) if skipped else np.empty(0, dtype=np.int64)
        shifted = gaps - np.arange(gaps.shape[0])  # ... is row k + #(gaps at or before it)
        out[h:] = shard_index * ROWS_PER_SHARD + kept + np.searchsorted(shifted, kept,
                                                                         side="right")
    return out


def dual_objective(model) -> float:
    """``sum_i alpha_i - 1/2 sum_ij c_i c_j K(x_i, x_j)`` (``c_i = y_i alpha_i``) of a
    two-class kernel expansion: the objective the Cascade's root increases pass by pass."""
    coef = model.dual_coef_[0]
    if coef.shape[0] == 0:
        return 0.0
    gram = model._fitted_kernel().matrix(model.support_vectors_)
    return float(np.abs(coef).sum() - 0.5 * coef @ gram @ coef)


def _node(task: NodeTask):
    _maybe_die(task, 0)
    if np.unique(task.y).shape[0] < 2:  # nothing to learn: the rows go up as they are
        return None, (task.X, task.y, task.ids), 0.0
    model = task.estimator.fit(task.X, task.y)
    if task.gamma is not None:
        model.set_params(gamma=task.gamma)
    return model, support_rows(model, task.ids), dual_objective(model)


def run_task(task):
    """Run one task (the function every backend calls); data errors as :class:`ShardError`.

    BLAS is held at one thread while it runs (threadpoolctl): the parallelism of sharded
    training is the workers, one per core, and BLAS pools of their own in every worker
    would fight over the same cores — on 2 cores, 2 workers each waking a 2-thread OpenBLAS
    pool made a chunk's ``np.dot`` cost milliseconds instead of microseconds. One thread
    also makes the bits of NumPy's products (OpenBLAS splits its sums by thread) the same
    whatever the backend, the count of workers or the cores of the machine."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _run_task(task)


def _run_task(task):
    try:
        if isinstance(task, ScanTask):
            return _scan(task)
        if isinstance(task, TrainTask):
            return _train(task)
        return _node(task)
    except ShardError:
        raise
    except Exception as exc:  # a message that pickles back whatever the exception's class
        raise ShardError(f"{_task_name(task)}: {type(exc).__name__}: {exc}") from None


def _task_name(task) -> str:
    return task.name if isinstance(task, NodeTask) else f"shard {task.shard.name}"
