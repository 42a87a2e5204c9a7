"""The budget kernel perceptron's default removal rule (errors on a window of recent rows) keeps a
balanced accuracy at least that of the margin rule of Crammer, Kandola & Singer (2003) at a
budget of 100.

Writes: benchmarks/results/budget_perceptron.md
Run: python benchmarks/budget/bench_budget_perceptron.py

Budget kernel perceptron: the removal rule, measured against the other budget methods.

Crammer, Kandola & Singer ("Online Classification on a Budget", NIPS 2003) remove the
stored example with the largest margin without itself (``removal="margin"``); Weston,
Bordes & Bottou ("Online (and Offline) on an Even Tighter Budget", AISTATS 2005) the one
whose removal leaves the fewest stored examples misclassified (``removal="errors"``);
``removal="window_errors"`` (default, with the last 300 rows; also shown with 100) counts
those errors on the last rows of the stream instead.
Each inside ``Pipeline(StandardScaler(), est)`` with B = 100 (pinned; the default is 300), RBF,
gamma = 'scale', one pass; beside them the other budget methods of the library (Forgetron
with SVC's kernel width, ``gamma_factor=1``, and RandomBudgetSVM with SVC's C = 1, B = 100)
and SVC (unbounded; left out above 20,000 rows).
Problems: Banana (4,000 / 1,300), Synthetic A (10,000 / 5,000 and 100,000 / 10,000, the
benchmark suite's linear clusters), the 4x4 checkerboard (5,000 / 3,000), and two
overlapping Gaussians (1,000 and 4,000 training rows, centres 2 standard deviations apart;
2,000 test rows). Balanced accuracy, and the CPU seconds of the budget perceptrons on
Synthetic A 100k (best of 3 fits, compilation excluded).

Run: ``python benchmarks/budget/bench_budget_perceptron.py``. Writes
``benchmarks/results/budget_perceptron.md``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import balanced_accuracy_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from streamsvm import BudgetPerceptron, Forgetron, RandomBudgetSVM
from streamsvm.datasets import (
    DatasetNotFoundError,
    load_dataset,
    make_checkerboard,
    make_synthetic_a,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for _common
from _common import write_markdown  # noqa: E402


def _gaussians(n_train):
    rng = np.random.default_rng(0)
    y = np.where(rng.random(6000) < 0.5, 1, -1)
    X = rng.normal(size=(6000, 2)) + 1.0 * y[:, None]
    return X[:n_train], y[:n_train], X[4000:], y[4000:]


PROBLEMS = {
    "Banana": lambda: (*load_dataset("banana"), *load_dataset("banana", subset="test")),
    "Synthetic A": lambda: (*make_synthetic_a(10_000, random_state=0),
                            *make_synthetic_a(5000, random_state=1)),
    "Synthetic A 100k": lambda: (*make_synthetic_a(100_000, random_state=0),
                                 *make_synthetic_a(10_000, random_state=1)),
    "Checkerboard": lambda: (*make_checkerboard(5000, random_state=0),
                             *make_checkerboard(3000, random_state=1)),
    "Gaussians 1k": lambda: _gaussians(1000),
    "Gaussians 4k": lambda: _gaussians(4000),
}
CONTENDERS = {
    "BudgetPerceptron, removal='margin' (CKS 2003)":
        lambda: BudgetPerceptron(budget=100, removal="margin"),
    "BudgetPerceptron, removal='errors' (WBB 2005)":
        lambda: BudgetPerceptron(budget=100, removal="errors"),
    "BudgetPerceptron, removal='window_errors' (default)":
        lambda: BudgetPerceptron(budget=100),
    "BudgetPerceptron, removal='window_errors', window=100":
        lambda: BudgetPerceptron(budget=100, window=100),
    "Forgetron (B=100)": lambda: Forgetron(budget=100, gamma_factor=1.0),
    "RandomBudgetSVM (B=100, C=1)": lambda: RandomBudgetSVM(budget=100, C=1.0, random_state=0),
    "SVC (unbounded)": lambda: SVC(),
}


READING = """**Reading.** The margin rule (Crammer, Kandola & Singer) removes the stored example
that the others classify best, so it keeps the ones they misclassify: on overlapping classes
(Banana, the Gaussians) the budget ends full of the other class's outliers and the model is
no better than chance. Checked against the paper's algorithm (margin beta = 0 by default,
unit updates, no bias, the removal before the insertion) it is the published rule; the
failure is the rule's, as Weston, Bordes & Bottou observed on noisy data. Their error rule
counts, for each candidate removal, the stored examples left misclassified (Banana 0.50 ->
0.85), but the stored examples are the stream's mistakes: on a long stream with 3.5% Bayes
error (Synthetic A, 100,000 rows) the budget fills with label noise that the error count on
that same noise protects, and the model swings between 71% and 96% from one 5,000 rows to
the next (0.837 at the end here; 77.0% accuracy in the benchmark suite). Counting the errors
on the last 300 rows of the stream instead (`removal="window_errors"`, the default; an
unbiased sample of the recent stream, kept beside the budget) holds 95-97% at every
snapshot and ends at 0.964, level with the Forgetron and the random-sample SVM, with half
the updates and less CPU time than the error rule. Over the six problems its mean is 0.860
(error rule 0.835, margin rule 0.650). The error rule stays ahead on the 4,000 Gaussians
(0.878 against 0.863) and on the noise-free checkerboard, where the mistakes are the
informative boundary points (0.666 against 0.620; the Forgetron and the random-sample SVM
0.52)."""


SVC_MAX_ROWS = 20_000
TIMED_PROBLEM = "Synthetic A 100k"


def _best_cpu_seconds(make, X, y, repeats=3):
    """Best CPU time of ``repeats`` fits after one that compiles."""
    make_pipeline(StandardScaler(), make()).fit(X[:200], y[:200])
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        make_pipeline(StandardScaler(), make()).fit(X, y)
        best = min(best, time.process_time() - start)
    return best


def main():
    scores, seconds = {}, {}
    for name, load in PROBLEMS.items():
        try:
            X, y, Xt, yt = load()
        except DatasetNotFoundError as error:
            print(f"skipping {name}: {error}")
            continue
        for label, make in CONTENDERS.items():
            if label.startswith("SVC") and X.shape[0] > SVC_MAX_ROWS:
                continue
            model = make_pipeline(StandardScaler(), make()).fit(X, y)
            scores[name, label] = balanced_accuracy_score(yt, model.predict(Xt))
            print(name, label, f"{scores[name, label]:.3f}", flush=True)
            if name == TIMED_PROBLEM and label.startswith("BudgetPerceptron"):
                seconds[label] = _best_cpu_seconds(make, X, y)
    names = list(dict.fromkeys(n for n, _ in scores))
    lines = [
        "Balanced accuracy on the test rows, `Pipeline(StandardScaler(), est)` with defaults "
        "(B = 100; method: the script's docstring). One seeded order each.",
        "",
        "| contender | " + " | ".join(names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for label in CONTENDERS:
        cells = [f"{scores[n, label]:.3f}" if (n, label) in scores else "–" for n in names]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if seconds:
        lines += ["", f"CPU seconds of one fit on {TIMED_PROBLEM} (best of 3, compilation "
                  "excluded, a shared 2-core machine): " + "; ".join(
                      f"{label.split(', ', 1)[1]} {cpu:.2f}" for label, cpu in seconds.items())]
    lines += ["", READING, "", "Run: `python benchmarks/budget/bench_budget_perceptron.py`", ""]
    write_markdown("budget_perceptron.md", "Budget kernel perceptron: removal rules", lines)


if __name__ == "__main__":
    main()
