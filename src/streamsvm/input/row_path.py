"""The per-row path of the dict interface: River's ``predict_one`` / ``learn_one`` at what
their maths costs.

The general path reads a dict through the vocabulary into a one-row CSR matrix and runs
``partial_fit`` (scikit-learn's checks, label sets, the calibration bookkeeping) for every
row. Here, for a running model whose learners have a compiled per-row step, one example costs:

* its keys looked up once per *schema*: the tuple of a dict's keys is compared with the last
  one read (one C-level comparison; River's dense streams repeat one schema), and a new
  schema's columns are one ``bytes`` join of each key's column packed as int64 (kept per key
  as it is met; sparse streams, whose every row has its own key set, pay one dict look-up per
  key); a key the vocabulary does not hold is added by ``learn_one`` here, which widens the
  model as the general path would (:meth:`RowState._learn_new_keys`);
* its values packed as doubles into one ``bytes`` (:data:`PACKERS`; numbers, anything else goes
  to the general path, which refuses it with its message);
* one compiled call per binary learner (:func:`gather_row` inside it: finiteness, the row's
  squared norm against the model's bound, zeros dropped and columns sorted into preallocated
  scratch, as the CSR row of the general path holds them), which returns the decision value
  before the update (the prequential score the calibration window records) and updates the
  learner with the very code its chunk loop runs, so a row learnt here gives the same bits as
  ``partial_fit`` of that row. The steps are called through their compiled entry points
  (:class:`DirectSteps`), without numba's type dispatch; the linear learners' steps on a
  schema of known keys take the state's scratch, the schema's columns and the learner's
  weights as one address (:func:`block_at`: an integer argument costs a compiled call about
  30 ns, an array 150);
* the calibration's bookkeeping as one tuple added to its calibrator's (flat) list
  (:meth:`~streamsvm.base.calibration.PlattCalibrator.record_learnt_row`, inline for a
  two-class model's row ``predict_one`` just read), taken in (counted, the score written
  into the window, the last kept rows queued as packed bytes) only when the calibrator is
  read: probabilities asked, the model saved, and every ``COLLAPSE_MASK + 1`` rows, where
  the collapse guard reads the window.

A row the compiled step refuses (non-finite value, too large a norm) changes nothing and is
handed to the general path, which raises its usual error. :class:`RowState` is the model's
cache of all this (transient: not saved, not pickled; dropped whenever the general path
learns). ``ENABLED = False`` switches the path off (benchmarks and tests compare).
"""

from __future__ import annotations

import struct

import numpy as np
from numba import carray, njit, types
from numba.extending import intrinsic

from .vocabulary import feature_value, is_dict_example
from .widen import Undo

__all__ = ["ENABLED", "MISS", "DirectSteps", "RowState", "gather_row", "plain_float_arrays"]

#: False: every example takes the general path (for comparisons)
ENABLED = True

#: refusals of the compiled steps (nothing changed; the general path raises the error)
NOT_FINITE = -1
TOO_LARGE = -2


@njit(cache=True)
def gather_row(cols, vals, bound, idx, val):
    """Check one example and write its non-zero entries, columns ascending, into the scratch
    ``idx``/``val`` (the one-row CSR matrix of the general path: unknown keys, column -1, and
    zero values dropped). Returns the number of entries, or :data:`NOT_FINITE` /
    :data:`TOO_LARGE` (squared norm above ``bound``) without writing anything that counts."""
    sq = 0.0
    for p in range(len(vals)):
        v = vals[p]
        if not np.isfinite(v):
            return NOT_FINITE
        sq += v * v
    if not sq <= bound:
        return TOO_LARGE
    n = 0
    for p in range(len(cols)):
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


#: scratch entries before a row's own: ``iscratch`` (int32) holds the row's indptr (2),
#: ``fscratch`` (float64) the label, a margin, the model's row-norm bound and the plain dot
#: product ``x·w`` of the last linear decision (4)
I_HEAD, F_HEAD = 2, 4
F_BOUND, F_DOT = 2, 3

#: the per-row path runs the collapse guard every ``COLLAPSE_MASK + 1`` rows (the chunk path at
#: every chunk): its check reads the calibration window, which writes out the rows listed
#: since the last write (every 256 rows otherwise); at every 256th row it cost 0.33 us a row
#: on Phishing, and writing the list early as much again
COLLAPSE_MASK = 2047

#: what :meth:`RowState.predict` returns when the general path must answer
MISS = object()

#: a column as the compiled steps read it (native int64), and a key the vocabulary lacks
COLUMN = struct.Struct("=q")
UNKNOWN_COLUMN = COLUMN.pack(-1)

#: ``n`` -> the packing of ``n`` numbers as native doubles (one ``bytes``: what the compiled
#: steps read, cheaper to make and to pass than an array)
PACKERS: dict = {}


def values_packer(n: int):
    """The ``pack`` of ``n`` doubles (kept in :data:`PACKERS`)."""
    pack = PACKERS[n] = struct.Struct(f"={n}d").pack
    return pack


@njit(cache=True)
def gathered_row(cols, vals, iscratch, fscratch, reuse):
    """The example's entry count: gathered now into the scratch (:func:`gather_row`, after
    the head; < 0: refused), or, with ``reuse``, the one gathered by the call before
    (``iscratch[1]``: the scratch holds the row as a one-row CSR matrix, indptr first)."""
    if reuse:
        return iscratch[1]
    n = gather_row(np.frombuffer(cols, np.int64), np.frombuffer(vals, np.float64),
                   fscratch[F_BOUND], iscratch[I_HEAD:], fscratch[F_HEAD:])
    iscratch[0] = 0
    iscratch[1] = max(n, 0)
    return n


def _pointer_to(item):
    """A compiled cast of a memory address (an int) to a pointer to ``item``s."""
    @intrinsic
    def pointer(typingctx, address):
        signature = types.CPointer(item)(types.intp)

        def codegen(context, builder, sig, args):
            return builder.inttoptr(args[0], context.get_value_type(sig.return_type))

        return signature, codegen

    return pointer


_int32_pointer = _pointer_to(types.int32)
_int64_pointer = _pointer_to(types.int64)
_float_pointer = _pointer_to(types.float64)


#: the header of a state's block (int64 entries, :meth:`RowState._scratch`): the capacity,
#: the learner's weight array (address, length), its bias weight's entry (-1: none), two
#: flags and a float parameter of the learner, then the averaged learners' sums (an array
#: of the weights' length) and column factors (address, length; 0 entries: none)
#: (:meth:`RowState._point_at`)
H_CAPACITY, H_WEIGHTS, H_WIDTH, H_BIAS, H_FLAG, H_FLAG2, H_PARAM = range(7)
H_SUMS, H_FACTORS, H_NFACTORS = range(7, 10)
HEAD = 10


@njit(cache=True)
def block_at(address):
    """``(head, iscratch, fscratch, columns, weights)`` of the block at ``address``: views
    without copy or ownership of the arrays a :class:`RowState` holds, laid out by
    :meth:`RowState._scratch`. The steps are given this one integer rather than the arrays
    themselves: a compiled call's argument costs about 30 ns as an integer, 150 ns as an
    array."""
    head = carray(_int64_pointer(address), HEAD)
    capacity = head[H_CAPACITY]
    at = address + 8 * HEAD
    iscratch = carray(_int32_pointer(at), I_HEAD + capacity)
    at += 8 * ((I_HEAD + capacity + 1) // 2)
    fscratch = carray(_float_pointer(at), F_HEAD + capacity)
    at += 8 * (F_HEAD + capacity)
    columns = carray(_int64_pointer(at), capacity)
    weights = carray(_float_pointer(head[H_WEIGHTS]), head[H_WIDTH])
    return head, iscratch, fscratch, columns, weights


@njit(cache=True)
def block_sums(head):
    """``(sums, factors)`` of a block's header (:data:`H_SUMS`): the averaged learner's sums,
    of the weights' length, and its column factors (empty: none), views as :func:`block_at`'s."""
    sums = carray(_float_pointer(head[H_SUMS]), head[H_WIDTH])
    factors = carray(_float_pointer(head[H_FACTORS]), head[H_NFACTORS])
    return sums, factors


@njit(cache=True)
def block_parameter(address):
    """The learner's float parameter in the block's header (``H_PARAM``)."""
    return carray(_float_pointer(address), HEAD)[H_PARAM]


@njit(cache=True)
def gathered_at(vals, n, iscratch, fscratch, columns):
    """:func:`gathered_row` of the example of ``n`` values ``vals`` (bytes of doubles) on the
    schema's columns (the block's ``columns``); the entry count (< 0: refused)."""
    m = gather_row(columns[:n], np.frombuffer(vals, np.float64), fscratch[F_BOUND],
                   iscratch[I_HEAD:], fscratch[F_HEAD:])
    iscratch[0] = 0
    iscratch[1] = max(m, 0)
    return m


@njit(cache=True)
def linear_decision_at(vals, n, address, factor, bias):
    """``x·(factor w) + bias`` of the example of ``n`` values ``vals`` on the schema's
    columns, with the weights ``w`` the block's header names (its bias weight, where it
    names one, makes the bias ``factor * w[bias]``), summed as SciPy's CSR product with the
    dense ``factor * w`` (the linear learners' ``decision_function``); NaN when the example
    is refused (:func:`gather_row`). The gathered row stays in the scratch, and the plain
    ``x·w`` (plus the bias weight) in ``fscratch[F_DOT]``."""
    head, iscratch, fscratch, columns, w = block_at(address)
    m = gathered_at(vals, n, iscratch, fscratch, columns)
    if m < 0:
        return np.nan
    at = head[H_BIAS]
    if at >= 0:
        bias = factor * w[at]
    idx, val = iscratch[I_HEAD:], fscratch[F_HEAD:]
    dot = 0.0
    total = 0.0
    for p in range(m):
        dot += val[p] * w[idx[p]]
        total += val[p] * (factor * w[idx[p]])
    fscratch[F_DOT] = dot + w[at] if at >= 0 else dot
    return total + bias


class DirectSteps:
    """The compiled per-row steps ``dispatchers`` as attributes (by name), called through
    their compiled entry points: the first call of each goes through numba's dispatcher
    (which compiles, or loads from numba's cache, for the arguments' types); later calls go
    straight to the machine code it chose, skipping the dispatch (about 0.4 us of a 5 us
    row). An entry point converts its arguments to the types of that first call and does
    not check array dtypes or layouts, so each step must always be given arguments of the
    same kinds: the per-row path passes bytes, its own scratch arrays and the learner's
    arrays, which ``row_ready`` checks to be :func:`plain_float_arrays`."""

    def __init__(self, *dispatchers):
        self._dispatchers = {dispatcher.__name__: dispatcher for dispatcher in dispatchers}

    def __getattr__(self, name):  # only until the first call of ``name`` has returned
        try:
            dispatcher = self.__dict__["_dispatchers"][name]
        except KeyError:
            raise AttributeError(name) from None

        def first_call(*args):
            result = dispatcher(*args)
            chosen = dispatcher.overloads[tuple(map(dispatcher.typeof_pyval, args))]
            setattr(self, name, chosen.entry_point)
            return result

        return first_call


def plain_float_arrays(*arrays) -> bool:
    """Whether each array is 1-D float64, C-contiguous and writeable: what the learners'
    arrays must be for their :class:`DirectSteps` (a model read from a damaged file may
    hold something else, and then takes the general path, which checks)."""
    return all(isinstance(a, np.ndarray) and a.dtype == np.float64 and a.ndim == 1
               and a.flags.c_contiguous and a.flags.writeable for a in arrays)


def _scalar(value):
    """A NumPy scalar as its Python scalar (other values as they are)."""
    return value.item() if isinstance(value, np.generic) else value


#: the step above as the per-row path calls it (skipping numba's dispatch)
steps = DirectSteps(linear_decision_at)


class RowState:
    """What the per-row path keeps about one running model (module doc): its learners and
    signs, each label seen with its ±1 target per learner and its position in
    ``classes_``, its labels as Python objects, its row-norm bound, the last schema read
    (tuple of keys) and its columns, and the scratch arrays of the compiled steps. Kept as
    the model's ``_row_state`` (transient: never saved or pickled) and dropped whenever the
    general path learns or the parameters change, so it never outlives the model state it
    describes."""

    def __init__(self, model, bound: float, threads: int = 1):
        self.model = model
        self.learners = model.learners_
        self.learner = model.learners_[0] if len(model.learners_) == 1 else None
        self.binary = self.learner is not None and len(model.classes_) == 2
        # the one learner's steps and calibrator, called directly by predict and learn
        self.decide = self.learner.decision_row if self.binary else None
        # a linear learner's kind (``row_kind``: its step on the block, with its weights,
        # factor and bias read here): "pegasos", "linear", "averaged" (the learner's own
        # ``decision_at`` on the block), or None (``decide``)
        kind = getattr(self.learner, "row_kind", None) if self.binary else None
        self.pegasos, self.linear = kind == "pegasos", kind is not None
        self.decide_at = self.learner.decision_at if kind == "averaged" else None
        self.learn_row = self.learner.learn_row if self.binary else None
        # the one learner's calibrator and its list of learnt rows, appended to directly
        # (the rows' width is the kept rows': any change of width takes the list in first)
        self.calibrator = self.learner.calibration if self.binary else None
        self.listed = self.calibrator.learnt.extend if self.binary else None
        self.signs = model._signs
        self.sign = model._signs[0]
        self.column = model._vocabulary._column
        self.known: dict = {}  # label -> (its ±1 target per learner, position in classes_)
        counts = model.__dict__.get("class_counts_")
        # a model without running class counts (a file saved before them) starts them on
        # the general path first
        self.counts = (counts if isinstance(counts, np.ndarray)
                       and counts.shape == model.classes_.shape else None)
        # the counts' memory as a memoryview: one increment costs a third of NumPy's
        self.tally = None if self.counts is None else memoryview(self.counts)
        self.labels = [_scalar(c) for c in model.classes_]
        self.keys: tuple | None = None
        self.cols = b""
        self.weights = None  # the weight array the block's header names (_point_at)
        self.sums = self.factors = None  # and an averaged learner's sums and factors
        self.pack = None  # the values packer of the schema ``keys``
        # key -> its column as a native int64 (8 bytes), for the keys met so far: a row's
        # columns are one join of these (the vocabulary never renumbers a key while this
        # state lives: any change to it drops the state)
        self.packed_columns: dict = {}
        # a hair below the model's bound: sums in another order never pass a row it refuses
        self.bound = float(bound) * (1.0 - 1e-9)
        self._scratch(64)
        # (x, its packed values, its score) of the example predict_one just scored, whose
        # row the scratch still holds: learn_one of the same unchanged dict reuses it
        # (River's loop: predict_one, then learn_one)
        self.last = None
        self.ws = None  # a dense scatter row of the model's width, for learners that need one
        # numba's thread count of the model's n_jobs (:class:`~streamsvm.utils.threads.
        # compiled_threads`; set_params drops this state): learners whose compiled step has
        # parallel paths run it at this count, as partial_fit does (``learn_row``)
        self.threads = threads

    def _scratch(self, n: int) -> None:
        """Room for rows of ``n`` entries: one int64 block holding a header, the scratch of
        the compiled steps (``iscratch``, ``fscratch``: views of it) and the schema's
        columns (:func:`block_at`), whose address the steps that take one are given."""
        i_words = (I_HEAD + n + 1) // 2
        block = np.zeros(HEAD + i_words + 2 * n + F_HEAD, dtype=np.int64)
        self.capacity, self.block = n, block
        self.head = block[:HEAD]
        self.head[H_CAPACITY] = n
        self.iscratch = block[HEAD:HEAD + i_words].view(np.int32)[:I_HEAD + n]
        at = HEAD + i_words
        self.fscratch = block[at:at + F_HEAD + n].view(np.float64)
        self.fscratch[F_BOUND] = self.bound
        # the float scratch as a memoryview: one entry read in Python costs half of NumPy's
        # ``item`` (the learners read the margin ``F_DOT`` of the decision just made)
        self.fview = memoryview(self.fscratch)
        self.schema_bytes = memoryview(block[at + F_HEAD + n:]).cast("B")
        self.schema_bytes[:len(self.cols)] = self.cols
        self.address = block.ctypes.data
        self.weights = self.sums = self.factors = None  # the header's: at the next step

    def _set_schema(self, keys: tuple, cols: bytes, pack) -> None:
        """Make ``keys`` (every one known, columns ``cols``) the schema of the rows read next."""
        if len(keys) > self.capacity:
            self._scratch(2 * len(keys))
        self.keys, self.cols, self.pack = keys, cols, pack
        self.schema_bytes[:len(cols)] = cols

    def _point_at(self, w, sums=None, factors=None) -> bool:
        """Write the learner's weight array ``w`` and its ``row_header`` into the block's
        header, with an averaged learner's ``sums`` (of ``w``'s length) and column
        ``factors`` (None: none); the arrays are then held here (``weights``, ``sums``,
        ``factors``), so no other array takes their place while the header names them.
        False where one is not an array the compiled steps take (:func:`plain_float_arrays`)."""
        arrays = [a for a in (w, sums, factors) if a is not None]
        if not plain_float_arrays(*arrays) or (sums is not None
                                               and sums.shape != w.shape):
            return False
        bias, flag, flag2, parameter = self.learner.row_header()
        self.weights, self.sums, self.factors = w, sums, factors
        head = self.head
        head[H_WEIGHTS:H_PARAM] = (w.ctypes.data, w.shape[0], bias, flag, flag2)
        head[H_PARAM:H_PARAM + 1].view(np.float64)[0] = parameter
        head[H_SUMS] = self.address if sums is None else sums.ctypes.data
        head[H_FACTORS:H_NFACTORS + 1] = ((self.address, 0) if factors is None
                                          else (factors.ctypes.data, factors.shape[0]))
        return True

    def _columns(self, keys: tuple, learn: bool):
        """The columns of a new schema packed as int64 (-1 for keys the vocabulary lacks),
        or None when the general path must read it (with ``learn``, a key not in the
        vocabulary; a key that cannot be looked up). Schemas of known keys are kept."""
        try:
            cols = b"".join(map(self.packed_columns.__getitem__, keys))
        except KeyError:
            cols = self._look_up(keys, learn)
            if cols is None:
                return None
        except TypeError:
            return None
        if cols.__class__ is bytes:  # every key known
            self._set_schema(keys, cols, PACKERS.get(len(keys)) or values_packer(len(keys)))
        else:
            cols = bytes(cols)
            if len(keys) > self.capacity:
                self._scratch(2 * len(keys))
        return cols

    def _look_up(self, keys: tuple, learn: bool):
        """:meth:`_columns` of keys some of which are not in :attr:`packed_columns` yet: each
        looked up in the vocabulary (and kept); the packed columns as ``bytes`` when every
        key is known, as a ``bytearray`` when some are not (-1), None (with ``learn``, or a
        key that cannot be looked up) when the general path must read them."""
        column, packed = self.column, self.packed_columns
        out, known = [], True
        try:
            for key in keys:
                code = packed.get(key)
                if code is None:
                    j = column.get(key)
                    if j is None:
                        if learn:
                            return None
                        code, known = UNKNOWN_COLUMN, False
                    else:
                        code = packed[key] = COLUMN.pack(j)
                out.append(code)
        except TypeError:
            return None
        return b"".join(out) if known else bytearray(b"".join(out))

    def read(self, x, learn: bool):
        """``(cols, packed)`` of dict ``x`` (its columns and its values packed as doubles),
        or None when the general path must take it (not a dict, see :meth:`_columns`, or a
        value that is not a number)."""
        self.last = None
        if x.__class__ is not dict and not is_dict_example(x):
            return None
        keys = tuple(x)
        cols = self.cols if keys == self.keys else self._columns(keys, learn)
        if cols is None:
            return None
        try:
            return cols, (PACKERS.get(len(keys)) or values_packer(len(keys)))(*x.values())
        except Exception:  # noqa: BLE001 (not a number: the general path says which)
            return None

    def learn(self, x, y) -> bool:
        """Learn one example as ``partial_fit`` of its row would (the calibration window
        records each learner's score before the update); False: nothing changed, the
        general path takes it."""
        try:
            targets, position = self.known[y]
        except KeyError:
            found = self._label(y)
            if found is None:
                return self._learn_second_class(x, y)
            targets, position = found
        except TypeError:  # an unhashable label
            return False
        last = self.last
        if last is not None and last[0] is x:  # the row predict_one just scored
            self.last = None
            try:
                same = x == last[3]  # its copy then: unchanged since
            except Exception:  # noqa: BLE001 (changed to something that cannot compare)
                same = False
            if same:  # the learner's step on the scratch predict_one gathered
                target, score, cols, packed = targets[0], last[2], self.cols, last[1]
                self.learn_row(cols, packed, target, self, score)
                self.listed((score, target, cols, packed))  # record_learnt_row, inline
                self.tally[position] += 1.0  # _learned, inline
                model = self.model
                model.n_seen_ += 1
                if not model.n_seen_ & COLLAPSE_MASK:
                    self.calibrator._write_learnt()  # the list stays short
                    model._check_collapse()
                return True
        row = self.read(x, True)
        if row is None:
            return self._learn_new_keys(x, targets, position)
        return self._learn_read(row, targets, position)

    def _label(self, y):
        """``(targets, position)`` of a label not seen by this state yet (kept), or None:
        not a label of the model (the general path adds or refuses it), or no class
        counts to keep."""
        if self.counts is None:
            return None
        model = self.model
        position = next((k for k, label in enumerate(self.labels)
                         if label.__class__ is y.__class__ and label == y), None)
        if position is not None:
            # a label of classes_ as it is (its Python scalar): the targets as _learn
            # computes them, without the checks of a label not known to be one
            targets = tuple(sign if y == _scalar(target) else -sign for target, sign
                            in zip(model._targets, model._signs, strict=True))
        elif all(label.__class__ is y.__class__ for label in self.labels):
            return None  # a new label of the same type: not one of classes_
        else:
            targets = model._row_targets(y)
            if targets is None:
                return None
            position = self.labels.index(y)
        found = self.known[y] = (targets, position)
        return found

    def _learn_second_class(self, x, y) -> bool:
        """Learn the first example of a one-class model's second label, as the general path
        would: the row read and checked first (new keys and refused rows are left to the
        general path), then the model's classes grown (``_row_second_class``), then the
        row learnt by the row path of the two-class model."""
        if len(self.labels) != 1:
            return False
        row = self.read(x, True)
        if row is None or self.learner.decision_row(row[0], row[1], self) is None:
            return False
        model = self.model
        if not model._row_second_class(y):
            return False
        model._forget_row_state()
        state = model._new_row_state()
        return state is not None and state.learn(x, y)

    def _learn_new_keys(self, x, targets, position) -> bool:
        """Learn a dict holding keys the vocabulary lacks as the general path would: its
        values checked first, the new keys added to the vocabulary, the model widened (new
        features 0 in everything learnt), then the row learnt here. A row refused after the
        widening undoes it (the general path then raises its error); a full vocabulary, or
        anything but a dict of numbers, is left to the general path."""
        if x.__class__ is not dict and not is_dict_example(x):
            return False
        model = self.model
        vocabulary = model._vocabulary
        try:
            for key, value in x.items():
                feature_value(key, value)
            new = vocabulary.new_keys(x)
        except (TypeError, ValueError):
            return False
        n_keys = len(vocabulary)
        if not new or len(new) > vocabulary.cap - n_keys:
            return False
        undo, learnt = Undo(), False
        vocabulary.learn(x)
        try:
            if len(vocabulary) > model.n_features_in_:
                model._widen(len(vocabulary), undo)  # drops the model's _row_state: this one
            self.ws = None  # a scatter row of the old width
            row = self.read(x, True)
            learnt = row is not None and self._learn_read(row, targets, position)
        finally:
            if learnt:
                model.__dict__["_row_state"] = self  # still true of the widened model
            else:
                undo()
                vocabulary.forget_after(n_keys)
                model._forget_row_state()  # it may hold the columns just forgotten
        return learnt

    def _learn_read(self, row, targets, position) -> bool:
        """Learn the example ``row`` (:meth:`read`) with ``targets``; False: refused."""
        cols, packed = row
        for k, learner in enumerate(self.learners):
            target = targets[k]
            score = learner.learn_row(cols, packed, target, self)
            if score is None:
                if k:  # every learner checks the same row the same way
                    raise RuntimeError("a learner refused a row another one learnt")
                return False
            learner.calibration.record_learnt_row(score, target, cols, packed,
                                                  learner.n_features)
        self._learned(position)
        return True

    def _learned(self, position: int) -> None:
        """After a row is learnt: the row and label counts (``n_seen_``, ``class_counts_``),
        and every :data:`COLLAPSE_MASK` + 1 rows the collapse guard (the general path checks it
        per chunk)."""
        self.tally[position] += 1.0
        model = self.model
        model.n_seen_ += 1
        if not model.n_seen_ & COLLAPSE_MASK:
            for learner in self.learners:
                learner.calibration._write_learnt()  # the lists stay short
            model._check_collapse()

    def scores(self, x):
        """The signed decision values of one example (one per learner), or None."""
        row = self.read(x, False)
        if row is None:
            return None
        out = []
        for learner, sign in zip(self.learners, self.signs, strict=True):
            score = learner.decision_row(row[0], row[1], self)
            if score is None:
                return None
            out.append(sign * score)
        return out

    def predict(self, x):
        """The label ``predict`` gives one example, or :data:`MISS`."""
        if self.binary and x.__class__ is dict:  # the common case, River's loop
            self.last = None
            keys = tuple(x)
            if keys == self.keys:
                cols, pack = self.cols, self.pack
            else:  # _columns, inline where every key is known (sparse streams: every row)
                n = len(keys)
                pack = PACKERS.get(n) or values_packer(n)
                try:
                    cols = b"".join(map(self.packed_columns.__getitem__, keys))
                except (KeyError, TypeError):
                    cols = None
                if cols is not None:
                    self._set_schema(keys, cols, pack)
                else:
                    cols = self._columns(keys, False)
                    if cols is None:
                        return MISS
            try:
                packed = pack(*x.values())
            except Exception:  # noqa: BLE001 (not a number: the general path says which)
                return MISS
            if cols is not self.cols or not self.linear:
                score = self.decide(cols, packed, self)
                if score is None:
                    return MISS
                if cols is self.cols:  # a schema of known keys: learn_one may reuse the row
                    self.last = (x, packed, score, x.copy())
                return self.labels[1 if self.sign * score > 0 else 0]
            # the schema's columns, in the block
            decide_at = self.decide_at
            if decide_at is not None:  # the averaged models' (their arrays' check)
                score = decide_at(packed, len(keys), self)
            else:
                learner = self.learner
                if self.pegasos:  # w = scale v, its bias scale * v[-1] (the header's)
                    w, factor, bias = learner.v, learner.scale, 0.0
                else:
                    w, factor, bias = learner.coef, 1.0, learner.intercept
                if w is not self.weights and not self._point_at(w):
                    return MISS
                score = steps.linear_decision_at(packed, len(keys), self.address, factor,
                                                  bias)
            if score != score:
                return MISS
            self.last = (x, packed, score, x.copy())  # learn_one may reuse the row
            return self.labels[1 if self.sign * score > 0 else 0]
        scores = self.scores(x)
        if scores is None:
            return MISS
        if len(scores) > 1:  # np.argmax: the first largest
            return self.labels[scores.index(max(scores))]
        if len(self.labels) == 1:
            return self.labels[0]
        return self.labels[1 if scores[0] > 0 else 0]
