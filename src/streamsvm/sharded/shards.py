"""Shards: where the parts of a data set are, what each holds, and one layout for all of them.

A shard is a file (svmlight, CSV or ``.npz``, read by :func:`streamsvm.datasets.open_stream`
in chunks, so a worker holds one chunk at a time) or an in-memory ``(X, y)`` pair. The
driver has every shard scanned once (:func:`scan_shard`: rows, labels, width, the sums the
gamma and centring rule needs) and reconciles the summaries (:func:`reconcile`):

* svmlight shards may differ in width (a shard whose last columns happen to be all zero is
  narrower): all are read at the widest width, and zero-based when any shard uses index 0,
  which is what reading their concatenation would give;
* CSV, ``.npz`` and array shards must have the same number of columns (a different count
  means a different table; refused, naming both shards);
* shards are all sparse (svmlight, CSR arrays) or all dense: a centring model centres dense
  input only, so a mix would be learnt in two different spaces (refused).
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..datasets import open_stream
from ..datasets.sources import _format_from_suffix
from ._scan_core import chunk_sums

__all__ = ["Layout", "Shard", "ShardError", "ShardSummary", "read_shard", "reconcile",
           "resolve_shards", "scan_shard"]


class ShardError(ValueError):
    """A shard that cannot be read or does not fit the others (the message names it)."""


@dataclass(frozen=True)
class Shard:
    """One part of the data: a file (``path``, ``format``) or arrays (``X``, ``y``)."""

    index: int
    name: str
    path: str | None = None
    format: str | None = None
    X: object = None
    y: object = None

    @property
    def sparse_input(self) -> bool:
        if self.path is None:
            return sp.issparse(self.X)
        return self.format == "svmlight"


@dataclass
class ShardSummary:
    """What one scan of a shard finds (widths counted zero-based for svmlight)."""

    n_rows: int = 0
    n_columns: int = 0
    uses_index_zero: bool = False
    labels: np.ndarray = field(default_factory=lambda: np.empty(0))
    entry_sum: float = 0.0
    entry_sqsum: float = 0.0
    column_sums: np.ndarray = field(default_factory=lambda: np.zeros(0))


@dataclass(frozen=True)
class Layout:
    """How every shard is read: width, svmlight indexing, classes, rows in all, and the
    sums of the union's entries (for :func:`~streamsvm.kernels.resolve_gamma_from_sums`)."""

    n_features: int
    zero_based: bool
    sparse: bool
    classes: np.ndarray
    n_rows: int
    entry_sum: float
    entry_sqsum: float
    column_sums: np.ndarray


def resolve_shards(shards, *, format=None) -> list[Shard]:
    """The shards of ``shards``: a glob or path, a list of them (globs expanded and sorted;
    the order given is the combining order), or a list of ``(X, y)`` pairs."""
    if isinstance(shards, str | os.PathLike):
        shards = [shards]
    if isinstance(shards, tuple) and len(shards) == 2 and not isinstance(
            shards[0], str | os.PathLike | tuple):
        raise ShardError("shards is a list of shards: give one (X, y) pair as [(X, y)]")
    try:
        shards = list(shards)
    except TypeError:
        raise ShardError(f"shards must be a path, a glob, or a list of paths, globs or (X, y) "
                         f"pairs; got {type(shards).__name__}") from None
    if not shards:
        raise ShardError("no shards given")
    out: list[Shard] = []
    for item in shards:
        if isinstance(item, tuple) and len(item) == 2:
            X, y = _array_shard(len(out), *item)
            out.append(Shard(len(out), f"array shard {len(out)}", X=X, y=y))
            continue
        if not isinstance(item, str | os.PathLike):
            raise ShardError(f"a shard is a file path, a glob or an (X, y) pair; got "
                             f"{type(item).__name__}")
        text = os.fspath(item)
        paths = sorted(glob.glob(text)) if glob.has_magic(text) else [text]
        if not paths:
            raise ShardError(f"no file matches the shard pattern {text!r}")
        for path in paths:
            _check_shard_file(path)
            fmt = format or _format_from_suffix(path)
            out.append(Shard(len(out), path, path=path, format=fmt))
    if len({s.path is None for s in out}) > 1:
        raise ShardError("shards are all files or all arrays, not a mix")
    return out


def _check_shard_file(path: str) -> None:
    """A shard path must name a regular file: a folder, a device (``/dev/null``) or nothing
    is refused, saying which."""
    if os.path.isdir(path):
        raise ShardError(f"shard {path} is a folder, not a data file (a glob such as "
                         f"{os.path.join(path, '*')} names the files in it)")
    if os.path.exists(path) and not os.path.isfile(path):
        raise ShardError(f"shard {path} is not a regular file (a device, pipe or socket); "
                         "shards are data files")
    if not os.path.isfile(path):
        raise ShardError(f"shard {path}: no such data file")


def _array_shard(index: int, X, y):
    """``(X, y)`` of an array shard, checked: X 2-D (rows, features), y one label per row."""
    name = f"array shard {index}"
    if not hasattr(X, "shape"):  # a list of rows (arrays and tables are kept as given)
        X = np.asarray(X)
    if len(X.shape) != 2:
        raise ShardError(f"{name}: X must be 2-D (rows, features); got shape {X.shape}"
                         + (" (one example? X.reshape(1, -1); one feature? X.reshape(-1, 1))"
                            if len(X.shape) == 1 else ""))
    if not hasattr(y, "shape"):
        y = np.asarray(y)
    if len(y.shape) != 1:
        raise ShardError(f"{name}: y must be 1-D (one label per row); got shape {y.shape}")
    if X.shape[0] != y.shape[0]:
        raise ShardError(f"{name}: X has {X.shape[0]} rows but y has {y.shape[0]} labels")
    return X, y


def _chunks(shard: Shard, chunk_size: int, *, n_features=None, zero_based=None):
    if shard.path is None:
        X, y = shard.X, np.asarray(shard.y)
        if X.shape[0] != y.shape[0]:
            raise ShardError(f"{shard.name}: X has {X.shape[0]} rows but y has {y.shape[0]}")
        for start in range(0, X.shape[0], chunk_size):
            yield X[start : start + chunk_size], y[start : start + chunk_size]
        return
    options = {}
    if shard.format == "svmlight":
        options = {"zero_based": zero_based if zero_based is not None else True}
        if n_features is not None:
            options["n_features"] = n_features
    try:
        stream = open_stream(shard.path, format=shard.format, chunk_size=chunk_size, **options)
        yield from stream
    except (ValueError, OSError) as exc:
        text = str(exc)
        if shard.path not in text:
            text = f"shard {shard.path}: {text}"
        raise ShardError(text) from exc


def scan_shard(shard: Shard, chunk_size: int = 10_000) -> ShardSummary:
    """One pass over ``shard`` (svmlight read zero-based at its own width): the summary.
    Each chunk is read once, by a compiled loop (:mod:`streamsvm.sharded._scan_core`)."""
    out = ShardSummary()
    labels = []
    sqsums = np.zeros(0)
    for X, y in _chunks(shard, chunk_size):
        if y is None:
            raise ShardError(f"{shard.name}: the shard has no labels")
        if sp.issparse(X):
            X = sp.csr_matrix(X)
        sums, squares, smallest = chunk_sums(X)
        if sp.issparse(X):
            out.uses_index_zero |= smallest == 0
        if not np.all(np.isfinite(squares)):
            if not np.all(np.isfinite(X.data if sp.issparse(X) else X)):
                raise ShardError(f"{shard.name}: the shard holds NaN or infinite values")
            _refuse_overflowing_rows(shard, X, out.n_rows)
        if out.column_sums.shape[0] < sums.shape[0]:
            out.column_sums = np.pad(out.column_sums, (0, sums.shape[0] - out.column_sums.size))
            sqsums = np.pad(sqsums, (0, sums.shape[0] - sqsums.size))
        out.column_sums[: sums.shape[0]] += sums
        sqsums[: squares.shape[0]] += squares
        out.n_columns = max(out.n_columns, X.shape[1])
        out.n_rows += X.shape[0]
        labels.append(np.unique(np.asarray(y)))
    if out.n_rows == 0:
        raise ShardError(f"{shard.name}: the shard holds no examples")
    out.entry_sum = float(out.column_sums.sum())
    out.entry_sqsum = float(sqsums.sum())
    out.labels = np.unique(np.concatenate(labels))
    return out


def _refuse_overflowing_rows(shard: Shard, X, first_row: int) -> None:
    """Finite values whose squares overflow: the row whose squared norm does is refused, as
    every estimator refuses it (a column's sum of squares that alone overflows is let
    through: the gamma rule says so, naming ``gamma``)."""
    with np.errstate(over="ignore"):
        sq = (np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X)
              else np.square(X).sum(axis=1))
    bad = np.flatnonzero(~np.isfinite(sq))
    if bad.size:
        raise ShardError(f"{shard.name}, row {first_row + int(bad[0]) + 1}: the row is too "
                         "large: its squared norm overflows float64 (the estimators refuse "
                         "it); rescale the features")


def reconcile(shards: list[Shard], summaries: list[ShardSummary]) -> Layout:
    """One :class:`Layout` for all shards (module docstring), or :class:`ShardError`."""
    first = shards[0]
    if len({s.sparse_input for s in shards}) > 1:
        dense = next(s for s in shards if not s.sparse_input)
        raise ShardError(f"shards {first.name} and {dense.name} are not both sparse or both "
                         "dense; convert them to one kind")
    kinds = {s.labels.dtype.kind in "OUS" for s in summaries}
    if len(kinds) > 1:
        raise ShardError("some shards have text labels and others numbers")
    svmlight = first.format == "svmlight"
    if svmlight:
        zero_based = any(s.uses_index_zero for s in summaries)
        width = max(s.n_columns for s in summaries) - (0 if zero_based else 1)
    else:
        zero_based = False
        width = summaries[0].n_columns
        for shard, summary in zip(shards, summaries, strict=True):
            if summary.n_columns != width:
                raise ShardError(f"shard {shard.name} has {summary.n_columns} feature columns "
                                 f"but {first.name} has {width}; only svmlight shards are "
                                 "widened to the widest")
    if width <= 0:
        raise ShardError(f"shard {first.name}: the shards hold no features")
    column_sums = np.zeros(width + (0 if zero_based or not svmlight else 1))
    for summary in summaries:
        column_sums[: summary.column_sums.shape[0]] += summary.column_sums
    if svmlight and not zero_based:
        column_sums = column_sums[1:]
    return Layout(
        n_features=int(width),
        zero_based=zero_based,
        sparse=first.sparse_input,
        classes=np.unique(np.concatenate([s.labels for s in summaries])),
        n_rows=sum(s.n_rows for s in summaries),
        entry_sum=float(sum(s.entry_sum for s in summaries)),
        entry_sqsum=float(sum(s.entry_sqsum for s in summaries)),
        column_sums=column_sums,
    )


def read_shard(shard: Shard, layout: Layout, chunk_size: int = 10_000):
    """The ``(X, y)`` chunks of ``shard`` read in ``layout`` (one chunk in memory at a time)."""
    yield from _chunks(shard, chunk_size, n_features=layout.n_features,
                       zero_based=layout.zero_based)
