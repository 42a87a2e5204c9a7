"""Reading a model file's archive before anything is built: the zip directory's sizes
checked before a byte is read, the header's JSON, each array against its
declaration and digest."""

from __future__ import annotations

import json
import math
import os
import zipfile

import numpy as np

from .._version import __version__
from .format import (
    _ARRAY_KINDS,
    _DIGEST_VERSION,
    _HEADER,
    _HEADER_KEYS,
    FORMAT,
    FORMAT_VERSION,
    ModelFileError,
    _Problem,
)
from .writing import array_digest


def _npy_header(f) -> tuple[int, np.dtype, tuple, bool]:
    """Read an ``.npy`` preamble from ``f``: (its length in bytes, dtype, shape, Fortran order)."""
    try:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise _Problem(f"unsupported .npy version {version}")
    except ValueError as exc:
        raise _Problem(f"damaged .npy header ({exc})") from None
    return f.tell(), dtype, shape, fortran


class _ArchiveReader:
    """The archive half of a load: its directory, the header and the arrays."""

    def __init__(self, path: str):
        self.path = path

    # -------------------------------------------------------------- archive and arrays
    def load(self):
        if not zipfile.is_zipfile(self.path):
            raise _Problem(
                "it is not a zip archive of arrays (truncated or corrupt, or another kind of file)"
            )
        with zipfile.ZipFile(self.path) as archive:
            self.archive = archive
            self.members = self._members()
            if _HEADER not in self.members:
                raise ModelFileError(f"{self.path!r} is not a streamsvm model file (no header)")
            header = self._read_header()
            self.version = header["format_version"]
            self.declared = self._declared(header)
            self.digests: dict[str, str] = {}
            self.arrays = {k: self._read_array(k) for k in self.declared}
        self.used: set[str] = set()
        return self._build(header)

    def _members(self) -> dict[str, zipfile.ZipInfo]:
        members: dict[str, zipfile.ZipInfo] = {}
        file_size = os.path.getsize(self.path)
        for info in self.archive.infolist():
            name = info.filename
            if not name.endswith(".npy") or name[:-4] in members:
                raise _Problem(f"unexpected or repeated archive member {name!r}")
            if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
                raise _Problem(
                    f"archive member {name!r} is compressed or its sizes disagree "
                    f"({info.compress_size} bytes stored, {info.file_size} declared); "
                    "streamsvm writes arrays uncompressed"
                )
            if info.header_offset + info.compress_size > file_size:
                raise _Problem(f"archive member {name!r} runs past the end of the file")
            members[name[:-4]] = info
        return members

    def _open_array(self, key: str, expected: dict | None):
        """Open member ``key``, check its .npy header against ``expected`` and its size in the
        zip directory, and return (open member, dtype, shape, Fortran order, data bytes)."""
        info = self.members[key]
        f = self.archive.open(info)
        preamble, dtype, shape, fortran = _npy_header(f)
        if dtype.hasobject or dtype.kind not in _ARRAY_KINDS or dtype.names is not None:
            raise _Problem(f"array {key!r} has the unsupported dtype {dtype.str!r}")
        if expected is not None:
            if dtype.str != expected["dtype"] or list(shape) != expected["shape"]:
                raise _Problem(
                    f"array {key!r} holds {dtype.str} of shape {list(shape)}; the header "
                    f"declares {expected['dtype']} of shape {expected['shape']}"
                )
        nbytes = math.prod(shape) * dtype.itemsize
        if preamble + nbytes != info.file_size:
            raise _Problem(
                f"array {key!r} ({dtype.str}, shape {list(shape)}) should take "
                f"{preamble + nbytes} bytes; the archive holds "
                f"{info.file_size}"
            )
        return f, dtype, shape, fortran, nbytes

    def _read_bytes(self, f, nbytes: int, key: str) -> bytearray:
        data = bytearray()
        while len(data) < nbytes:
            chunk = f.read(min(nbytes - len(data), 1 << 24))
            if not chunk:
                raise _Problem(f"array {key!r} is truncated")
            data += chunk
        if f.read(1):  # also makes zipfile verify the member's CRC
            raise _Problem(f"array {key!r} is longer than declared")
        return data

    def _read_array(self, key: str) -> np.ndarray:
        f, dtype, shape, fortran, nbytes = self._open_array(key, self.declared[key])
        with f:
            data = self._read_bytes(f, nbytes, key)
        a = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
        declared = self.declared[key]
        if declared is not None and "sha256" in declared:  # compared where it is used
            self.digests[key] = array_digest(a)
        if not dtype.isnative:
            a = a.astype(dtype.newbyteorder("="))
        return a

    def _read_header(self) -> dict:
        f, dtype, shape, _, nbytes = self._open_array(_HEADER, None)
        if dtype != np.uint8 or len(shape) != 1:
            raise _Problem("the header is not a byte string")
        with f:
            raw = self._read_bytes(f, nbytes, _HEADER)

        def no_constants(name):
            raise _Problem(f"the header holds the non-JSON number {name}")

        def finite_float(text):
            value = float(text)
            if not math.isfinite(value):
                raise _Problem(f"the header holds the out-of-range number {text}")
            return value

        try:
            header = json.loads(
                raw.decode("utf-8"), parse_constant=no_constants, parse_float=finite_float
            )
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise _Problem(f"the header is not valid JSON ({type(exc).__name__})") from None
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise ModelFileError(f"{self.path!r} is not a streamsvm model file")
        version = header.get("format_version")
        if type(version) is not int or version < 1:
            raise _Problem(f"the header's format_version is {version!r}")
        if version > FORMAT_VERSION:
            raise ModelFileError(
                f"{self.path!r} was written in model format version {version} by streamsvm "
                f"{header.get('library_version')}; this streamsvm ({__version__}) reads up to "
                f"version {FORMAT_VERSION}: upgrade streamsvm to load it"
            )
        if set(header) != _HEADER_KEYS[version]:
            missing = sorted(_HEADER_KEYS[version] - set(header))
            extra = sorted(set(header) - _HEADER_KEYS[version])
            raise _Problem(f"the header's keys are wrong (missing {missing}, unexpected {extra})")
        for key, kind in (("library_version", str), ("estimator", str), ("params", dict),
                          ("state", dict), ("arrays", dict)):
            if key in header and not isinstance(header[key], kind):
                raise _Problem(f"the header's {key!r} is a {type(header[key]).__name__}, "
                               f"not a {kind.__name__}")
        return header

    def _declared(self, header: dict) -> dict[str, dict | None]:
        """Each array's declared dtype and shape (None for version 1 files, which lack them)."""
        keys = set(self.members) - {_HEADER}
        if self.version == 1:
            return dict.fromkeys(sorted(keys))
        arrays = header["arrays"]
        if set(arrays) != keys:
            raise _Problem(
                f"the header declares the arrays {sorted(arrays)[:5]}, the archive holds "
                f"{sorted(keys)[:5]}"
            )
        fields = {"dtype", "shape"} | ({"sha256"} if self.version >= _DIGEST_VERSION else set())
        for key, spec in arrays.items():
            ok = (
                isinstance(spec, dict)
                and set(spec) == fields
                and isinstance(spec.get("sha256", ""), str)
                and isinstance(spec["dtype"], str)
                and isinstance(spec["shape"], list)
                and all(type(n) is int and n >= 0 for n in spec["shape"])
            )
            if not ok:
                raise _Problem(f"the header's declaration of array {key!r} is malformed")
        return arrays

    # -------------------------------------------------------------- decoding the state

    def _array(self, ref: dict, where: str, allow_inf: bool = False,
               allow_nan: bool = False) -> np.ndarray:
        key = ref["__array__"]
        if not isinstance(key, str) or key not in self.arrays or key == _HEADER:
            raise _Problem(f"{where} refers to the missing array {key!r}")
        if key in self.used:
            raise _Problem(f"{where} reuses the array {key!r}")
        self.used.add(key)
        a = self.arrays[key]
        if key in self.digests and self.digests[key] != self.declared[key]["sha256"]:
            raise _Problem(f"{where}: array {key!r} does not match its digest in the header "
                           "(the file was damaged or edited)")
        if a.dtype.kind == "f":
            if not allow_nan and np.isnan(a).any():
                raise _Problem(f"{where}: array {key!r} holds NaN")
            if not allow_inf and np.isinf(a).any():
                raise _Problem(f"{where}: array {key!r} holds infinite values")
        if ref.get("object") is True:
            if a.dtype.kind != "U":
                raise _Problem(f"{where}: array {key!r} should hold strings")
            return a.astype(object)
        return a

