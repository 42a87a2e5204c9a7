"""Seeded generators: exact labels, reproducibility, chunking, and the papers' statistics."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from streamsvm import datasets
from streamsvm.datasets import (
    checkerboard,
    load_dataset,
    make_checkerboard,
    make_chessboard_10d,
    make_gauss,
    make_noisy_checkerboard,
    make_synthetic_a,
    make_synthetic_b,
    make_synthetic_c,
    make_waveform,
    noisy_checkerboard,
    waveform_means,
)

STREAMS = sorted(datasets.GENERATORS)
WIDTH = {"checkerboard": 2, "noisy_checkerboard": 2, "gauss": 2, "waveform": 21,
         "synthetic_a": 2, "synthetic_b": 3, "synthetic_c": 5, "chessboard_10d": 10}


def parity_labels(X):
    return np.where(np.floor(X).astype(int).sum(axis=1) % 2 == 0, 1, -1)


@pytest.mark.parametrize("name", STREAMS)
def test_streams_are_reproducible_endless_and_chunk_independent(name):
    stream = datasets.GENERATORS[name]
    assert stream is getattr(datasets, name)
    make = getattr(datasets, f"make_{name}")
    a, b = stream(chunk_size=300, random_state=3), stream(chunk_size=300, random_state=3)
    chunks = [next(a) for _ in range(20)]  # 6000 rows: more than one internal block
    for X, y in chunks:
        X_b, y_b = next(b)
        np.testing.assert_array_equal(X, X_b)
        np.testing.assert_array_equal(y, y_b)
        assert X.shape == (300, WIDTH[name]) and X.dtype == np.float64 and y.dtype == np.int64
    assert not np.array_equal(chunks[0][0], chunks[1][0])  # successive chunks differ
    other = next(stream(chunk_size=300, random_state=4))[0]
    assert not np.array_equal(chunks[0][0], other)  # another seed, other data
    # the same examples whatever the chunk size, and make_* is the stream's beginning
    X_all = np.vstack([X for X, _ in chunks])
    X_make, y_make = make(6000, random_state=3)
    np.testing.assert_array_equal(X_make, X_all)
    np.testing.assert_array_equal(y_make, np.concatenate([y for _, y in chunks]))
    odd = stream(chunk_size=7, random_state=3)
    np.testing.assert_array_equal(np.vstack([next(odd)[0] for _ in range(5)]), X_all[:35])


def test_generator_random_state_is_consumed():
    rng = np.random.default_rng(0)
    first = make_checkerboard(10, random_state=rng)[0]
    second = make_checkerboard(10, random_state=rng)[0]
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(make_checkerboard(10, random_state=np.random.default_rng(0))[0],
                                  first)


def test_checkerboard_labels_are_the_cell_parity():
    X, y = make_checkerboard(20000, random_state=0)
    assert X.min() >= 0 and X.max() < 4
    np.testing.assert_array_equal(y, parity_labels(X))
    assert abs(np.mean(y == 1) - 0.5) < 0.02
    cells = np.unique(np.floor(X).astype(int), axis=0, return_counts=True)[1]
    assert len(cells) == 16 and cells.min() > 1000  # 1250 expected per cell


def test_standardized_checkerboard():
    X, y = make_checkerboard(20000, random_state=0, standardize=True)
    np.testing.assert_allclose(X.mean(axis=0), 0, atol=0.03)
    np.testing.assert_allclose(X.std(axis=0), 1, atol=0.02)
    raw = X * (4 / np.sqrt(12)) + 2
    np.testing.assert_array_equal(y, parity_labels(raw))


def test_noisy_checkerboard_switches_15_percent_of_the_clean_labels():
    X_clean, y_clean = make_checkerboard(20000, random_state=1)
    X, y = make_noisy_checkerboard(20000, random_state=1)
    np.testing.assert_array_equal(X, X_clean)  # same points: the clean set is its test set
    assert np.mean(y != y_clean) == pytest.approx(0.15, abs=0.01)
    X, y = next(noisy_checkerboard(chunk_size=5000, random_state=2, noise=0.3))
    assert np.mean(y != parity_labels(X)) == pytest.approx(0.3, abs=0.02)
    with pytest.raises(ValueError, match="noise must be in"):
        checkerboard(noise=1.5)


def test_gauss_classes_and_bayes_accuracy():
    X, y = make_gauss(40000, random_state=0)
    assert abs(np.mean(y == 1) - 0.5) < 0.01
    np.testing.assert_allclose(X[y == 1].mean(axis=0), [0, 0], atol=0.03)
    np.testing.assert_allclose(X[y == -1].mean(axis=0), [2, 0], atol=0.05)
    np.testing.assert_allclose(X[y == 1].std(axis=0), [1, 1], atol=0.03)
    np.testing.assert_allclose(X[y == -1].std(axis=0), [2, 2], atol=0.05)
    positive = multivariate_normal([0, 0], np.eye(2)).logpdf(X)
    negative = multivariate_normal([2, 0], 4 * np.eye(2)).logpdf(X)
    bayes = np.mean(np.where(positive > negative, 1, -1) == y)
    assert bayes == pytest.approx(0.815, abs=0.01)


def test_waveform_generator_follows_breiman():
    X, y = make_waveform(30000, random_state=0)
    assert set(np.unique(y).tolist()) == {0, 1, 2}
    assert np.bincount(y).min() > 9500
    for c in range(3):
        np.testing.assert_allclose(X[y == c].mean(axis=0), waveform_means()[c], atol=0.1)
    # the noise is N(0, 1) at the ends, where every base wave is zero
    np.testing.assert_allclose(X[:, [0, 20]].std(axis=0), [1, 1], atol=0.03)


def test_waveform_generator_matches_the_uci_file(need_dataset):
    need_dataset("waveform")
    X_file, y_file = load_dataset("waveform", subset="all")
    X, y = make_waveform(30000, random_state=0)
    for c in range(3):
        np.testing.assert_allclose(X[y == c].mean(axis=0), X_file[y_file == c].mean(axis=0),
                                   atol=0.2)
        np.testing.assert_allclose(X[y == c].std(axis=0), X_file[y_file == c].std(axis=0),
                                   atol=0.15)


@pytest.mark.parametrize("make, width, accuracy, rule", [
    (make_synthetic_a, 2, 0.965, lambda X: X[:, 0] + X[:, 1]),
    (make_synthetic_b, 3, 0.66, lambda X: X[:, 2]),
    (make_synthetic_c, 5, 0.932, lambda X: X[:, 0]),
])
def test_synthetic_sets_have_the_papers_linear_accuracy(make, width, accuracy, rule):
    from sklearn.svm import LinearSVC

    X, y = make(40000, random_state=0)
    assert X.shape == (40000, width) and abs(np.mean(y == 1) - 0.5) < 0.01
    # the best hyperplane (through the origin, by symmetry) reaches the paper's accuracy
    assert np.mean(np.where(rule(X) > 0, 1, -1) == y) == pytest.approx(accuracy, abs=0.006)
    # and a fitted linear SVM does not beat it on fresh data
    model = LinearSVC().fit(X[:10000], y[:10000])
    assert model.score(X[10000:], y[10000:]) < accuracy + 0.01


def test_synthetic_b_is_about_85_percent_separable():
    X, y = make_synthetic_b(40000, random_state=1)
    s, t = 0.41246312944140473, 1.3  # Phi^-1(0.66) and the XOR offset of the definition

    def density(centres):
        return sum(multivariate_normal(c, np.eye(3)).pdf(X) for c in centres)

    positive = density([[t, t, s], [-t, -t, s]])
    negative = density([[t, -t, -s], [-t, t, -s]])
    assert np.mean(np.where(positive > negative, 1, -1) == y) == pytest.approx(0.85, abs=0.01)


def test_chessboard_10d_pairs_lie_on_white_squares():
    X, y = make_chessboard_10d(16000, random_state=0)
    assert X.shape == (16000, 10) and (y == 1).all()
    assert X.min() >= 0 and X.max() < 1
    cells = np.floor(X * 8).astype(int)
    assert ((cells[:, 0::2] + cells[:, 1::2]) % 2 == 1).all()
    for pair in range(5):  # uniform over the 32 white squares of each pair
        counts = np.unique(cells[:, 2 * pair:2 * pair + 2], axis=0, return_counts=True)[1]
        assert len(counts) == 32 and 380 < counts.min() and counts.max() < 620  # 500 expected
    X4, _ = make_chessboard_10d(100, random_state=0, n_squares=4)
    cells = np.floor(X4 * 4).astype(int)
    assert ((cells[:, 0::2] + cells[:, 1::2]) % 2 == 1).all()
    with pytest.raises(ValueError, match="n_squares must be an even integer"):
        make_chessboard_10d(10, n_squares=7)


def test_generator_arguments_are_checked():
    with pytest.raises(ValueError, match="chunk_size must be a positive integer"):
        checkerboard(chunk_size=0)
    with pytest.raises(ValueError, match="n_samples must be a positive integer"):
        make_gauss(0)
    with pytest.raises(ValueError, match="random_state must be"):
        checkerboard(random_state="seed")
