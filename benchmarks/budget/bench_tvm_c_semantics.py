"""The Twin Vector Machine given SVC's C reaches SVC's balanced accuracy only when C means the
same thing per example.

Writes: benchmarks/results/tvm_c_semantics.md
Run: python benchmarks/budget/bench_tvm_c_semantics.py

Twin Vector Machine: what C means, measured against SVC with the same C.

Each problem is learnt inside ``Pipeline(StandardScaler(), est)`` with SVC's default C = 1
and gamma = 'scale' by

* ``SVC(C=1)`` (the reference),
* ``TwinVectorMachine(C=1)``: today's defaults (C per original example, as SVC's; merging
  only twins whose majority labels agree),
* ``TwinVectorMachine(C=1, scale_C=True, same_label_merging=False)``: the rules before
  (the paper's Sec. 4.3 ``C_t Σ s = C B`` and its one-sided merging),
* the two changes one at a time.

Problems: IJCNN (5,000 random training rows of 49,990, 20,000 test rows; 1:9.4), a ring
(``make_circles``, noise 0.15, factor 0.6; 3,000 / 5,000), Adult (5,000 random rows; 1:3.2),
Banana (4,000 / 1,300) and the 15%-noisy checkerboard (5,000; tested on 5,000 clean points).
B = 100, one pass in the given (random) order. Balanced accuracy and g-means.

Second table, the TVM paper's Adult setting (Wang & Vucetic, "Twin Vector Machines for
Online Learning on a Budget", SDM 2009, Sec. 5: C = 1, "TVM kept the product of C and the
sum of twin weights at B for Adult"): the data of ``bench_tvm_tables.py`` (5,000 random
training rows, standardised, gamma = 1 / 123, the 16,281 test rows), accuracy of TVM with
B = 20 / 50 / 100 under that rule read literally (``scale_C=True``: ``C_t Σ s = B``, so each
original example is bounded by ``B / N`` at the end of a stream of N rows) and with C = 1
per original example (``scale_C=False``), beside the exact SVM (SVC) with the bound per
example that the literal rule reaches at N = 5,000 and at the paper's N = 21,048.

Run: ``python benchmarks/budget/bench_tvm_c_semantics.py``. Writes
``benchmarks/results/tvm_c_semantics.md``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from bench_tvm_tables import T3, prepare
from sklearn.datasets import make_circles
from sklearn.metrics import balanced_accuracy_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from streamsvm import TwinVectorMachine
from streamsvm.datasets import (
    DatasetNotFoundError,
    load_dataset,
    make_checkerboard,
    make_noisy_checkerboard,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for _common
from _common import write_markdown  # noqa: E402


def _dense(X):
    return X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)


def _named(name, n_train=5000, n_test=20_000):
    X, y = load_dataset(name)
    Xt, yt = load_dataset(name, subset="test")
    rows = np.random.default_rng(0).permutation(X.shape[0])[:n_train]
    test = np.random.default_rng(1).permutation(Xt.shape[0])[:n_test]
    return _dense(X)[rows], np.asarray(y)[rows], _dense(Xt)[test], np.asarray(yt)[test]


def _ring():
    X, y = make_circles(8000, noise=0.15, factor=0.6, random_state=0)
    y = np.where(y == 1, 1, -1)
    return X[:3000], y[:3000], X[3000:], y[3000:]


def _checkerboard():
    X, y = make_noisy_checkerboard(5000, random_state=0)
    Xt, yt = make_checkerboard(5000, random_state=1)
    return X, y, Xt, yt


PROBLEMS = {
    "IJCNN": lambda: _named("ijcnn1"),
    "ring": _ring,
    "Adult": lambda: _named("adult"),
    "Banana": lambda: _named("banana"),
    "N-Checkerboard": _checkerboard,
}

CONTENDERS = {
    "SVC(C=1)": lambda: SVC(C=1.0),
    "TVM(C=1), today": lambda: TwinVectorMachine(C=1.0),
    "TVM, paper's C rule only": lambda: TwinVectorMachine(C=1.0, scale_C=True),
    "TVM, paper's merging only": lambda: TwinVectorMachine(C=1.0, same_label_merging=False),
    "TVM(C=1), before": lambda: TwinVectorMachine(C=1.0, scale_C=True,
                                                  same_label_merging=False),
}


READING = """**Reading.** With SVC's C = 1, the rules before (the paper's `C Σ s = C B` and its
one-sided merging) predict the majority class of IJCNN (g-means 0) and of Adult, and lose
15 points of balanced accuracy on the noisy checkerboard. Each rule alone is part of it:
the paper's C rule regularises each original example about B / Σ s times more than SVC
(IJCNN, Adult, the checkerboard), and one-sided merging averages the minority's twins into
the majority's while f is negative everywhere (IJCNN). With both changes TVM(C=1) is level
with SVC(C=1) on IJCNN, the ring, Banana and the checkerboard, and 4-5 points of balanced
accuracy below it on Adult (B = 100 twins for 5,000 rows of 123 binary attributes)."""


PAPER_ADULT_N = 21_048  # the paper's Adult training set
ADULT_BUDGETS = (20, 50, 100)

ADULT_READING = """**Is our reading of the paper's C rule right?** Read literally ("TVM kept the
product of C and the sum of twin weights at B for Adult", with C = 1 for LIBSVM and IDSVM),
the rule bounds each original example by C_t = B / N at the end of a stream of N rows:
0.004-0.02 at our 5,000 rows, 0.001-0.005 at the paper's 21,048. That much regularisation
makes the exact SVM predict the majority class (76.4% for every B, with either bound), and TVM
under the literal rule gives 76.4 / 79.9 / 81.3% for B = 20 / 50 / 100, rising with B,
while the paper reports 83.0 / 82.9 / 82.1%, flat or falling with B. C = 1 per original
example (`scale_C=False`, the C of the paper's LIBSVM and IDSVM runs) gives 83.3 / 83.2 /
81.8%, within 0.4 point of every one of the paper's numbers and with its pattern. So the
sentence admits only our literal reading, but the paper's Adult row cannot come from it;
it matches a bound of C = 1 per original example, which we keep as the default
(`scale_C=True` remains the literal rule, for the paper's other data sets' "100 B"). We
count TVM on Adult with B <= 100 as reproduced, within 2 points of the paper, under that
reading. No bug was found: the literal rule's numbers are what its regularisation gives."""


def adult_paper_setting():
    """Accuracies (%) of the second table: {label: {B: acc}}."""
    X, y, Xt, yt = prepare("Adult", 5000)
    rbf = {"kernel": "rbf", "gamma": 1.0 / X.shape[1]}
    acc = lambda model: 100 * model.score(Xt, yt)  # noqa: E731
    rows = {"TVM, the paper's rule read literally (C Σ s = B)": {},
            "TVM, C = 1 per original example": {},
            f"SVC, C = B / {X.shape[0]:,} per example (literal rule at our N)": {},
            f"SVC, C = B / {PAPER_ADULT_N:,} per example (literal rule at the paper's N)": {}}
    literal, per_example, svc_ours, svc_paper = rows.values()
    for budget in ADULT_BUDGETS:
        literal[budget] = acc(TwinVectorMachine(budget=budget, C=1.0, scale_C=True, **rbf)
                              .fit(X, y))
        per_example[budget] = acc(TwinVectorMachine(budget=budget, C=1.0, **rbf).fit(X, y))
        svc_ours[budget] = acc(SVC(C=budget / X.shape[0], **rbf).fit(X, y))
        svc_paper[budget] = acc(SVC(C=budget / PAPER_ADULT_N, **rbf).fit(X, y))
        print("Adult, paper setting, B =", budget, {k: v[budget] for k, v in rows.items()},
              flush=True)
    paper = dict(zip((20, 50, 100, 200, 500), T3["Adult"][4:], strict=True))
    rows["TVM, the paper (Table 3)"] = {b: paper[b] for b in ADULT_BUDGETS}
    rows["SVC(C=1), for reference"] = {b: acc(SVC(C=1.0, **rbf).fit(X, y)) if b == 100
                                       else None for b in ADULT_BUDGETS}
    return rows


def g_means(y, p):
    pos, neg = y == y.max(), y != y.max()
    return float(np.sqrt((p[pos] == y[pos]).mean() * (p[neg] == y[neg]).mean()))


def main():
    rows = {}
    for name, load in PROBLEMS.items():
        try:
            X, y, Xt, yt = load()
        except DatasetNotFoundError as error:
            print(f"skipping {name}: {error}")
            continue
        for label, make in CONTENDERS.items():
            start = time.process_time()
            model = make_pipeline(StandardScaler(), make()).fit(X, y)
            cpu = time.process_time() - start
            p = model.predict(Xt)
            rows[name, label] = (balanced_accuracy_score(yt, p), g_means(yt, p), cpu)
            print(name, label, rows[name, label], flush=True)
    names = list(dict.fromkeys(n for n, _ in rows))
    lines = [
        "Balanced accuracy / g-means on the test rows, `Pipeline(StandardScaler(), est)`, "
        "C = 1 and gamma = 'scale' everywhere, B = 100 (method: the script's docstring). "
        "The CPU seconds of each fit (one run, a shared 2-core machine: an indication only) "
        "follow the table.",
        "",
        "| contender | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for label in CONTENDERS:
        cells = [f"{rows[n, label][0]:.3f} / {rows[n, label][1]:.3f}" for n in names]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += ["", READING, "", "CPU s per fit: " + "; ".join(
        f"{n}: " + ", ".join(f"{label} {rows[n, label][2]:.1f}" for label in CONTENDERS)
        for n in names)]
    try:
        adult = adult_paper_setting()
    except DatasetNotFoundError as error:
        print(f"skipping the Adult table: {error}")
        adult = None
    if adult is not None:
        lines += ["", "## Adult in the TVM paper's setting: which C rule?", "",
                  "Test accuracy % (method: the script's docstring).", "",
                  "| model | " + " | ".join(f"B = {b}" for b in ADULT_BUDGETS) + " |",
                  "|---|" + "---:|" * len(ADULT_BUDGETS)]
        for label, by_budget in adult.items():
            cells = ["–" if by_budget[b] is None else f"{by_budget[b]:.1f}"
                     for b in ADULT_BUDGETS]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        lines += ["", "SVC(C=1) does not depend on B (one value).", "", ADULT_READING]
    lines += ["", "Run: `python benchmarks/budget/bench_tvm_c_semantics.py`", ""]
    write_markdown("tvm_c_semantics.md", "Twin Vector Machine: C as SVC's C", lines)


if __name__ == "__main__":
    main()
