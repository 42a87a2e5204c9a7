"""The binary learner: the state and update rule of one two-class problem, and what a
model file keeps of it (its attributes less caches, arrays without their spare rows)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..input.validation import RowsRefused
from ..kernels.spec import max_safe_sqnorm

ROW_SQNORM_LIMIT = 0.25 * max_safe_sqnorm("linear")


def refuse_rows(rows_sqnorm: float) -> None:
    """Raise :class:`~streamsvm.input.validation.RowsRefused` unless the rows a compiled loop just
    learnt, whose squared norms sum to ``rows_sqnorm``, are all finite and within
    :data:`ROW_SQNORM_LIMIT` (a sum within it proves both; a NaN or an infinity makes it
    non-finite, as squares cannot cancel). See :attr:`StreamClassifier._learners_check_rows`."""
    if not rows_sqnorm <= ROW_SQNORM_LIMIT:
        raise RowsRefused("a row holds NaN or infinity, or is too large")


class BinaryLearner:
    """State and update rule of one two-class problem (labels ±1).

    Subclasses implement :meth:`partial_fit` and :meth:`decision_function` over validated
    input: ``X`` a C-contiguous float64 array or a CSR matrix from
    :func:`streamsvm.input.validation.check_features`, ``y`` a float64 array of ±1. All state
    lives in instance attributes that are NumPy arrays, numbers, strings, lists/dicts of
    those, or other streamsvm objects, so that :func:`streamsvm.save` can store it without
    pickle. Attributes named in ``_transient`` (caches, scratch buffers) are neither saved nor
    pickled, and arrays named in ``_spare_capacity`` lose their spare rows;
    :meth:`_restore_transient` rebuilds both after loading or unpickling.
    """

    _transient: tuple[str, ...] = ()
    #: arrays grown with room to spare, saved without the spare rows
    _spare_capacity: tuple[str, ...] = ()

    def __init__(self, n_features: int, rng: np.random.Generator, **params):
        self.n_features = n_features
        self.rng = rng
        self.n_seen = 0

    def partial_fit(self, X, y: np.ndarray) -> None:
        """Continue the stream with the examples of one chunk, in order."""
        raise NotImplementedError

    def fit_pass(self, X, y: np.ndarray, **weights) -> None:
        """What ``fit`` runs on a fresh learner: by default one pass, then :meth:`finish`
        (``weights``: the ``sample_weight`` of learners that take one per row)."""
        self.partial_fit(X, y, **weights)
        self.finish()

    def finish(self) -> None:
        """End-of-data step of algorithms that have one (lookahead buffers, finishing passes)."""

    def decision_function(self, X) -> np.ndarray:
        """Signed score of each row; positive means the +1 class."""
        raise NotImplementedError

    def _persist_state(self) -> dict:
        """What :func:`streamsvm.save` and pickle keep: the attributes less ``_transient``
        (caches and other rebuildable buffers), the arrays named in ``_spare_capacity``
        without their spare rows (:func:`trim_spare_rows`; loading puts them back)."""
        state = {k: v for k, v in vars(self).items() if k not in self._transient}
        spare = {}
        in_use = self._rows_in_use()
        for name in self._spare_capacity:
            array = state.get(name)
            if isinstance(array, np.ndarray) and array.ndim >= 1:
                if name in in_use:  # rows past the count are written before they are read
                    trimmed = array[: in_use[name]].copy()
                else:
                    trimmed = trim_spare_rows(array)
                if trimmed.shape[0] < array.shape[0]:
                    state[name] = trimmed
                    spare[name] = [int(array.shape[0]), name in in_use]
        if spare:
            state["_spare_rows"] = spare
        return state

    def _restore_transient(self) -> None:
        """Rebuild what :meth:`_persist_state` left out, after loading or unpickling;
        subclasses that rebuild more call this first."""
        pending = self.__dict__.pop("_spare_rows", {})
        try:  # the counts that say how many rows of each array were saved
            in_use = self._rows_in_use() if pending else {}
        except (IndexError, TypeError, ValueError, AttributeError):
            raise ValueError(f"{type(self).__name__}: the saved counts do not fit the saved "
                             "arrays") from None
        for name, (rows, zeros) in pending.items():
            array = getattr(self, name, None)
            if (name not in self._spare_capacity or not isinstance(array, np.ndarray)
                    or array.ndim < 1 or not isinstance(rows, int)
                    or not array.shape[0] <= rows <= _MAX_SPARE_ROWS
                    or (zeros and in_use.get(name) != array.shape[0])):
                raise ValueError(f"{type(self).__name__}: the saved capacity of {name!r} "
                                 f"({rows!r} rows) or its rows in use do not fit the saved "
                                 "array")
            if zeros:
                padded = np.zeros((rows,) + array.shape[1:], dtype=array.dtype)
                padded[: array.shape[0]] = array
                setattr(self, name, padded)
            else:
                setattr(self, name, pad_spare_rows(array, rows))

    def _rows_in_use(self) -> dict[str, int]:
        """Arrays of ``_spare_capacity`` whose rows past a count are never read before they
        are written, by name: they are saved up to that count and padded with zeros on load
        (the others lose only a trailing run of rows equal to their last)."""
        return {}

    def __getstate__(self) -> dict:
        return self._persist_state()

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._restore_transient()


_MAX_SPARE_ROWS = 2**31


def trim_spare_rows(array: np.ndarray) -> np.ndarray:
    """``array`` without the trailing rows that are bit-identical to its last row, that last
    row kept as the pattern: the spare capacity of an array grown with room to spare.
    :func:`pad_spare_rows` gives back the very same bits."""
    n = array.shape[0]
    if n < 2:
        return array
    raw = np.ascontiguousarray(array).reshape(n, -1).view(np.uint8)
    differs = np.flatnonzero((raw[:-1] != raw[-1]).any(axis=1))
    used = int(differs[-1]) + 1 if differs.size else 0
    return array[: used + 1].copy()


def pad_spare_rows(array: np.ndarray, rows: int) -> np.ndarray:
    """Inverse of :func:`trim_spare_rows`: repeat the last row up to ``rows`` rows."""
    if rows <= array.shape[0]:
        return array
    tail = np.repeat(array[-1:], rows - array.shape[0], axis=0)
    return np.ascontiguousarray(np.concatenate([array, tail]))


def state_nbytes(obj) -> int:
    """Bytes held in NumPy arrays by an object's state (recursively through lists and dicts),
    less what it names in ``_transient`` (caches and scratch, which files and pickles leave
    out: LASVM's kernel cache is not model state)."""
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes)
    if sp.issparse(obj):
        return int(obj.data.nbytes + obj.indices.nbytes + obj.indptr.nbytes)
    if isinstance(obj, list | tuple):
        return sum(state_nbytes(item) for item in obj)
    if isinstance(obj, dict):
        return sum(state_nbytes(item) for item in obj.values())
    if hasattr(obj, "__dict__") and type(obj).__module__.startswith("streamsvm"):
        skip = getattr(obj, "_transient", ())
        return sum(state_nbytes(v) for k, v in vars(obj).items() if k not in skip)
    return 0
