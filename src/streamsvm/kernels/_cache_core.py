"""The compiled half of the LRU cache of kernel rows (:mod:`streamsvm.kernels.cache`): the
layout of its four state arrays and the jitted functions over them (the two linked lists of
slots, acquire, pin, invalidate, the renumbering of columns and ids, the moves of a resize),
and kernel rows of :mod:`._core` computed through the cache. :class:`KernelCache
<streamsvm.kernels.cache.KernelCache>` allocates and sizes the arrays; the algorithms pass
``cache.state`` to these functions inside their own loops.
"""

import numpy as np
from numba import njit

from ._core import copy_into, kernel_row_csr, kernel_row_dense, normalize_row

# A cache of kernel rows indexed by an integer *id* (an example or a stored vector; ids are
# 0 .. n_ids - 1). Row ``id`` holds ``k(x_id, z_j)`` for the *columns* j = 0 .. length - 1,
# the caller's stored vectors in their current order. As vectors are added the rows get
# longer; a cached row shorter than needed is extended in place (only the missing columns
# are computed), as LIBSVM's cache does.
#
# State, four arrays (allocated and resized by ``KernelCache``):
#
# * ``rows``      float64 (n_slots, row_capacity): the cached values, one slot per row.
# * ``slot_meta`` int64 (n_slots + 2, 4): per slot OWNER (id or -1 when free), LENGTH
#   (valid prefix), PREV, NEXT (links). Entries ``n_slots`` and ``n_slots + 1`` are the
#   sentinels of two circular doubly linked lists in least- to most-recently-used order:
#   the *unpinned* list (free slots sit at its LRU end) and the *pinned* list.
# * ``id_meta``   int32 (n_ids, 2): per id its SLOT (-1 when not cached) and PINNED flag.
# * ``stats``     int64 (N_STATS,): hits, partial hits, misses, evictions, last slot.
#
# Eviction is O(1): the victim is the LRU unpinned slot; pinned rows (e.g. support vectors)
# are evicted only when every slot is pinned, then LRU first. The slot returned by the
# previous acquire is never the victim, so the two most recently acquired rows are both
# valid at once (what an SMO step on a pair needs); the cache therefore has 0 slots
# (disabled: every acquire is a miss and returns -1) or at least 2.

# slots of the state tuple ``KernelCache.state``
CACHE_ROWS = 0
CACHE_SLOT_META = 1
CACHE_ID_META = 2
CACHE_STATS = 3

SLOT_OWNER = 0
SLOT_LENGTH = 1
SLOT_PREV = 2
SLOT_NEXT = 3

ID_SLOT = 0
ID_PINNED = 1

STAT_HITS = 0  #: acquires that found the row with all requested columns
STAT_PARTIAL_HITS = 1  #: acquires that found the row shorter than requested (extended)
STAT_MISSES = 2  #: acquires that did not find the row (or found the cache disabled)
STAT_EVICTIONS = 3  #: cached rows dropped to make room (not counting invalidations)
STAT_LAST_SLOT = 4  #: slot returned by the latest acquire, -1 if none
N_STATS = 8


@njit(cache=True, inline="always")
def _unlink(slot_meta, slot):
    prev = slot_meta[slot, SLOT_PREV]
    nxt = slot_meta[slot, SLOT_NEXT]
    slot_meta[prev, SLOT_NEXT] = nxt
    slot_meta[nxt, SLOT_PREV] = prev


@njit(cache=True, inline="always")
def _link_before(slot_meta, slot, anchor):
    """Insert ``slot`` just before ``anchor``; before a sentinel = at the MRU end."""
    prev = slot_meta[anchor, SLOT_PREV]
    slot_meta[slot, SLOT_PREV] = prev
    slot_meta[slot, SLOT_NEXT] = anchor
    slot_meta[prev, SLOT_NEXT] = slot
    slot_meta[anchor, SLOT_PREV] = slot


@njit(cache=True)
def _link_first(slot_meta, slot, sentinel):
    """Insert ``slot`` at the LRU end of the list of ``sentinel``."""
    _link_before(slot_meta, slot, slot_meta[sentinel, SLOT_NEXT])


@njit(cache=True, inline="always")
def _list_sentinel(slot_meta, pinned):
    n_slots = slot_meta.shape[0] - 2
    return n_slots + 1 if pinned else n_slots


@njit(cache=True)
def cache_reset(slot_meta, id_meta, stats):
    """Empty the cache: every slot free, no id cached, counters zero; pin flags are kept."""
    n_slots = slot_meta.shape[0] - 2
    for sentinel in (n_slots, n_slots + 1):
        slot_meta[sentinel, SLOT_OWNER] = -1
        slot_meta[sentinel, SLOT_LENGTH] = 0
        slot_meta[sentinel, SLOT_PREV] = sentinel
        slot_meta[sentinel, SLOT_NEXT] = sentinel
    for slot in range(n_slots):
        slot_meta[slot, SLOT_OWNER] = -1
        slot_meta[slot, SLOT_LENGTH] = 0
        _link_before(slot_meta, slot, n_slots)
    for row_id in range(id_meta.shape[0]):
        id_meta[row_id, ID_SLOT] = -1
    stats[:] = 0
    stats[STAT_LAST_SLOT] = -1


@njit(cache=True)
def cache_peek(id_meta, row_id):
    """Slot holding row ``row_id``, or -1; touches nothing and counts nothing."""
    return id_meta[row_id, ID_SLOT]


@njit(cache=True, inline="always")
def _choose_victim(slot_meta, last_slot):
    """LRU unpinned slot, else LRU pinned slot, skipping ``last_slot``."""
    n_slots = slot_meta.shape[0] - 2
    for sentinel in (n_slots, n_slots + 1):
        slot = slot_meta[sentinel, SLOT_NEXT]
        if slot == last_slot:
            slot = slot_meta[slot, SLOT_NEXT]
        if slot != sentinel:
            return slot
    return -1  # unreachable with n_slots >= 2


@njit(cache=True)
def cache_acquire(rows, slot_meta, id_meta, stats, row_id, n_columns):
    """Get the slot of row ``row_id`` for its first ``n_columns`` columns.

    Returns ``(slot, valid)``: ``rows[slot, :valid]`` already holds ``k(x_id, z_j)`` for
    ``j < valid`` and the caller computes ``rows[slot, valid:n_columns]`` and then calls
    :func:`cache_set_length`. ``valid == n_columns`` is a hit, ``0 < valid < n_columns`` or
    a cached row of length 0 a partial hit; a miss evicts a slot (see above) and returns
    ``valid == 0``. With the cache disabled (no slots) the result is ``(-1, 0)``. The row
    becomes the most recently used of its list (pinned or not). ``n_columns`` must not
    exceed ``rows.shape[1]`` nor ``row_id`` ``id_meta.shape[0] - 1`` (grow the cache first;
    both raise ValueError). A returned slot stays valid until the
    acquire after the next one, or an invalidation, or a resize.
    """
    if n_columns > rows.shape[1]:
        raise ValueError("n_columns exceeds the cache row capacity; call KernelCache.grow")
    if row_id < 0 or row_id >= id_meta.shape[0]:
        raise ValueError("row_id is outside the cache's id capacity; call KernelCache.grow")
    n_slots = slot_meta.shape[0] - 2
    slot = id_meta[row_id, ID_SLOT]
    if slot >= 0:
        length = slot_meta[slot, SLOT_LENGTH]
        if length >= n_columns:
            stats[STAT_HITS] += 1
            valid = n_columns
        else:
            stats[STAT_PARTIAL_HITS] += 1
            valid = length
        _unlink(slot_meta, slot)
        _link_before(slot_meta, slot, _list_sentinel(slot_meta, id_meta[row_id, ID_PINNED]))
        stats[STAT_LAST_SLOT] = slot
        return slot, valid
    stats[STAT_MISSES] += 1
    if n_slots < 2:
        return -1, 0
    slot = _choose_victim(slot_meta, stats[STAT_LAST_SLOT])
    owner = slot_meta[slot, SLOT_OWNER]
    if owner >= 0:
        id_meta[owner, ID_SLOT] = -1
        stats[STAT_EVICTIONS] += 1
    slot_meta[slot, SLOT_OWNER] = row_id
    slot_meta[slot, SLOT_LENGTH] = 0
    id_meta[row_id, ID_SLOT] = slot
    _unlink(slot_meta, slot)
    _link_before(slot_meta, slot, _list_sentinel(slot_meta, id_meta[row_id, ID_PINNED]))
    stats[STAT_LAST_SLOT] = slot
    return slot, 0


@njit(cache=True, inline="always")
def cache_set_length(slot_meta, slot, n_columns):
    """Record that ``rows[slot, :n_columns]`` is valid (never shortens a row; no-op for -1)."""
    if slot >= 0 and n_columns > slot_meta[slot, SLOT_LENGTH]:
        slot_meta[slot, SLOT_LENGTH] = n_columns


@njit(cache=True)
def cache_invalidate(slot_meta, id_meta, stats, row_id):
    """Drop row ``row_id`` (e.g. its vector changed or was deleted); its slot becomes free."""
    slot = id_meta[row_id, ID_SLOT]
    if slot < 0:
        return
    id_meta[row_id, ID_SLOT] = -1
    slot_meta[slot, SLOT_OWNER] = -1
    slot_meta[slot, SLOT_LENGTH] = 0
    _unlink(slot_meta, slot)
    _link_first(slot_meta, slot, _list_sentinel(slot_meta, False))
    if stats[STAT_LAST_SLOT] == slot:
        stats[STAT_LAST_SLOT] = -1


@njit(cache=True)
def cache_set_pinned(slot_meta, id_meta, row_id, pinned):
    """Pin (``pinned=True``) or unpin row ``row_id``; pinned rows are evicted last.

    The flag is kept whether or not the row is cached. A cached row changing list moves to
    the MRU end of its new list.
    """
    flag = 1 if pinned else 0
    if id_meta[row_id, ID_PINNED] == flag:
        return
    id_meta[row_id, ID_PINNED] = flag
    slot = id_meta[row_id, ID_SLOT]
    if slot >= 0:
        _unlink(slot_meta, slot)
        _link_before(slot_meta, slot, _list_sentinel(slot_meta, pinned))


@njit(cache=True)
def cache_truncate_columns(slot_meta, n_columns):
    """Shorten every cached row to at most ``n_columns`` (stored vectors removed at the end)."""
    n_slots = slot_meta.shape[0] - 2
    for slot in range(n_slots):
        if slot_meta[slot, SLOT_LENGTH] > n_columns:
            slot_meta[slot, SLOT_LENGTH] = n_columns


@njit(cache=True)
def cache_swap_columns(rows, slot_meta, i, j):
    """Swap columns ``i`` and ``j`` in every cached row (the caller swapped two stored vectors).

    A row holding both keeps both (swapped); a row holding only the smaller one is cut to
    ``min(i, j)`` columns, since its entry would now belong to the other vector. O(n_slots).
    """
    if i == j:
        return
    low = min(i, j)
    high = max(i, j)
    n_slots = slot_meta.shape[0] - 2
    for slot in range(n_slots):
        length = slot_meta[slot, SLOT_LENGTH]
        if length > high:
            value = rows[slot, i]
            rows[slot, i] = rows[slot, j]
            rows[slot, j] = value
        elif length > low:
            slot_meta[slot, SLOT_LENGTH] = low


@njit(cache=True)
def cache_swap_ids(slot_meta, id_meta, i, j):
    """Exchange the rows and pin flags of ids ``i`` and ``j`` (the caller renumbered them)."""
    if i == j:
        return
    slot_i = id_meta[i, ID_SLOT]
    slot_j = id_meta[j, ID_SLOT]
    pinned_i = id_meta[i, ID_PINNED]
    id_meta[i, ID_SLOT] = slot_j
    id_meta[i, ID_PINNED] = id_meta[j, ID_PINNED]
    id_meta[j, ID_SLOT] = slot_i
    id_meta[j, ID_PINNED] = pinned_i
    if slot_i >= 0:
        slot_meta[slot_i, SLOT_OWNER] = j
    if slot_j >= 0:
        slot_meta[slot_j, SLOT_OWNER] = i


@njit(cache=True)
def cache_eviction_order(slot_meta):
    """Occupied slots in the order they would be evicted (unpinned LRU→MRU, then pinned)."""
    n_slots = slot_meta.shape[0] - 2
    order = np.empty(n_slots, dtype=np.int64)
    count = 0
    for sentinel in (n_slots, n_slots + 1):
        slot = slot_meta[sentinel, SLOT_NEXT]
        while slot != sentinel:
            if slot_meta[slot, SLOT_OWNER] >= 0:
                order[count] = slot
                count += 1
            slot = slot_meta[slot, SLOT_NEXT]
    return order[:count]


@njit(cache=True)
def cached_kernel_row_dense(rows, slot_meta, id_meta, stats, row_id, x, x_sqnorm, block,
                            block_sqnorms, code, gamma, degree, coef0, normalized, x_self,
                            block_self, scratch, par=True):
    """Row ``k(x, block[j])``, j < n = len(block), through the cache under id ``row_id``.

    Only the columns the cached row lacks are computed. ``normalized`` divides them by
    ``sqrt(x_self * block_self[j])`` (:func:`normalize_row`; ``x_self``/``block_self`` are
    ignored otherwise). With the cache disabled the row is computed into ``scratch`` (n,)
    (use different scratch arrays for rows needed at the same time). Returns
    ``(row, n_computed)``: a view of length n (valid as described in :func:`cache_acquire`)
    and the number of kernel values computed, for the evaluation counters. ``par`` as in
    :func:`kernel_row_dense` (None: one thread, no parallel function compiled).
    """
    n = block.shape[0]
    slot, valid = cache_acquire(rows, slot_meta, id_meta, stats, row_id, n)
    target = scratch if slot < 0 else rows[slot]
    if valid < n:
        part = kernel_row_dense(x, x_sqnorm, block[valid:n], block_sqnorms[valid:n], code,
                                gamma, degree, coef0, target[valid:n], par)
        if normalized:
            normalize_row(part, x_self, block_self[valid:n])
        cache_set_length(slot_meta, slot, n)
    return target[:n], n - valid


@njit(cache=True)
def cached_kernel_row_csr(rows, slot_meta, id_meta, stats, row_id, x_indices, x_data, x_sqnorm,
                          block_indptr, block_indices, block_data, block_sqnorms, code, gamma,
                          degree, coef0, normalized, x_self, block_self, workspace, scratch):
    """:func:`cached_kernel_row_dense` for a CSR ``x`` and a CSR block (``workspace`` as in
    :func:`kernel_row_csr`)."""
    n = block_indptr.shape[0] - 1
    slot, valid = cache_acquire(rows, slot_meta, id_meta, stats, row_id, n)
    target = scratch if slot < 0 else rows[slot]
    if valid < n:
        part = kernel_row_csr(x_indices, x_data, x_sqnorm, block_indptr[valid:n + 1],
                              block_indices, block_data, block_sqnorms[valid:n], code, gamma,
                              degree, coef0, workspace, target[valid:n])
        if normalized:
            normalize_row(part, x_self, block_self[valid:n])
        cache_set_length(slot_meta, slot, n)
    return target[:n], n - valid


@njit(cache=True)
def cache_transfer(old_rows, old_slot_meta, survivors, new_slots, rows, slot_meta, id_meta,
                   copy_rows):
    """Move the rows of the old slots ``survivors`` (in eviction order) into the slots
    ``new_slots`` of a freshly reset cache, keeping their lists and LRU order (used on
    resize); ``copy_rows=False`` when the values are already there (moved in place by
    :func:`cache_move_rows`).

    ``id_meta`` must already hold the pin flags, with every ID_SLOT = -1.
    """
    n_slots = slot_meta.shape[0] - 2
    for t in range(survivors.shape[0]):
        old_slot = survivors[t]
        new_slot = new_slots[t]
        owner = old_slot_meta[old_slot, SLOT_OWNER]
        length = old_slot_meta[old_slot, SLOT_LENGTH]
        if length > rows.shape[1]:
            length = rows.shape[1]
        if copy_rows:
            copy_into(rows[new_slot, :length], old_rows[old_slot, :length])
        slot_meta[new_slot, SLOT_OWNER] = owner
        slot_meta[new_slot, SLOT_LENGTH] = length
        id_meta[owner, ID_SLOT] = new_slot
        _unlink(slot_meta, new_slot)
        sentinel = n_slots + 1 if id_meta[owner, ID_PINNED] else n_slots
        _link_before(slot_meta, new_slot, sentinel)


@njit(cache=True)
def cache_move_rows(buffer, old_width, new_width, old_slots, lengths):
    """Move, inside the flat ``buffer``, row ``old_slots[t]`` of width ``old_width`` (its
    first ``lengths[t]`` values) to slot ``t`` of width ``new_width >= old_width``
    (``old_slots`` ascending): first packed at the old width in ascending order (each row
    moves to the same or an earlier place), then widened in descending order (to the same or
    a later place), so that no row is overwritten before it moved. Growing the rows this
    way touches no new memory but what the rows fill (a new array per doubling faulted in
    up to the whole budget again: ~0.13 s per doubling of a 100 MB cache)."""
    k = old_slots.shape[0]
    for t in range(k):
        src = old_slots[t] * old_width
        dst = t * old_width
        if src != dst:  # an earlier place at least a row away: no overlap
            _move_values(buffer, src, dst, lengths[t])
    if new_width != old_width:
        for t in range(k - 1, 0, -1):  # row 0 stays where it is
            _move_values(buffer, t * old_width, t * new_width, lengths[t])


@njit(cache=True, inline="always")
def _move_values(buffer, src, dst, length):
    """``buffer[dst : dst + length] = buffer[src : src + length]`` (as memmove): a slice
    copy where the two do not overlap (vectorised: ~10x the element loop moving ~100 MB
    rows when the cache widens), else the element loop in the safe direction."""
    if dst + length <= src or src + length <= dst:
        copy_into(buffer[dst : dst + length], buffer[src : src + length])
    elif dst < src:
        for c in range(length):
            buffer[dst + c] = buffer[src + c]
    else:
        for c in range(length - 1, -1, -1):
            buffer[dst + c] = buffer[src + c]


@njit(cache=True)
def cache_remap_ids(new_of_old, slot_meta, id_meta, stats):
    """Renumber the row ids (e.g. after the caller compacted its examples): id ``o`` becomes
    ``new_of_old[o]`` (>= 0), or its row is dropped (-1). ``id_meta`` is rewritten in place;
    the slots keep their rows and LRU order, a dropped row's slot is freed."""
    n_old = new_of_old.shape[0]
    old_slot = id_meta[:n_old, ID_SLOT].copy()
    old_pin = id_meta[:n_old, ID_PINNED].copy()
    n_slots = slot_meta.shape[0] - 2
    for o in range(n_old):
        if new_of_old[o] < 0 and old_slot[o] >= 0:
            slot = old_slot[o]
            # free the slot: owner -1, length 0, moved to the LRU end of the unpinned list
            slot_meta[slot, SLOT_OWNER] = -1
            slot_meta[slot, SLOT_LENGTH] = 0
            _unlink(slot_meta, slot)
            _link_first(slot_meta, slot, n_slots)
            if stats[STAT_LAST_SLOT] == slot:
                stats[STAT_LAST_SLOT] = -1
    for o in range(id_meta.shape[0]):
        id_meta[o, ID_SLOT] = -1
        id_meta[o, ID_PINNED] = 0
    for o in range(n_old):
        n = new_of_old[o]
        if n >= 0:
            id_meta[n, ID_SLOT] = old_slot[o]
            id_meta[n, ID_PINNED] = old_pin[o]
            if old_slot[o] >= 0:
                slot_meta[old_slot[o], SLOT_OWNER] = n
