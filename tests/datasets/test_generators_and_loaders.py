"""Generators (exact labels, reproducibility) and the named datasets (sizes, tasks, errors)."""

import numpy as np
import pytest

from streamsvm import datasets
from streamsvm.datasets import DatasetNotFoundError, describe_dataset, list_datasets, load_dataset
from tests.conftest import data_file


def test_checkerboard_labels_follow_cell_parity():
    X, y = datasets.make_checkerboard(5000, random_state=0)
    assert X.min() >= 0 and X.max() < 1
    cells = np.floor(X * 4).astype(int)
    np.testing.assert_array_equal(y, np.where(cells.sum(axis=1) % 2 == 0, 1, -1))
    assert abs(np.mean(y == 1) - 0.5) < 0.03


def test_noisy_checkerboard_flips_the_given_fraction():
    X, y = datasets.make_noisy_checkerboard(20000, random_state=1)
    clean = np.where(np.floor(X * 4).astype(int).sum(axis=1) % 2 == 0, 1, -1)
    assert np.mean(y != clean) == pytest.approx(0.15, abs=0.01)
    with pytest.raises(ValueError, match="noise"):
        next(datasets.noisy_checkerboard(noise=0.7))


@pytest.mark.parametrize("name", list(datasets.GENERATORS))
def test_streams_are_reproducible_and_endless(name):
    generator = datasets.GENERATORS[name]
    a, b = generator(chunk_size=50, random_state=3), generator(chunk_size=50, random_state=3)
    first_a, first_b = next(a), next(b)
    np.testing.assert_array_equal(first_a[0], first_b[0])
    second = next(a)
    assert not np.array_equal(first_a[0], second[0])
    assert second[0].shape[0] == 50


def test_chessboard_pairs_lie_on_white_squares():
    X, y = datasets.make_chessboard_10d(4000, random_state=0)
    squares = np.floor(X).astype(int).reshape(-1, 5, 2).sum(axis=2)
    assert (squares % 2 == 0).all()
    assert (y == 1).all()
    # uniform over white squares: each of the 32 white squares of a pair is about equally hit
    counts = np.unique(np.floor(X[:, :2]).astype(int), axis=0, return_counts=True)[1]
    assert len(counts) == 32 and counts.min() > 60


@pytest.mark.parametrize("make, accuracy", [(datasets.make_synthetic_a, 0.965),
                                            (datasets.make_synthetic_b, 0.66),
                                            (datasets.make_synthetic_c, 0.932)])
def test_synthetic_sets_have_their_bayes_accuracy(make, accuracy):
    X, y = make(40000, random_state=0)
    assert np.mean(np.sign(X[:, 0]) == y) == pytest.approx(accuracy, abs=0.01)


def test_gauss_bayes_accuracy_near_81_percent():
    from scipy.stats import multivariate_normal as mvn

    X, y = datasets.make_gauss(20000, random_state=0)
    log_pos = mvn([0, 0], np.eye(2)).logpdf(X)
    log_neg = mvn([2, 0], 4 * np.eye(2)).logpdf(X)
    assert np.mean(np.where(log_pos > log_neg, 1, -1) == y) == pytest.approx(0.81, abs=0.02)


def test_waveform_generator_matches_the_uci_file():
    path = data_file("waveform.data")
    X_file, y_file = load_dataset("waveform", subset="all")
    X_gen, y_gen = datasets.make_waveform(30000, random_state=0)
    for c in range(3):
        np.testing.assert_allclose(X_gen[y_gen == c].mean(axis=0), X_file[y_file == c].mean(axis=0), atol=0.25)
    assert path.exists()


def test_every_dataset_is_described():
    for name in list_datasets():
        info = describe_dataset(name)
        assert info.name == name and info.files and info.n_train > 0 and info.n_features > 0


@pytest.mark.parametrize("name", ["w3a", "banana", "usps-round", "shuttle-1vrest", "abalone-7", "waveform-0vrest"])
def test_named_datasets_have_their_sizes_and_tasks(name):
    info = describe_dataset(name)
    for f in info.files:
        data_file(f)
    X, y = load_dataset(name)
    Xt, yt = load_dataset(name, subset="test")
    assert (X.shape[0], Xt.shape[0], X.shape[1]) == (info.n_train, info.n_test, info.n_features)
    assert set(np.unique(y)) == {-1, 1}


def test_missing_file_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("STREAMSVM_DATA", str(tmp_path))
    with pytest.raises(DatasetNotFoundError, match=r"'adult.trn.bz2' is not in .* STREAMSVM_DATA"):
        load_dataset("adult")
    assert not datasets.dataset_available("adult")
    with pytest.raises(ValueError, match="unknown dataset 'nope'"):
        load_dataset("nope")
