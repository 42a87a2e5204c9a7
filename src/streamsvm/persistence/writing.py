"""Writing a model file: the model's state encoded as JSON with references to
uncompressed ``.npy`` arrays, each declared with its dtype, shape and SHA-256."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os

import numpy as np
import scipy.sparse as sp

from .._version import __version__
from .format import (
    _HEADER,
    _KEY_KINDS,
    FORMAT,
    FORMAT_VERSION,
)


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
    from ..base import StreamClassifier

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

