"""The svmlight/LIBSVM reader: CSR chunks in constant memory, ``file:line:`` errors."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp

from . import _core
from ._common import (
    DEFAULT_BLOCK_SIZE,
    DEFAULT_MAX_FEATURES,
    _check_positive_int,
    _not_a_number,
    _text_reader_options,
    _token,
    concat_chunks,
)
from .files import DataFileError, data_file_name, line_blocks, open_data_file

__all__ = ["IndexBaseWarning", "iter_svmlight", "load_svmlight"]

_INT32_MAX = np.iinfo(np.int32).max


def _svmlight_error(name, line, status, buf, start, end, aux, n_features, max_features,
                    offset):
    token = _token(buf, start, end)
    hint = None
    if status == _core.BAD_LABEL:
        what = f"label {token!r} is not a finite number"
        if ":" in token:
            what += (" (every svmlight line starts with its label: for rows without labels, "
                     "write any number first, e.g. 0)")
    elif status == _core.BAD_INDEX:
        if re.fullmatch(r"-\d+", token):
            what = f"feature index {token!r} is negative"
        else:
            what = f"feature index {token!r} is not an integer"
    elif status == _core.MISSING_COLON:
        what = f"feature {token!r} is not written as index:value"
    elif status == _core.BAD_VALUE:
        what, hint = ((f"feature {aux} has no value", None) if start == end else
                      _not_a_number(f"value {token!r} of feature {aux}", token))
    elif status == _core.INDEX_BELOW_ONE:
        what = ("feature index 0 in a one-based file (zero_based=False); "
                "pass zero_based=True or 'auto' if the indices start at 0")
    elif status == _core.NOT_INCREASING and token == str(aux):
        what = f"feature index {token} appears twice"
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
    return DataFileError(name, line, what, hint)


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


class IndexBaseWarning(UserWarning):
    """An svmlight file read at a given width whose base could be either: no index 0 occurs,
    so ``zero_based="auto"`` reads it as one-based, but its largest index also fits the width
    read zero-based (a few rows of a zero-based file often lack feature 0). The features of
    a zero-based file read as one-based shift by one column, without an error."""

    def __init__(self, path, largest, n_features):
        self.path, self.largest, self.n_features = path, int(largest), int(n_features)
        super().__init__(
            f"{path}: no feature index 0, so its indices are read as one-based (index 1 is "
            f"the first of the {n_features} features); its largest index, {largest}, fits "
            f"zero-based too: if the data were written from 0, pass zero_based=True")

    def __reduce__(self):  # pickled whole, e.g. from a worker process
        return type(self), (self.path, self.largest, self.n_features)


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
    scikit-learn's ``load_svmlight_file``); give both to read the file only once. With
    ``n_features`` given and ``"auto"``, a file without index 0 whose largest index is
    below ``n_features`` could have either base: it is read as one-based with an
    :class:`IndexBaseWarning` (give ``zero_based`` when the data's base is known, as when
    predicting with a model trained on a zero-based file). Without
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
    chunk_size, block_size, max_features, dtype = _text_reader_options(
        chunk_size, block_size, max_features, dtype)
    if n_features is not None:
        n_features = _check_positive_int(n_features, "n_features")
    if zero_based not in (True, False, "auto"):
        raise ValueError(f"zero_based must be True, False or 'auto'; got {zero_based!r}")
    if not isinstance(allow_nan, bool | np.bool_):
        raise ValueError(f"allow_nan must be True or False; got {allow_nan!r}")
    name = data_file_name(path)
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
            if not zero_based and given_n_features is not None and 0 < max_raw < n_features:
                warnings.warn(IndexBaseWarning(name, max_raw, n_features), stacklevel=2)
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
