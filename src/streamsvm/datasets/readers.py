"""Chunked readers: svmlight/LIBSVM and CSV text files, arrays and ``.npz`` files.

Every reader returns an iterator of ``(X, y)`` chunks of at most ``chunk_size`` rows and
holds nothing but the current chunk and one block of the file, so memory does not grow
with the file. Text is read in blocks of bytes, cut at the last line end
(:mod:`.files`, which also decompresses), and each block is parsed by one call of a jitted
function (:mod:`._core`); the text formats live in :mod:`.svmlight` and :mod:`.delimited`.
"""

from __future__ import annotations

import os
import struct
import zipfile
import zlib
from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp

from ._common import (  # noqa: F401 - _check_*, _rechunk: imported from here by loaders
    DEFAULT_BLOCK_SIZE,
    DEFAULT_MAX_FEATURES,
    _check_float_dtype,
    _check_positive_int,
    _rechunk,
    concat_chunks,
)
from .delimited import _iter_csv_bytes, iter_csv, load_csv  # noqa: F401
from .files import DataFileError, data_file_name, open_data_file
from .svmlight import IndexBaseWarning, iter_svmlight, load_svmlight

__all__ = [
    "iter_svmlight",
    "load_svmlight",
    "iter_csv",
    "load_csv",
    "iter_arrays",
    "iter_npz",
    "concat_chunks",
    "DataFileError",
    "IndexBaseWarning",
    "DEFAULT_BLOCK_SIZE",
    "DEFAULT_MAX_FEATURES",
]

_open_binary = open_data_file  # the name loaders.py imports


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


#: what reading a damaged ``.npz`` raises: zipfile's, the decompressor's, the .npy header's
_NPZ_DAMAGE = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError,
               struct.error, ValueError)


def _npz_array(path, key):
    """Array ``key`` of an ``.npz``: memory-mapped when stored uncompressed, else loaded.
    A file that is not a zip archive (another format, or an ``.npz`` cut short: its
    directory is at the end) or a damaged member raises :class:`DataFileError`."""
    name = os.fspath(path)
    try:
        return _read_npz_array(name, key)
    except DataFileError:
        raise
    except _NPZ_DAMAGE as exc:
        if isinstance(exc, FileNotFoundError | IsADirectoryError | PermissionError):
            raise
        if isinstance(exc, zipfile.BadZipFile) and "not a zip file" in str(exc).lower():
            raise DataFileError(name, 1, "not an .npz file: it is not a zip archive (a file "
                                         "cut short, or one of another format)") from exc
        if type(exc) is ValueError and "has no array" in str(exc):
            raise
        detail = str(exc) or type(exc).__name__
        raise DataFileError(name, 1, f"array {key!r} of the .npz file is damaged or cut "
                                     f"short: {detail}") from exc


def _read_npz_array(name, key):
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
    current chunk are read (and copied to an aligned chunk); compressed ones
    (``np.savez_compressed``) are loaded whole first. ``y_key=None`` gives ``y = None``.

    >>> import pathlib, tempfile, numpy as np
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.npz"
    >>> np.savez(path, X=np.arange(6.0).reshape(3, 2), y=np.array([1, -1, 1]))
    >>> [(X.tolist(), y.tolist()) for X, y in iter_npz(path, chunk_size=2)]
    [([[0.0, 1.0], [2.0, 3.0]], [1, -1]), ([[4.0, 5.0]], [1])]
    """
    chunk_size = _check_positive_int(chunk_size, "chunk_size")
    name = data_file_name(path)
    X = _npz_array(name, X_key)
    y = None if y_key is None else _npz_array(name, y_key)
    if X.ndim != 2:
        raise ValueError(f"{name}: array {X_key!r} must be 2-D; got shape {X.shape}")
    if y is not None and y.shape[0] != X.shape[0]:
        raise ValueError(f"{name}: {X_key!r} has {X.shape[0]} rows but {y_key!r} has "
                         f"{y.shape[0]} labels")
    return _npz_chunks(X, y, chunk_size)


def _npz_chunks(X, y, chunk_size):
    """Chunks as plain aligned arrays. ``np.savez`` stores a member's data at an odd byte
    offset of the file, so a memory-mapped member is unaligned: NumPy then copies it before
    every BLAS call and numba compiles (slower) loops for unaligned arrays. One copy per
    chunk (memory the allocator reuses from chunk to chunk) costs less."""
    for Xc, yc in _array_chunks(X, y, chunk_size):
        yield _aligned(Xc), (None if yc is None else _aligned(yc))


def _aligned(a):
    return np.array(a) if not a.flags.aligned else np.asarray(a)
