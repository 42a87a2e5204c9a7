"""The Blurred Ball SVM reproduces the single-pass accuracies of Table 1 of Nathan & Raghvendra
(2014) with lookahead 0 and 10.

Writes: benchmarks/results/blurred_table1.md
Run: python benchmarks/blurred/bench_blurred_table1.py --orders 20

Blurred Ball SVM's Table 1 (Nathan & Raghvendra), reproduced.

Single-pass test accuracy (%) of the Blurred Ball SVM with lookahead L = 0 and L = 10 (the
paper's ε and C), averaged over random stream orders with the standard deviation, beside
StreamSVM (L = 10, run here), scikit-learn's SVC (linear kernel, batch, run here) and the
paper's numbers. For each Blurred Ball run the table also gives the plain final-ball
classifier of the same cover ("last"), the ROC AUC of Algorithm 2's scores, the balls and core
points kept, and the training time.

Run: ``python benchmarks/blurred/bench_blurred_table1.py [--quick] [--orders 20]``.
Writes ``benchmarks/results/blurred_table1.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from streamsvm import BlurredBallSVM, StreamSVM
from streamsvm.datasets import DatasetNotFoundError, load_dataset
from streamsvm.metrics import roc_auc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for _common
from _common import (  # noqa: E402
    accuracy_over_orders,
    linear_svc_reference,
    mean_std,
    table1_arguments,
    timed,
    write_markdown,
)

# Table 1 of the paper: LibSVM, Perceptron, LASVM, StreamSVM (L=10), Blurred L=0, Blurred L=10
PAPER = {
    "MNIST (0vs1)": (99.52, 99.47, 98.82, 99.71, 99.89, 99.93),
    "MNIST (8vs9)": (96.57, 95.9, 90.32, 94.7, 97.14, 97.23),
    "IJCNN": (91.64, 64.82, 74.27, 87.81, 89.64, 90.82),
    "w3a": (98.29, 89.27, 96.95, 89.06, 97.14, 97.08),
}

# The paper's settings: MNIST eps = 1e-3, C = inf; IJCNN eps = 1e-6, C = 1e5. It does not give
# them for w3a; IJCNN's are used.
SETTINGS = {
    "MNIST (0vs1)": {"epsilon": 1e-3, "C": np.inf},
    "MNIST (8vs9)": {"epsilon": 1e-3, "C": np.inf},
    "IJCNN": {"epsilon": 1e-6, "C": 1e5},
    "w3a": {"epsilon": 1e-6, "C": 1e5},
}


# Extra runs, reported in the detail table only: the sparse sets without the unit-norm rows.
VARIANTS = {"IJCNN": {"normalize": False}, "w3a": {"normalize": False}}


def named(name, n_train=None):
    def load():
        X, y = load_dataset(name)
        Xt, yt = load_dataset(name, subset="test")
        return (X[:n_train], y[:n_train], Xt, yt) if n_train else (X, y, Xt, yt)

    return load


DATASETS = {
    "MNIST (0vs1)": named("mnist-0v1"),
    "MNIST (8vs9)": named("mnist-8v9"),
    "IJCNN": named("ijcnn1", 35_000),
    "w3a": named("w3a"),
}


def run_blurred(X, y, Xt, yt, settings, lookahead, orders):
    out = {"acc": [], "last": [], "auc": [], "secs": [], "balls": [], "core": [], "updates": []}
    for seed in range(orders):
        order = np.random.default_rng(seed).permutation(X.shape[0])
        model = BlurredBallSVM(lookahead=lookahead, classifier="blurred", **settings)
        model, seconds = timed(model.fit, X[order], y[order])
        scores = model.decision_function(Xt)
        positive = model.classes_[1]
        predicted = np.where(scores > 0, positive, model.classes_[0])
        last = model.decision_function_of(Xt, "last")
        out["acc"].append(100 * np.mean(predicted == yt))
        out["last"].append(100 * np.mean(np.where(last > 0, positive, model.classes_[0]) == yt))
        out["auc"].append(100 * roc_auc(yt, scores, pos_label=positive))
        out["secs"].append(seconds)
        out["balls"].append(model.n_balls_)
        out["core"].append(model.n_core_points_)
        out["updates"].append(model.n_updates_)
    return out


def run(orders: int, quick: bool, svc_limit: int):
    rows = []
    for name, load in DATASETS.items():
        try:
            X, y, Xt, yt = load()
        except DatasetNotFoundError as exc:
            rows.append((name, f"skipped: {exc}"))
            continue
        if quick:
            X, y, Xt, yt = X[:3000], y[:3000], Xt[:1000], yt[:1000]
        results = {}
        for lookahead in (0, 10):
            results[f"L={lookahead}"] = run_blurred(
                X, y, Xt, yt, SETTINGS[name], lookahead, orders
            )
            if name in VARIANTS:
                results[f"L={lookahead} variant"] = run_blurred(
                    X, y, Xt, yt, {**SETTINGS[name], **VARIANTS[name]}, lookahead, orders
                )
        results["StreamSVM"] = accuracy_over_orders(lambda: StreamSVM(lookahead=10),
                                                    X, y, Xt, yt, orders)
        svc_accuracy, svc_seconds, n_svc = linear_svc_reference(X, y, Xt, yt, svc_limit)
        results["SVC"] = (svc_accuracy, svc_seconds)
        majority = 100 * max(np.mean(yt == c) for c in np.unique(yt))
        rows.append((name, X.shape, Xt.shape[0], n_svc, majority, results))
        print(name, {k: round(float(np.mean(v["acc"] if isinstance(v, dict) else v[0])), 2)
                     for k, v in results.items()}, flush=True)
    return rows


def main():
    orders, quick, svc_limit = table1_arguments(__doc__)
    rows = run(orders, quick, svc_limit)
    lines = [
        f"Test accuracy (%), mean ± std over {orders} random stream orders (one pass each); "
        "in brackets the paper's number. SVC (linear kernel, C = 1) is trained once, in batch, "
        f"on the first min(n, {svc_limit}) examples; StreamSVM is this library's, "
        "with lookahead 10 and its defaults. Seconds are mean training time per run.",
        "",
        "| dataset | n train × d | SVC linear (batch) | StreamSVM (L=10) | Blurred Ball (L=0) "
        "| Blurred Ball (L=10) | majority class |",
        "|---|---|---|---|---|---|---|",
    ]
    details = [
        "",
        "The same Blurred Ball runs in detail: accuracy of the plain final-ball classifier of "
        "the same cover (`classifier=\"last\"`), ROC AUC (%) of Algorithm 2's scores, balls and "
        "core points kept at the end, balls added, seconds per run.",
        "",
        "| dataset | L | ε, C | Algorithm 2 | final ball | AUC | balls | core points | updates "
        "| seconds |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if len(row) == 2:
            lines.append(f"| {row[0]} | {row[1]} |" + " |" * 5)
            continue
        name, shape, _, _, majority, results = row
        paper = PAPER[name]
        svc_accs, svc_secs = results["SVC"]
        ss_accs, ss_secs = results["StreamSVM"]
        cells = [
            f"{mean_std(svc_accs)} [{paper[0]}] · {svc_secs:.1f}s",
            f"{mean_std(ss_accs)} [{paper[3]}] · {ss_secs:.2f}s",
        ]
        for k, lookahead in enumerate((0, 10)):
            r = results[f"L={lookahead}"]
            cells.append(f"{mean_std(r['acc'])} [{paper[4 + k]}] · {np.mean(r['secs']):.2f}s")
            settings = SETTINGS[name]
            for key, note in ((f"L={lookahead}", ""), (f"L={lookahead} variant", " (raw rows)")):
                if key not in results:
                    continue
                r = results[key]
                details.append(
                    f"| {name}{note} | {lookahead} | {settings['epsilon']:g}, {settings['C']:g} "
                    f"| {mean_std(r['acc'])} | {mean_std(r['last'])} | {mean_std(r['auc'])} "
                    f"| {np.mean(r['balls']):.0f} | {np.mean(r['core']):.0f} "
                    f"| {np.mean(r['updates']):.0f} | {np.mean(r['secs']):.2f} |"
                )
        lines.append(
            f"| {name} | {shape[0]:,} × {shape[1]} | " + " | ".join(cells) + f" | {majority:.2f} |"
        )
    lines += details
    lines += [
        "",
        "Settings: the paper's ε and C (MNIST: ε = 1e-3, C = ∞; IJCNN: ε = 1e-6, C = 1e5; "
        "w3a: not given in the paper, IJCNN's used), the augmented map [yx; y; C^{-1/2}e] "
        "with rows scaled to unit norm, dense MNIST centred on the first chunk's mean (the "
        "sparse IJCNN and w3a are not centred; `center=\"auto\"`). IJCNN trains on the first "
        "35,000 rows of `ijcnn1.trn` (the paper's 35,000) and tests on the 91,701 of "
        "`ijcnn1.tst`; w3a trains on the 44,837 rows of `w3a.t` and tests on `w3a`, as the "
        "paper's table lists. The paper's LibSVM, Perceptron and LASVM columns are copied "
        "from StreamSVM's paper. \"(raw rows)\": `normalize=False`, rows left as stored "
        "(then k(x, x) is not constant, which the MEB equivalence assumes). Timings are on a "
        "2-core machine shared with other jobs.",
        "",
        "**Beside the paper.** MNIST 0 vs 1 and 8 vs 9 are within 0.4 point of the paper (0v1: "
        "99.92 and 99.93 against 99.89 and 99.93; 8v9: 96.76 and 97.08 against 97.14 and 97.23), "
        "and both beat StreamSVM clearly on 8 vs 9. w3a is within 0.5 point (both the paper's "
        "numbers and ours sit at the majority-class rate, 97.09%). IJCNN is not: 82.9 and 85.9 "
        "against 89.64 and 90.82, with a large spread over orders. The reason is measured in the "
        "detail table: with C = 1e5 the augmented points of IJCNN are almost hard-margin and not "
        "separable, so the MEB centres shrink towards 0 (on the first order the largest balls' "
        "centres have norm below 1e-3 and radii within 2e-7 of κ = √(2 + 1/C)) after a few dozen "
        "balls (the \"updates\" column: about 50 (L = 0) and 20 (L = 10) of 35,000 examples); "
        "from then on every point lies in the (1+ε)-expansion of a ball and the cover stops "
        "learning, so the classifier is made of the first few hundred examples of the order. The "
        "paper does not say how it prepared IJCNN; with the rows as stored (no unit norm) the "
        "same runs give the \"raw rows\" line. Both the paper's IJCNN numbers and ours are below "
        "the majority-class rate (90.50%), which batch SVC beats by about one point only. "
        "With a finite C the cover keeps learning: the library's defaults since 0.2 "
        "(ε = 1e-3, C = 3) give 90.14 ± 1.30 (L = 0) and 90.73 ± 0.84 (L = 10) over 20 "
        "orders, within half a point of the paper (`defaults_blurred.md`).",
        "",
        f"Run: `PYTHONPATH=src STREAMSVM_DATA=<data> python "
        f"benchmarks/blurred/bench_blurred_table1.py --orders {orders}`.",
    ]
    path = write_markdown(
        "blurred_table1.md" if not quick else "blurred_table1_quick.md",
        "Blurred Ball SVM, Table 1: single-pass accuracy",
        lines,
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
