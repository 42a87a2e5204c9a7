"""``n_jobs`` (``streamsvm.utils.threads``): the thread count of the compiled loops is set per call
and put back, BLAS is held at one thread meanwhile, and every parallel loop gives the very
same bits as one thread: the kernel rows (``kernels._core``, LASVM's ``kernel_row``), LASVM's
gradient steps and batch decisions (``lasvm/_parallel_core.py``), and whole fitted models."""

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit, prange
from threadpoolctl import threadpool_info

from streamsvm.active import ActiveSVM
from streamsvm.budget import IncrementalSVM, TwinVectorMachine
from streamsvm.kernels._core import (
    LINEAR,
    POLY,
    RBF,
    SIGMOID,
    _kernel_row_dense_blocks,
    _kernel_row_dense_serial,
    kernel_row_dense,
    parallel_worth,
    sqnorms_dense,
)
from streamsvm.lasvm import LASVM, LASVMG
from streamsvm.lasvm import _expansion_core as expansion
from streamsvm.lasvm import _lasvm_core as core
from streamsvm.lasvm import _parallel_core as par
from streamsvm.meb.blurred import BlurredBallSVM
from streamsvm.meb.streamsvm import StreamSVM
from streamsvm.registry import available_estimators
from streamsvm.utils.threads import (
    available_threads,
    compiled_threads,
    effective_n_jobs,
    fetch_add,
    for_each,
    threads_now,
)

CORES = available_threads()
N_JOBS = [2, -1]  # compared with n_jobs=1


@njit(cache=True)
def _threads_inside():
    return threads_now()


@njit(parallel=True)
def _take_all(counter, n, threads, taken, by):
    for t in prange(threads):
        while True:
            i = fetch_add(counter, np.int64(1))
            if i >= n:
                break
            taken[i] += 1
            by[t] += 1


def test_effective_n_jobs_follows_scikit_learn():
    assert effective_n_jobs(None) == 1
    assert effective_n_jobs(1) == 1
    assert effective_n_jobs(-1) == CORES
    assert effective_n_jobs(-2) == max(1, CORES - 1)
    assert effective_n_jobs(-10 * CORES) == 1
    assert effective_n_jobs(10 * CORES) == CORES
    with pytest.raises(ValueError, match="n_jobs=0"):
        effective_n_jobs(0)


def test_compiled_threads_sets_and_restores_the_count():
    before = numba.get_num_threads()
    for n_jobs, expected in ((None, 1), (1, 1), (-1, CORES), (2, min(2, CORES))):
        with compiled_threads(n_jobs) as threads:
            assert threads == expected
            assert numba.get_num_threads() == expected
            assert _threads_inside() == expected  # what the compiled loops see
        assert numba.get_num_threads() == before
    with pytest.raises(RuntimeError), compiled_threads(2):
        raise RuntimeError
    assert numba.get_num_threads() == before


def test_for_each_runs_learners_side_by_side_and_raises_their_error():
    import threading

    ran = {}
    barrier = threading.Barrier(2, timeout=60)

    def job(item):  # both must be running at once to pass the barrier
        blas = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
        ran[item] = (threading.get_ident(), numba.get_num_threads(), blas)
        barrier.wait()

    if CORES > 1 and numba.threading_layer() in ("omp", "tbb"):
        for_each(job, ["a", "b"], 2)
        assert ran["a"][0] != ran["b"][0]
        assert ran["a"][1] == ran["b"][1] == 1  # each its share of the two threads
        assert set(ran["a"][2]) <= {1}  # and BLAS at one thread meanwhile
    seen = []
    for_each(seen.append, [1, 2, 3], None)  # one thread: in order, on the caller's thread
    assert seen == [1, 2, 3]

    def fail(item):
        if item == 2:
            raise KeyError(item)

    with pytest.raises(KeyError):
        for_each(fail, [1, 2, 3], 2)


def test_fetch_add_hands_out_each_number_once():
    """Threads that take work from one shared count (``fetch_add``) take every item exactly
    once between them, however they interleave."""
    n, threads = 200_000, max(2, CORES)
    for _ in range(3):
        counter = np.zeros(1, dtype=np.int64)
        taken = np.zeros(n, dtype=np.int64)
        by = np.zeros(threads, dtype=np.int64)
        with compiled_threads(-1):
            _take_all(counter, n, threads, taken, by)
        assert (taken == 1).all()
        assert by.sum() == n
        assert counter[0] == n + threads  # each thread's last take found nothing left


def test_kernel_estimators_declare_n_jobs():
    """Every kernel estimator takes n_jobs except the fixed-budget baselines (rows of at most
    ``budget`` values: never worth a thread) and DistributedL2SVM (its sites are its
    parallelism)."""
    without = {"Perceptron", "Pegasos", "RandomBudgetSVM", "Forgetron", "BudgetPerceptron",
               "DistributedL2SVM"}
    for name, cls in available_estimators().items():
        params = cls().get_params()
        assert ("n_jobs" in params) == (name not in without), name
        if name not in without:
            assert params["n_jobs"] is None
            assert "n_jobs" in cls._parameter_constraints


# ------------------------------------------------------------------ the compiled loops
@pytest.mark.parametrize("code", [LINEAR, RBF, POLY, SIGMOID])
def test_kernel_row_in_blocks_is_bit_identical(code):
    rng = np.random.default_rng(code)
    block = rng.normal(size=(3000, 40)) / 6
    x = rng.normal(size=40) / 6
    sq = sqnorms_dense(block, np.empty(3000))
    xsq = float(x @ x)
    serial = np.empty(3000)
    blocks = np.empty(3000)
    _kernel_row_dense_serial(x, xsq, block, sq, code, 0.3, 3, 0.5, serial)
    with compiled_threads(2):
        assert parallel_worth(3000, 40) == (CORES > 1)
        _kernel_row_dense_blocks(x, xsq, block, sq, code, 0.3, 3, 0.5, blocks)
        dispatched = kernel_row_dense(x, xsq, block, sq, code, 0.3, 3, 0.5, np.empty(3000))
    assert serial.tobytes() == blocks.tobytes() == dispatched.tobytes()
    if code == RBF:  # and the values are the kernel's
        np.testing.assert_allclose(serial, np.exp(-0.3 * ((block - x) ** 2).sum(axis=1)),
                                   rtol=1e-12)


def test_gradient_step_in_blocks_is_bit_identical():
    rng = np.random.default_rng(1)
    n = par.GRADIENT_MIN_PARALLEL + 1000
    g, ri, rj = rng.normal(size=(3, n))
    expected = g - 0.37 * (ri - rj)
    for n_jobs in (1, 2):
        got = g.copy()
        with compiled_threads(n_jobs):
            par.gradient_step(got, 0.37, ri, rj, n)
        assert got.tobytes() == expected.tobytes()


def _tied_gradients(rng, n):
    """Gradients of S made of near ties (differences below ``TIE`` = 1e-12 that add up past
    it), at random positions eligible for one side, both or none."""
    g = 1.0 + 0.6e-12 * rng.integers(0, 6, n)
    if rng.random() < 0.5:  # a slow ramp: the one-thread search climbs it in jumps of ~TIE
        g = 1.0 + 0.6e-12 * np.cumsum(rng.integers(0, 2, n)) + 0.1e-12 * rng.integers(0, 2, n)
    if rng.random() < 0.5:
        g = g[::-1].copy()
    alpha = rng.choice([0.0, 0.5, 1.0], n)  # box [0, 1]: up-eligible below 1, down above 0
    return g, alpha


def _expansion(alpha, g):
    """The ``svs`` tuple of a learner (``_expansion_core``) with boxes [0, 1]."""
    n = g.shape[0]
    return (np.arange(n), alpha, g, np.zeros(n), np.ones(n),
            np.zeros((expansion.N_GENERATIONS, n), dtype=np.int32),
            np.zeros(1 + 2 * expansion.N_GENERATIONS, dtype=np.int64), np.zeros((0, n)))


def _naive_pair(g, alpha, n):
    """Per-block winners of the one-thread rule compared in block order by the same rule:
    the shortcut the exact combination replaces (it differs on near ties)."""
    i, gmax = -1, -np.inf
    for start in range(0, n, par.SEARCH_SUB):
        stop = min(start + par.SEARCH_SUB, n)
        svs = _expansion(alpha[start:stop], g[start:stop])
        with compiled_threads(1):
            bi, bmax, _, _ = core.extremes(stop - start, svs)
        if bi >= 0 and bmax > gmax + core.TIE:
            i, gmax = start + bi, bmax
    return i


def _rule(g, alpha, lo, hi, a, z, tie):
    """The pair search's rule met position by position (plain Python floats: the same
    sums and tests as the compiled loop)."""
    i, gmax, j, gmin = -1, -np.inf, -1, np.inf
    for s in range(a, z):
        if alpha[s] < hi[s] and g[s] > gmax + tie:
            i, gmax = s, g[s]
        if alpha[s] > lo[s] and g[s] < gmin - tie:
            j, gmin = s, g[s]
    return i, gmax, j, gmin


def test_chunked_scan_is_the_position_by_position_rule():
    """``scan_extremes`` passes over chunks of ``SCAN_CHUNK`` positions in one test: the same
    pair as meeting every position, on near ties and plain gradients, any start and end."""
    rng = np.random.default_rng(5)
    for trial in range(60):
        n = int(rng.integers(1, 600))
        g, alpha = _tied_gradients(rng, n)
        if trial % 3 == 0:
            g = rng.normal(size=n)
        lo, hi = np.zeros(n), np.ones(n)
        a = int(rng.integers(0, n))
        z = int(rng.integers(a, n + 1))
        got = par.scan_extremes(a, z, alpha, g, lo, hi, core.TIE)
        assert got == _rule(g, alpha, lo, hi, a, z, core.TIE), trial


def test_pair_search_in_blocks_is_the_one_thread_search():
    """The exact combination of sub-block summaries (``_parallel_core`` docstring) picks the
    one-thread pair on near ties, where comparing per-block winners does not."""
    rng = np.random.default_rng(3)
    naive_differs = 0
    for trial in range(70):
        # sizes where these ties defeat the naive combination (a few times in 60), then sizes
        # past SEARCH_MIN_PARALLEL, where extremes() itself dispatches to the blocks
        low = 4096 if trial < 60 else par.SEARCH_MIN_PARALLEL
        n = int(rng.integers(low, 3 * low))
        g, alpha = _tied_gradients(rng, n)
        svs = _expansion(alpha, g)
        with compiled_threads(1):
            assert not par.search_worth(n)
            expected = core.extremes(n, svs)
        with compiled_threads(2):
            assert par.search_worth(n) == (CORES > 1 and n >= par.SEARCH_MIN_PARALLEL)
            blocks = par.search_in_blocks(n, svs, core.TIE)  # on the threads even if one core
            dispatched = core.extremes(n, svs)
            row = np.linspace(-1.0, 1.0, n) / 3  # PROCESS's sum beside the search
            f, *beside = par.dot_beside_search(n, row, svs, core.TIE, 2)
        assert blocks == expected == dispatched == tuple(beside), trial
        assert f == np.cumsum(alpha * row)[-1]  # summed in position order (add.accumulate)
        naive_differs += _naive_pair(g, alpha, n) != expected[0]
    assert naive_differs > 0  # the ties are hard enough to matter


def test_update_and_search_in_one_region_is_bit_identical():
    rng = np.random.default_rng(4)
    n = 3 * par.SEARCH_MIN_PARALLEL + 17
    g, alpha = _tied_gradients(rng, n)
    ri, rj = rng.normal(size=(2, n)) * 1e-13  # an update that moves gradients across ties
    lo, hi = np.zeros(n), np.ones(n)
    expected_g = g - 0.37 * (ri - rj)
    with compiled_threads(1):
        expected = core.extremes(n, _expansion(alpha, expected_g))
    got_g = g.copy()
    with compiled_threads(2):
        got = par.update_and_search(got_g, 0.37, ri, rj, True, n, alpha, lo, hi, core.TIE)
    assert got_g.tobytes() == expected_g.tobytes()
    assert got == expected


def test_second_order_partner_in_blocks_is_the_first_largest_gain():
    """The finishing step's partner (Fan, Chen & Lin 2005) on several threads: the earliest
    position of the largest gain, as the one-thread loop takes it, on gains with ties."""
    rng = np.random.default_rng(6)
    n = 3 * par.SEARCH_MIN_PARALLEL + 5
    for _ in range(5):
        g = rng.integers(0, 4, n) * 0.25  # few distinct values: equal gains in many blocks
        ri = rng.integers(0, 3, n) * 0.25
        kd = np.ones(n)
        alpha = rng.choice([0.0, 0.5], n)
        lo = np.zeros(n)
        gi, kii = 1.0, 1.0
        curvature = np.maximum(kii + kd - 2.0 * ri, core.CURVATURE_FLOOR)
        gain = np.where((alpha > lo) & (gi - g > 0), (gi - g) ** 2 / curvature, 0.0)
        expected = int(np.argmax(gain)) if gain.max() > 0 else -1
        with compiled_threads(2):
            got = par.partner_in_blocks(gi, kii, n, ri, kd, np.arange(n), alpha, g, lo,
                                        core.CURVATURE_FLOOR)
        assert got == expected
        assert (gain == gain.max()).sum() > 1  # ties: the earliest must win


def test_decisions_in_blocks_are_bit_identical():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(1200, 30)) / 5
    SV = rng.normal(size=(300, 30)) / 5
    coef = rng.normal(size=300)
    X_sq, SV_sq = (X * X).sum(axis=1), (SV * SV).sum(axis=1)
    args = (coef, 0.25, RBF, 0.5, 3, 0.0)
    out = {}
    for n_jobs in (1, 2):
        with compiled_threads(n_jobs):
            out[n_jobs, "dense"] = par.decision_rows_dense(X, X_sq, SV, SV_sq, *args,
                                                           np.empty(1200))
            Xc, by_feature = sp.csr_matrix(X), sp.csc_matrix(SV)  # support vectors by feature
            out[n_jobs, "csr"] = par.decision_rows_csr(
                Xc.indptr, Xc.indices, Xc.data, X_sq, by_feature.indptr.astype(np.int64),
                by_feature.indices.astype(np.int64), by_feature.data, SV_sq, *args,
                np.empty(1200))
    reference = np.exp(-0.5 * ((X[:, None, :] - SV[None]) ** 2).sum(axis=2)) @ coef + 0.25
    for layout in ("dense", "csr"):
        assert out[1, layout].tobytes() == out[2, layout].tobytes()
        np.testing.assert_allclose(out[1, layout], reference, rtol=1e-10, atol=1e-10)


# ------------------------------------------------------------------ whole models
def _problem(n=900, d=120, seed=0):
    """Noisy labels: most rows become members of S, so its kernel rows reach the threshold."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) / np.sqrt(d) > 0, 1, -1)
    y[: n // 3] = np.where(np.arange(n // 3) % 3 == 0, 2, y[: n // 3])  # three classes
    return X, y


def assert_same_model(make, X, y, n_jobs, X_test):
    one = make(n_jobs=None).fit(X, y)
    many = make(n_jobs=n_jobs).fit(X, y)
    for attribute in ("support_vectors_", "dual_coef_", "intercept_"):
        ours, theirs = getattr(one, attribute), getattr(many, attribute)
        if sp.issparse(ours):
            ours, theirs = ours.toarray(), theirs.toarray()
        assert ours.shape == theirs.shape and ours.tobytes() == theirs.tobytes(), attribute
    np.testing.assert_allclose(many.decision_function(X_test), one.decision_function(X_test),
                               rtol=0, atol=1e-9)
    return one


MODELS = {
    "LASVM": lambda **kw: LASVM(C=10.0, gamma=1.0, **kw),
    "LASVM-sparse": lambda **kw: LASVM(C=10.0, gamma=1.0, **kw),
    "LASVMG": lambda **kw: LASVMG(C=10.0, gamma=1.0, **kw),
    "IncrementalSVM": lambda **kw: IncrementalSVM(C=10.0, gamma=1.0, **kw),
    "ActiveSVM": lambda **kw: ActiveSVM(C=10.0, gamma=1.0, random_state=0, **kw),
}


@pytest.mark.parametrize("n_jobs", N_JOBS)
@pytest.mark.parametrize("name", list(MODELS))
def test_models_are_identical_for_every_n_jobs(name, n_jobs):
    # IncrementalSVM's rows run over every example seen: fewer, wider rows reach the threshold
    n, d = (400, 250) if name == "IncrementalSVM" else (900, 120)
    X, y = _problem(n=n, d=d)
    X_test = _problem(n=300, d=d, seed=1)[0]
    if name == "LASVM-sparse":
        X[np.abs(X) < 0.02] = 0.0
        X, X_test = sp.csr_matrix(X), sp.csr_matrix(X_test)
    one = assert_same_model(MODELS[name], X, y, n_jobs, X_test)
    if CORES > 1 and name != "ActiveSVM":  # the parallel kernel rows were used
        rows = n if name == "IncrementalSVM" else int(one.n_support_.max())
        width = X.nnz // X.shape[0] if sp.issparse(X) else d
        with compiled_threads(2):
            assert parallel_worth(rows, width)


def test_lasvm_with_a_large_expansion_is_identical_for_every_n_jobs():
    """S beyond ``SEARCH_MIN_PARALLEL``: the pair searches, the fused update-and-search and
    the removals of blatant non-support vectors run in blocks, and the model is the same."""
    n = par.SEARCH_MIN_PARALLEL * 5 // 4  # noise labels: most rows join S
    X = _problem(n=n, d=10)[0]
    X_test = _problem(n=300, d=10, seed=1)[0]
    y = np.where(np.random.default_rng(5).random(n) < 0.5, 1, -1)  # labels of noise: S
    one = assert_same_model(lambda **kw: LASVM(C=10.0, gamma=1.0, **kw), X, y, 2, X_test)
    learner = one.learners_[0]
    assert learner.cnt[expansion.N_COLS] >= par.SEARCH_MIN_PARALLEL
    assert learner.cnt[expansion.N_REMOVED] > 0
    with compiled_threads(2):
        assert par.search_worth(int(learner.cnt[expansion.N_COLS])) == (CORES > 1)


@pytest.mark.parametrize("layout", ["dense", "panel", "csr"])
def test_rows_beside_the_steps_give_the_one_thread_model(layout):
    """With several threads LASVM's online epoch computes the next kernel rows beside the
    steps (``_beside_core``): learnt in chunks of uneven size, through compactions of S (noise
    labels: many removals) and with S outgrowing a small cache, the expansion, coefficients,
    gradients, decisions and counters are those of one thread, bit for bit."""
    # dense data of more than 64 features has no panel: dot products four rows at a time
    d = {"dense": 80, "panel": 8, "csr": 60}[layout]
    n = 1_500
    X = _problem(n=n, d=d)[0]
    y = np.where(X[:, 0] > 0, 1, -1)
    y[np.random.default_rng(3).random(n) < 0.1] *= -1  # a tenth flipped: many removals
    if layout == "csr":
        X[np.abs(X) < 0.1] = 0.0
        X = sp.csr_matrix(X)
    X_test = X[:200]
    cuts = [0, 300, 310, 900, n]

    def learn(n_jobs, cache_size):
        model = LASVM(C=1.0, gamma=1.0, n_jobs=n_jobs, cache_size=cache_size,
                      finishing=False)
        for a, b in zip(cuts[:-1], cuts[1:], strict=True):
            model.partial_fit(X[a:b], y[a:b], classes=[-1, 1])
        return model, model.learners_[0]

    for cache_size in (100.0, 2.0):  # every row cached; S beyond the cache
        one, first = learn(None, cache_size)
        many, second = learn(2, cache_size)
        assert second.cnt[expansion.N_COLS] > 2 * expansion.PREFETCH
        for part in (expansion.SV_PERM, expansion.SV_ALPHA, expansion.SV_G):
            assert first._svs()[part].tobytes() == second._svs()[part].tobytes(), part
        # the same kernel values computed, the same cache hits and misses: the cache was
        # used as on one thread
        assert np.array_equal(first.cnt, second.cnt)
        assert (first.cache.hits, first.cache.misses) == (second.cache.hits, second.cache.misses)
        assert one.decision_function(X_test).tobytes() == many.decision_function(X_test).tobytes()
        assert second._svs()[expansion.SV_GMETA][0] > 0  # S was compacted on the way
        assert first.regions_beside == 0
        assert (second.regions_beside > 0) == (CORES > 1)


@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_prefetch_and_fused_pair_steps_with_s_beyond_the_cache(layout):
    """S outgrows a small kernel cache: the prefetched rows of the next examples are pinned
    until their examples join S (dense and CSR blocks), and the pair steps take one parallel
    region for both rows, the update and the search (|S| >= ``FUSED_MIN_PARALLEL``). The model
    is the one of a cache that holds every row, on one thread and on two, bit for bit, and no
    row is left pinned for an example outside S."""
    n = core.FUSED_MIN_PARALLEL * 9 // 4  # noise labels: most rows join S
    X = _problem(n=n, d=40)[0]
    y = np.where(np.random.default_rng(7).random(n) < 0.5, 1, -1)  # labels of noise: S
    if layout == "csr":
        X[np.abs(X) < 0.1] = 0.0
        X = sp.csr_matrix(X)

    def fit(n_jobs, cache_size):
        model = LASVM(C=10.0, gamma=1.0, n_jobs=n_jobs, cache_size=cache_size,
                      finishing=False).fit(X, y)
        return model, model.learners_[0]

    reference, _ = fit(None, 100.0)
    for n_jobs in (None, 2):
        model, learner = fit(n_jobs, 3.0 * n / 2304)  # ~160 rows, fewer than S
        rows, _, id_meta, _ = learner.cache.state
        assert 8 * expansion.PREFETCH <= rows.shape[0] < learner.cnt[expansion.N_LIVE]
        for attribute in ("support_", "dual_coef_", "intercept_"):
            assert (getattr(model, attribute).tobytes()
                    == getattr(reference, attribute).tobytes()), (n_jobs, attribute)
        members = learner.pos_of[: learner.n_store] >= 0
        pinned = id_meta[: learner.n_store, 1] == 1
        assert np.array_equal(pinned, members)
    assert learner.cnt[expansion.N_COLS] >= core.FUSED_MIN_PARALLEL


ONE_VS_REST = {
    "TwinVectorMachine": lambda **kw: TwinVectorMachine(budget=40, gamma=1.0, **kw),
    "BlurredBallSVM": lambda **kw: BlurredBallSVM(kernel="rbf", gamma=1.0, C=10.0, **kw),
    "StreamSVM": lambda **kw: StreamSVM(kernel="rbf", gamma=1.0, **kw),
}


@pytest.mark.parametrize("name", list(ONE_VS_REST))
def test_one_vs_rest_side_by_side_gives_the_same_decisions(name):
    """Learners whose compiled loops hold the GIL run one after the other (side by side they
    would only queue for it), with their kernel rows on the threads: the same model, learnt in
    chunks, and the same decisions (BLAS keeps its threads: NumPy's products, which the Blurred
    Ball SVM's decisions use, give other bits with another BLAS thread count)."""
    X, y = _problem(n=300, d=20)
    X_test = _problem(n=100, d=20, seed=1)[0]
    decisions = []
    for n_jobs in (None, 2):
        model = ONE_VS_REST[name](n_jobs=n_jobs)
        for part in np.array_split(np.arange(300), 3):
            model.partial_fit(X[part], y[part], classes=[-1, 1, 2])
        decisions.append(model.decision_function(X_test))
    assert decisions[0].shape == (100, 3)
    assert decisions[0].tobytes() == decisions[1].tobytes()
