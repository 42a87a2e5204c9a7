"""The Blurred Ball SVM's default C (3, with lookahead 10) is chosen by measurement against the
papers' hard margin, on their datasets and on small scaled tables.

Writes: benchmarks/results/defaults_blurred.md
Run: python benchmarks/defaults/bench_defaults_blurred.py

The Blurred Ball SVM's default C, chosen by measurement, and IJCNN beside the paper.

Nathan & Raghvendra, "Accurate Streaming Support Vector Machines" (2014), run their Blurred
Ball SVM with C = ∞ (hard margin) on MNIST and C = 1e5 on IJCNN (ε = 1e-3 and 1e-6). Three
parts, one pass each, random stream orders:

1. C ∈ {∞, 100, 10, 3, 1} with ε = 1e-3 and lookahead 0, then the defaults (C = 3,
   lookahead 10), on IJCNN (first 35,000 training rows, the 91,701 test rows), raw Adult
   (a9a), MNIST 8 vs 9 and w3a (the papers' split: train on ``w3a.t``): mean test accuracy
   over 3 orders and CPU seconds.
2. The same models inside ``Pipeline(StandardScaler(), model)`` on small tables
   (scikit-learn's bundled breast cancer, diabetes with progression > 250 and > 200, digits 0
   vs rest; a generated imbalanced table), 70/30 seeded split, training rows in file order and
   shuffled: balanced accuracy beside ``LinearSVC()``.
3. IJCNN against the paper's Table 1 (L = 0 and L = 10), 20 orders: the paper's settings and
   the library's defaults.

``--orders`` (default 20) for part 3, ``--grid-orders`` (default 3) for part 1; about three
minutes. Needs ``STREAMSVM_DATA``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, make_classification
from sklearn.svm import LinearSVC

from streamsvm import BlurredBallSVM
from streamsvm.datasets import load_dataset

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for _common
from _common import file_order_and_shuffled_cell, mean_std, write_markdown  # noqa: E402

C_VALUES = (np.inf, 100.0, 10.0, 3.0, 1.0)


def grid():
    """Column label -> maker: each C with lookahead 0, then the defaults."""
    makers = {f"C = {C:g}, L = 0": (lambda C=C: BlurredBallSVM(C=C, lookahead=0,
                                                              classifier="blurred"))
              for C in C_VALUES}
    # Algorithm 2's classifier throughout (the default since is "last": the defaults study)
    makers["defaults (C = 3, L = 10)"] = lambda: BlurredBallSVM(classifier="blurred")
    return makers
PAPER_IJCNN = {0: 89.64, 10: 90.82}  # Table 1, Blurred Ball SVM (L = 0), (L = 10)


def large_tables():
    def named(name, n_train=None):
        X, y = load_dataset(name)
        Xt, yt = load_dataset(name, subset="test")
        return (X[:n_train], y[:n_train], Xt, yt) if n_train else (X, y, Xt, yt)

    return {
        "IJCNN": lambda: named("ijcnn1", 35_000),
        "Adult (raw)": lambda: named("adult"),
        "MNIST (8vs9)": lambda: named("mnist-8v9"),
        "w3a": lambda: named("w3a"),
    }


def small_tables():
    out = {}
    data = load_breast_cancer()
    out["breast cancer (malignant 37%)"] = (data.data, np.where(data.target == 0, 1, -1))
    data = load_diabetes()
    out["diabetes > 250 (15%)"] = (data.data, np.where(data.target > 250, 1, -1))
    out["diabetes > 200 (27%)"] = (data.data, np.where(data.target > 200, 1, -1))
    data = load_digits()
    out["digits 0 vs rest (10%)"] = (data.data, np.where(data.target == 0, 1, -1))
    X, y = make_classification(400, 8, n_informative=3, weights=[0.75], flip_y=0.1,
                               class_sep=0.7, random_state=1)
    out["generated survival-like (28%)"] = (X, np.where(y == 1, 1, -1))
    return out


def one_pass(make, X, y, Xt, yt, seed):
    order = np.random.default_rng(seed).permutation(X.shape[0])
    start = time.process_time()
    model = make().fit(X[order], y[order])
    return 100 * model.score(Xt, yt), time.process_time() - start


def part_c_grid(orders):
    makers = grid()
    lines = ["## 1. C on the papers' datasets (ε = 1e-3)", "",
             "Mean test accuracy (%) over " + str(orders) + " orders · mean CPU seconds of a "
             "pass (a 2-core machine shared with other jobs).", "",
             "| dataset | " + " | ".join(makers) + " |",
             "|---|" + "---:|" * len(makers)]
    for name, load in large_tables().items():
        X, y, Xt, yt = load()
        cells = []
        for make in makers.values():
            runs = [one_pass(make, X, y, Xt, yt, s) for s in range(orders)]
            accs, secs = zip(*runs, strict=True)
            cells.append(f"{np.mean(accs):.2f} · {np.mean(secs):.2f}s")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines + [""]


def part_small_tables():
    lines = ["## 2. Small standardised tables: balanced accuracy", "",
             "`Pipeline(StandardScaler(), model)`, 70/30 split (seed 0); file order / mean of "
             "2 shuffles.", "",
             "| table | LinearSVC() | " + " | ".join(grid()) + " |",
             "|---|---:|" + "---:|" * len(grid())]
    for name, (X, y) in small_tables().items():
        order = np.random.default_rng(0).permutation(len(y))
        n_test = int(0.3 * len(y))
        test, train = np.sort(order[:n_test]), np.sort(order[n_test:])
        cells = []
        for make in [LinearSVC, *grid().values()]:
            cells.append(file_order_and_shuffled_cell(make, X, y, train, test))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines + [""]


def part_ijcnn(orders):
    X, y, Xt, yt = large_tables()["IJCNN"]()
    lines = ["## 3. IJCNN beside the paper's Table 1", "",
             f"Test accuracy (%), mean ± std over {orders} orders; 35,000 training rows, "
             "91,701 test rows; majority class "
             f"{100 * max(np.mean(yt == 1), np.mean(yt == -1)):.2f}%.", "",
             "| settings | L = 0 | L = 10 |", "|---|---:|---:|"]
    settings = {
        "the paper's: ε = 1e-6, C = 1e5": {"epsilon": 1e-6, "C": 1e5},
        "ε = 1e-3, C = 3 (the defaults; default L = 10)": {"epsilon": 1e-3, "C": 3.0},
    }
    for label, params in settings.items():
        cells = []
        for lookahead in (0, 10):
            def make(lookahead=lookahead, params=params):
                return BlurredBallSVM(lookahead=lookahead, classifier="blurred", **params)

            accs = [one_pass(make, X, y, Xt, yt, s)[0] for s in range(orders)]
            cells.append(f"{mean_std(accs)} [{PAPER_IJCNN[lookahead]}]")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines + [""]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--orders", type=int, default=20, help="orders for IJCNN (part 3)")
    parser.add_argument("--grid-orders", type=int, default=3, help="orders for part 1")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning)
    lines = part_c_grid(args.grid_orders) + part_small_tables() + part_ijcnn(args.orders)
    lines += [
        "Reading. With C = ∞ or 1e5 the augmented points of data that are not separable are "
        "almost hard-margin: the balls' centres shrink towards the origin and after a few "
        "dozen balls every point lies in the expansion of a kept ball, so the cover stops "
        "learning (see `blurred_table1.md`). A finite C keeps the points apart by their "
        "C^{-1/2} e coordinates: from C = 10 down, IJCNN reaches the paper's numbers and "
        "MNIST and w3a keep theirs. C = 3 is the default: within half a point of C = 1 on "
        "IJCNN, MNIST and w3a, 1.2 points below it on Adult, at 6-10 times less CPU time; "
        "the lookahead 10 of the paper's second setting (the default) adds up to a point "
        "more and lifts the diabetes table below. "
        "Hard margin stays available as `C=np.inf`. On the diabetes table with progression "
        "> 250 in file order no C lifts Algorithm 2's classifier above 0.6 balanced "
        "accuracy although its scores rank well (ROC AUC 0.76-0.87 with lookahead 0): the "
        "threshold sits on the majority class, a matter for class weights (issue 18, "
        "item 2).",
    ]
    path = write_markdown("defaults_blurred.md", "Blurred Ball SVM: the default C", lines)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
