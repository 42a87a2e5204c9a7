"""Run contenders on tasks and measure them the same way, in one process.

Each (contender, task) pair is run twice on the same data: once for the clock (the CPU time
of training only, :func:`time.process_time`, so that a busy machine does not inflate it; data
loading and the conversion of rows to River's dicts are outside it) and once
under :mod:`tracemalloc` for the peak memory that training allocates (NumPy reports its
buffers to tracemalloc, so arrays count as well as Python objects; memory held by native
libraries outside NumPy, such as LIBSVM's kernel cache, is not seen). The second run is
skipped with ``measure_memory=False``. With ``verbose=1`` every task and pair is announced
and training reports rows done and rows/s every few seconds (:mod:`streamsvm.utils.progress`; one
clock reading per chunk, outside nothing that is timed but that reading).
"""

from __future__ import annotations

import pickle
import time
import tracemalloc
from dataclasses import asdict, dataclass

import numpy as np
import scipy.sparse as sp

from .. import metrics
from ..utils import progress
from .contenders import Contender
from .tasks import Task

__all__ = ["Result", "run_pair", "run_suite"]

CHUNK = 1000


@dataclass
class Result:
    task: str
    contender: str
    family: str
    mode: str
    n_train: int
    n_test: int
    accuracy: float | None = None
    g_means: float | None = None
    auc: float | None = None
    prbep: float | None = None
    train_seconds: float | None = None
    us_per_example: float | None = None
    peak_mb: float | None = None
    model_kb: float | None = None
    error: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


# ----------------------------------------------------------------------------- learning
def _chunks(X, y):
    for start in range(0, X.shape[0], CHUNK):
        yield X[start : start + CHUNK], y[start : start + CHUNK]


def _river_rows(X) -> list[dict]:
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        return [
            dict(zip(X.indices[X.indptr[i] : X.indptr[i + 1]].tolist(),
                     X.data[X.indptr[i] : X.indptr[i + 1]].tolist(), strict=True))
            for i in range(X.shape[0])
        ]
    return [dict(enumerate(row)) for row in X.tolist()]


def _train(contender: Contender, model, X, y, rows, bar=None):
    """Train ``model`` as its contender learns; returns the model (River's may be replaced).
    ``bar`` (a :class:`~streamsvm.utils.progress.Progress`) counts the rows after each chunk."""
    if contender.mode == "batch":
        model.fit(X, y)
    elif contender.mode == "stream":
        done = 0
        for X_chunk, y_chunk in _chunks(X, y):
            model.partial_fit(X_chunk, y_chunk, classes=np.array([-1, 1]))
            done += X_chunk.shape[0]
            if bar is not None:
                bar.update(done)
        if hasattr(model, "finish"):
            model.finish()
    else:  # river: one example at a time, labels as booleans
        labels = (y == 1).tolist()
        for start in range(0, len(rows), CHUNK):
            for row, label in zip(rows[start:start + CHUNK], labels[start:start + CHUNK],
                                  strict=True):
                model.learn_one(row, label)
            if bar is not None:
                bar.update(min(start + CHUNK, len(rows)))
    return model


def _scores(contender: Contender, model, X, rows):
    """``(predicted labels ±1, scores with larger = more positive)``."""
    if contender.mode == "river":
        proba = [model.predict_proba_one(row).get(True, 0.0) for row in rows]
        scores = np.asarray(proba)
        return np.where(scores > 0.5, 1, -1), scores
    return np.asarray(model.predict(X)), np.asarray(model.decision_function(X))


def _model_bytes(contender: Contender, model) -> int:
    """The model's size: its pickle for streamsvm and River (streamsvm's pickle holds what
    defines the model and its resumable state, not the kernel cache, which is rebuilt), the
    fitted arrays for scikit-learn's estimators."""
    if contender.family == "streamsvm" or contender.mode == "river":
        return len(pickle.dumps(model))
    total = 0
    for name, value in vars(model).items():
        if name.endswith("_") and isinstance(value, np.ndarray):
            total += value.nbytes
        elif name.endswith("_") and sp.issparse(value):
            total += value.data.nbytes + value.indices.nbytes + value.indptr.nbytes
    return total


def _warm_up(contender: Contender, task: Task, X, y, rows) -> None:
    """Train a throw-away model on a few rows first, so that loading or compiling jitted code
    (numba's cache) is not counted as training time."""
    n = min(X.shape[0], contender.warm_up_rows or 2 * CHUNK)
    try:
        _train(contender, contender.make(task), X[:n], y[:n], rows[:n] if rows else None)
    except ValueError:  # e.g. a batch solver given one class only: nothing to warm up
        pass


# ----------------------------------------------------------------------------- one pair
def run_pair(contender: Contender, task: Task, data, *, measure_memory=True,
             verbose=0) -> Result:
    """Train and test one contender on one task's ``data = (X, y, X_test, y_test)``;
    ``verbose=1``: progress lines of the timed training (module doc)."""
    X, y, Xt, yt = data
    result = Result(task.name, contender.name, contender.family, contender.mode,
                    X.shape[0], Xt.shape[0])
    if contender.max_train is not None and X.shape[0] > contender.max_train:
        result.error = (f"skipped above {contender.max_train:,} training examples: "
                        f"{contender.why_max}")
        return result
    rows = _river_rows(X) if contender.mode == "river" else None
    test_rows = _river_rows(Xt) if contender.mode == "river" else None
    try:
        _warm_up(contender, task, X, y, rows)
        model = contender.make(task)
        label = f"{task.name}: {contender.name}"
        with progress.Progress(label, X.shape[0]) if verbose else _Silent() as bar:
            start = time.process_time()
            model = _train(contender, model, X, y, rows, bar if verbose else None)
            result.train_seconds = time.process_time() - start
        result.us_per_example = 1e6 * result.train_seconds / X.shape[0]
        predicted, scores = _scores(contender, model, Xt, test_rows)
        result.accuracy = metrics.accuracy(yt, predicted)
        result.g_means = metrics.g_means(yt, predicted)
        result.auc = metrics.roc_auc(yt, scores)
        result.prbep = metrics.prbep(yt, scores)
        result.model_kb = _model_bytes(contender, model) / 1024
        if measure_memory:
            tracemalloc.start()
            try:
                _train(contender, contender.make(task), X, y, rows)
                result.peak_mb = tracemalloc.get_traced_memory()[1] / 2**20
            finally:
                tracemalloc.stop()
    except Exception as error:  # a contender that cannot run a task is reported, not fatal
        result.error = f"{type(error).__name__}: {error}"
    return result


class _Silent:
    """Stands for a :class:`~streamsvm.utils.progress.Progress` when nothing is reported."""

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return None


def run_suite(tasks, contenders, *, measure_memory=True, progress=None,
              verbose=0) -> list[Result]:
    """Every contender on every available task; ``progress(task, contender)`` is called before
    each pair. Tasks whose data are missing give one result with the reason in ``error``.

    ``verbose=1`` writes a line as each task loads, as each pair starts (its number of the
    total) and ends, and progress lines during training (:mod:`streamsvm.utils.progress`)."""
    from ..utils.progress import say

    results = []
    total, number = len(tasks) * len(contenders), 0
    for task in tasks:
        if not task.available:
            results.append(Result(task.name, "-", "-", "-", 0, 0,
                                  error=f"data for {task.source!r} not found (STREAMSVM_DATA)"))
            number += len(contenders)
            if verbose:
                say(f"bench: {task.name}: skipped, {results[-1].error}")
            continue
        if verbose:
            say(f"bench: loading {task.name}")
        data = task.load()
        for contender in contenders:
            number += 1
            if progress is not None:
                progress(task, contender)
            if verbose:
                compiles = " (compiles on first use)" if contender.family == "streamsvm" else ""
                say(f"bench [{number}/{total}] {task.name}: {contender.name}: warm-up{compiles}, "
                    f"then training on {data[0].shape[0]:,} rows")
            result = run_pair(contender, task, data, measure_memory=measure_memory,
                              verbose=verbose)
            results.append(result)
            if verbose:
                say(f"bench [{number}/{total}] {task.name}: {contender.name}: "
                    + _outcome(result))
    return results


def _outcome(result: Result) -> str:
    if result.error:
        return result.error
    return (f"accuracy {100 * result.accuracy:.2f}% in {result.train_seconds:.3f} s of CPU "
            "(training)")
