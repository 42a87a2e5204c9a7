"""The compiled RBF kernel row, dense and CSR, is at least as fast as scikit-learn's rbf_kernel on
one thread.

Writes: benchmarks/results/kernels.md
Run: python benchmarks/library/bench_kernels.py

Kernel-row throughput: one example against a block of stored vectors, RBF kernel.

Compares, in the same process, scikit-learn's ``rbf_kernel(x, B)`` with

* ``_core.kernel_row_dense`` / ``_core.kernel_row_csr`` called from Python with the
  block's squared norms precomputed (what an algorithm keeps beside its stored vectors);
* the same functions called in a jitted loop (how algorithms call them: no Python overhead
  per row);
* ``Kernel.row(x, prepared_block)``, the Python API;
* for CSR, the rejected alternative: a merge of sorted index lists per block row.

Blocks of 1k / 10k / 100k rows, dense (100 features, and 784 like MNIST) and CSR shaped like
Reuters RCV1 (47,236 features, about 76 stored values per row with power-law feature
frequencies, rows of unit length). Reports rows per second (higher is better) and the
speed-up over scikit-learn. Run: ``python benchmarks/library/bench_kernels.py [--quick]``; writes
``benchmarks/results/kernels.md`` (``kernels_quick.md`` with ``--quick``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numba
import numpy as np
import scipy
import scipy.sparse as sp
import sklearn
from numba import njit
from sklearn.metrics.pairwise import rbf_kernel
from threadpoolctl import threadpool_limits

from streamsvm.kernels import RBF, Kernel, _core

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for _common
from _common import write_markdown  # noqa: E402

GAMMA = 0.1
RCV1_FEATURES = 47_236
RCV1_MEAN_NNZ = 76


def reuters_like(n_rows, rng):
    """CSR (n_rows, 47236): about 76 stored values per row (Poisson counts, features drawn
    from a Zipf-like popularity, duplicates merged), positive tf-idf-like values, unit rows."""
    popularity = np.cumsum(1.0 / np.arange(1, RCV1_FEATURES + 1) ** 0.8)
    popularity /= popularity[-1]
    counts = np.maximum(1, rng.poisson(RCV1_MEAN_NNZ, size=n_rows))
    rows = np.repeat(np.arange(n_rows, dtype=np.int64), counts)
    features = np.searchsorted(popularity, rng.random(rows.shape[0]))
    keys = np.unique(rows * RCV1_FEATURES + features)  # sorted by row, then feature
    rows, features = np.divmod(keys, RCV1_FEATURES)
    data = rng.exponential(size=keys.shape[0])
    X = sp.csr_matrix((data, (rows, features)), shape=(n_rows, RCV1_FEATURES))
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return sp.csr_matrix(sp.diags(1.0 / norms) @ X)


@njit(cache=True)
def rows_dense_in_jit(queries, query_sqnorms, block, block_sqnorms, gamma, out):
    for q in range(queries.shape[0]):
        _core.kernel_row_dense(queries[q], query_sqnorms[q], block, block_sqnorms, RBF, gamma,
                               3, 0.0, out)
    return out


@njit(cache=True)
def rows_csr_in_jit(q_indptr, q_indices, q_data, q_sqnorms, indptr, indices, data, sqnorms,
                    gamma, workspace, out):
    for q in range(q_indptr.shape[0] - 1):
        start, stop = q_indptr[q], q_indptr[q + 1]
        _core.kernel_row_csr(q_indices[start:stop], q_data[start:stop], q_sqnorms[q], indptr,
                             indices, data, sqnorms, RBF, gamma, 3, 0.0, workspace, out)
    return out


@njit(cache=True)
def rows_csr_merge_in_jit(q_indptr, q_indices, q_data, q_sqnorms, indptr, indices, data,
                          sqnorms, gamma, out):
    """The alternative to the scatter/gather row: a sorted-index merge per block row."""
    for q in range(q_indptr.shape[0] - 1):
        qs, qe = q_indptr[q], q_indptr[q + 1]
        for j in range(indptr.shape[0] - 1):
            start, stop = indptr[j], indptr[j + 1]
            out[j] = _core.kernel_csr(q_indices[qs:qe], q_data[qs:qe], q_sqnorms[q],
                                      indices[start:stop], data[start:stop], sqnorms[j], RBF,
                                      gamma, 3, 0.0)
    return out


def rows_per_second(run, n_rows_per_call, min_seconds):
    """Best of 3 measurements, each repeating ``run`` for at least ``min_seconds``."""
    run()  # warm-up (compilation, caches)
    best = np.inf
    for _ in range(3):
        calls = 0
        start = time.perf_counter()
        while True:
            run()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_seconds:
                break
        best = min(best, elapsed / (calls * n_rows_per_call))
    return 1.0 / best


BASELINE = "sklearn rbf_kernel, 1 BLAS thread"


def sklearn_rates(run, min_seconds):
    """scikit-learn's rate with BLAS on one thread (the baseline: our code is single-threaded)
    and with its default thread count."""
    with threadpool_limits(1):
        single = rows_per_second(run, 1, min_seconds)
    threads = rows_per_second(run, 1, min_seconds)
    return {BASELINE: single, "sklearn rbf_kernel, default BLAS threads": threads}


def bench_dense(n_rows, n_features, rng, min_seconds):
    block = rng.normal(size=(n_rows, n_features))
    queries = rng.normal(size=(16, n_features))
    block_sqnorms = _core.sqnorms_dense(block, np.empty(n_rows))
    query_sqnorms = _core.sqnorms_dense(queries, np.empty(16))
    out = np.empty(n_rows)
    kernel = Kernel("rbf", gamma=GAMMA)
    prepared = kernel.prepare(block)
    expected = rbf_kernel(queries[:1], block, gamma=GAMMA)[0]
    got = _core.kernel_row_dense(queries[0], query_sqnorms[0], block, block_sqnorms, RBF, GAMMA,
                                 3, 0.0, out)
    assert np.allclose(got, expected, rtol=1e-9, atol=1e-12)
    return {
        **sklearn_rates(lambda: rbf_kernel(queries[:1], block, gamma=GAMMA), min_seconds),
        "ours, njit from Python": rows_per_second(
            lambda: _core.kernel_row_dense(queries[0], query_sqnorms[0], block, block_sqnorms,
                                           RBF, GAMMA, 3, 0.0, out), 1, min_seconds),
        "ours, njit in a jitted loop": rows_per_second(
            lambda: rows_dense_in_jit(queries, query_sqnorms, block, block_sqnorms, GAMMA, out),
            16, min_seconds),
        "ours, Kernel.row (prepared block)": rows_per_second(
            lambda: kernel.row(queries[0], prepared), 1, min_seconds),
        "ours, Kernel.row (raw block: norms recomputed)": rows_per_second(
            lambda: kernel.row(queries[0], block), 1, min_seconds),
    }


def bench_csr(block, queries, min_seconds):
    n_rows = block.shape[0]
    kernel = Kernel("rbf", gamma=GAMMA)
    prepared = kernel.prepare(block)
    q = kernel.prepare(queries)
    out = np.empty(n_rows)
    workspace = np.zeros(block.shape[1])
    x_indices, x_data = q.row_slice(0)
    expected = rbf_kernel(queries[0], block, gamma=GAMMA)[0]
    got = _core.kernel_row_csr(x_indices, x_data, q.sqnorms[0], prepared.indptr,
                               prepared.indices, prepared.data, prepared.sqnorms, RBF, GAMMA, 3,
                               0.0, workspace, out)
    assert np.allclose(got, expected, rtol=1e-9, atol=1e-12)
    merged = rows_csr_merge_in_jit(q.indptr[:2], q.indices, q.data, q.sqnorms, prepared.indptr,
                                   prepared.indices, prepared.data, prepared.sqnorms, GAMMA,
                                   np.empty(n_rows))
    assert np.allclose(merged, expected, rtol=1e-9, atol=1e-12)
    n_q = q.n_samples
    return {
        **sklearn_rates(lambda: rbf_kernel(queries[0], block, gamma=GAMMA), min_seconds),
        "ours, njit from Python": rows_per_second(
            lambda: _core.kernel_row_csr(x_indices, x_data, q.sqnorms[0], prepared.indptr,
                                         prepared.indices, prepared.data, prepared.sqnorms,
                                         RBF, GAMMA, 3, 0.0, workspace, out), 1, min_seconds),
        "ours, njit in a jitted loop": rows_per_second(
            lambda: rows_csr_in_jit(q.indptr, q.indices, q.data, q.sqnorms, prepared.indptr,
                                    prepared.indices, prepared.data, prepared.sqnorms, GAMMA,
                                    workspace, out), n_q, min_seconds),
        "ours, Kernel.row (prepared block)": rows_per_second(
            lambda: kernel.row(queries[0], prepared), 1, min_seconds),
        "ours, Kernel.row (raw block: norms recomputed)": rows_per_second(
            lambda: kernel.row(queries[0], block), 1, min_seconds),
        "alternative: index merge, jitted loop": rows_per_second(
            lambda: rows_csr_merge_in_jit(q.indptr, q.indices, q.data, q.sqnorms,
                                          prepared.indptr, prepared.indices, prepared.data,
                                          prepared.sqnorms, GAMMA, out), n_q, min_seconds),
    }


def format_rate(rate):
    return f"{rate:,.0f}" if rate >= 100 else f"{rate:.1f}"


def table(title, sizes, results):
    methods = list(next(iter(results.values())))
    lines = [f"### {title}", "",
             "| method | " + " | ".join(f"{n:,} rows" for n in sizes) + " |",
             "|---|" + "---|" * len(sizes)]
    for method in methods:
        cells = []
        for n in sizes:
            rate = results[n][method]
            ratio = rate / results[n][BASELINE]
            cells.append(format_rate(rate) + ("" if method == BASELINE else f" (×{ratio:.2g})"))
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return lines + [""]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small blocks, short timings (CI)")
    args = parser.parse_args()
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    min_seconds = 0.05 if args.quick else 0.4
    rng = np.random.default_rng(0)

    lines = [
        "Throughput of one RBF kernel row (one example against every row of a block), in rows "
        "per second, best of 3; in brackets the ratio to scikit-learn's `rbf_kernel(x, B)` "
        f"with BLAS limited to one thread. gamma = {GAMMA}. Our code is single-threaded. Our "
        "rows take the block's squared norms precomputed (the algorithms keep them beside "
        "the stored vectors); scikit-learn recomputes them and validates its input on every "
        "call, which is part of what is measured (it is what a per-example call costs).",
        "",
        f"numpy {np.__version__} · scipy {scipy.__version__} · "
        f"scikit-learn {sklearn.__version__} · numba {numba.__version__} · load average at "
        f"start {os.getloadavg()[0]:.2f} (a shared machine makes the numbers noisy; compare "
        "ratios)",
        "",
    ]
    for n_features in ([100] if args.quick else [100, 784]):
        results = {n: bench_dense(n, n_features, rng, min_seconds) for n in sizes}
        lines += table(f"Dense, {n_features} features (float64)", sizes, results)
        print("\n".join(lines[-len(results[sizes[0]]) - 5:]), flush=True)

    biggest = reuters_like(max(sizes), rng)
    queries = reuters_like(16, rng)
    results = {n: bench_csr(biggest[:n], queries, min_seconds) for n in sizes}
    lines += table(
        f"CSR, Reuters-like ({RCV1_FEATURES:,} features, "
        f"{biggest.nnz / biggest.shape[0]:.0f} stored values per row on average)",
        sizes, results)
    lines += [
        "Scatter/gather versus merge: the row scatters x into a dense workspace of length "
        "n_features once and gathers over the block's stored values (one branch-free pass), "
        "where the merge walks both sorted index lists for every block row; the table shows "
        "the difference.",
    ]
    print("\n".join(lines[-len(results[sizes[0]]) - 6:]), flush=True)
    path = write_markdown("kernels_quick.md" if args.quick else "kernels.md",
                          "Kernel rows: throughput against scikit-learn", lines)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
