"""The Cascade SVM over shards (Graf, Cosatto, Bottou, Durdanovic & Vapnik, "Parallel Support
Vector Machines: The Cascade SVM", NIPS 2004) for the exact kernel SVMs (LASVM,
IncrementalSVM), two classes.

One pass (Figure 1 of the paper): every shard is learnt by a worker, streaming, after the
support vectors fed back from the last pass's root (none in the first pass); only the
support vectors of each shard go on. Pairs of support sets are merged and learnt again, in a
binary tree (shard order; an odd set goes up unchanged), until one model, the root, is left.

Passes repeat, the root's support vectors fed back to every shard, until one of:

* no row of any shard breaks the root's optimality conditions (margin ``y f(x) >= 1 -
  KKT_TOL`` off the support set): the root is the SVM of the union;
* the root's support set is the same as in the pass before, or its dual objective grew by
  at most ``tol`` (relative). With exact node solvers the objective grows from pass to pass
  (§2: a first-layer node's problem contains the root's support set, so its optimum is at
  least the root's, and the next root's problem contains that node's support set);
* ``max_passes``.

The model returned is the root of largest dual objective. Three details make the nodes
exact where LASVM's one pass is not: a first-layer node refits (with all its epochs) its
support rows, the fed-back rows and the rows of its shard that break the last root's
conditions; a first-layer node that meets one class only (a shard of one class, as
label-sorted shards are, before any feedback) has no support vectors and hands all its rows
up, as a node of the tree does with rows of one class; and a row met twice (a fed-back row
in its own shard, or in two support sets being merged) is learnt once — the union of sets,
not a multiset, as the dual problem of the union needs; rows are told apart by their shard
and position (:mod:`streamsvm.sharded.rows`), so equal rows of the data stay examples of
their own. The Cascade is as exact as its node solver:
LASVM with ``epochs >= 2`` and a small ``tau`` matches ``SVC``; one epoch is LASVM's own
approximation, node by node.
"""

from __future__ import annotations

import copy

import numpy as np
from sklearn.base import clone

from ..budget.incremental import IncrementalSVM
from .rows import as_layout, stack_rows, unique_rows
from .shards import ShardError
from .worker import NodeTask, TrainTask

__all__ = ["cascade"]


def _node_estimator(primed):
    """An unfitted copy of the model whose ``gamma`` is the shared ``gamma_`` (so that its
    ``fit`` on a node's rows keeps the value fixed from the union of the shards)."""
    estimator = clone(primed)
    if getattr(primed, "gamma_", None) is not None:
        estimator.set_params(gamma=primed.gamma_)
    return estimator


def _node_rows(pair):
    """The rows of a node: its two sets, a row met in both once. A set of one class (a
    one-class shard's rows, handed up whole) would put the node's rows in label order,
    which an online learner (LASVM) learns badly: then the rows are shuffled, in a fixed
    order (as :func:`~streamsvm.sharded.worker.support_rows` orders a support set)."""
    X, y, ids = unique_rows(*stack_rows(pair))
    if any(np.unique(np.asarray(part[1])).shape[0] < 2 for part in pair):
        order = np.random.default_rng(y.shape[0]).permutation(y.shape[0])
        X, y, ids = X[order], y[order], ids[order]
    return X, y, ids


def _tree(backend, primed, sets, n_pass):
    """``(root model, its support set, its dual objective)``, merging ``sets`` pairwise
    layer by layer."""
    layer = 1
    while True:
        layer += 1
        pairs = [sets[i : i + 2] for i in range(0, len(sets), 2)]
        tasks = [NodeTask(_node_estimator(primed), *_node_rows(pair),
                          name=f"cascade pass {n_pass}, layer {layer}, node {k + 1}",
                          gamma=primed.gamma)
                 for k, pair in enumerate(pairs)]
        results = backend.run(tasks)
        if len(results) == 1:
            return results[0]
        sets = [support for _, support, _ in results]


def cascade(backend, primed, shards, layout, chunk_size: int, *, max_passes: int = 10,
            tol: float = 1e-7, report=None):
    """``(root model, passes run, converged)``: the Cascade SVM (module docstring) over
    ``shards``, every node a copy of the started model ``primed``. ``report(pass, sizes,
    objective)`` is told the support-set sizes of each pass (first layer, then the root)."""
    feedback = (as_layout(np.zeros((0, layout.n_features)), layout.sparse),
                np.empty(0, dtype=layout.classes.dtype), np.empty(0, dtype=np.int64))
    previous, best = None, -np.inf
    root = best_root = None
    # one pass of LASVM is approximate: its support rows and the fed-back ones are refit
    # (all epochs), so that each first-layer node solves its problem and the root's
    # objective cannot decrease; the incremental SVM is exact as it streams
    polish = None if isinstance(primed, IncrementalSVM) else _node_estimator(primed)
    for n_pass in range(1, max_passes + 1):
        tasks = [TrainTask(shard, layout, copy.deepcopy(primed), chunk_size, head=feedback,
                           support_only=True, polish=polish, root=root) for shard in shards]
        results = backend.run(tasks)
        sets = [(as_layout(X, layout.sparse), y, ids) for (X, y, ids), _, _ in results]
        n_violators = sum(v for _, _, v in results)
        if root is not None and n_violators == 0:  # the root is optimal on every row
            return best_root, n_pass, True
        root, (X_root, y_root, ids_root), objective = _tree(backend, primed, sets, n_pass)
        if root is None:  # a root of one class: cannot happen when the union has two
            raise ShardError(f"cascade pass {n_pass}: the root's rows hold one class only")
        if objective > best:
            best_root = root
        X_root = as_layout(X_root, layout.sparse)
        keys = np.sort(ids_root)
        if report is not None:
            report(n_pass, [s[1].shape[0] for s in sets] + [y_root.shape[0]], objective)
        stable = previous is not None and keys.shape == previous.shape and np.array_equal(
            keys, previous)
        if stable or objective - best <= tol * abs(objective):
            return best_root, n_pass, True
        previous, feedback, best = keys, (X_root, y_root, ids_root), max(best, objective)
    return best_root, max_passes, False
