"""What the text readers share: defaults, argument checks, number spellings, chunks.

Used by :mod:`.svmlight`, :mod:`.delimited`, :mod:`.readers` and :mod:`.generators`.
"""

from __future__ import annotations

import re

import numpy as np
import scipy.sparse as sp

DEFAULT_BLOCK_SIZE = 8 << 20  # bytes read and parsed at a time
DEFAULT_MAX_FEATURES = 1 << 24  # widest data a file may declare unless told otherwise
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)
_NONFINITE = re.compile(r"[+-]?(nan|inf|infinity)", re.IGNORECASE | re.ASCII)
#: how the Python readers say a non-finite value can be read (the command line, whose
#: estimators take finite values only, says something else in its place)
NONFINITE_HINT = "pass allow_nan=True to read NaN and infinities"


def _check_positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return int(value)


def _check_float_dtype(dtype):
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64; got {dtype}")
    return dtype


def _text_reader_options(chunk_size, block_size, max_features, dtype):
    """The options every text reader shares, checked: ``(chunk_size, block_size,
    max_features, dtype)`` as ints and a float dtype."""
    return (_check_positive_int(chunk_size, "chunk_size"),
            _check_positive_int(block_size, "block_size"),
            _check_positive_int(max_features, "max_features"), _check_float_dtype(dtype))


def _token(buf, start, end, limit=40):
    text = bytes(buf[start:min(end, start + limit)]).decode("utf-8", errors="replace")
    return text + ("..." if end - start > limit else "")



def _nonfinite_value(token):
    """Whether ``token`` spells NaN or an infinity, or a decimal too large for a double."""
    if _NONFINITE.fullmatch(token):
        return True
    return _NUMBER.fullmatch(token) is not None and not np.isfinite(float(token))


def _not_a_number(named: str, token: str) -> tuple[str, str | None]:
    """``(what, hint)`` of a value ``token`` that did not parse as a finite number, ``named``
    as the message names it (e.g. ``"field 3 'x'"``): not finite (with
    :data:`NONFINITE_HINT`, the readers' ``allow_nan``), or not a number."""
    if _nonfinite_value(token):
        return f"{named} is not finite", NONFINITE_HINT
    return f"{named} is not a number", None



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
