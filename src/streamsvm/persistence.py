"""Save and load models without pickle; every file is validated whole before a model is built.

A model file is a zip of uncompressed ``.npy`` arrays holding the model's arrays and one JSON
header (the array ``__streamsvm_header__``):

.. code-block:: json

    {"format": "streamsvm-model", "format_version": 2, "library_version": "0.1.0",
     "estimator": "streamsvm.linear.perceptron.Perceptron",
     "params": {...}, "state": {...},
     "arrays": {"a0": {"dtype": "<f8", "shape": [3], "sha256": "9f86d0..."}, ...}}

``state`` mirrors the model's attributes: numbers, strings and lists are stored as JSON,
arrays as references ``{"__array__": "a3"}`` into the archive, sparse matrices as their
three arrays, random generators as their bit-generator state, and the library's own state
objects (binary learners, kernels, caches) as ``{"__object__": "streamsvm....", "state": {...}}``.
``arrays`` declares each array's dtype and shape (format version 2; version 1 files, written
by streamsvm 0.1.0, lack it and are still read) and, from format version 7, its SHA-256
digest (:func:`array_digest`), so that an array rewritten without its header is refused
naming the entry (files of earlier versions have none and still load). Dicts whose keys are
not all strings (``class_weight={0: 1, 1: 3}``) are saved as ``{"__items__": [[key, value],
...]}``, their keys typed (NumPy scalars as ``{"__scalar__": [dtype, value]}``).

Loading only ever instantiates classes defined in the ``streamsvm`` package, found by name
in its modules, without calling their constructors: a file cannot make the loader run any
other code. :func:`load` checks everything before building anything: the header's JSON types
and keys; each zip member's size in the zip directory against the array it should hold
(before any byte is read, so a small file cannot inflate to gigabytes, and no fixed cap
refuses a large honest model); every array's dtype and shape against the header; finiteness
of float arrays (±inf only in attributes a class lists in ``_may_hold_infinity``); each saved
object's own invariants (its ``_check_restored`` method: index arrays its compiled loops
trust, lengths that agree, values its state can hold); the model's consistency (classes,
learners matching those it builds today, each learner's configuration equal to the one its
parameters give, feature counts, parameters, kept calibration rows its learners can score);
and finally that the built model answers a query. So even a consistently edited file (its
digests rewritten to match) loads into a model that works or is refused. A file is a usable
model or a :class:`ModelFileError` naming the file and the first problem (design page,
"Model files").

Compatibility: :data:`MOVED_CLASSES` maps the dotted path of a class that has moved to its new
path, and :data:`STATE_MIGRATIONS` upgrades the saved state of a class written by an older
format version (see ``docs/design.md``, "Model files"). Mid-stream state is saved too, so
``partial_fit`` resumes exactly.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import importlib
import io
import json
import math
import os
import re
import warnings
import zipfile
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from ._params import check_params
from ._version import __version__
from .vocabulary import FeatureVocabulary

__all__ = [
    "save",
    "load",
    "FORMAT_VERSION",
    "ModelFileError",
    "MOVED_CLASSES",
    "STATE_MIGRATIONS",
    "ADDED_PARAMETERS",
]

FORMAT = "streamsvm-model"
#: 1: streamsvm 0.1.0; 2: the header declares every array's dtype and shape; 3: learners
#: saved without caches and spare capacity, IncrementalSVM's Gram matrix rebuilt on load;
#: 4: Pegasos has a bias (``fit_intercept``); 5: the Twin Vector Machine merges same-label
#: twins first, the BudgetPerceptron removes by errors, LASVM-NC/-I seed S (new parameters
#: whose old behaviour files of version < 5 keep); 6: the Forgetron's ``gamma_factor``;
#: 7: each array's declaration holds its SHA-256 digest, dicts with keys other than strings
#: (``class_weight={0: 1, 1: 3}``) are saved as ``{"__items__": [[key, value], ...]}``, and a
#: calibrator's kept rows may be float64 (rows beyond float32's range).
FORMAT_VERSION = 7
_HEADER = "__streamsvm_header__"

#: Classes that have moved: old dotted path (as written in files) -> today's dotted path.
#: When a saved class moves, add one line here, e.g.
#: ``"streamsvm.lasvm._core.Expansion": "streamsvm.lasvm.expansion.Expansion"``.
MOVED_CLASSES: dict[str, str] = {}

#: Upgrades of saved state: ``(version, class path) -> upgrade(state, params)``, applied to
#: every object of that class (today's path) in files of format version below ``version``,
#: before the object is built. ``state`` is the object's decoded attribute dict (arrays,
#: numbers, already-built nested objects), changed in place; ``params`` the estimator's
#: decoded constructor parameters (read only). Bump :data:`FORMAT_VERSION` with each entry.
def _machine_saved_its_gram(state: dict, params: dict) -> None:
    """Before format 3, every incremental-SVM machine saved its Gram matrix."""
    state.setdefault("rebuild_gram_on_load", False)


def _lasvm_rows_without_positions(state: dict, params: dict) -> None:
    """Before format 3, LASVM's store did not record each row's stream position: unknown
    (-1) for the rows of the file, so ``support_`` says it cannot answer."""
    rows = np.asarray(state.get("ys", ())).shape[0]
    state.setdefault("stream_pos", np.full(rows, -1, dtype=np.int64))
    state.setdefault("stream_offset", 0)


def _pegasos_without_bias(state: dict, params: dict) -> None:
    """Before format 4, Pegasos had no bias: its weights ``v`` are the features' only."""
    state.setdefault("fit_intercept", False)


STATE_MIGRATIONS: dict[tuple[int, str], Callable[[dict, dict], None]] = {
    (3, "streamsvm.budget._machine.Machine"): _machine_saved_its_gram,
    (3, "streamsvm.lasvm.learner._Learner"): _lasvm_rows_without_positions,
    (3, "streamsvm.active.learner._ActiveLearner"): _lasvm_rows_without_positions,
    (4, "streamsvm.linear.pegasos._PegasosLearner"): _pegasos_without_bias,
}

#: Constructor parameters added in a format version, with the value that gives the behaviour
#: of the files written before it (a new parameter's default may differ):
#: ``(version, estimator class path) -> {name: value}``, used where a file of an older format
#: does not name the parameter.
ADDED_PARAMETERS: dict[tuple[int, str], dict] = {
    (4, "streamsvm.linear.pegasos.Pegasos"): {"fit_intercept": False},
    (5, "streamsvm.budget.tvm.TwinVectorMachine"): {"same_label_merging": False},
    (5, "streamsvm.budget.baselines.BudgetPerceptron"): {"removal": "margin"},
    (5, "streamsvm.lasvm.variants.LASVMNC"): {"n_seed": 0},
    (5, "streamsvm.lasvm.variants.LASVMI"): {"n_seed": 0},
    (6, "streamsvm.budget.baselines.Forgetron"): {"gamma_factor": 1.0},
}

_HEADER_KEYS_V1 = {"format", "format_version", "library_version", "estimator", "params", "state"}
_HEADER_KEYS = {1: _HEADER_KEYS_V1, 2: _HEADER_KEYS_V1 | {"arrays"}}
for _version in range(3, FORMAT_VERSION + 1):
    _HEADER_KEYS[_version] = _HEADER_KEYS[2]
#: the first format version whose array declarations hold a digest
_DIGEST_VERSION = 7
#: numpy scalar kinds a dict key may be (bool, ints, unsigned ints, floats, strings)
_KEY_KINDS = "biufU"
_ARRAY_KINDS = "biufU"  # bool, ints, unsigned ints, floats, unicode strings
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
_CLASS_PATH = re.compile(r"streamsvm(\.[A-Za-z_][A-Za-z0-9_]*)+")
_NONFINITE_FLOATS = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


class ModelFileError(ValueError):
    """A model file that is truncated, foreign, newer than this library, or inconsistent."""


class _Problem(Exception):
    """The first problem found in a file (turned into ModelFileError naming the file)."""


# ---------------------------------------------------------------------------------- save
class _Encoder:
    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, a: np.ndarray) -> dict:
        key = f"a{len(self.arrays)}"
        if a.dtype == object:
            values = a.tolist()
            if not all(isinstance(v, str) for v in np.ravel(values)):
                kinds = sorted({type(v).__name__ for v in np.ravel(values)})
                raise TypeError(f"cannot save an object array holding {kinds}")
            self.arrays[key] = np.asarray(values, dtype=str)
            return {"__array__": key, "object": True}
        self.arrays[key] = a
        return {"__array__": key}

    @staticmethod
    def key(key, where: str):
        """A dict key as JSON that :meth:`_Loader.key` reads back with its type: None, bool,
        int, float (non-finite ones as ``{"__float__": ...}``) and str as themselves, a NumPy
        scalar (a label taken from an array) as ``{"__scalar__": [dtype, value]}``."""
        if key is None or type(key) in (bool, int, str):
            return key
        if type(key) is float:
            return key if math.isfinite(key) else {"__float__": repr(key)}
        if isinstance(key, np.generic) and key.dtype.kind in _KEY_KINDS:
            value = key.item()
            if isinstance(value, float) and not math.isfinite(value):
                value = {"__float__": repr(value)}
            return {"__scalar__": [key.dtype.str, value]}
        raise TypeError(f"cannot save {where}: a dict key of type {type(key).__name__} "
                        f"({key!r}); keys may be None, bool, int, float, str or NumPy scalars "
                        "of those")

    def encode(self, value, where: str):
        if value is None or isinstance(value, bool | str):
            return value
        if isinstance(value, int | float):
            if isinstance(value, float) and not np.isfinite(value):
                return {"__float__": repr(value)}
            return value
        if isinstance(value, np.generic):
            return self.encode(value.item(), where)
        if isinstance(value, np.ndarray):
            return self.array(value)
        if sp.issparse(value):
            csr = sp.csr_matrix(value)
            return {
                "__csr__": [self.array(csr.data), self.array(csr.indices), self.array(csr.indptr)],
                "shape": list(csr.shape),
            }
        if isinstance(value, np.random.Generator):
            return {"__generator__": value.bit_generator.state}
        if isinstance(value, list | tuple):
            items = [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
            return items if isinstance(value, list) else {"__tuple__": items}
        if isinstance(value, dict):
            if all(type(k) is str for k in value):
                return {"__dict__": {k: self.encode(v, f"{where}[{k!r}]")
                                     for k, v in value.items()}}
            return {"__items__": [[self.key(k, where), self.encode(v, f"{where}[{k!r}]")]
                                  for k, v in value.items()]}
        cls = type(value)
        if cls.__module__.startswith("streamsvm.") and hasattr(value, "__dict__"):
            skip = set(getattr(value, "_transient", ()))
            persist = getattr(value, "_persist_state", None)  # an object's own saved form
            state = persist() if persist is not None else vars(value)
            return {
                "__object__": f"{cls.__module__}.{cls.__qualname__}",
                "state": {
                    k: self.encode(v, f"{where}.{k}")
                    for k, v in state.items()
                    if k not in skip
                },
            }
        if callable(value):
            raise TypeError(
                f"cannot save {where}: it is a Python callable ({value!r}); models with "
                "callable kernels cannot be saved without pickle"
            )
        raise TypeError(f"cannot save {where}: values of type {cls.__name__} are not supported")


def _is_model_class(cls) -> bool:
    """A streamsvm estimator: a StreamClassifier, or a class that declares
    ``_streamsvm_model = True`` (e.g. the distributed tracker's estimator)."""
    from .base import StreamClassifier

    return issubclass(cls, StreamClassifier) or getattr(cls, "_streamsvm_model", False) is True


def save(model, path) -> None:
    """Write ``model`` (fitted, mid-stream or not yet fitted) to ``path`` without pickle.

    Examples
    --------
    >>> import numpy as np, tempfile, os, streamsvm
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [0.2, 0.9], [0.9, 0.1]]); y = [0, 1, 0, 1]
    >>> model = streamsvm.Perceptron().fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.npz")
    >>> streamsvm.save(model, path)
    >>> bool((streamsvm.load(path).predict(X) == model.predict(X)).all())
    True
    """
    if not _is_model_class(type(model)):
        raise TypeError(f"streamsvm.save takes a streamsvm estimator; got {type(model).__name__}")
    encoder = _Encoder()
    params = model.get_params(deep=False)
    skip = set(params) | set(model._transient)
    header = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "library_version": __version__,
        "estimator": f"{type(model).__module__}.{type(model).__qualname__}",
        "params": {k: encoder.encode(v, f"parameter {k!r}") for k, v in params.items()},
        "state": {
            k: encoder.encode(v, f"attribute {k!r}")
            for k, v in vars(model).items()
            if k not in skip
        },
    }
    header["arrays"] = {
        key: {"dtype": a.dtype.str, "shape": list(a.shape), "sha256": array_digest(a)}
        for key, a in encoder.arrays.items()
    }
    blob = np.frombuffer(json.dumps(header, allow_nan=False).encode("utf-8"), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, **{_HEADER: blob}, **encoder.arrays)
    check_writable(path)
    tmp = f"{os.fspath(path)}.partial"  # written whole, then renamed: no half-written model
    try:
        with open(tmp, "wb") as f:
            f.write(buffer.getvalue())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise type(exc)(f"cannot write the model to {os.fspath(path)}: "
                        f"{exc.strerror or exc}") from exc


def array_digest(a: np.ndarray) -> str:
    """The SHA-256 digest (hex) that a model file's header declares for array ``a``: of its
    bytes in C order, in its own dtype (byte order included)."""
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def check_writable(path) -> None:
    """Raise ``OSError`` naming ``path`` unless a model can be written there: its folder
    exists and takes new files, and ``path`` is not a folder (what :func:`save` needs; call
    it before a long training that ends with a save)."""
    name = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(name))
    if os.path.isdir(name):
        raise IsADirectoryError(f"cannot write the model to {name}: it is a folder")
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"cannot write the model to {name}: no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(f"cannot write the model to {name}: the folder {folder} is "
                              "not writable")


# ---------------------------------------------------------------------------------- load
def load(path):
    """Read a model written by :func:`save`; training can resume with ``partial_fit``.

    The whole file is checked before the model is built (module docstring); files written
    by older versions of streamsvm are upgraded on the way in.

    Raises
    ------
    FileNotFoundError
        No such file.
    ModelFileError
        Anything else: the file is truncated or corrupt, is not a streamsvm model, is
        inconsistent (arrays of the wrong shape or dtype, non-finite values, sizes that do not
        match), or was written by a newer format version than this library reads. The message
        names the file and the first problem found.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no model file at {path!r}")
    try:
        return _Loader(path).load()
    except ModelFileError:
        raise
    except _Problem as problem:
        raise ModelFileError(f"{path!r} is not a usable streamsvm model: {problem}") from None
    except (zipfile.BadZipFile, EOFError, OSError, zipfile.LargeZipFile) as exc:
        raise ModelFileError(
            f"{path!r} could not be read as a streamsvm model (truncated or corrupt): {exc}"
        ) from None
    except Exception as exc:  # noqa: BLE001 - the contract: nothing but ModelFileError escapes
        raise ModelFileError(
            f"{path!r} is not a usable streamsvm model (truncated or corrupt): "
            f"{type(exc).__name__}: {exc}"
        ) from None


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


class _Loader:
    """One load: the archive's directory, the header, the arrays, then the model."""

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

    def _tag(self, value: dict, where: str) -> str:
        shapes = {
            "__array__": ({"__array__"}, {"__array__", "object"}),
            "__float__": ({"__float__"},),
            "__tuple__": ({"__tuple__"},),
            "__dict__": ({"__dict__"},),
            "__items__": ({"__items__"},),
            "__csr__": ({"__csr__", "shape"},),
            "__generator__": ({"__generator__"},),
            "__object__": ({"__object__", "state"},),
        }
        for tag, allowed in shapes.items():
            if tag in value:
                if set(value) not in allowed:
                    raise _Problem(f"{where}: malformed {tag} entry (keys {sorted(value)[:4]})")
                return tag
        raise _Problem(f"{where}: unrecognised entry (keys {sorted(value)[:3]})")

    def decode(self, value, where: str, allow_inf: bool = False):
        """The value a header entry stands for; nested objects come back as specs. Float
        arrays must be finite, except that ``allow_inf`` lets them hold ±inf."""
        if value is None or isinstance(value, bool | int | float | str):
            return value
        if isinstance(value, list):
            return [self.decode(v, f"{where}[{i}]", allow_inf) for i, v in enumerate(value)]
        tag = self._tag(value, where)
        body = value[tag]
        if tag == "__array__":
            return self._array(value, where, allow_inf)
        if tag == "__float__":
            if body not in _NONFINITE_FLOATS:
                raise _Problem(f"{where}: {body!r} is not a special float")
            return _NONFINITE_FLOATS[body]
        if tag == "__tuple__":
            if not isinstance(body, list):
                raise _Problem(f"{where}: a tuple entry holds a {type(body).__name__}")
            return tuple(self.decode(v, f"{where}[{i}]", allow_inf) for i, v in enumerate(body))
        if tag == "__dict__":
            if not isinstance(body, dict):
                raise _Problem(f"{where}: a dict entry holds a {type(body).__name__}")
            return {k: self.decode(v, f"{where}[{k!r}]", allow_inf) for k, v in body.items()}
        if tag == "__items__":
            return self._items(body, where, allow_inf)
        if tag == "__csr__":
            return self._csr(value, where)
        if tag == "__generator__":
            return self._generator(body, where)
        return self._object(value, where)

    def _items(self, body, where: str, allow_inf: bool) -> dict:
        """A dict saved as ``[[key, value], ...]`` (keys that are not all strings)."""
        if not isinstance(body, list) or not all(
                isinstance(item, list) and len(item) == 2 for item in body):
            raise _Problem(f"{where}: a dict's items are not [key, value] pairs")
        out = {}
        for i, (key, value) in enumerate(body):
            key = self.key(key, f"{where}: key {i}")
            if key in out:
                raise _Problem(f"{where}: the key {key!r} is repeated")
            out[key] = self.decode(value, f"{where}[{key!r}]", allow_inf)
        return out

    @staticmethod
    def key(value, where: str):
        """A dict key written by :meth:`_Encoder.key`."""
        if value is None or isinstance(value, bool | int | float | str):
            return value
        if isinstance(value, dict) and set(value) == {"__float__"}:
            if value["__float__"] not in _NONFINITE_FLOATS:
                raise _Problem(f"{where}: {value['__float__']!r} is not a special float")
            return _NONFINITE_FLOATS[value["__float__"]]
        if isinstance(value, dict) and set(value) == {"__scalar__"}:
            body = value["__scalar__"]
            if isinstance(body, list) and len(body) == 2 and isinstance(body[0], str):
                dtype_str, item = body
                if isinstance(item, dict) and set(item) == {"__float__"}:
                    item = _NONFINITE_FLOATS.get(item["__float__"], item)
                try:
                    dtype = np.dtype(dtype_str)
                    ok = (dtype.kind in _KEY_KINDS and dtype.names is None
                          and not dtype.hasobject
                          and isinstance(item, bool | int | float | str))
                    if ok:
                        with warnings.catch_warnings():
                            warnings.simplefilter("error")
                            scalar = np.array(item, dtype=dtype)[()]
                        if scalar.item() == item or (isinstance(item, float)
                                                     and math.isnan(item)):
                            return scalar
                except (TypeError, ValueError, OverflowError, RuntimeWarning):
                    pass
            raise _Problem(f"{where}: {value!r} is not a NumPy scalar key")
        raise _Problem(f"{where}: a dict key cannot be {type(value).__name__}")

    def _csr(self, value: dict, where: str):
        parts, shape = value["__csr__"], value["shape"]
        if not (isinstance(parts, list) and len(parts) == 3 and all(
                isinstance(p, dict) and set(p) == {"__array__"} for p in parts)):
            raise _Problem(f"{where}: a sparse matrix needs three array references")
        if not (isinstance(shape, list) and len(shape) == 2
                and all(type(n) is int and n >= 0 for n in shape)):
            raise _Problem(f"{where}: a sparse matrix's shape is {shape!r}")
        data, indices, indptr = (self._array(p, where) for p in parts)
        ok = (
            data.ndim == indices.ndim == indptr.ndim == 1
            and data.dtype.kind == "f"
            and indices.dtype.kind in "iu"
            and indptr.dtype.kind in "iu"
            and indptr.shape[0] == shape[0] + 1
            and data.shape == indices.shape
            and (indptr.size == 0 or (indptr[0] == 0 and indptr[-1] == data.size
                                      and (np.diff(indptr) >= 0).all()))
            and (indices.size == 0 or (indices.min() >= 0 and indices.max() < shape[1]))
        )
        if not ok:
            raise _Problem(f"{where}: the sparse matrix's arrays are inconsistent")
        return sp.csr_matrix((data, indices, indptr), shape=tuple(shape))

    def _generator(self, state, where: str) -> np.random.Generator:
        name = state.get("bit_generator") if isinstance(state, dict) else None
        if name not in _BIT_GENERATORS:
            raise _Problem(f"{where}: unknown random bit generator {name!r}")
        generator = np.random.Generator(getattr(np.random, name)())
        try:
            generator.bit_generator.state = state
        except (TypeError, ValueError, KeyError, OverflowError) as exc:
            raise _Problem(f"{where}: damaged random generator state ({exc})") from None
        if generator.bit_generator.state != state:
            raise _Problem(f"{where}: damaged random generator state")
        return generator

    def _object(self, value: dict, where: str) -> _Spec:
        cls = _find_class(value["__object__"], where)
        state = value["state"]
        if not isinstance(state, dict):
            raise _Problem(f"{where}: an object's state is a {type(state).__name__}")
        return _Spec(cls, self._attributes(state, where, cls))

    def _attributes(self, state: dict, where: str, cls: type) -> dict:
        """Decoded attributes of an object of class ``cls``; float arrays in the attributes
        that ``cls._may_hold_infinity`` names may hold ±inf (sentinels), and the plain float
        arrays that ``cls._may_hold_nan`` names may hold NaN (a value not known yet)."""
        infinite_ok = set(getattr(cls, "_may_hold_infinity", ()))
        nan_ok = set(getattr(cls, "_may_hold_nan", ()))
        for name in state:
            if not name.isidentifier() or name.startswith("__"):
                raise _Problem(f"{where}: the attribute name {name!r} is not allowed")
        return {k: self._array(v, f"{where}.{k}", k in infinite_ok, allow_nan=True)
                if k in nan_ok and isinstance(v, dict) and set(v) == {"__array__"}
                else self.decode(v, f"{where}.{k}", k in infinite_ok)
                for k, v in state.items()}

    # -------------------------------------------------------------- building the model
    def _build(self, header: dict):
        cls = _find_class(header["estimator"], "the estimator")
        if not _is_model_class(cls):
            raise _Problem(f"{header['estimator']!r} is not a streamsvm estimator")
        params = {k: self.decode(v, f"parameter {k!r}") for k, v in header["params"].items()}
        state = self._attributes(header["state"], "the model", cls)
        known = cls().get_params(deep=False) if _default_constructible(cls) else None
        if known is not None:
            extra = sorted(set(params) - set(known))
            if extra:
                raise _Problem(f"{cls.__name__} has no parameters {extra}")
            clash = sorted(set(params) & set(state))
            if clash:
                raise _Problem(f"the state repeats the parameters {clash}")
        path = f"{cls.__module__}.{cls.__qualname__}"
        for (introduced, target), added in sorted(ADDED_PARAMETERS.items()):
            if target == path and self.version < introduced:
                for name, value in added.items():
                    params.setdefault(name, value)
        spec = _Spec(cls, state)
        _migrate(spec, self.version, params)
        try:
            model = cls(**_built(params))
        except (TypeError, ValueError) as exc:
            raise _Problem(f"its parameters are invalid: {exc}") from None
        _check_parameters(model)
        model.__dict__.update(_built(spec.state))
        restore = getattr(model, "_restore_transient", None)
        if restore is not None:
            restore()
        _check_restored(model)
        _check_model(model)
        unused = set(self.arrays) - self.used
        if unused:
            raise _Problem(f"the archive holds arrays nothing refers to: {sorted(unused)[:5]}")
        return model


class _Spec:
    """A saved streamsvm object, decoded and checked but not built yet."""

    def __init__(self, cls: type, state: dict):
        self.cls, self.state = cls, state


def _built(value):
    """``value`` with every object spec in it built (bottom-up), each checked by its own
    ``_check_restored`` where the class has one."""
    if isinstance(value, _Spec):
        obj = value.cls.__new__(value.cls)
        obj.__dict__.update({k: _built(v) for k, v in value.state.items()})
        restore = getattr(obj, "_restore_transient", None)
        if restore is not None:
            restore()
        _check_restored(obj)
        return obj
    if isinstance(value, list):
        return [_built(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_built(v) for v in value)
    if isinstance(value, dict):
        return {k: _built(v) for k, v in value.items()}
    return value


def _check_restored(obj) -> None:
    """Run ``obj._check_restored()``: a class's own invariants of its saved state (those the
    generic checks cannot know, e.g. index arrays that its compiled code trusts)."""
    check = getattr(obj, "_check_restored", None)
    if check is None:
        return
    try:
        check()
    except (ValueError, TypeError, IndexError, AttributeError) as exc:
        raise _Problem(f"its {type(obj).__name__} is inconsistent: {exc}") from None


def _migrate(value, version: int, params: dict) -> None:
    """Apply :data:`STATE_MIGRATIONS` newer than ``version`` to every object spec, innermost
    first."""
    if isinstance(value, _Spec):
        for v in value.state.values():
            _migrate(v, version, params)
        path = f"{value.cls.__module__}.{value.cls.__qualname__}"
        for (introduced, target), upgrade in sorted(STATE_MIGRATIONS.items()):
            if target == path and version < introduced:
                upgrade(value.state, params)
    elif isinstance(value, list | tuple):
        for v in value:
            _migrate(v, version, params)
    elif isinstance(value, dict):
        for v in value.values():
            _migrate(v, version, params)


def _find_class(name, where: str) -> type:
    """The streamsvm class called ``name`` (module path + qualified name, after
    :data:`MOVED_CLASSES`), or a problem."""
    if not isinstance(name, str):
        raise _Problem(f"{where} names a class by a {type(name).__name__}")
    name = MOVED_CLASSES.get(name, name)
    if not _CLASS_PATH.fullmatch(name):
        raise _Problem(f"{where}: the class {name!r} is not part of streamsvm")
    module_name, _, qualname = name.rpartition(".")
    while module_name:
        try:
            module = importlib.import_module(module_name)
            break
        except ImportError:
            module_name, _, head = module_name.rpartition(".")
            qualname = f"{head}.{qualname}"
    else:
        raise _Problem(f"{where}: unknown class {name!r}")
    obj = module
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    ok = (
        isinstance(obj, type)
        and obj.__module__.startswith("streamsvm.")
        and f"{obj.__module__}.{obj.__qualname__}" == name
        and not issubclass(obj, BaseException)
    )
    if not ok:
        raise _Problem(f"{where}: {name!r} is not a streamsvm class")
    return obj


def _default_constructible(cls) -> bool:
    try:
        cls()
    except TypeError:
        return False
    return True


def _check_parameters(model) -> None:
    """The estimator's parameters against its constraints table (``streamsvm._params``);
    saved objects that are not estimators (a distributed site's checkpoint) have none."""
    if not hasattr(type(model), "_parameter_constraints"):
        return
    try:
        check_params(model)
    except (TypeError, ValueError) as exc:
        raise _Problem(f"its parameters are invalid: {exc}") from None


def _check_model(model) -> None:
    """The fitted state's own consistency, then one query (never half-built)."""
    from .base import BinaryLearner, StreamClassifier

    fitted = ("classes_", "n_features_in_", "learners_", "_targets", "_signs")
    if isinstance(model, StreamClassifier):
        present = [name for name in fitted if name in model.__dict__]
        if present and len(present) < len(fitted):
            missing = sorted(set(fitted) - set(present))
            raise _Problem(f"the model is partly fitted: it lacks {missing}")
    if not hasattr(model, "classes_"):
        return
    classes = model.classes_
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.size == 0:
        raise _Problem("classes_ is not a non-empty list of labels")
    if classes.size > 1 and not (classes[1:] > classes[:-1]).all():
        raise _Problem("classes_ is not sorted and unique")
    n_features = getattr(model, "n_features_in_", None)
    if type(n_features) is not int or n_features < 1:
        raise _Problem(f"n_features_in_ is {n_features!r}")
    vocabulary = model.__dict__.get("_vocabulary")
    if vocabulary is not None and (not isinstance(vocabulary, FeatureVocabulary)
                                   or len(vocabulary) != n_features):
        raise _Problem(f"the model's feature vocabulary does not name its {n_features} "
                       "features")
    if isinstance(model, StreamClassifier):
        for name, bits in (("n_seen_", 63), ("_seed_entropy", 128), ("_n_learners_made", 63)):
            value = model.__dict__.get(name)
            if type(value) is not int or not 0 <= value < 2**bits:
                raise _Problem(f"{name} is {value!r}, not a count below 2**{bits}")
        learners = model.__dict__.get("learners_")
        targets, signs = model.__dict__.get("_targets"), model.__dict__.get("_signs")
        expected = 1 if classes.size <= 2 else classes.size
        ok = (
            isinstance(learners, list)
            and len(learners) == expected
            and all(isinstance(learner, BinaryLearner) for learner in learners)
            and isinstance(targets, list)
            and isinstance(signs, list)
            and len(targets) == len(signs) == expected
            and all(s in (1.0, -1.0) for s in signs)
        )
        if ok:
            wanted = list(classes[1:]) if classes.size == 2 else list(classes)
            kinds = {"i": "iu", "u": "iu", "f": "f", "U": "U", "O": "U", "b": "b"}
            ok = targets == wanted and np.asarray(targets).dtype.kind in kinds.get(
                classes.dtype.kind, "")
        if not ok:
            raise _Problem(
                f"the model should hold {expected} binary learner(s) "
                f"with their targets and signs for {classes.size} classes"
            )
        _check_against_fresh_learners(model)
        names = model.__dict__.get("feature_names_in_")
        if names is not None and (not isinstance(names, np.ndarray) or names.dtype != object
                                  or names.shape != (n_features,)
                                  or not all(isinstance(n, str) for n in names)):
            raise _Problem(f"feature_names_in_ should hold {n_features} names (strings)")
        mean = model.__dict__.get("mean_")
        if mean is not None and (not isinstance(mean, np.ndarray) or mean.shape != (n_features,)
                                 or mean.dtype != np.float64):
            raise _Problem(f"mean_ should hold {n_features} float64 values")
    probe = np.zeros((2, n_features))
    try:
        with warnings.catch_warnings():  # an array for a model fitted on a table: no names
            warnings.simplefilter("ignore", UserWarning)
            scores = np.asarray(model.decision_function(probe), dtype=float)
    except Exception as exc:  # noqa: BLE001 - a model that cannot answer is refused
        raise _Problem(f"the model cannot answer a query ({type(exc).__name__}: {exc})") from None
    if scores.shape[0] != 2 or not np.isfinite(scores).all():
        raise _Problem("the model answers a query with non-finite or misshapen scores")


def _check_against_fresh_learners(model) -> None:
    """Each saved learner matches what this model would build today: same classes, no
    missing attributes, same dtypes and dimensions, and the same size along every axis that
    grows with the number of features (found by building fresh learners for two widths)."""
    fresh = []
    for extra in (0, 1):
        shadow = copy.copy(model)
        shadow.n_features_in_ = model.n_features_in_ + extra
        try:
            fresh.append(shadow._make_learner())
        except Exception as exc:  # noqa: BLE001 - parameters or state the class cannot use
            raise _Problem(f"its learners cannot be rebuilt ({type(exc).__name__}: {exc})") \
                from None
    params = model.get_params(deep=False)

    def check_copy_of_parameter(name, saved, fresh_value):
        """A learner's verbatim copy of a parameter must be a valid value of it."""
        given = params.get(name, _Spec)
        if type(given) is not type(fresh_value) or given != fresh_value or saved == given:
            return
        trial = copy.copy(model)
        setattr(trial, name, saved)
        try:
            _check_parameters(trial)
        except _Problem:
            raise _Problem(f"a learner holds {name}={saved!r}, not a valid value of that "
                           "parameter") from None

    for i, learner in enumerate(model.learners_):
        _compare(learner, fresh[0], fresh[1], f"learner {i}")
        for name, value in vars(fresh[0]).items():
            if isinstance(value, bool | int | float | str):
                check_copy_of_parameter(name, vars(learner)[name], value)
        saved, wanted = _configuration(learner), _configuration(fresh[0])
        for name, value in wanted.items():
            if saved.get(name) != value:
                raise _Problem(f"learner {i}.{name} is {saved.get(name)!r}; the estimator's "
                               f"parameters give {value!r} (the learner was not built by "
                               f"this {type(model).__name__})")
    _check_kept_rows(model)


#: The configuration of each kind of learner: attributes its constructor sets from the
#: estimator's parameters and that learning never changes, by class path (subclasses
#: included). A saved learner's must equal those of the learner the estimator builds today
#: (a LASVM file whose learner runs FullSVM's algorithm, a copy of ``cache_size`` edited to
#: 1e8, are refused). Nested state (the budget machine's kernel, TVM's options) is read by
#: :func:`_configuration`.
_CONFIGURATION: dict[str, tuple[str, ...]] = {
    "streamsvm.lasvm.learner._Learner": (
        "algorithm", "variant", "C", "code", "gamma", "degree", "coef0", "tau", "cache_size",
        "epochs", "shuffle", "selection", "n_candidates", "n_seed", "delta_max", "finishing",
        "shrink_every", "second_order", "s", "clean_every", "max_non_sv"),
    "streamsvm.active.learner._ActiveLearner": (
        "pool_size", "stopping", "rule", "window", "tolerance", "span", "max_labels"),
    "streamsvm.meb.blurred._BlurredBallLearner": (
        "epsilon", "inv_C", "lookahead", "tol", "code", "gamma", "degree", "coef0",
        "normalized", "linear"),
    "streamsvm.budget.baselines._KernelPerceptronLearner": ("budget",),
    "streamsvm.budget.baselines._BudgetPerceptronLearner": ("beta",),
    "streamsvm.budget.baselines._BudgetPerceptronWindowLearner": ("window",),
    "streamsvm.budget.baselines._RandomLearner": ("budget",),
    "streamsvm.linear.pegasos._PegasosLearner": (
        "alpha", "block_size", "projection", "fit_intercept"),
    "streamsvm.linear.perceptron._PerceptronLearner": ("fit_intercept",),
    "streamsvm.meb.streamsvm._StreamSVMLearner": ("inv_C", "tol", "lookahead"),
}


def _configuration(learner) -> dict:
    """``name -> value`` of the learner's configuration (:data:`_CONFIGURATION`), with the
    kernel of its budget machine and TVM's options where it has them."""
    out = {}
    for cls in type(learner).__mro__:
        for name in _CONFIGURATION.get(f"{cls.__module__}.{cls.__qualname__}", ()):
            out[name] = vars(learner).get(name)
    machine = vars(learner).get("machine")
    if type(machine).__name__ == "Machine" and isinstance(getattr(machine, "m", None), tuple):
        from .budget import _state as st

        fs, ist = machine.m[st.M_FS], machine.m[st.M_IST]
        out.update({"machine gamma": float(fs[st.F_GAMMA]),  # not C: TVM rescales it
                    "machine coef0": float(fs[st.F_COEF0]), "machine tol": float(fs[st.F_TOL]),
                    "machine kernel": int(ist[st.I_CODE]),
                    "machine degree": int(ist[st.I_DEGREE])})
    if type(learner).__name__ == "_TVMLearner":
        from .budget import _state as st

        out.update({"opts": tuple(learner.opts.tolist()), "fpar": tuple(learner.fpar.tolist()),
                    "C times the budget": float(learner.tw[st.TW_FS][st.TF_CPROD])})
    return out


def _check_kept_rows(model) -> None:
    """The rows a linear model's calibrators keep are rescored by their learner when
    probabilities are asked for: one of them must score (a column missing made
    ``predict_proba`` fail on shapes)."""
    scores = getattr(model, "_learner_scores", None)
    for i, learner in enumerate(model.learners_):
        calibrator = getattr(learner, "calibration", None)
        rows = getattr(calibrator, "rows", None)
        if rows is None or scores is None:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                score = np.asarray(scores(learner, rows[:1].astype(np.float64)), dtype=float)
            ok = score.shape == (1,)
        except Exception:  # noqa: BLE001 - rows the learner cannot score are refused
            ok = False
        if not ok:
            raise _Problem(f"learner {i}.calibration.rows holds rows of {rows.shape[1]} "
                           "columns, which the learner cannot score")


def _compare(saved, fresh, wider, where: str) -> None:
    if fresh is None:
        return
    if isinstance(fresh, np.ndarray):
        ok = (
            isinstance(saved, np.ndarray)
            and saved.dtype == fresh.dtype
            and saved.ndim == fresh.ndim
            and all(saved.shape[k] == fresh.shape[k]
                    for k in range(fresh.ndim) if fresh.shape[k] != wider.shape[k])
        )
        if not ok:
            got = (f"{saved.dtype} of shape {saved.shape}" if isinstance(saved, np.ndarray)
                   else type(saved).__name__)
            raise _Problem(f"{where} holds {got}; the model needs {fresh.dtype} with "
                           f"{fresh.ndim} dimension(s) matching its {fresh.shape}")
        return
    if isinstance(fresh, bool | int | float | str):
        kinds = {bool: (bool,), int: (int,), float: (int, float), str: (str,)}[type(fresh)]
        if not isinstance(saved, kinds) or (isinstance(saved, bool) and bool not in kinds):
            raise _Problem(f"{where} is a {type(saved).__name__}, not a {type(fresh).__name__}")
        if type(saved) is int and not -(2**63) <= saved < 2**63:
            raise _Problem(f"{where} = {saved} does not fit in 64 bits")
        if type(saved) is float and math.isnan(saved):
            raise _Problem(f"{where} is NaN")
        if type(fresh) is int and fresh >= 0 and saved < 0:  # counts and sizes stay >= 0
            raise _Problem(f"{where} = {saved} is negative")
        return
    if type(saved) is not type(fresh):
        raise _Problem(f"{where} is a {type(saved).__name__}, not a {type(fresh).__name__}")
    if isinstance(fresh, tuple):
        if len(saved) != len(fresh):
            raise _Problem(f"{where} holds {len(saved)} items, not {len(fresh)}")
        for k, (a, b, c) in enumerate(zip(saved, fresh, wider, strict=True)):
            _compare(a, b, c, f"{where}[{k}]")
    elif type(fresh).__module__.startswith("streamsvm.") and hasattr(fresh, "__dict__"):
        transient = set(getattr(fresh, "_transient", ()))
        missing = sorted(set(vars(fresh)) - set(vars(saved)) - transient)
        if missing:
            raise _Problem(f"{where} lacks the attributes {missing[:5]}")
        nan_ok = set(getattr(type(fresh), "_may_hold_nan", ()))
        for name, value in vars(fresh).items():
            if name in nan_ok and type(vars(saved)[name]) is float and math.isnan(
                    vars(saved)[name]):
                continue
            if name not in transient:
                _compare(vars(saved)[name], value, vars(wider).get(name), f"{where}.{name}")
