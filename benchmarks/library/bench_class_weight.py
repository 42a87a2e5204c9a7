"""class_weight='balanced' raises the streaming estimators' balanced accuracy on imbalanced
streams (IJCNN1 and a generated 1:20 stream).

Writes: benchmarks/results/class_weight.md
Run: python benchmarks/library/bench_class_weight.py

class_weight on imbalanced streams: balanced accuracy with ``None`` and ``'balanced'``.

Two problems: IJCNN1 (IJCNN 2001 neural network competition; about 1 positive in 10), a
random subsample of the training file streamed in its shuffled order and the first test rows;
and a generated 1:20 stream (``make_classification``, 20 features, 2% label noise). Features
are standardised with the training rows' mean and deviation (a stream whose scale is known).
Each model learns the training rows once, in chunks of 1,000 given to ``partial_fit``
(``'balanced'`` is then estimated on the stream from the running class counts, read per chunk
before learning it); references: ``SVC`` (batch, with and without
``class_weight='balanced'``), and ``SGDClassifier(loss='hinge')`` in the same chunks, which
cannot take ``'balanced'`` in ``partial_fit`` (scikit-learn issue 3636): it gets ``None``, and
the weights a user could compute from the first chunk. The model with O(N^2) memory
(IncrementalSVM) learns the first ``--kernel-rows`` training rows only, stated in the
table. Times are CPU seconds (``time.process_time``) of learning, compilation excluded (every
model learns a small problem first), all models in one process.

Run: ``python benchmarks/library/bench_class_weight.py [--rows N] [--kernel-rows M] [--test T]``
(``--quick`` for a small run); writes ``benchmarks/results/class_weight.md``. Needs
``STREAMSVM_DATA`` for IJCNN1 (without it, the generated problem only).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import make_classification
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import accuracy_score, balanced_accuracy_score
from sklearn.svm import SVC
from sklearn.utils.class_weight import compute_class_weight

from streamsvm import LASVM, LASVMG, CollapseWarning, IncrementalSVM, Pegasos, Perceptron
from streamsvm.datasets import load_dataset

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for _common
from _common import write_markdown  # noqa: E402

CHUNK = 1_000


def problems(rows: int, test: int):
    """``name -> (X_train, y_train, X_test, y_test)``, standardised by the training rows."""
    out = {}
    X, y = make_classification(rows + test, n_features=20, n_informative=8, weights=[0.95],
                               flip_y=0.02, class_sep=0.8, random_state=0)
    out["generated 1:20"] = (X[:rows], y[:rows], X[rows:], y[rows:])
    try:
        Xtr, ytr = load_dataset("ijcnn1", subset="train")
        Xte, yte = load_dataset("ijcnn1", subset="test")
    except (FileNotFoundError, OSError, ValueError) as exc:
        print(f"IJCNN1 skipped: {exc}")
    else:
        order = np.random.default_rng(0).permutation(Xtr.shape[0])[:rows]
        out["IJCNN1"] = (Xtr[order].toarray(), ytr[order], Xte[:test].toarray(), yte[:test])
    for name, (Xtr, ytr, Xte, yte) in out.items():
        mean, std = Xtr.mean(axis=0), Xtr.std(axis=0)
        std[std == 0] = 1.0
        out[name] = ((Xtr - mean) / std, ytr, (Xte - mean) / std, yte)
    return out


def first_chunk_weights(y):
    classes = np.unique(y)
    return dict(zip(classes.tolist(), compute_class_weight("balanced", classes=classes,
                                                           y=y[:CHUNK]), strict=True))


def contenders(y):
    """``name -> (make, weights, stream)``: stream True learns in chunks of CHUNK with
    ``partial_fit``; False is one ``fit`` on the kernel rows (the batch references and the
    models with O(N^2) memory)."""
    out = {}
    for weights in (None, "balanced"):
        out[("Perceptron", weights)] = (lambda w=weights: Perceptron(class_weight=w), True)
        out[("LASVM (C=1)", weights)] = (lambda w=weights: LASVM(class_weight=w), True)
        out[("LASVM-G (C=1)", weights)] = (lambda w=weights: LASVMG(class_weight=w), True)
        out[("IncrementalSVM (C=1)", weights)] = (
            lambda w=weights: IncrementalSVM(class_weight=w), True)
        out[("SVC (C=1, batch)", weights)] = (lambda w=weights: SVC(class_weight=w), False)
    out[("Pegasos", None)] = (lambda: Pegasos(), True)
    out[("SGDClassifier (hinge)", None)] = (
        lambda: SGDClassifier(loss="hinge", random_state=0), True)
    out[("SGDClassifier (hinge)", "first chunk's")] = (
        lambda: SGDClassifier(loss="hinge", random_state=0,
                              class_weight=first_chunk_weights(y)), True)
    return out


def learn(make, stream, X, y):
    """``(model, CPU seconds, collapse warned)``."""
    classes = np.unique(y)
    model = make()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always", CollapseWarning)
        start = time.process_time()
        if stream:
            for begin in range(0, X.shape[0], CHUNK):
                model.partial_fit(X[begin:begin + CHUNK], y[begin:begin + CHUNK],
                                  classes=classes)
            if hasattr(model, "finish"):
                model.finish()
        else:
            model.fit(X, y)
        spent = time.process_time() - start
    warned = any(issubclass(r.category, CollapseWarning) for r in record)
    return model, spent, warned


def warm_up(y):
    X, labels = make_classification(300, n_features=5, random_state=1)
    for make, stream in contenders(labels).values():
        learn(make, stream, X, labels)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--kernel-rows", type=int, default=3_000)
    parser.add_argument("--test", type=int, default=20_000)
    parser.add_argument("--quick", action="store_true", help="6,000 rows, 2,000 for kernels")
    args = parser.parse_args()
    if args.quick:
        args.rows, args.kernel_rows, args.test = 6_000, 2_000, 10_000
    data = problems(args.rows, args.test)
    warm_up(None)
    lines = [
        f"Training rows: {args.rows:,} streamed in chunks of {CHUNK:,} (`partial_fit`); "
        f"IncrementalSVM learns the first {args.kernel_rows:,} of them (O(N²) memory; it equals "
        "SVC on the rows it learns: `tests/test_weights.py`), SVC all of them in one batch. "
        f"Test rows: the first {args.test:,} of the test file (IJCNN1) or generated. "
        "Features standardised by the training rows. CPU seconds of learning, compilation "
        "excluded; measured while other jobs shared the machine's 2 cores: rerun on an idle "
        "machine for times.",
        "",
        "| problem | model | class_weight | rows learnt | balanced accuracy | accuracy | "
        "CPU s | CollapseWarning |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for name, (Xtr, ytr, Xte, yte) in data.items():
        minority = min(np.bincount(ytr > 0)) / ytr.shape[0]
        print(f"{name}: {Xtr.shape[0]} rows, minority {minority:.1%}")
        for (model_name, weights), (make, stream) in contenders(ytr).items():
            limited = model_name.startswith("IncrementalSVM")
            rows = args.kernel_rows if limited else Xtr.shape[0]
            model, spent, warned = learn(make, stream, Xtr[:rows], ytr[:rows])
            predicted = model.predict(Xte)
            bacc = balanced_accuracy_score(yte, predicted)
            acc = accuracy_score(yte, predicted)
            label = "None" if weights is None else weights
            lines.append(f"| {name} | {model_name} | {label} | {rows:,} | {bacc:.3f} | "
                         f"{acc:.3f} | {spent:.2f} | {'yes' if warned else ''} |")
            print(lines[-1], flush=True)
    path = write_markdown("class_weight.md", "class_weight on imbalanced streams", lines)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
