"""The chunked readers against scikit-learn's loader, and their error messages."""

import bz2
import gzip

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

from streamsvm.datasets import iter_csv, iter_npz, iter_svmlight, load_svmlight
from tests.conftest import data_file


def random_sparse(n=700, d=40, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.2, random_state=seed, format="csr")
    X.data = rng.normal(scale=1e3, size=X.nnz) * 10.0 ** rng.integers(-6, 6, size=X.nnz)
    y = rng.choice([-1.0, 1.0], size=n)
    return X, y


@pytest.mark.parametrize("suffix, opener", [("", open), (".gz", gzip.open), (".bz2", bz2.open)])
@pytest.mark.parametrize("zero_based", [True, False])
def test_matches_sklearn(tmp_path, suffix, opener, zero_based):
    X, y = random_sparse()
    plain = tmp_path / "data.svm"
    dump_svmlight_file(X, y, str(plain), zero_based=zero_based)
    path = tmp_path / f"data.svm{suffix}"
    if suffix:
        with opener(path, "wb") as f:
            f.write(plain.read_bytes())
    reference_X, reference_y = load_svmlight_file(str(plain), zero_based=zero_based, n_features=40)
    chunks = list(iter_svmlight(path, chunk_size=128, block_bytes=4096))
    assert [c[0].shape[0] for c in chunks] == [128] * 5 + [60]
    got_X = sp.vstack([c[0] for c in chunks])
    np.testing.assert_allclose(got_X.toarray(), reference_X.toarray(), rtol=1e-15)
    np.testing.assert_array_equal(np.concatenate([c[1] for c in chunks]), reference_y)


def test_given_width_and_comments(tmp_path):
    path = tmp_path / "c.svm"
    path.write_text("# header comment\n\n+1 qid:3 2:1.5e2 7:-.25 # tail\n-1\n1.0 1:3\n")
    X, y = load_svmlight(path, n_features=10, zero_based=False)
    assert X.shape == (3, 10)
    np.testing.assert_array_equal(y, [1, -1, 1])
    np.testing.assert_array_equal(X.toarray()[0, [1, 6]], [150.0, -0.25])


@pytest.mark.parametrize(
    "line, message",
    [
        ("+1 1:0.5 2:oops", "line 3: a feature value is not a finite number"),
        ("yes 1:0.5", "line 3: the label is not a number"),
        ("+1 3:1 2:1", "line 3: feature indices are not in increasing order"),
        ("+1 x3:1", "line 3: a feature index is not a non-negative integer"),
        ("+1 3", "line 3: a feature is not written as index:value"),
        ("+1 0:1", "line 3: feature index 0 in a one-based file"),
        ("+1 99:1", "line 3: a feature index is beyond n_features"),
    ],
)
def test_malformed_lines_name_the_line(tmp_path, line, message):
    path = tmp_path / "bad.svm"
    path.write_text(f"+1 1:1\n-1 2:1\n{line}\n+1 1:2\n")
    with pytest.raises(ValueError, match=f"bad.svm, {message}"):
        list(iter_svmlight(path, n_features=10, zero_based=False))


def test_empty_and_missing_files(tmp_path):
    empty = tmp_path / "empty.svm"
    empty.write_text("# only a comment\n")
    with pytest.raises(ValueError, match="empty.svm contains no examples"):
        list(iter_svmlight(empty))
    with pytest.raises(FileNotFoundError, match="nope.svm"):
        list(iter_svmlight(tmp_path / "nope.svm"))


def test_real_file_first_chunk():
    path = data_file("adult.trn.bz2")
    X, y = next(iter_svmlight(path, chunk_size=1000, n_features=123, zero_based=True))
    ref_X, ref_y = load_svmlight_file(str(path), n_features=123, zero_based=True)
    np.testing.assert_array_equal(X.toarray(), ref_X[:1000].toarray())
    np.testing.assert_array_equal(y, ref_y[:1000])


def test_csv_reader(tmp_path):
    path = tmp_path / "d.csv.gz"
    rows = ["a,b,label"] + [f"{i},{i * 0.5},{'x' if i % 2 else 'y'}" for i in range(25)]
    with gzip.open(path, "wt") as f:
        f.write("\n".join(rows) + "\n")
    chunks = list(iter_csv(path, chunk_size=10))
    assert [c[0].shape for c in chunks] == [(10, 2), (10, 2), (5, 2)]
    X = np.vstack([c[0] for c in chunks])
    np.testing.assert_array_equal(X[:, 1], np.arange(25) * 0.5)
    assert list(chunks[0][1][:2]) == ["y", "x"]


def test_csv_reports_the_stray_tab_of_waveform():
    """The data README's 'row 42' counts from 0: it is line 43 of the file."""
    path = data_file("waveform.data")
    with pytest.raises(ValueError, match="waveform.data, line 43: the feature '0.6\\\\t8' is not a number"):
        list(iter_csv(path, chunk_size=1000))


def test_csv_wrong_field_count(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("1,2,0\n3,4,1\n5,1\n")
    with pytest.raises(ValueError, match="d.csv, line 3: 2 fields where 3 were expected"):
        list(iter_csv(path))


def test_npz_chunks(tmp_path):
    X = np.arange(30.0).reshape(15, 2)
    y = np.arange(15) % 2
    np.savez(tmp_path / "a.npz", X=X, y=y)
    chunks = list(iter_npz(tmp_path / "a.npz", chunk_size=4))
    np.testing.assert_array_equal(np.vstack([c[0] for c in chunks]), X)
    with pytest.raises(ValueError, match="no array 'features'"):
        list(iter_npz(tmp_path / "a.npz", "features", "y"))
