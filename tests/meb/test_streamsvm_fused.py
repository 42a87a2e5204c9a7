"""StreamSVM's linear Algorithm 1 maps rows (centre, bias feature, unit norm) inside its
compiled loop, dense and CSR: the model must be the one learnt from rows mapped beforehand,
and a refused chunk must leave it bit-identical."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from streamsvm import StreamSVM
from streamsvm.datasets import make_synthetic_c
from streamsvm.meb.streamsvm import _StreamSVMLearner, map_rows

from tests import naive


def _stream(seed=8, n=400):
    X, y = make_synthetic_c(n, random_state=seed)
    rng = np.random.default_rng(seed)
    X = (X + 3.0) * (rng.random(X.shape) < 0.6)  # some zeros, so that CSR rows differ
    return X, y


def _learnt_in_chunks(model, X, y, size=150):
    for start in range(0, X.shape[0], size):
        model.partial_fit(X[start : start + size], y[start : start + size], classes=[-1, 1])
    return model


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("center", [False, True])
def test_dense_fused_pass_equals_the_reference_on_mapped_rows(fit_intercept, normalize, center):
    """Dense: the reference is the plain-NumPy Algorithm 1 on the explicitly augmented, mapped
    rows; the fused loop sums each row's norm and dot product in another order, so equal to
    1e-12 relative, not bit for bit."""
    X, y = _stream()
    model = StreamSVM(C=2.0, fit_intercept=fit_intercept, normalize=normalize, center=center,
                      lookahead=1)
    _learnt_in_chunks(model, X, y)
    centre, radius, updates, _ = naive.streamsvm_algorithm1(model._prepare(X), y.astype(float),
                                                            2.0)
    width = model.coef_.shape[1]
    np.testing.assert_allclose(model.coef_[0], centre[:width], rtol=1e-12,
                               atol=1e-12 * np.abs(centre[:width]).max())
    assert model.radius_ == pytest.approx(radius, rel=1e-12)
    assert model.n_core_vectors_ == updates


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("normalize", [False, True])
def test_csr_fused_pass_equals_the_mapped_matrix_path(fit_intercept, normalize):
    """CSR: the bias feature and the unit-norm scale applied in the loop give the model learnt
    from the mapped matrix built first (scipy ``hstack`` and row scaling). The loop sums a
    row's squared norm in storage order, NumPy pairwise, hence 1e-12 relative (bit for bit
    where the sums are exact, as on Adult's 0/1 features)."""
    X, y = _stream(seed=3)
    X = sp.csr_matrix(X)
    model = StreamSVM(C=2.0, fit_intercept=fit_intercept, normalize=normalize, lookahead=1)
    _learnt_in_chunks(model, X, y)
    mapped = map_rows(X, None, fit_intercept, normalize)
    reference = _StreamSVMLearner(mapped.shape[1], None, C=2.0, lookahead=1, tol=1e-8)
    labels = np.where(y == 1, 1.0, -1.0)
    for start in range(0, X.shape[0], 150):
        reference.partial_fit(mapped[start : start + 150], labels[start : start + 150])
    learner = model.learners_[0]
    np.testing.assert_allclose(learner.w, reference.w, rtol=1e-12,
                               atol=1e-12 * np.abs(reference.w).max())
    np.testing.assert_allclose(learner.state, reference.state, rtol=1e-12)
    assert learner.n_updates == reference.n_updates


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("make", [StreamSVM, lambda: StreamSVM(center=True)])
def test_refused_chunk_with_nan_in_its_last_row_leaves_the_model_bit_identical(make, sparse):
    X, y = _stream(seed=5)
    X = sp.csr_matrix(X) if sparse else X
    model = make().partial_fit(X[:200], y[:200], classes=[-1, 1])
    before = pickle.dumps(model, protocol=5)
    bad = X[200:].toarray() if sparse else X[200:].copy()
    bad[-1, 0] = np.nan
    with pytest.raises(ValueError, match=r"NaN \(first at row 199\)"):
        model.partial_fit(sp.csr_matrix(bad) if sparse else bad, y[200:])
    assert pickle.dumps(model, protocol=5) == before


def test_first_data_pass_gives_numpys_mean_bit_for_bit():
    """The centring mean comes from the same compiled pass as the finiteness check."""
    X, y = _stream(seed=6, n=1000)
    model = StreamSVM().fit(X, y)
    assert model.scale_ is None
    np.testing.assert_array_equal(model.mean_, X.mean(axis=0))
    X = X * 1e3 + 0.1  # unscaled rows: the mean of the first chunk times its column factors
    model = StreamSVM().fit(X, y)
    assert model.scale_ is not None
    np.testing.assert_array_equal(model.mean_, X.mean(axis=0) * model.scale_)
    assert StreamSVM(center=False).fit(X, y).mean_ is None
    assert StreamSVM().fit(sp.csr_matrix(X), y).mean_ is None


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_refused_first_data_leave_the_model_as_it_was(value):
    X, y = _stream(seed=7)
    fitted = StreamSVM().fit(X, y)
    before = pickle.dumps(fitted, protocol=5)
    bad = X.copy()
    bad[-1, 2] = value
    kind = "NaN" if np.isnan(value) else "infinity"
    message = rf"{kind} \(first at row {X.shape[0] - 1}\)"
    with pytest.raises(ValueError, match=message):
        fitted.fit(bad, y)
    assert pickle.dumps(fitted, protocol=5) == before
    fresh = StreamSVM()
    with pytest.raises(ValueError, match=message):
        fresh.partial_fit(bad, y, classes=[-1, 1])
    assert pickle.dumps(fresh, protocol=5) == pickle.dumps(StreamSVM(), protocol=5)


@pytest.mark.parametrize("value, message", [(np.nan, "NaN"), (-np.inf, "infinity"),
                                            (1e300, "too large"), (1e60, "too large")])
def test_uncentred_fit_checks_rows_in_algorithm_1_and_keeps_the_model(value, message):
    """``center=False``: ``fit`` reads each dense row once, Algorithm 1 checking it; a bad
    last row is named as by the separate checks and the fitted model is left as it was."""
    X, y = _stream(seed=9)
    X = X - X.mean(axis=0)  # centred by hand, so that the uncentred model does not collapse
    fitted = StreamSVM(lookahead=1, center=False).fit(X, y)
    before = pickle.dumps(fitted, protocol=5)
    bad = X.copy()
    bad[-1, 2] = value
    with pytest.raises(ValueError, match=rf"{message}.*row {X.shape[0] - 1}|"
                                         rf"row {X.shape[0] - 1}.*{message}"):
        fitted.fit(bad, y)
    assert pickle.dumps(fitted, protocol=5) == before
    checked = StreamSVM(lookahead=1, center=False).fit(np.asfortranarray(X), y)  # converted
    np.testing.assert_array_equal(fitted.coef_, checked.coef_)
    assert fitted.radius_ == checked.radius_


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("normalize", [False, True])
def test_scores_of_rows_mapped_on_the_fly_equal_those_of_the_mapped_rows(
        sparse, fit_intercept, normalize):
    """The prequential scores of a chunk (``_rows_to_score``) map its rows inside a compiled
    loop: the same decisions as the rows mapped beforehand, to 1e-12."""
    from streamsvm.meb.streamsvm import _MappedRows

    X, y = _stream(seed=10)
    model = StreamSVM(lookahead=1, fit_intercept=fit_intercept, normalize=normalize,
                      center=not sparse).fit(X[:300], y[:300])
    rows = sp.csr_matrix(X[300:]) if sparse else X[300:]
    learner = model.learners_[0]
    mapped = _MappedRows(rows, model.mean_, fit_intercept, normalize)
    expected = learner.decision_function(mapped.mapped())
    np.testing.assert_allclose(learner.decision_function(mapped[5:40]), expected[5:40],
                               rtol=1e-12, atol=1e-12 * np.abs(expected).max())
    assert np.abs(expected).max() > 0
