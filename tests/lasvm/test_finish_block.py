"""The finishing step's dense block (``_finish_core.finish_block``: steps over a copy of the
active set's kernel rows) takes the same pairs and steps, to the bit, as the step-by-step
path through the kernel cache (``second_order_partner`` + ``pair_step_extremes``)."""

import copy

import numpy as np
import pytest
from sklearn.datasets import make_classification

from streamsvm import LASVM
from streamsvm.lasvm import _expansion_core, _finish_core, _lasvm_core


def _online_learner():
    X, y = make_classification(400, 6, random_state=3, flip_y=0.05)
    model = LASVM(C=50.0, gamma=0.5, finishing=False).fit(X, y)  # the finishing step left
    return model.learners_[0]


def _state(learner):
    learner._ensure_cache()  # copies leave the cache out: rebuilt (the same values)
    return (learner._store(), learner._kern(), learner._svs(), learner.cache.state,
            learner._work(), learner.cnt)


def _cache_path(learner, second_order, stop):
    store, kern, svs, cache, work, cnt = _state(learner)
    n = int(cnt[_expansion_core.N_COLS])
    i, gmax, j, gmin = _lasvm_core.extremes(n, svs)
    steps = 0
    while steps < stop and i >= 0 and j >= 0 and gmax - gmin > learner.tau:
        if second_order:
            j = _finish_core.second_order_partner(i, gmax, n, store, kern, svs, cache, work, cnt)
        i, gmax, j, gmin = _lasvm_core.pair_step_extremes(i, j, n, store, kern, svs, cache,
                                                          work, cnt)
        steps += 1
    return (i, gmax, j, gmin), steps


def _dense_block(learner, second_order, stop):
    store, kern, svs, cache, work, cnt = _state(learner)
    n = int(cnt[_expansion_core.N_COLS])
    i, gmax, j, gmin = _lasvm_core.extremes(n, svs)
    q, ready, kdiag = np.empty(n * n), np.empty(n, dtype=np.bool_), np.empty(n)
    *found, steps = _finish_core.finish_block(i, gmax, j, gmin, n, 0, stop, learner.tau,
                                             second_order, q, ready, kdiag, store, kern, svs,
                                             cache, work, cnt)
    return tuple(found), steps


@pytest.mark.parametrize("second_order", [True, False])
@pytest.mark.parametrize("stop", [200, 1_000_000])
def test_dense_block_takes_the_cache_paths_steps(second_order, stop):
    learner = _online_learner()
    by_cache, by_block = copy.deepcopy(learner), copy.deepcopy(learner)
    found_cache, steps_cache = _cache_path(by_cache, second_order, stop)
    found_block, steps_block = _dense_block(by_block, second_order, stop)
    n = int(learner.cnt[_expansion_core.N_COLS])
    assert steps_block == steps_cache > 0
    if stop == 200:
        assert steps_block == 200  # stopped by the step limit, pairs still violating
    else:
        assert found_block[1] - found_block[3] <= learner.tau  # converged
    assert found_block == found_cache
    for name in ("alpha", "g"):
        assert np.array_equal(getattr(by_block, name)[:n], getattr(by_cache, name)[:n])
    assert not np.array_equal(by_block.alpha[:n], learner.alpha[:n])  # the steps moved alpha


def test_small_finish_without_the_cache_steps_is_the_same():
    """With S of at most ``DENSE_FINISH_MAX`` columns, ``_finish_core.finish`` passes
    ``large=None`` and numba leaves the step-by-step path out of ``lasvm_finish`` (issue 36:
    a small first fit does not compile it). S does not grow while it finishes, so that path
    was unreachable: the build with it (``large=True``) gives the same model, to the bit."""
    learner = _online_learner()
    assert 0 < int(learner.cnt[_expansion_core.N_COLS]) <= _finish_core.DENSE_FINISH_MAX
    pruned, full = copy.deepcopy(learner), copy.deepcopy(learner)
    results = []
    for copy_, run in ((pruned, _finish_core.finish), (full, _finish_core.lasvm_finish)):
        store, kern, svs, cache, work, cnt = _state(copy_)
        extra = () if run is _finish_core.finish else (True,)
        steps = run(copy_.tau, copy_.shrink_every, True, store, kern, svs, cache, work, cnt,
                    copy_.st, None, *extra)
        results.append(steps)
    assert results[0] == results[1] > 0
    n = int(learner.cnt[_expansion_core.N_COLS])
    for name in ("alpha", "g", "perm", "st"):
        assert getattr(pruned, name).tobytes() == getattr(full, name).tobytes(), name
    assert not np.array_equal(pruned.alpha[:n], learner.alpha[:n])  # the finish moved alpha
