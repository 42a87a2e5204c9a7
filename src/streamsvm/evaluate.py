"""Evaluation of streaming learners: prequential (test-then-train) and holdout learning curves.

The learner protocol (duck typing; every streamsvm estimator follows it, and so does every
scikit-learn classifier with ``partial_fit``):

* ``partial_fit(X, y, classes=None)`` continues the stream with one chunk; ``classes`` is
  passed on the first call only, and only when given;
* ``predict(X)``; ``decision_function(X)`` (1-D, larger means the positive class) when a
  metric needs scores (``"auc"``, ``"prbep"``);
* optionally ``model_nbytes_``, the bytes of model state; ``None`` is recorded without it.

The learner is trained **in place** (pass ``sklearn.base.clone(learner)`` to keep the
original untouched). A stream is any iterable of ``(X, y)`` chunks, ``X`` a dense array or a
sparse CSR matrix; empty chunks are skipped.

Metrics are named: ``"accuracy"``, ``"g_means"``, ``"auc"``, ``"prbep"`` (the functions of
:mod:`streamsvm.metrics`). The binary ones count ``pos_label`` as the positive class; by
default that is ``learner.classes_[1]`` (the class that a positive ``decision_function``
means, in scikit-learn's convention), else the larger of two declared ``classes``, else the
larger of the labels seen. When the learner has two ``classes_`` and ``pos_label`` is
``classes_[0]``, scores are negated so that larger still means ``pos_label``. A metric that is
undefined at a checkpoint (one class only among the examples it covers, or no examples yet)
is recorded as NaN.

>>> import numpy as np
>>> from sklearn.linear_model import SGDClassifier
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(400, 2))
>>> y = np.where(X[:, 0] + X[:, 1] > 0, 1, -1)
>>> stream = ((X[i:i + 100], y[i:i + 100]) for i in range(0, 400, 100))
>>> curve = prequential(SGDClassifier(random_state=0), stream, classes=[-1, 1],
...                     metrics=("accuracy", "auc"))
>>> curve.examples_seen.tolist()
[100, 200, 300, 400]
>>> bool(np.isnan(curve["accuracy"][0]))  # the first chunk is only trained on
True
>>> bool(curve.final["accuracy"] > 0.9)
True
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from . import metrics as _metrics

__all__ = ["METRICS", "LearningCurve", "prequential", "holdout"]

#: metric name -> (function, needs scores rather than predictions)
METRICS = {
    "accuracy": (_metrics.accuracy, False),
    "g_means": (_metrics.g_means, False),
    "auc": (_metrics.roc_auc, True),
    "prbep": (_metrics.prbep, True),
}
_BINARY = {"g_means", "auc", "prbep"}


# ---------------------------------------------------------------------- the curve
@dataclass(eq=False)
class LearningCurve:
    """A learning curve: one row per checkpoint.

    Columns: ``examples_seen`` (examples trained on so far, int), ``seconds`` (cumulative
    wall-clock seconds the learner spent training, plus predicting on the stream in a
    prequential run; nondecreasing), ``model_nbytes`` (the learner's ``model_nbytes_`` at the
    checkpoint, an int array; ``None`` when the learner does not report it, an object array
    holding ``None`` where it reported it only at some checkpoints) and one float
    array per metric in ``metrics`` (also reachable as ``curve["accuracy"]``).

    >>> curve = LearningCurve(np.array([10, 20]), np.array([0.5, 1.25]), None,
    ...                       {"accuracy": np.array([0.75, 0.8125])})
    >>> curve.final
    {'examples_seen': 20, 'seconds': 1.25, 'model_nbytes': None, 'accuracy': 0.8125}
    >>> print(curve.to_markdown())
    | examples_seen | seconds | model_nbytes | accuracy |
    |---:|---:|---:|---:|
    | 10 | 0.500 | – | 0.7500 |
    | 20 | 1.250 | – | 0.8125 |
    """

    examples_seen: np.ndarray
    seconds: np.ndarray
    model_nbytes: np.ndarray | None
    metrics: dict[str, np.ndarray] = field(default_factory=dict)
    kind: str = "prequential"

    @property
    def columns(self) -> list[str]:
        """Column names, in table order."""
        return ["examples_seen", "seconds", "model_nbytes", *self.metrics]

    def __len__(self) -> int:
        return int(len(self.examples_seen))

    def __getitem__(self, name: str) -> np.ndarray | None:
        if name in self.metrics:
            return self.metrics[name]
        if name in ("examples_seen", "seconds", "model_nbytes"):
            return getattr(self, name)
        raise KeyError(f"no column {name!r}; the columns are {self.columns}")

    def _cell(self, name: str, i: int):
        column = self[name]
        if column is None:
            return None
        value = column[i]
        if value is None:
            return None
        if name in ("examples_seen", "model_nbytes"):
            return int(value)
        return float(value)

    def to_rows(self) -> list[dict]:
        """The curve as a list of dicts, one per checkpoint, with plain Python numbers."""
        return [{name: self._cell(name, i) for name in self.columns} for i in range(len(self))]

    @property
    def final(self) -> dict:
        """The last row (the values at the end of the stream)."""
        if len(self) == 0:
            raise ValueError("the learning curve is empty: no checkpoint was reached")
        return {name: self._cell(name, len(self) - 1) for name in self.columns}

    def to_markdown(self, digits: int = 4) -> str:
        """A Markdown table: seconds to 3 decimals, metrics to ``digits``; ``–`` for missing."""

        def fmt(name, value):
            if value is None or (isinstance(value, float) and np.isnan(value)):
                return "–"
            if name in ("examples_seen", "model_nbytes"):
                return str(value)
            return f"{value:.3f}" if name == "seconds" else f"{value:.{digits}f}"

        lines = [
            "| " + " | ".join(self.columns) + " |",
            "|" + "---:|" * len(self.columns),
        ]
        for row in self.to_rows():
            lines.append("| " + " | ".join(fmt(k, v) for k, v in row.items()) + " |")
        return "\n".join(lines)

    def plot(self, ax=None, metric: str | None = None, x: str = "examples_seen", **kwargs):
        """Plot one column (default: the first metric) against ``x``; returns the axes.

        Needs matplotlib (``pip install streamsvm[plot]``). Extra keyword arguments go to
        ``ax.plot``.
        """
        try:
            import matplotlib.pyplot as plt
        except ImportError as error:
            raise ImportError(
                "LearningCurve.plot needs matplotlib; install it with "
                "`pip install streamsvm[plot]`"
            ) from error
        if metric is None:
            if not self.metrics:
                raise ValueError("the curve has no metric to plot")
            metric = next(iter(self.metrics))
        values = self[metric]
        if values is None:
            raise ValueError(f"the column {metric!r} was not recorded (the learner has no "
                             "model_nbytes_)")
        if ax is None:
            _, ax = plt.subplots()
        kwargs.setdefault("label", f"{self.kind} {metric}")
        ax.plot(self[x], values, **kwargs)
        ax.set_xlabel(x.replace("_", " "))
        ax.set_ylabel(metric.replace("_", " "))
        return ax


# ---------------------------------------------------------------------- helpers
def _check_metrics(metrics, learner) -> tuple[tuple[str, ...], bool]:
    if isinstance(metrics, str):
        metrics = (metrics,)
    names = tuple(dict.fromkeys(metrics))
    if not names:
        raise ValueError(f"no metric given; choose among {sorted(METRICS)}")
    for name in names:
        if name not in METRICS:
            raise ValueError(f"unknown metric {name!r}; the valid metrics are {sorted(METRICS)}")
    needs_scores = any(METRICS[name][1] for name in names)
    if needs_scores and not callable(getattr(learner, "decision_function", None)):
        wanting = [name for name in names if METRICS[name][1]]
        raise ValueError(
            f"the metrics {wanting} rank examples by score and need the learner's "
            f"decision_function, which {type(learner).__name__} does not have"
        )
    return names, needs_scores


def _n_rows(X) -> int:
    shape = getattr(X, "shape", None)
    return int(shape[0]) if shape is not None else len(X)


def _chunks(stream: Iterable, max_examples: int | None):
    """Validated, non-empty chunks ``(X, y)`` of the stream, cut at ``max_examples``."""
    if max_examples is not None and (not isinstance(max_examples, int | np.integer)
                                     or max_examples < 1):
        raise ValueError(f"max_examples must be a positive integer; got {max_examples!r}")
    seen = 0
    for number, chunk in enumerate(stream):
        try:
            X, y = chunk
        except (TypeError, ValueError):
            raise ValueError(
                f"chunk {number} of the stream is not an (X, y) pair: {type(chunk).__name__}"
            ) from None
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"chunk {number}: y must be 1-D; got shape {y.shape}")
        n = _n_rows(X)
        if n != y.shape[0]:
            raise ValueError(f"chunk {number}: X has {n} rows but y has {y.shape[0]} labels")
        if n == 0:
            continue
        if max_examples is not None and seen + n > max_examples:
            n = max_examples - seen
            X, y = X[:n], y[:n]
        yield X, y
        seen += n
        if max_examples is not None and seen >= max_examples:
            return


def _model_nbytes(learner) -> int | None:
    value = getattr(learner, "model_nbytes_", None)
    return None if value is None else int(value)


def _nbytes_column(values: list) -> np.ndarray | None:
    if all(v is None for v in values):
        return None
    if any(v is None for v in values):
        return np.array(values, dtype=object)
    return np.array(values, dtype=np.int64)


class _Scorer:
    """Predictions (and oriented scores) of a learner, and metric values over them."""

    def __init__(self, learner, names, needs_scores, classes, pos_label):
        self.learner = learner
        self.names = names
        self.needs_scores = needs_scores
        self.classes = None if classes is None else np.unique(np.asarray(classes))
        self.pos_label = pos_label

    def predict(self, X):
        y_pred = np.asarray(self.learner.predict(X))
        scores = None
        if self.needs_scores:
            scores = np.asarray(self.learner.decision_function(X), dtype=np.float64)
            if scores.ndim == 2 and scores.shape[1] == 1:
                scores = scores[:, 0]
            if scores.ndim != 1:
                raise ValueError(
                    "AUC and PRBEP need one score per example, but decision_function returned "
                    f"shape {scores.shape} (more than two classes?)"
                )
        return y_pred, scores

    def _positive(self, y_true):
        if self.pos_label is not None:
            return self.pos_label
        fitted = getattr(self.learner, "classes_", None)
        if fitted is not None and len(fitted) == 2:
            return fitted[1]
        if self.classes is not None and self.classes.shape[0] == 2:
            return self.classes[1]
        return np.unique(y_true)[-1]

    def values(self, y_true, y_pred, scores) -> dict[str, float]:
        if y_true.shape[0] == 0:
            return {name: np.nan for name in self.names}
        pos_label = None
        if any(name in _BINARY for name in self.names):
            pos_label = self._positive(y_true)
            fitted = getattr(self.learner, "classes_", None)
            if (scores is not None and fitted is not None and len(fitted) == 2
                    and pos_label == fitted[0]):
                scores = -scores
        out = {}
        for name in self.names:
            function, uses_scores = METRICS[name]
            args = (y_true, scores if uses_scores else y_pred)
            try:
                out[name] = function(*args, pos_label) if name in _BINARY else function(*args)
            except _metrics.UndefinedMetricError:
                out[name] = np.nan
        return out


class _Recorder:
    def __init__(self, names):
        self.examples_seen, self.seconds, self.nbytes = [], [], []
        self.values = {name: [] for name in names}

    def record(self, seen, seconds, nbytes, values):
        self.examples_seen.append(seen)
        self.seconds.append(seconds)
        self.nbytes.append(nbytes)
        for name, value in values.items():
            self.values[name].append(value)

    def curve(self, kind) -> LearningCurve:
        return LearningCurve(
            examples_seen=np.array(self.examples_seen, dtype=np.int64),
            seconds=np.array(self.seconds, dtype=np.float64),
            model_nbytes=_nbytes_column(self.nbytes),
            metrics={k: np.array(v, dtype=np.float64) for k, v in self.values.items()},
            kind=kind,
        )


def _fit_chunk(learner, X, y, first: bool, classes) -> None:
    if first and classes is not None:
        learner.partial_fit(X, y, classes=classes)
    else:
        learner.partial_fit(X, y)


# ---------------------------------------------------------------------- prequential
def prequential(
    learner,
    stream: Iterable,
    *,
    classes: Sequence | None = None,
    metrics: Sequence[str] | str = ("accuracy",),
    checkpoint_every: int | None = None,
    max_examples: int | None = None,
    window: int | None = None,
    pos_label=None,
) -> LearningCurve:
    """Prequential (test-then-train) evaluation over a stream of ``(X, y)`` chunks.

    Each chunk is first predicted (and scored, if a metric needs scores) by the current
    model, then learnt with ``partial_fit`` (Dawid's prequential principle; Gama, Sebastião &
    Rodrigues, "On evaluating stream learning algorithms", Mach. Learn. 2013). The **first
    chunk is not tested**: a learner cannot predict before its first ``partial_fit``, so it
    is only trained on, and metrics cover the examples from the second chunk on.

    Metrics at a checkpoint are cumulative over every tested example so far or, with
    ``window=w``, over the last ``w`` tested examples (a sliding window; memory then stays
    ``O(w)``). Checkpoints fall at chunk ends: after every chunk by default, or with
    ``checkpoint_every=n`` after the first chunk that reaches each multiple of ``n``
    examples seen; the end of the stream is always a checkpoint. ``seconds`` is the
    cumulative ``time.perf_counter`` time of ``predict``, ``decision_function`` and
    ``partial_fit``; computing metrics and model size is not counted. ``max_examples`` stops
    the stream after that many examples (cutting the last chunk), for endless generators.

    AUC and PRBEP over all tested examples cost ``O(m log m)`` per checkpoint with ``m``
    examples tested; use ``checkpoint_every`` or ``window`` on long streams.

    Parameters
    ----------
    learner : object following the protocol of :mod:`streamsvm.evaluate`, trained in place.
    stream : iterable of ``(X, y)`` chunks.
    classes : all the labels, passed to the first ``partial_fit`` (scikit-learn's
        ``SGDClassifier`` requires them).
    metrics : names among ``"accuracy"``, ``"g_means"``, ``"auc"``, ``"prbep"``.
    pos_label : the positive class of the binary metrics (default: see the module docs).

    Returns
    -------
    LearningCurve
    """
    names, needs_scores = _check_metrics(metrics, learner)
    if checkpoint_every is not None and (
        not isinstance(checkpoint_every, int | np.integer) or checkpoint_every < 1
    ):
        raise ValueError(f"checkpoint_every must be a positive integer; got {checkpoint_every!r}")
    if window is not None and (not isinstance(window, int | np.integer) or window < 1):
        raise ValueError(f"window must be a positive integer; got {window!r}")
    scorer = _Scorer(learner, names, needs_scores, classes, pos_label)
    recorder = _Recorder(names)
    tested = {"y_true": [], "y_pred": [], "scores": []}
    seen, seconds = 0, 0.0
    next_checkpoint = checkpoint_every
    recorded_at = None

    def record():
        if len(tested["y_true"]) > 1:  # keep one array per buffer (and only the window)
            for key, parts in tested.items():
                if parts:
                    tested[key] = [np.concatenate(parts)]
        if window is not None:
            for key, parts in tested.items():
                if parts:
                    tested[key] = [parts[0][-window:]]
        y_true, y_pred, scores = (
            parts[0] if parts else None for parts in tested.values()
        )
        if y_true is None:
            y_true = np.empty(0)
        recorder.record(seen, seconds, _model_nbytes(learner),
                        scorer.values(y_true, y_pred, scores))

    for X, y in _chunks(stream, max_examples):
        first = seen == 0
        start = time.perf_counter()
        if not first:
            y_pred, scores = scorer.predict(X)
        _fit_chunk(learner, X, y, first, classes)
        seconds += time.perf_counter() - start
        if not first:
            tested["y_true"].append(y)
            tested["y_pred"].append(y_pred)
            if scores is not None:
                tested["scores"].append(scores)
        seen += y.shape[0]
        if next_checkpoint is None or seen >= next_checkpoint:
            record()
            recorded_at = seen
            if next_checkpoint is not None:
                next_checkpoint = (seen // checkpoint_every + 1) * checkpoint_every
    if seen == 0:
        raise ValueError("the stream yielded no examples")
    if recorded_at != seen:
        record()
    return recorder.curve("prequential")


# ---------------------------------------------------------------------- holdout
def holdout(
    learner,
    stream: Iterable,
    X_test,
    y_test,
    *,
    checkpoints: Sequence[int] | None = None,
    every: int | None = None,
    metrics: Sequence[str] | str = ("accuracy",),
    classes: Sequence | None = None,
    max_examples: int | None = None,
    pos_label=None,
) -> LearningCurve:
    """Train on a stream and evaluate on a fixed test set at checkpoints.

    Checkpoints are counts of examples seen. With ``checkpoints=(n1, n2, ...)`` (strictly
    increasing positive integers) the model is tested after exactly ``n1``, ``n2``, ...
    examples: a chunk that straddles a checkpoint is split there, so the model evaluated at
    ``n`` is the one trained on the first ``n`` examples of the stream (for learners whose
    ``partial_fit`` continues the same stream whatever the chunking, as streamsvm's do).
    Checkpoints past the end of the stream are dropped with a warning. With ``every=n`` the
    checkpoints are ``n, 2n, ...`` and the end of the stream; with neither, the end of every
    chunk. ``seconds`` is the cumulative ``partial_fit`` time (testing is not counted).

    Parameters
    ----------
    learner, stream, classes, metrics, max_examples, pos_label : as in :func:`prequential`.
    X_test, y_test : the held-out examples, evaluated at each checkpoint.

    Returns
    -------
    LearningCurve
    """
    names, needs_scores = _check_metrics(metrics, learner)
    if checkpoints is not None and every is not None:
        raise ValueError("give either checkpoints or every, not both")
    if every is not None and (not isinstance(every, int | np.integer) or every < 1):
        raise ValueError(f"every must be a positive integer; got {every!r}")
    if checkpoints is not None:
        checkpoints = np.asarray(checkpoints)
        if (checkpoints.ndim != 1 or checkpoints.shape[0] == 0
                or checkpoints.dtype.kind not in "iu"):
            raise ValueError(f"checkpoints must be a non-empty list of integers; got {checkpoints}")
        if checkpoints[0] < 1 or np.any(np.diff(checkpoints) <= 0):
            raise ValueError(
                f"checkpoints must be positive and strictly increasing; got {checkpoints.tolist()}"
            )
    y_test = np.asarray(y_test)
    if y_test.ndim != 1 or y_test.shape[0] == 0:
        raise ValueError(f"y_test must be a non-empty 1-D array; got shape {y_test.shape}")
    if _n_rows(X_test) != y_test.shape[0]:
        raise ValueError(
            f"X_test has {_n_rows(X_test)} rows but y_test has {y_test.shape[0]} labels"
        )
    binary = [name for name in names if name in _BINARY]
    if binary and np.unique(y_test).shape[0] < 2:
        raise ValueError(f"the metrics {binary} need both classes in y_test; it holds one")

    scorer = _Scorer(learner, names, needs_scores, classes, pos_label)
    recorder = _Recorder(names)
    seen, seconds = 0, 0.0
    targets = None if checkpoints is None else [int(c) for c in checkpoints]

    def next_target():
        if checkpoints is not None:
            return targets[0] if targets else None
        if every is not None:
            return (seen // every + 1) * every
        return None

    def record():
        y_pred, scores = scorer.predict(X_test)
        recorder.record(seen, seconds, _model_nbytes(learner),
                        scorer.values(y_test, y_pred, scores))

    recorded_at = None
    for X, y in _chunks(stream, max_examples):
        n, start = y.shape[0], 0
        while start < n:
            target = next_target()
            stop = n if target is None else min(n, start + target - seen)
            began = time.perf_counter()
            _fit_chunk(learner, X[start:stop] if (start, stop) != (0, n) else X,
                       y[start:stop], seen == 0, classes)
            seconds += time.perf_counter() - began
            seen += stop - start
            start = stop
            if seen == target:
                record()
                recorded_at = seen
                if targets:
                    targets.pop(0)
        if checkpoints is None and every is None:
            record()
            recorded_at = seen
    if seen == 0:
        raise ValueError("the stream yielded no examples")
    if checkpoints is not None:
        if targets:
            warnings.warn(
                f"the stream ended after {seen} examples, before the checkpoints {targets}; "
                "they are not in the learning curve",
                UserWarning,
                stacklevel=2,
            )
    elif recorded_at != seen:
        record()
    return recorder.curve("holdout")
