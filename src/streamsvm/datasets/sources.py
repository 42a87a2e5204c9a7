"""From what a user types to a stream of ``(X, y)`` chunks: :func:`open_stream`.

A source is a built-in dataset name (:func:`~streamsvm.datasets.list_datasets`), a generator
name (:data:`GENERATOR_SOURCES`), a file path (svmlight/LIBSVM, CSV or ``.npz``; plain,
``.gz``, ``.bz2`` or ``.xz``) or ``'-'`` for standard input. Files are read by the chunked
readers of :mod:`streamsvm.datasets.readers`; nothing here parses text.
"""

from __future__ import annotations

import bz2
import gzip
import inspect
import lzma
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import scipy.sparse as sp

from .files import data_file_name
from .generators import GENERATORS
from .loaders import iter_dataset, list_datasets
from .readers import _check_positive_int, iter_csv, iter_npz, iter_svmlight

__all__ = [
    "DEFAULT_N_GENERATED",
    "FORMATS",
    "GENERATOR_SOURCES",
    "DataSourceError",
    "DataStream",
    "ReaderOptionError",
    "UnknownSourceError",
    "open_stream",
]

#: generator source name (as typed) -> name in :data:`~streamsvm.datasets.GENERATORS`.
#: ``waveform-generator`` because ``waveform`` names the dataset file of the same problem.
GENERATOR_SOURCES = {
    ("waveform-generator" if name == "waveform" else name.replace("_", "-")): name
    for name in GENERATORS
}
FORMATS = ("svmlight", "csv", "npz")
DEFAULT_N_GENERATED = 100_000  # examples drawn from a generator unless n_samples says
TEST_SEED_OFFSET = 1_000_003  # the test part of a generated set is drawn with seed + this
_COMPRESSED = (".gz", ".bz2", ".xz")
_CSV_SUFFIXES = (".csv", ".dat", ".data")
_SET_HERE = ("path", "name", "chunk_size", "random_state", "subset", "n_features")
_MAGIC = {b"\x1f\x8b": ".gz", b"BZh": ".bz2", b"\xfd7zXZ\x00": ".xz"}


class UnknownSourceError(ValueError):
    """A source that is neither a file, a built-in dataset, a generator nor ``'-'``."""


class ReaderOptionError(TypeError):
    """A reader option that the source's reader does not take: ``option`` (the keyword) and
    ``what`` (the source, as ``"a CSV file"``) are kept for callers that spell options their
    own way (the command line)."""

    def __init__(self, what, option, accepted):
        self.what, self.option, self.accepted = what, option, list(accepted)
        super().__init__(f"{what} takes no option {option!r}; its options: "
                         f"{', '.join(self.accepted)}")

    def __reduce__(self):  # pickled whole, e.g. from a worker process
        return type(self), (self.what, self.option, self.accepted)


class DataSourceError(ValueError):
    """A source that cannot be read to the end (the message names it)."""


class DataStream(Iterator):
    """An iterator of ``(X, y)`` chunks that knows where they come from.

    ``source`` is what was asked for, ``kind`` one of ``'file'``, ``'stdin'``, ``'dataset'``,
    ``'generator'``, and ``description`` a short name for messages. Errors met while reading
    are raised as :class:`DataSourceError` naming the source (``ValueError`` from the readers
    already name the file and line and keep their text).
    """

    def __init__(self, chunks, *, source, kind, description, n_samples=None, n_features=None,
                 cleanup=None):
        self.source, self.kind, self.description = source, kind, description
        self._chunks = chunks
        self._left = n_samples
        self._n_features = n_features
        self._cleanup = cleanup

    def __next__(self):
        if self._left == 0:
            self.close()
            raise StopIteration
        try:
            X, y = next(self._chunks)
        except StopIteration:
            self.close()
            raise
        except Exception as exc:
            message = self._message(exc)
            self.close()
            raise DataSourceError(message) from exc
        if self._n_features is not None and X.shape[1] != self._n_features:
            self.close()
            hint = ""
            if y is not None and X.shape[1] + 1 == self._n_features and not sp.issparse(X):
                hint = (" (one column is read as the labels; for rows without labels, "
                        "label_column=None)")
            raise DataSourceError(f"{self.description} has {X.shape[1]} features; "
                                  f"{self._n_features} were expected{hint}")
        if self._left is not None:
            if X.shape[0] > self._left:
                X, y = X[: self._left], (None if y is None else y[: self._left])
            self._left -= X.shape[0]
        return X, y

    def _message(self, exc):
        text = str(exc) or type(exc).__name__
        if self.kind == "stdin" and self._cleanup is not None:
            text = text.replace(self._cleanup, "<stdin>")
        if self.description not in text:
            text = f"{self.description}: {text}"
        return text

    def close(self):
        """Stop reading and remove the copy of standard input, if any."""
        close = getattr(self._chunks, "close", None)
        if close is not None:
            close()
        if self._cleanup is not None:
            Path(self._cleanup).unlink(missing_ok=True)
            self._cleanup = None

    def __del__(self):
        self.close()


def open_stream(source, *, format=None, subset="train", chunk_size=10_000, n_samples=None,
                n_features=None, random_state=0, **reader_options) -> DataStream:
    """Chunks ``(X, y)`` from a file, a built-in dataset, a generator or ``'-'`` (stdin).

    ``source`` is read as, in this order: ``'-'``; a generator name (``synthetic-a``,
    ``checkerboard``, ... see :data:`GENERATOR_SOURCES`); a built-in dataset name; a path
    (a :class:`~pathlib.Path` is always a path; write ``./adult`` for a file named like a
    dataset). A name that is none of these raises :class:`UnknownSourceError` listing the
    datasets and generators; a path that does not exist raises ``FileNotFoundError``.

    - ``format``: ``'svmlight'``, ``'csv'`` or ``'npz'`` for files; by default guessed from
      the suffix (``.csv``/``.dat``/``.data``: CSV, ``.npz``, otherwise svmlight; a
      ``.gz``/``.bz2``/``.xz`` suffix is looked through), and for stdin from its first line.
    - ``subset``: ``'train'``, ``'test'`` or ``'all'`` for datasets; a generator's test part is
      drawn with another seed. Files ignore it.
    - ``n_samples``: at most this many examples (a generator gives 100,000 by default).
    - ``n_features``: the width the chunks must have (svmlight files are read at this width;
      other sources are checked against it).
    - ``random_state``: the seed of a generator.
    - ``reader_options``: passed to the reader (:func:`iter_svmlight`, :func:`iter_csv`,
      :func:`iter_npz`), the generator or :func:`iter_dataset`; an option it does not take
      is a ``TypeError`` naming its options.

    Standard input is copied to a temporary file first (removed when the stream ends), so
    reading starts when the input is closed. Errors met while reading are raised as
    :class:`DataSourceError`.

    >>> stream = open_stream("synthetic-a", n_samples=2500, chunk_size=1000, random_state=1)
    >>> stream.kind, [X.shape for X, y in stream]
    ('generator', [(1000, 2), (1000, 2), (500, 2)])
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.csv"
    >>> _ = path.write_text("1,2,-1\\n3,4,1\\n5,6,1\\n")
    >>> [(X.tolist(), y.tolist()) for X, y in open_stream(str(path), chunk_size=2)]
    [([[1.0, 2.0], [3.0, 4.0]], [-1, 1]), ([[5.0, 6.0]], [1])]
    >>> open_stream("no-such-thing")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    streamsvm.datasets.sources.UnknownSourceError: unknown dataset 'no-such-thing' ...
    """
    chunk_size = _check_positive_int(chunk_size, "chunk_size")
    if n_samples is not None:
        n_samples = _check_positive_int(n_samples, "n_samples")
    if n_features is not None:
        n_features = _check_positive_int(n_features, "n_features")
    if format is not None and format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {format!r}")
    if subset not in ("train", "test", "all"):
        raise ValueError(f"subset must be train, test or all; got {subset!r}")
    common = {"source": source, "n_samples": n_samples, "n_features": n_features}
    if isinstance(source, str):
        if source == "-":
            return _open_stdin(format, chunk_size, n_features, reader_options, common)
        if source in GENERATOR_SOURCES:
            generator = GENERATORS[GENERATOR_SOURCES[source]]
            _check_options(generator, f"generator {source!r}", reader_options)
            seed = random_state if subset != "test" else random_state + TEST_SEED_OFFSET
            chunks = generator(chunk_size=chunk_size, random_state=seed, **reader_options)
            common["n_samples"] = n_samples or DEFAULT_N_GENERATED
            part = "generated" if subset == "train" else f"generated, {subset}"
            return DataStream(chunks, kind="generator", description=f"{source} ({part})",
                              **common)
        if source in list_datasets():
            _check_options(iter_dataset, f"dataset {source!r}", reader_options)
            chunks = iter_dataset(source, subset=subset, chunk_size=chunk_size,
                                  **reader_options)
            description = source if subset == "train" else f"{source} ({subset})"
            return DataStream(chunks, kind="dataset", description=description, **common)
    elif not isinstance(source, os.PathLike):
        raise TypeError(f"source must be a string or a path; got {type(source).__name__}")
    path = os.fspath(source)
    if not os.path.isfile(path):
        if isinstance(source, str) and not _looks_like_path(path):
            raise UnknownSourceError(
                f"unknown dataset {path!r} (not a file, a built-in dataset or a generator); "
                f"datasets: {', '.join(list_datasets())}; "
                f"generators: {', '.join(GENERATOR_SOURCES)}")
        data_file_name(path)  # raises: a folder, or nothing there
    chunks = _read_file(path, format or _format_from_suffix(path), chunk_size, n_features,
                        reader_options)
    return DataStream(chunks, kind="file", description=path, **common)


def _looks_like_path(text: str) -> bool:
    name = text.lower()
    return (os.sep in text or "/" in text
            or name.endswith(_COMPRESSED + _CSV_SUFFIXES + (".npz", ".svm", ".libsvm", ".txt")))


def _format_from_suffix(path: str) -> str:
    name = path.lower()
    for suffix in _COMPRESSED:
        name = name.removesuffix(suffix)
    if name.endswith(_CSV_SUFFIXES):
        return "csv"
    return "npz" if name.endswith(".npz") else "svmlight"


def _check_options(func, what, options):
    accepted = [name for name, p in inspect.signature(func).parameters.items()
                if p.kind is p.KEYWORD_ONLY or p.kind is p.POSITIONAL_OR_KEYWORD]
    for key in options:
        if key not in accepted or key in _SET_HERE:
            raise ReaderOptionError(what, key, [a for a in accepted if a not in _SET_HERE])


def _read_file(path, fmt, chunk_size, n_features, options):
    if fmt == "svmlight":
        _check_options(iter_svmlight, "an svmlight file", options)
        return iter_svmlight(path, chunk_size=chunk_size, n_features=n_features, **options)
    if fmt == "csv":
        _check_options(iter_csv, "a CSV file", options)
        return iter_csv(path, chunk_size=chunk_size, **options)
    _check_options(iter_npz, "an .npz file", options)
    return iter_npz(path, chunk_size=chunk_size, **options)


def _open_stdin(fmt, chunk_size, n_features, options, common):
    if fmt == "npz":
        raise ValueError("standard input is read as svmlight or CSV text, not .npz")
    stdin = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
    head = stdin.read(4096)
    if isinstance(head, str):
        raise TypeError("standard input must give bytes")
    suffix = next((s for magic, s in _MAGIC.items() if head.startswith(magic)), "")
    with tempfile.NamedTemporaryFile("wb", suffix=".stdin" + suffix, delete=False) as copy:
        copy.write(head)
        shutil.copyfileobj(stdin, copy)
    try:
        if fmt is None:
            try:
                fmt = _sniff_format(copy.name, suffix)
            except (OSError, EOFError, lzma.LZMAError) as exc:
                raise DataSourceError(f"<stdin>: cannot read it: {exc}") from exc
        chunks = _read_file(copy.name, fmt, chunk_size, n_features, options)
    except Exception:
        Path(copy.name).unlink(missing_ok=True)
        raise
    return DataStream(chunks, kind="stdin", description="<stdin>", cleanup=copy.name, **common)


def _sniff_format(path: str, compression: str) -> str:
    """CSV when the first line that is not blank or a comment has a comma and no colon."""
    opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(compression, open)
    with opener(path, "rb") as f:
        for raw in f:
            line = raw.split(b"#")[0].strip()
            if line:
                return "csv" if b"," in line and b":" not in line else "svmlight"
    return "svmlight"
