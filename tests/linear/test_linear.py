"""Perceptron and Pegasos against the slow references of tests/naive.py."""

import numpy as np
import pytest
import scipy.sparse as sp

from streamsvm import Pegasos, Perceptron

from tests import naive


def linear_task(n=500, d=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1, -1)
    return X, y


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_perceptron_matches_reference(fit_intercept, sparse):
    X, y = linear_task()
    w, b, mistakes = naive.perceptron(X, y, fit_intercept)
    model = Perceptron(fit_intercept=fit_intercept, average=False)  # the last iterate
    model.fit(sp.csr_matrix(X) if sparse else X, y)
    np.testing.assert_allclose(model.coef_[0], w)
    assert model.intercept_[0] == pytest.approx(b)
    assert model.n_updates_ == mistakes


@pytest.mark.parametrize("k", [1, 7, 20])
@pytest.mark.parametrize("project", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_pegasos_matches_reference(k, project, sparse, fit_intercept):
    """The bias is the weight of a constant feature 1 (regularised with w): the reference
    runs on the rows with a column of ones appended."""
    X, y = linear_task(n=503)
    X = X + 0.5  # off the origin, so the bias matters
    lam = 1e-2
    rows = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
    w = naive.pegasos(rows, y, lam, k, project)
    model = Pegasos(alpha=lam, block_size=k, projection=project, average=False,
                    fit_intercept=fit_intercept).fit(sp.csr_matrix(X) if sparse else X, y)
    np.testing.assert_allclose(model.coef_[0], w[: X.shape[1]], rtol=1e-9, atol=1e-12)
    expected_bias = w[-1] if fit_intercept else 0.0
    assert model.intercept_[0] == pytest.approx(expected_bias, rel=1e-9, abs=1e-12)
    if fit_intercept:
        assert abs(expected_bias) > 1e-3


def test_pegasos_blocks_span_chunks():
    """Chunks of a size that is not a multiple of k give the same model as one call."""
    X, y = linear_task(n=400)
    whole = Pegasos(alpha=1e-3, block_size=20).partial_fit(X, y, classes=[-1, 1])
    chunked = Pegasos(alpha=1e-3, block_size=20)
    for start in range(0, 400, 33):
        chunked.partial_fit(X[start : start + 33], y[start : start + 33], classes=[-1, 1])
    np.testing.assert_allclose(chunked.coef_, whole.coef_)
    # 400 = 20 blocks: nothing pending; after finish the model is unchanged
    before = chunked.coef_.copy()
    np.testing.assert_allclose(chunked.finish().coef_, before)


def test_pegasos_projection_bounds_norm():
    X, y = linear_task(n=300)
    lam = 0.5
    model = Pegasos(alpha=lam, block_size=3).fit(X * 50, y)
    weights = np.append(model.coef_[0], model.intercept_[0])  # the bias is projected too
    assert np.linalg.norm(weights) <= 1 / np.sqrt(lam) + 1e-12


def test_pegasos_learns_a_separable_problem():
    X, y = linear_task(n=4000, seed=3)
    model = Pegasos(alpha=1e-4, block_size=1).fit(X, y)
    assert model.score(X, y) > 0.9


@pytest.mark.parametrize(
    "params, message",
    [
        ({"alpha": 0}, "parameter alpha="),
        ({"alpha": -1.0}, "parameter alpha="),
        ({"block_size": 0}, "parameter block_size="),
        ({"block_size": 2.5}, "parameter block_size="),
    ],
)
def test_pegasos_rejects_bad_parameters(params, message):
    X, y = linear_task(n=20)
    with pytest.raises(ValueError, match=message):
        Pegasos(**params).fit(X, y)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("make", [Perceptron, lambda: Pegasos(block_size=7)])
def test_refused_chunk_with_nan_in_its_last_row_leaves_the_model_bit_identical(make, sparse):
    """The check sees the whole chunk before the first update (Pegasos's pending rows too)."""
    import pickle

    X, y = linear_task(seed=4)
    X = sp.csr_matrix(X) if sparse else X
    model = make().partial_fit(X[:203], y[:203], classes=[-1, 1])
    before = pickle.dumps(model, protocol=5)
    bad = X[203:].toarray() if sparse else X[203:].copy()
    bad[-1, 3] = np.nan
    with pytest.raises(ValueError, match=r"NaN \(first at row 296\)"):
        model.partial_fit(sp.csr_matrix(bad) if sparse else bad, y[203:])
    assert pickle.dumps(model, protocol=5) == before


def test_pegasos_defaults_keep_the_minority_class_of_an_imbalanced_table():
    """Issue 18: with lambda = 1e-4 and no bias, Pegasos in a pipeline on scikit-learn's
    diabetes table (progression > 250, 15% positive, rows in file order) predicted against
    the minority (balanced accuracy 0.31); the defaults (1e-2, a bias) come within 0.05 of
    LinearSVC's."""
    from sklearn.datasets import load_diabetes
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    data = load_diabetes()
    X, y = data.data, np.where(data.target > 250, 1, -1)
    order = np.random.default_rng(0).permutation(len(y))
    test, train = np.sort(order[: len(y) * 3 // 10]), np.sort(order[len(y) * 3 // 10 :])

    def balanced(model):
        model = make_pipeline(StandardScaler(), model).fit(X[train], y[train])
        return balanced_accuracy_score(y[test], model.predict(X[test]))

    reference = balanced(LinearSVC())
    assert balanced(Pegasos()) >= reference - 0.05
    assert balanced(Pegasos(alpha=1e-4, fit_intercept=False, average=False)) <= 0.55  # old


@pytest.mark.parametrize("bad, message", [(np.nan, r"NaN \(first at row 296\)"),
                                          (-np.inf, r"infinity \(first at row 296\)"),
                                          (1e300, "row 296 of X is too large"),
                                          (1e60, "row 296 of X is too large")])
@pytest.mark.parametrize("make", [Perceptron, lambda: Pegasos(block_size=7), Pegasos])
def test_fit_checking_rows_in_its_loop_refuses_a_bad_last_row_and_keeps_the_model(
        make, bad, message):
    """``fit`` on a float64 array checks the rows inside the learners' loop (no separate
    pass): a bad last row, met after every other row is learnt, gives the error of the
    separate checks and leaves the fitted model (three classes: three learners) as it was."""
    import pickle

    X, y = linear_task(n=297, seed=5)
    y3 = np.where(X[:, 0] > 0.5, 2, y)
    model = make().fit(X, y3)
    before = pickle.dumps(model, protocol=5)
    bad_X = X.copy()
    bad_X[-1, 2] = bad
    with pytest.raises(ValueError, match=message):
        model.fit(bad_X, y3)
    assert pickle.dumps(model, protocol=5) == before
    with pytest.raises(ValueError, match=message):
        make().fit(bad_X, y3)


def test_the_loops_row_limit_is_the_estimators():
    from streamsvm.base import ROW_SQNORM_LIMIT

    assert ROW_SQNORM_LIMIT == Perceptron()._max_safe_sqnorm() == Pegasos()._max_safe_sqnorm()


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("make", [Perceptron, lambda **p: Pegasos(block_size=5, **p)])
def test_fit_checking_rows_in_its_loop_is_the_model_of_the_checked_path(make, fit_intercept):
    """The one-sweep ``fit`` (float64 C-contiguous input) and the separately checked one
    (the same rows as a Fortran-ordered array, converted first) learn the same model up to
    the summation order of a row's dot product."""
    X, y = linear_task(n=403, seed=6)
    fused = make(fit_intercept=fit_intercept).fit(X, y)
    checked = make(fit_intercept=fit_intercept).fit(np.asfortranarray(X), y)
    np.testing.assert_allclose(fused.coef_, checked.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fused.intercept_, checked.intercept_, rtol=1e-12, atol=1e-14)
    assert fused.n_updates_ == checked.n_updates_


def test_fit_refuses_a_bad_row_of_weight_zero():
    """A row left out by a zero weight is still checked (as by the separate checks)."""
    X, y = linear_task(n=50, seed=7)
    X[10, 1] = np.nan
    weights = np.ones(50)
    weights[10] = 0.0
    with pytest.raises(ValueError, match=r"NaN \(first at row 10\)"):
        Perceptron().fit(X, y, sample_weight=weights)
