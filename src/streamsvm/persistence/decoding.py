"""Decoding a model file's state: JSON values and array references into checked
values and object specs, classes found by name in streamsvm only, migrations of
older formats applied, then the objects built bottom-up."""

from __future__ import annotations

import importlib
import math
import warnings

import numpy as np
import scipy.sparse as sp

from .format import (
    _BIT_GENERATORS,
    _CLASS_PATH,
    _KEY_KINDS,
    _NONFINITE_FLOATS,
    MOVED_CLASSES,
    STATE_MIGRATIONS,
    _Problem,
)


class _Decoder:
    """The state half of a load: every saved value decoded and checked."""

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


