"""LASVM with n_jobs=2 loses its speed-up when another process keeps one of two cores busy.

Writes: benchmarks/threads/busy.md
Run: python benchmarks/threads/bench_busy.py > benchmarks/threads/busy.md

LASVM with ``n_jobs`` 1 and 2 on an idle machine and with one core kept busy.

The parallel regions of a fit (thousands) each wait for their slowest thread; a thread that
another process keeps off its core holds every region up. This measures it: LASVM (C = 1,
gamma = 0.05) on the first 8,000 rows of Adult as a dense array, wall seconds best of 2,
idle, then beside one process spinning on a core. Prints a Markdown table::

    python benchmarks/threads/bench_busy.py > benchmarks/threads/busy.md
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time

import numpy as np

from streamsvm import LASVM
from streamsvm.datasets import load_dataset

ROWS = 8_000
PARAMS = dict(C=1.0, gamma=0.05)


def best_wall(X, y, n_jobs, repeats=2):
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        LASVM(n_jobs=n_jobs, **PARAMS).fit(X, y)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    X, y = load_dataset("adult")
    X, y = np.asarray(X[:ROWS].todense()), y[:ROWS]
    for n_jobs in (1, 2):
        LASVM(n_jobs=n_jobs, **PARAMS).fit(X[:300], y[:300])  # compiles
    rows = [("idle", {n: best_wall(X, y, n) for n in (1, 2)})]
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(1.0)
        rows.append(("one core busy (a spinning process)", {n: best_wall(X, y, n) for n in (1, 2)}))
    finally:
        spinner.kill()
    print("# LASVM threads on a busy machine\n")
    print(f"_{time.strftime('%Y-%m-%d')} · {platform.machine()} · {os.cpu_count()} cores · "
          f"Python {platform.python_version()}_\n")
    print(f"LASVM (C = 1, gamma = 0.05) on the first {ROWS:,} rows of Adult, dense; wall "
          "seconds, best of 2, compilation excluded.\n")
    print("Run: `python benchmarks/threads/bench_busy.py > benchmarks/threads/busy.md`\n")
    print("| machine | n_jobs=1 s | n_jobs=2 s | n_jobs=2 against 1 |")
    print("|---|---:|---:|---:|")
    for label, t in rows:
        print(f"| {label} | {t[1]:.2f} | {t[2]:.2f} | {t[1] / t[2]:.2f}x |")


if __name__ == "__main__":
    main()
