"""The per-row path of the dict interface: River's ``predict_one`` / ``learn_one`` at what
their maths costs (issue 19, item 7).

The general path reads a dict through the vocabulary into a one-row CSR matrix and runs
``partial_fit`` (scikit-learn's checks, label sets, the calibration bookkeeping) for every
row. Here, for a running model whose learners have a compiled per-row step, one example costs:

* its keys looked up once per *schema*: the tuple of a dict's keys is compared with the last
  one read (one C-level comparison; River's dense streams repeat one schema), and only a new
  schema is looked up key by key in the vocabulary; a key the vocabulary does not hold sends
  ``learn_one`` to the general path, which widens the model (once per new key);
* its values read in one ``np.fromiter`` (numbers; anything else goes to the general path,
  which refuses it with its message);
* one compiled call per binary learner (:func:`gather_row` inside it: finiteness, the row's
  squared norm against the model's bound, zeros dropped and columns sorted into preallocated
  scratch, as the CSR row of the general path holds them), which returns the decision value
  before the update (the prequential score the calibration window records) and updates the
  learner with the very code its chunk loop runs, so a row learnt here gives the same bits as
  ``partial_fit`` of that row.

A row the compiled step refuses (non-finite value, too large a norm) changes nothing and is
handed to the general path, which raises its usual error. :class:`RowState` is a cache kept
beside the model (not saved, not pickled, rebuilt when the model's classes, learners or
vocabulary object change). ``ENABLED = False`` switches the path off (benchmarks compare).
"""

from __future__ import annotations

import weakref

import numpy as np
from numba import njit

__all__ = ["ENABLED", "DictReader", "RowState", "forget", "gather_row", "state_of"]

#: False: every example takes the general path (for comparisons)
ENABLED = True

#: refusals of the compiled steps (nothing changed; the general path raises the error)
NOT_FINITE = -1
TOO_LARGE = -2

_STATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@njit(cache=True)
def gather_row(cols, vals, bound, idx, val):
    """Check one example and write its non-zero entries, columns ascending, into the scratch
    ``idx``/``val`` (the one-row CSR matrix of the general path: unknown keys, column -1, and
    zero values dropped). Returns the number of entries, or :data:`NOT_FINITE` /
    :data:`TOO_LARGE` (squared norm above ``bound``) without writing anything that counts."""
    sq = 0.0
    for p in range(vals.shape[0]):
        v = vals[p]
        if not np.isfinite(v):
            return NOT_FINITE
        sq += v * v
    if not sq <= bound:
        return TOO_LARGE
    n = 0
    for p in range(cols.shape[0]):
        c = cols[p]
        v = vals[p]
        if c < 0 or v == 0.0:
            continue
        q = n
        while q > 0 and idx[q - 1] > c:
            idx[q] = idx[q - 1]
            val[q] = val[q - 1]
            q -= 1
        idx[q] = c
        val[q] = v
        n += 1
    return n


class DictReader:
    """Reads dict examples as ``(columns, values)`` arrays through a vocabulary's key ->
    column map, remembering the last schema (tuple of keys) and its columns; owns the scratch
    arrays of the compiled steps (grown to the longest example)."""

    def __init__(self, vocabulary):
        self.vocabulary = vocabulary
        self.keys: tuple | None = None
        self.cols = np.zeros(0, dtype=np.int64)
        self.idx = np.zeros(64, dtype=np.int32)
        self.val = np.zeros(64)
        self.indptr = np.zeros(2, dtype=np.int32)
        self.y = np.zeros(1)
        self.margins = np.zeros(1)

    def read(self, x, *, learn: bool):
        """``(cols, vals)`` of dict ``x`` (cols -1 for keys the vocabulary lacks), or None
        when the general path must take it: with ``learn``, a key not in the vocabulary; a
        key that cannot be looked up; a value that is not a number."""
        keys = tuple(x)
        if keys == self.keys:
            cols = self.cols
        else:
            column = self.vocabulary._column
            try:
                if learn:
                    cols = np.array([column[k] for k in keys], dtype=np.int64)
                else:
                    cols = np.array([column.get(k, -1) for k in keys], dtype=np.int64)
            except (KeyError, TypeError):
                return None
            if learn or not (cols < 0).any():  # only schemas of known keys are kept
                self.keys, self.cols = keys, cols
            if len(keys) > self.idx.shape[0]:
                self.idx = np.zeros(2 * len(keys), dtype=np.int32)
                self.val = np.zeros(2 * len(keys))
        try:
            vals = np.fromiter(x.values(), np.float64, len(keys))
        except (TypeError, ValueError):
            return None
        return cols, vals


class RowState:
    """What the per-row path caches about one model: its reader, the ±1 targets of each
    label seen (per learner), its labels as Python objects, and its row-norm bound; valid
    while the model's classes, signs, learners and vocabulary are the same objects."""

    def __init__(self, model, bound: float):
        self.classes = model.classes_
        self.signs = model._signs
        self.learners = model.learners_
        self.vocabulary = model._vocabulary
        self.reader = DictReader(self.vocabulary)
        # a hair below the model's bound: sums in another order never pass a row it refuses
        self.bound = float(bound) * (1.0 - 1e-9)
        self.targets: dict = {}
        self.labels = [c.item() if isinstance(c, np.generic) else c for c in model.classes_]

    def current(self, model) -> bool:
        d = model.__dict__
        return (d.get("classes_") is self.classes and d.get("_signs") is self.signs
                and d.get("learners_") is self.learners
                and d.get("_vocabulary") is self.vocabulary)


def state_of(model):
    """The model's :class:`RowState` (None if none yet)."""
    return _STATES.get(model)


def remember(model, state) -> None:
    _STATES[model] = state


def forget(model) -> None:
    """Drop the model's cached state (its parameters changed)."""
    _STATES.pop(model, None)
