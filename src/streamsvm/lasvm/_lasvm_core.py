"""LASVM's steps (Bordes, Ertekin, Weston & Bottou, "Fast Kernel Classifiers with Online and
Active Learning", JMLR 2005): PROCESS, REPROCESS, example selection and the online loop, over
the expansion of :mod:`._expansion_core` (pure jitted functions over arrays; the state layout
is described there). The finishing step is in :mod:`._finish_core`."""

import numpy as np
from numba import njit

from ..kernels._cache_core import CACHE_ID_META, CACHE_SLOT_META, cache_acquire, cache_set_length
from ..kernels._core import parallel_worth
from ..utils.seeds import rand_below
from ..utils.threads import threads_now
from ._decision_core import decision_value
from ._expansion_core import (
    B_,
    CURVATURE_FLOOR,
    DELTA,
    KERN_SPARSE,
    KEVALS,
    LAYOUT_DUE,
    N_CANDIDATES,
    N_COLS,
    N_ITER,
    N_PROCESS_STEPS,
    N_REMOVED,
    N_REPROCESS_STEPS,
    NEED_GROW,
    SEED_NEG,
    SEED_POS,
    STORE_DATA,
    STORE_INDICES,
    STORE_INDPTR,
    STORE_KD,
    STORE_POS,
    STORE_ROW_GEN,
    STORE_Y,
    SV_ALPHA,
    SV_G,
    SV_GMETA,
    SV_HI,
    SV_LO,
    SV_PANEL,
    SV_PERM,
    WORK_SCATTER,
    WORK_SCRATCH_A,
    WORK_SCRATCH_B,
    WORK_SCRATCH_C,
    insert,
    layout_due,
    make_room,
    sync_row,
)
from ._kernel_rows_core import (
    _row_width,
    _scatter_row,
    columns,
    columns_in_blocks,
    fill_columns,
    kernel_row,
)
from ._parallel_core import (
    GRADIENT_MIN_PARALLEL,
    dot_beside_search,
    gradient_step,
    remove_blatant_between,
    remove_blatant_in_blocks,
    rows_update_search,
    scan_extremes_from,
    search_in_blocks,
    search_one_more,
    search_worth,
    update_and_search,
    update_search_remove,
)
from ._prefetch_core import lacks_row, prefetch_rows, unpin_prefetched

# selection criteria
RANDOM = 0
GRADIENT = 1
ACTIVE = 2
AUTOACTIVE = 3
AUTOACTIVE_STOP = 5  #: AUTOACTIVE stops sampling at this many examples with |y(x)| < 1 + delta/2
AUTOACTIVE_MAX = 100  #: ... or at this many samples

TIE = 1e-12  #: gradients closer than this are ties in the argmax / argmin searches
SCAN_BLOCK = 32  #: positions per block of the one-thread removal of blatant non-SVs
SCAN_WIDE = 32  #: positions per branch-free test of the one-thread pair search


@njit(cache=True)
def extremes(n, svs, par=True):
    """``(i, g_max, j, g_min)``: argmax g with alpha < B and argmin g with alpha > A over
    positions < n (-1 and -inf/+inf when there is none). Gradients within ``TIE`` of the best
    so far count as equal and the earlier position wins: after an unclipped SMO step the
    two examples have equal gradients up to rounding, and this makes the choice between
    them independent of the rounding. On several threads for a large S (the same pair:
    ``_parallel_core.search_in_blocks``)."""
    if par is not None and search_worth(n):
        return search_in_blocks(n, svs, TIE)
    return extremes_of(n, svs[SV_ALPHA], svs[SV_G], svs[SV_LO], svs[SV_HI])


@njit(cache=True)
def extremes_of(n, alpha, g, lo, hi):
    """:func:`extremes` over the arrays themselves, on one thread: the scan's pair, bit for
    bit (``_parallel_core.scan_extremes``, which passes over the chunks of positions where
    no test of the scan can succeed)."""
    i, gmax, j, gmin = np.int64(-1), -np.inf, np.int64(-1), np.inf  # not literals:
    s = np.int64(0)  # one compiled scan_extremes_from
    while s + SCAN_WIDE <= n:
        # one branch-free test of SCAN_WIDE positions against the running bests (over
        # slices indexed from 0, which LLVM vectorises: ~0.3 ns a position where 8 at a
        # time cost ~1.2); only where one passes, the chunked scan of the same positions
        up = gmax + TIE
        down = gmin - TIE
        c_alpha, c_g, c_lo, c_hi = alpha[s:s + SCAN_WIDE], g[s:s + SCAN_WIDE], \
            lo[s:s + SCAN_WIDE], hi[s:s + SCAN_WIDE]
        hit = False
        for t in range(SCAN_WIDE):
            hit |= ((c_alpha[t] < c_hi[t]) & (c_g[t] > up)) | (
                (c_alpha[t] > c_lo[t]) & (c_g[t] < down))
        if hit:
            i, gmax, j, gmin = scan_extremes_from(s, s + SCAN_WIDE, i, gmax, j, gmin,
                                                  alpha, g, lo, hi, TIE)
        s += SCAN_WIDE
    return scan_extremes_from(s, n, i, gmax, j, gmin, alpha, g, lo, hi, TIE)


@njit(cache=True)
def clipped_step(i, j, k_ii, k_jj, k_ij, alpha, g, lo, hi):
    """``(lam, new alpha_i, new alpha_j)`` of the SMO direction search on the pair (i, j):
    the Newton step ``(g_i - g_j) / (K_ii + K_jj - 2 K_ij)`` clipped to both boxes (Bordes
    et al. 2005, eq. 9); a clipped coefficient lands exactly on its bound."""
    curvature = k_ii + k_jj - 2.0 * k_ij
    if curvature < CURVATURE_FLOOR:
        curvature = CURVATURE_FLOOR
    lam = (g[i] - g[j]) / curvature
    up = hi[i] - alpha[i]
    down = alpha[j] - lo[j]
    if up < lam:
        lam = up
    if down < lam:
        lam = down
    new_i = hi[i] if lam == up else alpha[i] + lam
    new_j = lo[j] if lam == down else alpha[j] - lam
    return lam, new_i, new_j


@njit(cache=True)
def _move_pair(i, j, n, store, kern, svs, cache, work, cnt, par=True):
    """The clipped SMO step on the pair (i, j): moves ``alpha[i]`` up and ``alpha[j]`` down by
    ``lam`` inside their boxes and returns ``(lam, row i, row j)``; ``lam = 0`` when the step
    is below rounding and nothing moved. The gradients are the caller's to update."""
    perm, alpha, g, lo, hi = svs[SV_PERM], svs[SV_ALPHA], svs[SV_G], svs[SV_LO], svs[SV_HI]
    kd = store[STORE_KD]
    ri = kernel_row(perm[i], n, store, kern, svs, cache, work[WORK_SCATTER], work[WORK_SCRATCH_A],
                    cnt, par)
    rj = kernel_row(perm[j], n, store, kern, svs, cache, work[WORK_SCATTER], work[WORK_SCRATCH_B],
                    cnt, par)
    lam, new_i, new_j = clipped_step(i, j, kd[perm[i]], kd[perm[j]], ri[j], alpha, g, lo, hi)
    if new_i == alpha[i] and new_j == alpha[j]:
        return 0.0, ri, rj
    alpha[i] = new_i
    alpha[j] = new_j
    return lam, ri, rj


#: CSR: the most features for which the fused pair step takes a second scatter workspace
#: (zeroed per step) when both kernel rows miss columns; above, row i is computed first
FUSED_SCATTER_MAX = 4096
#: the least size of S whose pair steps go through :func:`pair_in_one_region` on several
#: threads (below ``SEARCH_MIN_PARALLEL`` it takes a region only for rows worth computing there)
FUSED_MIN_PARALLEL = 4096


@njit(cache=True)
def _acquire_row(rid, ncol, store, svs, cache, scratch):
    """:func:`~._kernel_rows_core.kernel_row`'s cache part: ``(slot, valid columns, target)``,
    the row brought to the current layout of S."""
    rows, slot_meta, id_meta, stats = cache
    slot, valid = cache_acquire(rows, slot_meta, id_meta, stats, rid, ncol)
    if slot >= 0:
        valid = sync_row(rid, slot, ncol, valid, store[STORE_ROW_GEN], svs, cache, scratch)
    target = scratch if slot < 0 else rows[slot]
    return slot, valid, target


@njit(cache=True)
def pair_in_one_region(i, j, n, blatant, store, kern, svs, cache, work, cnt, st, par=True):
    """:func:`_move_pair` on the pair (i, j), then the gradient update and the pair search
    (with ``blatant``, REPROCESS step 4 too: ``_parallel_core.update_search_remove``) with
    one parallel region for the lot: the two rows are acquired first (in the order of
    :func:`_move_pair`), ``K_ij`` alone is computed ahead for the step (as its row computes
    it), and the rows' missing columns are computed in the region beside the update
    (``_parallel_core.rows_update_search``). The same cache, rows, step and pair as the
    separate steps, bit for bit. Returns ``(lam, i, g_max, j, g_min)``, ``lam = 0`` for a
    step below rounding (nothing moved; the pair is then that of S as it is)."""
    perm, alpha, g, lo, hi = svs[SV_PERM], svs[SV_ALPHA], svs[SV_G], svs[SV_LO], svs[SV_HI]
    indptr, indices = store[STORE_INDPTR], store[STORE_INDICES]
    data, kd = store[STORE_DATA], store[STORE_KD]
    sparse = kern[KERN_SPARSE]
    slot_meta = cache[CACHE_SLOT_META]
    ws = work[WORK_SCATTER]
    rid_i, rid_j = perm[i], perm[j]
    slot_i, valid_i, ri = _acquire_row(rid_i, n, store, svs, cache, work[WORK_SCRATCH_A])
    if sparse and valid_i < n and ws.shape[0] > FUSED_SCATTER_MAX:
        # row i alone first (one workspace), as kernel_row computes it
        cnt[KEVALS] += columns_in_blocks(rid_i, valid_i, n, store, kern, perm, svs[SV_PANEL],
                                         ws, ri)
        cache_set_length(slot_meta, slot_i, n)
        valid_i = n
    slot_j, valid_j, rj = _acquire_row(rid_j, n, store, svs, cache, work[WORK_SCRATCH_B])
    if valid_i <= j:  # K_ij, computed as column j of row i (the region computes it again)
        if sparse:
            _scatter_row(rid_i, indptr, indices, data, ws, False)
        columns(rid_i, j, j + 1, store, kern, perm, svs[SV_PANEL], ws, ri)
        if sparse:
            _scatter_row(rid_i, indptr, indices, data, ws, True)
    lam, new_i, new_j = clipped_step(i, j, kd[rid_i], kd[rid_j], ri[j], alpha, g, lo, hi)
    moved = new_i != alpha[i] or new_j != alpha[j]
    if moved:
        alpha[i] = new_i
        alpha[j] = new_j
    else:
        lam = 0.0  # a step below rounding: nothing moved
    if not search_worth(n) and not parallel_worth(2 * n - valid_i - valid_j,
                                                  _row_width(rid_i, store, sparse)):
        # too little for a region: the one-thread steps (the same rows, step and pair)
        fill_columns(rid_i, valid_i, n, ri, store, kern, svs, ws, cnt)
        fill_columns(rid_j, valid_j, n, rj, store, kern, svs, ws, cnt)
        cache_set_length(slot_meta, slot_i, n)
        cache_set_length(slot_meta, slot_j, n)
        if moved:
            for s in range(n):
                g[s] -= lam * (ri[s] - rj[s])
        bi, bmax, bj, bmin = extremes(n, svs, par)
        if blatant:
            bi, bmax, bj, bmin = remove_blatant_from(bi, bmax, bj, bmin, store, svs, cache, cnt,
                                                     st, par)
        return lam, bi, bmax, bj, bmin
    ws_i = ws
    ws_j = ws
    if sparse:
        if valid_i < n and valid_j < n:
            ws_j = np.zeros(ws.shape[0])
        if valid_i < n:
            _scatter_row(rid_i, indptr, indices, data, ws_i, False)
        if valid_j < n:
            _scatter_row(rid_j, indptr, indices, data, ws_j, False)
    bi, bmax, bj, bmin, computed = rows_update_search(ri, rj, rid_i, rid_j, valid_i, valid_j,
                                                      ws_i, ws_j, lam, moved, blatant, n,
                                                      store, kern, svs, cache, cnt, TIE)
    if sparse:
        if valid_i < n:
            _scatter_row(rid_i, indptr, indices, data, ws_i, True)
        if valid_j < n:
            _scatter_row(rid_j, indptr, indices, data, ws_j, True)
    cnt[KEVALS] += computed
    cache_set_length(slot_meta, slot_i, n)
    cache_set_length(slot_meta, slot_j, n)
    return lam, bi, bmax, bj, bmin


@njit(cache=True)
def pair_step(i, j, n, store, kern, svs, cache, work, cnt, par=True):
    """SMO direction search on the tau-violating pair (i, j) (Bordes et al., PROCESS step 5 /
    REPROCESS step 3); gradients of positions < n are updated."""
    g = svs[SV_G]
    lam, ri, rj = _move_pair(i, j, n, store, kern, svs, cache, work, cnt, par)
    if lam == 0.0:
        return False  # a step below rounding: a numerical stall, not a move
    if par is not None:
        gradient_step(g, lam, ri, rj, n)
    else:
        for s in range(n):
            g[s] -= lam * (ri[s] - rj[s])
    return True


@njit(cache=True)
def _update_and_scan(lam, ri, rj, n, svs, par=True):
    """The gradient update of a pair step, ``g_s -= lam (K_is - K_js)`` for positions < n,
    then the :func:`extremes` of the new gradients. Two passes: the update alone is
    vectorised, and the pair is ~4x faster than one fused loop (which LLVM keeps scalar); on
    several threads when S is large, fused in one parallel region
    (:func:`~._parallel_core.update_and_search`, the same gradients and pair)."""
    g = svs[SV_G]
    if par is not None and search_worth(n):
        return update_and_search(g, lam, ri, rj, np.bool_(True), n, svs[SV_ALPHA], svs[SV_LO],
                                 svs[SV_HI], TIE)
    if par is not None and n >= GRADIENT_MIN_PARALLEL and parallel_worth(n, np.int64(0)):
        gradient_step(g, lam, ri, rj, n)
    else:
        for s in range(n):
            g[s] -= lam * (ri[s] - rj[s])
    return extremes(n, svs, par)


@njit(cache=True)
def pair_step_extremes(i, j, n, store, kern, svs, cache, work, cnt, par=True):
    """:func:`pair_step` followed by the next :func:`extremes` (the finishing step's inner
    loop)."""
    # rows, update and search in one parallel region
    if par is not None and search_worth(n, FUSED_MIN_PARALLEL):
        lam, i, gmax, j, gmin = pair_in_one_region(i, j, n, np.bool_(False), store, kern, svs,
                                                   cache, work, cnt,
                                                   work[WORK_SCRATCH_C], par)  # (no bias set)
        if lam == 0.0:
            return -1, -np.inf, -1, np.inf  # a step below rounding: report no pair (stall)
        return i, gmax, j, gmin
    lam, ri, rj = _move_pair(i, j, n, store, kern, svs, cache, work, cnt, par)
    if lam == 0.0:
        return -1, -np.inf, -1, np.inf  # a step below rounding: report no pair (stall)
    return _update_and_scan(lam, ri, rj, n, svs, par)


@njit(cache=True)
def process_step(k, tau, Cp, Cn, store, kern, svs, cache, work, cnt, par=True):
    """LASVM PROCESS(k): insert k into S (steps 1-2), direction search on the tau-violating
    pair with maximal gradient that involves k (steps 3-5).

    Returns ``(inserted, i, g_max, j, g_min)``: False if k was already in S (then nothing
    was done and the extremes are not computed), else the :func:`extremes` of S after the
    step, which REPROCESS starts from (no scan of its own)."""
    # np.int64 / np.bool_: plain types, not literals (one compiled process_step_from)
    return process_step_from(k, np.int64(-1), -np.inf, np.int64(-1), np.inf, np.bool_(False),
                             tau, Cp, Cn, store, kern, svs, cache, work, cnt, par)


@njit(cache=True)
def process_step_from(k, i, gmax, j, gmin, known, tau, Cp, Cn, store, kern, svs, cache, work,
                      cnt, par=True):
    """:func:`process_step` given, when ``known``, the :func:`extremes` of S before the
    insertion: the extremes after it are those and the new last member, met as the scan
    would meet it (the same result without a pass over S)."""
    pos_of = store[STORE_POS]
    if pos_of[k] >= 0:
        return False, -1, -np.inf, -1, np.inf
    ys = store[STORE_Y]
    alpha, g, lo, hi = svs[SV_ALPHA], svs[SV_G], svs[SV_LO], svs[SV_HI]
    n = cnt[N_COLS]
    row = kernel_row(k, n, store, kern, svs, cache, work[WORK_SCATTER], work[WORK_SCRATCH_C], cnt,
                     par)
    # on several threads, when the extremes of S are not known: the search of S beside the
    # sum; when known, the sum alone (a region searching S again beside it was more work and
    # a region per step: Adult, n_jobs=2 code on one thread, 8.57 -> 7.86 CPU s)
    beside = False
    if par is not None and search_worth(n) and not known:
        beside = True
        f, i, gmax, j, gmin = dot_beside_search(n, row, svs, TIE, threads_now())
    else:
        f = 0.0
        for s in range(n):
            f += alpha[s] * row[s]
    y = ys[k]
    c = Cp if y > 0 else Cn
    p = insert(k, y - f, min(0.0, c * y), max(0.0, c * y), store, svs, cache, cnt)
    n = p + 1
    if beside or known:  # the extremes of S before k: k is met as the scan would meet it
        i, gmax, j, gmin = search_one_more(p, i, gmax, j, gmin, svs, TIE)
    else:
        i, gmax, j, gmin = extremes(n, svs, par)
    a = p if y > 0 else i  # the pair involves k
    b = j if y > 0 else p
    if a < 0 or b < 0:
        return True, i, gmax, j, gmin
    if alpha[a] < hi[a] and alpha[b] > lo[b] and g[a] - g[b] > tau:
        # rows, update and search in one parallel region
        if par is not None and search_worth(n, FUSED_MIN_PARALLEL):
            lam, ni, nmax, nj, nmin = pair_in_one_region(a, b, n, np.bool_(False), store, kern, svs,
                                                         cache, work, cnt,
                                                         work[WORK_SCRATCH_C], par)  # (no bias)
            if lam != 0.0:
                i, gmax, j, gmin = ni, nmax, nj, nmin
        else:
            lam, ra, rb = _move_pair(a, b, n, store, kern, svs, cache, work, cnt, par)
            if lam != 0.0:  # else a step below rounding: nothing moved
                i, gmax, j, gmin = _update_and_scan(lam, ra, rb, n, svs, par)
        cnt[N_PROCESS_STEPS] += 1
    return True, i, gmax, j, gmin


@njit(cache=True)
def process(k, tau, Cp, Cn, store, kern, svs, cache, work, cnt, par=True):
    """LASVM PROCESS(k) (:func:`process_step`). Returns False if k was in S."""
    return process_step(k, tau, Cp, Cn, store, kern, svs, cache, work, cnt, par)[0]


@njit(cache=True)
def _set_bias(i, gmax, j, gmin, st):
    """b and delta from the extremes (eq. 10)."""
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
def _remove_blatant_of(i, gmax, j, gmin, n, store, svs, cache, cnt):
    """The removals of :func:`remove_blatant_from` on one thread, last position first, block
    by block: a branch-free pass over a block says whether it may hold a member to remove
    (alpha = 0 and ``g >= g_max`` with ``B = 0``, as for y = -1, or ``g <= g_min`` with
    ``A = 0``, as for y = +1: every member the exact test removes, and a few more), and only
    such blocks are tested member by member. ``remove`` changes its own position alone, so
    the members removed and their order are those of one loop over S. Returns the lowest
    position removed (n if none)."""
    perm, alpha, g, lo, hi = svs[SV_PERM], svs[SV_ALPHA], svs[SV_G], svs[SV_LO], svs[SV_HI]
    above = gmax if i >= 0 else np.inf  # no removal on a side without its extreme
    below = gmin if j >= 0 else -np.inf
    lowest = n
    for z in range(n, 0, -SCAN_BLOCK):
        a = max(z - SCAN_BLOCK, 0)
        # over slices, indexed from 0: numba then drops its wraparound of negative indices
        # and LLVM vectorises the pass (0.4 ns a member against 2.3 indexed from a)
        b_alpha, b_perm, b_g = alpha[a:z], perm[a:z], g[a:z]
        b_lo, b_hi = lo[a:z], hi[a:z]
        hit = False
        for t in range(z - a):
            hit |= (b_alpha[t] == 0.0) & (b_perm[t] >= 0) & (
                ((b_hi[t] <= 0.0) & (b_g[t] >= above)) | ((b_lo[t] >= 0.0) & (b_g[t] <= below)))
        if hit:
            first = remove_blatant_between(a, z, i, gmax, j, gmin, store, svs, cache, cnt)
            if first < z:  # blocks go downwards: the lowest removal so far
                lowest = first
    return lowest


@njit(cache=True)
def remove_blatant_from(i, gmax, j, gmin, store, svs, cache, cnt, st, par=True):
    """REPROCESS steps 4-5 given the :func:`extremes` of S: drop members with alpha = 0 that
    cannot be part of a violating pair (y = -1 and g >= g_max, or y = +1 and g <= g_min),
    then set b and delta (eq. 10). The extremes are scanned again only when something was
    removed before one of them: a member after both i and j was taken by no side of the scan
    (i and j are its last takes), so a hole there leaves the scan's path and its pair as they
    were (the usual case of a just-PROCESSed example failing eq. 11, at the last position).
    Returns the extremes of S after the removals."""
    n = cnt[N_COLS]
    removed = cnt[N_REMOVED]
    lowest = 0  # the lowest position removed (0: unknown)
    if par is not None and search_worth(n):  # on several threads, the same removals
        remove_blatant_in_blocks(i, gmax, j, gmin, n, store, svs, cache, cnt)
    else:
        lowest = _remove_blatant_of(i, gmax, j, gmin, n, store, svs, cache, cnt)
    if cnt[N_REMOVED] != removed and lowest <= max(i, j):
        best_i, best_max, best_j, best_min = extremes(n, svs, par)
    else:
        best_i, best_max, best_j, best_min = i, gmax, j, gmin
    _set_bias(best_i, best_max, best_j, best_min, st)
    return best_i, best_max, best_j, best_min


@njit(cache=True)
def remove_blatant_and_bias(store, svs, cache, cnt, st, par=True):
    """REPROCESS steps 4-5 (:func:`remove_blatant_from` after :func:`extremes`)."""
    i, gmax, j, gmin = extremes(cnt[N_COLS], svs, par)
    remove_blatant_from(i, gmax, j, gmin, store, svs, cache, cnt, st, par)


@njit(cache=True)
def reprocess_from(i, gmax, j, gmin, tau, store, kern, svs, cache, work, cnt, st, par=True):
    """LASVM REPROCESS given the :func:`extremes` of S: direction search on the most
    violating pair (steps 1-3), then steps 4-5 (also when step 2 bails out, so that b and
    delta are always current and a just-PROCESSed example failing eq. 11 is dropped).
    Returns ``(stepped, i, g_max, j, g_min)``, the extremes of S at the end."""
    n = cnt[N_COLS]
    g = svs[SV_G]
    stepped = False
    violating = i >= 0 and j >= 0 and gmax - gmin > tau
    # steps 1-4 and the search in one parallel region
    if violating and par is not None and search_worth(n, FUSED_MIN_PARALLEL):
        lam, i, gmax, j, gmin = pair_in_one_region(i, j, n, np.bool_(True), store, kern, svs, cache,
                                                   work, cnt, st, par)
        cnt[N_REPROCESS_STEPS] += 1
        _set_bias(i, gmax, j, gmin, st)
        return lam != 0.0, i, gmax, j, gmin
    lam, ri, rj = 0.0, g, g
    if violating:
        lam, ri, rj = _move_pair(i, j, n, store, kern, svs, cache, work, cnt, par)
        stepped = lam != 0.0  # else a numerical stall, not a move
        cnt[N_REPROCESS_STEPS] += 1
    if par is not None and search_worth(n):  # threads: steps 3-4 and the search
        i, gmax, j, gmin = update_search_remove(g, lam, ri, rj, stepped, n, store, svs, cache,
                                                cnt, TIE)
        _set_bias(i, gmax, j, gmin, st)
        return stepped, i, gmax, j, gmin
    if stepped:
        i, gmax, j, gmin = _update_and_scan(lam, ri, rj, n, svs, par)
    i, gmax, j, gmin = remove_blatant_from(i, gmax, j, gmin, store, svs, cache, cnt, st, par)
    return stepped, i, gmax, j, gmin


@njit(cache=True)
def reprocess(tau, store, kern, svs, cache, work, cnt, st, par=True):
    """LASVM REPROCESS (:func:`reprocess_from` the :func:`extremes` of S). Returns True if
    a step was made."""
    i, gmax, j, gmin = extremes(cnt[N_COLS], svs, par)
    return reprocess_from(i, gmax, j, gmin, tau, store, kern, svs, cache, work, cnt, st, par)[0]


@njit(cache=True)
def pick(pool, pstate, selection, n_candidates, store, kern, svs, cache, work, cnt, st, rng,
         par=True):
    """Take the next example out of ``pool[start:end]`` (``pstate = [start, end]``).

    RANDOM takes them in pool order (the caller shuffles); GRADIENT and ACTIVE sample
    ``n_candidates`` without replacement and take the smallest ``y y(x)`` (eq. 12) or
    ``|y(x)|`` (eq. 13); AUTOACTIVE samples until 5 lie within ``1 + delta/2`` of the
    boundary or 100 were drawn, and takes the smallest ``|y(x)|``."""
    start = pstate[0]
    end = pstate[1]
    if selection != RANDOM:
        ys = store[STORE_Y]
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
            f = decision_value(k, store, kern, svs, cache, work, cnt, st, work[WORK_SCRATCH_C], par)
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


@njit(cache=True, nogil=True)  # one-vs-rest learners run side by side
def lasvm_online(pool, pstate, n_iter, selection, n_candidates, n_seed, tau, delta_max, Cp,
                 Cn, store, kern, svs, cache, work, cnt, st, rng, keep_layout, unpin, par=True):
    """LASVM online iterations (step 2) over the examples of ``pool[start:end]``: pick one
    (:func:`pick`; ``n_candidates=None`` for RANDOM: the pool's order, pick left unbuilt),
    PROCESS it, REPROCESS once (or, with ``delta_max > 0``, until
    ``delta < delta_max``). The first ``n_seed`` examples of each class seed S (inserted
    with alpha = 0, step 1). Stops after ``n_iter`` iterations, when the pool is empty, or
    when S fills its capacity (returns NEED_GROW: the caller grows and calls again).

    With ``keep_layout`` it also stops before a step that would change the layout of S
    (returns LAYOUT_DUE), for callers that compute kernel rows over it meanwhile
    (:mod:`._beside_core`); with ``unpin`` it unpins the prefetched rows of the examples it
    did not reach when it stops (:func:`unpin_prefetched`)."""
    ys = store[STORE_Y]
    pos_of = store[STORE_POS]
    done = 0
    # the extremes of S at the end of the last iteration, while S has not changed since
    known = False
    i, gmax, j, gmin = np.int64(-1), -np.inf, np.int64(-1), np.inf  # not literals
    while pstate[0] < pstate[1] and done < n_iter:
        if keep_layout and layout_due(svs, cnt):
            return LAYOUT_DUE
        n_cols, generation = cnt[N_COLS], svs[SV_GMETA][0]
        if make_room(store, svs, cache, cnt, work[WORK_SCRATCH_A]) == NEED_GROW:
            if unpin:
                unpin_prefetched(pool, pstate[0], pstate[1], store, cache)
            return NEED_GROW
        if cnt[N_COLS] != n_cols or svs[SV_GMETA][0] != generation:
            known = False  # compacted: positions changed
        if selection == RANDOM:
            k = pool[pstate[0]]
            if lacks_row(k, pos_of, cache[CACHE_ID_META]):
                prefetch_rows(pool, pstate[0], pstate[1], store, kern, svs, cache, cnt,
                              work[WORK_SCATTER], np.bool_(True), par)
        if n_candidates is None:  # RANDOM from a caller that says so: pick's take, unbuilt
            k = pool[pstate[0]]
            pstate[0] += 1
        else:
            k = pick(pool, pstate, selection, n_candidates, store, kern, svs, cache, work, cnt,
                     st, rng, par)
        done += 1
        cnt[N_ITER] += 1
        y = ys[k]
        seed_slot = SEED_POS if y > 0 else SEED_NEG
        if cnt[seed_slot] < n_seed and pos_of[k] < 0:
            # step 1: seed S with a few examples of each class, alpha = 0, g from eq. 9
            n = cnt[N_COLS]
            row = kernel_row(k, n, store, kern, svs, cache, work[WORK_SCATTER],
                             work[WORK_SCRATCH_C], cnt, par)
            f = 0.0
            for s in range(n):
                f += svs[SV_ALPHA][s] * row[s]
            c = Cp if y > 0 else Cn
            insert(k, y - f, min(0.0, c * y), max(0.0, c * y), store, svs, cache, cnt)
            cnt[seed_slot] += 1
            known = False
            continue
        # the extremes of S pass from each step to the next (no pass of their own)
        inserted, pi, pmax, pj, pmin = process_step_from(k, i, gmax, j, gmin, known, tau, Cp,
                                                         Cn, store, kern, svs, cache, work, cnt,
                                                         par)
        if inserted:
            i, gmax, j, gmin = pi, pmax, pj, pmin
        elif not known:
            i, gmax, j, gmin = extremes(cnt[N_COLS], svs, par)
        stepped, i, gmax, j, gmin = reprocess_from(i, gmax, j, gmin, tau, store, kern, svs,
                                                   cache, work, cnt, st, par)
        if delta_max > 0.0:
            repeats = 0
            limit = max(100, cnt[N_COLS])  # guards against steps that rounding makes void
            while stepped and st[DELTA] >= delta_max and repeats < limit:
                stepped, i, gmax, j, gmin = reprocess_from(i, gmax, j, gmin, tau, store, kern,
                                                           svs, cache, work, cnt, st, par)
                repeats += 1
        known = True
    if unpin:
        unpin_prefetched(pool, pstate[0], pstate[1], store, cache)
    return 0
