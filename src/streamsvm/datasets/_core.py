"""Jitted text parsers: one call per block of bytes, no Python per line.

Both parsers read the complete lines of ``buf[pos:stop]`` (a ``uint8`` array) into
preallocated output arrays and stop early when the chunk is full, when the output arrays
are too small (the row being read is rolled back) or at the first malformed line. They
return a status code and enough positions for the caller to build an error message that
names the line and the offending token; turning codes into messages is done in Python
(:mod:`streamsvm.datasets.readers`).

A line ends at ``\\n``; ``\\r``, spaces and tabs are blanks. The end of the buffer ends the
last line (the reader only hands over complete lines, or the tail of the file).
"""

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

# statuses shared by both parsers
DONE = 0  # every line of buf[pos:stop] was read
CHUNK_FULL = 1  # max_rows rows were read; pos is at the start of the next line
NEED_SPACE = 2  # the output arrays are full; the current row was rolled back

# svmlight errors
BAD_LABEL = 10
BAD_INDEX = 11
MISSING_COLON = 12
BAD_VALUE = 13
INDEX_BELOW_ONE = 14
NOT_INCREASING = 15
INDEX_TOO_LARGE = 16
INDEX_OVERFLOW = 17

# csv errors
BAD_FIELD = 20
FIELD_COUNT = 21
EMPTY_LABEL = 22

_NL = 10
_CR = 13
_TAB = 9
_SPACE = 32
_HASH = 35
_COLON = 58
_PLUS = 43
_MINUS = 45
_DOT = 46
_LOWER_E = 101
_UPPER_E = 69

_MAX_INDEX = 1 << 60


def _powers_of_ten():
    """``10**k``, k = 0..308, as double-double ``hi + lo`` (exact integers rounded twice)."""
    hi = np.empty(309)
    lo = np.empty(309)
    for k in range(309):
        exact = 10**k
        hi[k] = float(exact)
        lo[k] = float(exact - int(hi[k]))
    return hi, lo


_POW10_HI, _POW10_LO = _powers_of_ten()
_TWO_256 = 2.0**256
_MANTISSA_LIMIT = 9_000_000_000_000_000_000  # digits are kept while mantissa < this / 10


@intrinsic
def _fma(typingctx, a, b, c):
    """``a * b + c`` with one rounding (LLVM's fma)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        return builder.fma(*args)

    return sig, codegen


@njit(cache=True, inline="always")
def _is_blank(c):
    return c == _SPACE or c == _TAB or c == _CR


@njit(cache=True, inline="always")
def _is_digit(c):
    return 48 <= c <= 57


@njit(cache=True)
def _two_prod(a, b):
    """``a * b == p + e`` exactly."""
    p = a * b
    return p, _fma(a, b, -p)


@njit(cache=True)
def _dd_div(ah, al, bh, bl):
    """``(ah + al) / (bh + bl)`` as a double-double ``(hi, lo)``."""
    q1 = ah / bh
    p, e = _two_prod(q1, bh)
    r = (ah - p) - e + al - q1 * bl
    q2 = r / bh
    hi = q1 + q2
    return hi, q2 - (hi - q1)


@njit(cache=True)
def decimal_to_double(mantissa, exp10, dropped):
    """The double nearest to ``mantissa * 10**exp10`` (``0 <= mantissa < 9e18``).

    ``dropped`` says that nonzero digits followed the mantissa; the value is then taken
    as ``mantissa + 1/2`` (it lies strictly between ``mantissa`` and ``mantissa + 1``).

    Clinger's fast path when the mantissa and the power of ten are exact doubles (one
    rounding); otherwise double-double arithmetic with ``10**k`` stored as ``hi + lo``,
    whose error (about 2**-104 relative) can only change the rounding of a value within
    that distance of a midpoint between two doubles. Subnormal results (below 2.2e-308)
    may be one unit off (a second rounding).
    """
    if mantissa == 0:
        return 0.0
    if not dropped and mantissa <= 9007199254740992 and -22 <= exp10 <= 22:
        if exp10 >= 0:
            return np.float64(mantissa) * _POW10_HI[exp10]
        return np.float64(mantissa) / _POW10_HI[-exp10]
    if exp10 > 308:
        return np.inf
    mh = np.float64(mantissa)
    ml = np.float64(mantissa - np.int64(mh)) + (0.5 if dropped else 0.0)
    if exp10 >= 0:
        p, e = _two_prod(mh, _POW10_HI[exp10])
        if np.isinf(p):  # too large: the error term would be inf - inf
            return p
        e += mh * _POW10_LO[exp10] + ml * _POW10_HI[exp10]
        return p + e
    k = -exp10
    if k > 400:  # below 1e19 * 1e-400: rounds to zero
        return 0.0
    scale = 1.0
    if k > 280:  # keep the quotient and its correction term clear of underflow
        mh *= _TWO_256
        ml *= _TWO_256
        scale = 1.0 / _TWO_256
    if k > 308:  # 10**k is no double: divide in two steps, still in double-double
        mh, ml = _dd_div(mh, ml, _POW10_HI[k - 308], _POW10_LO[k - 308])
        k = 308
    hi, lo = _dd_div(mh, ml, _POW10_HI[k], _POW10_LO[k])
    return (hi + lo) * scale


@njit(cache=True)
def _special_value(buf, pos, stop):
    """``(value, end)`` for ``nan``, ``inf`` or ``infinity`` (any case) at ``pos``; else
    ``end == pos``."""
    if pos + 3 > stop:
        return 0.0, pos
    a, b, c = buf[pos] | 32, buf[pos + 1] | 32, buf[pos + 2] | 32
    if a == 110 and b == 97 and c == 110:  # nan
        return np.nan, pos + 3
    if not (a == 105 and b == 110 and c == 102):  # inf
        return 0.0, pos
    if (pos + 8 <= stop and buf[pos + 3] | 32 == 105 and buf[pos + 4] | 32 == 110
            and buf[pos + 5] | 32 == 105 and buf[pos + 6] | 32 == 116
            and buf[pos + 7] | 32 == 121):  # inity
        return np.inf, pos + 8
    return np.inf, pos + 3


@njit(cache=True)
def parse_float(buf, pos, stop, allow_nonfinite):
    """Read a number at ``pos``; return ``(value, new_pos, ok)``.

    The grammar (the finite decimals)::

        number   := sign? (digits ("." digits?)? | "." digits) exponent?
        exponent := ("e" | "E") sign? digits
        sign     := "+" | "-"          digits := one or more of 0-9

    With ``allow_nonfinite`` a number may also be ``sign? (nan | inf | infinity)`` in any
    case, and a decimal too large for a double gives ``+-inf`` (as ``float`` does);
    without it both give ``ok`` false. ``ok`` is false too when no number starts at
    ``pos``. Stops at the first byte that cannot continue the number.

    The first 18 or 19 significant digits are kept exactly and the value is converted by
    :func:`decimal_to_double`, so it is rounded correctly (the same double as
    ``float(text)``) except within about 1e-19 of a midpoint between doubles when more
    digits are written, or for subnormal values.
    """
    negative = False
    if pos < stop and (buf[pos] == _PLUS or buf[pos] == _MINUS):
        negative = buf[pos] == _MINUS
        pos += 1
    if allow_nonfinite and pos < stop and not _is_digit(buf[pos]) and buf[pos] != _DOT:
        special, end = _special_value(buf, pos, stop)
        if end == pos:
            return 0.0, pos, False
        return (-special if negative else special), end, True
    mantissa = np.int64(0)
    exp10 = 0
    digits = 0
    dropped = False  # a nonzero digit did not fit into the mantissa
    while pos < stop and _is_digit(buf[pos]):
        if mantissa < _MANTISSA_LIMIT // 10:
            mantissa = mantissa * 10 + (buf[pos] - 48)
        else:
            exp10 += 1
            dropped = dropped or buf[pos] != 48
        digits += 1
        pos += 1
    if pos < stop and buf[pos] == _DOT:
        pos += 1
        while pos < stop and _is_digit(buf[pos]):
            if mantissa < _MANTISSA_LIMIT // 10:
                mantissa = mantissa * 10 + (buf[pos] - 48)
                exp10 -= 1
            else:
                dropped = dropped or buf[pos] != 48
            digits += 1
            pos += 1
    if digits == 0:
        return 0.0, pos, False
    if pos < stop and (buf[pos] == _LOWER_E or buf[pos] == _UPPER_E):
        pos += 1
        exp_negative = False
        if pos < stop and (buf[pos] == _PLUS or buf[pos] == _MINUS):
            exp_negative = buf[pos] == _MINUS
            pos += 1
        exp_digits = 0
        e = 0
        while pos < stop and _is_digit(buf[pos]):
            if e < 100_000:
                e = e * 10 + (buf[pos] - 48)
            exp_digits += 1
            pos += 1
        if exp_digits == 0:
            return 0.0, pos, False
        exp10 += -e if exp_negative else e
    value = decimal_to_double(mantissa, exp10, dropped)
    if not allow_nonfinite and not np.isfinite(value):
        return 0.0, pos, False
    return (-value if negative else value), pos, True


@njit(cache=True, inline="always")
def _ends_svm_token(buf, pos, stop):
    return pos >= stop or _is_blank(buf[pos]) or buf[pos] == _NL or buf[pos] == _HASH


@njit(cache=True)
def _svm_token_end(buf, pos, stop):
    while not _ends_svm_token(buf, pos, stop):
        pos += 1
    return pos


@njit(cache=True)
def parse_svmlight(buf, pos, stop, offset, limit, allow_nan, store, max_rows,
                   labels, indptr, indices, values, n_rows, nnz):
    """Read svmlight/LIBSVM lines ``label [qid:q] index:value ...  # comment``.

    ``offset`` (1 for one-based files, 0 for zero-based) is subtracted from each index to
    give the column, which must be below ``limit`` (``INDEX_TOO_LARGE``). Values may be
    NaN or infinite when ``allow_nan`` is true; labels never. Rows are appended to ``labels``,
    ``indptr``, ``indices``, ``values`` after the ``n_rows`` rows / ``nnz`` entries already
    there (``indptr[n_rows] == nnz``). With ``store`` false nothing is written (a counting
    pre-scan). Blank and comment lines give no row; ``qid:`` pairs are skipped.

    Returns ``(status, pos, n_rows, nnz, lines, min_raw, max_raw, tok_start, tok_end,
    aux)``: ``lines`` is the number of line ends consumed (on an error: before the bad
    line), ``min_raw``/``max_raw`` the smallest/largest index as written, ``tok_*`` the
    span of the offending token and ``aux`` the index concerned (the previous index for
    ``NOT_INCREASING``).
    """
    lines = 0
    min_raw = np.int64(_MAX_INDEX)
    max_raw = np.int64(-1)
    capacity = indices.shape[0]
    while pos < stop:
        if n_rows >= max_rows:
            return CHUNK_FULL, pos, n_rows, nnz, lines, min_raw, max_raw, 0, 0, 0
        line_start = pos
        while pos < stop and _is_blank(buf[pos]):
            pos += 1
        if pos >= stop:
            break
        if buf[pos] == _NL or buf[pos] == _HASH:
            while pos < stop and buf[pos] != _NL:
                pos += 1
            if pos < stop:
                pos += 1
                lines += 1
            continue
        start = pos
        label, pos, ok = parse_float(buf, pos, stop, False)
        if not ok or not _ends_svm_token(buf, pos, stop):
            return (BAD_LABEL, line_start, n_rows, nnz, lines, min_raw, max_raw,
                    start, _svm_token_end(buf, start, stop), 0)
        row_start_nnz = nnz
        previous = np.int64(-1)
        while True:
            while pos < stop and _is_blank(buf[pos]):
                pos += 1
            if pos >= stop or buf[pos] == _NL:
                break
            if buf[pos] == _HASH:
                while pos < stop and buf[pos] != _NL:
                    pos += 1
                break
            start = pos
            if (pos + 3 < stop and buf[pos] == 113 and buf[pos + 1] == 105
                    and buf[pos + 2] == 100 and buf[pos + 3] == _COLON):  # qid:
                pos = _svm_token_end(buf, pos, stop)
                continue
            index = np.int64(0)
            n_digits = 0
            overflow = False
            while pos < stop and _is_digit(buf[pos]):
                if index < 100_000_000_000_000_000:  # stays far below 2**63
                    index = index * 10 + (buf[pos] - 48)
                else:
                    overflow = True
                n_digits += 1
                pos += 1
            if n_digits == 0 or pos >= stop or buf[pos] != _COLON:
                end = start
                while not _ends_svm_token(buf, end, stop) and buf[end] != _COLON:
                    end += 1
                if end < stop and buf[end] == _COLON:  # the part before the colon is bad
                    return (BAD_INDEX, line_start, n_rows, nnz, lines, min_raw, max_raw,
                            start, end, 0)
                return (MISSING_COLON, line_start, n_rows, nnz, lines, min_raw, max_raw,
                        start, end, 0)
            if overflow:
                return (INDEX_OVERFLOW, line_start, n_rows, nnz, lines, min_raw, max_raw,
                        start, pos, 0)
            pos += 1  # the colon
            value_start = pos
            value, pos, ok = parse_float(buf, pos, stop, allow_nan)
            if not ok or not _ends_svm_token(buf, pos, stop):
                return (BAD_VALUE, line_start, n_rows, nnz, lines, min_raw, max_raw,
                        value_start, _svm_token_end(buf, value_start, stop), index)
            if index <= previous:
                return (NOT_INCREASING, line_start, n_rows, nnz, lines, min_raw, max_raw,
                        start, value_start - 1, previous)
            previous = index
            column = index - offset
            if column < 0:
                return (INDEX_BELOW_ONE, line_start, n_rows, nnz, lines, min_raw, max_raw,
                        start, value_start - 1, index)
            if column >= limit:
                return (INDEX_TOO_LARGE, line_start, n_rows, nnz, lines, min_raw, max_raw,
                        start, value_start - 1, index)
            if index < min_raw:
                min_raw = index
            if index > max_raw:
                max_raw = index
            if store:
                if nnz >= capacity:
                    return (NEED_SPACE, line_start, n_rows, row_start_nnz, lines, min_raw,
                            max_raw, 0, 0, 0)
                indices[nnz] = column
                values[nnz] = value
            nnz += 1
        if store:
            labels[n_rows] = label
            indptr[n_rows + 1] = nnz
        n_rows += 1
        if pos < stop:  # at the newline
            pos += 1
            lines += 1
    return DONE, pos, n_rows, nnz, lines, min_raw, max_raw, 0, 0, 0


@njit(cache=True)
def last_newline(buf, end):
    """Index of the last ``\\n`` in ``buf[:end]``, or -1."""
    for i in range(end - 1, -1, -1):
        if buf[i] == _NL:
            return i
    return -1


@njit(cache=True)
def parse_csv(buf, pos, stop, delimiter, strip, n_fields, label_column, allow_nan, max_rows,
              line_base, X, label_values, label_numeric, label_integral, label_start, label_end,
              label_bytes, row_line, n_rows, n_label_bytes):
    """Read delimited lines of exactly ``n_fields`` fields into the rows of ``X``.

    Field ``label_column`` (none when it is < 0) is not parsed into ``X``: its bytes are
    appended to ``label_bytes`` (span ``label_start``/``label_end``) and, when it reads as
    a number, its value goes to ``label_values`` with ``label_numeric`` set
    (``label_integral`` when written as an integer). ``strip`` removes blanks around each
    field. Lines with only blanks give no row. An empty label is ``EMPTY_LABEL``. Every other
    field must be a number (NaN and infinities too when ``allow_nan`` is true).
    ``row_line`` receives the 1-based line of each row (``line_base`` lines precede
    ``buf[pos]``).

    Returns ``(status, pos, n_rows, n_label_bytes, lines, tok_start, tok_end, aux)``; on
    ``BAD_FIELD`` and ``EMPTY_LABEL`` ``aux`` is the 0-based field, on ``FIELD_COUNT`` the
    number of fields.
    """
    lines = 0
    while pos < stop:
        if n_rows >= max_rows:
            return CHUNK_FULL, pos, n_rows, n_label_bytes, lines, 0, 0, 0
        line_start = pos
        while pos < stop and _is_blank(buf[pos]):
            pos += 1
        if pos >= stop:
            break
        if buf[pos] == _NL:
            pos += 1
            lines += 1
            continue
        pos = line_start
        field = 0
        column = 0
        while True:
            start = pos
            while pos < stop and buf[pos] != delimiter and buf[pos] != _NL:
                pos += 1
            end = pos
            if strip:
                while start < end and _is_blank(buf[start]):
                    start += 1
                while end > start and _is_blank(buf[end - 1]):
                    end -= 1
            elif end > start and buf[end - 1] == _CR:
                end -= 1
            if field < n_fields:
                if field == label_column:
                    size = end - start
                    if size == 0:
                        return (EMPTY_LABEL, line_start, n_rows, n_label_bytes, lines, start,
                                end, field)
                    if n_label_bytes + size > label_bytes.shape[0]:
                        return NEED_SPACE, line_start, n_rows, n_label_bytes, lines, 0, 0, 0
                    for q in range(size):
                        label_bytes[n_label_bytes + q] = buf[start + q]
                    label_start[n_rows] = n_label_bytes
                    label_end[n_rows] = n_label_bytes + size
                    n_label_bytes += size
                    value, p, ok = parse_float(buf, start, end, False)
                    label_numeric[n_rows] = ok and p == end
                    label_values[n_rows] = value
                    integral = True
                    for q in range(start, end):
                        if not (_is_digit(buf[q]) or buf[q] == _PLUS or buf[q] == _MINUS):
                            integral = False
                    label_integral[n_rows] = integral
                else:
                    value, p, ok = parse_float(buf, start, end, allow_nan)
                    if not ok or p != end:
                        return (BAD_FIELD, line_start, n_rows, n_label_bytes, lines, start,
                                end, field)
                    X[n_rows, column] = value
                    column += 1
            field += 1
            if pos < stop and buf[pos] == delimiter:
                pos += 1
                continue
            break
        if field != n_fields:
            return FIELD_COUNT, line_start, n_rows, n_label_bytes, lines, line_start, pos, field
        row_line[n_rows] = line_base + lines + 1
        n_rows += 1
        if pos < stop:  # at the newline
            pos += 1
            lines += 1
    return DONE, pos, n_rows, n_label_bytes, lines, 0, 0, 0


@njit(cache=True)
def gather_spans(buf, starts, ends, out):
    """Copy ``buf[starts[i]:ends[i]]`` into row ``i`` of the zero-filled 2-D ``out``."""
    for i in range(starts.shape[0]):
        for j in range(ends[i] - starts[i]):
            out[i, j] = buf[starts[i] + j]
