"""Unscaled rows: the first chunk's column factors (``first_chunk_scale``) of Pegasos and
linear StreamSVM, against SGDClassifier at its defaults (one pass, the same order) and
against the model learnt on rows scaled beforehand."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.linear_model import SGDClassifier

import streamsvm
from streamsvm import Pegasos, StreamSVM
from streamsvm.linear._common import first_chunk_scale


def _split(X, y):
    order = np.random.default_rng(0).permutation(len(y))
    n = int(round(0.3 * len(y)))
    test, train = np.sort(order[:n]), np.sort(order[n:])
    return X[train], y[train], X[test], y[test]


def _sgd_one_pass(X, y, Xt, yt):
    return SGDClassifier(random_state=0).partial_fit(X, y, classes=np.unique(y)).score(Xt, yt)


@pytest.mark.filterwarnings("ignore::streamsvm.CollapseWarning")
def test_pegasos_on_raw_breast_cancer_is_within_two_points_of_sgd():
    data = load_breast_cancer()
    X, y, Xt, yt = _split(data.data, data.target)
    sgd = _sgd_one_pass(X, y, Xt, yt)
    model = Pegasos().fit(X, y)
    assert model.learners_[0].col_scale is not None
    assert model.score(Xt, yt) >= sgd - 0.02  # 0.906 against 0.860 (0.637 unscaled)


def test_streamsvm_on_raw_digits_is_within_two_points_of_sgd():
    data = load_digits()
    X, y, Xt, yt = _split(data.data, data.target)
    sgd = _sgd_one_pass(X, y, Xt, yt)
    model = StreamSVM().fit(X, y)
    assert model.scale_ is not None
    assert model.score(Xt, yt) >= sgd - 0.02  # 0.904 against 0.907 (0.818 unscaled)


def test_the_factors_are_those_of_rows_scaled_beforehand():
    """A model on raw rows equals the same model on rows divided by the first 1,000 rows'
    column maxima; its coef_ and decision values are those of the raw rows."""
    data = load_breast_cancer()
    X, y = data.data, data.target
    factors = 1.0 / np.abs(X[:1000]).max(axis=0)
    raw = Pegasos(block_size=3).fit(X, y)
    scaled = Pegasos(block_size=3).fit(X * factors, y)
    assert scaled.learners_[0].col_scale is None  # scaled rows look scaled
    np.testing.assert_allclose(raw.learners_[0].col_scale, factors, rtol=0, atol=0)
    np.testing.assert_allclose(raw.coef_, scaled.coef_ * factors, rtol=1e-12)
    np.testing.assert_allclose(raw.decision_function(X), scaled.decision_function(X * factors),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(raw.decision_function(X), X @ raw.coef_[0] + raw.intercept_[0],
                               rtol=1e-9, atol=1e-12)
    sparse = Pegasos(block_size=3).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, raw.coef_, rtol=1e-9)


@pytest.mark.parametrize("make", [
    lambda rng: rng.normal(size=(500, 20)),  # standardised
    lambda rng: (rng.random((500, 120)) < 0.1).astype(float),  # binary, sparse-like
    lambda rng: rng.uniform(-1, 1, size=(500, 22)),  # ijcnn1-like, in [-1, 1]
])
def test_scaled_rows_are_left_as_given(make):
    X = make(np.random.default_rng(0))
    assert first_chunk_scale(X) is None
    assert first_chunk_scale(sp.csr_matrix(X)) is None
    y = np.where(X[:, 0] > X[:, 1], 1, -1)
    assert Pegasos().fit(X, y).learners_[0].col_scale is None
    assert StreamSVM().fit(X, y).scale_ is None


def test_factors_are_saved_and_loaded(tmp_path):
    data = load_digits()
    X, y = data.data, data.target
    for model in (Pegasos().fit(X, y), StreamSVM().fit(X, y)):
        streamsvm.save(model, tmp_path / "m.zip")
        loaded = streamsvm.load(tmp_path / "m.zip")
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
        np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
        loaded.partial_fit(X[:100], y[:100])  # continues on the same factors
        before = getattr(model, "scale_", None)
        after = getattr(loaded, "scale_", None)
        if isinstance(model, Pegasos):
            before, after = model.learners_[0].col_scale, loaded.learners_[0].col_scale
        assert before is not None
        np.testing.assert_array_equal(after, before)
