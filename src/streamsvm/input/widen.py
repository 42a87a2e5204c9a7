"""Growing a model's feature space: new features enter with value 0 everywhere.

A model that learns from dicts meets new keys mid-stream (:mod:`streamsvm.input.vocabulary`). A
feature that was absent from every example so far had the value 0 in all of them, so the
model that has learnt them *with* that feature is the model it holds, with a 0 in every
array along the feature axis: weights, centring means, stored rows, workspaces. That is what
:func:`widen_like` does, for every family at once: the feature axes of an object's arrays are
found as the persistence checks find them, by comparing fresh objects built for two widths
(an axis whose size differs between them grows with the number of features). New columns go
in after the old features, before any column a family appends after them (StreamSVM's bias
feature). Integers that count the features grow with them.
"""

from __future__ import annotations

import numpy as np

__all__ = ["widen_like", "Undo"]


class Undo:
    """The attribute values :func:`widen_like` replaced, to put back when the call that
    widened the model is refused (arrays are replaced, never changed in place)."""

    def __init__(self):
        self.replaced: list[tuple[object, str, object]] = []

    def set(self, obj, name: str, value) -> None:
        self.replaced.append((obj, name, getattr(obj, name)))
        setattr(obj, name, value)

    def __call__(self) -> None:
        for obj, name, value in reversed(self.replaced):
            setattr(obj, name, value)
        self.replaced.clear()


def _widened_array(array: np.ndarray, fresh: np.ndarray, wider: np.ndarray, old: int,
                   added: int) -> np.ndarray | None:
    """``array`` with ``added`` zero columns inserted at index ``old`` of every feature axis
    (None when it has none)."""
    if array.ndim != fresh.ndim or fresh.shape == wider.shape:
        return None
    out = array
    for axis in range(fresh.ndim):
        if fresh.shape[axis] != wider.shape[axis]:
            shape = list(out.shape)
            shape[axis] = added
            out = np.concatenate(
                [np.take(out, np.arange(old), axis=axis), np.zeros(shape, dtype=out.dtype),
                 np.take(out, np.arange(old, out.shape[axis]), axis=axis)], axis=axis)
    return np.ascontiguousarray(out)


def widen_like(obj, fresh, wider, *, old: int, added: int, undo: Undo) -> None:
    """Widen ``obj`` (a learner or any library object in it) from ``old`` features to
    ``old + added``, given ``fresh`` and ``wider``: objects of the same class built fresh
    for ``old`` and ``old + 1`` features (module doc). Replaced values are kept in ``undo``."""
    for name, value in vars(fresh).items():
        if name in vars(obj):
            widened = _widened(vars(obj)[name], value, vars(wider).get(name),
                               old=old, added=added, undo=undo)
            if widened is not None:
                undo.set(obj, name, widened)


def _widened(saved, fresh, wider, *, old: int, added: int, undo: Undo):
    """The widened value of ``saved`` (None: unchanged, or widened in place through
    ``undo`` for library objects)."""
    if isinstance(fresh, np.ndarray):
        if isinstance(saved, np.ndarray) and isinstance(wider, np.ndarray):
            return _widened_array(saved, fresh, wider, old, added)
        return None
    if type(fresh) is int:
        if type(wider) is int and type(saved) is int and wider == fresh + 1:
            return saved + added
        return None
    if isinstance(fresh, list | tuple):
        if not (type(saved) is type(fresh) is type(wider) and len(saved) == len(wider)
                and len(saved) == len(fresh)):
            return None
        items = [_widened(a, b, c, old=old, added=added, undo=undo)
                 for a, b, c in zip(saved, fresh, wider, strict=True)]
        if all(item is None for item in items):
            return None
        items = [a if item is None else item for a, item in zip(saved, items, strict=True)]
        return items if isinstance(saved, list) else type(saved)(items)
    if (type(saved) is type(fresh) is type(wider)
            and type(fresh).__module__.startswith("streamsvm.")
            and hasattr(fresh, "__dict__")):
        widen_like(saved, fresh, wider, old=old, added=added, undo=undo)
    return None
