"""StreamSVM, Pegasos and the Perceptron at their defaults, one pass on raw Adult, come within 3
points of test accuracy of SGDClassifier (issue 18, item 4).

Writes: benchmarks/results/defaults_adult_one_pass.md
Run: python benchmarks/defaults/bench_defaults_linear_adult.py

One pass with DEFAULTS on raw Adult: StreamSVM, Pegasos and the Perceptron against SGD.

The acceptance of issue 18 (item 4): each of StreamSVM (Rai, Daumé III & Venkatasubramanian,
"Streamed Learning: One-Pass SVMs", IJCAI 2009), Pegasos (Shalev-Shwartz, Singer, Srebro &
Cotter, "Pegasos: Primal Estimated sub-GrAdient SOlver for SVM", 2011) and the Perceptron,
with its default parameters, one pass over the raw Adult training rows (LIBSVM a9a, 32,561 ×
123 binary features, no scaling) given to ``partial_fit`` in chunks of 1,000, dense and CSR,
must come within 3 points of test accuracy of the median over 5 shuffles of one such pass of
scikit-learn's ``SGDClassifier(loss='hinge')`` (its defaults, ``partial_fit`` in chunks of
1,000 with the classes given). Shuffle seeds 0-4 permute the training rows; "file order" is
the rows as stored. Test accuracy on the 16,281 rows of the a9a test file.

The previous defaults (StreamSVM ``lookahead=1``; Pegasos ``alpha=1e-4`` without a bias) run
beside them, so the table shows the change. A last part runs the same models inside
``Pipeline(StandardScaler(), model)`` on small tables (scikit-learn's bundled breast cancer,
diabetes with progression > 250 and > 200, digits 0 vs rest, and generated credit- and
survival-like tables), where the old defaults collapsed: balanced accuracy beside
``LinearSVC()``. CPU time (``time.process_time``) of one pass, the
median over the runs, compilation excluded (every model learns a small stream first).

About a minute. Needs ``STREAMSVM_DATA``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, make_classification
from sklearn.linear_model import SGDClassifier
from sklearn.svm import LinearSVC

from streamsvm import Pegasos, Perceptron, StreamSVM
from streamsvm.datasets import load_dataset

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for _common
from _common import file_order_and_shuffled_cell, write_markdown  # noqa: E402

CHUNK = 1_000
SEEDS = (0, 1, 2, 3, 4)
MARGIN = 3.0  # points of accuracy below the SGD median that the acceptance allows

#: name -> (maker, the defaults of today?)
CONTENDERS = {
    "StreamSVM()": (lambda: StreamSVM(), True),
    "Pegasos()": (lambda: Pegasos(), True),
    "Perceptron()": (lambda: Perceptron(), True),
    "StreamSVM(lookahead=1) (old default)": (lambda: StreamSVM(lookahead=1), False),
    "Pegasos(alpha=1e-4, fit_intercept=False) (old default)": (
        lambda: Pegasos(alpha=1e-4, fit_intercept=False), False),
}


def sgd(seed):
    return SGDClassifier(loss="hinge", random_state=seed)


def one_pass(model, X, y, classes):
    """``partial_fit`` over consecutive chunks of ``CHUNK`` rows; returns CPU seconds."""
    start = time.process_time()
    for s in range(0, X.shape[0], CHUNK):
        model.partial_fit(X[s : s + CHUNK], y[s : s + CHUNK], classes=classes)
    return time.process_time() - start


def runs(make, X, y, X_test, y_test, *, seeded=False):
    """Test accuracies (%) of one pass in file order and on each shuffle, and the median CPU
    seconds of a pass."""
    classes = np.unique(y)
    accuracies, seconds = {}, []
    for seed in (None, *SEEDS):
        order = np.arange(X.shape[0]) if seed is None else (
            np.random.default_rng(seed).permutation(X.shape[0]))
        model = make(0 if seed is None else seed) if seeded else make()
        seconds.append(one_pass(model, X[order], y[order], classes))
        accuracies["file" if seed is None else seed] = 100 * model.score(X_test, y_test)
    return accuracies, float(np.median(seconds))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=None,
                        help="use only the first ROWS training rows (a quick check)")
    args = parser.parse_args()
    X, y = load_dataset("adult")
    X_test, y_test = load_dataset("adult", subset="test")
    X, X_test = sp.csr_matrix(X), sp.csr_matrix(X_test)
    if args.rows:
        X, y = X[: args.rows], y[: args.rows]
    layouts = {"dense": (X.toarray(), X_test.toarray()), "sparse (CSR)": (X, X_test)}
    majority = 100 * max(np.mean(y_test == 1), np.mean(y_test == -1))
    # compile every loop before timing
    for Xa, _ in layouts.values():
        for make, _ in CONTENDERS.values():
            one_pass(make(), Xa[:2500], y[:2500], np.unique(y))

    lines = [
        f"One pass in chunks of {CHUNK:,} over the raw Adult training rows ({X.shape[0]:,} × "
        f"{X.shape[1]}), test accuracy (%) on the a9a test file ({X_test.shape[0]:,} rows; "
        f"majority class {majority:.1f}%). Shuffles: seeds {', '.join(map(str, SEEDS))}. "
        "Acceptance: the median over the shuffles at most 3 points below SGD's median "
        "(same layout). CPU seconds: median of the passes, compilation excluded; measured on "
        "a 2-core machine shared with other jobs (the ratios between models are the "
        "meaningful part).",
        "",
    ]
    for layout, (Xa, Xt) in layouts.items():
        reference, ref_seconds = runs(sgd, Xa, y, Xt, y_test, seeded=True)
        ref_median = float(np.median([reference[s] for s in SEEDS]))
        lines += [
            f"## {layout}",
            "",
            "| model | file order | " + " | ".join(f"seed {s}" for s in SEEDS)
            + " | median | vs SGD median | within 3 pt | CPU s / pass |",
            "|---|---:|" + "---:|" * len(SEEDS) + "---:|---:|---|---:|",
            _row("SGDClassifier(loss='hinge')", reference, ref_median, ref_seconds, None),
        ]
        for name, (make, today) in CONTENDERS.items():
            accuracies, seconds = runs(make, Xa, y, Xt, y_test)
            lines.append(_row(name, accuracies, ref_median, seconds, today))
            print(layout, lines[-1], flush=True)
        lines.append("")
    lines += small_tables_part()
    lines += [
        "Reading. StreamSVM's ball never shrinks: with Algorithm 1 (lookahead 1) its "
        "3/2-approximate steps overshoot and after about twenty updates no Adult row lies "
        "outside it, so the model is made of the first rows of the stream (below the "
        "majority rate). Algorithm 2 with a lookahead of 300 solves the exact ball of the old "
        "ball and 300 outside points at a time, which keeps far more of the stream. Pegasos "
        "with lambda = 1e-4 takes huge first steps (eta_1 = 1/lambda) and has no bias; "
        "lambda = 1e-2 with a (regularised) bias is steadier on every order. The Perceptron "
        "was already within 3 points and is unchanged.",
    ]
    path = write_markdown("defaults_adult_one_pass.md",
                          "Defaults, one pass on raw Adult (a9a) against SGD", lines)
    print(f"wrote {path}")


def small_tables():
    """Small binary tables (+1 the minority), from scikit-learn's bundled data and its
    seeded generator."""
    out = {}
    data = load_breast_cancer()
    out["breast cancer (37%)"] = (data.data, np.where(data.target == 0, 1, -1))
    data = load_diabetes()
    out["diabetes > 250 (15%)"] = (data.data, np.where(data.target > 250, 1, -1))
    out["diabetes > 200 (27%)"] = (data.data, np.where(data.target > 200, 1, -1))
    data = load_digits()
    out["digits 0 vs rest (10%)"] = (data.data, np.where(data.target == 0, 1, -1))
    X, y = make_classification(600, 12, n_informative=4, weights=[0.85], flip_y=0.05,
                               random_state=0)
    out["generated credit-like (17%)"] = (X, np.where(y == 1, 1, -1))
    X, y = make_classification(400, 8, n_informative=3, weights=[0.75], flip_y=0.1,
                               class_sep=0.7, random_state=1)
    out["generated survival-like (28%)"] = (X, np.where(y == 1, 1, -1))
    return out


def small_tables_part():
    makers = {"LinearSVC()": LinearSVC,
              **{name: make for name, (make, _) in CONTENDERS.items()}}
    lines = ["## Small standardised tables", "",
             "`Pipeline(StandardScaler(), model)`, balanced accuracy on a seeded 30% test "
             "split, training rows in file order / mean of 2 shuffles. A collapse is a "
             "balanced accuracy <= 0.55 where LinearSVC reaches >= 0.70.", "",
             "| table | " + " | ".join(makers) + " |", "|---|" + "---:|" * len(makers)]
    for name, (X, y) in small_tables().items():
        order = np.random.default_rng(0).permutation(len(y))
        n_test = int(0.3 * len(y))
        test, train = np.sort(order[:n_test]), np.sort(order[n_test:])
        cells = []
        for make in makers.values():
            cells.append(file_order_and_shuffled_cell(make, X, y, train, test))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines + [""]


def _row(name, accuracies, ref_median, seconds, today):
    median = float(np.median([accuracies[s] for s in SEEDS]))
    gap = median - ref_median
    verdict = "" if today is None else ("yes" if gap >= -MARGIN else "**no**")
    if today is False:
        verdict += " (old)"
    cells = [f"{accuracies['file']:.1f}"] + [f"{accuracies[s]:.1f}" for s in SEEDS]
    return (f"| {name} | " + " | ".join(cells)
            + f" | {median:.1f} | {gap:+.1f} | {verdict} | {seconds:.3f} |")


if __name__ == "__main__":
    main()
