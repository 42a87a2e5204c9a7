"""LASVM's online epoch on several threads, the kernel rows of the next examples computed
beside the steps of the current ones (issue 20).

On one thread an online iteration (Bordes, Ertekin, Weston & Bottou, "Fast Kernel Classifiers
with Online and Active Learning", JMLR 2005, section 3.2) is mostly one kernel row,
``K(x_k, x_s)`` over S, and the steps that use it: PROCESS, REPROCESS, the removals. With
several threads :func:`._expansion_core.prefetch_rows` computes the rows of the next examples
eight at a time in parallel, but the steps between run on one thread while the others wait:
on all of Adult a quarter of the fit (``benchmarks/threads/regions.md``), which caps two
threads at 1.6x.

The rows of the next examples do not depend on the steps in between, only on the positions
of S, and a row computed over an older S is completed when it is used (the columns S gained
since) as every prefetched row is. So each parallel region here runs one thread through the
steps of the examples whose rows are ready, on one-thread code and keeping the layout of S
(``lasvm_online(..., keep_layout=True)`` stops before a compaction), while the other threads
compute the rows of the next ``PREFETCH`` examples whose rows are missing, over a copy of
S's positions, into a buffer of their own. The thread of the steps joins them when it is
done: the column blocks are handed out by a shared count
(:func:`streamsvm._threads.fetch_add`), so the threads finish together whatever the split of
the work. After the region the rows enter the cache as :func:`prefetch_rows` would have left
them when the steps reached their examples (the holes S has by then set to 0).

Every kernel value is computed by the code that computes it on one thread and the steps are
the one-thread steps in the same order, so the model is the same bit for bit
(``tests/test_threads.py``); only the cache's order of use, and so which rows it recomputes,
differs.
"""

import numpy as np
from numba import njit, prange

from .._threads import _set_threads, fetch_add, threads_now
from ..kernels._core import PARALLEL_BLOCK, parallel_worth
from ..kernels.cache import (
    CACHE_ID_META,
    cache_acquire,
    cache_set_length,
    cache_set_pinned,
)
from ._expansion_core import (
    KERN_SPARSE,
    KEVALS,
    LAYOUT_DUE,
    N_COLS,
    N_LIVE,
    NEED_GROW,
    PREFETCH,
    PREFETCH_CSR_FEATURES,
    PREFETCH_WINDOW,
    STORE_DATA,
    STORE_INDICES,
    STORE_INDPTR,
    STORE_POS,
    STORE_ROW_GEN,
    STORE_SQ,
    STORE_XD,
    SV_GMETA,
    SV_PANEL,
    SV_PERM,
    WORK_SCATTER,
    _zero_holes,
    layout_due,
    prefetch_columns,
    prefetch_rows,
    unpin_prefetched,
)
from ._lasvm_core import RANDOM, lasvm_online


@njit(cache=True)
def lasvm_online_beside(pool, pstate, n_iter, n_seed, tau, Cp, Cn, store, kern, svs, cache,
                        work, cnt, st, rng):
    """:func:`._lasvm_core.lasvm_online` in pool order (RANDOM selection) with one REPROCESS
    per iteration (``delta_max = 0``), on the calling thread's numba threads with the next
    rows computed beside the steps (module docstring). The same stops; returns what it
    returns (0 or NEED_GROW) and the number of regions that ran the steps beside rows."""
    pos_of = store[STORE_POS]
    id_meta = cache[CACHE_ID_META]
    n_slots = cache[0].shape[0]
    ws = work[WORK_SCATTER]
    sparse = kern[KERN_SPARSE]
    if sparse:
        indptr = store[STORE_INDPTR]
        width = store[STORE_INDICES].shape[0] // max(indptr.shape[0] - 1, 1)
    else:
        width = store[STORE_XD].shape[1]
    buffer = np.empty((PREFETCH, svs[SV_PERM].shape[0]))
    ids = np.empty(PREFETCH, dtype=np.int64)
    slots = np.arange(PREFETCH)
    status = np.zeros(1, dtype=np.int64)
    next_block = np.zeros(1, dtype=np.int64)
    done = 0
    regions = 0
    while pstate[0] < pstate[1] and done < n_iter:
        start = pstate[0]
        k = pool[start]
        if pos_of[k] < 0 and id_meta[k, 0] < 0:  # as the one-thread loop does
            prefetch_rows(pool, start, pstate[1], store, kern, svs, cache, cnt, ws,
                          np.bool_(True))
        # the next examples whose rows are missing, after the ready ones the steps take now
        stop = min(pstate[1], start + PREFETCH_WINDOW)
        first = stop
        m = 0
        for t in range(start + 1, stop):
            e = pool[t]
            if pos_of[e] >= 0 or id_meta[e, 0] >= 0:
                continue
            if m == 0:
                first = t
            ids[m] = e
            m += 1
            if m == PREFETCH:
                break
        steps = min(first - start, n_iter - done)
        ncol = cnt[N_COLS]
        roomy = n_slots >= cnt[N_LIVE] + 4 * PREFETCH + 8 or n_slots >= 8 * PREFETCH
        if (m > 0 and roomy and ncol >= PREFETCH and parallel_worth(ncol, m * width)
                and not (sparse and ws.shape[0] > PREFETCH_CSR_FEATURES)
                and not layout_due(svs, cnt)):
            generation = svs[SV_GMETA][0]
            positions = svs[SV_PERM][:ncol].copy()  # the steps may leave holes meanwhile
            block = _csr_block(store, sparse, ids, m, ws.shape[0])
            live = np.zeros((ncol + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK, dtype=np.int64)
            next_block[0] = 0
            _steps_beside_rows(threads_now(), steps, n_seed, tau, Cp, Cn, pool, pstate, store,
                               kern, svs, cache, work, cnt, st, rng, block, ids, m, ncol,
                               positions, buffer, slots, next_block, live, status)
            cnt[KEVALS] += live.sum()
            regions += 1
            _cache_rows(ids, m, ncol, generation, buffer, store, svs, cache, cnt)
        else:
            status[0] = lasvm_online(pool, pstate, steps, RANDOM, 0, n_seed, tau, 0.0, Cp, Cn,
                                     store, kern, svs, cache, work, cnt, st, rng,
                                     np.bool_(False), np.bool_(False))
        if status[0] == LAYOUT_DUE:  # one step on its own, which compacts S or needs it grown
            done += pstate[0] - start
            start = pstate[0]
            status[0] = lasvm_online(pool, pstate, min(1, n_iter - done), RANDOM, 0, n_seed,
                                     tau, 0.0, Cp, Cn, store, kern, svs, cache, work, cnt, st,
                                     rng, np.bool_(False), np.bool_(False))
        done += pstate[0] - start
        if status[0] == NEED_GROW:
            break
    unpin_prefetched(pool, pstate[0], pstate[1], store, cache)
    return (NEED_GROW if status[0] == NEED_GROW else 0), regions


@njit(cache=True, parallel=True)
def _steps_beside_rows(threads, steps, n_seed, tau, Cp, Cn, pool, pstate, store, kern, svs,
                       cache, work, cnt, st, rng, block, ids, m, ncol, positions, buffer, slots,
                       next_block, live, status):
    """One region: thread 0 runs ``steps`` online iterations on one thread keeping the layout
    of S (``status[0]``: what :func:`lasvm_online` returned), then joins the others, which
    compute the rows of examples ``ids[:m]`` over ``positions`` (the first ``ncol`` columns)
    into ``buffer``, ``PARALLEL_BLOCK`` columns at a time as ``next_block`` hands them out
    (``live[b]``: the kernel values of block ``b``)."""
    sparse = kern[KERN_SPARSE]
    sq, panel = store[STORE_SQ], svs[SV_PANEL]
    n_blocks = live.shape[0]
    for t in prange(threads):
        if t == 0:
            previous = threads_now()
            _set_threads(1)
            status[0] = lasvm_online(pool, pstate, steps, RANDOM, 0, n_seed, tau, 0.0, Cp, Cn,
                                     store, kern, svs, cache, work, cnt, st, rng,
                                     np.bool_(True), np.bool_(False))
            _set_threads(previous)
        while True:
            b = fetch_add(next_block, np.int64(1))
            if b >= n_blocks:
                break
            lo = b * PARALLEL_BLOCK
            live[b] = prefetch_columns(store, sparse, block, sq, ids, slots, m, lo,
                                       min(lo + PARALLEL_BLOCK, ncol), positions, panel, kern,
                                       buffer)


@njit(cache=True)
def _csr_block(store, sparse, ids, m, n_features):
    """CSR examples ``ids[:m]`` laid out densely, one per column, as
    :func:`prefetch_rows` lays them out for :func:`._expansion_core.csr_column_dots`."""
    if not sparse:
        return np.zeros((0, PREFETCH))
    indptr, indices, data = store[STORE_INDPTR], store[STORE_INDICES], store[STORE_DATA]
    block = np.zeros((n_features, PREFETCH))
    for b in range(m):
        for p in range(indptr[ids[b]], indptr[ids[b] + 1]):
            block[indices[p], b] = data[p]
    return block


@njit(cache=True)
def _cache_rows(ids, m, ncol, generation, buffer, store, svs, cache, cnt):
    """Put the rows computed beside the steps in the cache, as :func:`prefetch_rows` leaves
    its rows: valid over ``ncol`` columns of layout ``generation``, pinned unless the cache
    has room beside S's rows, with the holes S has now set to 0 (as a row computed now)."""
    pos_of, row_gen = store[STORE_POS], store[STORE_ROW_GEN]
    perm = svs[SV_PERM]
    rows, slot_meta, id_meta, stats = cache
    roomy = rows.shape[0] >= cnt[N_LIVE] + 4 * PREFETCH + 8
    for b in range(m):
        k = ids[b]
        if pos_of[k] >= 0 or id_meta[k, 0] >= 0:
            continue  # the steps computed it meanwhile (its example's row was evicted)
        slot, _ = cache_acquire(rows, slot_meta, id_meta, stats, k, ncol)
        if slot < 0:
            return
        if not roomy:
            cache_set_pinned(slot_meta, id_meta, k, np.bool_(True))
        row = rows[slot, :ncol]
        row[:] = buffer[b, :ncol]
        _zero_holes(row, perm[:ncol])
        cache_set_length(slot_meta, slot, ncol)
        row_gen[k] = generation
