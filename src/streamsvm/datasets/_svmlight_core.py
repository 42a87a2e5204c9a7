"""Jitted svmlight/LIBSVM parser: one call per block of bytes, no Python per line.

The error codes returned by :func:`parse_block` are turned into messages by the reader.
"""

import numpy as np
from numba import njit

OK = 0
BAD_LABEL = 1
BAD_INDEX = 2
MISSING_COLON = 3
BAD_VALUE = 4
INDEX_TOO_SMALL = 5
INDEX_NOT_INCREASING = 6
INDEX_TOO_LARGE = 7

MESSAGES = {
    BAD_LABEL: "the label is not a number",
    BAD_INDEX: "a feature index is not a non-negative integer",
    MISSING_COLON: "a feature is not written as index:value",
    BAD_VALUE: "a feature value is not a finite number",
    INDEX_TOO_SMALL: "feature index 0 in a one-based file",
    INDEX_NOT_INCREASING: "feature indices are not in increasing order",
    INDEX_TOO_LARGE: "a feature index is beyond n_features",
}

_SPACE = np.uint8(32)
_TAB = np.uint8(9)
_CR = np.uint8(13)
_NL = np.uint8(10)
_HASH = np.uint8(35)
_COLON = np.uint8(58)


@njit(cache=True)
def _is_blank(c):
    return c == _SPACE or c == _TAB or c == _CR


@njit(cache=True)
def _parse_number(buf, pos, end):
    """Parse a decimal float ``[+-]digits[.digits][(e|E)[+-]digits]`` starting at ``pos``.

    Returns ``(value, new_pos, ok)``. The mantissa is accumulated exactly (up to 2**53) and
    scaled once by a power of ten, so values of up to 15 significant digits are read to
    within one rounding of the exact decimal.
    """
    sign = 1.0
    if pos < end and (buf[pos] == 45 or buf[pos] == 43):  # - +
        if buf[pos] == 45:
            sign = -1.0
        pos += 1
    mantissa = 0.0
    exponent = 0
    digits = 0
    while pos < end and 48 <= buf[pos] <= 57:
        if mantissa < 9.0e15:
            mantissa = mantissa * 10.0 + (buf[pos] - 48)
        else:
            exponent += 1
        digits += 1
        pos += 1
    if pos < end and buf[pos] == 46:  # .
        pos += 1
        while pos < end and 48 <= buf[pos] <= 57:
            if mantissa < 9.0e15:
                mantissa = mantissa * 10.0 + (buf[pos] - 48)
                exponent -= 1
            digits += 1
            pos += 1
    if digits == 0:
        return 0.0, pos, False
    if pos < end and (buf[pos] == 101 or buf[pos] == 69):  # e E
        pos += 1
        exp_sign = 1
        if pos < end and (buf[pos] == 45 or buf[pos] == 43):
            if buf[pos] == 45:
                exp_sign = -1
            pos += 1
        exp_digits = 0
        value = 0
        while pos < end and 48 <= buf[pos] <= 57:
            if value < 100000:
                value = value * 10 + (buf[pos] - 48)
            exp_digits += 1
            pos += 1
        if exp_digits == 0:
            return 0.0, pos, False
        exponent += exp_sign * value
    if exponent >= 0:
        result = mantissa * 10.0**exponent
    elif exponent >= -300:
        result = mantissa / 10.0 ** (-exponent)
    else:
        result = mantissa / 10.0**300 / 10.0 ** (-exponent - 300)
    if not np.isfinite(result):
        return 0.0, pos, False
    return sign * result, pos, True


@njit(cache=True)
def parse_block(buf, offset, n_features, labels, indptr, indices, values):
    """Parse the complete lines of ``buf`` (uint8) into CSR arrays.

    ``offset`` is subtracted from every index (1 for one-based files, 0 for zero-based);
    ``n_features`` < 0 means unknown. Blank and comment-only lines give no row; ``qid:``
    pairs are skipped. Output arrays must hold at least one entry per line (labels,
    indptr[1:]) and per ``:`` (indices, values).

    Returns ``(n_rows, nnz, n_lines, min_index, max_index, error, error_line)`` where
    ``error_line`` is the 0-based line within the block and indices are after ``offset``.
    """
    end = buf.shape[0]
    pos = 0
    n_rows = 0
    nnz = 0
    line = 0
    min_index = 1 << 62
    max_index = -1
    indptr[0] = 0
    while pos < end:
        while pos < end and _is_blank(buf[pos]):
            pos += 1
        if pos >= end:
            break
        if buf[pos] == _NL or buf[pos] == _HASH:
            while pos < end and buf[pos] != _NL:
                pos += 1
            pos += 1
            line += 1
            continue
        label, pos, ok = _parse_number(buf, pos, end)
        if not ok or (pos < end and not (_is_blank(buf[pos]) or buf[pos] == _NL or buf[pos] == _HASH)):
            return n_rows, nnz, line, min_index, max_index, BAD_LABEL, line
        previous = -1
        while True:
            while pos < end and _is_blank(buf[pos]):
                pos += 1
            if pos >= end or buf[pos] == _NL:
                break
            if buf[pos] == _HASH:
                while pos < end and buf[pos] != _NL:
                    pos += 1
                break
            # qid:N is skipped
            if pos + 3 < end and buf[pos] == 113 and buf[pos + 1] == 105 and buf[pos + 2] == 100 and buf[pos + 3] == _COLON:
                pos += 4
                while pos < end and not (_is_blank(buf[pos]) or buf[pos] == _NL):
                    pos += 1
                continue
            index = 0
            index_digits = 0
            while pos < end and 48 <= buf[pos] <= 57:
                if index < (1 << 40):
                    index = index * 10 + (buf[pos] - 48)
                index_digits += 1
                pos += 1
            if index_digits == 0:
                return n_rows, nnz, line, min_index, max_index, BAD_INDEX, line
            if pos >= end or buf[pos] != _COLON:
                if pos < end and not (_is_blank(buf[pos]) or buf[pos] == _NL):
                    return n_rows, nnz, line, min_index, max_index, BAD_INDEX, line
                return n_rows, nnz, line, min_index, max_index, MISSING_COLON, line
            pos += 1
            value, pos, ok = _parse_number(buf, pos, end)
            if not ok or (pos < end and not (_is_blank(buf[pos]) or buf[pos] == _NL or buf[pos] == _HASH)):
                return n_rows, nnz, line, min_index, max_index, BAD_VALUE, line
            index -= offset
            if index < 0:
                return n_rows, nnz, line, min_index, max_index, INDEX_TOO_SMALL, line
            if index <= previous:
                return n_rows, nnz, line, min_index, max_index, INDEX_NOT_INCREASING, line
            if n_features >= 0 and index >= n_features:
                return n_rows, nnz, line, min_index, max_index, INDEX_TOO_LARGE, line
            previous = index
            if index < min_index:
                min_index = index
            if index > max_index:
                max_index = index
            indices[nnz] = index
            values[nnz] = value
            nnz += 1
        labels[n_rows] = label
        n_rows += 1
        indptr[n_rows] = nnz
        pos += 1  # the newline
        line += 1
    return n_rows, nnz, line, min_index, max_index, OK, -1
