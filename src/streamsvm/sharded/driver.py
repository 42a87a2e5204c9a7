"""``fit_sharded``: one model from data split over shards, learnt by several workers.

1. Every shard is scanned by a worker (rows, labels, width, sums of its entries); a missing
   or malformed shard stops here with its file name and line, before any model exists.
2. The driver reconciles the shards (:func:`~streamsvm.sharded.shards.reconcile`) and
   fixes what the shards must share — ``classes_``, ``n_features_in_``, ``gamma_``, the
   centring ``mean_`` — by the rule of ``docs/design.md`` with the union of the shards as
   the first data (:func:`~streamsvm.sharded.worker.start_shared`).
3. Every shard continues a copy of that model, streaming (one chunk in memory at a time).
4. The models are combined in shard order — so the result is bit for bit the same whatever
   order the workers finish in: ball merge (StreamSVM), cover union (the Blurred Ball SVM),
   averaging (Pegasos, Perceptron), or
   the Cascade SVM (LASVM, IncrementalSVM) whose feedback passes read the shards again.
"""

from __future__ import annotations

import copy
import time
from numbers import Integral

from ..budget.incremental import IncrementalSVM
from ..lasvm.lasvm import LASVM
from ..utils.progress import say
from .backends import make_backend
from .cascade import cascade
from .combine import MERGEABLE
from .shards import ShardError, reconcile, resolve_shards
from .worker import ScanTask, TrainTask, start_shared

__all__ = ["CASCADED", "fit_sharded", "sharded_method"]

#: the estimators learnt by the Cascade SVM (exact kernel SVMs whose support vectors say all)
CASCADED = (LASVM, IncrementalSVM)


def sharded_method(estimator) -> str:
    """``'ball merge'``, ``'cover union'``, ``'averaging'`` or ``'cascade'``: how
    ``estimator`` is learnt over shards (``ValueError`` for the estimators that have none)."""
    if type(estimator) in CASCADED:
        return "cascade"
    if type(estimator) in MERGEABLE:
        return MERGEABLE[type(estimator)][1]
    names = [c.__name__ for c in (*MERGEABLE, *CASCADED)]
    raise ValueError(f"{type(estimator).__name__} has no sharded training; these do: "
                     f"{', '.join(names)}")


def fit_sharded(estimator, shards, *, backend="local", workers=None, chunk_size=10_000,
                format=None, weighting="rows", mixing_rounds=1, max_passes=10, max_retries=2,
                verbose=0, timings=None):
    """Learn ``estimator`` (unchanged; a fitted copy is returned) from ``shards`` in parallel.

    Parameters
    ----------
    estimator : StreamSVM, BlurredBallSVM, Pegasos, Perceptron, LASVM or IncrementalSVM
    shards : a path or glob, a list of them (globs expanded in sorted order), or a list of
        ``(X, y)`` arrays. Their order is the combining order.
    backend : ``"local"`` (spawned processes, the default), ``"ray"`` (Ray tasks on the
        cluster ``ray.init`` connected to; a local Ray is started otherwise), ``"serial"``
        (this process), or a :class:`~streamsvm.sharded.backends.Backend`.
    workers : processes of the local backend, at least 1 (default None: 2).
    chunk_size : rows a worker reads at a time.
    format : ``'svmlight'``, ``'csv'`` or ``'npz'`` (default: from the files' suffixes).
    weighting : ``'rows'`` or ``'uniform'``: the shards' weights when averaging.
    mixing_rounds : averaging only: rounds of iterative parameter mixing (McDonald, Hall &
        Mann 2010): every round each shard continues the last mixed model; 1 is one-shot.
    max_passes : Cascade only: feedback passes at most (it stops when the root's support
        set is stable).
    max_retries : times a task whose worker died is run again before giving up.
    verbose : 1 writes one line per shard as each phase finishes (``streamsvm.utils.progress``).
    timings : a dict, if given, receives seconds per phase and the Cascade's passes.

    Examples
    --------
    >>> from streamsvm import Pegasos
    >>> from streamsvm.datasets import make_synthetic_a
    >>> X, y = make_synthetic_a(2000, random_state=0)
    >>> parts = [(X[:1000], y[:1000]), (X[1000:], y[1000:])]
    >>> model = fit_sharded(Pegasos(), parts, backend="serial")
    >>> int(model.n_seen_)
    2000
    """
    method = sharded_method(estimator)
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, Integral)
                                or workers < 1):
        raise ValueError(f"workers must be an integer of at least 1 (or None: 2); got "
                         f"{workers!r}")
    if method != "averaging" and mixing_rounds != 1:
        raise ValueError(f"mixing_rounds applies to averaging; {type(estimator).__name__} is "
                         f"learnt by {method}")
    if int(mixing_rounds) < 1 or int(max_passes) < 1 or int(chunk_size) < 1:
        raise ValueError("mixing_rounds, max_passes and chunk_size must be at least 1")
    if weighting not in ("rows", "uniform"):
        raise ValueError(f"weighting must be 'rows' or 'uniform'; got {weighting!r}")
    shards = resolve_shards(shards, format=format)
    timings = {} if timings is None else timings
    runner, owned = make_backend(backend, workers, max_retries)
    try:
        started = time.perf_counter()
        def scanned(i, summary):
            if verbose:
                say(f"scanned shard {i + 1}/{len(shards)} {shards[i].name}: "
                    f"{summary.n_rows:,} rows")

        summaries = runner.run([ScanTask(shard, chunk_size) for shard in shards], scanned)
        layout = reconcile(shards, summaries)
        model = start_shared(estimator, layout)
        timings["scan"] = time.perf_counter() - started
        started = time.perf_counter()
        if method == "cascade":
            if layout.classes.shape[0] != 2:
                raise ShardError(f"the Cascade SVM over shards takes two classes; the shards "
                                 f"hold {layout.classes.shape[0]}")

            def report(n_pass, sizes, objective):
                if verbose:
                    say(f"cascade pass {n_pass}: support sets of the shards {sizes[:-1]}, "
                        f"root {sizes[-1]}, dual objective {objective:.10g}")

            model, passes, converged = cascade(runner, model, shards, layout, chunk_size,
                                               max_passes=max_passes, report=report)
            timings.update(passes=passes, converged=converged)
        else:
            combine = MERGEABLE[type(estimator)][0]
            for n_round in range(int(mixing_rounds)):
                tasks = [TrainTask(shard, layout, copy.deepcopy(model), chunk_size)
                         for shard in shards]
                def learnt(i, result, n_round=n_round):
                    if verbose:
                        say(f"learnt shard {i + 1}/{len(shards)} {shards[i].name}: "
                            f"{result[1]:,} rows" + (f" (round {n_round + 1})"
                                                     if mixing_rounds > 1 else ""))

                results = runner.run(tasks, learnt)
                models = [m for m, _ in results]
                if method == "averaging":
                    model = combine(models, [n for _, n in results], weighting=weighting)
                else:
                    model = combine(models, [n for _, n in results])
        model.n_seen_ = layout.n_rows
        timings["train"] = time.perf_counter() - started
    finally:
        if owned:
            runner.close()
    return model
