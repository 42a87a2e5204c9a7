"""Hostile data files for testing the readers: random bytes and damaged valid files.

:func:`make_reader_case` draws one case (a file's bytes, its suffix, svmlight or CSV) from a
random generator: random bytes, a valid file with a few mutations (a flipped byte, a
hostile token such as ``nan`` or ``99999999999:1``, a cut, a NUL), compressed files that
are truncated, corrupt or not compressed at all. :func:`reference_read` reads the
documented formats slowly in plain Python (the oracle) and :func:`run_case` sorts what the
real reader does into :data:`OUTCOMES`. The fuzz tests and the reliability benchmark use
them; only numpy and the standard library are needed to make cases.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import math
import os
import re
import zlib
from dataclasses import dataclass

import numpy as np

__all__ = ["OUTCOMES", "ReaderCase", "make_reader_case", "reference_read", "run_case"]

#: what reading a case can give: the oracle's result, a refusal naming the file (when the
#: oracle refuses too), another exception, a refusal of a valid file, or a wrong result
OUTCOMES = ("correct", "refused", "wrong_exception", "wrongly_refused", "silently_wrong")

MAX_FEATURES = 1 << 24  # the readers' default
_COMPRESS = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}
_DECOMPRESS = {".gz": (gzip.decompress, b"\x1f\x8b"), ".bz2": (bz2.decompress, b"BZh"),
               ".xz": (lzma.decompress, b"\xfd7zXZ\x00")}
_NUMBER = re.compile(rb"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_NONFINITE = re.compile(rb"[+-]?(nan|inf|infinity)", re.IGNORECASE)
_BLANKS = re.compile(rb"[ \t\r]+")
_TOKENS = [b"nan", b"NaN", b"inf", b"-Infinity", b"1e999", b"99999999999:1",
           b"99999999999999999999:1", b"16777217:1", b"0:1", b"\x00", b"\xff", b"\xc3",
           b"#", b":", b",", b"\n", b"\r\n", b" ", b"\t", b"qid:3", b"1.5e", b".", b"-",
           b"+", b"[/]", b'"', b"e5", b"1,2", b",,", b"abc", b"0.1e-320"]


@dataclass(frozen=True)
class ReaderCase:
    """One file for a reader: ``data`` as stored (compressed when ``suffix`` says so)."""

    kind: str  # how it was made, e.g. "mutated", "random bytes", "truncated .gz"
    fmt: str  # "svmlight" or "csv"
    suffix: str  # "", ".gz", ".bz2" or ".xz"
    data: bytes
    allow_nan: bool = False  # the reader option the case is read with


# --------------------------------------------------------------------------- making cases
def _number(rng):
    value = rng.standard_normal() * 10.0 ** rng.integers(-6, 7)
    style = rng.integers(5)
    if style == 0:
        return repr(float(value))
    if style == 1:
        return f"{value:.3g}"
    if style == 2:
        return str(int(value))
    if style == 3:
        return f"{value:.2e}".upper()
    return f"{value:.4f}".replace("0.", ".", 1) if abs(value) < 1 else f"{value:+.1f}"


def valid_svmlight(rng):
    """A small valid svmlight text: comments, blank lines, ``qid``, CRLF, both bases."""
    base = int(rng.integers(2))
    lines = []
    if rng.random() < 0.3:
        lines.append("# a comment")
    for _ in range(int(rng.integers(1, 25))):
        label = str(rng.choice(["+1", "-1", "1", "2.5", "0", "3"]))
        n = int(rng.integers(0, 6))
        indices = np.sort(rng.choice(np.arange(base, 20 + base), size=n, replace=False))
        parts = [label] + (["qid:7"] if rng.random() < 0.1 else [])
        parts += [f"{j}:{_number(rng)}" for j in indices]
        line = " ".join(parts)
        if rng.random() < 0.1:
            line += "  # note"
        lines.append(line)
        if rng.random() < 0.1:
            lines.append("")
    end = "\r\n" if rng.random() < 0.2 else "\n"
    return (end.join(lines) + (end if rng.random() < 0.8 else "")).encode()


def valid_csv(rng):
    """A small valid CSV text: a header or not, integer, float or text labels, blanks."""
    n_columns = int(rng.integers(1, 6))
    label_kind = int(rng.integers(3))
    lines = []
    if rng.random() < 0.5:
        lines.append(",".join([f"f{j}" for j in range(n_columns)] + ["label"]))
    for _ in range(int(rng.integers(1, 25))):
        label = (str(rng.integers(-1, 3)) if label_kind == 0 else _number(rng)
                 if label_kind == 1 else str(rng.choice(["cat", "dog", "Rad.Flow"])))
        cells = [_number(rng) for _ in range(n_columns)] + [label]
        sep = ", " if rng.random() < 0.2 else ","
        lines.append(sep.join(cells))
    return ("\n".join(lines) + ("\n" if rng.random() < 0.8 else "")).encode()


def mutate(data, rng, n_mutations=None):
    """``data`` with 1 to 3 random edits: flipped bytes, hostile tokens, cuts, deletions."""
    data = bytearray(data)
    for _ in range(int(rng.integers(1, 4)) if n_mutations is None else n_mutations):
        at = int(rng.integers(len(data) + 1))
        edit = int(rng.integers(5))
        if edit == 0 and data:  # flip one byte
            at = min(at, len(data) - 1)
            data[at] = int(rng.integers(256))
        elif edit == 1:  # insert a hostile token
            data[at:at] = _TOKENS[int(rng.integers(len(_TOKENS)))]
        elif edit == 2:  # replace the token at `at` (up to a blank, comma or colon)
            end = at
            while end < len(data) and data[end] not in b" ,:\n":
                end += 1
            data[at:end] = _TOKENS[int(rng.integers(len(_TOKENS)))]
        elif edit == 3:  # delete a span
            data[at:at + int(rng.integers(1, 8))] = b""
        else:  # cut the file
            del data[at:]
    return bytes(data)


def make_reader_case(rng) -> ReaderCase:
    """One hostile case for :func:`streamsvm.datasets.load_svmlight` or ``load_csv``
    (a quarter of them read with ``allow_nan=True``)."""
    case = _make_case(rng)
    if rng.random() < 0.25:
        case = ReaderCase(case.kind, case.fmt, case.suffix, case.data, allow_nan=True)
    return case


def _make_case(rng):
    fmt = "svmlight" if rng.random() < 0.5 else "csv"
    text = valid_svmlight(rng) if fmt == "svmlight" else valid_csv(rng)
    draw = rng.random()
    if draw < 0.15:
        alphabet = np.frombuffer(b"0123456789+-.eE:, \t\n#qidnaf", dtype=np.uint8)
        size = int(rng.integers(0, 120))
        if rng.random() < 0.5:
            data = rng.integers(0, 256, size=size, dtype=np.uint8).tobytes()
        else:
            data = rng.choice(alphabet, size=size).tobytes()
        return ReaderCase("random bytes", fmt, "", data)
    if draw < 0.25:
        return ReaderCase("valid", fmt, "", text)
    if draw < 0.7:
        return ReaderCase("mutated", fmt, "", mutate(text, rng))
    suffix = str(rng.choice(list(_COMPRESS)))
    if rng.random() < 0.3:
        text = mutate(text, rng)
    packed = _COMPRESS[suffix](text)
    how = int(rng.integers(4))
    if how == 0:
        return ReaderCase(f"compressed {suffix}", fmt, suffix, packed)
    if how == 1:
        return ReaderCase(f"truncated {suffix}", fmt, suffix,
                          packed[: int(rng.integers(len(packed)))])
    if how == 2:
        return ReaderCase(f"corrupt {suffix}", fmt, suffix, mutate(packed, rng, 1))
    return ReaderCase(f"not really {suffix}", fmt, suffix, text)


# --------------------------------------------------------------------------- the oracle
class Refused(Exception):
    """The reference reader refuses the file (the reason is the message)."""


def _finite(token, allow_nan=False):
    """The value of a number token; ``None`` if it is none (or not finite, unless allowed)."""
    if allow_nan and _NONFINITE.fullmatch(token):
        return float(token)
    if not _NUMBER.fullmatch(token):
        return None
    value = float(token)
    return value if allow_nan or math.isfinite(value) else None


def _decompress(case):
    if not case.suffix:
        return case.data
    decompress, signature = _DECOMPRESS[case.suffix]
    if not case.data.startswith(signature):
        raise Refused("not compressed as the name says")
    try:
        return decompress(case.data)
    except (OSError, EOFError, lzma.LZMAError, zlib.error, ValueError) as exc:
        raise Refused(f"damaged compressed data: {exc}") from None


def _reference_svmlight(text, allow_nan):
    rows = []
    for line in text.split(b"\n"):
        tokens = [t for t in _BLANKS.split(line.split(b"#", 1)[0]) if t]
        if not tokens:
            continue
        label = _finite(tokens[0])
        if label is None:
            raise Refused("label")
        features, previous = [], -1
        for token in tokens[1:]:
            if token.startswith(b"qid:"):
                continue
            match = re.fullmatch(rb"(\d+):(.*)", token, re.S)
            if not match:
                raise Refused("feature")
            index, value = int(match.group(1)), _finite(match.group(2), allow_nan)
            if value is None or index <= previous or index > MAX_FEATURES:
                raise Refused("feature value or index")
            previous = index
            features.append((index, value))
        rows.append((label, features))
    if not rows:
        raise Refused("no examples")
    indices = [j for _, features in rows for j, _ in features]
    zero_based = bool(indices) and min(indices) == 0
    width = max(max(indices, default=-1) + zero_based, 0)
    if width > MAX_FEATURES:
        raise Refused("wider than max_features")
    offset = 0 if zero_based else 1
    indptr = np.cumsum([0] + [len(features) for _, features in rows])
    columns = np.array([j - offset for _, features in rows for j, _ in features], dtype=np.int64)
    values = np.array([v for _, features in rows for _, v in features], dtype=np.float64)
    labels = np.array([label for label, _ in rows])
    return ("csr", indptr, columns, values, (len(rows), width)), labels


def _is_blank(line):
    return not line.strip(b" \t\r")


def _reference_csv(text, allow_nan):
    lines = [line for line in text.split(b"\n")]
    data_lines = [i for i, line in enumerate(lines) if not _is_blank(line)]
    if not data_lines:
        raise Refused("no examples")
    first = [f.strip(b" \t\r") for f in lines[data_lines[0]].split(b",")]
    n_fields = len(first)
    if n_fields < 2:
        raise Refused("no feature columns")
    if any(f and not _NUMBER.fullmatch(f) and not _NONFINITE.fullmatch(f) for f in first[:-1]):
        data_lines = data_lines[1:]  # a header
    X, labels = [], []
    for i in data_lines:
        fields = [f.strip(b" \t\r") for f in lines[i].split(b",")]
        if len(fields) != n_fields:
            raise Refused("field count")
        row = [_finite(f, allow_nan) for f in fields[:-1]]
        if any(v is None for v in row) or not fields[-1]:
            raise Refused("feature or empty label")
        X.append(row)
        labels.append(fields[-1])
    if not X:
        raise Refused("no examples")
    numbers = [_finite(label) for label in labels]
    if numbers[0] is not None:
        if any(v is None for v in numbers):
            raise Refused("text label after numbers")
        integral = all(re.fullmatch(rb"[0-9+-]+", label) for label in labels)
        if integral and all(abs(v) <= 2.0**53 for v in numbers):
            y = np.array(numbers).astype(np.int64)
        else:
            y = np.array(numbers, dtype=np.float64)
    else:
        if any(v is not None for v in numbers) or any(b"\x00" in label for label in labels):
            raise Refused("number label after text, or a NUL")
        try:
            y = np.array([label.decode("utf-8") for label in labels])
        except UnicodeDecodeError:
            raise Refused("label not UTF-8") from None
    return np.array(X, dtype=np.float64).reshape(len(X), n_fields - 1), y


def reference_read(case):
    """``(X, y)`` as the documented format reads ``case`` with default options but
    ``allow_nan`` (``X`` of svmlight as a ``("csr", indptr, indices, data, shape)`` tuple),
    or :class:`Refused`."""
    text = _decompress(case)
    reference = _reference_svmlight if case.fmt == "svmlight" else _reference_csv
    return reference(text, case.allow_nan)


# --------------------------------------------------------------------------- running
def _same(got, expected):
    (X, y), (eX, ey) = got, expected
    if isinstance(eX, tuple):
        _, indptr, indices, data, shape = eX
        X_ok = (X.shape == shape and np.array_equal(X.indptr, indptr)
                and np.array_equal(X.indices, indices)
                and np.array_equal(X.data, data, equal_nan=True))
    else:
        X_ok = (isinstance(X, np.ndarray) and X.shape == eX.shape
                and np.array_equal(X, eX, equal_nan=True))
    return bool(X_ok and y.dtype.kind == ey.dtype.kind and y.shape == ey.shape
                and np.array_equal(y, ey))


def run_case(case, folder, readers=None):
    """Read ``case`` from a file in ``folder``; return ``(outcome, detail)``.

    ``readers`` maps ``"svmlight"``/``"csv"`` to whole-file readers called with the path
    (and ``allow_nan=True`` for such cases; default: :func:`~streamsvm.datasets.load_svmlight` and
    :func:`~streamsvm.datasets.load_csv`).
    A refusal counts as such when it is a ``ValueError`` naming the file; ``detail`` is
    the exception's text or the oracle's verdict.
    """
    if readers is None:
        from .readers import load_csv, load_svmlight

        readers = {"svmlight": load_svmlight, "csv": load_csv}
    path = os.path.join(os.fspath(folder), f"case.{'svm' if case.fmt == 'svmlight' else 'csv'}"
                        f"{case.suffix}")
    with open(path, "wb") as f:
        f.write(case.data)
    try:
        expected = reference_read(case)
    except Refused as exc:
        expected, reason = None, str(exc)
    try:
        options = {"allow_nan": True} if case.allow_nan else {}
        got = readers[case.fmt](path, **options)
    except ValueError as exc:
        if path not in str(exc):
            return "wrong_exception", f"{type(exc).__name__}: {exc}"
        if expected is not None:
            return "wrongly_refused", str(exc)
        return "refused", str(exc)
    except Exception as exc:  # noqa: BLE001 - sorting every other exception is the point
        return "wrong_exception", f"{type(exc).__name__}: {exc}"
    if expected is None:
        return "silently_wrong", f"read, but the format refuses it ({reason})"
    if not _same(got, expected):
        return "silently_wrong", "read differently from the format"
    return "correct", ""
