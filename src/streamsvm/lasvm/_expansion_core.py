"""The kernel expansion S shared by LASVM and LASVM-G / -NC / -I / FULL SVM: its members,
coefficients, gradients and boxes, insertion and removal, the layout of S and the kernel rows
of its members through the cache (pure jitted functions over arrays).

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
  variants); ``rng`` uint64 state of :func:`streamsvm._random.rand_below` (reproducible,
  saved with the model).
"""

import numpy as np
from numba import njit, prange

from ..kernels._core import (
    PARALLEL_BLOCK,
    RBF,
    _dots_to_kernel,
    dot_dense,
    dot_rows,
    dot_rows4,
    exp_nonpositive,
    kernel_from_dot,
    parallel_worth,
)
from ..kernels.cache import (
    CACHE_ID_META,
    CACHE_SLOT_META,
    CACHE_STATS,
    cache_acquire,
    cache_invalidate,
    cache_set_length,
    cache_set_pinned,
)
from ._panel_core import panel_dots, permute, put

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


@njit(cache=True, inline="always")
def dots_to_columns(target, lo, hi, x_sq, sq, perm, kern):
    """Turn the dot products ``target[j] = x·x_perm[j]`` (``lo <= j < hi``) into kernel
    values in place, and the holes of S (``perm[j] < 0``) into 0; returns the number of
    kernel values (columns that are not holes). One tight loop per kernel, which LLVM
    vectorises for the RBF kernel (see ``kernels._core.exp_nonpositive``)."""
    code, gamma = kern[KERN_CODE], kern[KERN_GAMMA]
    degree, coef0 = kern[KERN_DEGREE], kern[KERN_COEF0]
    # loops over slices: indices from 0 are known to be >= 0, which spares numba's
    # wraparound of negative indices and lets LLVM vectorise (4x faster here)
    row = target[lo:hi]
    cols = perm[lo:hi]
    n = row.shape[0]
    if code == RBF:
        # the gather of the squared norms (next to writes to the row, which might alias
        # them) keeps a loop scalar: the exponentials get a loop of their own
        for j in range(n):
            distance = x_sq + sq[max(cols[j], 0)] - 2.0 * row[j]
            if distance < 0.0:
                distance = 0.0
            row[j] = -gamma * distance
        for j in range(n):
            row[j] = exp_nonpositive(row[j])
    else:
        for j in range(n):
            row[j] = kernel_from_dot(row[j], x_sq, sq[max(cols[j], 0)], code, gamma, degree,
                                     coef0)
    return _zero_holes(row, cols)


@njit(cache=True, inline="always")
def _zero_holes(row, cols):
    """``row[p] = 0`` where ``cols[p] < 0`` (a hole of S); returns the number of the others
    (the kernel values computed)."""
    live = 0
    for p in range(row.shape[0]):
        if cols[p] >= 0:
            live += 1
        else:
            row[p] = 0.0
    return live


@njit(cache=True, inline="always")
def columns(rid, lo, hi, store, kern, perm, panel, ws, target):
    """``target[p] = K(x_rid, x_perm[p])`` for positions ``lo <= p < hi``, 0 for the holes of
    S; for CSR, ``x_rid`` already scattered into ``ws``. From the panel where S has one
    (:mod:`._panel_core`), else one member row at a time. Returns the number of kernel
    values (columns that are not holes)."""
    if panel.shape[0] > 0:
        return _panel_columns(rid, lo, hi, store, kern, perm, panel, target)
    _column_dots(rid, lo, hi, store[STORE_XD], store[STORE_INDPTR], store[STORE_INDICES],
                 store[STORE_DATA], kern[KERN_SPARSE], perm, ws, target)
    return dots_to_columns(target, lo, hi, store[STORE_SQ][rid], store[STORE_SQ], perm, kern)


@njit(cache=True)  # a call, not inlined: its loops stay out of every kernel-row site
def _panel_columns(rid, lo, hi, store, kern, perm, panel, target):
    """:func:`columns` from the panel: its dot products, then the kernel values with the
    members' squared norms read in position order (the arithmetic of
    :func:`dots_to_columns`, without its gather)."""
    panel_dots(store[STORE_XD], rid, panel, lo, hi, target)
    row = target[lo:hi]
    _dots_to_kernel(row, store[STORE_SQ][rid], panel[panel.shape[0] - 1, lo:hi],
                    kern[KERN_CODE], kern[KERN_GAMMA], kern[KERN_DEGREE], kern[KERN_COEF0])
    return _zero_holes(row, perm[lo:hi])


@njit(cache=True, inline="always")
def fill_columns(rid, valid, n, target, store, kern, svs, ws, cnt):
    """The missing columns ``valid .. n - 1`` of a kernel row on one thread (the general
    one-thread branch of :func:`kernel_row`)."""
    indptr, indices, data = store[STORE_INDPTR], store[STORE_INDICES], store[STORE_DATA]
    sparse = kern[KERN_SPARSE]
    if valid < n:
        if sparse:
            _scatter_row(rid, indptr, indices, data, ws, False)
        cnt[KEVALS] += columns(rid, valid, n, store, kern, svs[SV_PERM], svs[SV_PANEL], ws,
                               target)
        if sparse:
            _scatter_row(rid, indptr, indices, data, ws, True)


@njit(cache=True, inline="always")
def kernel_row(rid, ncol, store, kern, svs, cache, ws, scratch, cnt):
    """``K(x_rid, x_perm[p])`` for positions ``p < ncol``, through the cache (row id ``rid``).

    Only the columns the cached row lacks are computed (holes of S give 0); returns a view
    of length ``ncol``, valid until the acquire after the next one (the cache never evicts
    the previous row).
    """
    Xd, sq = store[STORE_XD], store[STORE_SQ]
    sparse = kern[KERN_SPARSE]
    perm = svs[SV_PERM]
    rows, slot_meta, id_meta, stats = cache
    slot, valid = cache_acquire(rows, slot_meta, id_meta, stats, rid, ncol)
    if slot >= 0:
        valid = sync_row(rid, slot, ncol, valid, store[STORE_ROW_GEN], svs, cache, scratch)
    target = scratch if slot < 0 else rows[slot]
    if valid < ncol and parallel_worth(ncol - valid, _row_width(rid, store, sparse)):
        cnt[KEVALS] += columns_in_blocks(rid, valid, ncol, store, kern, perm, svs[SV_PANEL], ws,
                                         target)
        cache_set_length(slot_meta, slot, ncol)
    elif valid < ncol and not sparse and kern[KERN_CODE] == RBF and svs[SV_PANEL].shape[0] == 0:
        cnt[KEVALS] += _dense_rbf_columns(rid, valid, ncol, Xd, sq, perm, kern[KERN_GAMMA],
                                          target)
        cache_set_length(slot_meta, slot, ncol)
    elif valid < ncol:
        fill_columns(rid, valid, ncol, target, store, kern, svs, ws, cnt)
        cache_set_length(slot_meta, slot, ncol)
    return target[:ncol]


@njit(cache=True, inline="always")
def _dense_rbf_columns(rid, lo, hi, Xd, sq, perm, gamma, target):
    """:func:`_column_dots` then :func:`dots_to_columns` for a dense RBF row, with the
    distance taken beside each dot product (where the row of the member and its squared
    norm are loaded anyway) and the exponentials in a loop of their own: the same
    arithmetic, so the same bits, with one pass less over the row. Returns the number of
    kernel values (columns that are not holes)."""
    x_sq = sq[rid]
    row = target[lo:hi]
    cols = perm[lo:hi]
    n = row.shape[0]
    live = 0
    for j in range(n):
        s = cols[j]
        if s < 0:
            row[j] = 0.0
        else:
            distance = x_sq + sq[s] - 2.0 * dot_rows(Xd, rid, Xd, s)
            if distance < 0.0:
                distance = 0.0
            row[j] = -gamma * distance
            live += 1
    for j in range(n):
        row[j] = exp_nonpositive(row[j])
    if live < n:  # exp(0) = 1 where the holes are: 0 again
        for j in range(n):
            if cols[j] < 0:
                row[j] = 0.0
    return live


@njit(cache=True, inline="always")
def _scatter_row(rid, indptr, indices, data, ws, clear):
    """Write CSR example ``rid`` into the dense workspace ``ws`` (or zero it again)."""
    for p in range(indptr[rid], indptr[rid + 1]):
        ws[indices[p]] = 0.0 if clear else data[p]


@njit(cache=True, inline="always")
def _column_dots(rid, lo, hi, Xd, indptr, indices, data, sparse, perm, ws, target):
    """``target[j] = x_rid · x_perm[j]`` for ``lo <= j < hi`` (0 for holes of S); for CSR,
    ``x_rid`` already scattered into ``ws``. dot_rows, not dot_dense(Xd[rid], Xd[s]): a view
    per column costs reference counting, which on 10 features took longer than the dot
    product (same bits)."""
    for j in range(lo, hi):
        s = perm[j]
        if s < 0:
            target[j] = 0.0
        elif sparse:
            dot = 0.0
            for p in range(indptr[s], indptr[s + 1]):
                dot += ws[indices[p]] * data[p]
            target[j] = dot
        else:
            target[j] = dot_rows(Xd, rid, Xd, s)


@njit(cache=True)
def _row_width(rid, store, sparse):
    """Values per stored row, for the cost of a kernel row: the features of a dense row, the
    stored values of example ``rid`` for CSR (about what a column of its row costs)."""
    if sparse:
        indptr = store[STORE_INDPTR]
        return indptr[rid + 1] - indptr[rid]
    return store[STORE_XD].shape[1]


@njit(cache=True, parallel=True)
def columns_in_blocks(rid, valid, ncol, store, kern, perm, panel, ws, target):
    """:func:`kernel_row`'s columns ``valid .. ncol - 1`` on several threads: fixed blocks of
    ``PARALLEL_BLOCK`` columns, each computed as the one-thread loop computes it (the same
    bits); for CSR, ``x`` is scattered into ``ws`` once and only read inside the blocks.
    Returns the number of kernel values computed."""
    indptr, indices, data = store[STORE_INDPTR], store[STORE_INDICES], store[STORE_DATA]
    sparse = kern[KERN_SPARSE]
    if sparse:
        _scatter_row(rid, indptr, indices, data, ws, False)
    n_blocks = (ncol - valid + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK
    live = np.zeros(n_blocks, dtype=np.int64)
    for b in prange(n_blocks):
        lo = valid + b * PARALLEL_BLOCK
        hi = min(lo + PARALLEL_BLOCK, ncol)
        live[b] = columns(rid, lo, hi, store, kern, perm, panel, ws, target)
    if sparse:
        _scatter_row(rid, indptr, indices, data, ws, True)
    return live.sum()


@njit(cache=True)
def column_dots(Xd, s, j, ids, slots, m, rows):
    """Column ``j`` of the cached rows ``slots[:m]`` (dense examples ``ids[:m]``): the dot
    products with stored example ``s``, four rows at a time so that they share the loads of
    ``Xd[s]`` (:func:`~streamsvm.kernels._core.dot_rows4`; the same bits as one at a time)."""
    b = 0
    while b + 4 <= m:
        d0, d1, d2, d3 = dot_rows4(Xd, ids[b], ids[b + 1], ids[b + 2], ids[b + 3], Xd, s)
        rows[slots[b], j] = d0
        rows[slots[b + 1], j] = d1
        rows[slots[b + 2], j] = d2
        rows[slots[b + 3], j] = d3
        b += 4
    for rest in range(b, m):
        rows[slots[rest], j] = dot_rows(Xd, ids[rest], Xd, s)


#: CSR: the most features for which prefetch_rows lays its block out densely (zeroed per block)
PREFETCH_CSR_FEATURES = 4096


@njit(cache=True)
def prefetch_rows(pool, start, end, store, kern, svs, cache, cnt, ws, pin):
    """Compute together the missing kernel rows of the next examples of ``pool[start:end]``
    that are outside S (up to ``PREFETCH`` of them among the next ``PREFETCH_WINDOW``) and put
    them in the cache, for the online iterations that will take them in this order.

    The same values as :func:`kernel_row` (same dot products), computed column by column:
    each stored member row is read once for the whole block instead of once per example,
    which is what bounds the speed of long dense rows (memory traffic, e.g. 784 pixels), and
    on several threads the block takes one parallel region instead of one per example. CSR
    examples (``ws``: the scatter workspace, for the number of features) are laid out as a
    dense (features, PREFETCH) block, each member's stored values multiplied into the block's
    dot products in the order :func:`_column_dots` adds them.

    A prefetched row must not push out another before it is used: the block runs when the
    cache has room for it beside the pinned rows of S or, with ``pin``, when the cache holds
    at least ``8 * PREFETCH`` rows, the prefetched rows being pinned (evicted last) until
    their examples join S (the caller processes them in order and unpins the rest when it
    stops: :func:`unpin_prefetched`). A row that is evicted anyway, or that S outgrows, is
    completed by :func:`kernel_row` (the result does not change, only the cost)."""
    ids = np.empty(PREFETCH, dtype=np.int64)
    slots = np.empty(PREFETCH, dtype=np.int64)
    m = prefetch_slots(pool, start, end, store, kern, cache, cnt, ws, pin, ids, slots)
    if m > 0:
        prefetch_fill(ids, slots, m, prefetch_block(store, kern, ids, m, ws), store, kern, svs,
                      cache, cnt)


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
def prefetch_fill(ids, slots, m, block, store, kern, svs, cache, cnt):
    """The second half of :func:`prefetch_rows`: compute the rows of ``ids[:m]`` over S into
    their cache slots (in column blocks on several threads when worth it, else on one), and
    record them as valid over S's columns in its present layout."""
    sq, perm, panel, rows = store[STORE_SQ], svs[SV_PERM], svs[SV_PANEL], cache[0]
    sparse = kern[KERN_SPARSE]
    ncol = cnt[N_COLS]
    if parallel_worth(ncol, m * prefetch_width(store, kern)):
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
def csr_column_dots(store, block, s, j, slots, rows):
    """Column ``j`` of the prefetched rows (``slots[:m]``): the dot products of CSR member
    ``s`` with the block's examples (dense, one per column of ``block``), each summed over the
    member's stored values in order as :func:`_column_dots` sums it (the same bits)."""
    indptr, indices, data = store[STORE_INDPTR], store[STORE_INDICES], store[STORE_DATA]
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
    m = slots.shape[0]
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
    for j in range(lo, hi):
        s = perm[j]
        if s >= 0:
            if sparse:
                csr_column_dots(store, block, s, j, slots[:m], rows)
            else:
                column_dots(store[STORE_XD], s, j, ids, slots, m, rows)
    for b in range(m):
        live += dots_to_columns(rows[slots[b]], lo, hi, sq[ids[b]], sq, perm, kern)
    return live


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


@njit(cache=True, inline="always")
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
            tmp[first:length] = row[first:length]  # a slice copy: vectorised
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


@njit(cache=True)
def decision_value(k, store, kern, svs, cache, work, cnt, st, scratch):
    """``y(x_k) = sum_s alpha_s K(x_k, x_s) + b`` for a stored example (eq. 2)."""
    n = cnt[N_COLS]
    row = kernel_row(k, n, store, kern, svs, cache, work[WORK_SCATTER], scratch, cnt)
    return dot_dense(svs[SV_ALPHA][:n], row) + st[B_]


@njit(cache=True)
def decision_values(ids, store, kern, svs, cache, work, cnt, st, out):
    """``out[t] = y(x_ids[t])`` for stored examples, through the kernel cache (eq. 2)."""
    for t in range(ids.shape[0]):
        out[t] = decision_value(ids[t], store, kern, svs, cache, work, cnt, st,
                                work[WORK_SCRATCH_C])
    return out


@njit(cache=True)
def _kernel_values_sum(dots, x_sq, SV_sq, coef, code, gamma, degree, coef0):
    """``sum_s coef_s K_s`` where ``dots[s] = x·SV_s``: the dot products turned into kernel
    values in place (one tight loop per kernel, as :func:`dots_to_columns`; the same bits as
    :func:`~streamsvm.kernels._core.kernel_from_dot`), then summed in order."""
    n = dots.shape[0]
    if code == RBF:
        for s in range(n):
            distance = x_sq + SV_sq[s] - 2.0 * dots[s]
            if distance < 0.0:
                distance = 0.0
            dots[s] = -gamma * distance
        for s in range(n):
            dots[s] = exp_nonpositive(dots[s])
    else:
        for s in range(n):
            dots[s] = kernel_from_dot(dots[s], x_sq, SV_sq[s], code, gamma, degree, coef0)
    total = 0.0
    for s in range(n):
        total += coef[s] * dots[s]
    return total


@njit(cache=True)
def decision_rows_dense(X, X_sq, SV, SV_sq, coef, b, code, gamma, degree, coef0, out):
    """``out[r] = sum_s coef_s K(X_r, SV_s) + b`` for dense X and dense support vectors.

    Four rows of X at a time share the loads of each support vector
    (:func:`~streamsvm.kernels._core.dot_rows4`), and the kernel transform runs over whole
    rows of dot products (vectorised); the same bits as one value at a time."""
    n_rows, n_sv = X.shape[0], SV.shape[0]
    dots = np.empty((4, n_sv))
    r = np.int64(0)  # not a literal: one compiled dot_rows4
    while r + 4 <= n_rows:
        for s in range(n_sv):
            d0, d1, d2, d3 = dot_rows4(X, r, r + 1, r + 2, r + 3, SV, s)
            dots[0, s] = d0
            dots[1, s] = d1
            dots[2, s] = d2
            dots[3, s] = d3
        for q in range(4):
            out[r + q] = _kernel_values_sum(dots[q], X_sq[r + q], SV_sq, coef, code, gamma,
                                            degree, coef0) + b
        r += 4
    for rest in range(r, n_rows):
        for s in range(n_sv):
            dots[0, s] = dot_rows(X, rest, SV, s)
        out[rest] = _kernel_values_sum(dots[0], X_sq[rest], SV_sq, coef, code, gamma, degree,
                                       coef0) + b
    return out


@njit(cache=True)
def decision_rows_csr(indptr, indices, data, X_sq, sv_colptr, sv_rows, sv_vals, SV_sq, coef, b,
                      code, gamma, degree, coef0, out):
    """:func:`decision_rows_dense` for CSR X and the support vectors by feature (CSC:
    ``sv_colptr``, ``sv_rows``, ``sv_vals``): each stored value of a row of X is multiplied
    into the dot products of the support vectors that have that feature, so a row costs
    O(the support vectors' values on its features) instead of O(all their values). The
    same bits as scattering the row and gathering each support vector: each dot product
    adds the same products in the same (feature) order, and the gather's other terms are
    zeros, which do not change a sum."""
    n_sv = SV_sq.shape[0]
    dots = np.empty(n_sv)
    for r in range(indptr.shape[0] - 1):
        dots[:] = 0.0
        for p in range(indptr[r], indptr[r + 1]):
            q = indices[p]
            value = data[p]
            for t in range(sv_colptr[q], sv_colptr[q + 1]):
                dots[sv_rows[t]] += value * sv_vals[t]
        out[r] = _kernel_values_sum(dots, X_sq[r], SV_sq, coef, code, gamma, degree,
                                    coef0) + b
    return out
