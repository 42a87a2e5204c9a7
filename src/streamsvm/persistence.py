"""Save and load models without pickle.

A model file is an ``.npz`` archive (a zip of ``.npy`` arrays, read with
``allow_pickle=False``) holding the model's arrays and one JSON header:

.. code-block:: json

    {"format": "streamsvm-model", "format_version": 1, "library_version": "0.1.0",
     "estimator": "streamsvm.linear.perceptron.Perceptron",
     "params": {...}, "state": {...}}

``state`` mirrors the model's attributes: numbers, strings and lists are stored as JSON,
arrays as references ``{"__array__": "a3"}`` into the archive, sparse matrices as their
three arrays, random generators as their bit-generator state, and the library's own state
objects (binary learners, kernels, caches) as ``{"__object__": "streamsvm....", "state": {...}}``.
Loading only ever instantiates classes defined in the ``streamsvm`` package, found by name
in its modules, without calling their constructors: a file cannot make the loader run any
other code. Mid-stream state is saved too, so ``partial_fit`` resumes exactly.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import zipfile

import numpy as np
import scipy.sparse as sp

from ._version import __version__

__all__ = ["save", "load", "FORMAT_VERSION", "ModelFileError"]

FORMAT = "streamsvm-model"
FORMAT_VERSION = 1
_HEADER = "__streamsvm_header__"


class ModelFileError(ValueError):
    """A model file that is truncated, foreign, newer than this library, or inconsistent."""


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
            if not all(isinstance(k, str) for k in value):
                raise TypeError(f"cannot save {where}: a dict with non-string keys")
            return {"__dict__": {k: self.encode(v, f"{where}[{k!r}]") for k, v in value.items()}}
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


def _find_class(name: str):
    """The streamsvm class called ``name`` (module path + qualified name), or an error."""
    if not name.startswith("streamsvm."):
        raise ModelFileError(f"the file names the class {name!r}, which is not part of streamsvm")
    module_name, _, qualname = name.rpartition(".")
    while module_name:
        try:
            module = importlib.import_module(module_name)
            break
        except ImportError:
            module_name, _, head = module_name.rpartition(".")
            qualname = f"{head}.{qualname}"
    else:
        raise ModelFileError(f"the file names the unknown class {name!r}")
    obj = module
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    if not isinstance(obj, type) or not obj.__module__.startswith("streamsvm"):
        raise ModelFileError(f"the file names {name!r}, which is not a streamsvm class")
    return obj


class _Decoder:
    def __init__(self, archive):
        self.archive = archive

    def array(self, ref: dict) -> np.ndarray:
        key = ref["__array__"]
        if key not in self.archive:
            raise ModelFileError(f"the file lacks the array {key!r}; it is truncated or corrupt")
        a = self.archive[key]
        if ref.get("object"):
            return a.astype(object)
        return a

    def decode(self, value):
        if isinstance(value, list):
            return [self.decode(v) for v in value]
        if not isinstance(value, dict):
            return value
        if "__array__" in value:
            return self.array(value)
        if "__float__" in value:
            return float(value["__float__"])
        if "__tuple__" in value:
            return tuple(self.decode(v) for v in value["__tuple__"])
        if "__dict__" in value:
            return {k: self.decode(v) for k, v in value["__dict__"].items()}
        if "__csr__" in value:
            data, indices, indptr = (self.array(r) for r in value["__csr__"])
            return sp.csr_matrix((data, indices, indptr), shape=tuple(value["shape"]))
        if "__generator__" in value:
            state = value["__generator__"]
            bit_generator = getattr(np.random, state.get("bit_generator", ""), None)
            if bit_generator is None or not isinstance(bit_generator, type):
                raise ModelFileError(f"unknown random bit generator {state.get('bit_generator')!r}")
            generator = np.random.Generator(bit_generator())
            generator.bit_generator.state = state
            return generator
        if "__object__" in value:
            cls = _find_class(value["__object__"])
            obj = cls.__new__(cls)
            obj.__dict__.update({k: self.decode(v) for k, v in value["state"].items()})
            restore = getattr(obj, "_restore_transient", None)
            if restore is not None:
                restore()
            return obj
        raise ModelFileError(f"unrecognised entry in the file's state: {sorted(value)[:3]}")


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
    blob = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, **{_HEADER: blob}, **encoder.arrays)
    tmp = f"{os.fspath(path)}.partial"
    with open(tmp, "wb") as f:
        f.write(buffer.getvalue())
    os.replace(tmp, path)


def load(path):
    """Read a model written by :func:`save`; training can resume with ``partial_fit``.

    Raises
    ------
    FileNotFoundError
        No such file.
    ModelFileError
        The file is truncated or corrupt, is not a streamsvm model, or was written by a
        newer format version than this library reads.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no model file at {path!r}")
    try:
        with np.load(path, allow_pickle=False) as archive:
            if not isinstance(archive, np.lib.npyio.NpzFile) or _HEADER not in archive:
                raise ModelFileError(f"{path!r} is not a streamsvm model file (no header)")
            header = json.loads(archive[_HEADER].tobytes().decode("utf-8"))
            if header.get("format") != FORMAT:
                raise ModelFileError(f"{path!r} is not a streamsvm model file")
            version = header.get("format_version")
            if not isinstance(version, int) or version > FORMAT_VERSION:
                raise ModelFileError(
                    f"{path!r} was written in model format version {version} by streamsvm "
                    f"{header.get('library_version')}; this streamsvm ({__version__}) reads up to "
                    f"version {FORMAT_VERSION}: upgrade streamsvm to load it"
                )
            decoder = _Decoder(archive)
            cls = _find_class(header["estimator"])
            if not _is_model_class(cls):
                raise ModelFileError(f"{header['estimator']!r} is not a streamsvm estimator")
            model = cls(**{k: decoder.decode(v) for k, v in header["params"].items()})
            model.__dict__.update({k: decoder.decode(v) for k, v in header["state"].items()})
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError, UnicodeDecodeError) as exc:
        raise ModelFileError(
            f"{path!r} could not be read as a streamsvm model (truncated or corrupt): {exc}"
        ) from exc
    restore = getattr(model, "_restore_transient", None)
    if restore is not None:
        restore()
    return model
