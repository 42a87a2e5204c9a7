"""The kernel-row cache against the OrderedDict reference, its memory budget, and the cached
kernel-row helpers against uncached rows."""

import numpy as np
import pytest
import scipy.sparse as sp

from streamsvm.kernels import Kernel, KernelCache
from streamsvm.kernels import cache as kc

from .naive_cache import NaiveRowCache

MB = 1 << 20


def slot_of(cache, row_id):
    return int(cache.id_meta[row_id, kc.ID_SLOT])


def check_same_state(cache, naive, truth):
    """Cached ids, lengths, pins, values and counters agree with the reference."""
    assert cache.n_slots == naive.n_slots
    order = [int(cache.slot_meta[s, kc.SLOT_OWNER])
             for s in kc.cache_eviction_order(cache.slot_meta)]
    assert order == naive.eviction_order()
    for row_id in range(cache.id_capacity):
        assert cache.is_pinned(row_id) == (row_id in naive.pinned)
        length = naive.length(row_id)
        row = cache.cached_row(row_id)
        if length is None:
            assert row is None
        else:
            assert row is not None and row.shape == (length,)
            np.testing.assert_array_equal(row, truth[row_id, :length])
    assert (cache.hits, cache.partial_hits, cache.misses, cache.evictions) == (
        naive.hits, naive.partial_hits, naive.misses, naive.evictions)
    assert cache.n_cached == sum(len(rows) for rows in naive.lists.values())
    assert cache.nbytes <= cache.budget_bytes


def run_random_sequence(seed, size_mb, n_ids, n_steps, max_columns):
    """Random acquires (with row growth), pins, invalidations, swaps, truncations and grows."""
    rng = np.random.default_rng(seed)
    cache = KernelCache(size_mb, n_columns=8, n_ids=8)
    naive = NaiveRowCache(cache.n_slots)
    # truth[id, j]: the value row `id` must hold in column j (a stand-in for k(x_id, z_j))
    truth = rng.normal(size=(n_ids, max_columns))
    n_columns = 4
    previous = None
    for _ in range(n_steps):
        if cache.grow(n_columns=n_columns, n_ids=n_ids):
            naive.resize(cache.n_slots)
            previous = None
        op = rng.random()
        if op < 0.65:
            row_id = int(rng.integers(n_ids))
            # mostly all current columns, sometimes a prefix (a row longer than asked)
            wanted = n_columns if rng.random() < 0.7 else int(rng.integers(n_columns + 1))
            slot, valid = kc.cache_acquire(*cache.state, row_id, wanted)
            expected_valid = naive.acquire(row_id, wanted)
            if expected_valid is None:
                assert (slot, valid) == (-1, 0)
            else:
                assert valid == expected_valid and slot == slot_of(cache, row_id)
                np.testing.assert_array_equal(cache.rows[slot, :valid], truth[row_id, :valid])
                cache.rows[slot, valid:wanted] = truth[row_id, valid:wanted]
                kc.cache_set_length(cache.slot_meta, slot, wanted)
                naive.set_length(row_id, wanted)
                if previous is not None and previous != row_id and cache.n_slots >= 2:
                    # the previous row is still there: two rows can be used at once
                    assert slot_of(cache, previous) >= 0
                previous = row_id
        elif op < 0.75:
            row_id = int(rng.integers(n_ids))
            pinned = bool(rng.random() < 0.6)
            (cache.pin if pinned else cache.unpin)(row_id)
            naive.set_pinned(row_id, pinned)
        elif op < 0.80:
            row_id = int(rng.integers(n_ids))
            cache.invalidate(row_id)
            naive.invalidate(row_id)
            if previous == row_id:
                previous = None
        elif op < 0.85:
            i, j = (int(v) for v in rng.integers(n_columns, size=2))
            kc.cache_swap_columns(cache.rows, cache.slot_meta, i, j)
            naive.swap_columns(i, j)
            truth[:, [i, j]] = truth[:, [j, i]]
        elif op < 0.88:
            i, j = (int(v) for v in rng.integers(n_ids, size=2))
            kc.cache_swap_ids(cache.slot_meta, cache.id_meta, i, j)
            naive.swap_ids(i, j)
            truth[[i, j]] = truth[[j, i]]
            if previous in (i, j):
                previous = j if previous == i else i
        elif op < 0.91:
            n_columns = int(rng.integers(1, n_columns + 1))
            kc.cache_truncate_columns(cache.slot_meta, n_columns)
            naive.truncate(n_columns)
        else:
            n_columns = min(max_columns, n_columns + int(rng.integers(1, 4)))
        check_same_state(cache, naive, truth)
    return cache, naive


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("size_kb", [3, 12, 40])
def test_cache_matches_reference_lru(seed, size_kb):
    cache, naive = run_random_sequence(seed, size_kb / 1024, n_ids=40, n_steps=500,
                                       max_columns=200)
    # the sequences must exercise the interesting paths
    assert naive.hits > 0 and naive.partial_hits > 0 and naive.misses > 0
    if size_kb < 40:
        assert naive.evictions > 0


def test_cache_disabled_when_two_rows_do_not_fit():
    cache, naive = run_random_sequence(0, 1 / 1024, n_ids=10, n_steps=200, max_columns=300)
    assert cache.n_slots == 0 and cache.n_cached == 0
    assert cache.hits == 0 and cache.partial_hits == 0 and cache.misses > 0


def cache_with_slots(n_slots):
    """A cache of exactly n_slots slots at the initial capacities (64 columns, 64 ids)."""
    fixed = 64 * 8 + 2 * 32 + kc.N_STATS * 8
    cache = KernelCache((fixed + n_slots * (64 * 8 + 32)) / MB)
    assert cache.n_slots == n_slots and cache.row_capacity == 64 and cache.id_capacity == 64
    return cache


def cached_ids(cache, ids):
    return [row_id for row_id in ids if slot_of(cache, row_id) >= 0]


def test_pinned_rows_are_evicted_last():
    cache = cache_with_slots(4)
    cache.pin([0, 1])
    for row_id in range(7):
        kc.cache_acquire(*cache.state, row_id, 2)
    assert cached_ids(cache, range(10)) == [0, 1, 5, 6]  # unpinned 2, 3, 4 went, LRU first
    assert cache.evictions == 3
    # when every slot is pinned, the least recently used pinned row goes
    cache.pin([5, 6])
    kc.cache_acquire(*cache.state, 7, 2)
    assert cached_ids(cache, range(10)) == [1, 5, 6, 7]
    assert cache.evictions == 4


def test_lru_order_follows_use_and_the_last_row_is_spared():
    cache = cache_with_slots(2)
    for row_id in (0, 1, 0, 2):  # 0 was used after 1, so 1 goes
        kc.cache_acquire(*cache.state, row_id, 1)
    assert cached_ids(cache, range(5)) == [0, 2]
    cache = cache_with_slots(2)
    cache.pin(0)
    for row_id in (0, 1, 2):
        kc.cache_acquire(*cache.state, row_id, 1)
    # the only unpinned row (1) was the last one acquired: the pinned row 0 goes instead,
    # so that rows 1 and 2 can be used together
    assert cached_ids(cache, range(5)) == [1, 2]


def test_budget_is_never_exceeded_and_slots_are_maximal():
    for size_mb in (0.001, 0.01, 0.5, 3.0):
        cache = KernelCache(size_mb)
        for n_columns, n_ids in [(10, 10), (100, 50), (1000, 1000), (5000, 3000),
                                 (20000, 100000)]:
            try:
                cache.grow(n_columns=n_columns, n_ids=n_ids)
            except ValueError as error:
                assert "cannot index" in str(error)
                assert n_ids * 8 > cache.budget_bytes
                continue
            assert cache.row_capacity >= n_columns and cache.id_capacity >= n_ids
            assert cache.nbytes <= cache.budget_bytes <= size_mb * MB
            per_slot = cache.row_capacity * 8 + 4 * 8
            if 0 < cache.n_slots < cache.id_capacity:
                assert cache.nbytes + per_slot > cache.budget_bytes  # one more would not fit
            if cache.n_slots == 0:
                assert cache.nbytes + 2 * per_slot > cache.budget_bytes


def test_grow_doubles_and_keeps_the_most_valuable_rows():
    cache = KernelCache(0.05)  # 64 columns, 64 ids to start with
    slots_before = cache.n_slots
    assert (slots_before, cache.row_capacity) == (64, 64)
    for row_id in range(64):
        slot, _ = kc.cache_acquire(*cache.state, row_id, 16)
        cache.rows[slot, :16] = row_id + np.arange(16) / 100
        kc.cache_set_length(cache.slot_meta, slot, 16)
    cache.pin([3])
    assert not cache.grow(n_columns=64, n_ids=64)  # nothing to do
    assert cache.grow(n_columns=65)
    assert cache.row_capacity == 128  # doubled, not 65
    assert cache.n_slots == (cache.budget_bytes - 640) // (128 * 8 + 32) == 49
    kept = [row_id for row_id in range(64) if cache.cached_row(row_id) is not None]
    # pinned row 3 first, then the most recently used ones
    assert 3 in kept
    assert kept == sorted(kept) and kept[-1] == 63 and len(kept) == cache.n_slots
    assert kept[1:] == list(range(64 - cache.n_slots + 1, 64))
    assert cache.evictions == 64 - cache.n_slots
    for row_id in kept:
        np.testing.assert_array_equal(cache.cached_row(row_id), row_id + np.arange(16) / 100)
    # a grow that doubling would make useless falls back to the exact request
    small = KernelCache((640 + 1500) / MB)
    assert small.n_slots == 2
    small.grow(n_columns=65)
    assert small.row_capacity == 65 and small.n_slots == 2


@pytest.mark.parametrize("seed", [0, 1])
def test_rows_moved_in_place_keep_their_values_and_eviction_order(seed):
    """Widening the rows moves them inside one buffer (``cache_move_rows``): every kept row
    keeps its values, the kept rows are the last in eviction order, and that order stays."""
    rng = np.random.default_rng(seed)
    cache = KernelCache(0.2, n_columns=64, n_ids=400)
    values = {}
    for row_id in rng.integers(0, 400, 1500):  # rows of random lengths, used in random order
        length = int(rng.integers(1, 65))
        slot, valid = kc.cache_acquire(*cache.state, row_id, length)
        if valid < length:
            cache.rows[slot, valid:length] = rng.random(length - valid)
            kc.cache_set_length(cache.slot_meta, slot, length)
        values[int(row_id)] = cache.cached_row(row_id)
    cache.pin(rng.choice(sorted(values), 20, replace=False))
    for width in (65, 300):
        owners = cache.slot_meta[kc.cache_eviction_order(cache.slot_meta), 0]
        buffer = cache._buffer
        assert cache.grow(n_columns=width)
        assert cache._buffer is buffer  # moved in place, not reallocated
        kept = cache.slot_meta[kc.cache_eviction_order(cache.slot_meta), 0]
        assert len(kept) == cache.n_slots < len(owners)
        np.testing.assert_array_equal(kept, owners[len(owners) - len(kept):])
        for row_id in kept:
            np.testing.assert_array_equal(cache.cached_row(row_id), values[row_id])


def test_exact_grow_and_slots_for():
    """``grow(exact=True)`` widens the rows to exactly what is asked, and ``slots_for`` says
    beforehand how many slots a width leaves (what a caller weighs before growing)."""
    cache = KernelCache(0.05)
    for row_id in range(64):
        slot, _ = kc.cache_acquire(*cache.state, row_id, 8)
        cache.rows[slot, :8] = row_id
        kc.cache_set_length(cache.slot_meta, slot, 8)
    assert cache.slots_for(64) == cache.n_slots == 64
    predicted = cache.slots_for(100)
    assert predicted < cache.slots_for(64) and cache.slots_for(128) < predicted
    assert cache.grow(n_columns=100, exact=True)
    assert cache.row_capacity == 100 and cache.n_slots == predicted
    assert cache.slots_for(10) == cache.n_slots  # never narrower than the rows are
    kept = [row_id for row_id in range(64) if cache.cached_row(row_id) is not None]
    assert len(kept) == predicted and kept[-1] == 63
    for row_id in kept:
        np.testing.assert_array_equal(cache.cached_row(row_id), np.full(8, row_id))


def test_acquire_beyond_row_capacity_is_an_error():
    cache = KernelCache(1.0, n_columns=10, n_ids=10)
    with pytest.raises(ValueError, match="row capacity; call KernelCache.grow"):
        kc.cache_acquire(*cache.state, 0, cache.row_capacity + 1)
    with pytest.raises(ValueError, match="outside the cache's id capacity"):
        kc.cache_acquire(*cache.state, cache.id_capacity, 1)
    with pytest.raises(ValueError, match="outside the cache's id capacity"):
        kc.cache_acquire(*cache.state, -1, 1)


def test_clear_and_reset_counters():
    cache = KernelCache(1.0, n_columns=4, n_ids=4)
    cache.pin(2)
    for row_id in (0, 1, 2, 0):
        kc.cache_acquire(*cache.state, row_id, 0)
    assert (cache.hits, cache.misses, cache.n_cached) == (1, 3, 3)
    cache.reset_counters()
    assert (cache.hits, cache.misses, cache.n_cached) == (0, 0, 3)
    cache.clear()
    assert (cache.n_cached, cache.misses) == (0, 0)
    assert cache.is_pinned(2)
    assert kc.cache_peek(cache.id_meta, 0) == -1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"size_mb": 0}, "size_mb must be a positive number of megabytes; got 0"),
        ({"size_mb": -5.0}, "size_mb must be a positive number of megabytes; got -5.0"),
        ({"size_mb": float("nan")}, "size_mb must be .* got nan"),
        ({"size_mb": "100"}, "size_mb must be .* got '100'"),
        ({"n_columns": -1}, "n_columns must be an integer >= 0; got -1"),
        ({"n_ids": 2.5}, "n_ids must be an integer >= 0; got 2.5"),
    ],
)
def test_bad_cache_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        KernelCache(**kwargs)


def test_id_errors():
    cache = KernelCache(1.0, n_ids=10)
    with pytest.raises(ValueError, match=r"ids must lie in 0\.\.63 .* got 64"):
        cache.pin(64)
    with pytest.raises(ValueError, match="got -1"):
        cache.invalidate([-1, 2])
    with pytest.raises(ValueError, match=r"cannot index 1000000 ids: the id table alone needs "
                                         r"7\.6 MB; raise size_mb"):
        cache.grow(n_ids=1_000_000)


# ------------------------------------------------------------------ cached kernel rows


def stream_of_rows(kernel_name, sparse, normalized, size_mb, seed=0):
    """Rows of random examples against a growing set of stored vectors, through the cache,
    compared with Kernel.row on the same prefix."""
    rng = np.random.default_rng(seed)
    n_examples, n_features, n_stored_max = 30, 12, 80
    X = rng.normal(size=(n_examples, n_features)) * (rng.random((n_examples, n_features)) < 0.4)
    Z = rng.normal(size=(n_stored_max, n_features)) * (rng.random((n_stored_max, n_features))
                                                        < 0.4)
    kernel = Kernel(kernel_name, gamma=0.3, degree=2, coef0=1.0, normalized=normalized)
    params = kernel.jit_params
    x_block = kernel.prepare(sp.csr_matrix(X) if sparse else X)
    z_block = kernel.prepare(sp.csr_matrix(Z) if sparse else Z)
    x_self = kernel.self_values(x_block)
    z_self = kernel.self_values(z_block)
    cache = KernelCache(size_mb, n_columns=4, n_ids=n_examples)
    scratch = np.empty(n_stored_max)
    workspace = np.zeros(n_features)
    n_stored = 1
    total_computed = 0
    for _ in range(400):
        n_stored = min(n_stored_max, n_stored + int(rng.random() < 0.3))
        cache.grow(n_columns=n_stored)
        row_id = int(rng.integers(n_examples))
        hits_before = cache.hits
        if sparse:
            x_indices, x_data = x_block.row_slice(row_id)
            row, n_computed = kc.cached_kernel_row_csr(
                *cache.state, row_id, x_indices, x_data, x_block.sqnorms[row_id],
                z_block.indptr[: n_stored + 1], z_block.indices, z_block.data,
                z_block.sqnorms[:n_stored], *params, normalized, x_self[row_id],
                z_self[:n_stored], workspace, scratch)
        else:
            row, n_computed = kc.cached_kernel_row_dense(
                *cache.state, row_id, x_block.dense[row_id], x_block.sqnorms[row_id],
                z_block.dense[:n_stored], z_block.sqnorms[:n_stored], *params, normalized,
                x_self[row_id], z_self[:n_stored], scratch)
        expected = Kernel(kernel_name, gamma=0.3, degree=2, coef0=1.0,
                          normalized=normalized).row(X[row_id], Z[:n_stored])
        np.testing.assert_allclose(row, expected, rtol=1e-12, atol=1e-14)
        assert row.shape == (n_stored,)
        if cache.hits > hits_before:
            assert n_computed == 0
        total_computed += n_computed
        assert np.all(workspace == 0.0)
    return cache, total_computed


@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("kernel_name", ["rbf", "poly"])
def test_cached_rows_equal_direct_rows(kernel_name, sparse, normalized):
    cache, computed = stream_of_rows(kernel_name, sparse, normalized, size_mb=0.02)
    assert cache.partial_hits > 0 and cache.hits > 0 and cache.evictions > 0
    # cached values are not recomputed: fewer evaluations than 400 full rows
    assert computed < 400 * 80 / 2


def test_cached_rows_with_disabled_cache_use_scratch():
    cache, computed = stream_of_rows("rbf", False, False, size_mb=1 / 1024)
    assert cache.n_slots == 0 and cache.misses == 400 and cache.hits == 0


def test_size_mb_for_is_the_inverse_of_slots_for():
    cache = KernelCache(5.0, n_columns=100, n_ids=10000)
    for n_slots, width in [(10, 100), (500, 300), (3000, 1000)]:
        big_enough = KernelCache(cache.size_mb_for(n_slots, width), n_columns=width,
                                 n_ids=cache.id_capacity)
        assert big_enough.n_slots >= n_slots
        assert KernelCache(0.999 * cache.size_mb_for(n_slots, width), n_columns=width,
                           n_ids=cache.id_capacity).n_slots < n_slots


@pytest.mark.parametrize("seed", range(4))
def test_remap_ids_renumbers_rows_and_frees_the_dropped(seed):
    """``cache_remap_ids``: a kept id's row, length and pin move to its new id and its slot
    keeps its place in the eviction order; a dropped id's slot is freed (the next victim)."""
    rng = np.random.default_rng(seed)
    n_ids, n_columns = 40, 6
    cache = KernelCache(0.01, n_columns=n_columns, n_ids=n_ids)
    assert 2 < cache.n_slots < 25  # full after the acquires below: evictions happen
    truth = rng.normal(size=(n_ids, n_columns))
    for row_id in rng.integers(n_ids, size=60):
        wanted = int(rng.integers(1, n_columns + 1))
        slot, valid = kc.cache_acquire(*cache.state, int(row_id), wanted)
        cache.rows[slot, valid:wanted] = truth[row_id, valid:wanted]
        kc.cache_set_length(cache.slot_meta, slot, wanted)
    cache.pin([int(i) for i in rng.choice(n_ids, 8, replace=False)])
    before = {i: (cache.cached_row(i), cache.is_pinned(i)) for i in range(n_ids)}
    order = [int(cache.slot_meta[s, kc.SLOT_OWNER])
             for s in kc.cache_eviction_order(cache.slot_meta)]
    keep = np.sort(rng.choice(n_ids, 25, replace=False))
    new_of_old = np.full(n_ids, -1, dtype=np.int64)
    new_of_old[keep] = rng.permutation(len(keep))
    kc.cache_remap_ids(new_of_old, cache.slot_meta, cache.id_meta, cache.stats)
    for old in keep:
        new = int(new_of_old[old])
        row, pinned = before[old]
        assert cache.is_pinned(new) == pinned
        if row is None:
            assert cache.cached_row(new) is None
        else:
            np.testing.assert_array_equal(cache.cached_row(new), row)
    for new in range(len(keep), n_ids):
        assert cache.cached_row(new) is None and not cache.is_pinned(new)
    after = [int(cache.slot_meta[s, kc.SLOT_OWNER])
             for s in kc.cache_eviction_order(cache.slot_meta)]
    assert after == [int(new_of_old[o]) for o in order if new_of_old[o] >= 0]
    if any(new_of_old[o] < 0 for o in order):  # a freed slot is taken before a full one
        evictions = cache.evictions
        kc.cache_acquire(*cache.state, len(keep), 1)
        assert cache.evictions == evictions
        assert all(cache.cached_row(int(new_of_old[o])) is not None
                   for o in order if new_of_old[o] >= 0)
