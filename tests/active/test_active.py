"""Small-pool active learning, early stopping and the labelling oracle (Ertekin et al. 2007)."""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import SVC

from streamsvm import LASVM
from streamsvm.active import ActiveLearner, ActiveSVM, pool_size


def imbalanced(n=800, seed=0, ratio_cut=1.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] + 0.2 * rng.normal(size=n) > ratio_cut, 1, -1)
    return X, y


def separable(n=600, seed=1):
    """Two well-separated clouds, 1 in 8 positive."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.125, 1, -1)
    X = rng.normal(scale=0.6, size=(n, 2)) + np.where(y[:, None] > 0, 2.5, -2.5) * [1.0, 0.4]
    return X, y


# ---------------------------------------------------------------------- pool size
def test_pool_size_formula():
    assert pool_size(0.05, 0.05) == 59  # the paper's "59 trick"
    assert pool_size(0.5, 0.25) == 2  # (1/2)^2 = 1/4 exactly: no rounding up
    assert pool_size(0.5, 0.5) == 1
    for p in (0.01, 0.02, 0.05, 0.1, 0.3):
        for eta in (0.001, 0.01, 0.05, 0.2):
            L = pool_size(p, eta)
            # the smallest L whose best-of-L is in the top p with probability >= 1 - eta
            assert (1 - p) ** L <= eta * (1 + 1e-12)
            assert L == 1 or (1 - p) ** (L - 1) > eta
            assert abs(L - math.log(eta) / math.log(1 - p)) < 1 + 1e-9


@pytest.mark.parametrize("p, eta", [(0, 0.05), (1, 0.05), (0.05, 0), (0.05, 1.5),
                                    (float("nan"), 0.1), ("0.05", 0.05), (True, 0.05)])
def test_pool_size_rejects_bad_quantiles(p, eta):
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        pool_size(p, eta)


# ---------------------------------------------------------------------- selection
def _check_picks_are_closest(model_params, X, y, n_steps):
    """Drive the oracle interface and check every query against a from-scratch full search:
    the decision function of the current model over all unlabelled rows (computed through
    the model's own prediction path, not the kernel cache), smallest |f|, ties to the
    smaller row."""
    learner = ActiveLearner(X, classes=[-1, 1], model=ActiveSVM(**model_params))
    labelled = np.zeros(len(X), dtype=bool)
    picks = []
    for step in range(n_steps):
        query = learner.ask()
        assert query is not None
        if learner._learner.both_at >= 0:  # past the random start
            f = learner.model.decision_function(X)
            f[labelled] = np.inf
            a = np.abs(f)
            expected = int(np.flatnonzero(a <= a.min() + 1e-9)[0])
            assert query.index == expected, step
            assert query.score == pytest.approx(f[expected], abs=1e-9)
        labelled[query.index] = True
        picks.append(query.index)
        learner.tell(y[query.index])
    return picks


def test_full_search_takes_the_closest_example():
    X, y = imbalanced(300)
    _check_picks_are_closest(dict(pool_size="full", stopping=None, C=10.0, gamma=1.0,
                                  random_state=3), X, y, 120)


def test_pool_as_large_as_the_data_is_full_search():
    X, y = imbalanced(400)
    common = dict(stopping=None, C=10.0, gamma=1.0, random_state=5, max_labels=150)
    full = ActiveSVM(pool_size="full", **common).fit(X, y)
    small = ActiveSVM(pool_size=len(X), **common).fit(X, y)
    np.testing.assert_array_equal(full.queried_rows_, small.queried_rows_)
    np.testing.assert_allclose(full.decision_function(X), small.decision_function(X))
    # and a pool larger than what is left behaves the same
    larger = ActiveSVM(pool_size=10 * len(X), **common).fit(X, y)
    np.testing.assert_array_equal(full.queried_rows_, larger.queried_rows_)


@pytest.mark.filterwarnings("ignore:the kernel cache")  # small on purpose
@pytest.mark.parametrize("sparse", [False, True])
def test_candidate_scores_do_not_depend_on_the_cache(sparse):
    """The candidates are scored in blocks through the kernel cache, one block when it has a
    free slot per candidate, several when it has fewer, one at a time through scratch rows
    when it has (almost) none: the same queries and the same model every time."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(500, 12))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=500) > 1.0, 1, -1)
    if sparse:
        X[np.abs(X) < 0.8] = 0.0
        X = sp.csr_matrix(X)
    common = dict(pool_size=59, stopping=None, C=10.0, gamma=0.1, random_state=1,
                  max_labels=200)
    models = [ActiveSVM(cache_size=mb, **common).fit(X, y) for mb in (100.0, 0.5, 0.01)]
    for other in models[1:]:
        np.testing.assert_array_equal(models[0].queried_rows_, other.queried_rows_)
        np.testing.assert_array_equal(models[0].query_scores_, other.query_scores_)
        np.testing.assert_array_equal(models[0].decision_function(X), other.decision_function(X))


@pytest.mark.filterwarnings("ignore:the kernel cache")  # small on purpose
def test_s_grows_without_costing_the_cache_its_rows(monkeypatch):
    """When doubling S would leave the cache fewer slots than it has rows, the active learner
    drops the holes of S instead (if a 64th of it is holes) or grows S only as far as every
    row keeps its slot: other layouts of S, the same queries and model."""
    import streamsvm.active.learner as active_learner

    monkeypatch.setattr(active_learner, "_S_RESERVE", 8)  # S starts small and must grow
    X, y = imbalanced(700, seed=7, ratio_cut=0.8)
    common = dict(pool_size=20, stopping=None, C=100.0, gamma=2.0, random_state=0,
                  max_labels=300)
    roomy, partial, tight = (ActiveSVM(cache_size=mb, **common).fit(X, y)
                             for mb in (50.0, 1.0, 0.25))
    for other in (partial, tight):
        np.testing.assert_array_equal(roomy.queried_rows_, other.queried_rows_)
        np.testing.assert_array_equal(roomy.decision_function(X), other.decision_function(X))
    capacity = partial.learners_[0].perm.shape[0]
    assert capacity & (capacity - 1) != 0  # grown by eighths, not doubled
    # the tight cache took the compaction path: S got extra layouts (generations)
    assert tight.learners_[0].layout_meta[0] > roomy.learners_[0].layout_meta[0]


def test_a_cache_too_small_for_s_and_the_candidates_is_reported_once():
    """When the cache cannot hold the rows of S plus a block of candidates, every candidate's
    row is recomputed at every query: the learner says so once, with a size that would do,
    and that size silences it."""
    X, y = imbalanced(800, seed=2, ratio_cut=0.5)
    common = dict(pool_size=59, stopping=None, C=100.0, gamma=4.0, random_state=0,
                  max_labels=400)
    with pytest.warns(RuntimeWarning, match="kernel cache") as caught:
        small = ActiveSVM(cache_size=0.3, **common)
        for start in range(0, 800, 200):  # warned once, not once per chunk
            small.partial_fit(X[start:start + 200], y[start:start + 200], classes=[-1, 1])
    assert len([w for w in caught if "kernel cache" in str(w.message)]) == 1
    suggested = float(str(caught[0].message).rsplit(",", 1)[1].split()[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        roomy = ActiveSVM(cache_size=suggested, **common)
        for start in range(0, 800, 200):
            roomy.partial_fit(X[start:start + 200], y[start:start + 200], classes=[-1, 1])
    np.testing.assert_array_equal(small.queried_rows_, roomy.queried_rows_)


def test_small_pool_picks_the_closest_of_its_candidates_and_differs_from_full():
    X, y = imbalanced(600)
    common = dict(stopping=None, C=10.0, gamma=1.0, random_state=2, max_labels=100)
    full = ActiveSVM(pool_size="full", **common).fit(X, y)
    small = ActiveSVM(pool_size=5, **common).fit(X, y)
    assert not np.array_equal(full.queried_rows_, small.queried_rows_)
    assert len(set(small.queried_rows_.tolist())) == 100  # no example is asked twice


def test_random_sampling_is_pool_size_one():
    X, y = imbalanced(500)
    rs = ActiveSVM(pool_size=1, stopping=None, C=10.0, gamma=1.0, random_state=0).fit(X, y)
    assert rs.n_labels_ == len(X)
    assert sorted(rs.queried_rows_.tolist()) == list(range(len(X)))


def test_active_selection_balances_the_labels():
    """The margin is far less imbalanced than the data (Figure 3): the labels AL asks for
    hold a much larger share of positives than the data."""
    X, y = imbalanced(3000, ratio_cut=1.6)
    model = ActiveSVM(C=10.0, gamma=1.0, random_state=0).fit(X, y)
    asked = y[model.queried_rows_]
    assert np.mean(asked == 1) > 2 * np.mean(y == 1)
    assert model.support_vector_ratio_ < (y == -1).sum() / (y == 1).sum()


def test_fit_is_active_learning_with_the_labels_as_oracle():
    X, y = imbalanced(500)
    params = dict(C=10.0, gamma=1.0, pool_size=20, random_state=7)
    model = ActiveSVM(**params).fit(X, y)
    learner = ActiveLearner(X, classes=[-1, 1], model=ActiveSVM(**params))
    learner.run(lambda index, x: y[index])
    np.testing.assert_array_equal(model.queried_rows_, learner.queried_)
    np.testing.assert_allclose(model.decision_function(X), learner.decision_function(X))
    assert learner.stop_reason_ == model.stopped_by_ == "sv_count"


# ---------------------------------------------------------------------- early stopping
def test_margin_rule_fires_once_every_margin_example_is_taken():
    X, y = separable()
    svc = SVC(kernel="linear", C=1e4).fit(X, y)
    model = ActiveSVM(kernel="linear", C=1e4, pool_size="full", stopping="margin",
                      random_state=0).fit(X, y)
    assert model.stopped_by_ == "margin"
    taken = set(model.queried_rows_.tolist())
    assert set(svc.support_.tolist()) <= taken  # every margin example was asked for ...
    assert model.stopping_point_ == model.n_labels_ < len(X) // 4  # ... and few others
    # at the stop, no unlabelled example is inside the margin, and the model is the SVM
    rest = np.setdiff1d(np.arange(len(X)), model.queried_rows_)
    assert np.all(y[rest] * model.decision_function(X[rest]) >= 1 - 1e-2)
    np.testing.assert_allclose(model.decision_function(X), svc.decision_function(X),
                               atol=2e-2)


def test_margin_rule_does_not_fire_before_the_margin_is_exhausted():
    X, y = separable(seed=4)
    svc = SVC(kernel="linear", C=1e4).fit(X, y)
    margin = set(svc.support_.tolist())
    model = ActiveSVM(kernel="linear", C=1e4, pool_size="full", stopping=None,
                      random_state=1).fit(X, y)
    point = model.margin_rule_point_
    assert point is not None and model.n_labels_ == len(X)
    assert margin <= set(model.queried_rows_[:point].tolist())


def test_sv_count_rule_fires_on_saturation_and_records_it():
    X, y = separable(seed=2)
    window, tolerance = 30, 0.0
    model = ActiveSVM(kernel="linear", C=1e4, pool_size=59, window=window,
                      tolerance=tolerance, stopping=None, random_state=0).fit(X, y)
    point = model.sv_rule_point_
    assert point is not None and model.stopping_point_ is None
    counts = model.sv_history_.sum(axis=1)
    inside = model.query_in_margin_

    def holds(t):  # the rule after t labels: count flat, no query of the window in the margin
        return counts[t - 1] == counts[t - 1 - window] and not inside[t - window : t].any()

    assert holds(point)
    # it is the first such point after both classes had support vectors
    both = int(np.flatnonzero((model.sv_history_ > 0).all(axis=1))[0]) + 1
    assert not any(holds(t) for t in range(both + window, point))
    # in-margin flags agree with the scores: |y(x)| < 1 (the free SVs of this separable
    # problem lie on |y| = 1)
    scores = np.abs(model.query_scores_[both:])
    clear = np.abs(scores - 1) > 1e-6
    np.testing.assert_array_equal(inside[both:][clear], scores[clear] < 1)
    stopped = ActiveSVM(kernel="linear", C=1e4, pool_size=59, window=window,
                        tolerance=tolerance, random_state=0).fit(X, y)
    assert stopped.stopped_by_ == "sv_count"
    assert stopped.n_labels_ == stopped.stopping_point_ == point
    assert stopped.data_efficiency_ == pytest.approx(point / len(X))


def test_sv_count_rule_waits_for_the_margin_check():
    """A stall of the count while queries still land inside the margin is not saturation:
    with the margin check left out (margin_span=0) the rule fires no later, and the check
    over the whole window never fires while the window holds an in-margin query."""
    X, y = imbalanced(3000, ratio_cut=1.3)
    w = 30
    common = dict(C=10.0, gamma=1.0, stopping=None, window=w, random_state=0)
    plain = ActiveSVM(margin_span=0, **common).fit(X, y)
    checked = ActiveSVM(**common).fit(X, y)
    newest = ActiveSVM(margin_span=1, **common).fit(X, y)
    np.testing.assert_array_equal(plain.queried_rows_, checked.queried_rows_)
    assert plain.sv_rule_point_ <= newest.sv_rule_point_ <= checked.sv_rule_point_
    t = plain.sv_rule_point_
    assert checked.query_in_margin_[t - w : t].any()  # the stall the check rejects
    t = checked.sv_rule_point_
    assert t > plain.sv_rule_point_ and not checked.query_in_margin_[t - w : t].any()


def test_label_budget():
    X, y = imbalanced(400)
    model = ActiveSVM(C=10.0, gamma=1.0, stopping=None, max_labels=37, random_state=0)
    model.fit(X, y)
    assert model.n_labels_ == 37 and model.stopped_by_ == "budget"
    assert model.stopping_point_ is None


def test_partial_fit_selects_from_each_chunk():
    X, y = imbalanced(1200)
    model = ActiveSVM(C=10.0, gamma=1.0, window=20, random_state=0)
    for start in range(0, 1200, 400):
        model.partial_fit(X[start : start + 400], y[start : start + 400], classes=[-1, 1])
        rows = model.queried_rows_
        assert rows.max() < start + 400
    assert model.n_seen_ == 1200 and model.n_labels_ < 1200
    assert np.mean(model.predict(X) == y) > 0.9


def test_class_weight_balanced_raises_the_minority_cost():
    X, y = imbalanced(600, ratio_cut=1.6)
    model = ActiveSVM(C=2.0, gamma=1.0, class_weight="balanced", pool_size=1, stopping=None,
                      random_state=0).fit(X, y)
    learner = model.learners_[0]
    ratio = (y == -1).sum() / (y == 1).sum()
    assert learner.Cn == 2.0 and learner.Cp == pytest.approx(2.0 * ratio)
    assert np.abs(model.dual_coef_).max() > 2.0 + 1e-9  # positives use the larger box


# ---------------------------------------------------------------------- the oracle
def test_oracle_is_called_once_per_query_and_only_for_queries():
    X, y = imbalanced(700)
    calls = []
    learner = ActiveLearner(X, classes=[-1, 1], budget=80,
                            model=ActiveSVM(C=10.0, gamma=1.0, random_state=0))

    def oracle(index, x):
        assert learner._pending is not None and index == learner._pending.index
        np.testing.assert_array_equal(x, X[index])
        calls.append(index)
        return y[index]

    learner.run(oracle)
    assert learner.n_labels_ == len(calls) == len(set(calls))
    np.testing.assert_array_equal(learner.queried_, calls)
    assert learner.n_labels_ <= 80
    # the learner knows no label it did not ask for
    store = learner._learner.ys[: len(X)]
    asked = np.zeros(len(X), dtype=bool)
    asked[calls] = True
    assert np.all(store[~asked] == 0.0)


def test_budget_stops_the_oracle_exactly():
    X, y = imbalanced(500)
    calls = []
    learner = ActiveLearner(X, classes=[-1, 1], budget=25,
                            model=ActiveSVM(C=10.0, gamma=1.0, stopping=None, random_state=0))
    learner.run(lambda i, x: calls.append(i) or y[i])
    assert len(calls) == learner.n_labels_ == 25
    assert learner.stop_reason_ == "budget" and learner.ask() is None


def test_queries_iteration_matches_run():
    X, y = imbalanced(500)
    labels = np.where(y == 1, "rare", "common")
    params = dict(C=10.0, gamma=1.0, random_state=4)
    by_run = ActiveLearner(X, classes=["rare", "common"], model=ActiveSVM(**params))
    by_run.run(lambda i, x: labels[i])
    by_hand = ActiveLearner(X, classes=["rare", "common"], model=ActiveSVM(**params))
    seen = []
    for query in by_hand.queries():
        seen.append(query.y_pred)
        query.answer(labels[query.index])
    assert seen[0] is None and set(seen[1:]) <= {"rare", "common"}
    np.testing.assert_array_equal(by_run.queried_, by_hand.queried_)
    assert by_hand.model.classes_.tolist() == ["common", "rare"]
    assert np.mean(by_hand.predict(X) == labels) > 0.9


def test_streamed_file_pool(tmp_path):
    X, y = imbalanced(900)
    X = np.round(X, 6)
    path = tmp_path / "pool.svm"
    with open(path, "w") as f:
        for xi in X:
            f.write("0 " + " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(xi)) + "\n")
    asked = []
    learner = ActiveLearner(path, classes=[-1, 1], chunk_size=300, n_features=2,
                            model=ActiveSVM(C=10.0, gamma=1.0, window=20, random_state=0))
    learner.run(lambda i, x: asked.append(i) or y[i])
    assert len(asked) == len(set(asked)) == learner.n_labels_ < 900
    assert max(asked) >= 600  # the last chunk was reached
    assert learner.stop_reason_ in ("sv_count", "pool exhausted", "margin")
    assert np.mean(learner.predict(X) == y) > 0.9
    # chunks of a sparse matrix work too
    chunks = [sp.csr_matrix(X[a : a + 300]) for a in range(0, 900, 300)]
    sparse = ActiveLearner(chunks, classes=[-1, 1],
                           model=ActiveSVM(C=10.0, gamma=1.0, window=20, random_state=0))
    sparse.run(lambda i, x: y[i])
    np.testing.assert_array_equal(sparse.queried_, learner.queried_)


def test_oracle_bad_input():
    X, y = imbalanced(100)
    with pytest.raises(ValueError, match="two distinct labels"):
        ActiveLearner(X, classes=[1])
    with pytest.raises(ValueError, match="two distinct labels"):
        ActiveLearner(X, classes=[1, 1])
    with pytest.raises(TypeError, match="ActiveSVM"):
        ActiveLearner(X, classes=[-1, 1], model=LASVM())
    with pytest.raises(ValueError, match="budget"):
        ActiveLearner(X, classes=[-1, 1], budget=-1)
    with pytest.raises(ValueError, match="NaN"):
        ActiveLearner(np.where(X > 2, np.nan, X), classes=[-1, 1])
    with pytest.raises(TypeError, match="pool must be"):
        ActiveLearner(42, classes=[-1, 1])
    with pytest.raises(ValueError, match="pool_size"):
        ActiveLearner(X, classes=[-1, 1], model=ActiveSVM(pool_size=0))
    learner = ActiveLearner(X, classes=[-1, 1], model=ActiveSVM(random_state=0))
    with pytest.raises(RuntimeError, match="call ask"):
        learner.tell(1)
    with pytest.raises(TypeError, match="callable"):
        learner.run("oracle")
    query = learner.ask()
    assert learner.ask() is query  # asking again returns the pending query
    with pytest.raises(ValueError, match="not one of the classes"):
        learner.tell(3)
    with pytest.raises(ValueError, match="not one of the classes"):
        learner.tell([1, -1])
    assert learner.n_labels_ == 0 and learner.ask() is query  # nothing changed
    query.answer(y[query.index])
    with pytest.raises(RuntimeError, match="not the pending query"):
        query.answer(y[query.index])
    assert learner.n_labels_ == 1


@pytest.mark.parametrize("params, message", [
    ({"pool_size": 0}, "parameter pool_size="),
    ({"pool_size": "half"}, "parameter pool_size="),
    ({"stopping": "never"}, "parameter stopping="),
    ({"window": 0}, "parameter window="),
    ({"tolerance": -0.1}, "parameter tolerance="),
    ({"max_labels": -1}, "parameter max_labels="),
    ({"class_weight": "auto"}, "parameter class_weight="),
    ({"class_weight": {1: -2.0}}, "parameter class_weight="),
    ({"kernel": lambda a, b: a @ b.T}, "parameter kernel="),
])
def test_estimator_rejects_bad_parameters(params, message):
    X, y = imbalanced(100)
    with pytest.raises(ValueError, match=message):
        ActiveSVM(**params).fit(X, y)


def test_every_array_over_the_expansion_grows_together_on_the_oracle_path():
    """The compiled code indexes S's per-member arrays without bounds checks: when S outgrows
    its first capacity before the cache exists, all of them (the reorder log included) must
    grow, or reorders write out of bounds and the model silently goes wrong."""
    from streamsvm.active import ActiveLearner

    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=4000) > 1.6, 1, -1)
    learner = ActiveLearner(X, classes=[-1, 1], budget=1200,
                            model=ActiveSVM(C=10.0, gamma=1.0, random_state=0,
                                            stopping=None))
    learner.run(lambda index, x: y[index])
    (inner,) = learner.model.learners_
    capacity = inner.perm.shape[0]
    assert capacity > 512  # S grew past the reserve it was given up front
    assert {inner.alpha.shape[0], inner.g.shape[0], inner.lo.shape[0], inner.hi.shape[0],
            inner.layout_log.shape[1], inner.scratch.shape[1]} == {capacity}
    reference = SVC(C=10.0, gamma=1.0).fit(X[learner.model.queried_rows_],
                                           y[learner.model.queried_rows_])
    agreement = np.mean(learner.predict(X) == reference.predict(X))
    assert agreement > 0.99
