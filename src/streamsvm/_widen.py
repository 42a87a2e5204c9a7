"""Growing a model's feature space: new features enter with value 0 everywhere.

A model that learns from dicts meets new keys mid-stream (:mod:`streamsvm.vocabulary`). A
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
        if name not in vars(obj):
            continue
        saved, other = vars(obj)[name], vars(wider).get(name)
        if isinstance(value, np.ndarray) and isinstance(saved, np.ndarray) \
                and isinstance(other, np.ndarray):
            widened = _widened_array(saved, value, other, old, added)
            if widened is not None:
                undo.set(obj, name, widened)
        elif type(value) is int and type(other) is int and type(saved) is int \
                and other == value + 1:
            undo.set(obj, name, saved + added)
        elif isinstance(saved, list | tuple) and isinstance(value, list | tuple) \
                and isinstance(other, list | tuple) and len(saved) == len(value) == len(other):
            for a, b, c in zip(saved, value, other, strict=True):
                _widen_nested(a, b, c, old=old, added=added, undo=undo)
        else:
            _widen_nested(saved, value, other, old=old, added=added, undo=undo)


def _widen_nested(saved, fresh, wider, *, old: int, added: int, undo: Undo) -> None:
    if (type(saved) is type(fresh) is type(wider)
            and type(fresh).__module__.startswith("streamsvm.")
            and hasattr(fresh, "__dict__")):
        widen_like(saved, fresh, wider, old=old, added=added, undo=undo)
