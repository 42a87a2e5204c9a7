"""Jitted pieces of small-pool active selection (pure functions over arrays).

The pool of unlabelled examples is a pair of parallel arrays ``ids`` (store ids of the LASVM
learner) and ``rows`` (the caller's row numbers), of which the first ``m`` entries are live.
"""

import numpy as np
from numba import njit

from ..kernels._cache_core import cache_acquire, cache_set_length
from ..kernels._core import dot_dense
from ..lasvm import _expansion_core as _expansion
from ..lasvm._decision_core import decision_value
from ..lasvm._expansion_core import (
    KERN_SPARSE,
    STORE_DATA,
    STORE_INDICES,
    STORE_INDPTR,
    STORE_ROW_GEN,
    STORE_SQ,
    STORE_XD,
    STORE_Y,
    SV_ALPHA,
    SV_G,
    SV_GMETA,
    SV_PANEL,
    SV_PERM,
    WORK_SCATTER,
    WORK_SCRATCH_A,
    WORK_SCRATCH_C,
)
from ..lasvm._kernel_rows_core import column_dots, columns, dots_to_columns
from ..lasvm._lasvm_core import extremes, process_step_from, reprocess_from
from ..utils.seeds import rand_below


@njit(cache=True)
def draw_front(ids, rows, m, n_draw, rng):
    """Move ``n_draw`` entries drawn uniformly without replacement from the live ``[0, m)``
    to the front (a partial Fisher-Yates shuffle of both arrays)."""
    for t in range(min(n_draw, m)):
        r = t + rand_below(rng, m - t)
        a = ids[t]
        ids[t] = ids[r]
        ids[r] = a
        b = rows[t]
        rows[t] = rows[r]
        rows[r] = b


@njit(cache=True)
def closest(ids, f, n):
    """Position ``t < n`` of the smallest ``|f[t]|``; exact ties go to the smaller id, so the
    choice depends only on the candidate *set*, not on the order it was drawn in."""
    best = 0
    best_abs = np.inf
    for t in range(n):
        a = abs(f[t])
        if a < best_abs or (a == best_abs and ids[t] < ids[best]):
            best = t
            best_abs = a
    return best


@njit(cache=True)
def support_stats(alpha, g, perm, ys, b, n):
    """``(n_neg_sv, n_pos_sv, r)`` over the expansion positions ``< n``: support vectors
    (alpha != 0) by class (the sign of alpha is the label) and ``r = max |y(x_s)|`` over them,
    with ``y(x_s) = y_s - g_s + b`` read off the gradients (eq. 9 of Bordes et al.)."""
    n_neg = 0
    n_pos = 0
    r = 0.0
    for s in range(n):
        a = alpha[s]
        if a == 0.0:
            continue
        if a > 0.0:
            n_pos += 1
        else:
            n_neg += 1
        f = abs(ys[perm[s]] - g[s] + b)
        if f > r:
            r = f
    return n_neg, n_pos, r


@njit(cache=True)
def remove_at(ids, rows, t, m):
    """Remove live entry ``t`` by moving the last live one into its place; returns ``m - 1``."""
    ids[t] = ids[m - 1]
    rows[t] = rows[m - 1]
    return m - 1


@njit(cache=True)
def _sparse_block_dots(ids, start, m, valid, order, slots, ncol, indptr, indices, data, perm,
                       rows, acc, head):
    """The missing dots ``rows[slots[c], j] = x_ids[start+c] · x_perm[j]`` of a block of CSR
    candidates (``j >= valid[c]``; ``order`` sorts the block by ``valid``), through an
    inverted index of the candidates (feature -> (candidate, value) entries): each stored
    member of S is read once for the block, and the work per member is its nonzeros plus
    the candidates' matching features, instead of its nonzeros once per candidate. A
    candidate enters the index at its first missing column, so the work on a column is for
    the candidates that need it only.
    ``acc`` is a zeroed float workspace with at least ``m`` entries, ``head`` a zeroed
    float workspace with an entry per feature (it holds 1 + the first entry of each
    feature's list, so that no array of the width of the data is made per block); both are
    left zeroed."""
    n_entries = 0
    n_features = 0
    for c in range(m):
        k = ids[start + c]
        if indptr[k + 1] > indptr[k]:
            n_entries += indptr[k + 1] - indptr[k]
            n_features = max(n_features, indices[indptr[k + 1] - 1] + 1)  # indices sorted
    nxt = np.empty(n_entries, dtype=np.int64)
    who = np.empty(n_entries, dtype=np.int64)
    val = np.empty(n_entries)
    e = 0
    need = 0  # the first `need` of `order` lack column j; only they are in the index
    for j in range(valid[order[0]], ncol):
        while need < m and valid[order[need]] <= j:
            c = order[need]
            k = ids[start + c]
            for p in range(indptr[k], indptr[k + 1]):
                f = indices[p]
                nxt[e] = np.int64(head[f]) - 1
                who[e] = c
                val[e] = data[p]
                head[f] = e + 1
                e += 1
            need += 1
        s = perm[j]
        if s < 0:
            continue  # a hole: dots_to_columns writes 0
        for p in range(indptr[s], indptr[s + 1]):
            f = indices[p]
            if f >= n_features:
                break  # indices sorted: no candidate has this feature or a later one
            w = data[p]
            g = np.int64(head[f]) - 1
            while g >= 0:
                acc[who[g]] += val[g] * w
                g = nxt[g]
        for t in range(need):
            c = order[t]
            rows[slots[c], j] = acc[c]
            acc[c] = 0.0
    for t in range(need):
        k = ids[start + order[t]]
        for p in range(indptr[k], indptr[k + 1]):
            head[indices[p]] = 0.0


BLOCK_SPARE_SLOTS = 8  #: cache slots kept free beside S and a block of candidates


@njit(cache=True)
def score_candidates(ids, n, store, kern, svs, cache, work, cnt, st, f, par=True):
    """``f[c] = y(x_ids[c])`` for ``c < n`` (eq. 2), the candidates' kernel rows through the
    cache, as blocks of candidates.

    The same values as ``n`` calls of LASVM's ``decision_value``, for a fraction of the cost:
    the rows of a block are acquired together (the cache must have a free slot for each
    beside the pinned rows of S, else the block is smaller), each stored example of S
    missing from some rows is read once for the whole block (dense data), the dots are
    turned into kernel values in one vectorised pass per row, and the arrays are unpacked
    once per block instead of once per candidate (numba's reference counting of a dozen
    arrays per call cost more than scoring a cached row)."""
    Xd, indptr, indices = store[STORE_XD], store[STORE_INDPTR], store[STORE_INDICES]
    data, sq = store[STORE_DATA], store[STORE_SQ]
    row_gen = store[STORE_ROW_GEN]
    sparse = kern[KERN_SPARSE]
    perm, alpha, panel = svs[SV_PERM], svs[SV_ALPHA], svs[SV_PANEL]
    gen = svs[SV_GMETA][0]
    rows, slot_meta, id_meta, stats = cache
    ncol = cnt[_expansion.N_COLS]
    b = st[_expansion.B_]
    cnt[_expansion.N_CANDIDATES] += n
    room = rows.shape[0] - cnt[_expansion.N_LIVE] - BLOCK_SPARE_SLOTS
    if room < 1:  # (almost) no cache: one candidate at a time, through scratch rows
        for c in range(n):
            f[c] = decision_value(ids[c], store, kern, svs, cache, work, cnt, st,
                                  work[WORK_SCRATCH_C], par)
        return
    block = min(n, room)
    slots = np.empty(block, dtype=np.int64)
    valid = np.empty(block, dtype=np.int64)
    order = np.empty(block, dtype=np.int64)
    sorted_ids = np.empty(block, dtype=np.int64)
    sorted_slots = np.empty(block, dtype=np.int64)
    acc = np.zeros(block)
    a = alpha[:ncol]
    for start in range(0, n, block):
        m = min(block, n - start)
        for c in range(m):
            k = ids[start + c]
            slot, v = cache_acquire(rows, slot_meta, id_meta, stats, k, ncol)
            if row_gen[k] != gen:
                v = _expansion.sync_row(k, slot, ncol, v, row_gen, svs, cache, work[WORK_SCRATCH_C])
            slots[c] = slot
            valid[c] = v
            # insertion sort of the block by valid length (ascending)
            t = c
            while t > 0 and valid[order[t - 1]] > v:
                order[t] = order[t - 1]
                t -= 1
            order[t] = c
        if panel.shape[0] > 0:  # row by row from the panel (as kernel_row computes them)
            for c in range(m):
                if valid[c] < ncol:
                    cnt[_expansion.KEVALS] += columns(
                        ids[start + c], valid[c], ncol, store, kern, perm, panel,
                        work[WORK_SCATTER], rows[slots[c]])
                    cache_set_length(slot_meta, slots[c], ncol)
                    valid[c] = ncol
        elif sparse:
            _sparse_block_dots(ids, start, m, valid, order, slots, ncol, indptr, indices, data,
                               perm, rows, acc, work[WORK_SCATTER])
        else:
            for t in range(m):  # the block in `order`, for column_dots
                sorted_ids[t] = ids[start + order[t]]
                sorted_slots[t] = slots[order[t]]
            need = 0  # the first `need` of `order` lack column j
            for j in range(valid[order[0]], ncol):
                while need < m and valid[order[need]] <= j:
                    need += 1
                s = perm[j]
                if s >= 0:  # (a hole: dots_to_columns writes 0)
                    column_dots(Xd, s, j, sorted_ids, sorted_slots, need, rows)
        for c in range(m):
            row = rows[slots[c]]
            if valid[c] < ncol:
                k = ids[start + c]
                cnt[_expansion.KEVALS] += dots_to_columns(row, valid[c], ncol, sq[k], sq,
                                                          perm, kern)
                cache_set_length(slot_meta, slots[c], ncol)
            f[start + c] = dot_dense(a, row[:ncol]) + b


# ------------------------------------------------------------------ the selection loop
# State of the loop, int64 array ``ist`` (indices below) and float64 array ``fst``.
I_NPOOL = 0  #: live pool entries
I_NLABELS = 1  #: labels spent
I_BOTH = 2  #: labels spent when both classes first had support vectors (-1: not yet)
I_SVSTOP = 3  #: labels spent when the SV-count rule first held in this pool (-1)
I_MSTOP = 4  #: labels spent when the margin rule first held in this pool (-1)
I_STOP = 5  #: why selection ended (STOP_*), 0 while running
I_PENDING = 6  #: pool position of the proposed, unlabelled query (-1: none)
I_POOLSTART = 7  #: labels spent before the current pool
I_NEG = 8  #: labels seen, negatives
I_POS = 9  #: labels seen, positives
I_LASTIN = 10  #: labels spent when a query was last inside the margin (|f| < min(1, r))
N_IST = 11

F_PENDING = 0  #: y(x) of the pending query
F_CP = 1  #: C of the positives (class_weight="balanced" updates it)
F_CN = 2  #: C of the negatives
F_RADIUS = 3  #: min(1, max_s |y(x_s)|) when the pending query was picked (0: random start)
N_FST = 4

STOP_NONE = 0  # (1 is NEED_GROW)
STOP_SV = 2
STOP_MARGIN = 3
STOP_BUDGET = 4
STOP_EXHAUSTED = 5

# which rules end selection (the ``stopping`` parameter)
RULE_NONE = 0
RULE_SV = 1
RULE_MARGIN = 2
RULE_EITHER = 3

PROPOSED = 10  #: propose(): a query is pending
LEARNT = 11  #: learn(): the label was learnt
NEED_GROW = _expansion.NEED_GROW  #: S is full: grow it (and the cache) and call again


@njit(cache=True)
def _margin_radius(store, svs, cnt, st):
    """``min(1, max_s |y(x_s)|)`` over the support vectors (0 when there are none)."""
    n = cnt[_expansion.N_COLS]
    _, _, r = support_stats(svs[SV_ALPHA], svs[SV_G], svs[SV_PERM], store[STORE_Y],
                            st[_expansion.B_], n)
    return min(1.0, r)


@njit(cache=True)
def propose(ids, rows, pool_size, rule, max_labels, ist, fst, store, kern, svs, cache, work,
            cnt, st, rng, par=True):
    """Pick the next query (steps 1-2 of the module docstring of ``learner``) and check the
    margin rule on it; returns PROPOSED (``ist[I_PENDING]`` is its pool position) or
    ``STOP_*`` when selection has ended. Idempotent while a query is pending."""
    if ist[I_PENDING] >= 0:
        return PROPOSED
    if ist[I_STOP] != STOP_NONE:
        return ist[I_STOP]
    if 0 <= max_labels <= ist[I_NLABELS]:
        ist[I_STOP] = STOP_BUDGET
        return STOP_BUDGET
    m = ist[I_NPOOL]
    if m == 0:
        ist[I_STOP] = STOP_EXHAUSTED
        return STOP_EXHAUSTED
    scratch = work[WORK_SCRATCH_C]
    if ist[I_BOTH] < 0:
        # y(x) is the same everywhere until both classes have support vectors: draw at random
        draw_front(ids, rows, m, np.int64(1), rng)
        t = 0
        f = decision_value(ids[0], store, kern, svs, cache, work, cnt, st, scratch, par)
        fst[F_RADIUS] = 0.0
    else:
        n = m
        if 0 < pool_size < m:
            draw_front(ids, rows, m, pool_size, rng)
            n = pool_size
        scores = np.empty(n)
        score_candidates(ids, n, store, kern, svs, cache, work, cnt, st, scores, par)
        t = closest(ids, scores, n)
        f = scores[t]
        r = _margin_radius(store, svs, cnt, st)
        fst[F_RADIUS] = r
        if abs(f) >= r:
            if ist[I_MSTOP] < 0:
                ist[I_MSTOP] = ist[I_NLABELS]
            if rule == RULE_MARGIN or rule == RULE_EITHER:
                ist[I_STOP] = STOP_MARGIN
                return STOP_MARGIN
        else:
            ist[I_LASTIN] = ist[I_NLABELS] + 1
    ist[I_PENDING] = t
    fst[F_PENDING] = f
    return PROPOSED


@njit(cache=True)
def learn(y, rule, window, tolerance, span, balanced, C, ids, rows, ist, fst, sv_hist, picked,
          picked_f, picked_r, tau, store, kern, svs, cache, work, cnt, st, par=True):
    """The label ``y`` (+-1) of the pending query: one LASVM online iteration on it (PROCESS
    + REPROCESS), its removal from the pool, the records and the SV-count rule. Returns
    LEARNT, or NEED_GROW with nothing changed (grow S and the cache, then call again)."""
    if _expansion.make_room(store, svs, cache, cnt, work[WORK_SCRATCH_A]) == NEED_GROW:
        return NEED_GROW
    t = ist[I_PENDING]
    k = ids[t]
    row = rows[t]
    store[STORE_Y][k] = y
    if y > 0:
        ist[I_POS] += 1
    else:
        ist[I_NEG] += 1
    if balanced:
        # DC (Section 6): the minority class gets C times the imbalance of the labels so far
        neg = max(ist[I_NEG], 1)
        pos = max(ist[I_POS], 1)
        fst[F_CP] = C * max(1.0, neg / pos)
        fst[F_CN] = C * max(1.0, pos / neg)
    cnt[_expansion.N_ITER] += 1
    # PROCESS and REPROCESS as lasvm's process() and reprocess() do them, called here
    # directly: each wrapper was one more compiled level that linked and optimised again
    # the whole tree of the step below it (issue 36: ActiveSVM's cold first fit)
    process_step_from(k, np.int64(-1), -np.inf, np.int64(-1), np.inf, np.bool_(False), tau,
                      fst[F_CP], fst[F_CN], store, kern, svs, cache, work, cnt, par)
    i, gmax, j, gmin = extremes(cnt[_expansion.N_COLS], svs, par)
    reprocess_from(i, gmax, j, gmin, tau, store, kern, svs, cache, work, cnt, st, par)
    m = ist[I_NPOOL]
    ids[t] = ids[m - 1]
    rows[t] = rows[m - 1]
    ist[I_NPOOL] = m - 1
    ist[I_PENDING] = -1
    # records
    n_lab = ist[I_NLABELS]
    n_neg, n_pos, _ = support_stats(svs[SV_ALPHA], svs[SV_G], svs[SV_PERM], store[STORE_Y],
                                    st[_expansion.B_], cnt[_expansion.N_COLS])
    sv_hist[n_lab, 0] = n_neg
    sv_hist[n_lab, 1] = n_pos
    picked[n_lab] = row
    picked_f[n_lab] = fst[F_PENDING]
    picked_r[n_lab] = fst[F_RADIUS]
    n_lab += 1
    ist[I_NLABELS] = n_lab
    if ist[I_BOTH] < 0 and n_neg > 0 and n_pos > 0:
        ist[I_BOTH] = n_lab
    if sv_rule_holds(n_lab, window, tolerance, span, ist, sv_hist):
        if ist[I_SVSTOP] < 0:
            ist[I_SVSTOP] = n_lab
        if rule == RULE_SV or rule == RULE_EITHER:
            ist[I_STOP] = STOP_SV
    return LEARNT


@njit(cache=True)
def sv_rule_holds(t, window, tolerance, span, ist, sv_hist):
    """The SV-count rule after ``t`` labels (Section 3.4): both classes have had support
    vectors for at least ``window`` queries of this pool, the number of support vectors
    changed by at most ``tolerance * n_SV`` over the last ``window`` queries, and none of
    the last ``span`` queries was inside the margin (each was no closer to the hyperplane
    than the support vectors; ``span = 0`` leaves this check out)."""
    start = max(ist[I_BOTH], ist[I_POOLSTART])
    if ist[I_BOTH] < 0 or t - window < start:
        return False
    if ist[I_LASTIN] > t - span:
        return False
    now = sv_hist[t - 1, 0] + sv_hist[t - 1, 1]
    before = sv_hist[t - 1 - window, 0] + sv_hist[t - 1 - window, 1]
    return abs(now - before) <= tolerance * now


@njit(cache=True)
def run_known(n_max, pool_size, rule, max_labels, window, tolerance, span, balanced, C, ids,
              rows, ist, fst, sv_hist, picked, picked_f, picked_r, tau, store, kern, svs, cache,
              work, cnt, st, rng, par=True):
    """Up to ``n_max`` queries with the stored labels ``store[STORE_Y]`` as the oracle (labels
    known: ``ActiveSVM.fit``), propose and learn in one compiled loop. Returns the number
    of labels learnt and the last status (``STOP_*``, LEARNT, or NEED_GROW)."""
    done = 0
    status = LEARNT
    while done < n_max:
        status = propose(ids, rows, pool_size, rule, max_labels, ist, fst, store, kern, svs,
                         cache, work, cnt, st, rng, par)
        if status != PROPOSED:
            return done, status
        y = store[STORE_Y][ids[ist[I_PENDING]]]
        status = learn(y, rule, window, tolerance, span, balanced, C, ids, rows, ist, fst,
                       sv_hist, picked, picked_f, picked_r, tau, store, kern, svs, cache, work,
                       cnt, st, par)
        if status == NEED_GROW:
            return done, status
        done += 1
    return done, status
