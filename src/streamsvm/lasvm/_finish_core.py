"""LASVM's finishing step (Bordes, Ertekin, Weston & Bottou, "Fast Kernel Classifiers with
Online and Active Learning", JMLR 2005, step 3): REPROCESS until no tau-violating pair is left,
with shrinking (Sec. 3.2, "Implementation Details"), the second-order choice of the partner
(Fan, Chen & Lin, "Working Set Selection Using Second Order Information for Training Support
Vector Machines", JMLR 2005), steps over a dense copy of the kernel rows of a small active
set, and the unshrink that brings the set-aside gradients up to date."""

import numpy as np
from numba import njit, objmode

from ..kernels._cache_core import CACHE_ID_META, CACHE_SLOT_META, ID_SLOT, SLOT_LENGTH
from ..kernels._core import copy_into
from ._expansion_core import (
    CURVATURE_FLOOR,
    N_COLS,
    N_REPROCESS_STEPS,
    STORE_KD,
    STORE_POS,
    STORE_Y,
    SV_ALPHA,
    SV_G,
    SV_HI,
    SV_LO,
    SV_PERM,
    WORK_SCATTER,
    WORK_SCRATCH_A,
    WORK_SCRATCH_C,
    compact,
    remove,
    reorder,
)
from ._kernel_rows_core import kernel_row
from ._lasvm_core import (
    clipped_step,
    extremes,
    extremes_of,
    pair_step_extremes,
    remove_blatant_from,
)
from ._parallel_core import pair_gain, partner_in_blocks, search_worth

#: the finishing step runs over a dense copy of the active set's kernel rows up to this size
#: (a flat buffer of ``DENSE_FINISH_MAX**2`` values, touched only by the rows used)
DENSE_FINISH_MAX = 2048
#: shrinks recorded between two unshrinks (more: eq. 9 in full); the record takes
#: ``MAX_SHRINK_EVENTS x |S|`` floats during the finishing step (8 MB for |S| = 32,768)
MAX_SHRINK_EVENTS = 32
EVENTS = 0  #: ``record[EVENTS]``: shrinks that set members aside since the last unshrink
GONE = 1  #: ``record[GONE]``: members that shrinking removed from S since then


@njit(cache=True)
def _shrink(n_active, store, svs, cache, cnt, tmp, par=True):
    """Shrinking of the finishing step: members of the active prefix at a bound of their box
    that cannot join a violating pair are removed from S (alpha = 0) or set aside behind the
    active prefix (alpha = +-C), by one :func:`reorder`. Returns the new active size."""
    perm, alpha, g, lo, hi = svs[SV_PERM], svs[SV_ALPHA], svs[SV_G], svs[SV_LO], svs[SV_HI]
    i, gmax, j, gmin = extremes(n_active, svs, par)
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
    copy_into(keep[n_keep : n_keep + n_aside], aside[:n_aside])
    reorder(keep, n_keep + n_aside, store, svs, cache, cnt, tmp)
    return n_keep


@njit(cache=True)
def _shrink_recorded(n_active, store, svs, cache, cnt, tmp, record, snapshots, group, member,
                     gone, par=True):
    """:func:`_shrink`, recording what :func:`_unshrink` needs to bring the set-aside gradients
    up to date from the coefficients that moved since: each shrink that sets members aside is
    an *event* ``e``; ``snapshots[e, member[id]]`` holds every member's coefficient at that
    moment (``member``: the example's index in S when the finishing step began) and
    ``group[member[id]] = e`` marks the members set aside then. Members that shrinking removes
    from S (alpha = 0 now) are listed in ``gone`` (their moves count too). Past
    ``MAX_SHRINK_EVENTS`` events ``record[EVENTS]`` becomes -1: the next unshrink is eq. 9 in
    full."""
    e = record[EVENTS]
    if e < 0:  # too many events already: the next unshrink is eq. 9 in full
        return _shrink(n_active, store, svs, cache, cnt, tmp, par)
    perm = svs[SV_PERM]
    pos_of = store[STORE_POS]
    n_before = cnt[N_COLS]
    aside_before = n_before - n_active
    members = perm[:n_active].copy()
    n_keep = _shrink(n_active, store, svs, cache, cnt, tmp, par)
    n = cnt[N_COLS]
    if n_keep == n_active and n == n_before:
        return n_keep  # nothing set aside or removed
    if n != n_before:
        for rid in members:
            if rid >= 0 and pos_of[rid] < 0:
                gone[record[GONE]] = rid
                record[GONE] += 1
    new_aside = (n - n_keep) - aside_before
    if new_aside > 0:
        if e >= snapshots.shape[0]:
            record[EVENTS] = -1
            return n_keep
        alpha = svs[SV_ALPHA]
        snap = snapshots[e]
        for t in range(n):
            snap[member[perm[t]]] = alpha[t]
        for a in range(record[GONE]):
            snap[member[gone[a]]] = 0.0  # out of S: it no longer moves
        for t in range(n_keep, n_keep + new_aside):
            group[member[perm[t]]] = e
        record[EVENTS] = e + 1
    return n_keep


@njit(cache=True)
def _set_aside(shrink, n_active, record, snapshots, group, member, gone, store, kern, svs, cache,
               work, cnt, par=True):
    """:func:`_shrink_recorded` (``shrink``; returns the new active size) or :func:`_unshrink`
    (returns ``n_active``), called through Python (numba's object mode): a shrink comes once
    every ``shrink_every`` steps and an unshrink only after one, so the round trip costs
    little, and the finishing step does not compile them into itself (issue 36); they
    compile when first taken, which a problem finished in fewer steps never does."""
    with objmode(n_active="int64"):
        n_active = _set_aside_now(shrink, n_active, record, snapshots, group, member, gone,
                                  store, kern, svs, cache, work, cnt, par)
    return n_active


def _set_aside_now(shrink, n_active, record, snapshots, group, member, gone, store, kern, svs,
                   cache, work, cnt, par):
    """The Python side of :func:`_set_aside`."""
    if shrink:
        return _shrink_recorded(n_active, store, svs, cache, cnt, work[WORK_SCRATCH_A], record,
                                snapshots, group, member, gone, par)
    _unshrink(n_active, record, snapshots, group, member, gone, store, kern, svs, cache, work,
              cnt, par)
    return n_active


@njit(cache=True, inline="always")
def _missing_columns(rid, n, cache):
    """Columns ``< n`` of the kernel row of ``rid`` that the cache does not hold (a lower
    bound where the row is behind the layout of S: catching up may keep fewer)."""
    slot = cache[CACHE_ID_META][rid, ID_SLOT]
    if slot < 0:
        return n
    return max(n - cache[CACHE_SLOT_META][slot, SLOT_LENGTH], 0)


@njit(cache=True)
def _unshrink(n_active, record, snapshots, group, member, gone, store, kern, svs, cache, work,
              cnt, par=True):
    """Bring the gradients of the set-aside members (positions ``n_active .. n - 1``) up to
    date, by the cheaper of two exact ways (counting the kernel values the cache lacks):

    * eq. 9 in full, ``g_s = y_s - sum_t alpha_t K_st``, from each set-aside member's row
      (cheap where those rows are cached, as on Banana);
    * from the moves since member s was set aside at event e,
      ``g_s -= sum_t (alpha_t - alpha_t^(e)) K_ts``, over the examples t whose coefficient
      moved (members, and those shrinking removed), from their rows, which the active steps
      cached over the active prefix: about |moved| x |set aside| new kernel values instead of
      |set aside| x |S| (on all of Adult, ~10,000 set aside against a few hundred moved).

    LIBSVM reconstructs its gradient from the free coefficients alike (Fan, Chen & Lin, JMLR
    2005). The two ways agree to rounding."""
    ys = store[STORE_Y]
    perm, alpha, g = svs[SV_PERM], svs[SV_ALPHA], svs[SV_G]
    n = cnt[N_COLS]
    n_events, n_gone = record[EVENTS], record[GONE]
    moved = np.empty(n, dtype=np.int64)
    n_moved = 0
    by_moves = False
    if n_events > 0:
        moves_cost = 0
        for t in range(n):
            m = member[perm[t]]
            for e in range(n_events):
                if alpha[t] != snapshots[e, m]:
                    moved[n_moved] = t
                    n_moved += 1
                    moves_cost += _missing_columns(perm[t], n, cache)
                    break
        for a in range(n_gone):
            moves_cost += _missing_columns(gone[a], n, cache)
        full_cost = 0
        for s in range(n_active, n):
            full_cost += _missing_columns(perm[s], n, cache)
        by_moves = moves_cost < full_cost
    if not by_moves:
        for s in range(n_active, n):
            row = kernel_row(perm[s], n, store, kern, svs, cache, work[WORK_SCATTER],
                             work[WORK_SCRATCH_C], cnt, par)
            f = 0.0
            for t in range(n):
                f += alpha[t] * row[t]
            g[s] = ys[perm[s]] - f
        return
    for a in range(n_moved + n_gone):
        if a < n_moved:
            rid = perm[moved[a]]
            now = alpha[moved[a]]
        else:
            rid = gone[a - n_moved]
            now = 0.0
        m = member[rid]
        row = kernel_row(rid, n, store, kern, svs, cache, work[WORK_SCATTER],
                         work[WORK_SCRATCH_C], cnt, par)
        for s in range(n_active, n):
            step = now - snapshots[group[member[perm[s]]], m]
            if step != 0.0:
                g[s] -= step * row[s]


@njit(cache=True)
def second_order_partner(i, gi, n, store, kern, svs, cache, work, cnt, par=True):
    """For the finishing step: the ``j`` (alpha_j > A_j, g_j < g_i) whose pair step with
    ``i`` gains the most, ``(g_i - g_j)^2 / (K_ii + K_jj - 2 K_ij)`` (the second-order
    working-set selection of Fan, Chen & Lin 2005 that LIBSVM uses), or -1."""
    perm, alpha, g, lo = svs[SV_PERM], svs[SV_ALPHA], svs[SV_G], svs[SV_LO]
    kd = store[STORE_KD]
    ri = kernel_row(perm[i], n, store, kern, svs, cache, work[WORK_SCATTER], work[WORK_SCRATCH_A],
                    cnt, par)
    kii = kd[perm[i]]
    if par is not None and search_worth(n):  # on several threads, the same partner
        return partner_in_blocks(gi, kii, n, ri, kd, perm, alpha, g, lo, CURVATURE_FLOOR)
    best = -1
    best_gain = 0.0
    for t in range(n):
        if alpha[t] > lo[t]:
            gain = pair_gain(gi, g[t], kii, kd[perm[t]], ri[t], CURVATURE_FLOOR)
            if gain > best_gain:
                best_gain = gain
                best = t
    return best


@njit(cache=True)
def finish_block(i, gmax, j, gmin, m, steps, stop, tau, second_order, q, ready, kdiag, store,
                 kern, svs, cache, work, cnt, par=True):
    """Finishing steps over the active prefix ``m <= DENSE_FINISH_MAX`` of S, as in
    :func:`lasvm_finish` (the same pairs, steps and bits), but over a dense copy of the
    rows used (``q``, flat, row stride m; each row copied from the cache on first use in
    the block) and plain arrays: near the end, steps over a few dozen members cost less
    than a cache acquire. Runs from ``steps`` until ``stop`` steps, no tau-violating pair,
    or a step below rounding (then ``i = j = -1``). Returns ``(i, g_max, j, g_min,
    steps)``."""
    kd, perm = store[STORE_KD], svs[SV_PERM]
    alpha, g, lo, hi = svs[SV_ALPHA], svs[SV_G], svs[SV_LO], svs[SV_HI]
    for a in range(m):
        ready[a] = False
        kdiag[a] = kd[max(perm[a], 0)]
    partner_known = np.bool_(False)  # not a literal: one compiled _block_steps
    while True:
        i, gmax, j, gmin, steps, need = _block_steps(i, gmax, j, gmin, m, steps, stop, tau,
                                                     second_order, partner_known, q, ready,
                                                     kdiag, alpha, g, lo, hi, cnt)
        if need < 0:
            return i, gmax, j, gmin, steps
        row = kernel_row(perm[need], m, store, kern, svs, cache, work[WORK_SCATTER],
                         work[WORK_SCRATCH_A], cnt, par)
        copy_into(q[need * m : need * m + m], row)
        ready[need] = True
        partner_known = need != i  # else j's row: j is chosen already


@njit(cache=True)
def _block_steps(i, gmax, j, gmin, m, steps, stop, tau, second_order, partner_known, q, ready,
                 kdiag, alpha, g, lo, hi, cnt):
    """The steps of :func:`finish_block` over plain arrays, until one needs a row not yet
    copied: then returns its position as ``need`` (with the partner ``j`` already chosen
    when it is j's row: the caller resumes with ``partner_known``); ``need = -1`` at the
    end. The cache's code stays out of this loop, which LLVM then keeps tight (0.8 -> 0.4
    us a step over ~45 members on Banana)."""
    while steps < stop and i >= 0 and j >= 0 and gmax - gmin > tau:
        if not ready[i]:
            return i, gmax, j, gmin, steps, i
        bi = i * m
        if second_order and not partner_known:  # second_order_partner over the block
            kii = kdiag[i]
            best = -1
            best_gain = 0.0
            for t in range(m):
                if alpha[t] > lo[t]:
                    gain = pair_gain(gmax, g[t], kii, kdiag[t], q[bi + t], CURVATURE_FLOOR)
                    if gain > best_gain:
                        best_gain = gain
                        best = t
            j = best
        partner_known = False
        if not ready[j]:
            return i, gmax, j, gmin, steps, j
        bj = j * m
        cnt[N_REPROCESS_STEPS] += 1
        steps += 1
        lam, new_i, new_j = clipped_step(i, j, kdiag[i], kdiag[j], q[bi + j], alpha, g, lo, hi)
        if new_i == alpha[i] and new_j == alpha[j]:
            return -1, -np.inf, -1, np.inf, steps, -1  # a step below rounding: a stall
        alpha[i] = new_i
        alpha[j] = new_j
        ri = q[bi : bi + m]
        rj = q[bj : bj + m]
        for s in range(m):
            g[s] -= lam * (ri[s] - rj[s])
        i, gmax, j, gmin = extremes_of(m, alpha, g, lo, hi)
    return i, gmax, j, gmin, steps, -1


def finish(tau, shrink_every, second_order, store, kern, svs, cache, work, cnt, st, par):
    """:func:`lasvm_finish` from Python, its steps over the cache (``large``) left out of the
    compiled loop when S has at most ``DENSE_FINISH_MAX`` columns: S does not grow while it
    finishes, so every step is then one of :func:`finish_block` (numba prunes the others
    before typing; a first fit on small data does not compile them)."""
    large = None if cnt[N_COLS] <= DENSE_FINISH_MAX else True
    return lasvm_finish(tau, shrink_every, second_order, store, kern, svs, cache, work, cnt, st,
                        par, large)


@njit(cache=True, nogil=True)  # one-vs-rest learners run side by side
def lasvm_finish(tau, shrink_every, second_order, store, kern, svs, cache, work, cnt, st, par=True,
                 large=True):
    """Finishing (step 3): REPROCESS until no tau-violating pair is left (delta <= tau).

    With shrinking (Sec. 3.2, "Implementation Details"): the direction searches run over an
    active prefix of S without reordering; every ``shrink_every`` searches the members that
    hit their bounds are removed or set aside (:func:`_shrink`); when the active set has no
    violating pair, the gradients of the set-aside members are brought up to date
    (:func:`_unshrink`: eq. 9, or the moves since they were set aside) and the search
    continues over all of S until the merged set has none. Ends with REPROCESS steps
    4-5 (removal of blatant non-support vectors, b and delta)."""
    ys = store[STORE_Y]
    perm = svs[SV_PERM]
    compact(store, svs, cache, cnt, work[WORK_SCRATCH_A])
    n_active = cnt[N_COLS]
    steps = np.int64(0)  # not a literal: one compiled finish_block
    limit = max(10_000_000, 100 * n_active)  # LIBSVM's guard against numerical stalls
    i, gmax, j, gmin = extremes(n_active, svs, par)
    dense_max = min(n_active, DENSE_FINISH_MAX)
    q = np.empty(dense_max * dense_max)
    ready = np.empty(dense_max, dtype=np.bool_)
    kdiag = np.empty(dense_max)
    # what each shrink set aside, for the unshrink (see _shrink_recorded)
    record = np.zeros(2, dtype=np.int64)
    size = n_active if shrink_every > 0 else 0
    snapshots = np.empty((MAX_SHRINK_EVENTS if size else 0, size))
    group = np.empty(size, dtype=np.int64)
    gone = np.empty(size, dtype=np.int64)
    member = np.empty(ys.shape[0] if size else 0, dtype=np.int64)
    for t in range(size):
        member[perm[t]] = t
    while steps < limit:
        if i >= 0 and j >= 0 and gmax - gmin > tau and n_active <= dense_max:
            stop = limit
            if shrink_every > 0:
                stop = min(limit, (steps // shrink_every + 1) * shrink_every)
            before = steps
            i, gmax, j, gmin, steps = finish_block(i, gmax, j, gmin, n_active, steps, stop, tau,
                                                   second_order, q, ready, kdiag, store, kern,
                                                   svs, cache, work, cnt, par)
            if shrink_every > 0 and steps > before and steps % shrink_every == 0:
                n_active = _set_aside(np.bool_(True), n_active, record, snapshots, group,
                                      member, gone, store, kern, svs, cache, work, cnt, par)
                i, gmax, j, gmin = extremes(n_active, svs, par)
                continue
            if steps >= limit or (i >= 0 and j >= 0 and gmax - gmin > tau):
                continue
            # else no violating pair (or a stall) in the active set: unshrink below
        elif large is not None and i >= 0 and j >= 0 and gmax - gmin > tau:
            if second_order:
                j = second_order_partner(i, gmax, n_active, store, kern, svs, cache, work, cnt, par)
            i, gmax, j, gmin = pair_step_extremes(i, j, n_active, store, kern, svs, cache,
                                                  work, cnt, par)
            cnt[N_REPROCESS_STEPS] += 1
            steps += 1
            if shrink_every > 0 and steps % shrink_every == 0:
                n_active = _set_aside(np.bool_(True), n_active, record, snapshots, group,
                                      member, gone, store, kern, svs, cache, work, cnt, par)
                i, gmax, j, gmin = extremes(n_active, svs, par)
            continue
        n = cnt[N_COLS]
        if n_active == n:
            break
        _set_aside(np.bool_(False), n_active, record, snapshots, group, member, gone, store,
                   kern, svs, cache, work, cnt, par)
        record[EVENTS] = 0
        record[GONE] = 0
        n_active = n
        i, gmax, j, gmin = extremes(n_active, svs, par)
    # REPROCESS steps 4-5 (_lasvm_core.remove_blatant_and_bias, called here without its
    # wrapper: a compiled level less over remove_blatant_from's tree)
    i, gmax, j, gmin = extremes(cnt[N_COLS], svs, par)
    remove_blatant_from(i, gmax, j, gmin, store, svs, cache, cnt, st, par)
    return steps
