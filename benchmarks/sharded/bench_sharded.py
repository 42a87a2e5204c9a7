"""Two local workers train over shards faster than one (StreamSVM, the Cascade LASVM's first
layer), at one machine's accuracy.

Writes: benchmarks/results/sharded.md, sharded.json, sharded_quick.md, sharded_quick.json,
    sharded_streamsvm.md, sharded_streamsvm_quick.md
Run: python benchmarks/sharded/bench_sharded.py

Training over shards (``streamsvm.sharded.fit_sharded``): wall-time speed-up of 2 local
workers over 1, and accuracy against one machine.

1. Speed-up (the acceptance of issue 21): StreamSVM over 4 ``.npz`` shards of N generated
   rows each (Synthetic A; N = 1,000,000, ``--quick`` 100,000), and the first layer of the
   Cascade LASVM over Adult's training file split into 4 svmlight shards (``--quick``: the
   first 8,000 rows). Wall time (``time.perf_counter``) of the work alone: the pool of
   spawned workers is started and every worker has loaded the numba code of the estimator
   (a warm-up fit) before the clock starts; the start-up is reported in its own column.
   The best of ``--repeats`` runs.
2. Accuracy: StreamSVM, Pegasos and the Cascade LASVM over 4 shards (file order) of Adult,
   IJCNN and MNIST 8-vs-9 against the same estimator fit on the whole training set
   (test accuracy of the published test sets; ``--quick``: at most 8,000 training rows).
   The Cascade learns the first ``--cascade-rows`` rows (8,000): with C = 1 a third of
   Adult's rows are support vectors, and every shard relearns the fed-back support set,
   so the Cascade of all 32,561 rows would take most of the budget.

The speed table also gives ``fit_sharded``'s two phases (scan, training) and the CPU
seconds of the worker processes, which should not grow from 1 worker to 2.

Run from the repository root: ``python benchmarks/sharded/bench_sharded.py [--quick]``
(< 8 minutes on an idle 2-core machine; ``--quick`` < 3). Writes
``benchmarks/results/sharded.md`` (``--quick``: ``sharded_quick.md``). With
``--streamsvm-only``: the two StreamSVM speed rows alone (< 3 minutes), written to
``benchmarks/results/sharded_streamsvm.md`` (``--quick``: ``sharded_streamsvm_quick.md``).
Wall times on a machine shared with other work are distorted: rerun on an idle one.
"""

from __future__ import annotations

import argparse
import bz2
import copy
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from streamsvm import LASVM, Pegasos, StreamSVM  # noqa: E402
from streamsvm.datasets import (  # noqa: E402
    dataset_available,
    load_dataset,
    make_synthetic_a,
    make_waveform,
)
from streamsvm.sharded import LocalBackend, fit_sharded  # noqa: E402
from streamsvm.sharded.cascade import _node_estimator  # noqa: E402
from streamsvm.sharded.shards import reconcile, resolve_shards  # noqa: E402
from streamsvm.sharded.worker import ScanTask, TrainTask, start_shared  # noqa: E402

from _common import RESULTS, write_markdown  # noqa: E402

N_SHARDS = 4
CASCADE_LASVM = LASVM(C=1.0, tau=1e-3, epochs=2)


def write_npz_shards(folder: Path, rows: int, make=None, prefix: str = "gen") -> str:
    """N_SHARDS ``.npz`` shards of ``rows`` rows of a generator (Synthetic A by default)."""
    make = make_synthetic_a if make is None else make
    for k in range(N_SHARDS):
        X, y = make(rows, random_state=100 + k)
        np.savez(folder / f"{prefix}-{k}.npz", X=X, y=y)
    return str(folder / f"{prefix}-*.npz")


def write_svmlight_shards(folder: Path, source: Path, prefix: str, limit: int | None) -> str:
    """The lines of a (bz2) svmlight file cut into N_SHARDS consecutive files."""
    with bz2.open(source, "rt") as f:
        lines = [line for line in f if line.strip()]
    if limit:
        lines = lines[:limit]
    bounds = np.linspace(0, len(lines), N_SHARDS + 1).astype(int)
    for k in range(N_SHARDS):
        (folder / f"{prefix}-{k}.svm").write_text("".join(lines[bounds[k] : bounds[k + 1]]))
    return str(folder / f"{prefix}-*.svm")


def started_backend(workers: int, warmups) -> tuple[LocalBackend, float, float]:
    """A started local backend whose workers have run each ``(estimator, shards)`` of
    ``warmups``: ``(backend, seconds to start the processes, seconds of the warm-up)``."""
    backend = LocalBackend(workers)
    begin = time.perf_counter()
    backend.start()
    started = time.perf_counter() - begin
    begin = time.perf_counter()
    for estimator, shards in warmups:
        for _ in range(3):  # each worker takes shards and loads the compiled code
            fit_sharded(estimator, shards, backend=backend, chunk_size=50_000)
    return backend, started, time.perf_counter() - begin


def first_layer(backend, estimator, pattern: str, chunk_size: int):
    """The Cascade's first layer alone: every shard learnt (and its support refit)."""
    shards = resolve_shards(pattern)
    layout = reconcile(shards, backend.run([ScanTask(s, chunk_size) for s in shards]))
    primed = start_shared(estimator, layout)
    polish = _node_estimator(primed)
    tasks = [TrainTask(s, layout, copy.deepcopy(primed), chunk_size, support_only=True,
                       polish=polish) for s in shards]
    begin = time.perf_counter()
    backend.run(tasks)
    return time.perf_counter() - begin


def best_of(repeats: int, run):
    """The run of least wall time (its first item) of ``repeats`` runs."""
    runs = [run() for _ in range(repeats)]
    return min(runs, key=lambda r: r if isinstance(r, float) else r[0])


def speed_rows(folder: Path, quick: bool, repeats: int, streamsvm_only: bool = False):
    """Rows ``(work, rows, 1 worker, 2 workers)``, each run ``(wall, scan wall, train wall,
    workers' CPU seconds)``, and the start-up per worker count."""
    rows_per_shard = 100_000 if quick else 1_000_000
    generated = write_npz_shards(folder, rows_per_shard)
    # Synthetic A has 2 features: a row costs less than reading it, so the shards' I/O and
    # the workers' messages weigh; Breiman's waveform (21 features, 3 classes one-vs-rest)
    # is the same count of rows with work per row
    waveform = write_npz_shards(folder, rows_per_shard, make_waveform, "waveform")
    X_warm, y_warm = make_synthetic_a(400, random_state=0)
    sparse = [(sp.csr_matrix(X_warm[i::4]), y_warm[i::4]) for i in range(4)]
    # the warm-up reads shards of the same files, so that every worker has loaded the
    # compiled code of exactly the timed path (array types and all) before the clock starts
    warmups = [(StreamSVM(), write_npz_shards(folder, 20_000, prefix="warm-gen")),
               (StreamSVM(), write_npz_shards(folder, 20_000, make_waveform, "warm-wave"))]
    if not streamsvm_only:
        warmups.append((CASCADE_LASVM, sparse))
    out = []
    adult = None
    if dataset_available("adult") and not streamsvm_only:
        adult = write_svmlight_shards(folder, Path(os.environ["STREAMSVM_DATA"]) /
                                      "adult.trn.bz2", "adult", 8000 if quick else None)
    times = {}
    for workers in (1, 2):
        backend, start_s, warm_s = started_backend(workers, warmups)
        with backend:
            times[("streamsvm", workers)] = best_of(repeats, lambda b=backend: _timed_fit(
                StreamSVM(), generated, b))
            times[("waveform", workers)] = best_of(repeats, lambda b=backend: _timed_fit(
                StreamSVM(), waveform, b))
            if adult:
                times[("cascade", workers)] = best_of(repeats, lambda b=backend: _timed_layer(
                    b, CASCADE_LASVM, adult, 5000))
        times[("start", workers)] = (start_s, warm_s)
    out.append(("StreamSVM, 4 shards of Synthetic A", f"{N_SHARDS} × {rows_per_shard:,}",
                times[("streamsvm", 1)], times[("streamsvm", 2)]))
    out.append(("StreamSVM, 4 shards of Waveform (21 features, 3 classes)",
                f"{N_SHARDS} × {rows_per_shard:,}", times[("waveform", 1)],
                times[("waveform", 2)]))
    if adult:
        out.append(("Cascade LASVM first layer (C=1, epochs=2), 4 shards of Adult",
                    "4 × " + ("2,000" if quick else "8,140"), times[("cascade", 1)],
                    times[("cascade", 2)]))
    return out, {w: times[("start", w)] for w in (1, 2)}


def _timed_layer(backend, estimator, pattern, chunk_size):
    cpu = workers_cpu(backend)
    wall = first_layer(backend, estimator, pattern, chunk_size)
    return wall, float("nan"), wall, workers_cpu(backend) - cpu


def workers_cpu(backend) -> float:
    """CPU seconds (user + system) the local backend's worker processes have used so far
    (Linux's ``/proc``; NaN elsewhere)."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total = 0.0
    try:
        for pid in backend._pool._processes:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    except (OSError, AttributeError, IndexError, ValueError):
        return float("nan")
    return total


def _timed_fit(estimator, pattern, backend) -> tuple[float, float, float, float]:
    """``(wall, scan wall, train wall, workers' CPU seconds)`` of one ``fit_sharded``."""
    timings = {}
    cpu = workers_cpu(backend)
    begin = time.perf_counter()
    fit_sharded(estimator, pattern, backend=backend, chunk_size=50_000, timings=timings)
    wall = time.perf_counter() - begin
    return wall, timings["scan"], timings["train"], workers_cpu(backend) - cpu


def accuracy_rows(folder: Path, quick: bool, cascade_rows: int):
    tasks = [("adult", "adult.trn.bz2"), ("ijcnn1", "ijcnn1.trn.bz2"), ("mnist-8v9", None)]
    limit = 8000 if quick else None
    out = []
    with LocalBackend(2) as backend:
        backend.start()
        for name, _ in tasks:
            if not dataset_available(name):
                continue
            X, y = load_dataset(name, subset="train")[:2]
            X_test, y_test = load_dataset(name, subset="test")[:2]
            if limit:
                X, y = X[:limit], y[:limit]
            for estimator in (StreamSVM(), Pegasos(), CASCADE_LASVM):
                label = "Cascade LASVM" if isinstance(estimator, LASVM) else \
                    type(estimator).__name__
                if isinstance(estimator, LASVM):
                    X, y = X[:cascade_rows], y[:cascade_rows]
                bounds = np.linspace(0, X.shape[0], N_SHARDS + 1).astype(int)
                parts = [(X[a:b], y[a:b])
                         for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
                begin = time.perf_counter()
                one = copy.deepcopy(estimator).fit(X, y)
                one_s = time.perf_counter() - begin
                timings = {}
                begin = time.perf_counter()
                sharded = fit_sharded(estimator, parts, backend=backend, timings=timings)
                sharded_s = time.perf_counter() - begin
                extra = f"{timings['passes']} passes" if "passes" in timings else ""
                out.append((name, X.shape[0], label, 100 * one.score(X_test, y_test),
                            100 * sharded.score(X_test, y_test), one_s, sharded_s, extra))
                print(out[-1], flush=True)
    return out


def speed_table(speed, start) -> list[str]:
    """The speed-up section: wall times, the scan and training phases (``fit_sharded``'s
    ``timings``) and the CPU seconds of the workers, then the start-up."""
    lines = [
        "## Speed-up of 2 local workers over 1",
        "",
        "Wall seconds of the whole `fit_sharded` (its scan and training phases in brackets); "
        "workers' CPU: user + system seconds of the worker processes during the run (the "
        "same work with 1 or 2 workers; a rise means the workers fight over something).",
        "",
        "| work | rows | 1 worker (s) | 2 workers (s) | speed-up | workers' CPU, 1 → 2 (s) |",
        "|---|---|---|---|---|---|",
    ]

    def cell(run):
        wall, scan, train, _ = run
        return f"{wall:.2f}" + ("" if np.isnan(scan) else f" ({scan:.2f} + {train:.2f})")

    for work, rows, one, two in speed:
        lines.append(f"| {work} | {rows} | {cell(one)} | {cell(two)} | {one[0] / two[0]:.2f}× "
                     f"| {one[3]:.2f} → {two[3]:.2f} |")
    return lines + ["", "Start-up, apart: " + "; ".join(
        f"{w} worker(s): processes {s:.1f} s, warm-up fits (numba code loaded) {warm:.1f} s"
        for w, (s, warm) in start.items()) + ".", ""]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small shards (< 3 minutes)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--cascade-rows", type=int, default=8000,
                        help="training rows of the Cascade in the accuracy part")
    parser.add_argument("--streamsvm-only", action="store_true",
                        help="the StreamSVM speed-up rows alone (< 3 minutes), written to "
                        "sharded_streamsvm.md")
    args = parser.parse_args(argv)
    begin = time.perf_counter()
    if args.streamsvm_only:
        with tempfile.TemporaryDirectory() as tmp:
            speed, start = speed_rows(Path(tmp), args.quick, args.repeats, streamsvm_only=True)
        lines = [
            "Run: `python benchmarks/sharded/bench_sharded.py --streamsvm-only"
            f"{' --quick' if args.quick else ''}` ({time.perf_counter() - begin:.0f} s). Wall "
            f"times (`time.perf_counter`), best of {args.repeats}, workers started and warm "
            "(start-up below). On a machine shared with other work the wall times and "
            "speed-ups are distorted; rerun on an idle machine.", ""] + speed_table(speed, start)
        stem = "sharded_streamsvm_quick" if args.quick else "sharded_streamsvm"
        path = write_markdown(f"{stem}.md", "Training StreamSVM over shards: speed-up of 2 "
                              "local workers", lines)
        print(path.read_text())
        return
    with tempfile.TemporaryDirectory() as tmp:
        speed, start = speed_rows(Path(tmp), args.quick, args.repeats)
        accuracy = accuracy_rows(Path(tmp), args.quick, args.cascade_rows)
    lines = [
        f"Run: `python benchmarks/sharded/bench_sharded.py{' --quick' if args.quick else ''}`"
        f" ({time.perf_counter() - begin:.0f} s). Wall times (`time.perf_counter`), best of "
        f"{args.repeats}, workers started and warm (start-up below). On a machine shared with "
        "other work the wall times and speed-ups are distorted; rerun on an idle machine.",
        "",
    ] + speed_table(speed, start) + [
        "## Accuracy over 4 shards (file order) against one machine",
        "",
        "Test accuracy (%) on the published test sets; 2 local workers; the one-machine fit "
        "is `fit` on the whole training set in this process.",
        "",
        "| data | training rows | model | one machine | 4 shards | one machine (s) | "
        "sharded (s) | notes |",
        "|---|---|---|---|---|---|---|---|"]
    for name, n, label, one, sharded, one_s, sharded_s, extra in accuracy:
        lines.append(f"| {name} | {n:,} | {label} | {one:.2f} | {sharded:.2f} | {one_s:.2f} | "
                     f"{sharded_s:.2f} | {extra} |")
    stem = "sharded_quick" if args.quick else "sharded"
    path = write_markdown(f"{stem}.md", "Training over shards: speed-up and accuracy", lines)
    (RESULTS / f"{stem}.json").write_text(json.dumps(
        {"speed": speed, "start": start, "accuracy": accuracy}, indent=1, default=float))
    print(path.read_text())


if __name__ == "__main__":
    main()
