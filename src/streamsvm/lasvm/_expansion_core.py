"""The kernel expansion S shared by LASVM and LASVM-G / -NC / -I / FULL SVM: its state
layout (the slots of the state tuples, counters and scalars below), its members,
coefficients, gradients and boxes, insertion and removal, and the layout of S with the lazy
update of cached rows (pure jitted functions over arrays).

The kernel rows of the members through the cache are in :mod:`._kernel_rows_core`, their
prefetch for the next examples in :mod:`._prefetch_core`, decision values in
:mod:`._decision_core`.

The steps that move the coefficients are in :mod:`._lasvm_core` (LASVM: Bordes, Ertekin,
Weston & Bottou, "Fast Kernel Classifiers with Online and Active Learning", JMLR 2005) and
:mod:`._gap_core` (LASVM-G and its successors: Ertekin, Bottou & Giles, "Nonconvex Online
Support Vector Machines", IEEE TPAMI 2011).

State layout (owned by :class:`streamsvm.lasvm.learner._Learner`, passed in as tuples whose
slots are named below: ``STORE_*``, ``SV_*``, ``WORK_*``, ``KERN_*``; the cache's
``CACHE_*`` in :mod:`streamsvm.kernels.cache`):

* ``store = (Xd, indptr, indices, data, sq, kd, ys, pos_of, row_gen)``: the examples the
  learner can address, by *store index* (= the kernel cache's row id). Dense rows in ``Xd``
  (n, d) or CSR rows in ``indptr`` (int64) / ``indices`` (int32) / ``data``; ``sq`` squared
  norms, ``kd`` self-kernels ``K(x, x)``, ``ys`` labels ±1, ``pos_of`` the position in the
  expansion S (-1 outside S), ``row_gen`` the layout generation of the example's cached
  row (see below).
* ``kern = (sparse, code, gamma, degree, coef0)``.
* ``svs = (perm, alpha, g, lo, hi, glog, gmeta, panel)``, indexed by *position* 0 .. n_S - 1 in S:
  the store index of the member, its coefficient, gradient (eq. 9 of Bordes et al.), and
  box ``[A, B]`` (eq. 5; for LASVM-NC eq. 18 of Ertekin et al.). The cache keeps
  *truncated rows of the reordered kernel matrix*: row ``id`` column ``p`` holds
  ``K(x_id, x_perm[p])``. A removal leaves a hole (``perm = -1``, ``alpha = A = B = 0``, so
  no search selects it) and drops the removed example's cached row; when holes make up a
  third of the columns, :func:`compact` renumbers S. The finishing step's shrinking
  reorders S too (active set first). A reordering costs O(n_S): it is logged as a new
  layout *generation* (``gmeta[0]``; the last ``N_GENERATIONS`` column maps in ``glog``,
  their lengths and first moved column in ``gmeta[1:]``), and a cached row is brought to
  the current layout only when it is next acquired (:func:`sync_row`). Eagerly permuting
  every cached row at each reordering cost O(cache) per reordering; with a large cache on
  MNIST that was a third of LASVM's time. ``panel``: the members' dense rows by position, one
  feature per row, for data of few features (:mod:`._panel_core`; zero rows otherwise).
* ``cache = KernelCache.state``; members of S are pinned (kept first).
* ``work = (ws, scr0, scr1, scr2)``: CSR scatter workspace and scratch rows (used when the
  cache has no slots).
* ``cnt`` int64 counters and ``st`` float64 scalars (indices below, one table for all the
  variants); ``rng`` uint64 state of :func:`streamsvm.utils.seeds.rand_below` (reproducible,
  saved with the model).
"""

import numpy as np
from numba import njit

from ..kernels._cache_core import (
    CACHE_ID_META,
    CACHE_SLOT_META,
    CACHE_STATS,
    cache_invalidate,
    cache_set_pinned,
)
from ..kernels._core import copy_into
from ._panel_core import permute, put

# slots of the state tuples (see the module docstring)
STORE_XD = 0
STORE_INDPTR = 1
STORE_INDICES = 2
STORE_DATA = 3
STORE_SQ = 4
STORE_KD = 5
STORE_Y = 6
STORE_POS = 7
STORE_ROW_GEN = 8
SV_PERM = 0
SV_ALPHA = 1
SV_G = 2
SV_LO = 3
SV_HI = 4
SV_GLOG = 5
SV_GMETA = 6
SV_PANEL = 7
WORK_SCATTER = 0
WORK_SCRATCH_A = 1
WORK_SCRATCH_B = 2
WORK_SCRATCH_C = 3
KERN_SPARSE = 0
KERN_CODE = 1
KERN_GAMMA = 2
KERN_DEGREE = 3
KERN_COEF0 = 4

# int64 counters
KEVALS = 0  #: kernel values computed
N_ITER = 1  #: online iterations (examples picked)
N_PROCESS_STEPS = 2  #: PROCESS calls that made a direction search
N_REPROCESS_STEPS = 3  #: REPROCESS direction searches (online and finishing)
N_REMOVED = 4  #: examples removed from S
N_SKIPPED = 5  #: LASVM-I: examples filtered out
N_CLEAN = 6  #: CLEAN calls that removed something
SINCE_CLEAN = 7
SEED_POS = 8
SEED_NEG = 9
N_COLS = 10  #: columns in use: members of S and holes left by removals
N_CANDIDATES = 11  #: candidates scored by example selection
N_LIVE = 12  #: size of the expansion S
N_COUNTERS = 13

# float64 scalars
B_ = 0  #: bias b (eq. 10)
DELTA = 1  #: delta = g_max - g_min (eq. 10)
GAP = 2  #: LASVM-G: last duality gap (eq. 9, corrected)
GAP_TARGET = 3  #: LASVM-G: last gap target (eq. 8)
N_FLOATS = 4

NEED_GROW = 1  #: returned when S is full: the caller grows it (and the cache) and calls again
LAYOUT_DUE = 2  #: returned by a loop told to keep the layout of S when the next step changes it
PREFETCH = 8  #: rows computed together by prefetch_rows
PREFETCH_WINDOW = 32  #: ... among this many next examples of the pool
N_GENERATIONS = 32  #: layouts of S (column permutations) kept for the lazy update of cached rows
CURVATURE_FLOOR = 1e-12  #: smallest curvature a direction search divides by

@njit(cache=True)
def insert(k, gk, lo_k, hi_k, store, svs, cache, cnt):
    """Append example ``k`` to S (new last column) with alpha = 0 and gradient ``gk``."""
    perm, alpha, g, lo, hi = svs[SV_PERM], svs[SV_ALPHA], svs[SV_G], svs[SV_LO], svs[SV_HI]
    p = cnt[N_COLS]
    perm[p] = k
    alpha[p] = 0.0
    g[p] = gk
    lo[p] = lo_k
    hi[p] = hi_k
    put(svs[SV_PANEL], p, store[STORE_XD], k, store[STORE_SQ])
    store[STORE_POS][k] = p
    cache_set_pinned(cache[CACHE_SLOT_META], cache[CACHE_ID_META], k, np.bool_(True))
    cnt[N_COLS] = p + 1
    cnt[N_LIVE] += 1
    return p


@njit(cache=True)
def remove(p, store, svs, cache, cnt):
    """Remove the member at position p from S, leaving a hole (see the module docstring).

    Its cached row is dropped too: an example leaves S only after it was processed, and
    within an epoch it is not processed again, so the row would only hold a slot (and
    memory that the cache would otherwise never touch) until the LRU order evicts it."""
    perm, alpha, g, lo, hi = svs[SV_PERM], svs[SV_ALPHA], svs[SV_G], svs[SV_LO], svs[SV_HI]
    k = perm[p]
    store[STORE_POS][k] = -1
    cache_set_pinned(cache[CACHE_SLOT_META], cache[CACHE_ID_META], k, np.bool_(False))
    cache_invalidate(cache[CACHE_SLOT_META], cache[CACHE_ID_META], cache[CACHE_STATS], k)
    perm[p] = -1
    alpha[p] = 0.0
    g[p] = 0.0
    lo[p] = 0.0
    hi[p] = 0.0
    cnt[N_LIVE] -= 1
    cnt[N_REMOVED] += 1


@njit(cache=True)
def reorder(order, n_new, store, svs, cache, cnt, tmp):
    """Rebuild S so that column ``t`` holds the member of old column ``order[t]``
    (``t < n_new``; members not listed must have been removed). O(size of S): the cached
    rows are not touched here; the permutation is logged as a new *layout generation* and
    each row is brought to it when it is next acquired (:func:`sync_row`), so rows that are
    never used again (e.g. of examples that left S) cost nothing. ``tmp`` is a float
    scratch of the capacity."""
    perm, alpha, g, lo, hi = svs[SV_PERM], svs[SV_ALPHA], svs[SV_G], svs[SV_LO], svs[SV_HI]
    glog, gmeta = svs[SV_GLOG], svs[SV_GMETA]
    pos_of = store[STORE_POS]
    n_old = cnt[N_COLS]
    first = 0  # columns before the first moved one stay as they are
    while first < n_new and order[first] == first:
        first += 1
    if first < n_new or n_new < n_old:
        gen = gmeta[0] + 1
        r = gen % N_GENERATIONS
        gmeta[0] = gen
        gmeta[1 + 2 * r] = n_new
        gmeta[2 + 2 * r] = first
        for t in range(first, n_new):
            glog[r, t] = order[t]
    for arr in (alpha, g, lo, hi):
        for c in range(n_old):
            tmp[c] = arr[c]
        for t in range(n_new):
            arr[t] = tmp[order[t]]
        for t in range(n_new, n_old):
            arr[t] = 0.0
    permute(svs[SV_PANEL], order, n_new, n_old, tmp)
    old_perm = perm[:n_old].copy()
    for t in range(n_new):
        perm[t] = old_perm[order[t]]
        pos_of[perm[t]] = t
    for t in range(n_new, n_old):
        perm[t] = -1
    cnt[N_COLS] = n_new


@njit(cache=True)
def sync_row(rid, slot, ncol, valid, row_gen, svs, cache, tmp):
    """Bring the cached row of ``rid`` (in ``slot``) to the current layout of S by applying
    the column permutations logged since it was last used (:func:`reorder`); each keeps the
    longest prefix whose values are still known. A row more than ``N_GENERATIONS`` layouts
    behind is dropped (recomputed). Returns the number of valid columns among the first
    ``ncol`` (the cache's hit counter is corrected if the row got shorter)."""
    glog, gmeta = svs[SV_GLOG], svs[SV_GMETA]
    rows, slot_meta, id_meta, stats = cache
    gen = gmeta[0]
    old = row_gen[rid]
    row_gen[rid] = gen
    length = slot_meta[slot, 1]
    if old == gen or length == 0:
        return valid
    if gen - old > N_GENERATIONS:
        length = 0
    else:
        row = rows[slot]
        for h in range(old + 1, gen + 1):
            r = h % N_GENERATIONS
            n_new = gmeta[1 + 2 * r]
            first = gmeta[2 + 2 * r]
            if length <= first:
                continue  # the prefix is untouched
            copy_into(tmp[first:length], row[first:length])  # vectorised
            # the known prefix first, then the gather over slices indexed from 0 with
            # unsigned sources (no wraparound of negative indices: ~1.0 ns a column, 1.5
            # with the test inside the gather loop)
            src = glog[r, first:n_new]
            stop = 0
            while stop < src.shape[0] and src[stop] < length:
                stop += 1
            dst = row[first:first + stop]
            for u in range(stop):
                dst[u] = tmp[np.uint64(src[u])]
            length = first + stop
    slot_meta[slot, 1] = length
    if length < ncol and valid == ncol:
        stats[0] -= 1  # counted as a hit by cache_acquire: a partial hit after all
        stats[1] += 1
    return min(length, ncol)


@njit(cache=True)
def compact(store, svs, cache, cnt, tmp):
    """Drop the holes of S (:func:`reorder` keeping the members in order)."""
    perm = svs[SV_PERM]
    n = cnt[N_COLS]
    order = np.empty(n, dtype=np.int64)
    m = np.int64(0)  # not a literal: one compiled reorder
    for c in range(n):
        if perm[c] >= 0:
            order[m] = c
            m += 1
    reorder(order, m, store, svs, cache, cnt, tmp)


@njit(cache=True)
def make_room(store, svs, cache, cnt, tmp):
    """Before an insertion: compact when holes are a third of the columns or block the
    capacity. Returns NEED_GROW if S is full even without holes."""
    if _compaction_due(svs, cnt):
        compact(store, svs, cache, cnt, tmp)
    if cnt[N_COLS] + 1 > svs[SV_PERM].shape[0]:
        return NEED_GROW
    return 0


@njit(cache=True, inline="always")
def _compaction_due(svs, cnt):
    """Whether :func:`make_room` compacts S now: holes are a third of the columns, or S is at
    its capacity with an eighth of holes (a few holes are not worth a new layout, each one
    making the cached rows catch up, see :func:`sync_row`: the capacity doubles instead)."""
    holes = cnt[N_COLS] - cnt[N_LIVE]
    full = cnt[N_COLS] + 1 > svs[SV_PERM].shape[0]
    return holes > 0 and (3 * holes > cnt[N_COLS] + 96 or (full and 8 * holes >= cnt[N_COLS]))


@njit(cache=True)
def layout_due(svs, cnt):
    """Whether the next insertion changes the layout of S (:func:`make_room` compacts it) or
    needs a larger S (the caller grows it)."""
    return _compaction_due(svs, cnt) or cnt[N_COLS] + 1 > svs[SV_PERM].shape[0]
