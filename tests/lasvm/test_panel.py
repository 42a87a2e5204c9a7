"""The panel of S (``lasvm._panel_core``): the members' dense rows by position, one feature per
row, from which the kernel rows of data with few features are computed."""

import numpy as np
import pytest

import streamsvm
from streamsvm.active import ActiveSVM
from streamsvm.kernels._core import dot_rows
from streamsvm.lasvm import LASVM, LASVMG
from streamsvm.lasvm import _expansion_core as expansion
from streamsvm.lasvm import _panel_core as panel_core


def _panel_of(rng, n, d, holes=0):
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10.0, size=d)
    sq = (X * X).sum(axis=1)
    perm = rng.permutation(n).astype(np.int64)
    perm[rng.choice(n, holes, replace=False)] = -1
    return X, sq, perm, panel_core.build_panel(d, n + 7, perm, n, X, sq)


@pytest.mark.parametrize("d", [1, 2, 3, 5, 10, 64])
def test_panel_dots_are_the_dot_products_whatever_the_segment(d):
    """Each dot product comes out the same whether its position is computed alone, in a
    vectorised segment or at a segment's edge (the blocks of several threads), and is the
    dot product of the member's row."""
    rng = np.random.default_rng(d)
    X, _, perm, panel = _panel_of(rng, 300, d)
    whole = np.empty(300)
    panel_core.panel_dots(X, 11, panel, 0, 300, whole)
    pieces = np.empty(300)
    for lo, hi in [(0, 1), (1, 37), (37, 38), (38, 256), (256, 300)]:
        panel_core.panel_dots(X, 11, panel, lo, hi, pieces)
    assert whole.tobytes() == pieces.tobytes()
    np.testing.assert_allclose(whole, X[perm] @ X[11], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_below_four_features_the_panel_gives_the_bits_of_one_row_at_a_time(d):
    """Where ``dot_rows`` is not vectorised its sum is the panel's, so 2-D data such as
    Banana keeps its models to the bit."""
    rng = np.random.default_rng(d)
    X, _, perm, panel = _panel_of(rng, 200, d)
    out = np.empty(200)
    panel_core.panel_dots(X, 3, panel, 0, 200, out)
    expected = np.array([dot_rows(X, 3, X, s) for s in perm])
    assert out.tobytes() == expected.tobytes()


def test_only_dense_data_of_few_features_has_a_panel():
    assert panel_core.panel_features(False, 2) == 2
    assert panel_core.panel_features(False, panel_core.PANEL_MAX_FEATURES) == 64
    assert panel_core.panel_features(False, panel_core.PANEL_MAX_FEATURES + 1) == 0
    assert panel_core.panel_features(True, 10) == 0
    assert panel_core.build_panel(0, 50, np.arange(5), 5, np.zeros((5, 70)),
                                  np.zeros(5)).shape == (0, 50)


def _noisy(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + X[:, 1] + 1.5 * rng.normal(size=n) > 0, 1, -1)
    return X, y


def _assert_panel_is_s(learner):
    n = int(learner.cnt[expansion.N_COLS])
    d = learner.n_features
    members = np.flatnonzero(learner.perm[:n] >= 0)
    ids = learner.perm[members]
    panel = learner.panel
    assert panel.shape == (d + 1, learner.perm.shape[0])
    assert np.array_equal(panel[:d, members], learner.Xd[ids].T)
    assert np.array_equal(panel[d, members], learner.sq[ids])


def test_the_panel_follows_s_through_removals_compactions_and_shrinking():
    """Noisy labels and a small cache: members leave S, S is compacted and grows past its
    capacity, the finishing step's shrinking reorders it; at each chunk of the stream and
    after the finishing step the panel holds S's rows in position order."""
    X, y = _noisy(3000, 6, 0)
    model = LASVM(C=10.0, gamma=0.5, cache_size=0.5)
    for part in np.array_split(np.arange(3000), 5):
        model.partial_fit(X[part], y[part], classes=[-1, 1])
        learner = model.learners_[0]
        _assert_panel_is_s(learner)
    assert learner.cnt[expansion.N_REMOVED] > 0 and learner.layout_meta[0] > 0
    model.finish()
    _assert_panel_is_s(model.learners_[0])


def test_a_loaded_model_rebuilds_its_panel_and_resumes_to_the_bit(tmp_path):
    """The panel is not saved (derived from S and the store); the loaded model rebuilds it
    and the rest of the stream gives the model of one that was never saved."""
    X, y = _noisy(1200, 5, 1)
    straight = LASVM(C=10.0, gamma=0.5)
    saved = LASVM(C=10.0, gamma=0.5)
    for model in (straight, saved):
        model.partial_fit(X[:700], y[:700], classes=[-1, 1])
    path = tmp_path / "model.ssvm"
    streamsvm.save(saved, path)
    loaded = streamsvm.load(path)
    assert loaded.learners_[0].panel is None
    for model in (straight, loaded):
        model.partial_fit(X[700:], y[700:])
    _assert_panel_is_s(loaded.learners_[0])
    assert loaded.decision_function(X).tobytes() == straight.decision_function(X).tobytes()


@pytest.mark.parametrize("make", [
    lambda: LASVM(C=10.0, gamma=0.5),
    lambda: LASVMG(C=10.0, gamma=0.5),
    lambda: LASVM(C=10.0, kernel="poly", degree=2, gamma=0.2, coef0=1.0),
    lambda: ActiveSVM(C=10.0, gamma=0.5, random_state=0),
], ids=["LASVM", "LASVMG", "LASVM-poly", "ActiveSVM"])
def test_models_with_and_without_the_panel_agree(make, monkeypatch):
    """The panel changes the order of a dot product's sum only (from 4 features on): the
    same support vectors and the decisions of one member row at a time to rounding."""
    X, y = _noisy(1500, 10, 2)
    with_panel = make().fit(X, y)
    assert with_panel.learners_[0].panel.shape[0] == 11
    monkeypatch.setattr(panel_core, "PANEL_MAX_FEATURES", 0)
    without = make().fit(X, y)
    assert without.learners_[0].panel.shape[0] == 0
    assert np.array_equal(with_panel.support_vectors_, without.support_vectors_)
    np.testing.assert_allclose(with_panel.decision_function(X), without.decision_function(X),
                               rtol=0, atol=1e-9)
