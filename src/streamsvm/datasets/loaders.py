"""The papers' real datasets by name, read from the folder ``$STREAMSVM_DATA``.

Every named dataset is a set of files under :func:`data_home` plus a recipe: which
reader, which split, which classes. Binary tasks have labels ``+1`` (the class named
first in the dataset's name) and ``-1`` (int64); multi-class sets keep the file's labels.
Where the files give no train/test split, the rows are split once by a fixed permutation
(``numpy.random.default_rng(SPLIT_SEED).permutation``, ``SPLIT_SEED = 0``); the first
``n_train`` permuted rows are the training part; both parts keep the file's row order.
The split sizes follow the papers (see each dataset's ``split``).

>>> "mnist-0v1" in list_datasets()
True
>>> info = describe_dataset("w3a")
>>> info.files, info.n_train, info.n_test
(('w3a.t.bz2', 'w3a.bz2'), 44837, 4912)
"""

from __future__ import annotations

import gzip
import os
import re
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .files import data_file_name
from .readers import (
    _check_float_dtype,
    _check_positive_int,
    _iter_csv_bytes,
    _open_binary,
    _rechunk,
    concat_chunks,
    iter_arrays,
    iter_svmlight,
    load_csv,
    load_svmlight,
)

__all__ = [
    "DATA_ENV",
    "SPLIT_SEED",
    "DatasetNotFoundError",
    "DatasetInfo",
    "data_home",
    "list_datasets",
    "describe_dataset",
    "dataset_available",
    "load_dataset",
    "iter_dataset",
    "load_waveform_file",
    "iter_mnist",
]

DATA_ENV = "STREAMSVM_DATA"
SPLIT_SEED = 0
_FALLBACK = Path("..") / "shared" / "data"
_SUBSETS = ("train", "test", "all")

# the papers whose experiments use each dataset (full references: docs/references.md)
STREAMSVM = "Rai, Daumé III & Venkatasubramanian, Streamed Learning: One-Pass SVMs (2009)"
BLURRED = "Nathan & Raghvendra, Accurate Streaming Support Vector Machines (2014)"
TVM = "Wang & Vucetic, Twin Vector Machines for Online Learning on a Budget (2009)"
LASVM = (
    "Bordes, Ertekin, Weston & Bottou, Fast Kernel Classifiers with Online and Active Learning "
    "(2005)"
)
LASVM_NC = "Ertekin, Bottou & Giles, Nonconvex Online Support Vector Machines (2011)"
ACTIVE = (
    "Ertekin, Huang, Bottou & Giles, Learning on the Border: Active Learning in Imbalanced Data "
    "Classification (2007)"
)


class DatasetNotFoundError(FileNotFoundError):
    """A dataset file (or the data folder) is missing.

    ``path`` is the missing file or folder; the message says where it was looked for
    and that the folder comes from the environment variable ``STREAMSVM_DATA``.
    """

    def __init__(self, message, path=None):
        super().__init__(message)
        self.path = None if path is None else str(path)


def data_home() -> Path:
    """The folder of the datasets: ``$STREAMSVM_DATA``, else ``../shared/data`` if it exists.

    The fallback is taken relative to the current working folder. Raises
    :class:`DatasetNotFoundError` when ``STREAMSVM_DATA`` names no folder, or is unset
    and the fallback does not exist.

    >>> import os
    >>> os.environ["STREAMSVM_DATA"] = "/work/shared/data"  # doctest: +SKIP
    >>> data_home()  # doctest: +SKIP
    PosixPath('/work/shared/data')
    """
    value = os.environ.get(DATA_ENV)
    if value:
        path = Path(value).expanduser()
        if not path.is_dir():
            raise DatasetNotFoundError(
                f"{DATA_ENV}={value} is not a folder; set the environment variable {DATA_ENV} "
                "to the folder that holds the datasets", path)
        return path
    if _FALLBACK.is_dir():
        return _FALLBACK.resolve()
    raise DatasetNotFoundError(
        f"no data folder: the environment variable {DATA_ENV} is not set and "
        f"{_FALLBACK} (relative to {Path.cwd()}) does not exist; set {DATA_ENV} to the "
        "folder that holds the datasets", _FALLBACK)


@dataclass(frozen=True)
class DatasetInfo:
    """What is known about a named dataset (see :func:`describe_dataset`)."""

    name: str
    description: str
    files: tuple[str, ...]
    n_train: int
    n_test: int
    n_features: int
    task: str  # "binary" or "multiclass"
    n_classes: int
    positive: str  # what +1 means for binary tasks, "" otherwise
    split: str
    papers: tuple[str, ...]


@dataclass(frozen=True)
class _Entry:
    info: DatasetInfo
    # (subset, chunk_size, dtype) -> chunks of the base data, before the task's labels
    chunks: Callable[[str, int, np.dtype], Iterator]
    keep: Callable | None = None  # labels -> bool mask of rows that belong to the task
    positive: Callable | None = None  # labels -> bool mask of the +1 class


_REGISTRY: dict[str, _Entry] = {}


def _file(name: str, dataset: str) -> Path:
    home = data_home()
    path = home / name
    if not path.is_file():
        origin = (f"the folder named by the environment variable {DATA_ENV}"
                  if os.environ.get(DATA_ENV) else
                  f"the fallback folder, as the environment variable {DATA_ENV} is not set")
        raise DatasetNotFoundError(
            f"dataset {dataset!r} needs the file {name!r}, which is not in {home} ({origin}); "
            f"set {DATA_ENV} to the folder that holds it", path)
    return path


# --------------------------------------------------------------------------- chunk tools
def _seeded_split(n_rows, n_train):
    order = np.random.default_rng(SPLIT_SEED).permutation(n_rows)
    return np.sort(order[:n_train]), np.sort(order[n_train:])


def _split_rows(subset, n_rows, n_train, seeded):
    """Row indices of ``subset`` (train part, then test part for ``all``)."""
    if seeded:
        train, test = _seeded_split(n_rows, n_train)
    else:
        train, test = np.arange(n_train), np.arange(n_train, n_rows)
    if subset == "train":
        return train
    if subset == "test":
        return test
    return np.concatenate([train, test])


def _in_memory(load, n_train, seeded):
    """Chunks of a small dataset that is read whole, then split."""

    def chunks(subset, chunk_size, dtype):
        X, y = load(dtype)
        if X.shape[0] < n_train:
            raise ValueError(f"expected more than {n_train} rows, the file has {X.shape[0]}")
        rows = _split_rows(subset, X.shape[0], n_train, seeded)
        return iter_arrays(X[rows], y[rows], chunk_size=chunk_size)

    return chunks


def _two_files(train_chunks, test_chunks):
    def chunks(subset, chunk_size, dtype):
        if subset == "train":
            return train_chunks(chunk_size, dtype)
        if subset == "test":
            return test_chunks(chunk_size, dtype)
        return _chain(train_chunks(chunk_size, dtype), test_chunks(chunk_size, dtype))

    return chunks


def _chain(*streams):
    for stream in streams:
        yield from stream


# --------------------------------------------------------------------------- file readers
def _svmlight_source(dataset, train, test, n_features, zero_based):
    def reader(file):
        def chunks(chunk_size, dtype):
            return iter_svmlight(_file(file, dataset), chunk_size=chunk_size,
                                 n_features=n_features, zero_based=zero_based, dtype=dtype)
        return chunks

    return _two_files(reader(train), reader(test))


def _read_idx(path, magic, dims):
    """Open an IDX (gzip) file, check its header; return the file and the dimensions."""
    f = gzip.open(path, "rb")
    header = f.read(4 + 4 * dims)
    if len(header) < 4 + 4 * dims:
        f.close()
        raise ValueError(f"{path} is too short for an IDX header")
    values = struct.unpack(f">{1 + dims}I", header)
    if values[0] != magic:
        f.close()
        raise ValueError(f"{path} is not an IDX file with {dims} dimensions "
                         f"(magic number {values[0]}, expected {magic})")
    return f, values[1:]


def iter_mnist(images, labels, *, chunk_size=10_000, dtype=np.float64) -> Iterator:
    """Stream MNIST IDX files (gzip) as ``(X, y)``: pixels scaled to [0, 1], int64 digits.

    ``images`` holds a 16-byte header (magic 2051, count, rows, columns) and one byte per
    pixel; ``labels`` an 8-byte header (magic 2049, count) and one byte per label. Only
    one chunk of images is in memory at a time.

    >>> import gzip, pathlib, struct, tempfile, numpy as np
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with gzip.open(folder / "img.gz", "wb") as f:
    ...     _ = f.write(struct.pack(">4I", 2051, 2, 2, 2) + bytes([0, 255, 51, 0, 0, 0, 0, 255]))
    >>> with gzip.open(folder / "lab.gz", "wb") as f:
    ...     _ = f.write(struct.pack(">2I", 2049, 2) + bytes([3, 8]))
    >>> X, y = next(iter_mnist(folder / "img.gz", folder / "lab.gz"))
    >>> X.tolist(), y.tolist()
    ([[0.0, 1.0, 0.2, 0.0], [0.0, 0.0, 0.0, 1.0]], [3, 8])
    """
    chunk_size = _check_positive_int(chunk_size, "chunk_size")
    dtype = _check_float_dtype(dtype)
    for path in (images, labels):
        data_file_name(path)
    return _mnist_chunks(images, labels, chunk_size, dtype)


def _mnist_chunks(images, labels, chunk_size, dtype):
    f, (n_labels,) = _read_idx(labels, 2049, 1)
    with f:
        y = np.frombuffer(f.read(n_labels), dtype=np.uint8).astype(np.int64)
    if y.shape[0] != n_labels:
        raise ValueError(f"{labels} holds {y.shape[0]} labels, its header says {n_labels}")
    f, (n_images, n_rows, n_cols) = _read_idx(images, 2051, 3)
    if n_images != n_labels:
        f.close()
        raise ValueError(f"{images} holds {n_images} images but {labels} {n_labels} labels")
    size = n_rows * n_cols
    with f:
        for start in range(0, n_images, chunk_size):
            k = min(chunk_size, n_images - start)
            raw = f.read(k * size)
            if len(raw) != k * size:
                raise ValueError(f"{images} ends after {start + len(raw) // size} of "
                                 f"{n_images} images")
            X = np.frombuffer(raw, dtype=np.uint8).reshape(k, size).astype(dtype)
            X /= 255.0
            yield X, y[start:start + k]


def _mnist_source(dataset):
    def part(prefix):
        def chunks(chunk_size, dtype):
            return iter_mnist(_file(f"mnist/{prefix}-images.idx3-ubyte.gz", dataset),
                              _file(f"mnist/{prefix}-labels.idx1-ubyte.gz", dataset),
                              chunk_size=chunk_size, dtype=dtype)
        return chunks

    return _two_files(part("train"), part("t10k"))


def _usps_source(dataset):
    def part(key):
        def chunks(chunk_size, dtype):
            with np.load(_file("usps.npz", dataset), allow_pickle=False) as archive:
                X = archive[f"X_{key}"].astype(dtype)
                y = archive[f"y_{key}"].astype(np.int64)
            return iter_arrays(X, y, chunk_size=chunk_size)
        return chunks

    return _two_files(part("train"), part("test"))


def load_waveform_file(path, *, dtype=np.float64):
    """Read UCI's ``waveform.data`` into ``(X, y)`` (5000 x 21, classes 0/1/2), repaired.

    The published file has a stray tab inside a number on line 43 (``0.6<TAB>8``, row 42
    counted from 0, which stands for 0.68), so the generic :func:`iter_csv` refuses it.
    This loader removes blanks (spaces and tabs) inside every field before parsing;
    nothing else is changed.

    >>> X, y = load_waveform_file(data_home() / "waveform.data")  # doctest: +SKIP
    >>> X[42, 20]  # doctest: +SKIP
    0.68
    """
    name = os.fspath(path)
    with _open_binary(name) as f:
        data = re.sub(rb"[ \t]+", b"", f.read())
    return concat_chunks(_iter_csv_bytes(data, name, chunk_size=10_000, header=False,
                                         dtype=dtype))


def _csv_loader(dataset, file, **kwargs):
    def load(dtype):
        return load_csv(_file(file, dataset), dtype=dtype, **kwargs)
    return load


def _svmlight_loader(dataset, file, **kwargs):
    def load(dtype):
        return load_svmlight(_file(file, dataset), dtype=dtype, **kwargs)
    return load


# --------------------------------------------------------------------------- registry
def _seeded(n_train, n_test, why):
    total = n_train + n_test
    return (f"seeded: {n_train} / {n_test} rows ({100 * n_train / total:.1f}% / "
            f"{100 * n_test / total:.1f}%) by a permutation with seed {SPLIT_SEED}; {why}")


def _register(name, description, files, n_train, n_test, n_features, n_classes, split,
              papers, chunks, positive_text="", keep=None, positive=None):
    task = "binary" if positive is not None else "multiclass"
    if split.startswith("seeded"):  # no published split: say how it was made
        share = 100 * n_train / (n_train + n_test)
        description += (f"; seeded split {n_train} / {n_test} ({share:.1f}% / "
                        f"{100 - share:.1f}%), seed {SPLIT_SEED}")
    info = DatasetInfo(name=name, description=description, files=tuple(files),
                       n_train=n_train, n_test=n_test, n_features=n_features, task=task,
                       n_classes=2 if positive is not None else n_classes,
                       positive=positive_text, split=split, papers=tuple(papers))
    _REGISTRY[name] = _Entry(info=info, chunks=chunks, keep=keep, positive=positive)


def _register_svmlight(name, description, train, test, n_train, n_test, n_features, papers,
                       positive_text, *, zero_based=False, split=None):
    """A binary dataset in two svmlight files, ``train`` and ``test``, whose label +1 is the
    positive class; its split is the published one unless ``split`` says otherwise."""
    _register(name, description, (train, test), n_train, n_test, n_features, 2,
              split or f"published: {train} / {test}", papers,
              _svmlight_source(name, train, test, n_features, zero_based), positive_text,
              positive=_plus_one)


def _isin(values):
    values = np.asarray(values)
    return lambda y: np.isin(y, values)


def _plus_one(y):
    return y == 1


_MNIST_FILES = tuple(f"mnist/{p}-{k}.idx{d}-ubyte.gz" for p in ("train", "t10k")
                     for k, d in (("images", 3), ("labels", 1)))
_MNIST_SPLIT = "published: 60000 training images (train-*), 10000 test images (t10k-*)"
_register("mnist", "MNIST handwritten digits 0-9, 28x28 pixels scaled to [0, 1]",
          _MNIST_FILES, 60000, 10000, 784, 10, _MNIST_SPLIT, (STREAMSVM, BLURRED, LASVM, ACTIVE),
          _mnist_source("mnist"))
_register("mnist-0v1", "MNIST digits 0 (+1) and 1 (-1) only; pixels in [0, 1]", _MNIST_FILES,
          12665, 2115, 784, 2, _MNIST_SPLIT + ", rows of digits 0 and 1 only",
          (STREAMSVM, BLURRED), _mnist_source("mnist-0v1"), "digit 0",
          keep=_isin([0, 1]), positive=_isin([0]))
_register("mnist-8v9", "MNIST digits 8 (+1) and 9 (-1) only; pixels in [0, 1]", _MNIST_FILES,
          11800, 1983, 784, 2, _MNIST_SPLIT + ", rows of digits 8 and 9 only",
          (STREAMSVM, BLURRED), _mnist_source("mnist-8v9"), "digit 8",
          keep=_isin([8, 9]), positive=_isin([8]))
_register("mnist-8vrest", "MNIST digit 8 (+1) against all other digits (-1)", _MNIST_FILES,
          60000, 10000, 784, 2, _MNIST_SPLIT, (ACTIVE,), _mnist_source("mnist-8vrest"),
          "digit 8", positive=_isin([8]))

_register_svmlight("adult", "Adult census income (LIBSVM a9a), 123 binary features; "
                   "+1 = income > 50K", "adult.trn.bz2", "adult.tst.bz2", 32561, 16281, 123,
                   (TVM, LASVM, LASVM_NC, ACTIVE), "income > 50K (label +1 of the file)",
                   zero_based=True)
_register_svmlight("ijcnn1", "IJCNN 2001 neural network competition, 22 features",
                   "ijcnn1.trn.bz2", "ijcnn1.tst.bz2", 49990, 91701, 22,
                   (STREAMSVM, BLURRED, TVM), "label +1 of the file")
_register_svmlight("w3a", "w3a web page classification (LIBSVM), 300 binary features",
                   "w3a.t.bz2", "w3a.bz2", 44837, 4912, 300, (STREAMSVM, BLURRED),
                   "label +1 of the file",
                   split="as in the papers: train on the larger file w3a.t.bz2, test on w3a.bz2")
_register_svmlight("reuters-moneyfx", "Reuters-21578 topic money-fx (+1) against the rest, "
                   "tf-idf", "reuters.trn.bz2", "reuters.tst.bz2", 7770, 3299, 8315,
                   (LASVM, LASVM_NC, ACTIVE), "topic money-fx")

_register("usps", "USPS handwritten digits 0-9, 16x16 pixels in [0, 1]", ("usps.npz",),
          7291, 2007, 256, 10, "published: X_train/y_train and X_test/y_test of usps.npz",
          (TVM, LASVM, ACTIVE), _usps_source("usps"))
_register("usps-0vrest", "USPS digit 0 (+1) against the other digits (-1)", ("usps.npz",),
          7291, 2007, 256, 2, "published (usps.npz)", (LASVM, ACTIVE),
          _usps_source("usps-0vrest"), "digit 0", positive=_isin([0]))
_register("usps-round", "USPS round digits 0, 3, 6, 8, 9 (+1) against 1, 2, 4, 5, 7 (-1)",
          ("usps.npz",), 7291, 2007, 256, 2, "published (usps.npz)", (TVM,),
          _usps_source("usps-round"), "digits 0, 3, 6, 8, 9", positive=_isin([0, 3, 6, 8, 9]))

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
for _name, _n_train, _desc, _pos, _ptext, _papers in (
    ("letter", 16000, "Letter recognition, 26 classes A-Z, 16 integer features", None, "",
     (TVM, ACTIVE)),
    ("letter-am-vs-nz", 16000, "Letter recognition: A-M (+1) against N-Z (-1)",
     _isin(list(_LETTERS[:13])), "letters A-M (the TVM paper calls N-Z positive)", (TVM,)),
    ("letter-a-vs-rest", 18000, "Letter recognition: A (+1) against all other letters (-1)",
     _isin(["A"]), "letter A", (ACTIVE,)),
):
    _register(_name, _desc, ("letter.dat.gz",), _n_train, 20000 - _n_train, 16, 26,
              _seeded(_n_train, 20000 - _n_train, "the file is not in UCI's order"), _papers,
              _in_memory(_csv_loader(_name, "letter.dat.gz"), _n_train, True), _ptext,
              positive=_pos)

for _name, _desc, _pos, _ptext in (
    ("pendigits", "Pen-based handwritten digits 0-9, 16 features", None, ""),
    ("pendigits-round", "Pen-based digits: round 0, 3, 6, 8, 9 (+1) against 1, 2, 4, 5, 7 (-1)",
     _isin([0, 3, 6, 8, 9]), "digits 0, 3, 6, 8, 9"),
):
    _register(_name, _desc, ("penbased.dat.gz",), 7494, 3498, 16, 10,
              _seeded(7494, 3498, "the sizes of UCI's split; the file mixes UCI's training "
                      "and test rows"), (TVM,),
              _in_memory(_csv_loader(_name, "penbased.dat.gz"), 7494, True), _ptext,
              positive=_pos)

for _name, _desc, _pos, _ptext in (
    ("satimage", "Statlog Landsat satellite image, classes 1, 2, 3, 4, 5, 7; 36 features",
     None, ""),
    ("satimage-4vrest", "Statlog Satimage class 4 (damp grey soil, +1) against the rest",
     _isin([4]), "class 4 (damp grey soil)"),
):
    _register(_name, _desc, ("satimage.dat.gz",), 4435, 2000, 36, 6,
              _seeded(4435, 2000, "the sizes of UCI's split; the file is not in UCI's order"),
              (ACTIVE,),
              _in_memory(_csv_loader(_name, "satimage.dat.gz"), 4435, True), _ptext,
              positive=_pos)

for _name, _desc, _pos, _ptext in (
    ("shuttle", "Statlog Shuttle, 7 classes (Rad.Flow, High, Bypass, ...), 9 features", None, ""),
    ("shuttle-1vrest", "Statlog Shuttle class 1 = Rad.Flow (+1) against the other 6 classes",
     _isin(["Rad.Flow"]), "class 1, Rad.Flow (the TVM paper calls it negative)"),
):
    _register(_name, _desc, ("shuttle.csv.gz",), 43500, 14500, 9, 7,
              "published: the first 43500 rows train, the other 14500 test", (TVM,),
              _in_memory(_csv_loader(_name, "shuttle.csv.gz"), 43500, False), _ptext,
              positive=_pos)

_register("abalone-7", "Abalone (scaled): 7 rings (+1) against any other number of rings",
          ("abalone.trn.bz2",), 3759, 418, 8, 2,
          _seeded(3759, 418, "as in the active learning paper"), (ACTIVE,),
          _in_memory(_svmlight_loader("abalone-7", "abalone.trn.bz2", n_features=8,
                                      zero_based=False), 3759, True),
          "7 rings", positive=_isin([7]))


def _waveform_loader(dataset):
    def load(dtype):
        return load_waveform_file(_file("waveform.data", dataset), dtype=dtype)
    return load


for _name, _desc, _pos, _ptext in (
    ("waveform", "Breiman's waveform (UCI), classes 0, 1, 2; 21 noisy features; the stray "
     "tab on line 43 of the file is repaired (see load_waveform_file)", None, ""),
    ("waveform-0vrest", "Waveform class 0 (+1) against classes 1 and 2 (-1); file repaired as "
     "for 'waveform'", _isin([0]), "class 0"),
):
    _register(_name, _desc, ("waveform.data",), 4000, 1000, 21, 3,
              _seeded(4000, 1000, "as in the StreamSVM and LASVM papers"),
              (STREAMSVM, TVM, LASVM),
              _in_memory(_waveform_loader(_name), 4000, True), _ptext, positive=_pos)

_register("banana", "Banana: two banana-shaped classes in 2-D (labels +1/-1)",
          ("banana.dat.gz",), 4000, 1300, 2, 2,
          _seeded(4000, 1300, "as in the LASVM paper; the TVM paper used 4300 / 1000"),
          (TVM, LASVM, LASVM_NC),
          _in_memory(_csv_loader("banana", "banana.dat.gz"), 4000, True), "label +1 of the file",
          positive=_plus_one)
_register("optdigits", "Optical recognition of handwritten digits 0-9, 8x8 counts in 0..16",
          ("optdigits.dat.gz",), 3823, 1797, 64, 10,
          "published: the first 3823 rows are UCI's optdigits.tra, the other 1797 optdigits.tes",
          (), _in_memory(_csv_loader("optdigits", "optdigits.dat.gz"), 3823, False))


# --------------------------------------------------------------------------- public API
def list_datasets() -> list[str]:
    """Names of the datasets, sorted.

    >>> list_datasets()[:3]
    ['abalone-7', 'adult', 'banana']
    """
    return sorted(_REGISTRY)


def _entry(name) -> _Entry:
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown dataset {name!r}; choose one of: "
                         f"{', '.join(list_datasets())}") from None


def describe_dataset(name) -> DatasetInfo:
    """Description, files, sizes, task, positive class, split and papers of a dataset.

    >>> info = describe_dataset("mnist-8v9")
    >>> info.task, info.positive, info.n_train, info.n_test, info.n_features
    ('binary', 'digit 8', 11800, 1983, 784)
    """
    return _entry(name).info


def dataset_available(name) -> bool:
    """Whether every file of the dataset is in the data folder (False without a folder).

    >>> dataset_available("adult") in (True, False)
    True
    """
    info = _entry(name).info
    try:
        home = data_home()
    except DatasetNotFoundError:
        return False
    return all((home / file).is_file() for file in info.files)


def iter_dataset(name, *, subset="train", chunk_size=10_000, dtype=np.float64) -> Iterator:
    """Stream a named dataset as ``(X, y)`` chunks of ``chunk_size`` rows.

    ``subset`` is ``"train"``, ``"test"`` or ``"all"`` (the training rows, then the test
    rows). Large files (MNIST, the svmlight sets) are streamed from disk; the small CSV
    sets are read whole, then split. Raises :class:`DatasetNotFoundError` naming the
    missing file.

    >>> for X, y in iter_dataset("ijcnn1", chunk_size=5_000):  # doctest: +SKIP
    ...     model.partial_fit(X, y, classes=[-1, 1])
    """
    entry = _entry(name)
    if subset not in _SUBSETS:
        raise ValueError(f"subset must be one of {', '.join(_SUBSETS)}; got {subset!r}")
    chunk_size = _check_positive_int(chunk_size, "chunk_size")
    dtype = _check_float_dtype(dtype)
    for file in entry.info.files:  # fail now, not at the first chunk
        _file(file, name)
    return _task_chunks(entry, subset, chunk_size, dtype)


def _task_chunks(entry, subset, chunk_size, dtype):
    chunks = entry.chunks(subset, chunk_size, dtype)
    if subset == "all":  # the training part's last chunk may be short: regroup
        chunks = _rechunk(chunks, chunk_size)
    if entry.keep is None and entry.positive is None:
        yield from chunks
        return

    def relabel(stream):
        for X, y in stream:
            if entry.keep is not None:
                rows = np.flatnonzero(entry.keep(y))
                X, y = X[rows], y[rows]
            yield X, np.where(entry.positive(y), 1, -1).astype(np.int64)

    if entry.keep is None:
        yield from relabel(chunks)
    else:  # filtering leaves short pieces: regroup them
        yield from _rechunk(relabel(chunks), chunk_size)


def load_dataset(name, *, subset="train", dtype=np.float64):
    """Read a named dataset into ``(X, y)``: CSR for svmlight sets, dense otherwise.

    See :func:`iter_dataset` for ``subset``; :func:`describe_dataset` tells the sizes.

    >>> X, y = load_dataset("adult", subset="test")  # doctest: +SKIP
    >>> X.shape, sorted(set(y))  # doctest: +SKIP
    ((16281, 123), [-1, 1])
    """
    return concat_chunks(iter_dataset(name, subset=subset, chunk_size=100_000, dtype=dtype))
