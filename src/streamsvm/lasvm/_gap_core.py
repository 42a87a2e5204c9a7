"""The steps of LASVM-G, LASVM-NC, LASVM-I and FULL SVM (Ertekin, Bottou & Giles, "Nonconvex
Online Support Vector Machines", IEEE TPAMI 2011): b = 0, single-coefficient PROCESS,
REPROCESS driven by the duality gap, CLEAN, and the online loop, over the expansion of
:mod:`._expansion_core` (pure jitted functions over arrays; the state layout is described there,
the paper's misprints that these functions correct in :mod:`streamsvm.lasvm.variants`)."""

import numpy as np
from numba import njit

from ..kernels._cache_core import CACHE_ID_META
from ._expansion_core import (
    CURVATURE_FLOOR,
    GAP,
    GAP_TARGET,
    N_CLEAN,
    N_COLS,
    N_ITER,
    N_PROCESS_STEPS,
    N_REPROCESS_STEPS,
    N_SKIPPED,
    NEED_GROW,
    SEED_NEG,
    SEED_POS,
    SINCE_CLEAN,
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
    insert,
    make_room,
    remove,
)
from ._kernel_rows_core import kernel_row
from ._prefetch_core import prefetch_rows

# variants
VARIANT_G = 0
VARIANT_NC = 1
VARIANT_I = 2
VARIANT_FULL = 3


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
    ys = store[STORE_Y]
    perm, alpha, g, lo = svs[SV_PERM], svs[SV_ALPHA], svs[SV_G], svs[SV_LO]
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
    ys = store[STORE_Y]
    perm, alpha, g = svs[SV_PERM], svs[SV_ALPHA], svs[SV_G]
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
def single_step(p, gp, store, kern, svs, cache, work, cnt, par=True):
    """Direction search along one coordinate (b = 0, no equality constraint):
    ``lambda = g / K_pp`` clipped to the box, then ``g_s -= lambda K_ps``."""
    perm, alpha, g, lo, hi = svs[SV_PERM], svs[SV_ALPHA], svs[SV_G], svs[SV_LO], svs[SV_HI]
    kd = store[STORE_KD]
    kpp = kd[perm[p]]
    if kpp < CURVATURE_FLOOR:
        kpp = CURVATURE_FLOOR
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
    row = kernel_row(perm[p], n, store, kern, svs, cache, work[WORK_SCATTER],
                     work[WORK_SCRATCH_A], cnt, par)
    for s in range(n):
        g[s] -= lam * row[s]


@njit(cache=True)
def reprocess_g(tau, store, kern, svs, cache, work, cnt, par=True):
    """LASVM-G REPROCESS: i = argmin g with alpha > A, j = argmax g with alpha < B; bail out
    unless ``max(g_j, 0) - min(g_i, 0) > tau``; step on the one with the larger violation
    (``g_i + g_j < 0`` -> i, else j). Returns True if a step was made."""
    alpha, g, lo, hi = svs[SV_ALPHA], svs[SV_G], svs[SV_LO], svs[SV_HI]
    n = cnt[N_COLS]
    i = np.int64(-1)  # not literals: one compiled single_step
    j = np.int64(-1)
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
        single_step(i, gmin, store, kern, svs, cache, work, cnt, par)
    else:
        single_step(j, gmax, store, kern, svs, cache, work, cnt, par)
    cnt[N_REPROCESS_STEPS] += 1
    return True


@njit(cache=True)
def clean(max_non_sv, store, svs, cache, cnt):
    """CLEAN: if more than m non-support vectors (alpha = 0) are in the expansion, keep the
    m closest to the margin (smallest ``|g| = |1 - y f|``; ties at the m-th: the earliest in
    S) and remove the others."""
    perm, alpha, g = svs[SV_PERM], svs[SV_ALPHA], svs[SV_G]
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
    # keep exactly m: those below the threshold, then the first ties at it (in S's order);
    # removing every tie would empty S when many share one |g|, e.g. seeds still at
    # alpha = 0 before any step (|g| = |y - 0| = 1 for all of them)
    ties_kept = max_non_sv - np.searchsorted(values, threshold)
    for s in range(n):
        if alpha[s] == 0.0 and perm[s] >= 0 and abs(g[s]) >= threshold:
            if abs(g[s]) == threshold and ties_kept > 0:
                ties_kept -= 1
            else:
                remove(s, store, svs, cache, cnt)
    cnt[N_CLEAN] += 1


@njit(cache=True)
def reprocess_while_gap(target, tau, C, Cp, Cn, store, kern, svs, cache, work, cnt, st, par=True):
    """After a PROCESS: REPROCESS while the duality gap (eq. 9) exceeds ``max(C, target)``
    (``target`` from eq. 8, computed before the PROCESS); records the gap and the target."""
    threshold = max(C, target)
    gap = duality_gap(store, svs, cnt, Cp, Cn)
    repeats = 0
    limit = max(100, 10 * cnt[N_COLS])  # guard against steps rounding makes void
    while gap > threshold and repeats < limit:
        if not reprocess_g(tau, store, kern, svs, cache, work, cnt, par):
            break
        gap = duality_gap(store, svs, cnt, Cp, Cn)
        repeats += 1
    st[GAP] = gap
    st[GAP_TARGET] = target


@njit(cache=True, nogil=True)  # one-vs-rest learners run side by side
def lasvmg_online(pool, pstate, n_iter, variant, s_ramp, n_seed, clean_every, max_non_sv, tau,
                  C, Cp, Cn, store, kern, svs, cache, work, cnt, st, par=True):
    """Online iterations of LASVM-G / -NC / -I / FULL SVM over ``pool[start:end]`` in order.

    The first ``n_seed`` fresh examples of each class seed S (hinge box, no ramp test, learnt
    as by LASVM-G: LASVM's initialisation, "seed S with a few examples of each class", which the
    paper's variants inherit). Without it, an early model that has seen a run of one class
    scores every example of the other below ``s`` (e.g. MNIST-8 in file order with a nearly
    flat RBF kernel: f(x) close to -1 everywhere after the first negatives), and LASVM-NC /
    LASVM-I never admit the second class. For a later fresh example: score
    ``z = y f(x)``; LASVM-I skips it if ``z > 1`` or ``z < s``;
    LASVM-NC sets ``beta = C`` if ``z < s`` (eq. 17) and the box of eq. 18; compute the gap
    target (eq. 8), PROCESS (single coefficient), then REPROCESS while the gap (eq. 9)
    exceeds ``max(C, target)``. Every ``clean_every`` examples CLEAN (not FULL SVM)."""
    ys = store[STORE_Y]
    pos_of = store[STORE_POS]
    alpha, g = svs[SV_ALPHA], svs[SV_G]
    done = 0
    while pstate[0] < pstate[1] and done < n_iter:
        if make_room(store, svs, cache, cnt, work[WORK_SCRATCH_A]) == NEED_GROW:
            return NEED_GROW
        k = pool[pstate[0]]
        if pos_of[k] < 0 and cache[CACHE_ID_META][k, 0] < 0:
            prefetch_rows(pool, pstate[0], pstate[1], store, kern, svs, cache, cnt,
                          work[WORK_SCATTER], np.bool_(False), par)
        pstate[0] += 1
        done += 1
        cnt[N_ITER] += 1
        if pos_of[k] < 0:
            n = cnt[N_COLS]
            row = kernel_row(k, n, store, kern, svs, cache, work[WORK_SCATTER],
                             work[WORK_SCRATCH_C], cnt, par)
            f = 0.0
            for s in range(n):
                f += alpha[s] * row[s]
            y = ys[k]
            z = y * f
            seed_slot = SEED_POS if y > 0 else SEED_NEG
            c = Cp if y > 0 else Cn
            # LASVM's step 1 (the paper's initialisation): the first examples of each class
            # seed S with the hinge box, before any ramp test; they are learnt as by
            # LASVM-G (a seed left at alpha = 0 would leave f = 0 on a stream shorter
            # than the seeds)
            seeding = cnt[seed_slot] < n_seed
            if seeding:
                cnt[seed_slot] += 1
            if not seeding and variant == VARIANT_I and (z > 1.0 or z < s_ramp):
                cnt[N_SKIPPED] += 1
            else:
                ramp = not seeding and variant == VARIANT_NC and z < s_ramp
                beta = c if ramp else 0.0
                target = gap_target(store, svs, cnt, Cp, Cn)
                p = insert(k, y - f, min(0.0, c * y) - beta * y, max(0.0, c * y) - beta * y,
                           store, svs, cache, cnt)
                single_step(p, g[p], store, kern, svs, cache, work, cnt, par)
                cnt[N_PROCESS_STEPS] += 1
                reprocess_while_gap(target, tau, C, Cp, Cn, store, kern, svs, cache, work, cnt,
                                    st, par)
        else:
            # a later epoch meets a member of S: coordinate step on its coefficient (PROCESS
            # without resetting alpha), then the gap loop; epochs then converge (FULL SVM)
            p = pos_of[k]
            target = gap_target(store, svs, cnt, Cp, Cn)
            single_step(p, g[p], store, kern, svs, cache, work, cnt, par)
            reprocess_while_gap(target, tau, C, Cp, Cn, store, kern, svs, cache, work, cnt, st, par)
        cnt[SINCE_CLEAN] += 1
        if variant != VARIANT_FULL and cnt[SINCE_CLEAN] >= clean_every:
            clean(max_non_sv, store, svs, cache, cnt)
            cnt[SINCE_CLEAN] = 0
    return 0
