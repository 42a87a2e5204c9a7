"""LASVM's online epoch on several threads, the kernel rows of the next examples computed
beside the steps of the current ones.

On one thread an online iteration (Bordes, Ertekin, Weston & Bottou, "Fast Kernel Classifiers
with Online and Active Learning", JMLR 2005, section 3.2) is mostly one kernel row,
``K(x_k, x_s)`` over S, and the steps that use it: PROCESS, REPROCESS, the removals. With
several threads :func:`._prefetch_core.prefetch_rows` computes the rows of the next examples
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
(:func:`streamsvm.utils.threads.fetch_add`), so the threads finish together whatever the split of
the work. After the region the rows enter the cache as :func:`prefetch_rows` would have left
them when the steps reached their examples (the holes S has by then set to 0).

Every kernel value is computed by the code that computes it on one thread, the steps are the
one-thread steps in the same order, and the rows enter the cache when and as one thread
puts them there (:func:`_prefetch_from`): the cache's hits and misses, the counters and the
model are those of one thread, bit for bit (``tests/test_threads.py``).
"""

import numpy as np
from numba import njit, prange

from ..kernels._cache_core import CACHE_ID_META
from ..kernels._core import PARALLEL_BLOCK, copy_into, parallel_worth
from ..utils.threads import _set_threads, fetch_add, threads_now
from ._expansion_core import (
    KERN_SPARSE,
    KEVALS,
    N_COLS,
    NEED_GROW,
    PREFETCH,
    PREFETCH_WINDOW,
    STORE_POS,
    STORE_SQ,
    SV_PANEL,
    SV_PERM,
    WORK_SCATTER,
    layout_due,
)
from ._kernel_rows_core import _zero_holes
from ._lasvm_core import RANDOM, lasvm_online
from ._prefetch_core import (
    lacks_row,
    mark_prefetched,
    next_missing,
    prefetch_block,
    prefetch_columns,
    prefetch_declines,
    prefetch_fill,
    prefetch_rows,
    prefetch_slots,
    prefetch_width,
    unpin_prefetched,
)


@njit(cache=True, nogil=True)  # one-vs-rest learners run side by side
def lasvm_online_beside(pool, pstate, n_iter, n_seed, tau, Cp, Cn, store, kern, svs, cache,
                        work, cnt, st, rng):
    """:func:`._lasvm_core.lasvm_online` in pool order (RANDOM selection) with one REPROCESS
    per iteration (``delta_max = 0``), on the calling thread's numba threads with the next
    rows computed beside the steps (module docstring). The same stops; returns what it
    returns (0 or NEED_GROW) and the number of regions that ran the steps beside rows."""
    pos_of = store[STORE_POS]
    id_meta = cache[CACHE_ID_META]
    ws = work[WORK_SCATTER]
    width = prefetch_width(store, kern)
    buffer = np.empty((PREFETCH, svs[SV_PERM].shape[0]))
    ids = np.empty(PREFETCH, dtype=np.int64)
    order = np.arange(PREFETCH)  # buffer row b holds the row of ids[b]
    status = np.zeros(1, dtype=np.int64)
    next_block = np.zeros(1, dtype=np.int64)
    done = 0
    regions = 0
    while pstate[0] < pstate[1] and done < n_iter:
        start = pstate[0]
        if layout_due(svs, cnt):  # one step as one thread takes it: S compacted (or grown) first
            status[0] = _steps(pool, pstate, np.int64(1), np.bool_(False), n_seed, tau, Cp, Cn,
                               store, kern, svs, cache, work, cnt, st, rng)
            done += pstate[0] - start
            if status[0] == NEED_GROW:
                break
            continue
        if lacks_row(pool[start], pos_of, id_meta):
            prefetch_rows(pool, start, pstate[1], store, kern, svs, cache, cnt, ws,
                          np.bool_(True), np.bool_(True))  # as the one-thread loop does
        # where the one-thread loop prefetches next (the first example after this one whose
        # row is missing) and the rows it takes there, as the cache stands now
        first = next_missing(pool, start + 1, pstate[1], pos_of, id_meta)
        m = _missing_rows(pool, first, pstate[1], pos_of, id_meta, ids)
        steps = min(first - start, n_iter - done)
        ncol = cnt[N_COLS]
        if (m > 0 and not prefetch_declines(kern, cache, cnt, ws, np.bool_(True))
                and parallel_worth(ncol, m * width)):
            positions = svs[SV_PERM][:ncol].copy()  # the steps may leave holes meanwhile
            block = prefetch_block(store, kern, ids, m, ws)
            next_block[0] = 0
            _steps_beside_rows(threads_now(), steps, n_seed, tau, Cp, Cn, pool, pstate, store,
                               kern, svs, cache, work, cnt, st, rng, block, ids, m, ncol,
                               positions, buffer, order, next_block, status)
            regions += 1
            # the one-thread loop prefetches at ``first`` unless S changes its layout there
            if status[0] == 0 and pstate[0] == first and not layout_due(svs, cnt):
                _prefetch_from(pool, first, pstate[1], ids, m, ncol, buffer, order, block, store,
                               kern, svs, cache, cnt, ws)
        else:
            status[0] = _steps(pool, pstate, steps, np.bool_(False), n_seed, tau, Cp, Cn, store,
                               kern, svs, cache, work, cnt, st, rng)
        done += pstate[0] - start  # (LAYOUT_DUE: the next turn takes the step on its own)
        if status[0] == NEED_GROW:
            break
    unpin_prefetched(pool, pstate[0], pstate[1], store, cache)
    return (NEED_GROW if status[0] == NEED_GROW else 0), regions


@njit(cache=True)
def _steps(pool, pstate, n_iter, keep_layout, n_seed, tau, Cp, Cn, store, kern, svs, cache, work,
           cnt, st, rng):
    """``n_iter`` online iterations as :func:`lasvm_online` runs them in pool order with one
    REPROCESS each, the prefetched rows left pinned (the driver unpins when it stops). Its
    arguments are NumPy scalars, not literals: one compiled version of the loop."""
    return lasvm_online(pool, pstate, n_iter, np.int64(RANDOM), None, n_seed, tau, 0.0,
                        Cp, Cn, store, kern, svs, cache, work, cnt, st, rng, keep_layout,
                        np.bool_(False), np.bool_(True))


@njit(cache=True, parallel=True)
def _steps_beside_rows(threads, steps, n_seed, tau, Cp, Cn, pool, pstate, store, kern, svs,
                       cache, work, cnt, st, rng, block, ids, m, ncol, positions, buffer, order,
                       next_block, status):
    """One region: thread 0 runs ``steps`` online iterations on one thread keeping the layout
    of S (``status[0]``: what :func:`lasvm_online` returned), then joins the others, which
    compute the rows of examples ``ids[:m]`` over ``positions`` (the first ``ncol`` columns)
    into ``buffer``, ``PARALLEL_BLOCK`` columns at a time as ``next_block`` hands them out."""
    sparse = kern[KERN_SPARSE]
    sq, panel = store[STORE_SQ], svs[SV_PANEL]
    n_blocks = (ncol + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK
    for t in prange(threads):
        if t == 0:
            previous = threads_now()
            _set_threads(1)
            status[0] = _steps(pool, pstate, steps, np.bool_(True), n_seed, tau, Cp, Cn, store,
                               kern, svs, cache, work, cnt, st, rng)
            _set_threads(previous)
        while True:
            b = fetch_add(next_block, np.int64(1))
            if b >= n_blocks:
                break
            lo = b * PARALLEL_BLOCK
            prefetch_columns(store, sparse, block, sq, ids, order, m, lo,
                             min(lo + PARALLEL_BLOCK, ncol), positions, panel, kern, buffer)


@njit(cache=True)
def _missing_rows(pool, first, end, pos_of, id_meta, ids):
    """The examples whose rows :func:`prefetch_rows` computes when the loop reaches
    ``pool[first]``, as the cache stands: up to ``PREFETCH`` among the next
    ``PREFETCH_WINDOW``, outside S and not cached, in pool order (into ``ids``; returns
    how many). The scan of :func:`prefetch_slots` without taking slots: taking them can
    evict a row it meets later, so the steps must not see the cache changed, and
    :func:`_prefetch_from` compares what it takes with this guess."""
    m = 0
    stop = min(end, first + PREFETCH_WINDOW)
    t = next_missing(pool, first, stop, pos_of, id_meta)
    while t < stop and m < PREFETCH:
        ids[m] = pool[t]
        m += 1
        t = next_missing(pool, t + 1, stop, pos_of, id_meta)
    return m


@njit(cache=True)
def _prefetch_from(pool, first, end, ids, m, ncol0, buffer, order, block, store, kern, svs,
                   cache, cnt, ws):
    """At ``pool[first]``, what :func:`prefetch_rows` does there, using the rows of ``ids[:m]``
    computed beside the steps over the first ``ncol0`` columns if it takes the same examples
    (the steps may have evicted a row that it then takes too): the same slots taken and
    pinned in the same order, the rows completed over the columns S gained meanwhile by the
    code it uses, the holes S has now set to 0. So the cache, every kernel value and the
    counters are those of one thread. Otherwise it computes its rows itself."""
    perm, panel = svs[SV_PERM], svs[SV_PANEL]
    rows = cache[0]
    ncol = cnt[N_COLS]
    if not lacks_row(pool[first], store[STORE_POS], cache[CACHE_ID_META]):
        return  # the steps computed its row (one of theirs was evicted): no prefetch here
    taken = np.empty(PREFETCH, dtype=np.int64)
    slots = np.empty(PREFETCH, dtype=np.int64)
    n = prefetch_slots(pool, first, end, store, kern, cache, cnt, ws, np.bool_(True), taken,
                       slots)
    if n <= 0:
        return
    if n != m or (taken[:m] != ids[:m]).any():
        prefetch_fill(taken, slots, n, prefetch_block(store, kern, taken, n, ws), store, kern,
                      svs, cache, cnt, np.bool_(True))
        return
    prefetch_columns(store, kern[KERN_SPARSE], block, store[STORE_SQ], ids, order, m, ncol0,
                     ncol, perm, panel, kern, buffer)
    for b in range(m):
        row = rows[slots[b], :ncol]
        copy_into(row, buffer[b, :ncol])
        cnt[KEVALS] += _zero_holes(row, perm[:ncol])
    mark_prefetched(ids, slots, m, store, svs, cache, cnt)
