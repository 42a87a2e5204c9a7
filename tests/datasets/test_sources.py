"""open_stream: every kind of source gives the chunks of the reader it stands for."""

import bz2
import gzip
import io
import os
import pickle
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from streamsvm.datasets import (
    GENERATOR_SOURCES,
    DataSourceError,
    UnknownSourceError,
    iter_csv,
    iter_dataset,
    iter_svmlight,
    list_datasets,
    make_synthetic_a,
    make_waveform,
    open_stream,
)
from streamsvm.datasets.sources import TEST_SEED_OFFSET

SVMLIGHT = b"+1 1:0.5 3:2\n-1 2:1.5\n# comment\n+1 1:-1 2:3e-1 3:4\n-1 3:0.25\n+1 1:7\n"
CSV = b"1,2,-1\n3,4.5,1\n-5,6,1\n7,8,-1\n"


def _dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


def _same_chunks(got, expected):
    got, expected = list(got), list(expected)
    assert [X.shape for X, _ in got] == [X.shape for X, _ in expected]
    for (X1, y1), (X2, y2) in zip(got, expected, strict=True):
        np.testing.assert_array_equal(_dense(X1), _dense(X2))
        np.testing.assert_array_equal(y1, y2)


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, data in (("a.svm", SVMLIGHT), ("b.csv", CSV), ("c.txt", SVMLIGHT)):
        (tmp_path / name).write_bytes(data)
        out[name] = tmp_path / name
    (tmp_path / "a.svm.gz").write_bytes(gzip.compress(SVMLIGHT))
    (tmp_path / "b.csv.bz2").write_bytes(bz2.compress(CSV))
    out["a.svm.gz"], out["b.csv.bz2"] = tmp_path / "a.svm.gz", tmp_path / "b.csv.bz2"
    return out


def test_files_read_like_their_reader(files):
    for name in ("a.svm", "a.svm.gz", "c.txt"):
        stream = open_stream(str(files[name]), chunk_size=2)
        assert stream.kind == "file"
        _same_chunks(stream, iter_svmlight(files["a.svm"], chunk_size=2))
    for name in ("b.csv", "b.csv.bz2"):
        _same_chunks(open_stream(files[name], chunk_size=3), iter_csv(files["b.csv"], chunk_size=3))
    # the format given wins over the suffix
    csv_named_txt = files["c.txt"].with_name("d.txt")
    csv_named_txt.write_bytes(CSV)
    _same_chunks(open_stream(str(csv_named_txt), format="csv"), iter_csv(files["b.csv"]))


def test_options_reach_the_reader_and_caps_apply(files):
    (X, y), = open_stream(str(files["a.svm"]), n_features=5, zero_based=False)
    assert X.shape == (5, 5)
    (X, y), = open_stream(str(files["b.csv"]), label_column=0)
    np.testing.assert_array_equal(y, [1, 3, -5, 7])
    (X, y), = open_stream(str(files["b.csv"]), label_column=None, n_samples=2)
    assert y is None and X.tolist() == [[1, 2, -1], [3, 4.5, 1]]
    chunks = list(open_stream(str(files["a.svm"]), chunk_size=2, n_samples=3))
    assert [X.shape[0] for X, _ in chunks] == [2, 1]
    with pytest.raises(TypeError, match="takes no option 'noise'.*label_column") as refused:
        open_stream(str(files["b.csv"]), noise=0.1)
    assert (refused.value.option, refused.value.what) == ("noise", "a CSV file")
    copy = pickle.loads(pickle.dumps(refused.value))
    assert (type(copy), str(copy)) == (type(refused.value), str(refused.value))
    with pytest.raises(DataSourceError, match="has 2 features; 3 were expected"):
        list(open_stream(str(files["b.csv"]), n_features=3))


def test_generators_by_their_typed_names():
    assert set(GENERATOR_SOURCES.values()) >= {"synthetic_a", "waveform", "checkerboard"}
    assert "waveform-generator" in GENERATOR_SOURCES and "waveform" in list_datasets()
    stream = open_stream("synthetic-a", n_samples=2500, chunk_size=1000, random_state=3)
    assert stream.kind == "generator"
    X = np.vstack([X for X, _ in stream])
    X_ref, _ = make_synthetic_a(2500, random_state=3)
    np.testing.assert_array_equal(X, X_ref)
    X_test = np.vstack([X for X, _ in open_stream("synthetic-a", subset="test", n_samples=10,
                                                  random_state=3)])
    X_ref_test, _ = make_synthetic_a(10, random_state=3 + TEST_SEED_OFFSET)
    np.testing.assert_array_equal(X_test, X_ref_test)
    (Xw, _), = open_stream("waveform-generator", n_samples=7, random_state=0)
    np.testing.assert_array_equal(Xw, make_waveform(7, random_state=0)[0])
    # without n_samples a generator stops after 100,000 examples
    assert sum(X.shape[0] for X, _ in open_stream("gauss", chunk_size=50_000)) == 100_000
    (Xn, _), = open_stream("checkerboard", n_samples=5, noise=0.5)  # a generator's option
    assert Xn.shape == (5, 2)


def test_datasets_by_name(need_dataset):
    need_dataset("banana")
    stream = open_stream("banana", subset="test", chunk_size=700)
    assert stream.kind == "dataset"
    _same_chunks(stream, iter_dataset("banana", subset="test", chunk_size=700))


def test_unknown_sources_list_what_exists(tmp_path):
    with pytest.raises(UnknownSourceError) as info:
        open_stream("no-such-data")
    message = str(info.value)
    assert "unknown dataset 'no-such-data'" in message
    assert "adult" in message and "synthetic-a" in message and "waveform-generator" in message
    for missing in (str(tmp_path / "nope"), "nope.svm", tmp_path / "nope"):
        with pytest.raises(FileNotFoundError, match="nope"):
            open_stream(missing)
    with pytest.raises(ValueError, match="format must be one of svmlight, csv, npz"):
        open_stream("synthetic-a", format="arff")
    with pytest.raises(TypeError, match="string or a path"):
        open_stream(3)


def test_errors_while_reading_name_the_file(tmp_path):
    bad = tmp_path / "bad.svm"
    bad.write_bytes(b"+1 1:0.5\n-1 1:oops\n")
    with pytest.raises(ValueError, match=r"bad\.svm:2: "):
        list(open_stream(str(bad)))
    broken = tmp_path / "broken.svm.gz"
    broken.write_bytes(gzip.compress(SVMLIGHT * 50)[:60])
    with pytest.raises(ValueError, match=r"broken\.svm\.gz"):
        list(open_stream(str(broken)))


def _stdin(monkeypatch, data: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


# mtime=0: a gzip header holds its time, and pytest-xdist's workers must collect equal ids
@pytest.mark.parametrize("data", [SVMLIGHT, gzip.compress(SVMLIGHT, mtime=0),
                                  bz2.compress(SVMLIGHT)])
def test_stdin_svmlight(monkeypatch, files, data):
    _stdin(monkeypatch, data)
    stream = open_stream("-", chunk_size=2)
    assert stream.kind == "stdin" and stream.description == "<stdin>"
    copy = stream._cleanup
    _same_chunks(stream, iter_svmlight(files["a.svm"], chunk_size=2))
    assert copy is not None and not os.path.exists(copy)  # the copy is removed


def test_stdin_csv_is_recognised_and_errors_name_stdin(monkeypatch, files):
    _stdin(monkeypatch, CSV)
    _same_chunks(open_stream("-"), iter_csv(files["b.csv"]))
    _stdin(monkeypatch, b"1 1:0.5\n1 1:0.5 2:x\n")
    with pytest.raises(DataSourceError, match=r"^<stdin>:2: ") as info:
        list(open_stream("-"))
    assert ".stdin" not in str(info.value)  # the temporary copy's name is not shown
