"""The papers' datasets by name, read from the folder named by ``STREAMSVM_DATA``.

Each named dataset is a file (or two) of that folder plus the papers' task on it (which
classes are positive). Binary tasks have labels ±1 with +1 the named class. Where a file has
no published split, a fixed-seed split is made and its seed and ratio are in the
description.
"""

from __future__ import annotations

import gzip
import os
import pathlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .readers import iter_arrays, load_svmlight

__all__ = [
    "DATA_ENV",
    "DatasetNotFoundError",
    "DatasetInfo",
    "data_home",
    "list_datasets",
    "describe_dataset",
    "dataset_available",
    "load_dataset",
    "iter_dataset",
]

DATA_ENV = "STREAMSVM_DATA"
SPLIT_SEED = 0
TEST_FRACTION = 0.25


class DatasetNotFoundError(FileNotFoundError):
    """A dataset file is not in the data folder."""


def data_home() -> pathlib.Path:
    """The data folder: ``$STREAMSVM_DATA``, else ``../shared/data`` if it exists."""
    home = os.environ.get(DATA_ENV)
    if home:
        return pathlib.Path(home)
    fallback = pathlib.Path("..") / "shared" / "data"
    if fallback.is_dir():
        return fallback.resolve()
    raise DatasetNotFoundError(
        f"no data folder: set the environment variable {DATA_ENV} to the folder holding the "
        "papers' datasets"
    )


def _path(name: str) -> pathlib.Path:
    home = data_home()
    path = home / name
    if not path.exists():
        raise DatasetNotFoundError(
            f"dataset file {name!r} is not in {home} (the folder named by {DATA_ENV})"
        )
    return path


@dataclass(frozen=True)
class DatasetInfo:
    """What is known about a named dataset."""

    name: str
    description: str
    files: tuple[str, ...]
    task: str
    n_train: int
    n_test: int
    n_features: int
    papers: str


@dataclass(frozen=True)
class _Entry:
    info: DatasetInfo
    load: Callable[[], tuple]  # -> (X_train, y_train, X_test, y_test)
    relabel: Callable | None = field(default=None)


# --------------------------------------------------------------------------- raw readers
def _svmlight_pair(train: str, test: str, n_features: int, zero_based: bool):
    X, y = load_svmlight(_path(train), n_features=n_features, zero_based=zero_based)
    Xt, yt = load_svmlight(_path(test), n_features=n_features, zero_based=zero_based)
    return X, y, Xt, yt


def _split(X, y, seed=SPLIT_SEED, test_fraction=TEST_FRACTION):
    order = np.random.default_rng(seed).permutation(X.shape[0])
    n_test = int(round(test_fraction * X.shape[0]))
    test, train = order[:n_test], order[n_test:]
    return X[train], y[train], X[test], y[test]


def _csv(name: str, label_dtype=None, repair=False, header=False):
    with _path(name).open("rb") as f:
        raw = f.read()
    if name.endswith(".gz"):
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8")
    lines = text.splitlines()
    if header:
        lines = lines[1:]
    if repair:
        lines = [line.replace("\t", "") for line in lines]
    table = np.array([line.split(",") for line in lines if line.strip()])
    X = np.ascontiguousarray(table[:, :-1].astype(np.float64))
    labels = np.char.strip(table[:, -1])
    y = labels.astype(label_dtype) if label_dtype else labels
    return X, y


def _mnist():
    def idx(name, offset):
        with gzip.open(_path(f"mnist/{name}"), "rb") as f:
            return np.frombuffer(f.read(), dtype=np.uint8, offset=offset)

    X = idx("train-images.idx3-ubyte.gz", 16).reshape(-1, 784) / 255.0
    y = idx("train-labels.idx1-ubyte.gz", 8).astype(np.int64)
    Xt = idx("t10k-images.idx3-ubyte.gz", 16).reshape(-1, 784) / 255.0
    yt = idx("t10k-labels.idx1-ubyte.gz", 8).astype(np.int64)
    return X, y, Xt, yt


def _usps():
    with np.load(_path("usps.npz"), allow_pickle=False) as f:
        return f["X_train"], f["y_train"].astype(np.int64), f["X_test"], f["y_test"].astype(np.int64)


# --------------------------------------------------------------------------- tasks
def _binary(positive: Callable[[np.ndarray], np.ndarray]):
    def relabel(y):
        return np.where(positive(y), 1, -1)

    return relabel


ROUND_DIGITS = (0, 3, 6, 8, 9)
_REGISTRY: dict[str, _Entry] = {}


def _register(name, description, files, task, n_train, n_test, n_features, papers, load, relabel=None):
    _REGISTRY[name] = _Entry(
        DatasetInfo(name, description, tuple(files), task, n_train, n_test, n_features, papers),
        load,
        relabel,
    )


_split_note = f"no published split: {int(TEST_FRACTION * 100)}% test drawn with seed {SPLIT_SEED}"

_register("adult", "Adult (a9a): income > 50K", ["adult.trn.bz2", "adult.tst.bz2"], "binary",
          32561, 16281, 123, "TVM, LASVM, LASVM-NC, active learning",
          lambda: _svmlight_pair("adult.trn.bz2", "adult.tst.bz2", 123, True))
_register("ijcnn1", "IJCNN 2001 challenge", ["ijcnn1.trn.bz2", "ijcnn1.tst.bz2"], "binary",
          49990, 91701, 22, "StreamSVM, Blurred Ball, TVM",
          lambda: _svmlight_pair("ijcnn1.trn.bz2", "ijcnn1.tst.bz2", 22, False))
_register("w3a", "w3a web pages; the papers train on the larger file w3a.t and test on w3a",
          ["w3a.t.bz2", "w3a.bz2"], "binary", 44837, 4912, 300, "StreamSVM, Blurred Ball",
          lambda: _svmlight_pair("w3a.t.bz2", "w3a.bz2", 300, False))
_register("reuters-moneyfx", "Reuters-21578, topic money-fx vs rest, tf-idf",
          ["reuters.trn.bz2", "reuters.tst.bz2"], "binary", 7770, 3299, 8315,
          "LASVM, LASVM-NC, active learning",
          lambda: _svmlight_pair("reuters.trn.bz2", "reuters.tst.bz2", 8315, False))


def _abalone():
    X, rings = load_svmlight(_path("abalone.trn.bz2"), n_features=8, zero_based=False)
    return _split(X.toarray(), rings.astype(np.int64))


_register("abalone-7", f"Abalone, rings == 7 vs rest; {_split_note}", ["abalone.trn.bz2"], "binary",
          3133, 1044, 8, "active learning", _abalone, _binary(lambda r: r == 7))


def _waveform_file():
    X, y = _csv("waveform.data", np.int64, repair=True)
    return X[:4000], y[:4000], X[4000:], y[4000:]


_waveform_doc = ("Waveform (UCI), first 4000 rows train, last 1000 test (as StreamSVM's Table 1); "
                 "line 43 of the file (row 42 counting from 0) has a stray tab inside a number (0.6<tab>8), repaired to 0.68")
_register("waveform", _waveform_doc, ["waveform.data"], "3 classes", 4000, 1000, 21,
          "StreamSVM, TVM, LASVM", _waveform_file)
_register("waveform-0vrest", _waveform_doc + "; class 0 vs rest", ["waveform.data"], "binary",
          4000, 1000, 21, "LASVM", _waveform_file, _binary(lambda y: y == 0))

_mnist_files = ["mnist/train-images.idx3-ubyte.gz", "mnist/train-labels.idx1-ubyte.gz",
                "mnist/t10k-images.idx3-ubyte.gz", "mnist/t10k-labels.idx1-ubyte.gz"]


def _mnist_pair(a, b):
    def load():
        X, y, Xt, yt = _mnist()
        keep, keep_t = np.isin(y, (a, b)), np.isin(yt, (a, b))
        return X[keep], y[keep], Xt[keep_t], yt[keep_t]

    return load


_register("mnist", "MNIST digits, pixels / 255", _mnist_files, "10 classes", 60000, 10000, 784,
          "StreamSVM, Blurred Ball, LASVM, active learning", _mnist)
_register("mnist-0v1", "MNIST digit 0 (-1) vs 1 (+1)", _mnist_files, "binary", 12665, 2115, 784,
          "StreamSVM, Blurred Ball", _mnist_pair(0, 1), _binary(lambda y: y == 1))
_register("mnist-8v9", "MNIST digit 8 (-1) vs 9 (+1)", _mnist_files, "binary", 11800, 1983, 784,
          "StreamSVM, Blurred Ball", _mnist_pair(8, 9), _binary(lambda y: y == 9))
_register("mnist-8vrest", "MNIST digit 8 (+1) vs the rest", _mnist_files, "binary", 60000, 10000, 784,
          "LASVM, active learning", _mnist, _binary(lambda y: y == 8))
_register("usps", "USPS digits, pixels in [0, 1]", ["usps.npz"], "10 classes", 7291, 2007, 256,
          "TVM, LASVM, active learning", _usps)
_register("usps-0vrest", "USPS digit 0 (+1) vs the rest", ["usps.npz"], "binary", 7291, 2007, 256,
          "LASVM, active learning", _usps, _binary(lambda y: y == 0))
_register("usps-round", "USPS round digits 0,3,6,8,9 (+1) vs 1,2,4,5,7", ["usps.npz"], "binary",
          7291, 2007, 256, "TVM", _usps, _binary(lambda y: np.isin(y, ROUND_DIGITS)))


def _csv_split(name, label_dtype=None, header=False):
    def load():
        X, y = _csv(name, label_dtype, header=header)
        return _split(X, y)

    return load


_register("banana", f"Banana (2-D); {_split_note}", ["banana.dat.gz"], "binary", 3975, 1325, 2,
          "TVM, LASVM, LASVM-NC", _csv_split("banana.dat.gz", np.float64), _binary(lambda y: y > 0))
_register("letter", f"Letter recognition A-Z; {_split_note}", ["letter.dat.gz"], "26 classes",
          15000, 5000, 16, "TVM, active learning", _csv_split("letter.dat.gz"))
_register("letter-am-vs-nz", f"Letter, A-M (-1) vs N-Z (+1); {_split_note}", ["letter.dat.gz"], "binary",
          15000, 5000, 16, "TVM", _csv_split("letter.dat.gz"), _binary(lambda y: y >= "N"))
_register("letter-a-vs-rest", f"Letter, A (+1) vs the rest; {_split_note}", ["letter.dat.gz"], "binary",
          15000, 5000, 16, "active learning", _csv_split("letter.dat.gz"), _binary(lambda y: y == "A"))
_register("pendigits", f"Pen-based digits 0-9; {_split_note}", ["penbased.dat.gz"], "10 classes",
          8244, 2748, 16, "TVM", _csv_split("penbased.dat.gz", np.int64))
_register("pendigits-round", f"Pendigits round 0,3,6,8,9 (+1) vs 1,2,4,5,7; {_split_note}",
          ["penbased.dat.gz"], "binary", 8244, 2748, 16, "TVM",
          _csv_split("penbased.dat.gz", np.int64), _binary(lambda y: np.isin(y, ROUND_DIGITS)))
_register("satimage-4vrest", f"Statlog Satimage, class 4 (+1) vs the rest; {_split_note}",
          ["satimage.dat.gz"], "binary", 4826, 1609, 36, "active learning",
          _csv_split("satimage.dat.gz", np.int64), _binary(lambda y: y == 4))
_register("optdigits", f"Optical digits 0-9; {_split_note}", ["optdigits.dat.gz"], "10 classes",
          4215, 1405, 64, "extra", _csv_split("optdigits.dat.gz", np.int64))


def _shuttle():
    X, y = _csv("shuttle.csv.gz", header=True)
    y = np.array([label.strip('"') for label in y])
    return X[:43500], y[:43500], X[43500:], y[43500:]


_register("shuttle-1vrest", "Statlog Shuttle, class 1 (Rad.Flow, -1) vs the rest (+1) as in the TVM "
          "paper; first 43500 rows train (the official part), the rest test", ["shuttle.csv.gz"],
          "binary", 43500, 14500, 9, "TVM", _shuttle,
          _binary(lambda y: ~np.isin(y, ("1", "Rad.Flow", "Rad Flow"))))


# --------------------------------------------------------------------------- public API
def list_datasets() -> list[str]:
    """Names of the datasets this library knows."""
    return list(_REGISTRY)


def _entry(name: str) -> _Entry:
    if name not in _REGISTRY:
        raise ValueError(f"unknown dataset {name!r}; choose one of: {', '.join(_REGISTRY)}")
    return _REGISTRY[name]


def describe_dataset(name: str) -> DatasetInfo:
    """Description, files, task, sizes and the papers that use it."""
    return _entry(name).info


def dataset_available(name: str) -> bool:
    """Whether every file of the dataset is in the data folder."""
    try:
        home = data_home()
    except DatasetNotFoundError:
        return False
    return all((home / f).exists() for f in _entry(name).info.files)


def load_dataset(name: str, *, subset: str = "train"):
    """``(X, y)`` of a named dataset: ``subset`` is "train", "test" or "all".

    Raises :class:`DatasetNotFoundError` naming the missing file.
    """
    entry = _entry(name)
    if subset not in ("train", "test", "all"):
        raise ValueError(f"subset must be 'train', 'test' or 'all'; got {subset!r}")
    X, y, Xt, yt = entry.load()
    if entry.relabel is not None:
        y, yt = entry.relabel(y), entry.relabel(yt)
    if subset == "train":
        return X, y
    if subset == "test":
        return Xt, yt
    import scipy.sparse as sp

    stack = sp.vstack if sp.issparse(X) else np.vstack
    return stack([X, Xt]), np.concatenate([y, yt])


def iter_dataset(name: str, *, subset: str = "train", chunk_size: int = 10_000):
    """Chunks of a named dataset (loaded once, then streamed in file order)."""
    X, y = load_dataset(name, subset=subset)
    return iter_arrays(X, y, chunk_size=chunk_size)

