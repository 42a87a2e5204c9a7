"""The one-thread pair search and removal of blatant non-support vectors, done block by block
(``_lasvm_core.extremes_of``, ``_remove_blatant_of``), give what one plain loop over S gives:
the same pair on near ties of the gradients (the TIE rule), the same members removed."""

import copy

import numpy as np
import pytest
from sklearn.datasets import make_classification

from streamsvm import LASVM
from streamsvm.lasvm import _expansion_core as expansion
from streamsvm.lasvm import _kernel_rows_core as kernel_rows
from streamsvm.lasvm import _lasvm_core as core


def _plain_extremes(alpha, g, lo, hi):
    """The scan as the paper's REPROCESS step 1 reads, with the TIE rule (reference)."""
    i, gmax, j, gmin = -1, -np.inf, -1, np.inf
    for s in range(g.shape[0]):
        if alpha[s] < hi[s] and g[s] > gmax + core.TIE:
            i, gmax = s, g[s]
        if alpha[s] > lo[s] and g[s] < gmin - core.TIE:
            j, gmin = s, g[s]
    return i, gmax, j, gmin


def test_block_search_is_the_plain_scan_on_near_ties():
    rng = np.random.default_rng(5)
    for trial in range(200):
        n = int(rng.integers(0, 8 * core.SCAN_BLOCK))
        g = 1.0 + 0.6e-12 * rng.integers(0, 6, n)  # near ties: differences around TIE
        if trial % 3 == 1:  # a slow ramp, climbed in jumps of about TIE
            g = 1.0 + 0.6e-12 * np.cumsum(rng.integers(0, 2, n))
        elif trial % 3 == 2:
            g = rng.normal(size=n)
            g[rng.random(n) < 0.3] = 0.0 * rng.choice([-1.0, 1.0])  # signed zeros
        if trial % 2:
            g = g[::-1].copy()
        lo, hi = np.zeros(n), np.ones(n)
        alpha = rng.choice([0.0, 0.5, 1.0], n)  # up-eligible below 1, down above 0
        got = core.extremes_of(n, alpha, g, lo, hi)
        assert got == _plain_extremes(alpha, g, lo, hi), trial


@pytest.mark.parametrize("after_both", [False, True])
def test_block_removals_are_the_plain_loops(after_both):
    """The same members removed; the extremes returned are those of a new scan, also when
    the rescan is left out (every removal after both extremes)."""
    X, y = make_classification(600, 6, random_state=4, flip_y=0.05)
    learner = LASVM(C=5.0, gamma=0.5, finishing=False).fit(X, y).learners_[0]
    rng = np.random.default_rng(6)
    n = int(learner.cnt[expansion.N_COLS])
    i, gmax, j, gmin = core.extremes(n, learner._svs())
    # members made removable (alpha = 0, gradient past an extreme) and near misses
    live = np.flatnonzero(learner.perm[:n] >= 0)
    if after_both:
        live = live[live > max(i, j)]
    picked = rng.choice(live, size=live.size // 3, replace=False)
    learner.alpha[picked] = 0.0
    ys = learner.ys[learner.perm[picked]]
    past = rng.random(picked.size) < 0.5
    learner.g[picked] = np.where(ys < 0, np.where(past, gmax, np.nextafter(gmax, -np.inf)),
                                 np.where(past, gmin, np.nextafter(gmin, np.inf)))
    by_blocks, by_loop = copy.deepcopy(learner), copy.deepcopy(learner)

    by_blocks._ensure_cache()
    found = core.remove_blatant_from(i, gmax, j, gmin, by_blocks._store(), by_blocks._svs(),
                                     by_blocks.cache.state, by_blocks.cnt, by_blocks.st)
    assert found == _plain_extremes(by_blocks.alpha[:n], by_blocks.g[:n], by_blocks.lo[:n],
                                    by_blocks.hi[:n])

    by_loop._ensure_cache()
    store, svs, cache = by_loop._store(), by_loop._svs(), by_loop.cache.state
    for s in range(n - 1, -1, -1):  # REPROCESS step 4 as one loop (reference)
        if by_loop.alpha[s] == 0.0 and by_loop.perm[s] >= 0:
            label = by_loop.ys[by_loop.perm[s]]
            if (label < 0 and by_loop.g[s] >= gmax) or (label > 0 and by_loop.g[s] <= gmin):
                expansion.remove(s, store, svs, cache, by_loop.cnt)

    removed = int(by_blocks.cnt[expansion.N_REMOVED] - learner.cnt[expansion.N_REMOVED])
    assert removed > (2 if after_both else 10)
    assert np.array_equal(by_blocks.cnt, by_loop.cnt)
    for name in ("perm", "alpha", "g", "lo", "hi", "pos_of"):
        assert np.array_equal(getattr(by_blocks, name), getattr(by_loop, name)), name


def test_dense_rbf_row_is_the_two_pass_row():
    """``_dense_rbf_columns`` (distance beside the dot product) gives the bits of
    ``_column_dots`` then ``dots_to_columns`` (the path of prefetched and threaded rows), and
    of the scalar kernel, with holes of S giving 0."""
    from numba import njit

    from streamsvm.kernels._core import RBF, kernel_from_dot

    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 10))
    X[5] = X[4]  # a distance of 0 (exp(0) = 1 exactly)
    sq = np.einsum("ij,ij->i", X, X)
    perm = rng.permutation(300)[:120].astype(np.int64)
    perm[rng.random(120) < 0.2] = -1
    gamma = 0.37
    kern = (False, RBF, gamma, 3, 0.0)
    none_i, none_f = np.zeros(2, dtype=np.int64), np.zeros(1)

    @njit
    def both(rid, lo, hi, a, b):
        n1 = kernel_rows._dense_rbf_columns(rid, lo, hi, X, sq, perm, gamma, a)
        kernel_rows._column_dots(rid, lo, hi, X, none_i, none_i.astype(np.int32), none_f, False,
                                 perm, none_f, b)
        n2 = kernel_rows.dots_to_columns(b, lo, hi, sq[rid], sq, perm, kern)
        return n1, n2

    for rid, lo, hi in [(4, 0, 120), (5, 17, 120), (9, 0, 0), (11, 3, 64)]:
        a, b = np.full(120, np.nan), np.full(120, np.nan)
        n1, n2 = both(rid, lo, hi, a, b)
        assert n1 == n2 == int((perm[lo:hi] >= 0).sum())
        assert np.array_equal(a[lo:hi], b[lo:hi])
        ref = [0.0 if s < 0 else kernel_from_dot(X[rid] @ X[s], sq[rid], sq[s], RBF, gamma, 3, 0.0)
               for s in perm[lo:hi]]
        np.testing.assert_allclose(a[lo:hi], ref, rtol=1e-13, atol=0)
