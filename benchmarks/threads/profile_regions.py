"""The time a LASVM fit spends outside its parallel regions bounds what n_jobs can gain.

Writes: benchmarks/threads/regions.md
Run: LD_PRELOAD=/tmp/gompcount.so python benchmarks/threads/profile_regions.py adult 1,2

Parallel regions of a LASVM fit: how many, how long, and the time outside them.

Build the counter once (it wraps libgomp's ``GOMP_parallel``, numba's OpenMP layer)::

    gcc -O2 -shared -fPIC -o /tmp/gompcount.so benchmarks/threads/gompcount.c -ldl

then ``LD_PRELOAD=/tmp/gompcount.so python benchmarks/threads/profile_regions.py adult 1,2``.
With ``GOMP_FORCE1=1`` every region runs on the calling thread alone (numba still takes
its several-thread paths): the time inside the regions is then their work, the time outside
the serial part, and neither depends on other processes taking the second core.
"""

from __future__ import annotations

import ctypes
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from bench_threads import subsample, ten_feature_problem  # noqa: E402

from streamsvm import LASVM  # noqa: E402
from streamsvm.datasets import load_dataset  # noqa: E402


def problem(name):
    if name == "adult":
        X, y = load_dataset("adult")
        return X, y, dict(C=1.0, gamma=0.05)
    if name == "adult12":
        X, y = subsample(*load_dataset("adult"), 12_000)
        return X, y, dict(C=1.0, gamma=0.05)
    X, y, _, _ = ten_feature_problem()
    return X, y, dict(C=1.0, gamma=0.1)


def main():
    lib = ctypes.CDLL(None)
    try:
        lib.gomp_count.restype = ctypes.c_longlong
        lib.gomp_ns.restype = ctypes.c_longlong
    except AttributeError:
        sys.exit("preload gompcount.so (see the docstring)")
    name = sys.argv[1]
    jobs = [int(a) for a in sys.argv[2].split(",")]
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    X, y, params = problem(name)
    for n_jobs in jobs:
        LASVM(n_jobs=n_jobs, **params).fit(X[:300], y[:300])  # compiles
    base = None
    for n_jobs in jobs:
        best = None
        for _ in range(repeats):
            lib.gomp_reset()
            wall, cpu = time.perf_counter(), time.process_time()
            model = LASVM(n_jobs=n_jobs, **params).fit(X, y)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            if best is None or cpu < best[1]:
                best = (wall, cpu, lib.gomp_count(), lib.gomp_ns() / 1e9)
        if base is None:
            base = model
        elif not (np.array_equal(model.support_, base.support_)
                  and np.array_equal(model.dual_coef_, base.dual_coef_)):
            raise AssertionError(f"n_jobs={n_jobs} fitted another model")
        wall, cpu, regions, inside = best
        print(f"{name} n_jobs={n_jobs}: wall {wall:.3f} s, CPU {cpu:.3f} s, {regions} regions, "
              f"{inside:.3f} s inside ({1e6 * inside / max(regions, 1):.1f} us each), "
              f"{wall - inside:.3f} s outside", flush=True)


if __name__ == "__main__":
    main()
