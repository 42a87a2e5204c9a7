"""Recording prequential scores for ``predict_proba`` costs ``partial_fit`` and ``learn_one`` a
bounded share of their time.

Writes: benchmarks/results/probability_overhead.md
Run: python benchmarks/library/bench_probability_overhead.py

What recording prequential scores costs ``partial_fit`` (Platt scaling, Platt 1999, with
the fit of Lin, Lin & Weng 2007; ``streamsvm.base.calibration``).

Pegasos (all 32,561 rows) and LASVM (RBF, C = 100, gamma = 0.005; the first 12,000 rows)
stream Adult in chunks of 1,000, once as shipped and once with the recording switched off
(the learners' updates are the same; only the scoring of each chunk before it is learnt is
skipped). CPU seconds (``time.process_time``), the median of ``--repeats`` (default 4) runs
of each, alternating (so that a busy machine slows both alike), in this process; then the
log-loss of ``predict_proba`` on Adult's test rows; then the same comparison for
``learn_one`` (rows per CPU second, the first 3,000 rows as dicts). About two minutes;
needs ``STREAMSVM_DATA``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import log_loss

from streamsvm import LASVM, Pegasos
from streamsvm.base import StreamClassifier
from streamsvm.datasets import load_dataset

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for _common
from _common import write_markdown  # noqa: E402


def stream(make, X, y, chunk):
    model = make()
    start = time.process_time()
    for i in range(0, X.shape[0], chunk):
        model.partial_fit(X[i:i + chunk], y[i:i + chunk])
    return time.process_time() - start, model


def per_row(make, X, y):
    rows = [dict(zip(range(X.shape[1]), row.toarray().ravel().tolist(), strict=True))
            for row in X]
    model = make()
    start = time.process_time()
    for row, label in zip(rows, y, strict=True):
        model.learn_one(row, label)
    return X.shape[0] / (time.process_time() - start)


def without_recording():
    """Switch the prequential recording off (counts still kept); returns the undo."""
    saved = StreamClassifier._record_before
    StreamClassifier._record_before = lambda self, learner, X, y_binary: None

    def undo():
        StreamClassifier._record_before = saved
    return undo


def alternate(measure, repeats):
    """Medians of ``measure()`` with and without recording, runs alternating."""
    on, off = [], []
    for _ in range(repeats):
        on.append(measure())
        undo = without_recording()
        try:
            off.append(measure())
        finally:
            undo()
    return float(np.median(on)), float(np.median(off))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=12_000)
    parser.add_argument("--linear-rows", type=int, default=32_561)
    parser.add_argument("--repeats", type=int, default=4)
    args = parser.parse_args()
    X_all, y_all = load_dataset("adult")
    Xt, yt = load_dataset("adult", subset="test")
    lines = ["Adult, chunks of 1,000"]
    makers = {"Pegasos": (lambda: Pegasos(alpha=1e-4), args.linear_rows),
              "LASVM": (lambda: LASVM(C=100, gamma=0.005, finishing=False), args.rows)}
    for name, (make, rows) in makers.items():
        X, y = X_all[:rows], y_all[:rows]
        stream(make, X[:2000], y[:2000], 1000)  # compile first
        on, off = alternate(lambda m=make, a=X, b=y: stream(m, a, b, 1000)[0], args.repeats)
        _, model = stream(make, X, y, 1000)
        loss = log_loss(yt, model.predict_proba(Xt), labels=model.classes_)
        line = (f"{name} ({X.shape[0]:,} rows): {off:.3f} s without recording, {on:.3f} s with "
                f"({100 * (on / off - 1):+.1f}%); test log-loss {loss:.4f}, "
                f"error {100 * np.mean(model.predict(Xt) != yt):.2f}%")
        print(line, flush=True)
        lines.append(line)
    for name, (make, _) in makers.items():
        X, y = X_all[:3000], y_all[:3000]
        per_row(make, X[:200], y[:200])
        on, off = alternate(lambda m=make, a=X, b=y: per_row(m, a, b), args.repeats)
        line = (f"{name} learn_one: {off:,.0f} rows per CPU second without recording, "
                f"{on:,.0f} with ({100 * (off / on - 1):+.1f}% time per row)")
        print(line, flush=True)
        lines.append(line)
    write_markdown("probability_overhead.md", "Cost of recording prequential scores",
                   [f"- {line}" for line in lines])


if __name__ == "__main__":
    main()
