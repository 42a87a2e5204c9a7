"""``streamsvm demo``: every estimator of the library on one stream, beside scikit-learn."""

from __future__ import annotations

import time

import numpy as np
from rich.table import Table


def _stream_source(data: str, n_train: int, n_test: int, seed: int, chunk_size: int):
    """Training chunks and a held-out test set, from a generator or a named dataset."""
    from . import datasets
    from .cli import GENERATORS, _generated_stream

    if data in GENERATORS:
        X_test, y_test = _concat(_generated_stream(data, n_test, chunk_size, seed + 1_000_003))
        return (lambda: _generated_stream(data, n_train, chunk_size, seed)), X_test, y_test
    X_train, y_train = datasets.load_dataset(data, subset="train")
    X_test, y_test = datasets.load_dataset(data, subset="test")
    X_train, y_train = X_train[:n_train], y_train[:n_train]
    X_test, y_test = X_test[:n_test], y_test[:n_test]
    return (lambda: datasets.iter_arrays(X_train, y_train, chunk_size=chunk_size)), X_test, y_test


def _concat(chunks):
    import scipy.sparse as sp

    Xs, ys = zip(*chunks, strict=True)
    X = sp.vstack(Xs, format="csr") if sp.issparse(Xs[0]) else np.vstack(Xs)
    return X, np.concatenate(ys)


def run_demo(
    *, data="synthetic-a", n_train=10_000, n_test=5_000, seed=0, chunk_size=2_000, console=None
):
    """Train each estimator on one pass over the stream and the peers on the same data.

    Returns a rich :class:`~rich.table.Table` of test accuracy, training time, throughput
    and model size. The peers are scikit-learn's ``SVC`` (batch, RBF kernel, all data in
    memory) and ``SGDClassifier`` (hinge loss, one pass of ``partial_fit`` over the chunks).
    """
    from sklearn.linear_model import SGDClassifier
    from sklearn.svm import SVC

    from .registry import available_estimators

    make_stream, X_test, y_test = _stream_source(data, n_train, n_test, seed, chunk_size)
    classes = np.unique(y_test)
    rows = []

    def run(name, model, streaming, size, max_examples=None):
        start = time.perf_counter()
        seen = 0
        if streaming:
            for X, y in make_stream():
                if max_examples is not None and seen + X.shape[0] > max_examples:
                    X, y = X[: max_examples - seen], y[: max_examples - seen]
                if X.shape[0] == 0:
                    break
                model.partial_fit(X, y, classes=classes)
                seen += X.shape[0]
            if hasattr(model, "finish"):
                model.finish()
        else:
            X, y = _concat(make_stream())
            model.fit(X, y)
            seen = X.shape[0]
        seconds = time.perf_counter() - start
        accuracy = float(np.mean(model.predict(X_test) == y_test))
        rows.append((name, accuracy, seconds, seen / max(seconds, 1e-9), size(model)))
        if console is not None:
            console.log(f"{name}: accuracy {accuracy:.4f} in {seconds:.2f} s")

    for name, cls in available_estimators().items():
        params = getattr(cls, "_demo_params", {})
        # estimators whose memory grows quadratically learn only the start of the stream
        cap = getattr(cls, "_demo_max_examples", None)
        if cap is not None and cap < n_train:
            name = f"{name} (first {cap:,})"
        run(name, cls(**params), True, lambda m: m.model_nbytes_, max_examples=cap)
    run(
        "sklearn SGDClassifier (1 pass)",
        SGDClassifier(random_state=seed),
        True,
        lambda m: m.coef_.nbytes + m.intercept_.nbytes,
    )
    run(
        "sklearn SVC (batch, RBF)",
        SVC(),
        False,
        lambda m: m.support_vectors_.nbytes + m.dual_coef_.nbytes + m.intercept_.nbytes,
    )

    table = Table(
        title=f"streamsvm demo: {data}, {n_train:,} training / {len(y_test):,} test examples",
        caption="train s: wall clock, including drawing the stream and, on the first run after "
                "installing, compiling the jitted code (cached for later runs). Measured "
                "comparisons: streamsvm bench.",
    )
    for column, justify in (
        ("estimator", "left"),
        ("accuracy", "right"),
        ("train s", "right"),
        ("examples/s", "right"),
        ("model bytes", "right"),
    ):
        table.add_column(column, justify=justify)
    for name, accuracy, seconds, rate, size in rows:
        table.add_row(name, f"{accuracy:.4f}", f"{seconds:.2f}", f"{rate:,.0f}", f"{size:,}")
    return table
