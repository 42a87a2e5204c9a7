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


def test_pegasos_fit_in_pieces_keeps_the_factors_of_its_first_rows():
    """``fit`` fixes the factors from its first 1,000 rows before learning, so learning them
    in pieces (``verbose``: 256 rows first) gives the very model of one call; a stream whose
    first chunk is smaller may fix others, which a fresh model's declaration says."""
    X, y = load_digits(return_X_y=True)
    quiet = Pegasos().fit(X, y)
    in_pieces = Pegasos(verbose=1).fit(X, y)
    assert quiet.learners_[0].col_scale is not None
    np.testing.assert_array_equal(in_pieces.decision_function(X), quiet.decision_function(X))
    np.testing.assert_array_equal(quiet.learners_[0].col_scale, first_chunk_scale(X))
    assert not Pegasos()._chunk_invariant and quiet._chunk_invariant
    assert not any("first_factors" in name for name in vars(quiet))  # nothing extra saved


def test_pegasos_classes_seen_later_take_the_first_chunks_factors():
    X, y = load_digits(return_X_y=True)
    model = Pegasos()
    first = np.isin(y, [0, 1, 2])
    model.partial_fit(X[first][:300], y[first][:300])
    model.partial_fit(X, y)  # seven more classes
    factors = model.learners_[0].col_scale
    assert len(model.learners_) == 10 and factors is not None
    np.testing.assert_array_equal(factors, first_chunk_scale(X[first][:300]))
    for learner in model.learners_:
        np.testing.assert_array_equal(learner.col_scale, factors)


def test_pegasos_on_scaled_rows_learns_the_same_in_any_chunking():
    """Where the first rows look scaled (no factors), a stream learnt row by row, in chunks
    or in one call gives one model (what the contract checks of chunk-invariant families,
    which a fresh Pegasos no longer declares itself)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + 0.3 * rng.normal(size=300) > 0).astype(int)
    assert first_chunk_scale(X) is None
    whole = Pegasos().partial_fit(X, y)
    by_chunks, by_rows = Pegasos(), Pegasos()
    for start in range(0, 300, 7):
        by_chunks.partial_fit(X[start:start + 7], y[start:start + 7], classes=[0, 1])
    for xi, yi in zip(X, y, strict=True):
        by_rows.learn_one(xi, yi)
    np.testing.assert_allclose(by_chunks.decision_function(X), whole.decision_function(X),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(by_rows.decision_function(X), whole.decision_function(X),
                               rtol=1e-12, atol=1e-12)
