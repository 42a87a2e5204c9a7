"""The delimited-text (CSV) reader: dense chunks in constant memory, ``file:line:`` errors."""

from __future__ import annotations

import io
from collections.abc import Iterator

import numpy as np

from ..utils.arrays import grow_rows
from . import _core
from ._common import (
    _NONFINITE,
    _NUMBER,
    DEFAULT_BLOCK_SIZE,
    DEFAULT_MAX_FEATURES,
    _not_a_number,
    _text_reader_options,
    _token,
    concat_chunks,
)
from .files import DataFileError, data_file_name, line_blocks, open_data_file

__all__ = ["iter_csv", "load_csv"]

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
    numbers (int64 when the first chunk's are all written as integers within int64's range,
    read exactly however large: 9007199254740993 is not ...992; else float64) or text; a
    label of the other kind later is refused. A UTF-8 byte-order mark at the start of the
    file is skipped. ``header="auto"`` skips the first
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
    chunk_size, block_size, max_features, dtype = _text_reader_options(
        chunk_size, block_size, max_features, dtype)
    if not isinstance(delimiter, str) or len(delimiter.encode()) != 1 or delimiter == "\n":
        raise ValueError(f"delimiter must be a single one-byte character; got {delimiter!r}")
    if header not in (True, False, "auto"):
        raise ValueError(f"header must be True, False or 'auto'; got {header!r}")
    if label_column is not None and (isinstance(label_column, bool)
                                     or not isinstance(label_column, int | np.integer)):
        raise ValueError(f"label_column must be an integer or None; got {label_column!r}")
    if not isinstance(allow_nan, bool | np.bool_):
        raise ValueError(f"allow_nan must be True or False; got {allow_nan!r}")
    name = data_file_name(path)
    return _csv_chunks(lambda: open_data_file(name), name, chunk_size, label_column,
                       delimiter, header, dtype, block_size, max_features, bool(allow_nan))


_EXACT_INTEGER = 2.0**53
_INT64 = (-(2**63), 2**63 - 1)
_BOM = b"\xef\xbb\xbf"
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
        grow_rows(self, ("X", "values", "numeric", "integral", "start", "end", "line"),
                  min(self.chunk_size, 2 * self.X.shape[0]), self.n_rows)


def _csv_first_line(buf, stop, name, delimiter, strip, header, label_column, max_features,
                    line_base):
    """Look at the first non-blank line of ``buf[:stop]``.

    Returns ``None`` when there is none, else ``(pos, lines, n_fields, label_index)``:
    parsing starts at ``pos`` after ``lines`` lines (past the header if there is one).
    """
    data = bytes(buf[:stop])
    pos = line = 0
    if line_base == 0 and data.startswith(_BOM):  # a UTF-8 byte-order mark is no text
        pos = len(_BOM)
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

    def text(row):
        return _token(chunk.bytes, chunk.start[row], chunk.end[row])

    def refuse(row, problem):
        return DataFileError(name, chunk.line[row], f"label {text(row)!r} {problem}")

    large = numeric & (np.abs(values) >= _EXACT_INTEGER)  # beyond float64's exact integers
    exact = {}  # row -> the integer its text spells, for the large ones written as integers

    def spelled(rows):
        for row in rows:
            if row not in exact:
                exact[row] = int(text(row))
        return [exact[row] for row in rows]

    if kind is None:  # int64 when all are written as integers within int64, read exactly
        kind = "str" if not numeric[0] else "float"
        if numeric[0] and integral.all() and all(
                _INT64[0] <= v <= _INT64[1] for v in spelled(np.flatnonzero(large))):
            kind = "int"
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
        off = (values != np.round(values)) | (large & ~integral)
        for row in np.flatnonzero(large & integral):
            off[row] |= not _INT64[0] <= spelled([row])[0] <= _INT64[1]
        if off.any():
            raise refuse(np.flatnonzero(off)[0], "is not an integer below 2**63 in magnitude "
                                                 "(int64), but the labels of the first chunk "
                                                 "all were")
        labels = np.where(large, 0.0, values).astype(np.int64)
        for row in np.flatnonzero(large):  # exact: 9007199254740993 is not ...992
            labels[row] = spelled([row])[0]
        return labels, kind
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
                    what, hint = ((f"field {aux + 1} is empty", None) if start == end else
                                  _not_a_number(f"field {aux + 1} {token!r}", token))
                    raise DataFileError(name, line_base + 1, what, hint)
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
