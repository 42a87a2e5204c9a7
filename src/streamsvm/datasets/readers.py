"""Chunked, constant-memory readers yielding ``(X, y)`` chunks.

Only one block of the file (a few MB) and one chunk of rows are in memory at a time, so a
file of any size streams through ``partial_fit``.
"""

from __future__ import annotations

import bz2
import gzip
import io
import itertools
import os
from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp

from ._svmlight_core import MESSAGES, OK, parse_block

__all__ = ["iter_svmlight", "load_svmlight", "iter_csv", "iter_arrays", "iter_npz", "open_binary"]

BLOCK_BYTES = 4 << 20


def open_binary(path) -> io.BufferedIOBase:
    """Open a plain, ``.gz`` or ``.bz2`` file for reading bytes (chosen by the suffix)."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file: {path}")
    if path.endswith(".gz"):
        return gzip.open(path, "rb")
    if path.endswith(".bz2"):
        return bz2.open(path, "rb")
    return open(path, "rb")


def _line_blocks(path, block_bytes: int) -> Iterator[tuple[np.ndarray, int]]:
    """Blocks of whole lines as uint8 arrays, with the number of lines before each block."""
    lines_before = 0
    carry = b""
    with open_binary(path) as f:
        while True:
            data = f.read(block_bytes)
            if not data:
                break
            data = carry + data
            cut = data.rfind(b"\n")
            if cut < 0:
                carry = data
                continue
            block, carry = data[: cut + 1], data[cut + 1 :]
            yield np.frombuffer(block, dtype=np.uint8), lines_before
            lines_before += block.count(b"\n")
    if carry.strip():
        yield np.frombuffer(carry + b"\n", dtype=np.uint8), lines_before


def _parse(path, buf, lines_before, offset, n_features):
    n_lines = int(np.count_nonzero(buf == 10)) + 1
    n_pairs = int(np.count_nonzero(buf == 58)) + 1
    labels = np.empty(n_lines)
    indptr = np.empty(n_lines + 1, dtype=np.int64)
    indices = np.empty(n_pairs, dtype=np.int32)
    values = np.empty(n_pairs)
    n_rows, nnz, _, lo, hi, error, error_line = parse_block(
        buf, offset, n_features, labels, indptr, indices, values
    )
    if error != OK:
        line_number = lines_before + error_line + 1
        start = 0
        for _ in range(error_line):
            start = int(np.flatnonzero(buf[start:] == 10)[0]) + start + 1
        stop = buf[start:].tobytes().find(b"\n")
        text = buf[start : start + stop if stop >= 0 else None].tobytes().decode("utf-8", "replace")
        raise ValueError(
            f"{os.path.basename(os.fspath(path))}, line {line_number}: {MESSAGES[error]}: "
            f"{text[:80]!r}"
        )
    return labels[:n_rows], indptr[: n_rows + 1], indices[:nnz], values[:nnz], lo, hi


def _scan(path, block_bytes):
    """Smallest and largest feature index and the number of rows (one extra pass)."""
    lo, hi, rows = 1 << 62, -1, 0
    for buf, before in _line_blocks(path, block_bytes):
        labels, _, _, _, block_lo, block_hi = _parse(path, buf, before, 0, -1)
        lo, hi, rows = min(lo, block_lo), max(hi, block_hi), rows + labels.shape[0]
    return lo, hi, rows


def iter_svmlight(
    path,
    *,
    chunk_size: int = 10_000,
    n_features: int | None = None,
    zero_based="auto",
    dtype=np.float64,
    block_bytes: int = BLOCK_BYTES,
) -> Iterator[tuple[sp.csr_matrix, np.ndarray]]:
    """Stream an svmlight/LIBSVM file (plain, ``.gz``, ``.bz2``) in CSR chunks.

    Parameters
    ----------
    path : str or path-like
    chunk_size : int
        Rows per chunk (the last chunk may be shorter).
    n_features : int, optional
        Width of X; an index beyond it is an error. When not given, and when
        ``zero_based="auto"``, one extra pass over the file finds the largest (and smallest)
        index first: memory stays constant, reading time doubles.
    zero_based : bool or "auto"
        Whether indices start at 0. "auto": zero-based if any index 0 appears.

    Yields
    ------
    X : csr_matrix of shape (rows, n_features), y : float64 array

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.svm")
    >>> _ = open(path, "w").write("+1 1:0.5 3:2\\n-1 2:1e-1 # comment\\n")
    >>> X, y = next(iter_svmlight(path))
    >>> X.toarray(), y
    (array([[0.5, 0. , 2. ],
           [0. , 0.1, 0. ]]), array([ 1., -1.]))
    """
    if not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer; got {chunk_size!r}")
    if zero_based == "auto" or n_features is None:
        lo, hi, rows = _scan(path, block_bytes)
        if rows == 0:
            raise ValueError(f"{os.path.basename(os.fspath(path))} contains no examples")
        if zero_based == "auto":
            zero_based = lo == 0
        if n_features is None:
            n_features = max(hi + (1 if zero_based else 0), 0)
    offset = 0 if zero_based else 1
    pending: list[tuple] = []
    n_pending = 0
    total = 0
    for buf, before in _line_blocks(path, block_bytes):
        labels, indptr, indices, values, _, _ = _parse(path, buf, before, offset, n_features)
        if labels.shape[0] == 0:
            continue
        pending.append((labels, indptr, indices, values))
        n_pending += labels.shape[0]
        while n_pending >= chunk_size:
            chunk, pending, n_pending = _take(pending, chunk_size, n_features, dtype)
            total += chunk[1].shape[0]
            yield chunk
    if n_pending:
        chunk, pending, n_pending = _take(pending, n_pending, n_features, dtype)
        total += chunk[1].shape[0]
        yield chunk
    if total == 0:
        raise ValueError(f"{os.path.basename(os.fspath(path))} contains no examples")


def _take(pending, n, n_features, dtype):
    """The first ``n`` rows of the pending parsed pieces as a chunk, and what remains."""
    labels = np.concatenate([p[0] for p in pending])
    nnz_offsets = np.cumsum([0] + [p[1][-1] for p in pending])
    indptr = np.concatenate(
        [pending[0][1][:1]] + [p[1][1:] + off for p, off in zip(pending, nnz_offsets[:-1], strict=True)]
    )
    indices = np.concatenate([p[2] for p in pending])
    values = np.concatenate([p[3] for p in pending])
    cut = int(indptr[n])
    X = sp.csr_matrix(
        (values[:cut].astype(dtype, copy=False), indices[:cut], indptr[: n + 1].astype(np.int64)),
        shape=(n, n_features),
    )
    rest = []
    if labels.shape[0] > n:
        rest = [(labels[n:], indptr[n:] - cut, indices[cut:], values[cut:])]
    return (X, labels[:n]), rest, labels.shape[0] - n


def load_svmlight(path, **kwargs) -> tuple[sp.csr_matrix, np.ndarray]:
    """The whole svmlight file as one ``(X, y)`` (same options as :func:`iter_svmlight`)."""
    chunks = list(iter_svmlight(path, chunk_size=1 << 30, **kwargs))
    return sp.vstack([c[0] for c in chunks], format="csr"), np.concatenate([c[1] for c in chunks])


def _to_labels(raw: np.ndarray):
    try:
        numbers = raw.astype(np.float64)
    except ValueError:
        return raw.astype(str)
    as_int = numbers.astype(np.int64)
    return as_int if np.array_equal(as_int, numbers) else numbers


def iter_csv(
    path,
    *,
    chunk_size: int = 10_000,
    label_column: int = -1,
    delimiter: str = ",",
    header="auto",
    dtype=np.float64,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Stream a delimited text file (plain or ``.gz``/``.bz2``) in dense chunks.

    Labels are kept as in the file: integers or numbers when they all parse as such, else
    strings. ``header="auto"`` skips a first line whose feature fields are not numbers. A
    row with the wrong number of fields or a non-number feature raises ``ValueError`` with
    the file name and line number.
    """
    name = os.path.basename(os.fspath(path))
    with open_binary(path) as raw, io.TextIOWrapper(raw, encoding="utf-8") as f:
        lines = enumerate(f, start=1)
        width = None
        first = next(lines, None)
        if first is None:
            raise ValueError(f"{name} contains no examples")
        if header is True or (header == "auto" and not _is_numeric_row(first[1], delimiter, label_column)):
            first = None
        pending = [first] if first is not None else []
        produced = 0
        while True:
            batch = pending + list(itertools.islice(lines, chunk_size - len(pending)))
            pending = []
            batch = [(n, text) for n, text in batch if text.strip()]
            if not batch:
                break
            fields = [text.rstrip("\r\n").split(delimiter) for _, text in batch]
            width = width or len(fields[0])
            for (number, _), row in zip(batch, fields, strict=True):
                if len(row) != width:
                    raise ValueError(f"{name}, line {number}: {len(row)} fields where {width} were expected")
            table = np.array(fields, dtype=object)
            labels = table[:, label_column]
            features = np.delete(table, label_column % width, axis=1)
            try:
                X = features.astype(dtype)
            except ValueError:
                for (number, _), row in zip(batch, features, strict=True):
                    for value in row:
                        try:
                            float(value)
                        except ValueError:
                            raise ValueError(
                                f"{name}, line {number}: the feature {value!r} is not a number"
                            ) from None
                raise
            produced += X.shape[0]
            yield np.ascontiguousarray(X), _to_labels(np.char.strip(labels.astype(str)))
        if produced == 0:
            raise ValueError(f"{name} contains no examples")


def _is_numeric_row(text: str, delimiter: str, label_column: int) -> bool:
    fields = text.rstrip("\r\n").split(delimiter)
    del fields[label_column]
    try:
        [float(v) for v in fields]
    except ValueError:
        return False
    return True


def iter_arrays(X, y, *, chunk_size: int = 10_000) -> Iterator[tuple]:
    """Chunks of in-memory arrays or a CSR matrix (views, no copies)."""
    n = X.shape[0]
    if len(y) != n:
        raise ValueError(f"X has {n} rows but y has {len(y)} labels")
    for start in range(0, n, chunk_size):
        yield X[start : start + chunk_size], y[start : start + chunk_size]


def iter_npz(path, X_key: str = "X", y_key: str = "y", *, chunk_size: int = 10_000) -> Iterator[tuple]:
    """Chunks of two arrays stored in an ``.npz`` file (``.npy`` files are memory-mapped)."""
    with np.load(path, allow_pickle=False) as archive:
        missing = [k for k in (X_key, y_key) if k not in archive.files]
        if missing:
            raise ValueError(f"{os.path.basename(os.fspath(path))} has no array {missing[0]!r}; it holds {archive.files}")
        X, y = archive[X_key], archive[y_key]
    yield from iter_arrays(X, y, chunk_size=chunk_size)
