"""Prefetch of kernel rows: the missing rows of the next examples of the pool computed
together, column by column (each member row of S read once for the block), and put in the
cache before the online iterations that take them (:func:`prefetch_rows`). Pure jitted
functions over the state tuples described in :mod:`._expansion_core`; the same values as
:func:`._kernel_rows_core.kernel_row`.
"""

import numpy as np
from numba import njit, prange

from ..kernels._cache_core import (
    CACHE_ID_META,
    CACHE_SLOT_META,
    cache_acquire,
    cache_set_length,
    cache_set_pinned,
)
from ..kernels._core import PARALLEL_BLOCK, parallel_worth
from ._expansion_core import (
    KERN_SPARSE,
    KEVALS,
    N_COLS,
    N_LIVE,
    PREFETCH,
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
)
from ._kernel_rows_core import _panel_columns, column_dots, dots_to_columns

#: CSR: the most features for which prefetch_rows lays its block out densely (zeroed per block)
PREFETCH_CSR_FEATURES = 4096


@njit(cache=True)
def prefetch_rows(pool, start, end, store, kern, svs, cache, cnt, ws, pin, par=True):
    """Compute together the missing kernel rows of the next examples of ``pool[start:end]``
    that are outside S (up to ``PREFETCH`` of them among the next ``PREFETCH_WINDOW``) and put
    them in the cache, for the online iterations that will take them in this order.

    The same values as :func:`._kernel_rows_core.kernel_row` (same dot products), computed
    column by column: each stored member row is read once for the whole block instead of
    once per example, which is what bounds the speed of long dense rows (memory traffic, e.g.
    784 pixels), and on several threads the block takes one parallel region instead of one
    per example. CSR
    examples (``ws``: the scatter workspace, for the number of features) are laid out as a
    dense (features, PREFETCH) block, each member's stored values multiplied into the block's
    dot products in the order :func:`._kernel_rows_core._column_dots` adds them.

    A prefetched row must not push out another before it is used: the block runs when the
    cache has room for it beside the pinned rows of S or, with ``pin``, when the cache holds
    at least ``8 * PREFETCH`` rows, the prefetched rows being pinned (evicted last) until
    their examples join S (the caller processes them in order and unpins the rest when it
    stops: :func:`unpin_prefetched`). A row that is evicted anyway, or that S outgrows, is
    completed by :func:`._kernel_rows_core.kernel_row` (the result does not change, only the
    cost)."""
    ids = np.empty(PREFETCH, dtype=np.int64)
    slots = np.empty(PREFETCH, dtype=np.int64)
    m = prefetch_slots(pool, start, end, store, kern, cache, cnt, ws, pin, ids, slots)
    if m > 0:
        prefetch_fill(ids, slots, m, prefetch_block(store, kern, ids, m, ws), store, kern, svs,
                      cache, cnt, par)


@njit(cache=True)
def prefetch_slots(pool, start, end, store, kern, cache, cnt, ws, pin, ids, slots):
    """The first half of :func:`prefetch_rows`: take the examples and the cache slots of the
    rows it computes (into ``ids`` and ``slots``, in pool order), pinning them unless the cache
    has room beside S's rows. Returns how many, -1 when it declines (S too small, CSR rows too
    wide, the cache too small)."""
    pos_of = store[STORE_POS]
    rows, slot_meta, id_meta, stats = cache
    ncol = cnt[N_COLS]
    if prefetch_declines(kern, cache, cnt, ws, pin):
        return -1
    roomy = rows.shape[0] >= cnt[N_LIVE] + 4 * PREFETCH + 8
    m = 0
    stop = min(end, start + PREFETCH_WINDOW)
    t = next_missing(pool, start, stop, pos_of, id_meta)
    while t < stop and m < PREFETCH:
        k = pool[t]
        slot, valid = cache_acquire(rows, slot_meta, id_meta, stats, k, ncol)
        if not roomy:
            cache_set_pinned(slot_meta, id_meta, k, np.bool_(True))
        ids[m] = k
        slots[m] = slot
        m += 1
        # (taking a slot may evict a row met later: the scan reads the cache as it goes)
        t = next_missing(pool, t + 1, stop, pos_of, id_meta)
    return m


@njit(cache=True, inline="always")
def lacks_row(k, pos_of, id_meta):
    """Whether example ``k`` has no kernel row: outside S (a member's row is pinned) and not
    cached."""
    return pos_of[k] < 0 and id_meta[k, 0] < 0


@njit(cache=True, inline="always")
def next_missing(pool, t, stop, pos_of, id_meta):
    """The first position from ``t`` (``stop`` if none before it) whose example in ``pool``
    :func:`lacks_row`."""
    while t < stop and not lacks_row(pool[t], pos_of, id_meta):
        t += 1
    return t


@njit(cache=True)
def prefetch_declines(kern, cache, cnt, ws, pin):
    """Whether :func:`prefetch_rows` computes nothing now: S has fewer than ``PREFETCH``
    columns, CSR rows have more than ``PREFETCH_CSR_FEATURES`` features, or the cache lacks
    room for the rows beside S's (with ``pin``: holds fewer than ``8 * PREFETCH`` rows)."""
    n_slots, ncol = cache[0].shape[0], cnt[N_COLS]
    if ncol < PREFETCH or (kern[KERN_SPARSE] and ws.shape[0] > PREFETCH_CSR_FEATURES):
        return True
    roomy = n_slots >= cnt[N_LIVE] + 4 * PREFETCH + 8
    return not roomy and not (pin and n_slots >= 8 * PREFETCH)


@njit(cache=True)
def prefetch_block(store, kern, ids, m, ws):
    """CSR examples ``ids[:m]`` laid out densely, one per column (``ws``: the scatter
    workspace, for the number of features), for :func:`csr_column_dots`; empty for dense
    data."""
    if not kern[KERN_SPARSE]:
        return np.zeros((0, PREFETCH))
    indptr, indices, data = store[STORE_INDPTR], store[STORE_INDICES], store[STORE_DATA]
    block = np.zeros((ws.shape[0], PREFETCH))
    for b in range(m):
        for p in range(indptr[ids[b]], indptr[ids[b] + 1]):
            block[indices[p], b] = data[p]
    return block


@njit(cache=True)
def prefetch_width(store, kern):
    """Values per row that :func:`prefetch_rows` weighs its work by: the features of dense
    rows, the mean stored values of CSR rows."""
    if kern[KERN_SPARSE]:
        indptr = store[STORE_INDPTR]
        return store[STORE_INDICES].shape[0] // max(indptr.shape[0] - 1, 1)
    return store[STORE_XD].shape[1]


@njit(cache=True)
def prefetch_fill(ids, slots, m, block, store, kern, svs, cache, cnt, par=True):
    """The second half of :func:`prefetch_rows`: compute the rows of ``ids[:m]`` over S into
    their cache slots (in column blocks on several threads when worth it, else on one), and
    record them as valid over S's columns in its present layout."""
    sq, perm, panel, rows = store[STORE_SQ], svs[SV_PERM], svs[SV_PANEL], cache[0]
    sparse = kern[KERN_SPARSE]
    ncol = cnt[N_COLS]
    if par is not None and parallel_worth(ncol, m * prefetch_width(store, kern)):
        cnt[KEVALS] += prefetch_columns_in_blocks(store, sparse, block, sq, ids, slots, m, ncol,
                                                  perm, panel, kern, rows)
    else:
        # np.int64(0), not a literal 0: one compiled _panel_columns below
        cnt[KEVALS] += prefetch_columns(store, sparse, block, sq, ids, slots, m, np.int64(0),
                                        ncol, perm, panel, kern, rows)
    mark_prefetched(ids, slots, m, store, svs, cache, cnt)


@njit(cache=True, inline="always")
def mark_prefetched(ids, slots, m, store, svs, cache, cnt):
    """Record the prefetched rows as valid over S's columns in its present layout."""
    ncol, gen = cnt[N_COLS], svs[SV_GMETA][0]
    for b in range(m):
        cache_set_length(cache[CACHE_SLOT_META], slots[b], ncol)
        store[STORE_ROW_GEN][ids[b]] = gen


@njit(cache=True, inline="always")
def csr_column_dots(indptr, indices, data, block, s, j, slots, m, rows):
    """Column ``j`` of the prefetched rows (``slots[:m]``): the dot products of CSR member
    ``s`` with the block's examples (dense, one per column of ``block``), each summed over the
    member's stored values in order as :func:`._kernel_rows_core._column_dots` sums it (the
    same bits). Plain arrays, no state tuple or slice: called once per column of S."""
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0  # PREFETCH = 8 sums in registers
    for p in range(indptr[s], indptr[s + 1]):
        f = indices[p]
        v = data[p]
        a0 += block[f, 0] * v
        a1 += block[f, 1] * v
        a2 += block[f, 2] * v
        a3 += block[f, 3] * v
        a4 += block[f, 4] * v
        a5 += block[f, 5] * v
        a6 += block[f, 6] * v
        a7 += block[f, 7] * v
    for b, value in enumerate((a0, a1, a2, a3, a4, a5, a6, a7)):
        if b < m:
            rows[slots[b], j] = value


@njit(cache=True)
def unpin_prefetched(pool, start, end, store, cache):
    """Unpin the rows :func:`prefetch_rows` pinned for examples of ``pool[start:end]`` that
    have not joined S (the online loop stopped before them)."""
    pos_of = store[STORE_POS]
    for t in range(start, min(end, start + PREFETCH_WINDOW)):
        k = pool[t]
        if pos_of[k] < 0:
            cache_set_pinned(cache[CACHE_SLOT_META], cache[CACHE_ID_META], k, np.bool_(False))


@njit(cache=True, parallel=True)
def prefetch_columns_in_blocks(store, sparse, block, sq, ids, slots, m, ncol, perm, panel, kern,
                               rows):
    """:func:`prefetch_rows`' columns on several threads: fixed blocks of ``PARALLEL_BLOCK``
    columns, each computed as the one-thread loops compute it (the same bits). Returns the
    number of kernel values computed."""
    n_blocks = (ncol + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK
    live = np.zeros(n_blocks, dtype=np.int64)
    for blk in prange(n_blocks):
        lo = blk * PARALLEL_BLOCK
        live[blk] = prefetch_columns(store, sparse, block, sq, ids, slots, m, lo,
                                     min(lo + PARALLEL_BLOCK, ncol), perm, panel, kern, rows)
    return live.sum()


@njit(cache=True, inline="always")
def prefetch_columns(store, sparse, block, sq, ids, slots, m, lo, hi, perm, panel, kern, rows):
    """Columns ``lo .. hi - 1`` of the prefetched rows ``rows[slots[:m]]`` of examples
    ``ids[:m]`` over the layout ``perm`` (one block of :func:`prefetch_columns_in_blocks`, as
    the one-thread loops of :func:`prefetch_rows` compute each value). Returns the number of
    kernel values."""
    live = 0
    if panel.shape[0] > 0:
        for b in range(m):
            live += _panel_columns(ids[b], lo, hi, store, kern, perm, panel, rows[slots[b]])
        return live
    indptr, indices, data = store[STORE_INDPTR], store[STORE_INDICES], store[STORE_DATA]
    for j in range(lo, hi):
        s = perm[j]
        if s >= 0:
            if sparse:
                csr_column_dots(indptr, indices, data, block, s, j, slots, m, rows)
            else:
                column_dots(store[STORE_XD], s, j, ids, slots, m, rows)
    for b in range(m):
        live += dots_to_columns(rows[slots[b]], lo, hi, sq[ids[b]], sq, perm, kern)
    return live
