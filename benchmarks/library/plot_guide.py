"""The user guide's figures (decision boundaries, learning curves, ROC on Adult) show the models
as streamsvm bench sets them up.

Writes: benchmarks/results/guide_roc.md, docs/img/boundaries.png, docs/img/learning_curves.png,
    docs/img/roc_adult.png
Run: python benchmarks/library/plot_guide.py

The user guide's figures: decision boundaries, learning curves and ROC curves.

Every model is set up exactly as in ``streamsvm bench`` (``streamsvm.bench.OUR_SETTINGS`` and
the tasks' paper parameters), so the pictures and the guide's decision table describe the
same models. Writes ``docs/img/boundaries.png``, ``docs/img/learning_curves.png`` and
``docs/img/roc_adult.png``.

Regenerate::

    PYTHONPATH=src STREAMSVM_DATA=/path/to/data python benchmarks/library/plot_guide.py
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import sys
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.linear_model import SGDClassifier  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

from streamsvm import metrics  # noqa: E402
from streamsvm.bench import OUR_SETTINGS, get_tasks  # noqa: E402
from streamsvm.datasets import make_checkerboard  # noqa: E402
from streamsvm.evaluate import holdout  # noqa: E402
from streamsvm.registry import get_estimator  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # benchmarks/, for _common
from _common import write_markdown  # noqa: E402

IMG = pathlib.Path(__file__).resolve().parents[2] / "docs" / "img"
ADULT_ROWS = 10_000

#: (panel title, label in OUR_SETTINGS) for the boundary and curve figures.
KERNEL_MODELS = [
    ("LASVM", "LASVM"),
    ("TVM, B = 100", "TVM (B=100)"),
    ("random budget, B = 100", "Random budget SVM (B=100)"),
    ("Forgetron, B = 100", "Forgetron (B=100)"),
    ("budget perceptron, B = 100", "Budget perceptron (B=100)"),
]
LINEAR_MODELS = [
    ("StreamSVM (L = 10)", "StreamSVM (L=10)"),
    ("Pegasos", "Pegasos (k=1)"),
    ("Blurred Ball (L = 10)", "BlurredBallSVM (L=10)"),
]


def ours(label, task):
    estimator, params = OUR_SETTINGS[label]
    return get_estimator(estimator)(**params(task))


def stream_fit(model, X, y, chunk=1000):
    for start in range(0, X.shape[0], chunk):
        model.partial_fit(X[start:start + chunk], y[start:start + chunk], classes=[-1, 1])
    model.finish()
    return model


def boundaries(tasks) -> pathlib.Path:
    """One row per task: SVC, then the kernel budget/online models, then one linear model."""
    panels = [("SVC (LIBSVM)", None), *KERNEL_MODELS, LINEAR_MODELS[0]]
    fig, axes = plt.subplots(len(tasks), len(panels), figsize=(2.6 * len(panels),
                                                                 2.7 * len(tasks)))
    for row, task in zip(axes, tasks, strict=True):
        X, y, Xt, yt = task.load()
        lo, hi = X.min(axis=0) - 0.1, X.max(axis=0) + 0.1
        gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], 200), np.linspace(lo[1], hi[1], 200))
        grid = np.c_[gx.ravel(), gy.ravel()]
        for ax, (title, label) in zip(row, panels, strict=True):
            if label is None:
                model = SVC(kernel="rbf", gamma=task.gamma, C=task.C).fit(X, y)
            else:
                model = stream_fit(ours(label, task), X, y)
            accuracy = metrics.accuracy(yt, model.predict(Xt))
            surface = model.decision_function(grid).reshape(gx.shape)
            ax.contourf(gx, gy, surface > 0, levels=[-0.5, 0.5, 1.5],
                        colors=["#f4d6cc", "#cfe0f1"])
            ax.contour(gx, gy, surface, levels=[0.0], colors="k", linewidths=0.8)
            shown = slice(0, min(600, X.shape[0]))
            ax.scatter(X[shown, 0], X[shown, 1], c=np.where(y[shown] == 1, "#1f5fa8", "#b8412c"),
                       s=3, linewidths=0)
            ax.set_title(f"{title}\n{task.name}: {100 * accuracy:.1f}%", fontsize=8)
            ax.set_xticks([])
            ax.set_yticks([])
    fig.suptitle("Decision boundaries after one pass (SVC: batch), test accuracy", fontsize=10)
    fig.tight_layout()
    path = IMG / "boundaries.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def learning_curves(adult) -> pathlib.Path:
    """Test accuracy against examples seen: a kernel stream and the Adult file."""
    X_cb, y_cb = make_checkerboard(60_000, random_state=1)
    Xt_cb, yt_cb = make_checkerboard(5_000, random_state=2)
    checker = get_tasks(["checkerboard"], quick=False)[0]
    X_ad, y_ad, Xt_ad, yt_ad = adult.load()
    setups = [
        ("checkerboard stream (RBF)", checker, X_cb, y_cb, Xt_cb, yt_cb,
         [*KERNEL_MODELS, LINEAR_MODELS[0]]),
        (f"Adult, first {ADULT_ROWS:,} rows (RBF for kernel models)", adult,
         X_ad, y_ad, Xt_ad, yt_ad,
         [KERNEL_MODELS[0], KERNEL_MODELS[1], KERNEL_MODELS[2], *LINEAR_MODELS[:2]]),
    ]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, (title, task, X, y, Xt, yt, models) in zip(axes, setups, strict=True):
        checkpoints = np.unique(np.geomspace(200, X.shape[0], 12).astype(int))
        for name, label in models:
            stream = ((X[s:s + 1000], y[s:s + 1000]) for s in range(0, X.shape[0], 1000))
            curve = holdout(ours(label, task), stream, Xt, yt, checkpoints=checkpoints,
                            classes=[-1, 1])
            ax.plot(curve["examples_seen"], 100 * curve["accuracy"], marker=".", label=name)
        sgd = SGDClassifier(random_state=0)
        seen, accuracy = [], []
        for start in range(0, X.shape[0], 1000):
            sgd.partial_fit(X[start:start + 1000], y[start:start + 1000], classes=[-1, 1])
            seen.append(min(start + 1000, X.shape[0]))
            accuracy.append(100 * sgd.score(Xt, yt))
        ax.plot(seen, accuracy, color="grey", linestyle="--", label="SGDClassifier (linear)")
        ax.set_xscale("log")
        ax.set_xlabel("examples seen")
        ax.set_ylabel("test accuracy %")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    path = IMG / "learning_curves.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def roc(adult) -> tuple[pathlib.Path, list[str]]:
    """ROC curves on Adult (24% positives), with AUC, PRBEP and training CPU seconds."""
    X, y, Xt, yt = adult.load()
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    lines = ["| model | AUC % | PRBEP % | train CPU s |", "|---|---:|---:|---:|"]
    models = [("SVC (LIBSVM)", None), *KERNEL_MODELS[:3],
              ("ActiveSVM (pool 59, early stop)", "ActiveSVM (pool 59, early stop)"),
              *LINEAR_MODELS[:2], ("SGDClassifier, 1 epoch", "sgd")]
    def train(label, X, y):
        if label is None:
            return SVC(kernel="rbf", gamma=adult.gamma, C=adult.C).fit(X, y)
        if label == "sgd":
            return stream_fit_sgd(X, y)
        return stream_fit(ours(label, adult), X, y)

    for name, label in models:
        train(label, X[:2000], y[:2000])  # warm-up: loading or compiling is not training
        start = time.process_time()
        model = train(label, X, y)
        seconds = time.process_time() - start
        scores = np.asarray(model.decision_function(Xt))
        fpr, tpr = metrics.roc_curve(yt, scores)[:2]
        auc = metrics.roc_auc(yt, scores)
        ax.plot(fpr, tpr, label=f"{name} (AUC {100 * auc:.1f})", linewidth=1)
        lines.append(f"| {name} | {100 * auc:.2f} | {100 * metrics.prbep(yt, scores):.2f} | "
                     f"{seconds:.1f} |")
    ax.plot([0, 1], [0, 1], color="lightgrey", linewidth=0.8)
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title(f"ROC on Adult, {ADULT_ROWS:,} training rows (one pass; SVC batch)",
                 fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    path = IMG / "roc_adult.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path, lines


def stream_fit_sgd(X, y):
    model = SGDClassifier(random_state=0)
    for start in range(0, X.shape[0], 1000):
        model.partial_fit(X[start:start + 1000], y[start:start + 1000], classes=[-1, 1])
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["boundaries", "curves", "roc"], action="append")
    only = set(parser.parse_args().only or ["boundaries", "curves", "roc"])
    IMG.mkdir(parents=True, exist_ok=True)
    quick = {t.name: t for t in get_tasks(["banana", "checkerboard"], quick=True)}
    # the first 10,000 training rows of Adult (SVC on all 32,561 takes ~10 CPU minutes)
    adult = dataclasses.replace(get_tasks(["adult"], quick=False)[0], n_train=ADULT_ROWS)
    if "boundaries" in only:
        print(boundaries([quick["banana"], quick["checkerboard"]]))
    if "curves" in only:
        print(learning_curves(adult))
    if "roc" in only:
        path, lines = roc(adult)
        notes = [f"Adult, first {ADULT_ROWS:,} training rows, all 16,281 test rows; RBF gamma = "
                 f"{adult.gamma}, C = {adult.C} for the kernel models, the settings of "
                 "`streamsvm bench` for the others; one pass in chunks of 1,000 (SVC: batch). "
                 f"Plot: `docs/img/{path.name}`.", "",
                 "Run: `python benchmarks/library/plot_guide.py --only roc`", "", *lines]
        print(path, write_markdown("guide_roc.md", "ROC on Adult (the user guide's figure)",
                                   notes))


if __name__ == "__main__":
    main()
