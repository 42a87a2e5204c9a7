"""Chunked readers: svmlight against scikit-learn's loader, CSV, arrays, npz; error messages."""

import bz2
import gzip
import pickle
import re

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

from streamsvm.datasets import (
    DataFileError,
    concat_chunks,
    iter_arrays,
    iter_csv,
    iter_npz,
    iter_svmlight,
    load_csv,
    load_svmlight,
)
from streamsvm.datasets.readers import _npz_array


def random_sparse(n=700, d=40, seed=0):
    """Random CSR data with values over many magnitudes, some empty rows and columns."""
    rng = np.random.default_rng(seed)
    dense = sp.random(n, d, density=0.15, random_state=seed).toarray()
    dense[5] = 0.0  # an empty row
    X = sp.csr_matrix(dense)
    X.data = rng.normal(size=X.nnz) * 10.0 ** rng.integers(-8, 8, size=X.nnz)
    y = rng.choice([-1.0, 1.0, 2.5], size=n)
    return X, y


def write(path, text_bytes):
    opener = {".gz": gzip.open, ".bz2": bz2.open}.get(path.suffix, open)
    with opener(path, "wb") as f:
        f.write(text_bytes)
    return path


def assert_same_csr(got, expected):
    assert got.shape == expected.shape
    assert got.has_sorted_indices
    np.testing.assert_array_equal(got.indptr, expected.indptr)
    np.testing.assert_array_equal(got.indices, expected.indices)
    np.testing.assert_array_equal(got.data, expected.data)  # both rounded correctly


# --------------------------------------------------------------------------- svmlight
@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2"])
@pytest.mark.parametrize("zero_based", [True, False])
@pytest.mark.parametrize("block_size", [97, 1 << 20])
def test_svmlight_matches_sklearn(tmp_path, suffix, zero_based, block_size):
    X, y = random_sparse()
    plain = tmp_path / "data.svm"
    dump_svmlight_file(X, y, str(plain), zero_based=zero_based)
    path = write(tmp_path / f"data.svm{suffix}", plain.read_bytes())
    expected_X, expected_y = load_svmlight_file(str(plain), zero_based=zero_based, n_features=40)
    chunks = list(iter_svmlight(path, chunk_size=128, n_features=40, zero_based=zero_based,
                                block_size=block_size))
    assert [X.shape for X, _ in chunks] == [(128, 40)] * 5 + [(60, 40)]
    assert all(isinstance(X, sp.csr_matrix) and X.dtype == np.float64 for X, _ in chunks)
    got_X, got_y = concat_chunks(chunks)
    assert_same_csr(got_X, expected_X)
    np.testing.assert_array_equal(got_y, expected_y)
    assert got_y.dtype == np.float64


@pytest.mark.parametrize("zero_based", [True, False])
def test_svmlight_auto_detection_matches_sklearn(tmp_path, zero_based):
    X, y = random_sparse(seed=1)
    path = tmp_path / "data.svm"
    dump_svmlight_file(X, y, str(path), zero_based=zero_based)
    expected_X, expected_y = load_svmlight_file(str(path))  # zero_based="auto" there too
    got_X, got_y = load_svmlight(path, chunk_size=50, block_size=300)
    assert_same_csr(got_X, expected_X)
    np.testing.assert_array_equal(got_y, expected_y)


def test_svmlight_syntax(tmp_path):
    text = (
        "# a header comment\n"
        "\n"
        "+1 qid:3 2:1.5e2 7:-.25   # trailing comment\n"
        "-1\r\n"
        "1.5e0\t1:3 4:1E-3\n"
        "   \n"
        "-2.25 1:+7. 10:6.02214076e23"  # no newline at the end
    )
    path = write(tmp_path / "syntax.svm", text.encode())
    X, y = load_svmlight(path, n_features=10, zero_based=False)
    np.testing.assert_array_equal(y, [1.0, -1.0, 1.5, -2.25])
    dense = np.zeros((4, 10))
    dense[0, [1, 6]] = [150.0, -0.25]
    dense[2, [0, 3]] = [3.0, 1e-3]
    dense[3, [0, 9]] = [7.0, 6.02214076e23]
    np.testing.assert_array_equal(X.toarray(), dense)
    # the same with the pre-scan: one-based, width 10 from the largest index
    X2, _ = load_svmlight(path)
    assert X2.shape == (4, 10)
    np.testing.assert_array_equal(X2.toarray(), dense)


def test_svmlight_float32_and_chunks_past_a_long_line(tmp_path):
    # a line far longer than the block and than the first chunk's capacity estimate
    long_line = "1 " + " ".join(f"{j}:{j * 0.5}" for j in range(1, 3001))
    text = "\n".join(["-1 1:1", long_line, "-1 2:2", long_line, "1 3:0.1"]) + "\n"
    path = write(tmp_path / "long.svm", text.encode())
    chunks = list(iter_svmlight(path, chunk_size=2, n_features=3000, zero_based=False,
                                dtype=np.float32, block_size=64))
    assert [X.shape[0] for X, _ in chunks] == [2, 2, 1]
    X, y = concat_chunks(chunks)
    assert X.dtype == np.float32
    expected_X, expected_y = load_svmlight_file(str(path), n_features=3000, zero_based=False)
    np.testing.assert_array_equal(X.toarray(), expected_X.toarray().astype(np.float32))
    np.testing.assert_array_equal(y, expected_y)


def test_svmlight_streams_before_reading_the_whole_file(tmp_path):
    """Without a pre-scan, the chunks before a malformed line arrive before its error."""
    lines = [f"{(-1) ** i} {i % 7 + 1}:1" for i in range(1000)] + ["1 3:oops"]
    path = write(tmp_path / "late.svm", ("\n".join(lines) + "\n").encode())
    stream = iter_svmlight(path, chunk_size=100, n_features=7, zero_based=False, block_size=256)
    for _ in range(10):
        X, y = next(stream)
        assert X.shape == (100, 7)
    with pytest.raises(ValueError, match="late.svm:1001: value 'oops' of feature 3"):
        next(stream)


@pytest.mark.parametrize(
    "line, message",
    [
        ("yes 1:0.5", "label 'yes' is not a finite number"),
        ("1,2 1:0.5", "label '1,2' is not a finite number"),
        ("nan 1:0.5", "label 'nan' is not a finite number"),
        ("+1 x3:1", "feature index 'x3' is not an integer"),
        ("+1 3x:1", "feature index '3x' is not an integer"),
        ("+1 -3:1", "feature index '-3' is negative"),
        ("+1 3", "feature '3' is not written as index:value"),
        ("+1 1:0.5 2:oops", "value 'oops' of feature 2 is not a number"),
        ("+1 1:0.5 2:1.5x", "value '1.5x' of feature 2 is not a number"),
        ("+1 2:nan", "value 'nan' of feature 2 is not finite (pass allow_nan=True"),
        ("+1 2:1e999", "value '1e999' of feature 2 is not finite (pass allow_nan=True"),
        ("+1 2:", "feature 2 has no value"),
        ("+1 3:1 2:1", "feature indices are not in increasing order (2 after 3)"),
        ("+1 3:1 3:2", "feature index 3 appears twice"),
        ("+1 0:1", "feature index 0 in a one-based file"),
        ("+1 11:1", "feature index 11 is out of range for n_features=10 (one-based indices)"),
        ("+1 99999999999999999999:1",
         "feature index 99999999999999999999 is out of range for n_features=10"),
    ],
)
@pytest.mark.parametrize("block_size", [16, 1 << 20])
def test_svmlight_malformed_lines_name_file_and_line(tmp_path, line, message, block_size):
    # comment and blank lines count: the bad line is line 5
    path = tmp_path / "bad.svm"
    path.write_text(f"+1 1:1\n# comment\n\n-1 2:1\n{line}\n+1 1:2\n")
    with pytest.raises(ValueError, match=re.escape(f"bad.svm:5: {message}")):
        list(iter_svmlight(path, n_features=10, zero_based=False, block_size=block_size))


def test_svmlight_pre_scan_reports_syntax_errors_with_the_line(tmp_path):
    path = write(tmp_path / "bad.svm.bz2", b"1 1:1\n1 2:1\n1 1:x\n")
    with pytest.raises(ValueError, match=r"bad.svm.bz2:3: value 'x' of feature 1"):
        next(iter_svmlight(path))


def test_svmlight_zero_based_index_beyond_n_features(tmp_path):
    path = tmp_path / "z.svm"
    path.write_text("1 0:1 4:1\n")
    with pytest.raises(ValueError, match=r"z.svm:1: feature index 4 is out of range for "
                                         r"n_features=4 \(zero-based indices\)"):
        load_svmlight(path, n_features=4, zero_based=True)
    assert load_svmlight(path, n_features=5)[0].shape == (1, 5)  # auto: index 0 => zero-based


@pytest.mark.parametrize("text", ["", "# only a comment\n", "\n  \n"])
@pytest.mark.parametrize("scan", [True, False])
def test_svmlight_without_examples(tmp_path, text, scan):
    path = write(tmp_path / "empty.svm.gz", text.encode())
    kwargs = {} if scan else {"n_features": 3, "zero_based": False}
    with pytest.raises(ValueError, match=r"empty.svm.gz:\d+: the file contains no examples"):
        list(iter_svmlight(path, **kwargs))


def test_svmlight_rows_without_features(tmp_path):
    path = tmp_path / "labels.svm"
    path.write_text("1\n-1 \n")
    X, y = load_svmlight(path)
    assert X.shape == (2, 0) and y.tolist() == [1.0, -1.0]


def test_reader_arguments_are_checked_at_call_time(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.svm"):
        iter_svmlight(tmp_path / "nope.svm")
    path = tmp_path / "a.svm"
    path.write_text("1 1:1\n")
    with pytest.raises(ValueError, match="chunk_size must be a positive integer"):
        iter_svmlight(path, chunk_size=0)
    with pytest.raises(ValueError, match="zero_based must be True, False or 'auto'"):
        iter_svmlight(path, zero_based="yes")
    with pytest.raises(ValueError, match="dtype must be float32 or float64"):
        iter_svmlight(path, dtype=np.int64)
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        iter_csv(tmp_path / "nope.csv")
    with pytest.raises(ValueError, match="delimiter"):
        iter_csv(path, delimiter=",,")
    with pytest.raises(ValueError, match="max_features must be a positive integer; got 0"):
        iter_svmlight(path, max_features=0)
    with pytest.raises(ValueError, match="max_features must be a positive integer; got 2.5"):
        iter_csv(path, max_features=2.5)
    for reader in (iter_svmlight, iter_csv):
        with pytest.raises(ValueError, match="allow_nan must be True or False; got 'yes'"):
            reader(path, allow_nan="yes")


def test_real_svmlight_files_match_sklearn(data_file):
    path = data_file("w3a.bz2")
    expected_X, expected_y = load_svmlight_file(str(path))
    got_X, got_y = load_svmlight(path, chunk_size=1000)
    assert_same_csr(got_X, expected_X)
    np.testing.assert_array_equal(got_y, expected_y)
    path = data_file("adult.tst.bz2")  # zero-based: the first chunk, width 123 from the scan
    X, y = next(iter_svmlight(path, chunk_size=500))
    expected_X, expected_y = load_svmlight_file(str(path))
    assert X.shape == (500, 123) and expected_X.shape[1] == 123
    assert_same_csr(X, expected_X[:500])
    np.testing.assert_array_equal(y, expected_y[:500])


# --------------------------------------------------------------------------- csv
def test_csv_numeric_labels_header_and_chunks(tmp_path):
    rng = np.random.default_rng(0)
    data = rng.normal(size=(53, 4)) * 10.0 ** rng.integers(-5, 5, size=(53, 4))
    labels = rng.integers(0, 3, size=53)
    lines = ["f1, f2, f3, f4, label"]
    lines += [", ".join(repr(float(v)) for v in row) + f", {c}" for row, c in zip(data, labels,
                                                                          strict=True)]
    path = write(tmp_path / "d.csv.gz", ("\n".join(lines) + "\n").encode())
    chunks = list(iter_csv(path, chunk_size=20, block_size=128))
    assert [X.shape for X, _ in chunks] == [(20, 4), (20, 4), (13, 4)]
    X, y = concat_chunks(chunks)
    np.testing.assert_array_equal(X, data)  # repr round-trips exactly
    assert y.dtype == np.int64
    np.testing.assert_array_equal(y, labels)


def test_csv_label_kinds_and_columns(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("1,2,-1.0\n3,4,1.0\n")
    assert load_csv(path)[1].dtype == np.float64
    path.write_text("cat,1,2\ndog,3,4\n")
    X, y = load_csv(path, label_column=0)
    np.testing.assert_array_equal(X, [[1.0, 2.0], [3.0, 4.0]])
    assert y.tolist() == ["cat", "dog"]
    path.write_text("1 2 3\n4 5 6\r\n")
    X, y = load_csv(path, delimiter=" ", label_column=None, dtype=np.float32)
    assert y is None and X.dtype == np.float32
    np.testing.assert_array_equal(X, [[1, 2, 3], [4, 5, 6]])
    path.write_text("x,y\n1,2\n")  # forced: the first line is data
    with pytest.raises(ValueError, match=r"d.csv:1: field 1 'x' is not a number"):
        load_csv(path, header=False)
    X, y = load_csv(path, header=True)
    assert X.tolist() == [[1.0]] and y.tolist() == [2]


def test_csv_string_labels_across_blocks(tmp_path):
    names = ["Rad.Flow", "High", "Bypass", "Fpv.Open"]
    lines = [f"{i},{i * 0.5},{names[i % 4]}" for i in range(200)]
    path = write(tmp_path / "s.csv.bz2", ("\n".join(lines) + "\n").encode())
    X, y = concat_chunks(iter_csv(path, chunk_size=64, block_size=50))
    assert y.tolist() == [names[i % 4] for i in range(200)]
    np.testing.assert_array_equal(X[:, 1], np.arange(200) * 0.5)


@pytest.mark.parametrize(
    "text, message",
    [
        ("1,2,0\n3,4,1\n5,1\n", "3: expected 3 fields (as on line 1), found 2"),
        ("1,2,0\n\n3,4,1,7\n", "3: expected 3 fields (as on line 1), found 4"),
        ("1,2,0\n3,abc,1\n", "2: field 2 'abc' is not a number"),
        ("1,2,0\n3,,1\n", "2: field 2 is empty"),
        ("1,2,0\n3,4 5,1\n", "2: field 2 '4 5' is not a number"),
        ("a,b,c\n1,2,0\n3,1e,1\n", "3: field 2 '1e' is not a number"),
    ],
)
def test_csv_malformed_rows_name_file_and_line(tmp_path, text, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=re.escape(f"bad.csv:{message}")):
        list(iter_csv(path, block_size=8))


def test_csv_labels_must_keep_their_kind(tmp_path):
    path = tmp_path / "k.csv"
    path.write_text("1,0\n2,1\n3,x\n")
    with pytest.raises(ValueError, match=r"k.csv:3: label 'x' is not a finite number"):
        list(iter_csv(path, chunk_size=2))
    path.write_text("1,0\n2,1\n3,1.5\n")
    with pytest.raises(ValueError, match=r"k.csv:3: label '1.5' is not an integer"):
        list(iter_csv(path, chunk_size=2))


def test_csv_without_examples_or_bad_label_column(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("a,b,c\n\n")
    with pytest.raises(ValueError, match=r"h.csv:\d+: the file contains no examples"):
        list(iter_csv(path))
    path.write_text("")
    with pytest.raises(ValueError, match=r"h.csv:\d+: the file contains no examples"):
        list(iter_csv(path))
    path.write_text("1,2\n")
    with pytest.raises(ValueError, match="label_column=5 is out of range for 2 fields"):
        list(iter_csv(path, label_column=5))


def test_csv_reports_the_stray_tab_of_waveform(data_file):
    """The data README's "row 42" counts rows from 0: it is line 43 of the file."""
    path = data_file("waveform.data")
    with pytest.raises(ValueError, match=re.escape(
            "waveform.data:43: field 21 '0.6\\t8' is not a number")):
        list(iter_csv(path, chunk_size=1000))


def test_real_csv_matches_numpy(data_file):
    path = data_file("satimage.dat.gz")
    expected = np.loadtxt(path, delimiter=",")
    X, y = load_csv(path, chunk_size=1000)
    np.testing.assert_array_equal(X, expected[:, :-1])
    np.testing.assert_array_equal(y, expected[:, -1].astype(np.int64))


def test_numbers_are_rounded_like_python(tmp_path):
    """The jitted number parser gives the double nearest to the decimal, as float() does."""
    rng = np.random.default_rng(5)
    values = rng.standard_normal(6000) * 10.0 ** rng.integers(-300, 300, size=6000)
    texts = [repr(float(v)) for v in values]
    texts += [f"{rng.integers(0, 10**9)}.{rng.integers(0, 10**6):06d}e{e}"
              for e in rng.integers(-40, 40, size=2000)]
    texts += ["9007199254740993", "1e23", "1.7976931348623157e308", "2.2250738585072014e-308",
              "0.000001", "-0", "+.5", "7.", "123456789012345678", "1.0000000000000002"]
    rows = [", ".join(texts[i:i + 8]) + ", 1" for i in range(0, len(texts) - 7, 8)]
    path = write(tmp_path / "numbers.csv", ("\n".join(rows) + "\n").encode())
    X, _ = load_csv(path, block_size=4096)
    expected = np.array([[float(t) for t in row.split(", ")[:-1]] for row in rows])
    np.testing.assert_array_equal(X, expected)


# --------------------------------------------------------------------------- arrays and npz
def test_iter_arrays_slices_without_copies():
    X = np.arange(20.0).reshape(10, 2)
    y = np.arange(10)
    chunks = list(iter_arrays(X, y, chunk_size=4))
    assert [c.shape[0] for c, _ in chunks] == [4, 4, 2]
    assert all(np.shares_memory(c, X) and np.shares_memory(t, y) for c, t in chunks)
    S = sp.random(9, 5, density=0.5, random_state=0, format="coo")
    sparse_chunks = list(iter_arrays(S, None, chunk_size=5))
    assert all(c.format == "csr" and t is None for c, t in sparse_chunks)
    np.testing.assert_array_equal(concat_chunks(sparse_chunks)[0].toarray(), S.toarray())
    with pytest.raises(ValueError, match="X has 10 rows but y has 3 labels"):
        iter_arrays(X, y[:3])
    with pytest.raises(ValueError, match="X must be 2-D"):
        iter_arrays(np.arange(3.0), None)


def test_iter_npz_memory_maps_stored_arrays(tmp_path):
    X = np.asfortranarray(np.arange(30.0).reshape(15, 2))
    y = np.arange(15) % 2
    np.savez(tmp_path / "a.npz", X=X, y=y)
    np.savez_compressed(tmp_path / "c.npz", X=X, y=y)
    assert isinstance(_npz_array(tmp_path / "a.npz", "X"), np.memmap)
    assert not isinstance(_npz_array(tmp_path / "c.npz", "X"), np.memmap)
    for name in ("a.npz", "c.npz"):
        chunks = list(iter_npz(tmp_path / name, chunk_size=4))
        assert [c.shape for c, _ in chunks] == [(4, 2)] * 3 + [(3, 2)]
        got_X, got_y = concat_chunks(chunks)
        np.testing.assert_array_equal(got_X, X)
        np.testing.assert_array_equal(got_y, y)
        # np.savez puts a member's data at an odd offset: the mapped array is unaligned, the
        # chunks are not (BLAS and numba take them without copies or slower loops)
        assert all(c.flags.aligned and t.flags.aligned for c, t in chunks)
    assert not _npz_array(tmp_path / "a.npz", "X").flags.aligned
    assert all(t is None for _, t in iter_npz(tmp_path / "a.npz", "X", None, chunk_size=8))
    with pytest.raises(ValueError, match="a.npz has no array 'features'; it holds X, y"):
        iter_npz(tmp_path / "a.npz", "features", "y")


# --------------------------------------------------------------------------- NaN, headers, labels
@pytest.mark.parametrize("spelling, value", [("nan", np.nan), ("NaN", np.nan), ("inf", np.inf),
                                             ("-inf", -np.inf), ("Infinity", np.inf),
                                             ("+INF", np.inf), ("1e999", np.inf)])
def test_nan_and_inf_need_allow_nan(tmp_path, spelling, value):
    svm = tmp_path / "n.svm"
    svm.write_text(f"1 1:1\n-1 1:2 2:{spelling}\n")
    message = f"n.svm:2: value '{spelling}' of feature 2 is not finite (pass allow_nan=True"
    with pytest.raises(DataFileError, match=re.escape(message)) as info:
        load_svmlight(svm)
    assert info.value.problem == f"value '{spelling}' of feature 2 is not finite"
    assert "allow_nan=True" in info.value.hint
    copy = pickle.loads(pickle.dumps(info.value))  # as from a worker process
    assert (str(copy), copy.line, copy.hint) == (str(info.value), 2, info.value.hint)
    X, _ = load_svmlight(svm, allow_nan=True)
    np.testing.assert_array_equal(X.toarray(), [[1.0, 0.0], [2.0, value]])
    csv = tmp_path / "n.csv"
    csv.write_text(f"1,2,0\n3,{spelling},1\n")
    message = f"n.csv:2: field 2 '{spelling}' is not finite (pass allow_nan=True"
    with pytest.raises(DataFileError, match=re.escape(message)) as info:
        load_csv(csv)
    assert (info.value.line, "allow_nan=True" in info.value.hint) == (2, True)
    X, _ = load_csv(csv, allow_nan=True)
    np.testing.assert_array_equal(X, [[1.0, 2.0], [3.0, value]])


def test_labels_are_never_nan(tmp_path):
    path = tmp_path / "l.svm"
    path.write_text("1 1:1\nnan 1:2\n")
    with pytest.raises(DataFileError, match="l.svm:2: label 'nan' is not a finite number"):
        load_svmlight(path, allow_nan=True)
    path = tmp_path / "l.csv"
    path.write_text("1,0\n2,nan\n")
    with pytest.raises(DataFileError, match="l.csv:2: label 'nan' is not a finite number"):
        load_csv(path, allow_nan=True)


def test_csv_first_row_with_nan_is_data_not_a_header(tmp_path):
    """Reproducer: a first row holding a NaN was lost as a "header"."""
    path = tmp_path / "h.csv"
    path.write_text("nan,1,0\n2,3,1\n")
    X, y = load_csv(path, allow_nan=True)
    np.testing.assert_array_equal(X, [[np.nan, 1.0], [2.0, 3.0]])
    assert y.tolist() == [0, 1]
    with pytest.raises(DataFileError, match="h.csv:1: field 1 'nan' is not finite"):
        load_csv(path)  # refused, not skipped
    path.write_text("1,,0\n2,3,1\n")  # an empty cell does not make a header either
    with pytest.raises(DataFileError, match="h.csv:1: field 2 is empty"):
        load_csv(path)


@pytest.mark.parametrize("first", ["a,b,class", "x, nan, y", "width,-inf,0", "NA,1,0"])
def test_csv_first_row_with_text_is_a_header(tmp_path, first):
    path = tmp_path / "h.csv"
    path.write_text(f"{first}\n1,2,0\n3,inf,1\n")
    X, y = load_csv(path, allow_nan=True)
    np.testing.assert_array_equal(X, [[1.0, 2.0], [3.0, np.inf]])
    assert y.tolist() == [0, 1]


def test_csv_empty_label_is_refused(tmp_path):
    """Reproducer: an empty label field became the class ''."""
    path = tmp_path / "e.csv"
    path.write_text("1,2,a\n3,4,\n5,6,b\n")
    with pytest.raises(DataFileError, match=re.escape("e.csv:2: the label (field 3) is empty")):
        load_csv(path)
    path.write_text(" ,1,2\n")
    with pytest.raises(DataFileError, match=re.escape("e.csv:1: the label (field 1) is empty")):
        load_csv(path, label_column=0)


@pytest.mark.parametrize("text, chunk_size, message", [
    ("1,0\n2,1\n3,a\n4,b\n", 10, "e.csv:3: label 'a' is not a finite number, but the first "
                                  "label is a number"),
    ("1,a\n2,b\n3,0\n", 10, "e.csv:3: label '0' is a number, but the first label is text"),
    ("1,a\n2,b\n3,0\n", 2, "e.csv:3: label '0' is a number, but the first label is text"),
])
def test_csv_labels_do_not_mix_numbers_and_text(tmp_path, text, chunk_size, message):
    """Reproducer: string labels after integer labels turned every class into a string."""
    path = tmp_path / "e.csv"
    path.write_text(text)
    with pytest.raises(DataFileError, match=re.escape(message)):
        list(iter_csv(path, chunk_size=chunk_size))


def test_csv_text_labels_must_be_utf8_without_nul(tmp_path):
    path = tmp_path / "u.csv"
    path.write_bytes(b"1,caf\xc3\xa9\n2,dog\n3,b\xffd\n")
    with pytest.raises(DataFileError, match="u.csv:3: label 'b\ufffdd' is not valid UTF-8"):
        load_csv(path)
    path.write_bytes(b"1,cat\n2,a\x00\n")
    with pytest.raises(DataFileError, match=r"u.csv:2: label 'a\\x00' holds a NUL byte"):
        load_csv(path)
    path.write_bytes(b"1,caf\xc3\xa9\n2,dog\n")
    assert load_csv(path)[1].tolist() == ["caf\u00e9", "dog"]


def test_csv_huge_integer_labels_stay_exact_or_become_floats(tmp_path):
    path = tmp_path / "i.csv"
    path.write_text("1,99999999999999999999\n2,1\n")
    y = load_csv(path)[1]
    assert y.dtype == np.float64 and y.tolist() == [1e20, 1.0]
    path.write_text("1,1\n2,99999999999999999999\n")
    with pytest.raises(DataFileError, match="i.csv:2: label '99999999999999999999' is not an "
                                            "integer below 2"):
        list(iter_csv(path, chunk_size=1))


def test_errors_are_data_file_errors_and_value_errors(tmp_path):
    path = tmp_path / "x.svm"
    path.write_text("1 1:1\n1 1:x\n")
    with pytest.raises(ValueError) as info:
        load_svmlight(path)
    assert isinstance(info.value, DataFileError)
    assert (info.value.path, info.value.line) == (str(path), 2)
    assert info.value.problem == "value 'x' of feature 1 is not a number"
    assert str(info.value) == f"{path}:2: value 'x' of feature 1 is not a number"
