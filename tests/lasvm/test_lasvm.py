"""LASVM against scikit-learn's SVC (the SVM optimum), the paper's PROCESS / REPROCESS written
out in tests/naive.py, and the invariants of the algorithm (box, sum alpha = 0, no
tau-violating pair after finishing, cache budget)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from streamsvm import LASVM
from streamsvm.lasvm import _expansion_core, _finish_core, _kernel_rows_core, _lasvm_core

from tests import naive

GAMMA = 0.1
C = 10.0


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(300, 8, random_state=0, flip_y=0.1)
    return X, np.where(y == 1, 1.0, -1.0)


@pytest.fixture(scope="module")
def sparse_data():
    rng = np.random.default_rng(1)
    X = rng.random((300, 40))
    X[X < 0.8] = 0.0
    w = rng.normal(size=40)
    y = np.where(X @ w + 0.3 * rng.normal(size=300) > np.median(X @ w), 1.0, -1.0)
    return sp.csr_matrix(X), y


def dual_objective(alpha, SV, gamma=GAMMA):
    """W(alpha) of eq. 4 over the support vectors (alpha signed)."""
    return np.abs(alpha).sum() - 0.5 * alpha @ rbf_kernel(SV, SV, gamma=gamma) @ alpha


def svc_objective(svc):
    coef = svc.dual_coef_
    coef = coef.toarray() if sp.issparse(coef) else coef
    return dual_objective(coef.ravel(), svc.support_vectors_)


@pytest.mark.parametrize("finishing_selection", ["second-order", "first-order"])
@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_matches_svc_after_epochs_and_finishing(data, sparse_data, kind, finishing_selection):
    X, y = data if kind == "dense" else sparse_data
    svc = SVC(C=C, gamma=GAMMA, tol=1e-3).fit(X, y)
    model = LASVM(C=C, gamma=GAMMA, epochs=3, finishing_selection=finishing_selection).fit(X, y)
    ours = dual_objective(model.dual_coef_.ravel(), model.support_vectors_)
    assert abs(ours - svc_objective(svc)) <= 1e-3 * abs(svc_objective(svc))
    assert np.mean(model.predict(X) == svc.predict(X)) >= 0.99
    np.testing.assert_allclose(model.decision_function(X), svc.decision_function(X), atol=0.05)


@pytest.mark.parametrize("finishing_selection", ["second-order", "first-order"])
def test_no_tau_violating_pair_after_finishing(data, finishing_selection):
    X, y = data
    model = LASVM(C=C, gamma=GAMMA, finishing_selection=finishing_selection).fit(X, y)
    learner = model.learners_[0]
    SV, alpha = learner.support_rows()
    # recompute the gradient of every member of S from scratch (eq. 9)
    n = learner.cnt[_expansion_core.N_COLS]
    members = learner.perm[:n][learner.perm[:n] >= 0]
    Xs = learner.Xd[members]
    g = learner.ys[members] - rbf_kernel(Xs, SV, gamma=GAMMA) @ alpha
    a = learner.alpha[:n][learner.perm[:n] >= 0]
    lo = np.minimum(0, C * learner.ys[members])
    hi = np.maximum(0, C * learner.ys[members])
    gmax = g[a < hi].max()
    gmin = g[a > lo].min()
    assert gmax - gmin <= model.tau + 1e-9
    assert model.intercept_[0] * model._signs[0] == pytest.approx((gmax + gmin) / 2, abs=1e-9)
    assert model.delta_ <= model.tau


def test_second_order_finishing_takes_fewer_steps_to_the_same_optimum(data):
    """With a large C (most alphas at a bound) the most violating pair zig-zags; the
    second-order choice of j reaches the same tau-approximate optimum in fewer steps."""
    X, y = data
    models = {}
    for selection in ("first-order", "second-order"):
        model = LASVM(C=1000.0, gamma=GAMMA, finishing=False).fit(X, y)
        learner = model.learners_[0]
        learner.second_order = selection == "second-order"
        before = int(learner.cnt[_expansion_core.N_REPROCESS_STEPS])
        model.finish()
        models[selection] = (model, int(learner.cnt[_expansion_core.N_REPROCESS_STEPS]) - before)
    (first, first_steps), (second, second_steps) = models.values()
    assert second_steps < first_steps
    objectives = [dual_objective(m.dual_coef_.ravel(), m.support_vectors_) for m in (first,
                                                                                    second)]
    assert objectives[1] == pytest.approx(objectives[0], rel=1e-3)
    assert first.delta_ <= first.tau and second.delta_ <= second.tau


def test_one_epoch_follows_the_papers_process_and_reprocess(data):
    X, y = data
    K = rbf_kernel(X, X, gamma=GAMMA)
    alpha_ref, b_ref, _ = naive.lasvm_online(K, y, C)
    model = LASVM(C=C, gamma=GAMMA, finishing=False).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), K @ alpha_ref + b_ref, atol=1e-8)


@pytest.mark.parametrize("selection", ["random", "gradient", "active", "autoactive"])
def test_box_and_equality_constraint_hold_after_every_chunk(data, selection):
    X, y = data
    model = LASVM(C=C, gamma=GAMMA, selection=selection, n_candidates=7, random_state=0)
    for start in range(0, 300, 37):
        model.partial_fit(X[start : start + 37], y[start : start + 37], classes=[-1.0, 1.0])
        learner = model.learners_[0]
        n = learner.cnt[_expansion_core.N_COLS]
        a, lo, hi = learner.alpha[:n], learner.lo[:n], learner.hi[:n]
        assert np.all(lo <= a) and np.all(a <= hi)
        assert abs(a.sum()) <= 1e-9 * C
    model.finish()
    a = model.learners_[0].alpha
    assert abs(a.sum()) <= 1e-9 * C


@pytest.mark.parametrize("selection", ["gradient", "active", "autoactive"])
def test_selection_processes_every_example_once_per_epoch(data, selection):
    X, y = data
    model = LASVM(C=C, gamma=GAMMA, selection=selection, epochs=3, random_state=0).fit(X, y)
    learner = model.learners_[0]
    assert learner.cnt[_expansion_core.N_ITER] == 3 * len(y)
    candidates = learner.cnt[_expansion_core.N_CANDIDATES]
    if selection == "autoactive":
        assert 3 * len(y) <= candidates <= 3 * len(y) * _lasvm_core.AUTOACTIVE_MAX
    else:  # M sampled while at least M remain, then all that remain
        remaining = np.arange(len(y), 0, -1)
        assert candidates == 3 * np.minimum(remaining, 50).sum()
    # every example was processed, so epochs + finishing still reach the SVM
    svc = SVC(C=C, gamma=GAMMA, tol=1e-3).fit(X, y)
    ours = dual_objective(model.dual_coef_.ravel(), model.support_vectors_)
    assert abs(ours - svc_objective(svc)) <= 1e-3 * abs(svc_objective(svc))


def test_active_selection_takes_the_candidate_closest_to_the_boundary(data):
    X, y = data
    model = LASVM(C=C, gamma=GAMMA, finishing=False).fit(X[:100], y[:100])
    learner = model.learners_[0]
    learner.selection = _lasvm_core.ACTIVE
    learner.n_candidates = 200
    ids = learner.add_examples(X[100:], y[100:])
    scores = np.abs(learner.decision_stored(ids))
    pool = ids.copy()
    pstate = np.array([0, len(pool)])
    learner._ensure_cache()
    chosen = _lasvm_core.pick(pool, pstate, _lasvm_core.ACTIVE, 500, learner._store(),
                               learner._kern(), learner._svs(), learner.cache.state,
                               learner._work(), learner.cnt, learner.st, learner.rng_state)
    assert chosen == ids[np.argmin(scores)]


def test_repeated_reprocess_reaches_delta_max(data):
    X, y = data
    model = LASVM(C=C, gamma=GAMMA, delta_max=0.5, finishing=False).fit(X, y)
    assert model.delta_ < 0.5
    plain = LASVM(C=C, gamma=GAMMA, finishing=False).fit(X, y)
    assert plain.learners_[0].cnt[_expansion_core.N_REPROCESS_STEPS] < \
        model.learners_[0].cnt[_expansion_core.N_REPROCESS_STEPS]


def test_cache_budget_and_counters(data):
    X, y = data
    small = LASVM(C=C, gamma=GAMMA, cache_size=0.05)
    large = LASVM(C=C, gamma=GAMMA, cache_size=50.0)
    for start in range(0, 300, 50):
        for model in (small, large):
            model.partial_fit(X[start : start + 50], y[start : start + 50], classes=[-1, 1])
        cache = small.learners_[0].cache
        assert cache.nbytes <= cache.budget_bytes
    for model in (small, large):
        model.finish()
    # the cache changes the cost, never the result
    np.testing.assert_array_equal(small.decision_function(X), large.decision_function(X))
    assert small.n_kernel_evals_ > large.n_kernel_evals_ > 0
    assert large.cache_hits_ > small.cache_hits_
    learner = large.learners_[0]
    alpha = learner.alpha[: learner.cnt[_expansion_core.N_COLS]]
    assert large.n_support_vectors_ == np.count_nonzero(alpha)
    assert large.n_bounded_support_vectors_ == np.count_nonzero(np.abs(alpha) == C)
    assert 0 < large.n_bounded_support_vectors_ < large.n_support_vectors_
    assert large.n_support_vectors_ <= large.n_expansion_


def _check_cached_rows(learner, X_store):
    """Every cached row, read through the cache, equals the kernel against S."""
    n = int(learner.cnt[_expansion_core.N_COLS])
    perm = learner.perm[:n]
    cached = np.flatnonzero(learner.cache.id_meta[: learner.n_store, 0] >= 0)
    assert cached.size > 0
    for rid in cached:
        row = _kernel_rows_core.kernel_row(rid, n, learner._store(), learner._kern(),
                                           learner._svs(), learner.cache.state, learner.ws,
                                           learner.scratch[0], learner.cnt).copy()
        expected = rbf_kernel(X_store[rid : rid + 1], X_store[np.maximum(perm, 0)],
                              gamma=GAMMA)[0]
        live = perm >= 0  # a hole keeps whatever it held (its alpha is 0)
        np.testing.assert_allclose(row[live], expected[live], rtol=0, atol=1e-12)


@pytest.mark.parametrize("selection", ["random", "active"])
def test_cached_rows_follow_the_layout_of_s(data, selection):
    """Reordering S only logs the permutation; each cached row catches up when it is next
    used (_expansion_core.sync_row), or is recomputed when more than N_GENERATIONS layouts behind.
    Stressed with random reorders of S between online iterations."""
    X, y = data
    model = LASVM(C=C, gamma=GAMMA, selection=selection, cache_size=50.0,
                  finishing=False).fit(X[:30], y[:30])
    learner = model.learners_[0]
    ids = learner.add_examples(X)
    X_store = learner.Xd[: learner.n_store].copy()
    learner.set_labels(ids, y * model._signs[0])
    rng = np.random.default_rng(0)
    for _ in range(2):  # epochs
        for chunk in np.array_split(rng.permutation(ids), 6):
            learner.process_examples(chunk)
            n = int(learner.cnt[_expansion_core.N_COLS])
            for _ in range(rng.integers(1, 2 * _expansion_core.N_GENERATIONS)):
                live = np.flatnonzero(learner.perm[:n] >= 0)
                order = rng.permutation(live)
                _expansion_core.reorder(order, order.size, learner._store(), learner._svs(),
                              learner.cache.state, learner.cnt, learner.scratch[1])
                n = order.size
            _check_cached_rows(learner, X_store)
    assert learner.layout_meta[0] > _expansion_core.N_GENERATIONS
    learner.finish()  # at the end of the data the store keeps only S, renumbered
    _check_cached_rows(learner, learner.Xd[: learner.n_store].copy())


def test_internal_api_matches_the_estimator(data):
    """The learner methods active learning builds on: add rows, score them through the
    cache, process chosen ones, finish."""
    X, y = data
    model = LASVM(C=C, gamma=GAMMA).fit(X[:100], y[:100])
    learner = model.learners_[0]
    ids = learner.add_examples(X[100:])
    np.testing.assert_allclose(learner.decision_stored(ids),
                               learner.decision_function(X[100:]), atol=1e-10)
    learner.set_labels(ids, y[100:] * model._signs[0])
    learner.process_examples(ids[:50])
    learner.finish()
    reference = LASVM(C=C, gamma=GAMMA).fit(X[:100], y[:100])
    reference.partial_fit(X[100:150], y[100:150])
    reference.finish()
    np.testing.assert_allclose(model.decision_function(X), reference.decision_function(X),
                               atol=1e-8)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"C": -1.0}, "parameter C="),
        ({"tau": 0.0}, "parameter tau="),
        ({"epochs": 0}, "parameter epochs="),
        ({"selection": "best"}, "parameter selection="),
        ({"n_candidates": 0}, "parameter n_candidates="),
        ({"delta_max": -1.0}, "parameter delta_max="),
        ({"cache_size": 0}, "parameter cache_size="),
        ({"finishing_selection": "best"}, "parameter finishing_selection="),
        ({"kernel": "precomputed"}, "parameter kernel="),
        ({"kernel": lambda a, b: a @ b.T}, "parameter kernel="),
    ],
)
def test_bad_parameters_are_named(data, params, message):
    X, y = data
    with pytest.raises(ValueError, match=message):
        LASVM(**params).fit(X, y)


def test_read_only_training_data_uses_the_same_compiled_loops():
    """Read-only training data (a memmap opened read-only) is copied once: the compiled
    loops keep one signature (numba typed every loop a second time for read-only arrays,
    minutes of a first fit), the data is not written, and the model is the same. (Other
    tests of the process may have compiled other builds: one thread or several, RANDOM or
    a scored selection; the read-only fit adds none.)"""
    X, y = make_classification(300, 5, random_state=2)
    writable = LASVM(C=1.0, gamma=0.5).fit(X, y)
    loops = (_lasvm_core.lasvm_online, _finish_core.lasvm_finish)
    before = [list(loop.signatures) for loop in loops]
    X_read_only = X.copy()
    X_read_only.setflags(write=False)
    read_only = LASVM(C=1.0, gamma=0.5).fit(X_read_only, y)
    np.testing.assert_array_equal(read_only.decision_function(X),
                                  writable.decision_function(X))
    np.testing.assert_array_equal(X_read_only, X)
    for loop, signatures in zip(loops, before, strict=True):
        assert len(signatures) >= 1
        assert loop.signatures == signatures, loop.signatures
