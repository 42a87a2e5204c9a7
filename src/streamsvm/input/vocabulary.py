"""The feature vocabulary of a model that learns from dicts (River's examples).

A :class:`FeatureVocabulary` maps each dict key a model has learnt from to a column: the
keys in the order they first appeared (the new keys of one example sorted, so that the
order of a dict's items never matters). A key not seen before is given the next column when
the model *learns* from an example holding it; at prediction time an unknown key counts as
0, which is what the model would give it (it has never seen that feature differ from 0).

The vocabulary is capped (:data:`MAX_FEATURES`, read when a vocabulary is made): a model
keeps arrays of one value per feature (weights, centring means, stored rows), and a stream of
ever-new keys (words, identifiers) must not grow them without end. Past the cap, new keys are
ignored like unknown ones, with one :class:`VocabularyFullWarning` per vocabulary; the
number of key occurrences ignored is counted in ``n_ignored``.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

__all__ = ["MAX_FEATURES", "FeatureVocabulary", "VocabularyFullWarning", "feature_value"]

#: The most dict keys (features) a model learns; set it before the first ``learn_one`` to
#: change it for the models made afterwards (each vocabulary keeps the cap it was made with).
MAX_FEATURES = 2**16


class VocabularyFullWarning(UserWarning):
    """A model's vocabulary reached its cap; new keys are ignored from then on."""


def feature_value(key, value) -> float:
    """``value`` as a finite float, or a ``TypeError``/``ValueError`` naming the feature."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"feature {key!r} has the non-numeric value {value!r}") from None
    if not np.isfinite(number):
        raise ValueError(f"feature {key!r} is {value!r}; features must be finite")
    return number


def _sorted_keys(keys: list) -> list:
    """Keys in a canonical order: sorted where they compare, else by type name and repr."""
    try:
        return sorted(keys)
    except TypeError:
        return sorted(keys, key=lambda k: (type(k).__name__, repr(k)))


class FeatureVocabulary:
    """Dict key -> column, grown by :meth:`learn`, read by :meth:`row` (module doc).

    Attributes: ``keys`` (the key of each column), ``cap`` (the most keys), ``n_ignored``
    (key occurrences ignored since the vocabulary was full)."""

    _transient = ("_column",)

    def __init__(self, cap: int | None = None):
        self.keys: list = []
        self.cap = int(MAX_FEATURES if cap is None else cap)
        self.n_ignored = 0
        self._column: dict = {}

    def __len__(self) -> int:
        return len(self.keys)

    def _restore_transient(self) -> None:
        self._column = {key: j for j, key in enumerate(self.keys)}

    def _check_restored(self) -> None:
        if type(self.cap) is not int or self.cap < 1 or len(self.keys) > self.cap:
            raise ValueError(f"the vocabulary holds {len(self.keys)} keys for a cap of "
                             f"{self.cap!r}")
        if len(self._column) != len(self.keys):
            raise ValueError("the vocabulary repeats a key")
        if type(self.n_ignored) is not int or self.n_ignored < 0:
            raise ValueError(f"n_ignored is {self.n_ignored!r}")

    def new_keys(self, x: Mapping) -> list:
        """The keys of ``x`` not in the vocabulary, in the order :meth:`learn` adds them."""
        return _sorted_keys([key for key in x if key not in self._column])

    def learn(self, x: Mapping) -> int:
        """Add the new keys of ``x`` (up to the cap); returns how many were added."""
        new = self.new_keys(x)
        room = self.cap - len(self.keys)
        if len(new) > room:
            if self.n_ignored == 0:
                warnings.warn(
                    f"the feature vocabulary is full ({self.cap:,} keys, "
                    "streamsvm.input.vocabulary.MAX_FEATURES); new keys are ignored from now on",
                    VocabularyFullWarning, stacklevel=4)
            self.n_ignored += len(new) - room
            new = new[:room]
        for key in new:
            self._column[key] = len(self.keys)
            self.keys.append(key)
        return len(new)

    def forget_after(self, n_keys: int) -> None:
        """Drop the keys after the first ``n_keys`` (undoes :meth:`learn` on a refused call)."""
        for key in self.keys[n_keys:]:
            del self._column[key]
        del self.keys[n_keys:]

    def row(self, x: Mapping, width: int | None = None) -> sp.csr_matrix:
        """``x`` as a (1, ``width``) CSR row (default width: the vocabulary's), its keys in
        their columns; keys not in the vocabulary count as 0. Values are checked (numbers,
        finite) before anything else happens."""
        width = len(self.keys) if width is None else width
        columns, values = [], []
        for key, value in x.items():
            number = feature_value(key, value)
            j = self._column.get(key)
            if j is not None and number != 0.0:
                columns.append(j)
                values.append(number)
        order = np.argsort(np.asarray(columns, dtype=np.int32), kind="stable")
        indices = np.asarray(columns, dtype=np.int32)[order]
        data = np.asarray(values, dtype=np.float64)[order]
        indptr = np.array([0, indices.shape[0]], dtype=np.int32)
        return sp.csr_matrix((data, indices, indptr), shape=(1, max(width, 1)))


def is_dict_example(x) -> bool:
    """Whether ``x`` is one example given as a dict (a Mapping) rather than an array."""
    return isinstance(x, Mapping)


def integral_keys(x: Mapping) -> bool:
    """Whether every key of ``x`` is an integer (a column index for array-started models)."""
    return all(isinstance(k, numbers.Integral) and not isinstance(k, bool) for k in x)
