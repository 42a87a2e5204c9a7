"""LRU cache of kernel rows with a memory budget (state in arrays, operations jitted).

The Python class :class:`KernelCache` owns the arrays and sizes them; the algorithms pass
``cache.state`` (``rows, slot_meta, id_meta, stats``) to the jitted functions
(``cache_acquire`` / ``cache_set_length``, or the ``cached_kernel_row_dense`` /
``cached_kernel_row_csr`` helpers) inside their own loops. Those functions and the layout of
the four arrays are written in :mod:`._cache_core` (compiled code imports them from there)
and are public here too.

Typical use in an algorithm with stored vectors ``Z`` (n of them) and example ids::

    cache = KernelCache(size_mb=100)
    ...                                    # before each jitted chunk:
    cache.grow(n_columns=n + len(chunk), n_ids=max_id + 1)
    run_chunk(..., *cache.state)           # re-read cache.state after every grow()

Policy: least recently used first among unpinned rows; pinned rows (``pin``, e.g. the
support vectors) go only when every slot is pinned. Each miss evicts in O(1) (two linked
lists kept in ``slot_meta``); there is no scan. The two most recently acquired rows are
never evicted by an acquire.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ._cache_core import (  # the compiled half: the layout of the arrays and their functions
    CACHE_ID_META,
    CACHE_ROWS,
    CACHE_SLOT_META,
    CACHE_STATS,
    ID_PINNED,
    ID_SLOT,
    N_STATS,
    SLOT_LENGTH,
    SLOT_NEXT,
    SLOT_OWNER,
    SLOT_PREV,
    STAT_EVICTIONS,
    STAT_HITS,
    STAT_LAST_SLOT,
    STAT_MISSES,
    STAT_PARTIAL_HITS,
    cache_acquire,
    cache_eviction_order,
    cache_invalidate,
    cache_move_rows,
    cache_peek,
    cache_remap_ids,
    cache_reset,
    cache_set_length,
    cache_set_pinned,
    cache_swap_columns,
    cache_swap_ids,
    cache_transfer,
    cache_truncate_columns,
    cached_kernel_row_csr,
    cached_kernel_row_dense,
)

__all__ = [
    "KernelCache", "CACHE_ROWS", "CACHE_SLOT_META", "CACHE_ID_META", "CACHE_STATS",
    "SLOT_OWNER", "SLOT_LENGTH", "SLOT_PREV", "SLOT_NEXT", "ID_SLOT", "ID_PINNED",
    "STAT_HITS", "STAT_PARTIAL_HITS", "STAT_MISSES", "STAT_EVICTIONS", "STAT_LAST_SLOT",
    "N_STATS", "cache_reset", "cache_peek", "cache_acquire", "cache_set_length",
    "cache_invalidate", "cache_set_pinned", "cache_truncate_columns", "cache_swap_columns",
    "cache_swap_ids", "cache_eviction_order", "cache_transfer", "cache_move_rows",
    "cache_remap_ids",
    "cached_kernel_row_dense", "cached_kernel_row_csr",
]

_BYTES_PER_MB = 1 << 20
_SLOT_META_COLUMNS = 4
_ID_META_COLUMNS = 2
_FLOAT_BYTES = 8
_SLOT_META_BYTES = _SLOT_META_COLUMNS * 8  # int64
_ID_META_BYTES = _ID_META_COLUMNS * 4  # int32
_INITIAL_CAPACITY = 64


class KernelCache:
    """LRU cache of kernel rows within ``size_mb`` megabytes (1 MB = 2**20 bytes).

    A row is identified by an integer id in ``0 .. id_capacity - 1`` and holds kernel
    values against the caller's stored vectors ("columns") ``0 .. length - 1``; rows are
    extended in place when more columns are needed. Capacities grow with :meth:`grow`
    (amortised doubling). The number of slots is the largest that keeps :attr:`nbytes`
    (all four state arrays) within the budget, and at most one per id; if fewer than two
    rows fit, the cache has no slots and every acquire is a miss (the jitted helpers then
    compute into the caller's scratch array).

    Parameters
    ----------
    size_mb : float
        Memory budget in MB, > 0 (LIBSVM's ``cache_size``).
    n_columns : int
        Initial row capacity (number of stored vectors a row can cover).
    n_ids : int
        Initial number of ids.

    >>> cache = KernelCache(1.0, n_columns=1000, n_ids=1000)
    >>> cache.n_slots, cache.nbytes <= cache.budget_bytes
    (129, True)
    >>> cache.grow(n_columns=1001)  # row capacity doubles, half the slots remain
    True
    >>> cache.row_capacity, cache.n_slots
    (2000, 64)
    """

    def __init__(self, size_mb: float = 100.0, *, n_columns: int = 0, n_ids: int = 0):
        if not (isinstance(size_mb, numbers.Real) and not isinstance(size_mb, bool)
                and math.isfinite(size_mb) and size_mb > 0):
            raise ValueError(f"size_mb must be a positive number of megabytes; got {size_mb!r}")
        for name, value in (("n_columns", n_columns), ("n_ids", n_ids)):
            if not (isinstance(value, numbers.Integral) and value >= 0):
                raise ValueError(f"{name} must be an integer >= 0; got {value!r}")
        self.size_mb = float(size_mb)
        self.budget_bytes = int(self.size_mb * _BYTES_PER_MB)
        self._stats = np.zeros(N_STATS, dtype=np.int64)
        self._stats[STAT_LAST_SLOT] = -1
        self._id_meta = np.zeros((0, _ID_META_COLUMNS), dtype=np.int32)
        self._rows = np.zeros((0, 0))
        self._slot_meta = np.zeros((2, _SLOT_META_COLUMNS), dtype=np.int64)
        cache_reset(self._slot_meta, self._id_meta, self._stats)
        initial_ids = max(int(n_ids), _INITIAL_CAPACITY)
        if self._fixed_bytes(initial_ids) > self.budget_bytes:
            initial_ids = int(n_ids)
        self._check_id_table(initial_ids)
        self._resize(max(int(n_columns), _INITIAL_CAPACITY), initial_ids)

    # ------------------------------------------------------------------ state

    @property
    def state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(rows, slot_meta, id_meta, stats)`` for the jitted ``cache_*`` functions."""
        return self._rows, self._slot_meta, self._id_meta, self._stats

    rows = property(lambda self: self._rows, doc="float64 (n_slots, row_capacity) values.")
    slot_meta = property(lambda self: self._slot_meta,
                         doc="int64 (n_slots + 2, 4): owner, length, prev, next per slot.")
    id_meta = property(lambda self: self._id_meta,
                       doc="int32 (id_capacity, 2): slot (-1 if not cached), pinned flag.")
    stats = property(lambda self: self._stats, doc="int64 counters (see STAT_*).")

    @property
    def n_slots(self) -> int:
        """Number of rows the cache can hold (0 = disabled)."""
        return self._rows.shape[0]

    @property
    def row_capacity(self) -> int:
        """Largest number of columns a row can have without :meth:`grow`."""
        return self._rows.shape[1]

    @property
    def id_capacity(self) -> int:
        """Number of ids the cache can index without :meth:`grow`."""
        return self._id_meta.shape[0]

    @property
    def nbytes(self) -> int:
        """Bytes held by the state arrays; never more than :attr:`budget_bytes`."""
        return sum(a.nbytes for a in self.state)

    @property
    def n_cached(self) -> int:
        """Number of rows currently cached."""
        return int(np.count_nonzero(self._slot_meta[:-2, SLOT_OWNER] >= 0))

    hits = property(lambda self: int(self._stats[STAT_HITS]),
                    doc="Acquires that found the row complete.")
    partial_hits = property(lambda self: int(self._stats[STAT_PARTIAL_HITS]),
                            doc="Acquires that found the row and extended it.")
    misses = property(lambda self: int(self._stats[STAT_MISSES]),
                      doc="Acquires that computed the row from scratch.")
    evictions = property(lambda self: int(self._stats[STAT_EVICTIONS]),
                         doc="Rows dropped to make room (by acquires and by resizes).")

    # ------------------------------------------------------------------ sizing

    def _fixed_bytes(self, n_ids: int) -> int:
        return n_ids * _ID_META_BYTES + 2 * _SLOT_META_BYTES + N_STATS * 8

    def _check_id_table(self, n_ids: int) -> None:
        if self._fixed_bytes(n_ids) > self.budget_bytes:
            raise ValueError(
                f"KernelCache(size_mb={self.size_mb:g}) cannot index {n_ids} ids: the id "
                f"table alone needs {self._fixed_bytes(n_ids) / _BYTES_PER_MB:.1f} MB; "
                "raise size_mb"
            )

    def _slots_for(self, row_capacity: int, n_ids: int) -> int:
        """Largest slot count within budget (0 if fewer than 2 fit), at most n_ids."""
        free = self.budget_bytes - self._fixed_bytes(n_ids)
        fit = free // (row_capacity * _FLOAT_BYTES + _SLOT_META_BYTES) if free > 0 else 0
        fit = min(fit, n_ids)
        return fit if fit >= 2 else 0

    def slots_for(self, n_columns: int) -> int:
        """The number of slots the cache would have with rows of ``n_columns`` columns (and
        its present id capacity): what :meth:`grow` would leave."""
        return self._slots_for(max(int(n_columns), self.row_capacity), self.id_capacity)

    def size_mb_for(self, n_slots: int, n_columns: int) -> float:
        """The ``size_mb`` a cache needs for ``n_slots`` rows of ``n_columns`` columns (and
        its present id capacity): the inverse of :meth:`slots_for`."""
        row = max(int(n_columns), self.row_capacity) * _FLOAT_BYTES + _SLOT_META_BYTES
        return (self._fixed_bytes(self.id_capacity) + int(n_slots) * row) / _BYTES_PER_MB

    def grow(self, n_columns: int | None = None, n_ids: int | None = None, *,
             exact: bool = False) -> bool:
        """Make room for rows of ``n_columns`` columns and ids below ``n_ids``.

        A capacity that is too small is at least doubled (amortised O(1) per added column
        or id), or set to exactly what is asked when doubling would not fit the budget or
        when ``exact`` (rows exactly ``n_columns`` wide: the caller trades more frequent
        growth for keeping more slots).
        Growing the rows leaves fewer slots; the least valuable rows (first in eviction
        order) are dropped and counted as evictions. Returns True when the arrays were
        reallocated: then every array and row view obtained before is stale.
        """
        want_columns = self.row_capacity if n_columns is None else int(n_columns)
        want_ids = self.id_capacity if n_ids is None else int(n_ids)
        if want_columns <= self.row_capacity and want_ids <= self.id_capacity:
            return False
        new_ids = self.id_capacity
        if want_ids > new_ids:
            new_ids = max(want_ids, 2 * new_ids)
            if self._fixed_bytes(new_ids) > self.budget_bytes:
                new_ids = want_ids
        self._check_id_table(new_ids)
        new_columns = self.row_capacity
        if want_columns > new_columns:
            new_columns = want_columns if exact else max(want_columns, 2 * new_columns)
            if (self._slots_for(new_columns, new_ids) == 0
                    and self._slots_for(want_columns, new_ids) > 0):
                new_columns = want_columns
        self._resize(new_columns, new_ids)
        return True

    def _resize(self, row_capacity: int, n_ids: int) -> None:
        """New capacities; the rows live in one flat buffer of the budget's size, allocated
        once (its pages are touched only as rows fill them), and are moved inside it when
        they get wider (:func:`cache_move_rows`). The surviving rows keep their order of
        eviction; their slots are numbered in the order of their old slots."""
        n_slots = self._slots_for(row_capacity, n_ids)
        order = cache_eviction_order(self._slot_meta)
        survivors = order[len(order) - min(n_slots, len(order)):]
        old_width = self._rows.shape[1]
        need = n_slots * row_capacity
        by_slot = np.sort(survivors)
        new_slots = np.searchsorted(by_slot, survivors).astype(np.int64)
        buffer = getattr(self, "_buffer", None)
        in_place = (buffer is not None and need <= buffer.shape[0]
                    and row_capacity >= old_width and self._rows.size > 0
                    and np.shares_memory(self._rows, buffer))
        old_rows = self._rows
        if in_place:
            lengths = np.minimum(self._slot_meta[by_slot, SLOT_LENGTH], row_capacity)
            cache_move_rows(buffer, old_width, row_capacity, by_slot, lengths)
        else:
            floats = max(need, (self.budget_bytes - self._fixed_bytes(n_ids)) // _FLOAT_BYTES)
            buffer = np.zeros(floats)
        rows = buffer[:need].reshape(n_slots, row_capacity)
        slot_meta = np.zeros((n_slots + 2, _SLOT_META_COLUMNS), dtype=np.int64)
        id_meta = np.zeros((n_ids, _ID_META_COLUMNS), dtype=np.int32)
        id_meta[: self.id_capacity, ID_PINNED] = self._id_meta[:, ID_PINNED]
        saved = self._stats.copy()
        cache_reset(slot_meta, id_meta, self._stats)
        self._stats[:] = saved
        self._stats[STAT_EVICTIONS] += len(order) - len(survivors)
        self._stats[STAT_LAST_SLOT] = -1
        cache_transfer(old_rows, self._slot_meta, survivors, new_slots, rows, slot_meta,
                       id_meta, not in_place)
        self._buffer = buffer
        self._rows, self._slot_meta, self._id_meta = rows, slot_meta, id_meta
        assert self.nbytes <= self.budget_bytes

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_buffer", None)  # copies hold the rows alone (the next resize reallocates)
        state["_rows"] = self._rows.copy()
        return state

    # ------------------------------------------------------------- operations

    def clear(self) -> None:
        """Drop every cached row and zero the counters; pin flags stay."""
        cache_reset(self._slot_meta, self._id_meta, self._stats)

    def reset_counters(self) -> None:
        """Zero hits, partial hits, misses and evictions; rows stay cached."""
        last = self._stats[STAT_LAST_SLOT]
        self._stats[:] = 0
        self._stats[STAT_LAST_SLOT] = last

    def _ids(self, ids) -> np.ndarray:
        ids = np.atleast_1d(np.asarray(ids, dtype=np.int64))
        if ids.size and (ids.min() < 0 or ids.max() >= self.id_capacity):
            raise ValueError(
                f"ids must lie in 0..{self.id_capacity - 1} (call grow(n_ids=...) first); got "
                f"{ids.min() if ids.min() < 0 else ids.max()}"
            )
        return ids

    def pin(self, ids) -> None:
        """Mark ids as kept first (evicted only when every slot is pinned)."""
        for row_id in self._ids(ids):
            cache_set_pinned(self._slot_meta, self._id_meta, row_id, True)

    def unpin(self, ids) -> None:
        """Undo :meth:`pin`."""
        for row_id in self._ids(ids):
            cache_set_pinned(self._slot_meta, self._id_meta, row_id, False)

    def is_pinned(self, row_id: int) -> bool:
        """Whether ``row_id`` is pinned."""
        return bool(self._id_meta[self._ids(row_id)[0], ID_PINNED])

    def invalidate(self, ids) -> None:
        """Drop the rows of ``ids`` if cached (their vectors changed or were deleted)."""
        for row_id in self._ids(ids):
            cache_invalidate(self._slot_meta, self._id_meta, self._stats, row_id)

    def cached_row(self, row_id: int) -> np.ndarray | None:
        """Copy of the valid part of row ``row_id``, or None; does not count or touch."""
        slot = int(self._id_meta[self._ids(row_id)[0], ID_SLOT])
        if slot < 0:
            return None
        return self._rows[slot, : self._slot_meta[slot, SLOT_LENGTH]].copy()

    def _check_restored(self) -> None:
        """Raise ValueError unless the state arrays (e.g. read from a model file) are a
        cache the jitted functions can use: shapes, dtypes, index ranges, owners and slots
        that point at each other, two well-formed slot lists, the memory budget."""
        rows, slot_meta, id_meta, stats = self.state
        n_slots, n_ids = rows.shape[0] if rows.ndim == 2 else -1, id_meta.shape[0]
        ok = (
            rows.ndim == 2 and rows.dtype == np.float64
            and slot_meta.shape == (n_slots + 2, _SLOT_META_COLUMNS)
            and slot_meta.dtype == np.int64
            and id_meta.ndim == 2 and id_meta.shape[1] == _ID_META_COLUMNS
            and id_meta.dtype == np.int32
            and stats.shape == (N_STATS,) and stats.dtype == np.int64
            and (n_slots == 0 or n_slots >= 2)
            and self.budget_bytes == int(self.size_mb * _BYTES_PER_MB) and self.size_mb > 0
            and self.nbytes <= self.budget_bytes
        )
        if not ok:
            raise ValueError("the kernel cache's arrays have inconsistent shapes or dtypes")
        owner = slot_meta[:n_slots, SLOT_OWNER]
        length = slot_meta[:n_slots, SLOT_LENGTH]
        slot_of = id_meta[:, ID_SLOT]
        ok = (
            ((owner >= -1) & (owner < n_ids)).all()
            and ((length >= 0) & (length <= rows.shape[1])).all()
            and ((slot_of >= -1) & (slot_of < n_slots)).all()
            and np.isin(id_meta[:, ID_PINNED], (0, 1)).all()
            and -1 <= stats[STAT_LAST_SLOT] < n_slots
            and (stats[: STAT_LAST_SLOT] >= 0).all()
        )
        cached = np.flatnonzero(slot_of >= 0)
        ok = ok and np.array_equal(owner[slot_of[cached]], cached)
        owned = np.flatnonzero(owner >= 0)
        ok = ok and np.array_equal(slot_of[owner[owned]], owned)
        if not ok:
            raise ValueError("the kernel cache's slots and ids do not point at each other")
        links = slot_meta[:, SLOT_PREV:]
        if ((links < 0) | (links >= n_slots + 2)).any():
            raise ValueError("the kernel cache's slot lists point outside the table")
        seen = np.zeros(n_slots + 2, dtype=bool)
        for sentinel in (n_slots, n_slots + 1):
            node, steps = sentinel, 0
            while True:
                nxt = int(slot_meta[node, SLOT_NEXT])
                if slot_meta[nxt, SLOT_PREV] != node or steps > n_slots:
                    raise ValueError("the kernel cache's slot lists are broken")
                if nxt == sentinel:
                    break
                if nxt >= n_slots or seen[nxt]:
                    raise ValueError("the kernel cache's slot lists are broken")
                seen[nxt] = True
                node, steps = nxt, steps + 1
        if not seen[:n_slots].all():
            raise ValueError("the kernel cache's slot lists miss some slots")

    def __repr__(self):
        return (
            f"KernelCache(size_mb={self.size_mb:g}, n_slots={self.n_slots}, "
            f"row_capacity={self.row_capacity}, id_capacity={self.id_capacity}, "
            f"hits={self.hits}, partial_hits={self.partial_hits}, misses={self.misses})"
        )
