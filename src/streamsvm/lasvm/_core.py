"""Jitted loops of LASVM and LASVM-G / -NC / -I / FULL SVM (pure functions over arrays).

State layout (owned by :class:`streamsvm.lasvm.lasvm._Learner`, passed in as tuples):

* ``store = (Xd, indptr, indices, data, sq, kd, ys, pos_of, row_gen)``: the examples the
  learner can address, by *store index* (= the kernel cache's row id). Dense rows in ``Xd``
  (n, d) or CSR rows in ``indptr`` (int64) / ``indices`` (int32) / ``data``; ``sq`` squared
  norms, ``kd`` self-kernels ``K(x, x)``, ``ys`` labels ±1, ``pos_of`` the position in the
  expansion S (-1 outside S), ``row_gen`` the layout generation of the example's cached
  row (see below).
* ``kern = (sparse, code, gamma, degree, coef0)``.
* ``svs = (perm, alpha, g, lo, hi, glog, gmeta)``, indexed by *position* 0 .. n_S - 1 in S:
  the store index of the member, its coefficient, gradient (eq. 9 of Bordes et al.), and
  box ``[A, B]`` (eq. 5; for LASVM-NC eq. 18). The cache keeps *truncated rows of the
  reordered kernel matrix*: row ``id`` column ``p`` holds ``K(x_id, x_perm[p])``. A removal
  leaves a hole (``perm = -1``, ``alpha = A = B = 0``, so no search selects it) and drops the
  removed example's cached row; when holes make up a third of the columns, :func:`compact`
  renumbers S. The finishing step's shrinking reorders S too (active set first). A
  reordering costs O(n_S): it is logged as a new layout *generation* (``gmeta[0]``; the last
  ``N_GENERATIONS`` column maps in ``glog``, their lengths and first moved column in
  ``gmeta[1:]``), and a cached row is brought to the current layout only when it is next
  acquired (:func:`sync_row`). Eagerly permuting every cached row at each reordering cost
  O(cache) per reordering; with a large cache on MNIST that was a third of LASVM's time.
* ``cache = KernelCache.state``; members of S are pinned (kept first).
* ``work = (ws, scr0, scr1, scr2)``: CSR scatter workspace and scratch rows (used when the
  cache has no slots).
* ``cnt`` int64 counters and ``st`` float64 scalars (indices below); ``rng`` uint64 state of
  a splitmix64 generator (reproducible, saved with the model).
"""

import numpy as np
from numba import njit

from ..kernels._core import (
    RBF,
    cache_acquire,
    cache_invalidate,
    cache_set_length,
    cache_set_pinned,
    dot_dense,
    dot_rows,
    dot_rows4,
    exp_nonpositive,
    kernel_from_dot,
)

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

# selection criteria
RANDOM = 0
GRADIENT = 1
ACTIVE = 2
AUTOACTIVE = 3
AUTOACTIVE_STOP = 5  #: AUTOACTIVE stops sampling at this many examples with |y(x)| < 1 + delta/2
AUTOACTIVE_MAX = 100  #: ... or at this many samples

# LASVM-G variants
VARIANT_G = 0
VARIANT_NC = 1
VARIANT_I = 2
VARIANT_FULL = 3

NEED_GROW = 1
PREFETCH = 8  #: rows computed together by prefetch_rows
PREFETCH_WINDOW = 32  #: ... among this many next examples of the pool
N_GENERATIONS = 32  #: layouts of S (column permutations) kept for the lazy update of cached rows
TIE = 1e-12  #: gradients closer than this are ties in the argmax / argmin searches
_CURVATURE_FLOOR = 1e-12


# ------------------------------------------------------------------------------ helpers


@njit(cache=True)
def rand_below(rng, n):
    """Uniform integer in 0 .. n-1 from a splitmix64 state ``rng`` (uint64 array of 1)."""
    z = rng[0] + np.uint64(0x9E3779B97F4A7C15)
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z % np.uint64(n))


@njit(cache=True)
def dots_to_columns(target, lo, hi, x_sq, sq, perm, kern):
    """Turn the dot products ``target[j] = x·x_perm[j]`` (``lo <= j < hi``) into kernel
    values in place, and the holes of S (``perm[j] < 0``) into 0; returns the number of
    kernel values (columns that are not holes). One tight loop per kernel, which LLVM
    vectorises for the RBF kernel (see ``kernels._core.exp_nonpositive``)."""
    code, gamma, degree, coef0 = kern[1], kern[2], kern[3], kern[4]
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
    live = 0
    for j in range(n):
        if cols[j] >= 0:
            live += 1
        else:
            row[j] = 0.0
    return live


@njit(cache=True)
def kernel_row(rid, ncol, store, kern, svs, cache, ws, scratch, cnt):
    """``K(x_rid, x_perm[p])`` for positions ``p < ncol``, through the cache (row id ``rid``).

    Only the columns the cached row lacks are computed (holes of S give 0); returns a view
    of length ``ncol``, valid until the acquire after the next one (the cache never evicts
    the previous row).
    """
    Xd, indptr, indices, data, sq = store[:5]
    sparse = kern[0]
    perm = svs[0]
    rows, slot_meta, id_meta, stats = cache
    slot, valid = cache_acquire(rows, slot_meta, id_meta, stats, rid, ncol)
    if slot >= 0:
        valid = sync_row(rid, slot, ncol, valid, store[8], svs, cache, scratch)
    target = scratch if slot < 0 else rows[slot]
    if valid < ncol:
        x_sq = sq[rid]
        if sparse:
            for p in range(indptr[rid], indptr[rid + 1]):
                ws[indices[p]] = data[p]
            for j in range(valid, ncol):
                s = perm[j]
                dot = 0.0
                if s >= 0:
                    for p in range(indptr[s], indptr[s + 1]):
                        dot += ws[indices[p]] * data[p]
                target[j] = dot
            for p in range(indptr[rid], indptr[rid + 1]):
                ws[indices[p]] = 0.0
        else:
            x = Xd[rid]
            for j in range(valid, ncol):
                s = perm[j]
                target[j] = dot_dense(x, Xd[s]) if s >= 0 else 0.0
        cnt[KEVALS] += dots_to_columns(target, valid, ncol, x_sq, sq, perm, kern)
        cache_set_length(slot_meta, slot, ncol)
    return target[:ncol]


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


@njit(cache=True)
def prefetch_rows(pool, start, end, store, kern, svs, cache, cnt):
    """Compute together the missing kernel rows of the next examples of ``pool[start:end]``
    that are outside S (up to ``PREFETCH`` of them among the next ``PREFETCH_WINDOW``) and put
    them in the cache, for the online iterations that will take them in this order.

    The same values as :func:`kernel_row` (same dot products), computed column by column:
    each stored member row is read once for the whole block instead of once per example,
    which is what bounds the speed of long dense rows (memory traffic, e.g. 784 pixels).
    Dense data only, and only when the cache has room for the block beside the pinned rows
    of S (a prefetched row must not push out another before it is used); a row that is
    evicted anyway, or that S outgrows, is completed by :func:`kernel_row` (the result
    does not change, only the cost)."""
    Xd, sq = store[0], store[4]
    pos_of, row_gen = store[7], store[8]
    sparse = kern[0]
    perm = svs[0]
    rows, slot_meta, id_meta, stats = cache
    ncol = cnt[N_COLS]
    if sparse or ncol < PREFETCH or rows.shape[0] < cnt[N_LIVE] + 4 * PREFETCH + 8:
        return
    ids = np.empty(PREFETCH, dtype=np.int64)
    slots = np.empty(PREFETCH, dtype=np.int64)
    m = 0
    for t in range(start, min(end, start + PREFETCH_WINDOW)):
        k = pool[t]
        if pos_of[k] >= 0 or id_meta[k, 0] >= 0:
            continue  # a member (its row is pinned) or already cached (and then distinct)
        slot, valid = cache_acquire(rows, slot_meta, id_meta, stats, k, ncol)
        ids[m] = k
        slots[m] = slot
        m += 1
        if m == PREFETCH:
            break
    for j in range(ncol):
        s = perm[j]
        if s < 0:
            continue  # a hole: dots_to_columns writes 0
        column_dots(Xd, s, j, ids, slots, m, rows)
    gen = svs[6][0]
    for b in range(m):
        cnt[KEVALS] += dots_to_columns(rows[slots[b]], 0, ncol, sq[ids[b]], sq, perm, kern)
        cache_set_length(slot_meta, slots[b], ncol)
        row_gen[ids[b]] = gen


@njit(cache=True)
def insert(k, gk, lo_k, hi_k, store, svs, cache, cnt):
    """Append example ``k`` to S (new last column) with alpha = 0 and gradient ``gk``."""
    perm, alpha, g, lo, hi = svs[:5]
    p = cnt[N_COLS]
    perm[p] = k
    alpha[p] = 0.0
    g[p] = gk
    lo[p] = lo_k
    hi[p] = hi_k
    store[7][k] = p
    cache_set_pinned(cache[1], cache[2], k, True)
    cnt[N_COLS] = p + 1
    cnt[N_LIVE] += 1
    return p


@njit(cache=True)
def remove(p, store, svs, cache, cnt):
    """Remove the member at position p from S, leaving a hole (see the module docstring).

    Its cached row is dropped too: an example leaves S only after it was processed, and
    within an epoch it is not processed again, so the row would only hold a slot (and
    memory that the cache would otherwise never touch) until the LRU order evicts it."""
    perm, alpha, g, lo, hi = svs[:5]
    k = perm[p]
    store[7][k] = -1
    cache_set_pinned(cache[1], cache[2], k, False)
    cache_invalidate(cache[1], cache[2], cache[3], k)
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
    perm, alpha, g, lo, hi = svs[:5]
    glog, gmeta = svs[5], svs[6]
    pos_of = store[7]
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
    glog, gmeta = svs[5], svs[6]
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
            t = first
            while t < n_new and glog[r, t] < length:
                row[t] = tmp[glog[r, t]]
                t += 1
            length = t
    slot_meta[slot, 1] = length
    if length < ncol and valid == ncol:
        stats[0] -= 1  # counted as a hit by cache_acquire: a partial hit after all
        stats[1] += 1
    return min(length, ncol)


@njit(cache=True)
def compact(store, svs, cache, cnt, tmp):
    """Drop the holes of S (:func:`reorder` keeping the members in order)."""
    perm = svs[0]
    n = cnt[N_COLS]
    order = np.empty(n, dtype=np.int64)
    m = 0
    for c in range(n):
        if perm[c] >= 0:
            order[m] = c
            m += 1
    reorder(order, m, store, svs, cache, cnt, tmp)


@njit(cache=True)
def make_room(store, svs, cache, cnt, tmp):
    """Before an insertion: compact when holes are a third of the columns or block the
    capacity. Returns NEED_GROW if S is full even without holes."""
    holes = cnt[N_COLS] - cnt[N_LIVE]
    full = cnt[N_COLS] + 1 > svs[0].shape[0]
    # at the capacity, a few holes are not worth a new layout (each one makes the cached
    # rows catch up, see sync_row): the capacity doubles instead
    if holes > 0 and (3 * holes > cnt[N_COLS] + 96 or (full and 8 * holes >= cnt[N_COLS])):
        compact(store, svs, cache, cnt, tmp)
    if cnt[N_COLS] + 1 > svs[0].shape[0]:
        return NEED_GROW
    return 0


@njit(cache=True)
def extremes(n, svs):
    """``(i, g_max, j, g_min)``: argmax g with alpha < B and argmin g with alpha > A over
    positions < n (-1 and -inf/+inf when there is none). Gradients within ``TIE`` of the best
    so far count as equal and the earlier position wins: after an unclipped SMO step the
    two examples have equal gradients up to rounding, and this makes the choice between
    them independent of the rounding."""
    perm, alpha, g, lo, hi = svs[:5]
    i = -1
    j = -1
    gmax = -np.inf
    gmin = np.inf
    for s in range(n):
        if alpha[s] < hi[s] and g[s] > gmax + TIE:
            gmax = g[s]
            i = s
        if alpha[s] > lo[s] and g[s] < gmin - TIE:
            gmin = g[s]
            j = s
    return i, gmax, j, gmin


@njit(cache=True)
def decision_value(k, store, kern, svs, cache, work, cnt, st, scratch):
    """``y(x_k) = sum_s alpha_s K(x_k, x_s) + b`` for a stored example (eq. 2)."""
    n = cnt[N_COLS]
    row = kernel_row(k, n, store, kern, svs, cache, work[0], scratch, cnt)
    return dot_dense(svs[1][:n], row) + st[B_]


# ----------------------------------------------------------------------------- LASVM


@njit(cache=True)
def _move_pair(i, j, n, store, kern, svs, cache, work, cnt):
    """The clipped SMO step on the pair (i, j): moves ``alpha[i]`` up and ``alpha[j]`` down by
    ``lam`` inside their boxes and returns ``(lam, row i, row j)``; ``lam = 0`` when the step
    is below rounding and nothing moved. The gradients are the caller's to update."""
    perm, alpha, g, lo, hi = svs[:5]
    kd = store[5]
    ri = kernel_row(perm[i], n, store, kern, svs, cache, work[0], work[1], cnt)
    rj = kernel_row(perm[j], n, store, kern, svs, cache, work[0], work[2], cnt)
    curvature = kd[perm[i]] + kd[perm[j]] - 2.0 * ri[j]
    if curvature < _CURVATURE_FLOOR:
        curvature = _CURVATURE_FLOOR
    lam = (g[i] - g[j]) / curvature
    up = hi[i] - alpha[i]
    down = alpha[j] - lo[j]
    if up < lam:
        lam = up
    if down < lam:
        lam = down
    new_i = hi[i] if lam == up else alpha[i] + lam
    new_j = lo[j] if lam == down else alpha[j] - lam
    if new_i == alpha[i] and new_j == alpha[j]:
        return 0.0, ri, rj
    alpha[i] = new_i
    alpha[j] = new_j
    return lam, ri, rj


@njit(cache=True)
def pair_step(i, j, n, store, kern, svs, cache, work, cnt):
    """SMO direction search on the tau-violating pair (i, j) (Bordes et al., PROCESS step 5 /
    REPROCESS step 3); gradients of positions < n are updated."""
    g = svs[2]
    lam, ri, rj = _move_pair(i, j, n, store, kern, svs, cache, work, cnt)
    if lam == 0.0:
        return False  # a step below rounding: a numerical stall, not a move
    for s in range(n):
        g[s] -= lam * (ri[s] - rj[s])
    return True


@njit(cache=True)
def pair_step_extremes(i, j, n, store, kern, svs, cache, work, cnt):
    """:func:`pair_step` fused with the next :func:`extremes` (one pass over S instead of
    two; the finishing step's inner loop)."""
    alpha, g, lo, hi = svs[1], svs[2], svs[3], svs[4]
    lam, ri, rj = _move_pair(i, j, n, store, kern, svs, cache, work, cnt)
    if lam == 0.0:
        return -1, -np.inf, -1, np.inf  # a step below rounding: report no pair (stall)
    best_i = -1
    best_j = -1
    gmax = -np.inf
    gmin = np.inf
    for s in range(n):
        gs = g[s] - lam * (ri[s] - rj[s])
        g[s] = gs
        if alpha[s] < hi[s] and gs > gmax + TIE:
            gmax = gs
            best_i = s
        if alpha[s] > lo[s] and gs < gmin - TIE:
            gmin = gs
            best_j = s
    return best_i, gmax, best_j, gmin


@njit(cache=True)
def process(k, tau, Cp, Cn, store, kern, svs, cache, work, cnt):
    """LASVM PROCESS(k): insert k into S (steps 1-2), direction search on the tau-violating
    pair with maximal gradient that involves k (steps 3-5). Returns False if k was in S."""
    pos_of = store[7]
    if pos_of[k] >= 0:
        return False
    ys = store[6]
    perm, alpha, g, lo, hi = svs[:5]
    n = cnt[N_COLS]
    row = kernel_row(k, n, store, kern, svs, cache, work[0], work[3], cnt)
    f = 0.0
    for s in range(n):
        f += alpha[s] * row[s]
    y = ys[k]
    c = Cp if y > 0 else Cn
    p = insert(k, y - f, min(0.0, c * y), max(0.0, c * y), store, svs, cache, cnt)
    n = p + 1
    i, gmax, j, gmin = extremes(n, svs)
    if y > 0:
        i = p
    else:
        j = p
    if i < 0 or j < 0:
        return True
    if alpha[i] < hi[i] and alpha[j] > lo[j] and g[i] - g[j] > tau:
        pair_step(i, j, n, store, kern, svs, cache, work, cnt)
        cnt[N_PROCESS_STEPS] += 1
    return True


@njit(cache=True)
def remove_blatant_and_bias(store, svs, cache, cnt, st):
    """REPROCESS steps 4-5: drop members with alpha = 0 that cannot be part of a violating
    pair (y = -1 and g >= g_max, or y = +1 and g <= g_min), then set b and delta (eq. 10)."""
    ys = store[6]
    perm, alpha, g, lo, hi = svs[:5]
    n = cnt[N_COLS]
    i, gmax, j, gmin = extremes(n, svs)
    for s in range(n - 1, -1, -1):
        if alpha[s] == 0.0 and perm[s] >= 0:
            y = ys[perm[s]]
            if (y < 0 and i >= 0 and g[s] >= gmax) or (y > 0 and j >= 0 and g[s] <= gmin):
                remove(s, store, svs, cache, cnt)
    i, gmax, j, gmin = extremes(cnt[N_COLS], svs)
    if i >= 0 and j >= 0:
        st[B_] = 0.5 * (gmax + gmin)
        st[DELTA] = gmax - gmin
    elif i >= 0:
        st[B_] = gmax
        st[DELTA] = 0.0
    elif j >= 0:
        st[B_] = gmin
        st[DELTA] = 0.0
    else:
        st[B_] = 0.0
        st[DELTA] = 0.0


@njit(cache=True)
def reprocess(tau, store, kern, svs, cache, work, cnt, st):
    """LASVM REPROCESS: direction search on the most violating pair of S (steps 1-3), then
    steps 4-5 (also when step 2 bails out, so that b and delta are always current and a
    just-PROCESSed example failing eq. 11 is dropped). Returns True if a step was made."""
    n = cnt[N_COLS]
    i, gmax, j, gmin = extremes(n, svs)
    stepped = False
    if i >= 0 and j >= 0 and gmax - gmin > tau:
        stepped = pair_step(i, j, n, store, kern, svs, cache, work, cnt)
        cnt[N_REPROCESS_STEPS] += 1
    remove_blatant_and_bias(store, svs, cache, cnt, st)
    return stepped


@njit(cache=True)
def pick(pool, pstate, selection, n_candidates, store, kern, svs, cache, work, cnt, st, rng):
    """Take the next example out of ``pool[start:end]`` (``pstate = [start, end]``).

    RANDOM takes them in pool order (the caller shuffles); GRADIENT and ACTIVE sample
    ``n_candidates`` without replacement and take the smallest ``y y(x)`` (eq. 12) or
    ``|y(x)|`` (eq. 13); AUTOACTIVE samples until 5 lie within ``1 + delta/2`` of the
    boundary or 100 were drawn, and takes the smallest ``|y(x)|``."""
    start = pstate[0]
    end = pstate[1]
    if selection != RANDOM:
        ys = store[6]
        limit = AUTOACTIVE_MAX if selection == AUTOACTIVE else n_candidates
        best = start
        best_score = np.inf
        close = 0
        drawn = 0
        while drawn < limit and start + drawn < end:
            r = start + drawn + rand_below(rng, end - start - drawn)
            t = start + drawn
            k = pool[r]
            pool[r] = pool[t]
            pool[t] = k
            f = decision_value(k, store, kern, svs, cache, work, cnt, st, work[3])
            cnt[N_CANDIDATES] += 1
            score = ys[k] * f if selection == GRADIENT else abs(f)
            if score < best_score:
                best_score = score
                best = t
            drawn += 1
            if selection == AUTOACTIVE and abs(f) < 1.0 + 0.5 * st[DELTA]:
                close += 1
                if close >= AUTOACTIVE_STOP:
                    break
        k = pool[best]
        pool[best] = pool[start]
        pool[start] = k
    pstate[0] = start + 1
    return pool[start]


@njit(cache=True)
def lasvm_online(pool, pstate, n_iter, selection, n_candidates, n_seed, tau, delta_max, Cp,
                 Cn, store, kern, svs, cache, work, cnt, st, rng):
    """LASVM online iterations (step 2) over the examples of ``pool[start:end]``: pick one
    (:func:`pick`), PROCESS it, REPROCESS once (or, with ``delta_max > 0``, until
    ``delta < delta_max``). The first ``n_seed`` examples of each class seed S (inserted
    with alpha = 0, step 1). Stops after ``n_iter`` iterations, when the pool is empty, or
    when S fills its capacity (returns NEED_GROW: the caller grows and calls again)."""
    ys = store[6]
    pos_of = store[7]
    done = 0
    while pstate[0] < pstate[1] and done < n_iter:
        if make_room(store, svs, cache, cnt, work[1]) == NEED_GROW:
            return NEED_GROW
        if selection == RANDOM:
            k = pool[pstate[0]]
            if pos_of[k] < 0 and cache[2][k, 0] < 0:
                prefetch_rows(pool, pstate[0], pstate[1], store, kern, svs, cache, cnt)
        k = pick(pool, pstate, selection, n_candidates, store, kern, svs, cache, work, cnt, st,
                 rng)
        done += 1
        cnt[N_ITER] += 1
        y = ys[k]
        seed_slot = SEED_POS if y > 0 else SEED_NEG
        if cnt[seed_slot] < n_seed and pos_of[k] < 0:
            # step 1: seed S with a few examples of each class, alpha = 0, g from eq. 9
            n = cnt[N_COLS]
            row = kernel_row(k, n, store, kern, svs, cache, work[0], work[3], cnt)
            f = 0.0
            for s in range(n):
                f += svs[1][s] * row[s]
            c = Cp if y > 0 else Cn
            insert(k, y - f, min(0.0, c * y), max(0.0, c * y), store, svs, cache, cnt)
            cnt[seed_slot] += 1
            continue
        process(k, tau, Cp, Cn, store, kern, svs, cache, work, cnt)
        stepped = reprocess(tau, store, kern, svs, cache, work, cnt, st)
        if delta_max > 0.0:
            repeats = 0
            limit = max(100, cnt[N_COLS])  # guards against steps that rounding makes void
            while stepped and st[DELTA] >= delta_max and repeats < limit:
                stepped = reprocess(tau, store, kern, svs, cache, work, cnt, st)
                repeats += 1
    return 0


@njit(cache=True)
def _shrink(n_active, store, svs, cache, cnt, tmp):
    """Shrinking of the finishing step: members of the active prefix at a bound of their box
    that cannot join a violating pair are removed from S (alpha = 0) or set aside behind the
    active prefix (alpha = +-C), by one :func:`reorder`. Returns the new active size."""
    perm, alpha, g, lo, hi = svs[:5]
    i, gmax, j, gmin = extremes(n_active, svs)
    n = cnt[N_COLS]
    keep = np.empty(n, dtype=np.int64)
    aside = np.empty(n, dtype=np.int64)
    n_keep = 0
    n_aside = 0
    for s in range(n_active):
        if perm[s] < 0:
            continue
        out = (alpha[s] >= hi[s] and i >= 0 and g[s] > gmax) or (
            alpha[s] <= lo[s] and j >= 0 and g[s] < gmin)
        if not out:
            keep[n_keep] = s
            n_keep += 1
        elif alpha[s] == 0.0:
            remove(s, store, svs, cache, cnt)
        else:
            aside[n_aside] = s
            n_aside += 1
    if n_active - n_keep < max(16, n_active // 20) and n_keep + n_aside == n_active:
        return n_active  # too little to set aside to pay for a pass over the cache
    for s in range(n_active, n):
        if perm[s] >= 0:
            aside[n_aside] = s
            n_aside += 1
    keep[n_keep : n_keep + n_aside] = aside[:n_aside]
    reorder(keep, n_keep + n_aside, store, svs, cache, cnt, tmp)
    return n_keep


@njit(cache=True)
def second_order_partner(i, gi, n, store, kern, svs, cache, work, cnt):
    """For the finishing step: the ``j`` (alpha_j > A_j, g_j < g_i) whose pair step with
    ``i`` gains the most, ``(g_i - g_j)^2 / (K_ii + K_jj - 2 K_ij)`` (the second-order
    working-set selection of Fan, Chen & Lin 2005 that LIBSVM uses), or -1."""
    perm, alpha, g, lo = svs[0], svs[1], svs[2], svs[3]
    kd = store[5]
    ri = kernel_row(perm[i], n, store, kern, svs, cache, work[0], work[1], cnt)
    kii = kd[perm[i]]
    best = -1
    best_gain = 0.0
    for t in range(n):
        if alpha[t] > lo[t]:
            diff = gi - g[t]
            if diff > 0.0:
                curvature = kii + kd[perm[t]] - 2.0 * ri[t]
                if curvature < _CURVATURE_FLOOR:
                    curvature = _CURVATURE_FLOOR
                gain = diff * diff / curvature
                if gain > best_gain:
                    best_gain = gain
                    best = t
    return best


@njit(cache=True)
def lasvm_finish(tau, shrink_every, second_order, store, kern, svs, cache, work, cnt, st):
    """Finishing (step 3): REPROCESS until no tau-violating pair is left (delta <= tau).

    With shrinking (Sec. 3.2, "Implementation Details"): the direction searches run over an
    active prefix of S without reordering; every ``shrink_every`` searches the members that
    hit their bounds are removed or set aside (:func:`_shrink`); when the active set has no
    violating pair, the gradients of the set-aside members are recomputed (eq. 9) and the
    search continues over all of S until the merged set has none. Ends with REPROCESS steps
    4-5 (removal of blatant non-support vectors, b and delta)."""
    ys = store[6]
    perm, alpha, g, lo, hi = svs[:5]
    compact(store, svs, cache, cnt, work[1])
    n_active = cnt[N_COLS]
    steps = 0
    limit = max(10_000_000, 100 * n_active)  # LIBSVM's guard against numerical stalls
    i, gmax, j, gmin = extremes(n_active, svs)
    while steps < limit:
        if i >= 0 and j >= 0 and gmax - gmin > tau:
            if second_order:
                j = second_order_partner(i, gmax, n_active, store, kern, svs, cache, work, cnt)
            i, gmax, j, gmin = pair_step_extremes(i, j, n_active, store, kern, svs, cache,
                                                  work, cnt)
            cnt[N_REPROCESS_STEPS] += 1
            steps += 1
            if shrink_every > 0 and steps % shrink_every == 0:
                n_active = _shrink(n_active, store, svs, cache, cnt, work[1])
                i, gmax, j, gmin = extremes(n_active, svs)
            continue
        n = cnt[N_COLS]
        if n_active == n:
            break
        for s in range(n_active, n):
            row = kernel_row(perm[s], n, store, kern, svs, cache, work[0], work[3], cnt)
            f = 0.0
            for t in range(n):
                f += alpha[t] * row[t]
            g[s] = ys[perm[s]] - f
        n_active = n
        i, gmax, j, gmin = extremes(n_active, svs)
    remove_blatant_and_bias(store, svs, cache, cnt, st)
    return steps


# -------------------------------------------------------------------- LASVM-G family


@njit(cache=True)
def _beta(s, C, ys, perm, lo):
    """beta_s of eq. 17, read back from the box of eq. 18: ``A = min(0, C y) - beta y``."""
    y = ys[perm[s]]
    return (min(0.0, C * y) - lo[s]) * y


@njit(cache=True)
def duality_gap(store, svs, cnt, Cp, Cn):
    """Primal-dual gap of the b = 0 problem over the expansion S (eq. 9, corrected).

    With ``g = y - f`` and ``u = alpha y``, the gap is
    ``sum_l [C max(0, y_l g_l) - alpha_l g_l - beta_l y_l g_l]``; each term is >= 0 for a
    feasible alpha (see the module docstring of :mod:`streamsvm.lasvm.variants`)."""
    ys = store[6]
    perm, alpha, g, lo, hi = svs[:5]
    total = 0.0
    for s in range(cnt[N_COLS]):
        if perm[s] < 0:
            continue
        y = ys[perm[s]]
        c = Cp if y > 0 else Cn
        yg = y * g[s]
        total += c * max(0.0, yg) - alpha[s] * g[s] - _beta(s, c, ys, perm, lo) * yg
    return total


@njit(cache=True)
def gap_target(store, svs, cnt, Cp, Cn):
    """Gap target (eq. 8): ``max(0, sqrt(sum h^2 - (sum h)^2 / l))`` with ``h = C y g`` over
    the l support vectors (alpha != 0)."""
    ys = store[6]
    perm, alpha, g, lo, hi = svs[:5]
    s1 = 0.0
    s2 = 0.0
    count = 0
    for s in range(cnt[N_COLS]):
        if alpha[s] != 0.0:
            y = ys[perm[s]]
            h = (Cp if y > 0 else Cn) * y * g[s]
            s1 += h
            s2 += h * h
            count += 1
    if count == 0:
        return 0.0
    value = s2 - s1 * s1 / count
    return np.sqrt(value) if value > 0.0 else 0.0


@njit(cache=True)
def single_step(p, gp, store, kern, svs, cache, work, cnt):
    """Direction search along one coordinate (b = 0, no equality constraint):
    ``lambda = g / K_pp`` clipped to the box, then ``g_s -= lambda K_ps``."""
    perm, alpha, g, lo, hi = svs[:5]
    kd = store[5]
    kpp = kd[perm[p]]
    if kpp < _CURVATURE_FLOOR:
        kpp = _CURVATURE_FLOOR
    lam = gp / kpp
    if gp < 0.0:
        bound = lo[p] - alpha[p]
        if lam <= bound:
            lam = bound
            alpha[p] = lo[p]
        else:
            alpha[p] += lam
    else:
        bound = hi[p] - alpha[p]
        if lam >= bound:
            lam = bound
            alpha[p] = hi[p]
        else:
            alpha[p] += lam
    if lam == 0.0:
        return
    n = cnt[N_COLS]
    row = kernel_row(perm[p], n, store, kern, svs, cache, work[0], work[1], cnt)
    for s in range(n):
        g[s] -= lam * row[s]


@njit(cache=True)
def reprocess_g(tau, store, kern, svs, cache, work, cnt):
    """LASVM-G REPROCESS: i = argmin g with alpha > A, j = argmax g with alpha < B; bail out
    unless ``max(g_j, 0) - min(g_i, 0) > tau``; step on the one with the larger violation
    (``g_i + g_j < 0`` -> i, else j). Returns True if a step was made."""
    perm, alpha, g, lo, hi = svs[:5]
    n = cnt[N_COLS]
    i = -1
    j = -1
    gmin = np.inf
    gmax = -np.inf
    for s in range(n):
        if alpha[s] > lo[s] and g[s] < gmin:
            gmin = g[s]
            i = s
        if alpha[s] < hi[s] and g[s] > gmax:
            gmax = g[s]
            j = s
    down = -gmin if (i >= 0 and gmin < 0.0) else 0.0
    up = gmax if (j >= 0 and gmax > 0.0) else 0.0
    if down + up <= tau:
        return False
    if down > up:
        single_step(i, gmin, store, kern, svs, cache, work, cnt)
    else:
        single_step(j, gmax, store, kern, svs, cache, work, cnt)
    cnt[N_REPROCESS_STEPS] += 1
    return True


@njit(cache=True)
def clean(max_non_sv, store, svs, cache, cnt):
    """CLEAN: if more than m non-support vectors (alpha = 0) are in the expansion, keep the
    m closest to the margin (smallest ``|g| = |1 - y f|``) and remove the others."""
    perm, alpha, g, lo, hi = svs[:5]
    n = cnt[N_COLS]
    count = 0
    for s in range(n):
        if alpha[s] == 0.0 and perm[s] >= 0:
            count += 1
    if count <= max_non_sv:
        return
    values = np.empty(count)
    t = 0
    for s in range(n):
        if alpha[s] == 0.0 and perm[s] >= 0:
            values[t] = abs(g[s])
            t += 1
    values.sort()
    threshold = values[max_non_sv]
    for s in range(n - 1, -1, -1):
        if alpha[s] == 0.0 and perm[s] >= 0 and abs(g[s]) >= threshold:
            remove(s, store, svs, cache, cnt)
    cnt[N_CLEAN] += 1


@njit(cache=True)
def lasvmg_online(pool, pstate, n_iter, variant, s_ramp, clean_every, max_non_sv, tau, C, Cp,
                  Cn, store, kern, svs, cache, work, cnt, st):
    """Online iterations of LASVM-G / -NC / -I / FULL SVM over ``pool[start:end]`` in order.

    For a fresh example: score ``z = y f(x)``; LASVM-I skips it if ``z > 1`` or ``z < s``;
    LASVM-NC sets ``beta = C`` if ``z < s`` (eq. 17) and the box of eq. 18; compute the gap
    target (eq. 8), PROCESS (single coefficient), then REPROCESS while the gap (eq. 9)
    exceeds ``max(C, target)``. Every ``clean_every`` examples CLEAN (not FULL SVM)."""
    ys = store[6]
    pos_of = store[7]
    perm, alpha, g, lo, hi = svs[:5]
    done = 0
    while pstate[0] < pstate[1] and done < n_iter:
        if make_room(store, svs, cache, cnt, work[1]) == NEED_GROW:
            return NEED_GROW
        k = pool[pstate[0]]
        if pos_of[k] < 0 and cache[2][k, 0] < 0:
            prefetch_rows(pool, pstate[0], pstate[1], store, kern, svs, cache, cnt)
        pstate[0] += 1
        done += 1
        cnt[N_ITER] += 1
        if pos_of[k] < 0:
            n = cnt[N_COLS]
            row = kernel_row(k, n, store, kern, svs, cache, work[0], work[3], cnt)
            f = 0.0
            for s in range(n):
                f += alpha[s] * row[s]
            y = ys[k]
            z = y * f
            if variant == VARIANT_I and (z > 1.0 or z < s_ramp):
                cnt[N_SKIPPED] += 1
            else:
                c = Cp if y > 0 else Cn
                beta = c if (variant == VARIANT_NC and z < s_ramp) else 0.0
                target = gap_target(store, svs, cnt, Cp, Cn)
                p = insert(k, y - f, min(0.0, c * y) - beta * y, max(0.0, c * y) - beta * y,
                           store, svs, cache, cnt)
                single_step(p, g[p], store, kern, svs, cache, work, cnt)
                cnt[N_PROCESS_STEPS] += 1
                threshold = max(C, target)
                gap = duality_gap(store, svs, cnt, Cp, Cn)
                repeats = 0
                limit = max(100, 10 * cnt[N_COLS])  # guard against steps rounding makes void
                while gap > threshold and repeats < limit:
                    if not reprocess_g(tau, store, kern, svs, cache, work, cnt):
                        break
                    gap = duality_gap(store, svs, cnt, Cp, Cn)
                    repeats += 1
                st[GAP] = gap
                st[GAP_TARGET] = target
        else:
            # a later epoch meets a member of S: coordinate step on its coefficient (PROCESS
            # without resetting alpha), then the gap loop; epochs then converge (FULL SVM)
            p = pos_of[k]
            target = gap_target(store, svs, cnt, Cp, Cn)
            single_step(p, g[p], store, kern, svs, cache, work, cnt)
            threshold = max(C, target)
            gap = duality_gap(store, svs, cnt, Cp, Cn)
            repeats = 0
            limit = max(100, 10 * cnt[N_COLS])  # guard against steps rounding makes void
            while gap > threshold and repeats < limit:
                if not reprocess_g(tau, store, kern, svs, cache, work, cnt):
                    break
                gap = duality_gap(store, svs, cnt, Cp, Cn)
                repeats += 1
            st[GAP] = gap
            st[GAP_TARGET] = target
        cnt[SINCE_CLEAN] += 1
        if variant != VARIANT_FULL and cnt[SINCE_CLEAN] >= clean_every:
            clean(max_non_sv, store, svs, cache, cnt)
            cnt[SINCE_CLEAN] = 0
    return 0


@njit(cache=True)
def decision_values(ids, store, kern, svs, cache, work, cnt, st, out):
    """``out[t] = y(x_ids[t])`` for stored examples, through the kernel cache (eq. 2)."""
    for t in range(ids.shape[0]):
        out[t] = decision_value(ids[t], store, kern, svs, cache, work, cnt, st, work[3])
    return out


# ------------------------------------------------------------------------ maintenance


@njit(cache=True)
def remap_cache_ids(new_of_old, slot_meta, id_meta, stats):
    """Renumber the cache's row ids after the store was compacted: id ``o`` becomes
    ``new_of_old[o]`` (>= 0), or is dropped (-1). ``id_meta`` is rewritten in place."""
    n_old = new_of_old.shape[0]
    old_slot = id_meta[:n_old, 0].copy()
    old_pin = id_meta[:n_old, 1].copy()
    n_slots = slot_meta.shape[0] - 2
    for o in range(n_old):
        if new_of_old[o] < 0 and old_slot[o] >= 0:
            slot = old_slot[o]
            # free the slot: owner -1, length 0, moved to the LRU end of the unpinned list
            slot_meta[slot, 0] = -1
            slot_meta[slot, 1] = 0
            prev = slot_meta[slot, 2]
            nxt = slot_meta[slot, 3]
            slot_meta[prev, 3] = nxt
            slot_meta[nxt, 2] = prev
            sentinel = n_slots
            first = slot_meta[sentinel, 3]
            slot_meta[slot, 2] = sentinel
            slot_meta[slot, 3] = first
            slot_meta[sentinel, 3] = slot
            slot_meta[first, 2] = slot
            if stats[4] == slot:
                stats[4] = -1
    for o in range(id_meta.shape[0]):
        id_meta[o, 0] = -1
        id_meta[o, 1] = 0
    for o in range(n_old):
        n = new_of_old[o]
        if n >= 0:
            id_meta[n, 0] = old_slot[o]
            id_meta[n, 1] = old_pin[o]
            if old_slot[o] >= 0:
                slot_meta[old_slot[o], 0] = n


@njit(cache=True)
def decision_rows_dense(X, X_sq, SV, SV_sq, coef, b, code, gamma, degree, coef0, out):
    """``out[r] = sum_s coef_s K(X_r, SV_s) + b`` for dense X and dense support vectors."""
    for r in range(X.shape[0]):
        total = 0.0
        for s in range(SV.shape[0]):
            total += coef[s] * kernel_from_dot(dot_dense(X[r], SV[s]), X_sq[r], SV_sq[s], code,
                                               gamma, degree, coef0)
        out[r] = total + b
    return out


@njit(cache=True)
def decision_rows_csr(indptr, indices, data, X_sq, sv_indptr, sv_indices, sv_data, SV_sq, coef,
                      b, code, gamma, degree, coef0, ws, out):
    """:func:`decision_rows_dense` for CSR X and CSR support vectors (scatter/gather)."""
    for r in range(indptr.shape[0] - 1):
        for p in range(indptr[r], indptr[r + 1]):
            ws[indices[p]] = data[p]
        total = 0.0
        for s in range(sv_indptr.shape[0] - 1):
            dot = 0.0
            for p in range(sv_indptr[s], sv_indptr[s + 1]):
                dot += ws[sv_indices[p]] * sv_data[p]
            total += coef[s] * kernel_from_dot(dot, X_sq[r], SV_sq[s], code, gamma, degree,
                                               coef0)
        out[r] = total + b
        for p in range(indptr[r], indptr[r + 1]):
            ws[indices[p]] = 0.0
    return out
