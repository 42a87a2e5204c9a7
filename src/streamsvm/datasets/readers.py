"""Chunked readers: svmlight/LIBSVM and CSV text files, arrays and ``.npz`` files.

Every reader returns an iterator of ``(X, y)`` chunks of at most ``chunk_size`` rows and
holds nothing but the current chunk and one block of the file, so memory does not grow
with the file. Text is read in blocks of bytes, cut at the last line end, and each block
is parsed by one call of a jitted function (:mod:`streamsvm.datasets._core`).
"""

from __future__ import annotations

import io
import os
import re
import struct
import zipfile
from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp

from . import _core
from .files import DataFileError, line_blocks, open_data_file

__all__ = [
    "iter_svmlight",
    "load_svmlight",
    "iter_csv",
    "load_csv",
    "iter_arrays",
    "iter_npz",
    "concat_chunks",
    "DataFileError",
    "DEFAULT_MAX_FEATURES",
]

DEFAULT_BLOCK_SIZE = 8 << 20  # bytes read and parsed at a time
DEFAULT_MAX_FEATURES = 1 << 24  # widest data a file may declare unless told otherwise
_INT32_MAX = np.iinfo(np.int32).max
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)
_NONFINITE = re.compile(r"[+-]?(nan|inf|infinity)", re.IGNORECASE | re.ASCII)
_open_binary = open_data_file  # the name loaders.py imports


# --------------------------------------------------------------------------- helpers
def _check_positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return int(value)


def _check_float_dtype(dtype):
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64; got {dtype}")
    return dtype


def _token(buf, start, end, limit=40):
    text = bytes(buf[start:min(end, start + limit)]).decode("utf-8", errors="replace")
    return text + ("..." if end - start > limit else "")


def concat_chunks(chunks):
    """Stack an iterable of ``(X, y)`` chunks into one ``(X, y)``.

    CSR chunks give a CSR matrix, dense chunks a dense array; ``y`` may be ``None``.

    >>> import numpy as np
    >>> chunks = [(np.ones((2, 3)), np.array([1, -1])), (np.zeros((1, 3)), np.array([1]))]
    >>> X, y = concat_chunks(chunks)
    >>> X.shape, y.tolist()
    ((3, 3), [1, -1, 1])
    """
    Xs, ys = [], []
    for X, y in chunks:
        Xs.append(X)
        ys.append(y)
    if not Xs:
        raise ValueError("no chunks to concatenate")
    if len(Xs) == 1:
        return Xs[0], ys[0]
    if sp.issparse(Xs[0]):
        X = sp.vstack(Xs, format="csr")
        X.has_sorted_indices = all(x.has_sorted_indices for x in Xs)
    else:
        X = np.concatenate(Xs, axis=0)
    y = None if ys[0] is None else np.concatenate(ys)
    return X, y


def _rechunk(chunks, chunk_size):
    """Regroup a stream of ``(X, y)`` pieces into chunks of exactly ``chunk_size`` rows."""
    pending, count = [], 0
    for X, y in chunks:
        start, n = 0, X.shape[0]
        if count == 0 and n == chunk_size:
            yield X, y
            continue
        while start < n:
            take = min(chunk_size - count, n - start)
            pending.append((X[start:start + take], y[start:start + take]))
            count += take
            start += take
            if count == chunk_size:
                yield concat_chunks(pending)
                pending, count = [], 0
    if count:
        yield concat_chunks(pending)


# --------------------------------------------------------------------------- svmlight
def _nonfinite_value(token):
    """Whether ``token`` spells NaN or an infinity, or a decimal too large for a double."""
    if _NONFINITE.fullmatch(token):
        return True
    return _NUMBER.fullmatch(token) is not None and not np.isfinite(float(token))


def _svmlight_error(name, line, status, buf, start, end, aux, n_features, max_features,
                    offset):
    token = _token(buf, start, end)
    if status == _core.BAD_LABEL:
        what = f"label {token!r} is not a finite number"
    elif status == _core.BAD_INDEX:
        if re.fullmatch(r"-\d+", token):
            what = f"feature index {token!r} is negative"
        else:
            what = f"feature index {token!r} is not an integer"
    elif status == _core.MISSING_COLON:
        what = f"feature {token!r} is not written as index:value"
    elif status == _core.BAD_VALUE:
        if start == end:
            what = f"feature {aux} has no value"
        elif _nonfinite_value(token):
            what = (f"value {token!r} of feature {aux} is not finite "
                    "(pass allow_nan=True to read NaN and infinities)")
        else:
            what = f"value {token!r} of feature {aux} is not a number"
    elif status == _core.INDEX_BELOW_ONE:
        what = ("feature index 0 in a one-based file (zero_based=False); "
                "pass zero_based=True or 'auto' if the indices start at 0")
    elif status == _core.NOT_INCREASING:
        what = f"feature indices are not in increasing order ({token} after {aux})"
    elif status in (_core.INDEX_TOO_LARGE, _core.INDEX_OVERFLOW):
        index = token if status == _core.INDEX_OVERFLOW else aux
        if n_features is not None:
            base = "one" if offset else "zero"
            what = (f"feature index {index} is out of range for n_features={n_features} "
                    f"({base}-based indices)")
        else:
            what = (f"feature index {index} is beyond max_features={max_features} (pass a "
                    "larger max_features, or n_features, to read wider data)")
    else:  # pragma: no cover - every status above is handled
        what = f"parse error {status}"
    return DataFileError(name, line, what)


def _scan_svmlight(name, block_size, raw_limit, max_features, allow_nan):
    """One counting pass: ``(n_rows, nnz, min_index, max_index, lines)`` as written.

    Indices as written must be below ``raw_limit``.
    """
    dummy_f = np.empty(1)
    dummy_i = np.empty(1, dtype=np.int32)
    n_rows = nnz = 0
    min_raw, max_raw = 1 << 62, -1
    line_base = 0
    with open_data_file(name) as f:
        for buf, stop in line_blocks(f, block_size, name):
            status, _, n_rows, nnz, lines, lo, hi, start, end, aux = _core.parse_svmlight(
                buf, 0, stop, 0, raw_limit, allow_nan, False, 1 << 62,
                dummy_f, dummy_i, dummy_i, dummy_f, n_rows, nnz)
            line_base += lines
            if status != _core.DONE:
                raise _svmlight_error(name, line_base + 1, status, buf, start, end, aux, None,
                                      max_features, 0)
            min_raw, max_raw = min(min_raw, lo), max(max_raw, hi)
            line_base += int(stop > 0 and buf[stop - 1] != 10)  # an unterminated last line
    return n_rows, nnz, min_raw, max_raw, line_base


def iter_svmlight(path, *, chunk_size=10_000, n_features=None, zero_based="auto",
                  dtype=np.float64, max_features=DEFAULT_MAX_FEATURES, allow_nan=False,
                  block_size=DEFAULT_BLOCK_SIZE) -> Iterator:
    """Stream an svmlight/LIBSVM file as ``(X, y)`` chunks in constant memory.

    ``X`` is a ``scipy.sparse.csr_matrix`` of shape ``(rows, n_features)`` with sorted
    indices and the given ``dtype``; ``y`` is float64. Plain, ``.gz``, ``.bz2`` and ``.xz``
    files are read, chosen by the suffix. Lines look like
    ``label [qid:q] index:value ... # comment``; comments and blank lines are skipped,
    ``qid`` pairs are ignored, indices must increase along a line. Numbers are finite
    decimals (``[+-]digits[.digits][e[+-]digits]``); ``allow_nan=True`` lets values (not
    labels) be ``nan``/``inf``/``infinity`` too, for users who impute them (estimators
    refuse NaN).

    When ``n_features`` is None or ``zero_based="auto"``, the file is read once more
    before the first chunk (a cheap counting pass with the same parser) to find the
    largest index and whether index 0 occurs (then the file is zero-based, as in
    scikit-learn's ``load_svmlight_file``); give both to read the file only once. Without
    ``n_features`` a file may not be wider than ``max_features`` (2**24 columns): one
    hostile index cannot declare a matrix of billions of columns.

    Every problem with the file raises :class:`DataFileError` (a ``ValueError``) whose
    message is ``"file:line: problem"``: a malformed line, an index beyond ``n_features``
    or ``max_features``, a file without examples, damaged or truncated compressed data, a
    name that claims a compression the file lacks. Unlike scikit-learn, multi-label
    lines are refused.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.svm"
    >>> _ = path.write_text("+1 1:0.5 3:2  # a comment\\n-1 qid:7 2:1.5e1\\n\\n1 3:-1\\n")
    >>> chunks = list(iter_svmlight(path, chunk_size=2))
    >>> [X.shape for X, y in chunks]
    [(2, 3), (1, 3)]
    >>> chunks[0][0].toarray()
    array([[ 0.5,  0. ,  2. ],
           [ 0. , 15. ,  0. ]])
    >>> chunks[0][1]
    array([ 1., -1.])
    """
    chunk_size = _check_positive_int(chunk_size, "chunk_size")
    block_size = _check_positive_int(block_size, "block_size")
    max_features = _check_positive_int(max_features, "max_features")
    dtype = _check_float_dtype(dtype)
    if n_features is not None:
        n_features = _check_positive_int(n_features, "n_features")
    if zero_based not in (True, False, "auto"):
        raise ValueError(f"zero_based must be True, False or 'auto'; got {zero_based!r}")
    if not isinstance(allow_nan, bool | np.bool_):
        raise ValueError(f"allow_nan must be True or False; got {allow_nan!r}")
    name = os.fspath(path)
    if not os.path.isfile(name):
        raise FileNotFoundError(f"no such data file: {name}")
    return _svmlight_chunks(name, chunk_size, n_features, zero_based, dtype, max_features,
                            bool(allow_nan), block_size)


def _svmlight_chunks(name, chunk_size, n_features, zero_based, dtype, max_features, allow_nan,
                     block_size):
    rows_hint = None
    nnz_per_row = 16.0
    given_n_features = n_features
    if n_features is None or zero_based == "auto":
        # without n_features, an index as written may be max_features (one-based files);
        # with it, the pass below checks the indices once the base is known
        raw_limit = max_features + 1 if n_features is None else 1 << 62
        n_rows, nnz, min_raw, max_raw, n_lines = _scan_svmlight(name, block_size, raw_limit,
                                                                max_features, allow_nan)
        if n_rows == 0:
            raise DataFileError(name, max(n_lines, 1), "the file contains no examples")
        if zero_based == "auto":
            zero_based = nnz > 0 and min_raw == 0
        if n_features is None:
            n_features = max(max_raw + (1 if zero_based else 0), 0)
        rows_hint = n_rows
        nnz_per_row = nnz / n_rows
    offset = 0 if zero_based else 1
    # columns must be below the width; a scanned width one past max_features (a zero-based
    # index equal to it) is refused at its line in the pass below
    limit = n_features if given_n_features is not None else min(n_features, max_features)
    index_dtype = np.int32 if n_features <= _INT32_MAX else np.int64
    max_rows = chunk_size if rows_hint is None else min(chunk_size, rows_hint)

    def new_chunk(capacity, index_dtype):
        indptr = np.empty(max_rows + 1, dtype=index_dtype)
        indptr[0] = 0
        return (np.empty(max_rows), indptr, np.empty(capacity, dtype=index_dtype),
                np.empty(capacity))

    capacity = int(nnz_per_row * max_rows * 1.05) + 16
    labels, indptr, indices, values = new_chunk(capacity, index_dtype)
    n_rows = nnz = 0
    produced = 0
    line_base = 0

    def make(n_rows, nnz):
        data = values[:nnz]
        if data.dtype != dtype:
            data = data.astype(dtype)
        X = sp.csr_matrix((data, indices[:nnz], indptr[: n_rows + 1]),
                          shape=(n_rows, n_features), copy=False)
        X.has_sorted_indices = True
        return X, labels[:n_rows]

    with open_data_file(name) as f:
        for buf, stop in line_blocks(f, block_size, name):
            pos = 0
            while True:
                status, pos, n_rows, nnz, lines, _, _, start, end, aux = _core.parse_svmlight(
                    buf, pos, stop, offset, limit, allow_nan, True, max_rows,
                    labels, indptr, indices, values, n_rows, nnz)
                line_base += lines
                if status == _core.DONE:
                    break
                if status == _core.CHUNK_FULL:
                    yield make(n_rows, nnz)
                    produced += n_rows
                    capacity = int(nnz * 1.05) + 16
                    labels, indptr, indices, values = new_chunk(capacity, index_dtype)
                    n_rows = nnz = 0
                elif status == _core.NEED_SPACE:
                    capacity = 2 * indices.shape[0]
                    if capacity > _INT32_MAX:
                        index_dtype = np.int64
                    indptr = indptr.astype(index_dtype)
                    indices = np.concatenate([indices[:nnz].astype(index_dtype),
                                              np.empty(capacity - nnz, dtype=index_dtype)])
                    values = np.concatenate([values[:nnz], np.empty(capacity - nnz)])
                else:
                    raise _svmlight_error(name, line_base + 1, status, buf, start, end, aux,
                                          given_n_features, max_features, offset)
            line_base += int(stop > 0 and buf[stop - 1] != 10)
    if n_rows:
        yield make(n_rows, nnz)
        produced += n_rows
    if produced == 0:
        raise DataFileError(name, max(line_base, 1), "the file contains no examples")


def load_svmlight(path, *, n_features=None, zero_based="auto", dtype=np.float64,
                  max_features=DEFAULT_MAX_FEATURES, allow_nan=False, chunk_size=100_000,
                  block_size=DEFAULT_BLOCK_SIZE):
    """Read a whole svmlight/LIBSVM file into ``(X, y)`` (CSR, float64 labels).

    The chunks of :func:`iter_svmlight` concatenated; the keywords mean the same.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.svm"
    >>> _ = path.write_text("1 0:1 4:2\\n-1 2:3\\n")
    >>> X, y = load_svmlight(path)
    >>> X.shape, X.nnz, y.tolist()
    ((2, 5), 3, [1.0, -1.0])
    """
    return concat_chunks(iter_svmlight(path, chunk_size=chunk_size, n_features=n_features,
                                       zero_based=zero_based, dtype=dtype,
                                       max_features=max_features, allow_nan=allow_nan,
                                       block_size=block_size))


# --------------------------------------------------------------------------- csv
def _is_number(text):
    return _NUMBER.fullmatch(text) is not None


def _is_header(fields, label_index):
    """A first row is a header when a feature cell holds text: not empty, not a number and
    not a NaN/infinity spelling (a first row with a NaN is data)."""
    return any(field and not _is_number(field) and not _NONFINITE.fullmatch(field)
               for i, field in enumerate(fields) if i != label_index)


def iter_csv(path, *, chunk_size=10_000, label_column=-1, delimiter=",", header="auto",
             dtype=np.float64, max_features=DEFAULT_MAX_FEATURES, allow_nan=False,
             block_size=DEFAULT_BLOCK_SIZE) -> Iterator:
    """Stream a delimited text file (plain, ``.gz``, ``.bz2``, ``.xz``) as dense chunks.

    Every field but ``label_column`` (an index, negative from the end; ``None`` for no
    labels, then ``y`` is ``None``) must be a finite decimal number
    (``[+-]digits[.digits][e[+-]digits]``); ``allow_nan=True`` lets ``nan``/``inf``/
    ``infinity`` through for users who impute them (estimators refuse NaN). Blanks around
    fields are ignored, quoting is not supported, at most ``max_features`` feature columns.

    Labels are kept as written and must not be empty. The first label fixes their kind:
    numbers (int64 when the first chunk's are all written as integers, else float64) or
    text; a label of the other kind later is refused. ``header="auto"`` skips the first
    line only when one of its feature cells is text that is not a NaN/infinity spelling
    (so a first row holding ``nan`` is data).

    Every problem with the file raises :class:`DataFileError` (a ``ValueError``) whose
    message is ``"file:line: problem"``: a row with the wrong number of fields, a feature
    that is not a number, a label that is empty or does not fit the labels before it, a
    file without examples, damaged compressed data.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.csv"
    >>> _ = path.write_text("a,b,class\\n1, 2.5, cat\\n-3,4e-1,dog\\n")
    >>> X, y = next(iter_csv(path))
    >>> X
    array([[ 1. ,  2.5],
           [-3. ,  0.4]])
    >>> y.tolist()
    ['cat', 'dog']
    """
    chunk_size = _check_positive_int(chunk_size, "chunk_size")
    block_size = _check_positive_int(block_size, "block_size")
    max_features = _check_positive_int(max_features, "max_features")
    dtype = _check_float_dtype(dtype)
    if not isinstance(delimiter, str) or len(delimiter.encode()) != 1 or delimiter == "\n":
        raise ValueError(f"delimiter must be a single one-byte character; got {delimiter!r}")
    if header not in (True, False, "auto"):
        raise ValueError(f"header must be True, False or 'auto'; got {header!r}")
    if label_column is not None and (isinstance(label_column, bool)
                                     or not isinstance(label_column, int | np.integer)):
        raise ValueError(f"label_column must be an integer or None; got {label_column!r}")
    if not isinstance(allow_nan, bool | np.bool_):
        raise ValueError(f"allow_nan must be True or False; got {allow_nan!r}")
    name = os.fspath(path)
    if not os.path.isfile(name):
        raise FileNotFoundError(f"no such data file: {name}")
    return _csv_chunks(lambda: open_data_file(name), name, chunk_size, label_column,
                       delimiter, header, dtype, block_size, max_features, bool(allow_nan))


_EXACT_INTEGER = 2.0**53
_FIRST_ROWS = 1 << 16  # a chunk's rows start at this many values and double up to chunk_size


class _CsvChunk:
    """Output arrays of :func:`_core.parse_csv` for one chunk.

    Rows are allocated as they are read (doubling), so a wide first line does not make
    ``chunk_size`` rows of it before a second line exists.
    """

    def __init__(self, chunk_size, n_columns, label_capacity):
        self.chunk_size = chunk_size
        rows = min(chunk_size, max(1, _FIRST_ROWS // n_columns))
        self.X = np.empty((rows, n_columns))
        self.values = np.empty(rows)
        self.numeric = np.empty(rows, dtype=np.bool_)
        self.integral = np.empty(rows, dtype=np.bool_)
        self.start = np.empty(rows, dtype=np.int64)
        self.end = np.empty(rows, dtype=np.int64)
        self.bytes = np.empty(label_capacity, dtype=np.uint8)
        self.line = np.empty(rows, dtype=np.int64)
        self.n_rows = 0
        self.n_bytes = 0

    @property
    def full(self):
        return self.n_rows >= self.chunk_size

    def grow(self):
        """Double the rows (at most ``chunk_size``), keeping those read."""
        rows = min(self.chunk_size, 2 * self.X.shape[0])
        for field in ("X", "values", "numeric", "integral", "start", "end", "line"):
            old = getattr(self, field)
            new = np.empty((rows,) + old.shape[1:], dtype=old.dtype)
            new[: self.n_rows] = old[: self.n_rows]
            setattr(self, field, new)


def _csv_first_line(buf, stop, name, delimiter, strip, header, label_column, max_features,
                    line_base):
    """Look at the first non-blank line of ``buf[:stop]``.

    Returns ``None`` when there is none, else ``(pos, lines, n_fields, label_index)``:
    parsing starts at ``pos`` after ``lines`` lines (past the header if there is one).
    """
    data = bytes(buf[:stop])
    pos = line = 0
    while pos < stop:
        nl = data.find(b"\n", pos)
        line_end = stop if nl < 0 else nl
        text = data[pos:line_end].decode("utf-8", errors="replace")
        if text.strip(" \t\r"):
            break
        pos, line = line_end + 1, line + 1
    else:
        return None
    here = line_base + line + 1
    if not strip and text.endswith("\r"):
        text = text[:-1]
    fields = text.split(delimiter)
    if strip:
        fields = [field.strip(" \t\r") for field in fields]
    n_fields = len(fields)
    lc = None
    if label_column is not None:
        lc = label_column + n_fields if label_column < 0 else label_column
        if not 0 <= lc < n_fields:
            raise DataFileError(name, here, f"label_column={label_column} is out of range "
                                            f"for {n_fields} fields")
    n_columns = n_fields - (lc is not None)
    if n_columns < 1:
        raise DataFileError(name, here, "no feature columns besides the label")
    if n_columns > max_features:
        raise DataFileError(name, here, f"{n_columns} feature columns, more than "
                                         f"max_features={max_features} (pass a larger "
                                         "max_features to read wider data)")
    if header is True or (header == "auto" and _is_header(fields, lc)):
        return line_end + 1, line + 1, n_fields, lc
    return pos, line, n_fields, lc


def _csv_labels(chunk, name, kind):
    """Labels of a finished chunk and the label kind (fixed by the first label)."""
    n = chunk.n_rows
    numeric, integral = chunk.numeric[:n], chunk.integral[:n]
    values = chunk.values[:n]
    if kind is None:  # integers only while exact in float64
        exact = integral.all() and np.all(np.abs(values) <= _EXACT_INTEGER)
        kind = "str" if not numeric[0] else "int" if exact else "float"

    def text(row):
        return _token(chunk.bytes, chunk.start[row], chunk.end[row])

    def refuse(row, problem):
        return DataFileError(name, chunk.line[row], f"label {text(row)!r} {problem}")

    if kind == "str":
        bad = np.flatnonzero(numeric)
        if bad.size:
            raise refuse(bad[0], "is a number, but the first label is text "
                                 "(numbers and text are not mixed as classes)")
        return _decode_labels(chunk, n, refuse), kind
    bad = np.flatnonzero(~numeric)
    if bad.size:
        raise refuse(bad[0], "is not a finite number, but the first label is a number "
                             "(numbers and text are not mixed as classes)")
    if kind == "int":
        off = np.flatnonzero((values != np.round(values)) | (np.abs(values) > _EXACT_INTEGER))
        if off.size:
            raise refuse(off[0], "is not an integer below 2**53, but the labels of the first "
                                 "chunk all were")
        return values.astype(np.int64), kind
    return values.copy(), kind


def _decode_labels(chunk, n, refuse):
    """Text labels of the chunk's rows; a NUL byte or invalid UTF-8 is refused."""
    starts, ends = chunk.start[:n], chunk.end[:n]
    nul = np.flatnonzero(chunk.bytes[: chunk.n_bytes] == 0)
    if nul.size:
        raise refuse(int(np.searchsorted(ends, nul[0], side="right")), "holds a NUL byte")
    width = max(int((ends - starts).max()), 1)
    raw = np.zeros((n, width), dtype=np.uint8)
    _core.gather_spans(chunk.bytes, starts, ends, raw)
    try:
        return np.char.decode(raw.view(f"S{width}").ravel(), "utf-8")
    except UnicodeDecodeError:
        for row in range(n):
            try:
                bytes(chunk.bytes[starts[row]:ends[row]]).decode("utf-8")
            except UnicodeDecodeError:
                raise refuse(row, "is not valid UTF-8") from None
        raise  # pragma: no cover - some row failed above


def _csv_chunks(opener, name, chunk_size, label_column, delimiter, header, dtype, block_size,
                max_features=DEFAULT_MAX_FEATURES, allow_nan=False):
    delim = ord(delimiter)
    strip = delimiter not in " \t"
    chunk = None
    line_base = 0
    produced = 0
    kind = None

    def make():
        nonlocal kind
        X = chunk.X[: chunk.n_rows]
        if X.dtype != dtype:
            X = X.astype(dtype)
        if lc is None:
            return X, None
        y, kind = _csv_labels(chunk, name, kind)
        return X, y

    with opener() as f:
        for buf, stop in line_blocks(f, block_size, name):
            pos = 0
            if chunk is None:
                first = _csv_first_line(buf, stop, name, delimiter, strip, header, label_column,
                                        max_features, line_base)
                if first is None:  # only blank lines so far
                    line_base += int(np.count_nonzero(buf[:stop] == 10))
                    continue
                pos, lines, n_fields, lc = first
                line_base += lines
                first_line = line_base + 1
                n_columns = n_fields - (lc is not None)
                chunk = _CsvChunk(chunk_size, n_columns, 16 * min(chunk_size, 4096))
            while True:
                status, pos, chunk.n_rows, chunk.n_bytes, lines, start, end, aux = (
                    _core.parse_csv(buf, pos, stop, delim, strip, n_fields,
                                    -1 if lc is None else lc, allow_nan, chunk.X.shape[0],
                                    line_base, chunk.X, chunk.values, chunk.numeric,
                                    chunk.integral, chunk.start, chunk.end, chunk.bytes,
                                    chunk.line, chunk.n_rows, chunk.n_bytes))
                line_base += lines
                if status == _core.DONE:
                    break
                if status == _core.CHUNK_FULL:
                    if not chunk.full:
                        chunk.grow()
                        continue
                    yield make()
                    produced += chunk.n_rows
                    chunk = _CsvChunk(chunk_size, n_columns, chunk.bytes.shape[0])
                elif status == _core.NEED_SPACE:
                    chunk.bytes = np.concatenate([chunk.bytes, np.empty_like(chunk.bytes)])
                elif status == _core.BAD_FIELD:
                    token = _token(buf, start, end)
                    if start == end:
                        what = f"field {aux + 1} is empty"
                    elif _nonfinite_value(token):
                        what = (f"field {aux + 1} {token!r} is not finite (pass allow_nan=True "
                                "to read NaN and infinities)")
                    else:
                        what = f"field {aux + 1} {token!r} is not a number"
                    raise DataFileError(name, line_base + 1, what)
                elif status == _core.EMPTY_LABEL:
                    raise DataFileError(name, line_base + 1,
                                        f"the label (field {aux + 1}) is empty")
                else:  # FIELD_COUNT
                    raise DataFileError(name, line_base + 1, f"expected {n_fields} fields "
                                        f"(as on line {first_line}), found {aux}")
            line_base += int(stop > 0 and buf[stop - 1] != 10)
    if chunk is not None and chunk.n_rows:
        yield make()
        produced += chunk.n_rows
    if produced == 0:
        raise DataFileError(name, max(line_base, 1), "the file contains no examples")


def load_csv(path, *, label_column=-1, delimiter=",", header="auto", dtype=np.float64,
             max_features=DEFAULT_MAX_FEATURES, allow_nan=False, chunk_size=100_000,
             block_size=DEFAULT_BLOCK_SIZE):
    """Read a whole delimited text file into dense ``(X, y)``; see :func:`iter_csv`.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.csv"
    >>> _ = path.write_text("1,2,0\\n3,4,1\\n")
    >>> X, y = load_csv(path)
    >>> X.shape, y.dtype, y.tolist()
    ((2, 2), dtype('int64'), [0, 1])
    """
    return concat_chunks(iter_csv(path, chunk_size=chunk_size, label_column=label_column,
                                  delimiter=delimiter, header=header, dtype=dtype,
                                  max_features=max_features, allow_nan=allow_nan,
                                  block_size=block_size))


def _iter_csv_bytes(data, name, *, chunk_size=10_000, label_column=-1, delimiter=",",
                    header="auto", dtype=np.float64, block_size=DEFAULT_BLOCK_SIZE):
    """:func:`iter_csv` over bytes in memory (used for repaired files); ``name`` for messages."""
    return _csv_chunks(lambda: io.BytesIO(data), name, chunk_size, label_column, delimiter,
                       header, np.dtype(dtype), block_size)


# --------------------------------------------------------------------------- arrays
def iter_arrays(X, y=None, *, chunk_size=10_000) -> Iterator:
    """Stream arrays in memory as ``(X, y)`` chunks of ``chunk_size`` rows.

    Dense arrays and CSR matrices are sliced, not copied (a dense chunk is a view); other
    sparse formats are converted to CSR once, other array-likes with ``np.asarray``.
    ``y`` may be ``None``.

    >>> import numpy as np
    >>> chunks = iter_arrays(np.zeros((5, 2)), np.arange(5), chunk_size=2)
    >>> [(X.shape, y.tolist()) for X, y in chunks]
    [((2, 2), [0, 1]), ((2, 2), [2, 3]), ((1, 2), [4])]
    """
    chunk_size = _check_positive_int(chunk_size, "chunk_size")
    if sp.issparse(X):
        if X.format != "csr":
            X = X.tocsr()
    elif not isinstance(X, np.ndarray):
        X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (rows, features); got shape {X.shape}")
    if y is not None:
        if not isinstance(y, np.ndarray):
            y = np.asarray(y)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels")
    return _array_chunks(X, y, chunk_size)


def _array_chunks(X, y, chunk_size):
    n = X.shape[0]
    for start in range(0, n, chunk_size):
        stop = min(start + chunk_size, n)
        yield X[start:stop], (None if y is None else y[start:stop])


def _npz_array(path, key):
    """Array ``key`` of an ``.npz``: memory-mapped when stored uncompressed, else loaded."""
    name = os.fspath(path)
    with zipfile.ZipFile(name) as archive:
        members = [m[:-4] for m in archive.namelist() if m.endswith(".npy")]
        try:
            info = archive.getinfo(key + ".npy")
        except KeyError:
            raise ValueError(
                f"{name} has no array {key!r}; it holds {', '.join(members)}") from None
        stored = info.compress_type == zipfile.ZIP_STORED
    if stored:
        with open(name, "rb") as f:
            f.seek(info.header_offset)
            local = f.read(30)
            name_len, extra_len = struct.unpack("<HH", local[26:30])
            f.seek(info.header_offset + 30 + name_len + extra_len)
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            else:
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
            offset = f.tell()
        if not dtype.hasobject:
            if int(np.prod(shape)) == 0:
                return np.empty(shape, dtype=dtype)
            return np.memmap(name, dtype=dtype, mode="r", offset=offset, shape=shape,
                             order="F" if fortran else "C")
    with np.load(name, allow_pickle=False) as archive:
        return archive[key]


def iter_npz(path, X_key="X", y_key="y", chunk_size=10_000) -> Iterator:
    """Stream arrays ``X_key`` and ``y_key`` of an ``.npz`` file as ``(X, y)`` chunks.

    Arrays stored uncompressed (``np.savez``) are memory-mapped, so only the pages of the
    current chunk are read; compressed ones (``np.savez_compressed``) are loaded whole
    first. ``y_key=None`` gives ``y = None``.

    >>> import pathlib, tempfile, numpy as np
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.npz"
    >>> np.savez(path, X=np.arange(6.0).reshape(3, 2), y=np.array([1, -1, 1]))
    >>> [(X.tolist(), y.tolist()) for X, y in iter_npz(path, chunk_size=2)]
    [([[0.0, 1.0], [2.0, 3.0]], [1, -1]), ([[4.0, 5.0]], [1])]
    """
    chunk_size = _check_positive_int(chunk_size, "chunk_size")
    name = os.fspath(path)
    if not os.path.isfile(name):
        raise FileNotFoundError(f"no such data file: {name}")
    X = _npz_array(name, X_key)
    y = None if y_key is None else _npz_array(name, y_key)
    if X.ndim != 2:
        raise ValueError(f"{name}: array {X_key!r} must be 2-D; got shape {X.shape}")
    if y is not None and y.shape[0] != X.shape[0]:
        raise ValueError(f"{name}: {X_key!r} has {X.shape[0]} rows but {y_key!r} has "
                         f"{y.shape[0]} labels")
    return _npz_chunks(X, y, chunk_size)


def _npz_chunks(X, y, chunk_size):
    for Xc, yc in _array_chunks(X, y, chunk_size):
        yield np.asarray(Xc), (None if yc is None else np.asarray(yc))
