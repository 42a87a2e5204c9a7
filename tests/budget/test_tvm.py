"""Twin Vector Machine: the paper's invariants, and the model checked against SVC on the
weighted twins."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from streamsvm import IncrementalSVM, TwinVectorMachine
from streamsvm.budget import _state as state
from streamsvm.budget import _tvm_core as tcore
from streamsvm.datasets import make_noisy_checkerboard

from tests import naive

GAMMA = 1.35  # the paper's checkerboard width 0.37: gamma = 1 / (2 * 0.37)


@pytest.fixture(scope="module")
def stream():
    return make_noisy_checkerboard(3000, random_state=0, standardize=True)


def weighted_twins(model):
    Q, W = model.twin_vectors_, model.twin_weights_
    X = np.vstack([Q[W[:, 0] > 0], Q[W[:, 1] > 0]])
    y = np.concatenate([np.full((W[:, 0] > 0).sum(), model.classes_[1]),
                        np.full((W[:, 1] > 0).sum(), model.classes_[0])])
    w = np.concatenate([W[W[:, 0] > 0, 0], W[W[:, 1] > 0, 1]])
    return X, y, w


def assert_exact_svm_on_twins(model, X_eval):
    Xt, yt, wt = weighted_twins(model)
    svc = SVC(C=model.C_, gamma=GAMMA, tol=1e-12).fit(Xt, yt, sample_weight=wt)
    K = rbf_kernel(Xt[svc.support_], gamma=GAMMA)
    dc = svc.dual_coef_[0]
    theirs = 0.5 * dc @ K @ dc - np.abs(dc).sum()
    ours = model.learners_[0].machine.dual_objective()
    assert ours == pytest.approx(theirs, rel=1e-6)
    assert model.kkt_violation_ < 1e-6
    f_ours, f_svc = model.decision_function(X_eval), svc.decision_function(X_eval)
    clear = np.abs(f_svc) > 1e-3
    np.testing.assert_array_equal(np.sign(f_ours[clear]), np.sign(f_svc[clear]))


@pytest.mark.parametrize(
    "params",
    [{}, {"merging": "feature"}, {"one_sided": False}, {"rejection": False}],
    ids=["default", "feature", "global", "no-rejection"],
)
def test_model_is_the_exact_svm_on_the_weighted_twins(stream, params):
    X, y = stream
    model = TwinVectorMachine(budget=30, C=100.0, gamma=GAMMA, **params)
    for start in range(0, 1500, 300):
        model.partial_fit(X[start : start + 300], y[start : start + 300], classes=[-1, 1])
        assert model.n_twins_ == min(30, start + 300)
        assert_exact_svm_on_twins(model, X[:500])
    counts = (model.n_additions_, model.n_replacements_, model.n_merges_, model.n_rejections_)
    assert sum(counts) == model.n_beneficial_
    assert model.n_additions_ == 30 and model.n_merges_ > 0


def test_budget_and_constant_C_times_weight(stream):
    X, y = stream
    model = TwinVectorMachine(budget=25, C=10.0, gamma=GAMMA, scale_C=True)
    for start in range(0, 3000, 250):
        model.partial_fit(X[start : start + 250], y[start : start + 250], classes=[-1, 1])
        assert model.n_twins_ <= 25
        total = model.twin_weights_.sum()
        assert model.C_ * total == pytest.approx(10.0 * 25)


def test_merging_conserves_weight(stream):
    """Without replacement (m2 = inf) every kept example adds weight 1 and merging neither
    adds nor loses any: total weight = additions + merges = kept - rejected examples."""
    X, y = stream
    model = TwinVectorMachine(budget=20, gamma=GAMMA, m2=np.inf).fit(X, y)
    assert model.n_replacements_ == 0
    assert model.twin_weights_.sum() == model.n_additions_ + model.n_merges_
    assert model.twin_weights_.sum() == model.n_beneficial_ - model.n_rejections_
    with_replacement = TwinVectorMachine(budget=20, gamma=GAMMA).fit(X, y)
    assert with_replacement.twin_weights_.sum() <= (with_replacement.n_beneficial_
                                                    - with_replacement.n_rejections_)


def test_memory_is_flat(stream):
    X, y = stream
    model = TwinVectorMachine(budget=20, gamma=GAMMA).partial_fit(X[:300], y[:300])
    small = model.model_nbytes_
    model.partial_fit(X[300:], y[300:])
    assert model.model_nbytes_ == small


@pytest.mark.parametrize("scale_C", [False, True])
def test_large_budget_equals_incremental_svm(stream, scale_C):
    """B >= stream length: every example is a twin of weight 1 and nothing is merged, so
    the TVM is the incremental SVM at C (C B / N when C is rescaled)."""
    X, y = stream
    n, budget = 150, 200
    tvm = TwinVectorMachine(budget=budget, C=5.0, gamma=GAMMA, scale_C=scale_C).fit(X[:n], y[:n])
    C = 5.0 * budget / n if scale_C else 5.0
    idsvm = IncrementalSVM(C=C, gamma=GAMMA).fit(X[:n], y[:n])
    assert tvm.n_merges_ == 0 and tvm.n_twins_ == n
    np.testing.assert_allclose(tvm.decision_function(X[:400]), idsvm.decision_function(X[:400]),
                               atol=1e-7)


@pytest.mark.parametrize("same_label", [True, False])
@pytest.mark.parametrize("one_sided", [True, False])
def test_remembered_neighbours_match_brute_force(stream, one_sided, same_label):
    X, y = stream
    model = TwinVectorMachine(budget=25, gamma=GAMMA, one_sided=one_sided,
                              same_label_merging=same_label).fit(X[:800], y[:800])
    learner = model.learners_[0]
    m, tw, opts = learner.machine.m, learner.tw, learner.opts
    n = learner.n_twins
    fq = np.array([tcore.twin_f(m, tw, j) for j in range(n)])
    side = np.where(fq > 0, 1, -1) if one_sided else np.zeros(n, dtype=np.int64)
    Q, W = learner.twins()
    if same_label:
        side = 2 * side + (W[:, 0] >= W[:, 1])
    nz = np.zeros(tw[state.TW_PIVOTS].shape[1], np.int64)
    tcore._update_neighbours(m, tw, opts, side.astype(np.int64), nz)
    who, best = naive.tvm_best_neighbours(Q, W, side)
    np.testing.assert_allclose(tw[state.TW_NEIGHBOUR_DIST][:n], best, rtol=1e-10)


def test_feature_space_preimage_lies_at_the_rbf_optimum():
    rng = np.random.default_rng(0)
    model = TwinVectorMachine(budget=4, gamma=GAMMA, merging="feature")
    model.partial_fit(rng.normal(size=(4, 2)), [1, -1, 1, -1])
    learner = model.learners_[0]
    tw = learner.tw
    tw[state.TW_WEIGHT_POS][:4] = [1.0, 0.0, 3.0, 0.0]
    tw[state.TW_WEIGHT_NEG][:4] = [0.0, 2.0, 0.0, 5.0]
    out = np.zeros(2)
    for i, j in [(0, 1), (2, 3), (0, 3)]:
        tcore._preimage(learner.machine.m, tw, i, j, out)
        weight = tw[state.TW_WEIGHT_POS] + tw[state.TW_WEIGHT_NEG]
        Q = tw[state.TW_PIVOTS]
        expected = naive.rbf_preimage_on_segment(Q[i], Q[j], weight[i], weight[j], GAMMA)
        np.testing.assert_allclose(out, expected, atol=1e-4)


def test_beats_random_on_noisy_checkerboard():
    X, y = make_noisy_checkerboard(6000, random_state=1, standardize=True)
    Xt = make_noisy_checkerboard(2000, random_state=2, standardize=True, noise=0.0)[0]
    yt = make_noisy_checkerboard(2000, random_state=2, standardize=True, noise=0.0)[1]
    tvm = TwinVectorMachine(budget=50, C=100.0, gamma=GAMMA, scale_C=True).fit(X, y)
    first = IncrementalSVM(C=100.0, gamma=GAMMA).fit(X[:50], y[:50])
    assert tvm.score(Xt, yt) > first.score(Xt, yt) + 0.1


@pytest.mark.parametrize(
    "params, message",
    [
        ({"budget": 1}, "parameter budget="),
        ({"budget": 2.5}, "parameter budget="),
        ({"m1": -1.0}, "parameter m1="),
        ({"eta": 0.0}, "parameter eta="),
        ({"merging": "output"}, "parameter merging="),
        ({"one_sided": "yes"}, "parameter one_sided="),
        ({"merge_tries": 0}, "parameter merge_tries="),
        ({"kernel": "sigmoid"}, "parameter kernel="),
    ],
)
def test_bad_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        TwinVectorMachine(**params).fit(np.zeros((4, 2)) + np.arange(4)[:, None], [0, 1, 0, 1])


def sparse_text_stream(n=1200, d=400, nnz=8, seed=0):
    """Unit-norm sparse rows (like tf-idf) with a sparse linear rule, and repeated rows
    (duplicate documents), as CSR."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n), nnz)
    cols = rng.integers(0, d, size=n * nnz)
    X = sp.csr_matrix((rng.random(n * nnz), (rows, cols)), shape=(n, d))
    X.sum_duplicates()
    X = sp.csr_matrix(X.multiply(1.0 / np.sqrt(X.multiply(X).sum(axis=1))))
    order = np.arange(n)
    dup = rng.choice(n, size=n // 10, replace=False)
    order[dup[1:]] = dup[:-1]  # 10% of the rows repeat an earlier or later row
    X = X[order]
    w = np.zeros(d)
    w[rng.choice(d, 40, replace=False)] = 1.0
    y = np.where(X @ w > np.median(X @ w), 1, -1)
    y[rng.random(n) < 0.05] *= -1  # label noise: some duplicates disagree
    return sp.csr_matrix(X), y


@pytest.mark.parametrize("merging", ["input", "feature"])
def test_merge_search_work_is_bounded_on_sparse_high_dimensional_data(merging):
    """The pivot distance cache: each pivot that moves costs one O(d) (sparse: O(nnz)) row of
    distances, so the O(d) pair distances stay below B(B-1)/2 for the first search plus
    2B per replacement or merge, however often twins cross the boundary (before the cache,
    every twin whose neighbour moved or whose side flipped rescanned all B twins at O(d)
    each: ~20B per merge on Reuters and growing). The cache equals the brute-force
    distances, the remembered neighbours are the brute-force ones, and the model stays the
    exact SVM on the weighted twins."""
    X, y = sparse_text_stream()
    B = 20
    model = TwinVectorMachine(budget=B, C=100.0, gamma=0.5, merging=merging)
    for start in range(0, X.shape[0], 300):
        model.partial_fit(X[start : start + 300], y[start : start + 300], classes=[-1, 1])
        learner = model.learners_[0]
        m, tw, opts = learner.machine.m, learner.tw, learner.opts
        moves = model.n_replacements_ + model.n_merges_
        assert learner.counter(state.T_DIST) <= B * (B - 1) // 2 + 2 * B * moves
        assert model.n_twins_ == B
        Xt, yt, wt = weighted_twins(model)
        svc = SVC(C=model.C_, gamma=0.5, tol=1e-12).fit(Xt, yt, sample_weight=wt)
        dc = svc.dual_coef_[0]
        K = rbf_kernel(Xt[svc.support_], gamma=0.5)
        assert learner.machine.dual_objective() == pytest.approx(
            0.5 * dc @ K @ dc - np.abs(dc).sum(), rel=1e-6)
        assert model.kkt_violation_ < 1e-6
    assert model.n_merges_ > 600
    fq = np.array([tcore.twin_f(m, tw, j) for j in range(B)])
    side = np.where(fq > 0, 1, -1).astype(np.int64)
    tcore._update_neighbours(m, tw, opts, side, np.zeros(X.shape[1], np.int64))
    Q, W = learner.twins()
    if merging == "input":
        brute = ((Q[:, None, :] - Q[None, :, :]) ** 2).sum(axis=-1)
        np.testing.assert_allclose(tw[state.TW_DIST], brute, rtol=1e-9, atol=1e-12)
        who, best = naive.tvm_best_neighbours(Q, W, side)
        np.testing.assert_allclose(tw[state.TW_NEIGHBOUR_DIST][:B], best, rtol=1e-9)
    else:
        brute = 2.0 - 2.0 * rbf_kernel(Q, gamma=0.5)
        np.testing.assert_allclose(tw[state.TW_DIST], brute, rtol=1e-9, atol=1e-12)


def test_C_is_the_bound_of_each_original_example(stream):
    """Default (``scale_C=False``): C stays SVC's C, and the model is SVC on the weighted
    twins with that C (a twin of weight s has the bound s C, as s copies of its pivot)."""
    X, y = stream
    model = TwinVectorMachine(budget=20, C=3.0, gamma=GAMMA).fit(X[:1500], y[:1500])
    assert model.n_merges_ > 0 and model.C_ == 3.0
    Xt, yt, wt = weighted_twins(model)
    svc = SVC(C=3.0, gamma=GAMMA, tol=1e-12).fit(Xt, yt, sample_weight=wt)
    np.testing.assert_allclose(model.decision_function(X[:200]), svc.decision_function(X[:200]),
                               atol=1e-5)


def test_same_label_merging_keeps_every_twin_one_label():
    """With ``same_label_merging`` (and no Rejection, so no fallback to the paper's pairs) a
    twin only absorbs twins of its own majority label, and new twins hold one example: no
    twin ever holds both labels. Without it (the paper's rule) an imbalanced stream whose f
    is negative everywhere merges the minority into the majority's twins."""
    rng = np.random.default_rng(0)
    y = np.where(rng.random(3000) < 0.1, 1, -1)
    X = rng.normal(size=(3000, 2)) + 0.8 * y[:, None]
    pure = TwinVectorMachine(budget=20, gamma=0.5, rejection=False).fit(X, y)
    W = pure.twin_weights_
    assert pure.n_merges_ > 0 and np.all(W.min(axis=1) == 0)
    mixed = TwinVectorMachine(budget=20, gamma=0.5, rejection=False,
                              same_label_merging=False).fit(X, y)
    assert np.any(mixed.twin_weights_.min(axis=1) > 0)


def test_merging_goes_on_when_rejection_refuses_every_same_label_pair():
    """On the noisy checkerboard, label-pure twins at their bounds make f bumpy between
    them and Rejection refused every same-label pair after about 10,000 examples, so the
    model stopped learning; the fallback to the paper's pairs keeps it merging."""
    X, y = make_noisy_checkerboard(12_000, random_state=0, standardize=True)
    model = TwinVectorMachine(budget=100, C=100.0, gamma=GAMMA, scale_C=True)
    model.partial_fit(X[:10_000], y[:10_000], classes=[-1, 1])
    merges, rejections = model.n_merges_, model.n_rejections_
    model.partial_fit(X[10_000:], y[10_000:])
    assert model.n_merges_ - merges > 10 * (model.n_rejections_ - rejections)
