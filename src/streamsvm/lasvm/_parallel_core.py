"""LASVM's loops over the expansion S and over rows to score, on several threads (numba
``prange`` over fixed blocks; :mod:`streamsvm.utils.threads` sets the thread count from
``n_jobs``).

Each loop here computes every value exactly as its one-thread form does (elementwise
updates; sums over S kept whole within one row), so the result does not depend on the thread
count. The kernel rows of S are computed in blocks by ``_kernel_rows_core.columns_in_blocks``,
or, for a pair step, in the same region as the gradient update and the pair search
(:func:`rows_update_search`: one region per step).

**The pair search in blocks** (:func:`search_in_blocks`, :func:`update_and_search`) gives the
very pair of the one-thread search ``_lasvm_core.extremes``, TIE rule included. That search
keeps a running best ``c`` and takes position ``s`` when ``g_s > c + TIE`` (argmax side; the
argmin side mirrors it). Its result is not the plain argmax: a run of gradients rising by less
than TIE each is taken or passed over depending on where the run began, so per-block winners
cannot simply be compared. Instead each sub-block of ``SEARCH_SUB`` positions is searched, on
the threads, by the one-thread loop alone from ``c = -inf``, which gives two numbers: ``w``,
its result, and ``e``, the first gradient it takes. The sub-blocks are then combined in
position order from the running best ``c`` of the positions before:

1. ``e > c + TIE``: the search from ``c`` passes over the positions before ``e`` as the
   search from ``-inf`` does (they are not eligible, or their gradient is not above
   ``-inf``), takes ``e`` as it does, and from there both searches are in the same state, so
   the result is ``w``;
2. else ``w <= c``: every eligible gradient ``x`` of the sub-block was either taken from
   ``-inf`` (``x <= w``) or passed over (``x <= fl(b + TIE)`` for a running best ``b <= w``),
   so ``x <= fl(w + TIE) <= fl(c + TIE)`` (rounding is monotone) and the search from ``c``
   takes nothing: ``c`` is unchanged;
3. else the sub-block is searched from ``c`` as in one thread (``SEARCH_SUB`` positions; it
   holds a gradient above ``c``, which happens about as often as a new running best).

Each case gives the one-thread result over the positions so far, so by induction the combined
result is the one-thread pair, bit for bit, whatever the thread count (and
``tests/test_threads.py`` compares the two on near ties built to trip a naive combination).
Per position the sub-block search costs what the one-thread loop costs.
"""

import numpy as np
from numba import njit, prange

from ..kernels._core import PARALLEL_BLOCK, parallel_worth
from ..utils.threads import threads_now
from ._decision_core import decision_rows_csr as rows_csr
from ._decision_core import decision_rows_dense as rows_dense
from ._expansion_core import STORE_Y, SV_ALPHA, SV_G, SV_HI, SV_LO, SV_PANEL, SV_PERM, remove
from ._kernel_rows_core import columns

__all__ = ["gradient_step", "decision_rows_dense", "decision_rows_csr", "search_worth",
           "search_in_blocks", "update_and_search", "update_search_remove",
           "rows_update_search",
           "remove_blatant_in_blocks",
           "partner_in_blocks", "dot_beside_search", "search_one_more", "scan_extremes",
           "pair_gain"]

#: the least size of S whose gradient update (eq. 9, ``g_s -= lam (K_is - K_js)``) is split
#: over threads: below it the update costs less than waking them
GRADIENT_MIN_PARALLEL = 1 << 15


#: positions of S per sub-block of the pair search (a block of PARALLEL_BLOCK holds one or more)
SEARCH_SUB = 256
#: positions of S tested together by the pair search (:func:`scan_extremes`)
SCAN_CHUNK = 8
#: the least size of S whose pair search (with the gradient update before it, and the removal
#: of blatant non-support vectors) is split over threads: one parallel region per step
SEARCH_MIN_PARALLEL = 16384


@njit(cache=True)
def search_worth(n, least=SEARCH_MIN_PARALLEL):
    """Whether a step over ``n`` positions of S runs on several threads: numba has more than
    one and ``n`` reaches ``least`` (the pair search's ``SEARCH_MIN_PARALLEL``; LASVM's fused
    pair step passes its own)."""
    return n >= least and threads_now() > 1


@njit(cache=True)
def scan_extremes(a, z, alpha, g, lo, hi, tie):
    """The one-thread pair search over positions ``a .. z - 1`` (``_lasvm_core.extremes``'
    rule, which every search here reproduces): ``(i, g_max, j, g_min)``, argmax g with
    alpha < B and argmin g with alpha > A, a gradient within ``tie`` of the best so far
    losing to the earlier position.

    In chunks of ``SCAN_CHUNK`` positions: a chunk where no position passes the tests of
    the running bests at its start (``g > fl(g_max + tie)``, ``g < fl(g_min - tie)``: the
    very tests of the position-by-position rule, which leaves the bests unchanged through
    such a chunk) is passed over after one branch-free test of its positions; the others
    are met position by position. The same result, bit for bit, at about a fifth of the
    cost of meeting every position (a chain of selects)."""
    return scan_extremes_from(a, z, np.int64(-1), -np.inf, np.int64(-1), np.inf, alpha, g, lo,
                              hi, tie)


@njit(cache=True)
def scan_extremes_from(a, z, i, gmax, j, gmin, alpha, g, lo, hi, tie):
    """:func:`scan_extremes` continued over positions ``a .. z - 1`` from the extremes so far
    ``(i, g_max, j, g_min)``, exactly as the position-by-position scan goes on."""
    s = a
    while s + SCAN_CHUNK <= z:
        up = gmax + tie
        down = gmin - tie
        hit = False
        for t in range(s, s + SCAN_CHUNK):
            hit |= ((alpha[t] < hi[t]) & (g[t] > up)) | ((alpha[t] > lo[t]) & (g[t] < down))
        if hit:
            for t in range(s, s + SCAN_CHUNK):
                i, gmax, j, gmin = _meet(t, i, gmax, j, gmin, alpha, g, lo, hi, tie)
        s += SCAN_CHUNK
    for t in range(s, z):
        i, gmax, j, gmin = _meet(t, i, gmax, j, gmin, alpha, g, lo, hi, tie)
    return i, gmax, j, gmin


@njit(cache=True, inline="always")
def _meet(s, i, gmax, j, gmin, alpha, g, lo, hi, tie):
    """One position ``s`` of the pair search: the extremes so far, updated as the scan meets
    ``s``."""
    if alpha[s] < hi[s] and g[s] > gmax + tie:
        gmax = g[s]
        i = s
    if alpha[s] > lo[s] and g[s] < gmin - tie:
        gmin = g[s]
        j = s
    return i, gmax, j, gmin


@njit(cache=True, inline="always")
def pair_gain(gi, gt, kii, ktt, kit, floor):
    """The gain ``(g_i - g_t)^2 / (K_ii + K_tt - 2 K_it)`` of a pair step on (i, t), the
    curvature floored at ``floor`` (the second-order working-set selection of Fan, Chen &
    Lin 2005); 0 when ``g_t >= g_i`` (no ascent)."""
    diff = gi - gt
    if diff <= 0.0:
        return 0.0
    curvature = kii + ktt - 2.0 * kit
    if curvature < floor:
        curvature = floor
    return diff * diff / curvature


@njit(cache=True)
def _summarise(a, z, alpha, g, lo, hi, tie, up, up_at, down, down_at, q):
    """The one-thread search over positions ``a .. z - 1`` alone (sub-block ``q``):
    ``up[:, q] = (e, w)`` and ``up_at[q]`` = the position of ``w`` (module docstring);
    ``down`` and ``down_at`` the same for the argmin side."""
    i, gmax, j, gmin = scan_extremes(a, z, alpha, g, lo, hi, tie)
    up[1, q] = gmax
    up_at[q] = i
    down[1, q] = gmin
    down_at[q] = j
    first = -np.inf  # e: the first gradient taken (a few positions in, as a rule)
    for s in range(a, z):
        if alpha[s] < hi[s] and g[s] > -np.inf:
            first = g[s]
            break
    up[0, q] = first
    first = np.inf
    for s in range(a, z):
        if alpha[s] > lo[s] and g[s] < np.inf:
            first = g[s]
            break
    down[0, q] = first


@njit(cache=True)
def _combine(n, alpha, g, lo, hi, tie, up, up_at, down, down_at):
    """The one-thread search's ``(i, g_max, j, g_min)`` from the sub-block results (cases
    1-3 of the module docstring, in position order)."""
    i = -1
    j = -1
    gmax = -np.inf
    gmin = np.inf
    for q in range(up_at.shape[0]):
        if up[0, q] > gmax + tie:
            gmax = up[1, q]
            i = up_at[q]
        elif up[1, q] > gmax:
            for s in range(q * SEARCH_SUB, min(q * SEARCH_SUB + SEARCH_SUB, n)):
                if alpha[s] < hi[s] and g[s] > gmax + tie:
                    gmax = g[s]
                    i = s
        if down[0, q] < gmin - tie:
            gmin = down[1, q]
            j = down_at[q]
        elif down[1, q] < gmin:
            for s in range(q * SEARCH_SUB, min(q * SEARCH_SUB + SEARCH_SUB, n)):
                if alpha[s] > lo[s] and g[s] < gmin - tie:
                    gmin = g[s]
                    j = s
    return i, gmax, j, gmin


@njit(cache=True)
def _blatant_summary(a, z, ys, perm, alpha, g, blat, q):
    """For REPROCESS step 4 over positions ``a .. z - 1`` (sub-block ``q``): ``blat[0, q]`` the
    largest gradient of a member with alpha = 0 and y = -1, ``blat[1, q]`` the smallest of one
    with alpha = 0 and y = +1 (-inf / +inf when none): the sub-block holds a blatant
    non-support vector iff ``blat[0, q] >= g_max`` or ``blat[1, q] <= g_min``."""
    top = -np.inf
    bottom = np.inf
    for s in range(a, z):
        if alpha[s] == 0.0 and perm[s] >= 0:
            y = ys[max(perm[s], 0)]
            if y < 0 and g[s] > top:
                top = g[s]
            elif y > 0 and g[s] < bottom:
                bottom = g[s]
    blat[0, q] = top
    blat[1, q] = bottom


@njit(cache=True)
def _update_and_summarise_block(b, start, stop, subs, g, lam, ri, rj, update, n, alpha, lo, hi,
                                tie, up, up_at, down, down_at, blatant, ys, perm, blat):
    """Block ``b`` (positions ``start .. stop - 1``) of a parallel step: its elementwise
    gradient update (eq. 9) when ``update``, then the summaries of its sub-blocks for the
    pair search and, with ``blatant``, for REPROCESS step 4."""
    if update:
        for s in range(start, stop):
            g[s] -= lam * (ri[s] - rj[s])
    for q in range(b * subs, min(b * subs + subs, up_at.shape[0])):
        a = q * SEARCH_SUB
        _summarise(a, min(a + SEARCH_SUB, n), alpha, g, lo, hi, tie, up, up_at, down,
                   down_at, q)
        if blatant:
            _blatant_summary(a, min(a + SEARCH_SUB, n), ys, perm, alpha, g, blat, q)


@njit(cache=True, parallel=True)
def _update_and_summarise_blocks(g, lam, ri, rj, update, n, alpha, lo, hi, tie, up, up_at,
                                 down, down_at, blatant, ys, perm, blat):
    subs = PARALLEL_BLOCK // SEARCH_SUB
    for b in prange((n + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK):
        start = b * PARALLEL_BLOCK
        stop = min(start + PARALLEL_BLOCK, n)
        _update_and_summarise_block(b, start, stop, subs, g, lam, ri, rj, update, n, alpha, lo,
                                    hi, tie, up, up_at, down, down_at, blatant, ys, perm, blat)


@njit(cache=True, inline="always")
def _summary_scratch(n):
    """Per sub-block summaries of a pair search over ``n`` positions: the up and down
    extremes and their positions (``up, up_at, down, down_at``)."""
    n_sub = (n + SEARCH_SUB - 1) // SEARCH_SUB
    return (np.empty((2, n_sub)), np.empty(n_sub, dtype=np.int64), np.empty((2, n_sub)),
            np.empty(n_sub, dtype=np.int64))


@njit(cache=True)
def update_and_search(g, lam, ri, rj, update, n, alpha, lo, hi, tie):
    """``g[s] -= lam (ri[s] - rj[s])`` for ``s < n`` when ``update`` (eq. 9 of Bordes et al.
    2005), then the pair search ``(i, g_max, j, g_min)`` of ``_lasvm_core.extremes`` over the
    new gradients, in one parallel region (each block updates its gradients and searches its
    sub-blocks; module docstring): the same gradients and the same pair, bit for bit."""
    up, up_at, down, down_at = _summary_scratch(n)
    _update_and_summarise_blocks(g, lam, ri, rj, update, n, alpha, lo, hi, tie, up, up_at,
                                 down, down_at, np.bool_(False), up[0], up_at,
                                 up)  # (no blatant part)
    return _combine(n, alpha, g, lo, hi, tie, up, up_at, down, down_at)


@njit(cache=True, inline="always")
def _blatant(s, i, gmax, j, gmin, ys, perm, alpha, g):
    """Whether member ``s`` is a blatant non-support vector of REPROCESS step 4 (alpha = 0
    and ``y = -1, g >= g_max`` or ``y = +1, g <= g_min``, a side only with its extreme)."""
    if alpha[s] != 0.0 or perm[s] < 0:
        return False
    y = ys[perm[s]]
    return (y < 0 and i >= 0 and g[s] >= gmax) or (y > 0 and j >= 0 and g[s] <= gmin)


@njit(cache=True)
def remove_blatant_between(a, z, i, gmax, j, gmin, store, svs, cache, cnt):
    """Remove the blatant members of positions ``a .. z - 1``, last position first (the
    one-thread order: ``remove`` changes its own position alone). Returns the lowest
    position removed (``z`` if none)."""
    ys, perm, alpha, g = store[STORE_Y], svs[SV_PERM], svs[SV_ALPHA], svs[SV_G]
    lowest = z
    for s in range(z - 1, a - 1, -1):
        if _blatant(s, i, gmax, j, gmin, ys, perm, alpha, g):
            remove(s, store, svs, cache, cnt)
            lowest = s
    return lowest


@njit(cache=True)
def update_search_remove(g, lam, ri, rj, update, n, store, svs, cache, cnt, tie):
    """:func:`update_and_search`, then the removals of REPROCESS step 4
    (``_lasvm_core.remove_blatant_from``: alpha = 0 and ``y = -1, g >= g_max`` or
    ``y = +1, g <= g_min``) and the pair search of S after them, with one parallel region:
    each sub-block also summarises its blatant candidates (:func:`_blatant_summary`), the
    members are removed in the one-thread order (last position first), and only the
    sub-blocks that lost members are searched again before the combination. Returns the
    pair ``(i, g_max, j, g_min)`` after the removals; S, the cache and the pair are those of
    one thread, bit for bit."""
    alpha, lo, hi, perm = svs[SV_ALPHA], svs[SV_LO], svs[SV_HI], svs[SV_PERM]
    ys = store[STORE_Y]
    up, up_at, down, down_at = _summary_scratch(n)
    blat = np.empty((2, up_at.shape[0]))
    _update_and_summarise_blocks(g, lam, ri, rj, update, n, alpha, lo, hi, tie, up, up_at,
                                 down, down_at, np.bool_(True), ys, perm, blat)
    return _remove_and_combine(n, tie, up, up_at, down, down_at, blat, store, svs, cache, cnt)


@njit(cache=True)
def _remove_and_combine(n, tie, up, up_at, down, down_at, blat, store, svs, cache, cnt):
    """The tail of :func:`update_search_remove` once every sub-block is summarised: the pair,
    the removals in the one-thread order, the pair again over the sub-blocks that lost
    members."""
    alpha, g, lo, hi = svs[SV_ALPHA], svs[SV_G], svs[SV_LO], svs[SV_HI]
    n_sub = up_at.shape[0]
    i, gmax, j, gmin = _combine(n, alpha, g, lo, hi, tie, up, up_at, down, down_at)
    removed = False
    for q in range(n_sub - 1, -1, -1):
        if not ((i >= 0 and blat[0, q] >= gmax) or (j >= 0 and blat[1, q] <= gmin)):
            continue
        a = q * SEARCH_SUB
        z = min(a + SEARCH_SUB, n)
        remove_blatant_between(a, z, i, gmax, j, gmin, store, svs, cache, cnt)
        _summarise(a, z, alpha, g, lo, hi, tie, up, up_at, down, down_at, q)
        removed = True
    if removed:
        return _combine(n, alpha, g, lo, hi, tie, up, up_at, down, down_at)
    return i, gmax, j, gmin


@njit(cache=True, parallel=True)
def _rows_update_summarise_blocks(rows, rids, valid, wss, store, kern, perm, panel, g, lam,
                                  update, n, alpha, lo, hi, tie, up, up_at, down, down_at,
                                  blatant, ys, blat, live):
    subs = PARALLEL_BLOCK // SEARCH_SUB
    ri, rj = rows
    for b in prange((n + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK):
        start = b * PARALLEL_BLOCK
        stop = min(start + PARALLEL_BLOCK, n)
        count = 0
        for r in range(2):  # the missing columns of the two rows (as kernel_row computes them)
            target = ri if r == 0 else rj
            a = max(start, valid[r])
            if a < stop:
                count += columns(rids[r], a, stop, store, kern, perm, panel, wss[r], target)
        live[b] = count
        _update_and_summarise_block(b, start, stop, subs, g, lam, ri, rj, update, n, alpha, lo,
                                    hi, tie, up, up_at, down, down_at, blatant, ys, perm, blat)


@njit(cache=True)
def rows_update_search(ri, rj, rid_i, rid_j, valid_i, valid_j, ws_i, ws_j, lam, update, blatant,
                       n, store, kern, svs, cache, cnt, tie):
    """The columns ``valid_i ..`` of the kernel row ``ri`` of example ``rid_i`` and ``valid_j ..``
    of ``rj`` (``rid_j``) up to ``n`` (for CSR, each example already scattered into its
    workspace ``ws_i`` / ``ws_j``), then :func:`update_and_search` (``blatant`` False) or
    :func:`update_search_remove` (True), all in one parallel region: each block computes its
    columns of both rows as ``_kernel_rows_core.kernel_row`` does, updates its gradients and
    summarises its sub-blocks. The same rows, gradients, removals and pair as the separate
    steps, bit for bit. Returns ``(i, g_max, j, g_min, kernel values computed)``."""
    alpha, g, lo, hi, perm = svs[SV_ALPHA], svs[SV_G], svs[SV_LO], svs[SV_HI], svs[SV_PERM]
    ys = store[STORE_Y]
    up, up_at, down, down_at = _summary_scratch(n)
    blat = np.empty((2, up_at.shape[0]))
    live = np.empty((n + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK, dtype=np.int64)
    rids = np.array([rid_i, rid_j])
    valid = np.array([valid_i, valid_j])
    _rows_update_summarise_blocks((ri, rj), rids, valid, (ws_i, ws_j), store, kern, perm,
                                  svs[SV_PANEL], g, lam, update, n, alpha, lo, hi, tie, up,
                                  up_at, down, down_at, blatant, ys, blat, live)
    computed = live.sum()
    if blatant:
        i, gmax, j, gmin = _remove_and_combine(n, tie, up, up_at, down, down_at, blat, store,
                                               svs, cache, cnt)
    else:
        i, gmax, j, gmin = _combine(n, alpha, g, lo, hi, tie, up, up_at, down, down_at)
    return i, gmax, j, gmin, computed


@njit(cache=True, parallel=True)
def _dot_beside_summaries(n, alpha, row, g, lo, hi, tie, up, up_at, down, down_at, tasks,
                          total):
    n_sub = up_at.shape[0]
    for t in prange(tasks):
        if t == 0:  # the dot product, summed in position order as in one thread
            f = 0.0
            for s in range(n):
                f += alpha[s] * row[s]
            total[0] = f
        else:  # an equal share of the sub-blocks
            first = (t - 1) * n_sub // (tasks - 1)
            last = t * n_sub // (tasks - 1)
            for q in range(first, last):
                a = q * SEARCH_SUB
                _summarise(a, min(a + SEARCH_SUB, n), alpha, g, lo, hi, tie, up, up_at, down,
                           down_at, q)


@njit(cache=True)
def dot_beside_search(n, row, svs, tie, threads):
    """PROCESS's ``f = sum_s alpha_s K_ks`` over positions < n (eq. 2 without b), summed in
    order by one task while the others search the sub-blocks of S; returns
    ``(f, i, g_max, j, g_min)`` (the pair of ``_lasvm_core.extremes(n, svs)``). The same bits
    as one thread: ``f`` is the one-thread loop, the pair the exact combination (module
    docstring)."""
    alpha, g, lo, hi = svs[SV_ALPHA], svs[SV_G], svs[SV_LO], svs[SV_HI]
    up, up_at, down, down_at = _summary_scratch(n)
    total = np.empty(1)
    # 2 tasks per thread: the first thread takes the sum and one share of the sub-blocks
    # (the sum costs about a third of the search; numba gives each thread equal runs of tasks)
    _dot_beside_summaries(n, alpha, row, g, lo, hi, tie, up, up_at, down, down_at,
                          max(2 * threads, 2), total)
    i, gmax, j, gmin = _combine(n, alpha, g, lo, hi, tie, up, up_at, down, down_at)
    return total[0], i, gmax, j, gmin


@njit(cache=True)
def search_one_more(p, i, gmax, j, gmin, svs, tie):
    """The pair search continued over position ``p`` (the member PROCESS just inserted after
    the positions searched): ``extremes`` over ``p + 1`` positions given its result over
    ``p``, the one-thread rule applied to one more position."""
    return _meet(p, i, gmax, j, gmin, svs[SV_ALPHA], svs[SV_G], svs[SV_LO], svs[SV_HI], tie)


@njit(cache=True)
def search_in_blocks(n, svs, tie):
    """``_lasvm_core.extremes(n, svs)`` on several threads (the same pair, bit for bit)."""
    g = svs[SV_G]
    return update_and_search(g, 0.0, g, g, np.bool_(False), n, svs[SV_ALPHA], svs[SV_LO],
                             svs[SV_HI], tie)


@njit(cache=True, parallel=True)
def _blatant_blocks(i, gmax, j, gmin, n, ys, perm, alpha, g, flags):
    for b in prange(flags.shape[0]):
        found = False
        for s in range(b * PARALLEL_BLOCK, min(b * PARALLEL_BLOCK + PARALLEL_BLOCK, n)):
            found |= _blatant(s, i, gmax, j, gmin, ys, perm, alpha, g)
        flags[b] = found


@njit(cache=True)
def remove_blatant_in_blocks(i, gmax, j, gmin, n, store, svs, cache, cnt):
    """The removals of ``_lasvm_core.remove_blatant_from`` (REPROCESS step 4: alpha = 0 and
    ``y = -1, g >= g_max`` or ``y = +1, g <= g_min``): the blocks holding such members are
    found on several threads, then the members are removed in the one-thread order (last
    position first), so S and the cache end as in one thread."""
    ys = store[STORE_Y]
    perm, alpha, g = svs[SV_PERM], svs[SV_ALPHA], svs[SV_G]
    flags = np.empty((n + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK, dtype=np.bool_)
    _blatant_blocks(i, gmax, j, gmin, n, ys, perm, alpha, g, flags)
    for b in range(flags.shape[0] - 1, -1, -1):
        if flags[b]:
            remove_blatant_between(b * PARALLEL_BLOCK, min(b * PARALLEL_BLOCK + PARALLEL_BLOCK, n),
                                   i, gmax, j, gmin, store, svs, cache, cnt)


@njit(cache=True, parallel=True)
def _partner_blocks(gi, kii, n, ri, kd, perm, alpha, g, lo, floor, gains, at):
    for b in prange(gains.shape[0]):
        best = -1
        best_gain = 0.0
        for t in range(b * PARALLEL_BLOCK, min(b * PARALLEL_BLOCK + PARALLEL_BLOCK, n)):
            if alpha[t] > lo[t]:
                gain = pair_gain(gi, g[t], kii, kd[max(perm[t], 0)], ri[t], floor)
                if gain > best_gain:
                    best_gain = gain
                    best = t
        gains[b] = best_gain
        at[b] = best


@njit(cache=True)
def partner_in_blocks(gi, kii, n, ri, kd, perm, alpha, g, lo, floor):
    """The loop of ``_finish_core.second_order_partner`` (the ``j`` of largest gain
    ``(g_i - g_j)^2 / (K_ii + K_jj - 2 K_ij)``, the earliest on equal gains, or -1) on several
    threads: each block finds its best as one thread would, and the blocks' bests are compared
    in block order by the same strict test, so the earliest of the largest gains wins as in one
    thread (no tolerance here: the comparison is associative)."""
    n_blocks = (n + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK
    gains = np.empty(n_blocks)
    at = np.empty(n_blocks, dtype=np.int64)
    _partner_blocks(gi, kii, n, ri, kd, perm, alpha, g, lo, floor, gains, at)
    best = -1
    best_gain = 0.0
    for b in range(n_blocks):
        if gains[b] > best_gain:
            best_gain = gains[b]
            best = at[b]
    return best


@njit(cache=True, parallel=True)
def _gradient_step_blocks(g, lam, ri, rj, n):
    for b in prange((n + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK):
        lo = b * PARALLEL_BLOCK
        for s in range(lo, min(lo + PARALLEL_BLOCK, n)):
            g[s] -= lam * (ri[s] - rj[s])


@njit(cache=True)
def gradient_step(g, lam, ri, rj, n):
    """``g[s] -= lam (ri[s] - rj[s])`` for ``s < n`` (the gradient update after a direction
    search, eq. 9 of Bordes et al. 2005), on several threads when S is large."""
    if n >= GRADIENT_MIN_PARALLEL and parallel_worth(n, np.int64(0)):
        _gradient_step_blocks(g, lam, ri, rj, n)
    else:
        for s in range(n):
            g[s] -= lam * (ri[s] - rj[s])


@njit(cache=True, parallel=True)
def _decision_rows_dense_blocks(X, X_sq, SV, SV_sq, coef, b, code, gamma, degree, coef0, out):
    n = X.shape[0]
    for blk in prange((n + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK):
        lo = blk * PARALLEL_BLOCK
        hi = min(lo + PARALLEL_BLOCK, n)
        rows_dense(X[lo:hi], X_sq[lo:hi], SV, SV_sq, coef, b, code, gamma, degree, coef0,
                   out[lo:hi])


@njit(cache=True, nogil=True)
def decision_rows_dense(X, X_sq, SV, SV_sq, coef, b, code, gamma, degree, coef0, out):
    """``out[r] = sum_s coef_s K(X_r, SV_s) + b`` (eq. 2) for dense X and support vectors
    (``_decision_core.decision_rows_dense``), in blocks of rows on several threads when worth
    it; every row's value is computed as in one thread (the same bits)."""
    if parallel_worth(X.shape[0], SV.shape[0] * (X.shape[1] + 8)):
        _decision_rows_dense_blocks(X, X_sq, SV, SV_sq, coef, b, code, gamma, degree, coef0,
                                    out)
    else:
        rows_dense(X, X_sq, SV, SV_sq, coef, b, code, gamma, degree, coef0, out)
    return out


@njit(cache=True, parallel=True)
def _decision_rows_csr_blocks(indptr, indices, data, X_sq, sv_colptr, sv_rows, sv_vals, SV_sq,
                              coef, b, code, gamma, degree, coef0, out):
    n = indptr.shape[0] - 1
    for blk in prange((n + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK):
        lo = blk * PARALLEL_BLOCK
        hi = min(lo + PARALLEL_BLOCK, n)
        rows_csr(indptr[lo : hi + 1], indices, data, X_sq[lo:hi], sv_colptr, sv_rows, sv_vals,
                 SV_sq, coef, b, code, gamma, degree, coef0, out[lo:hi])


@njit(cache=True, nogil=True)
def decision_rows_csr(indptr, indices, data, X_sq, sv_colptr, sv_rows, sv_vals, SV_sq, coef, b,
                      code, gamma, degree, coef0, out):
    """:func:`decision_rows_dense` for CSR X and the support vectors by feature (CSC;
    ``_decision_core.decision_rows_csr``)."""
    n = indptr.shape[0] - 1
    if parallel_worth(n, sv_vals.shape[0] + 8 * SV_sq.shape[0]):
        _decision_rows_csr_blocks(indptr, indices, data, X_sq, sv_colptr, sv_rows, sv_vals,
                                  SV_sq, coef, b, code, gamma, degree, coef0, out)
    else:
        rows_csr(indptr, indices, data, X_sq, sv_colptr, sv_rows, sv_vals, SV_sq, coef, b,
                 code, gamma, degree, coef0, out)
    return out
