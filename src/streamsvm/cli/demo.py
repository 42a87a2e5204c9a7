"""``streamsvm demo``: every estimator of the library on one stream, beside scikit-learn."""

from __future__ import annotations

import functools
import time
from contextlib import nullcontext

import numpy as np

from ..datasets import concat_chunks, iter_arrays, open_stream
from ..utils.progress import Heartbeat, Progress, say
from .report import DemoRow


def demo_data(data: str, n_train: int, n_test: int, seed: int):
    """``(X_train, y_train, X_test, y_test)`` from a built-in dataset or a generator.

    A dataset gives the first ``n_train`` / ``n_test`` rows of its train and test parts; a
    generator draws its test part with another seed (see :func:`~streamsvm.datasets.open_stream`).
    """
    train = open_stream(data, subset="train", n_samples=n_train, random_state=seed)
    if train.kind not in ("dataset", "generator"):
        train.close()
        raise ValueError(f"demo needs a built-in dataset or a generator (it holds out their "
                         f"test part); got {data!r}")
    X_train, y_train = concat_chunks(train)
    X_test, y_test = concat_chunks(open_stream(data, subset="test", n_samples=n_test,
                                               random_state=seed))
    return X_train, y_train, X_test, y_test


#: rows of the first use that precedes the timed training of each estimator
FIRST_USE_ROWS = 64


def use_once(model, X, y, classes, X_test) -> float:
    """Seconds to use a copy of ``model`` once as the demo uses it (``partial_fit`` of
    :data:`FIRST_USE_ROWS` rows, both classes among them, ``finish``, ``predict``), on a
    quiet copy: the first use in a process compiles the numba code, or loads it from the
    cache, and the timed run after it measures learning alone."""
    from sklearn.base import clone

    copy = clone(model)
    if "verbose" in copy.get_params():
        copy.set_params(verbose=0)
    # the first rows of each class in turn, so that every class is in the first chunk
    order = np.concatenate([np.flatnonzero(y == c)[:FIRST_USE_ROWS // len(classes)]
                            for c in classes])
    start = time.perf_counter()
    copy.partial_fit(X[order], y[order], classes=classes)
    if hasattr(copy, "finish"):
        copy.finish()
    copy.predict(X_test[:8])
    return time.perf_counter() - start


@functools.lru_cache(maxsize=1)
def _demo_data_once(data: str, n_train: int, n_test: int, seed: int):
    return demo_data(data, n_train, n_test, seed)


def _first_use_in_worker(task) -> tuple[float | None, str | None]:
    """A worker process's :func:`use_once` of one registered estimator with its demo
    parameters on the demo's data (``task``: the name and the data's arguments); its seconds,
    or its error (the main process meets the error again and reports it)."""
    from ..registry import get_estimator

    name, data, n_train, n_test, seed = task
    X_train, y_train, X_test, y_test = _demo_data_once(data, n_train, n_test, seed)
    cls = get_estimator(name)
    try:
        return use_once(cls(**getattr(cls, "_demo_params", {})), X_train, y_train,
                        np.unique(y_test), X_test), None
    except Exception as exc:  # noqa: BLE001 - reported by the main process's own first use
        return None, f"{type(exc).__name__}: {exc}"


def first_uses_side_by_side(names, data, n_train, n_test, seed, jobs,
                            verbose=0) -> dict[str, float]:
    """The first use of each registered estimator in ``names`` in ``jobs`` worker processes,
    the estimators of one module in one process (they share compiled code): ``{name:
    seconds}``, for the estimators whose first use succeeded there. The processes write
    numba's cache, so this process's first use of each then loads the compiled code."""
    from ..registry import get_estimator
    from .workers import run_side_by_side

    groups: dict[str, list] = {}
    for name in names:
        groups.setdefault(get_estimator(name).__module__, []).append(
            (name, data, n_train, n_test, seed))

    def done(task, result):
        if verbose:
            seconds, error = result
            said = f"{seconds:.1f} s" if error is None else f"failed ({error})"
            say(f"demo: {task[0]}: first use in a worker process: {said}")

    results = run_side_by_side(_first_use_in_worker, list(groups.values()),
                               min(jobs, len(groups)), on_done=done)
    return {task[0]: seconds for task, (seconds, error) in results.items() if error is None}


def run_demo(*, data="synthetic-a", n_train=10_000, n_test=5_000, seed=0, chunk_size=2_000,
             on_result=None, verbose=0, jobs=1) -> list[DemoRow]:
    """Train each estimator on one pass over the stream and the peers on the same data.

    Returns one :class:`~streamsvm.cli.report.DemoRow` per model (test accuracy, training time,
    throughput, model size); ``on_result(row)`` is called as each one ends. The peers are
    scikit-learn's ``SVC`` (batch, RBF kernel, all data in memory) and ``SGDClassifier``
    (hinge loss, one pass of ``partial_fit`` over the chunks). Before it is timed, each of
    the library's estimators is used once on :data:`FIRST_USE_ROWS` rows (a copy, thrown
    away), which compiles its numba code or loads it from the cache; that time is reported
    apart (``DemoRow.first_use_seconds``), so the training times and rates are those of
    learning. ``verbose=1`` announces each model, reports rows done and rows/s every few
    seconds (:mod:`streamsvm.utils.progress`) and passes ``verbose=1`` to the library's estimators.
    With ``jobs > 1``, the first uses run before the timed runs, side by side in that many
    worker processes (:func:`first_uses_side_by_side`; their seconds are the ones reported),
    and nothing runs beside the timed runs.
    """
    from sklearn.linear_model import SGDClassifier
    from sklearn.svm import SVC

    from ..registry import available_estimators

    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    X_train, y_train, X_test, y_test = demo_data(data, n_train, n_test, seed)
    classes = np.unique(y_test)
    rows = []
    names = list(available_estimators())
    in_workers = {}
    if jobs > 1:
        if verbose:
            say(f"demo: the first use of {len(names)} estimators (compiles their code, or "
                f"loads it from numba's cache) in {jobs} worker processes side by side")
        with Heartbeat("demo: first uses", enabled=bool(verbose)):
            in_workers = first_uses_side_by_side(names, data, n_train, n_test, seed, jobs,
                                                 verbose)

    def run(name, model, streaming, size, max_examples=None):
        ours = type(model).__module__.startswith("streamsvm")
        if verbose and ours:
            model.set_params(verbose=verbose)
        first_use = None
        if ours:
            if verbose:
                say(f"demo: {name}: first use on {FIRST_USE_ROWS} rows (compiles its code, or "
                    "loads it from numba's cache)")
            with Heartbeat(f"demo: {name}: first use", enabled=bool(verbose)):
                first_use = use_once(model, X_train, y_train, classes, X_test)
            first_use = in_workers.get(type(model).__name__, first_use)
        start = time.perf_counter()
        if streaming:
            n = X_train.shape[0] if max_examples is None else min(max_examples, X_train.shape[0])
            if verbose:
                say(f"demo: {name}: learning {n:,} rows in chunks of {chunk_size:,}")
            with Progress(f"demo: {name}", n) if verbose else nullcontext() as bar:
                done = 0
                for X, y in iter_arrays(X_train[:n], y_train[:n], chunk_size=chunk_size):
                    model.partial_fit(X, y, classes=classes)
                    done += X.shape[0]
                    if bar is not None:
                        bar.update(done)
                if hasattr(model, "finish"):
                    model.finish()
        else:
            n = X_train.shape[0]
            if verbose:
                say(f"demo: {name}: fitting {n:,} rows in one call (no progress inside it)")
            model.fit(X_train, y_train)
        seconds = time.perf_counter() - start
        accuracy = float(np.mean(model.predict(X_test) == y_test))
        row = DemoRow(name, accuracy, seconds, n / max(seconds, 1e-9), int(size(model)),
                      first_use)
        rows.append(row)
        if on_result is not None:
            on_result(row)

    for name, cls in available_estimators().items():
        params = getattr(cls, "_demo_params", {})
        # estimators whose memory grows quadratically learn only the start of the stream
        cap = getattr(cls, "max_rows_hint", None)
        if cap is not None and cap < n_train:
            name = f"{name} (first {cap:,})"
        run(name, cls(**params), True, lambda m: m.model_nbytes_, max_examples=cap)
    run("sklearn SGDClassifier (1 pass)", SGDClassifier(random_state=seed), True,
        lambda m: m.coef_.nbytes + m.intercept_.nbytes)
    run("sklearn SVC (batch, RBF)", SVC(), False,
        lambda m: m.support_vectors_.nbytes + m.dual_coef_.nbytes + m.intercept_.nbytes)
    return rows
