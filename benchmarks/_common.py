"""Helpers shared by the benchmark scripts: timing, result files, dataset availability."""

from __future__ import annotations

import datetime
import os
import pathlib
import platform
import re
import shlex
import sys
import time

import numpy as np

RESULTS = pathlib.Path(__file__).parent / "results"
ROOT = pathlib.Path(__file__).resolve().parents[1]
#: A line of a results page that names the command that made it.
RUN_LINE = re.compile(r"^[\s_*>-]*Run:", re.MULTILINE)


def timed(fn, *args, **kwargs):
    """``(result, seconds)`` of one call."""
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def mean_std(values) -> str:
    values = np.asarray(values, dtype=float)
    if values.size == 1:
        return f"{values[0]:.2f}"
    return f"{values.mean():.2f} ± {values.std(ddof=1):.2f}"


def machine_line() -> str:
    return (
        f"{datetime.date.today()} · {platform.processor() or platform.machine()} · "
        f"{os.cpu_count()} cores · Python {platform.python_version()}"
    )


def run_line(argv: list[str] | None = None) -> str | None:
    """``Run: `python benchmarks/<script>.py <options>``` for the running script (``sys.argv``),
    or None when it is not a script under ``benchmarks/``."""
    argv = sys.argv if argv is None else argv
    script = pathlib.Path(argv[0]).resolve() if argv and argv[0] else None
    if script is None or not script.is_file() or not script.is_relative_to(ROOT / "benchmarks"):
        return None
    words = ["python", script.relative_to(ROOT).as_posix(), *map(shlex.quote, argv[1:])]
    return f"Run: `{' '.join(words)}`"


def write_markdown(name: str, title: str, lines: list[str]) -> pathlib.Path:
    """Write ``results/<name>`` with its title, the machine line and ``lines``; a page whose
    lines name no ``Run:`` command gets the running script's (:func:`run_line`) under the
    machine line."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    if not RUN_LINE.search("\n".join(lines)) and (run := run_line()):
        lines = [run, "", *lines]
    path.write_text(f"# {title}\n\n_{machine_line()}_\n\n" + "\n".join(lines) + "\n")
    return path


def table1_arguments(description: str):
    """The options of the papers' Table 1 reproductions (StreamSVM, the Blurred Ball SVM):
    ``(orders, quick, svc_limit)`` from the command line (``--quick``: 3 orders)."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--orders", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="3000 training examples, 3 orders")
    parser.add_argument(
        "--svc-limit", type=int, default=50_000, help="train SVC on at most this many examples"
    )
    args = parser.parse_args()
    return (3 if args.quick else args.orders), args.quick, args.svc_limit


def accuracy_over_orders(make, X, y, X_test, y_test, orders: int):
    """One pass of ``make()`` over each of ``orders`` seeded permutations of ``(X, y)``:
    ``(test accuracies in %, mean seconds per pass)``, as the papers' order-averaged tables."""
    accuracies, seconds = [], []
    for seed in range(orders):
        order = np.random.default_rng(seed).permutation(X.shape[0])
        model, spent = timed(make().fit, X[order], y[order])
        accuracies.append(100 * model.score(X_test, y_test))
        seconds.append(spent)
    return accuracies, float(np.mean(seconds))


def linear_svc_reference(X, y, X_test, y_test, limit: int):
    """Batch linear SVC (C = 1) on the first ``min(n, limit)`` examples:
    ``([test accuracy in %], seconds, examples used)``."""
    from sklearn.svm import SVC

    n = min(X.shape[0], limit)
    svc, seconds = timed(SVC(kernel="linear", C=1.0).fit, X[:n], y[:n])
    return [100 * svc.score(X_test, y_test)], seconds, n


def file_order_and_shuffled_cell(make, X, y, train, test) -> str:
    """``"a / b"``: balanced accuracy of ``make_pipeline(StandardScaler(), make())`` trained on
    the rows ``train`` in file order (a) and the mean over two shuffles (b), on ``test``."""
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    values = []
    for seed in (None, 1, 2):
        rows = train if seed is None else train[np.random.default_rng(seed).permutation(len(train))]
        model = make_pipeline(StandardScaler(), make()).fit(X[rows], y[rows])
        values.append(balanced_accuracy_score(y[test], model.predict(X[test])))
    return f"{values[0]:.2f} / {np.mean(values[1:]):.2f}"
