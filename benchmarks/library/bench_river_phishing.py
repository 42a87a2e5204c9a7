"""Every estimator runs in River's progressive_val_score on Phishing beside River's own linear
classifiers.

Writes: benchmarks/results/river_phishing.md
Run: python benchmarks/library/bench_river_phishing.py

Every estimator in River's own evaluation: ``progressive_val_score`` on River's Phishing
stream (1,250 rows, bundled with River), behind River's ``StandardScaler``, with Accuracy,
ROCAUC (from ``predict_proba_one``) and F1, beside River's LogisticRegression, Perceptron and
PAClassifier. Default parameters everywhere, except ``DistributedL2SVM`` on 3 sites (its
default 10 sites take minutes: every row is a protocol event).
CPU seconds per stream (``time.process_time``, one run, the estimator's first use in the
process excluded by a warm-up run on 100 rows). Issue 19's acceptance: LASVM within 2 points
of LogisticRegression. Run: ``python benchmarks/library/bench_river_phishing.py`` (about three
minutes); writes ``benchmarks/results/river_phishing.md``.
"""

from __future__ import annotations

import functools
import sys
import time
from pathlib import Path

from river import datasets, evaluate, linear_model, metrics, preprocessing

from streamsvm.registry import available_estimators

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for _common
from _common import write_markdown  # noqa: E402


def contenders():
    for name, cls in available_estimators().items():
        yield name, (functools.partial(cls, n_sites=3) if name == "DistributedL2SVM" else cls)
    yield "River LogisticRegression", linear_model.LogisticRegression
    yield "River Perceptron", linear_model.Perceptron
    yield "River PAClassifier", linear_model.PAClassifier


def run(make, n=None):
    accuracy, auc, f1 = metrics.Accuracy(), metrics.ROCAUC(), metrics.F1()
    stream = datasets.Phishing() if n is None else datasets.Phishing().take(n)
    start = time.process_time()
    evaluate.progressive_val_score(stream, preprocessing.StandardScaler() | make(),
                                   accuracy + auc + f1)
    return time.process_time() - start, accuracy.get(), auc.get(), f1.get()


def main() -> None:
    lines = ["| estimator | accuracy | ROCAUC | F1 | CPU s |", "|---|---|---|---|---|"]
    scores = {}
    for name, make in contenders():
        run(make, n=100)  # compile first
        seconds, accuracy, auc, f1 = run(make)
        scores[name] = accuracy
        lines.append(f"| {name} | {accuracy:.2%} | {auc:.2%} | {f1:.2%} | {seconds:.2f} |")
        print(lines[-1], flush=True)
    gap = scores["LASVM"] - scores["River LogisticRegression"]
    lines += ["", f"LASVM minus River's LogisticRegression: {gap * 100:+.2f} points "
              "(acceptance: at least -2)."]
    write_markdown("river_phishing.md", "River's progressive_val_score on Phishing", lines)


if __name__ == "__main__":
    main()
