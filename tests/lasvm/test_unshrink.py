"""The finishing step's unshrink (``_finish_core._unshrink``) brings the gradients of the
members that shrinking set aside up to date, by eq. 9 in full or from the coefficients that
moved since each was set aside (the events of ``_shrink_recorded``), whichever needs fewer
kernel values from outside the cache. Both are compared with the gradient computed from
scratch, ``g_s = y_s - sum_t alpha_t K(x_s, x_t)``."""

import copy

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.metrics.pairwise import rbf_kernel

from streamsvm import LASVM
from streamsvm.kernels.cache import CACHE_ID_META, CACHE_SLOT_META, CACHE_STATS, cache_invalidate
from streamsvm.lasvm import _expansion_core, _finish_core, _kernel_rows_core, _lasvm_core

GAMMA = 0.5


def _online_learner():
    X, y = make_classification(500, 4, n_informative=3, n_redundant=0, random_state=5,
                               flip_y=0.1, class_sep=0.6)
    model = LASVM(C=10.0, gamma=GAMMA, finishing=False).fit(X, y)  # finishing left to us
    return model.learners_[0]


def _exact_gradients(learner, n):
    """``y_s - sum_t alpha_t K(x_s, x_t)`` for the first ``n`` positions of S."""
    ids = learner.perm[:n]
    K = rbf_kernel(learner.Xd[ids], learner.Xd[ids], gamma=GAMMA)
    return learner.ys[ids] - K @ learner.alpha[:n]


def _steps(n_active, state, tau, count=60):
    store, kern, svs, cache, work, cnt = state
    i, gmax, j, gmin = _lasvm_core.extremes(n_active, svs)
    for _ in range(count):
        if i < 0 or j < 0 or gmax - gmin <= tau:
            break
        i, gmax, j, gmin = _lasvm_core.pair_step_extremes(i, j, n_active, store, kern, svs,
                                                          cache, work, cnt)


def _shrink_then_step(learner, events_capacity, periods=3):
    """Steps over the active prefix of S with shrinking between periods, as the finishing
    step takes them, and steps after the last shrink (so that the set-aside gradients are out
    of date); returns the state, the active size and the record for the unshrink."""
    learner._ensure_cache()
    state = (learner._store(), learner._kern(), learner._svs(), learner.cache.state,
             learner._work(), learner.cnt)
    store, kern, svs, cache, work, cnt = state
    _expansion_core.compact(store, svs, cache, cnt, work[_expansion_core.WORK_SCRATCH_A])
    n_active = int(cnt[_expansion_core.N_COLS])
    member = np.empty(store[_expansion_core.STORE_Y].shape[0], dtype=np.int64)
    member[learner.perm[:n_active]] = np.arange(n_active)
    record = np.zeros(2, dtype=np.int64)
    snapshots = np.empty((events_capacity, n_active))
    group = np.empty(n_active, dtype=np.int64)
    gone = np.empty(n_active, dtype=np.int64)
    for _ in range(periods):
        _steps(n_active, state, learner.tau)
        n_active = _finish_core._shrink_recorded(
            n_active, store, svs, cache, cnt, work[_expansion_core.WORK_SCRATCH_A], record,
            snapshots, group, member, gone)
    _steps(n_active, state, learner.tau)
    return state, n_active, (record, snapshots, group, member, gone)


@pytest.mark.parametrize("way", ["moves", "eq. 9, rows cached", "eq. 9, too many events"])
def test_unshrink_gives_the_exact_gradients(way):
    learner = copy.deepcopy(_online_learner())
    state, n_active, record = _shrink_then_step(learner,
                                                0 if way == "eq. 9, too many events" else 32)
    store, kern, svs, cache, work, cnt = state
    n = int(cnt[_expansion_core.N_COLS])
    assert 0 < n_active < n  # shrinking set members aside
    events, n_gone = record[0][_finish_core.EVENTS], record[0][_finish_core.GONE]
    if way == "eq. 9, too many events":
        assert events == -1
    else:
        assert events >= 2 and n_gone > 0  # several events, and members removed from S
    aside = learner.perm[n_active:n]
    if way == "moves":  # the set-aside rows leave the cache: eq. 9 would compute them all
        for rid in aside:
            cache_invalidate(cache[CACHE_SLOT_META], cache[CACHE_ID_META], cache[CACHE_STATS],
                             rid)
    else:  # the set-aside rows in the cache, whole: eq. 9 computes nothing
        for rid in aside:
            _kernel_rows_core.kernel_row(rid, n, store, kern, svs, cache,
                                         work[_expansion_core.WORK_SCATTER],
                                         work[_expansion_core.WORK_SCRATCH_C], cnt)
    exact = _exact_gradients(learner, n)
    stale = np.abs(learner.g[n_active:n] - exact[n_active:]).max()
    assert stale > 1e-6  # the steps after the shrinks moved them
    before = int(cnt[_expansion_core.KEVALS])
    _finish_core._unshrink(n_active, *record, store, kern, svs, cache, work, cnt)
    np.testing.assert_allclose(learner.g[:n], exact, rtol=0, atol=1e-10)
    computed = int(cnt[_expansion_core.KEVALS]) - before
    if way == "moves":  # fewer than the whole rows of the set-aside members
        assert 0 < computed < (n - n_active) * n
    else:
        assert computed == 0


def test_finishing_with_frequent_shrinks_keeps_exact_gradients():
    """The whole finishing step with a shrink every 50 steps (many events and unshrinks) and
    a cache too small for the set-aside rows: at the end every member's gradient is the one
    computed from scratch, no pair of S violates tau, and the model matches the one that
    shrank every 1,000 steps with a cache that holds every row."""
    X, y = make_classification(600, 4, n_informative=3, n_redundant=0, random_state=7,
                               flip_y=0.1, class_sep=0.6)
    models = []
    for shrink_every, cache_size in ((50, 0.3), (1000, 100.0)):
        model = LASVM(C=10.0, gamma=GAMMA, tau=1e-6, finishing=False,
                      cache_size=cache_size).partial_fit(X, y, classes=[0, 1])
        learner = model.learners_[0]
        learner.shrink_every = shrink_every
        model.finish()
        n = int(learner.cnt[_expansion_core.N_COLS])
        np.testing.assert_allclose(learner.g[:n], _exact_gradients(learner, n), rtol=0,
                                   atol=1e-9)
        i, gmax, j, gmin = _lasvm_core.extremes(n, learner._svs())
        assert gmax - gmin <= learner.tau
        models.append(model)
    np.testing.assert_allclose(models[0].decision_function(X), models[1].decision_function(X),
                               atol=1e-4)
