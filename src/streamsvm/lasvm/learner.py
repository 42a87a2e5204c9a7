"""The binary learner shared by LASVM and LASVM-G / -NC / -I / FULL SVM.

It owns a *store* of addressable examples (the current expansion S and the examples of the
chunk being learnt), the expansion's coefficients and gradients by position, the LRU kernel
cache (``KernelCache``, rows keyed by store index, support vectors pinned), and calls the
jitted loops once per chunk (again only when S outgrows its capacity, which doubles): LASVM's
in :mod:`streamsvm.lasvm._lasvm_core`, LASVM-G's in :mod:`streamsvm.lasvm._gap_core`, both
over the expansion of :mod:`streamsvm.lasvm._expansion_core` (which describes the state layout).

``fit`` points the store at the training set itself (no copy), runs the epochs and the
finishing step, then keeps only the rows of S. ``partial_fit`` appends the chunk to the
store and compacts it (only S is kept) when the dropped rows outnumber S.

Internal API, for algorithms built on LASVM (e.g. active learning)::

    ids = learner.add_examples(X, y)        # store rows (labels may be set later)
    learner.set_labels(ids, y)              # labels of stored rows (e.g. from an oracle)
    learner.decision_stored(ids)            # y(x) of stored rows through the kernel cache
    learner.process_examples(ids)           # one online iteration per id, in that order
    learner.finish()                        # LASVM finishing step
    learner.n_support, learner.n_expansion, learner.decision_function(X)
    learner.release_unused()                # forget stored rows outside S
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

from ..base import BinaryLearner
from ..input.row_path import F_HEAD, I_HEAD
from ..kernels import KernelCache
from ..kernels._core import self_kernels, sqnorms_csr, sqnorms_dense
from ..kernels.cache import cache_remap_ids
from ..utils.threads import _swap_threads
from . import _beside_core, _decision_core, _finish_core, _gap_core, _lasvm_core, _panel_core
from . import _expansion_core as _expansion
from . import _parallel_core as _parallel
from ._row_core import lasvm_decision_row, store_row_csr

_INITIAL_CAPACITY = 64
_DECISION_BLOCK = 2048
_WIDE = 2048  #: S's capacity from which it grows by a quarter, not double
_NO_LIMIT = np.iinfo(np.int64).max


class _Learner(BinaryLearner):
    """LASVM (``algorithm="lasvm"``) or the LASVM-G family (``"g"``, ``"nc"``, ``"i"``,
    ``"full"``) for one two-class problem; see the estimators for the parameters.

    Saved files and pickles leave out the kernel cache, the log of past layouts of S (read
    only to bring cached rows up to date) and the scratch rows; the cache is rebuilt on the
    next call, with the same kernel values (computed by the same code), so resuming is
    bit-exact. The store and the arrays of S are saved without their spare capacity."""

    _transient = ("cache", "layout_log", "scratch", "panel", "regions_beside")
    #: ``finish`` forgets the stored rows outside S (active learning keeps its pool)
    _release_after_finish = True
    _spare_capacity = ("Xd", "indptr", "indices", "data", "sq", "kd", "ys", "pos_of", "row_gen",
                       "stream_pos", "perm", "alpha", "g", "lo", "hi")

    def __init__(self, n_features, rng, *, algorithm, C, jit_kernel, tau, cache_size, epochs,
                 shuffle, selection=_lasvm_core.RANDOM, n_candidates=50, n_seed=5, delta_max=0.0,
                 finishing=True, second_order=True, shrink_every=1000, s=-1.0,
                 clean_every=300, max_non_sv=300):
        super().__init__(n_features, rng)
        self.algorithm = algorithm
        self.variant = {"g": _gap_core.VARIANT_G, "nc": _gap_core.VARIANT_NC,
                        "i": _gap_core.VARIANT_I,
                        "full": _gap_core.VARIANT_FULL}.get(algorithm, -1)
        self.C = float(C)
        self.Cp = float(C)
        self.Cn = float(C)
        self.code, self.gamma, self.degree, self.coef0 = jit_kernel
        self.tau = float(tau)
        self.cache_size = float(cache_size)
        self.epochs = int(epochs)
        self.shuffle = bool(shuffle)
        self.selection = int(selection)
        self.n_candidates = int(n_candidates)
        self.n_seed = int(n_seed)
        self.delta_max = float(delta_max)
        self.finishing = bool(finishing)
        self.shrink_every = int(shrink_every)
        self.second_order = bool(second_order)
        self.s = float(s)
        self.clean_every = int(clean_every)
        self.max_non_sv = int(max_non_sv)
        self.sparse = None  # fixed by the first data
        self.n_store = 0
        self.Xd = np.zeros((0, n_features))
        self.indptr = np.zeros(1, dtype=np.int64)
        self.indices = np.zeros(0, dtype=np.int32)
        self.data = np.zeros(0)
        self.sq = np.zeros(0)
        self.kd = np.zeros(0)
        self.ys = np.zeros(0)
        self.pos_of = np.zeros(0, dtype=np.int64)
        self.row_gen = np.zeros(0, dtype=np.int64)
        self.stream_pos = np.zeros(0, dtype=np.int64)  # stream position of each stored row
        self.stream_offset = 0  # rows of the stream before this learner's first
        self.perm = np.zeros(_INITIAL_CAPACITY, dtype=np.int64)
        self.alpha = np.zeros(_INITIAL_CAPACITY)
        self.g = np.zeros(_INITIAL_CAPACITY)
        self.lo = np.zeros(_INITIAL_CAPACITY)
        self.hi = np.zeros(_INITIAL_CAPACITY)
        self.layout_log = np.zeros((_expansion.N_GENERATIONS, _INITIAL_CAPACITY), dtype=np.int32)
        self.layout_meta = np.zeros(1 + 2 * _expansion.N_GENERATIONS, dtype=np.int64)
        self.scratch = np.zeros((3, _INITIAL_CAPACITY))
        self.ws = np.zeros(n_features)
        self.cnt = np.zeros(_expansion.N_COUNTERS, dtype=np.int64)
        self.st = np.zeros(_expansion.N_FLOATS)
        self.rng_state = np.array([rng.integers(0, 2**63 - 1)], dtype=np.uint64)
        self.cache = None
        self.cache_totals = np.zeros(3, dtype=np.int64)  # hits, partial hits, misses released
        self.panel = None  # S's dense rows by position (_panel_core), built on first use
        self.regions_beside = 0  # online regions with the next rows beside the steps (_run)

    # ------------------------------------------------------------------ tuples for the jitted loops
    def _store(self):
        return (self.Xd, self.indptr, self.indices, self.data, self.sq, self.kd, self.ys,
                self.pos_of, self.row_gen)

    def _kern(self):
        return (bool(self.sparse), int(self.code), float(self.gamma), int(self.degree),
                float(self.coef0))

    def _svs(self):
        return (self.perm, self.alpha, self.g, self.lo, self.hi, self.layout_log,
                self.layout_meta, self._panel())

    def _panel(self):
        """The panel of S (:mod:`._panel_core`), rebuilt from the store when it is missing
        (a new or loaded learner, a changed store) or narrower than the capacity of S."""
        rows = _panel_core.panel_features(bool(self.sparse), self.n_features)
        capacity = self.perm.shape[0]
        if self.panel is None or self.panel.shape != (rows + 1 if rows else 0, capacity):
            self.panel = _panel_core.build_panel(rows, capacity, self.perm,
                                                 int(self.cnt[_expansion.N_COLS]), self.Xd,
                                                 self.sq)
        return self.panel

    def _work(self):
        return (self.ws, self.scratch[0], self.scratch[1], self.scratch[2])

    @staticmethod
    def _par():
        """The compiled loops' last argument: None on one thread (numba prunes ``par is not
        None`` branches before typing, so no ``prange`` function is built), else True."""
        return None if numba.get_num_threads() == 1 else True

    # ------------------------------------------------------------------ store
    def _as_kind(self, X):
        if self.sparse is None:
            self.sparse = bool(sp.issparse(X))
        if self.sparse and not sp.issparse(X):
            X = sp.csr_matrix(X)
        elif not self.sparse and sp.issparse(X):
            X = X.toarray()
        if self.sparse:
            X = sp.csr_matrix(X)
            if not X.has_sorted_indices:
                X = X.sorted_indices()
        return X

    def _norms(self, X):
        if self.sparse:
            sq = sqnorms_csr(X.indptr, X.data.astype(np.float64), np.empty(X.shape[0]))
        else:
            sq = sqnorms_dense(X, np.empty(X.shape[0]))
        kd = self_kernels(sq, self.code, self.gamma, self.degree, self.coef0,
                          np.empty(X.shape[0]))
        return sq, kd

    def _use_training_set(self, X, y):
        """Point the store at the training set (fit: no copy, unless it is read-only)."""
        X = self._as_kind(X)
        sq, kd = self._norms(X)
        if self.sparse:
            self.indptr = X.indptr.astype(np.int64)
            self.indices = _writable(np.ascontiguousarray(X.indices, dtype=np.int32))
            self.data = _writable(np.ascontiguousarray(X.data, dtype=np.float64))
        else:
            self.Xd = _writable(np.ascontiguousarray(X, dtype=np.float64))
        self.sq, self.kd = sq, kd
        self.ys = np.asarray(y, dtype=np.float64).copy()
        self.pos_of = np.full(X.shape[0], -1, dtype=np.int64)
        self.row_gen = np.zeros(X.shape[0], dtype=np.int64)
        self.stream_pos = self.stream_offset + self.n_seen + np.arange(X.shape[0], dtype=np.int64)
        self.n_store = X.shape[0]
        self.panel = None  # the rows of S may have changed with the store

    def add_examples(self, X, y=None) -> np.ndarray:
        """Append rows to the store (not yet learnt); returns their store ids. ``y`` (±1)
        may be given later with :meth:`set_labels`."""
        X = self._as_kind(X)
        m = X.shape[0]
        start = self.n_store
        need = start + m
        sq, kd = self._norms(X)
        if need > self.sq.shape[0]:
            capacity = max(need, 2 * self.sq.shape[0], _INITIAL_CAPACITY)
            self.sq = _grown(self.sq, capacity, start)
            self.kd = _grown(self.kd, capacity, start)
            self.ys = _grown(self.ys, capacity, start)
            self.pos_of = _grown(self.pos_of, capacity, start, fill=-1)
            self.row_gen = _grown(self.row_gen, capacity, start)
            self.stream_pos = _grown(self.stream_pos, capacity, start)
            if not self.sparse:
                self.Xd = _grown(self.Xd, capacity, start)
            else:
                self.indptr = _grown(self.indptr, capacity + 1, start + 1)
        if self.sparse:
            nnz0 = int(self.indptr[start])
            nnz = nnz0 + X.nnz
            if nnz > self.data.shape[0]:
                capacity = max(nnz, 2 * self.data.shape[0], 1024)
                self.data = _grown(self.data, capacity, nnz0)
                self.indices = _grown(self.indices, capacity, nnz0)
            self.data[nnz0:nnz] = X.data
            self.indices[nnz0:nnz] = X.indices
            self.indptr[start + 1 : need + 1] = nnz0 + X.indptr[1:]
        else:
            self.Xd[start:need] = X
        self.sq[start:need] = sq
        self.kd[start:need] = kd
        self.ys[start:need] = 0.0 if y is None else y
        self.pos_of[start:need] = -1
        self.row_gen[start:need] = self.layout_meta[0]
        self.stream_pos[start:need] = self.stream_offset + self.n_seen + np.arange(m)
        self.n_store = need
        return np.arange(start, need, dtype=np.int64)

    def set_labels(self, ids, y) -> None:
        """Labels (±1) of stored rows."""
        self.ys[np.asarray(ids, dtype=np.int64)] = y

    def _ensure_cache(self):
        capacity = self.perm.shape[0]
        n_ids = max(self.n_store, 1)
        try:
            if self.cache is None:
                self.cache = KernelCache(self.cache_size, n_columns=capacity, n_ids=n_ids)
            self.cache.grow(n_columns=capacity, n_ids=n_ids)
        except ValueError as exc:  # its table of ids (8 bytes each) is over the budget
            raise ValueError(
                f"cache_size={self.cache_size:g} MB is too small for {n_ids} stored examples: "
                f"the kernel cache's table of them alone needs {8 * n_ids / 2**20:.3g} MB; "
                "raise cache_size") from exc

    def _grow_expansion_arrays(self, capacity=None) -> int:
        """Double (or raise to ``capacity``) the capacity of every per-member array of S
        (not the cache); returns it. Every array indexed by S's columns must grow here:
        the compiled code does not check bounds."""
        n = int(self.cnt[_expansion.N_COLS])
        capacity = 2 * self.perm.shape[0] if capacity is None else int(capacity)
        for name in ("perm", "alpha", "g", "lo", "hi"):
            setattr(self, name, _grown(getattr(self, name), capacity, n))
        log = np.zeros((_expansion.N_GENERATIONS, capacity), dtype=np.int32)
        log[:, : self.layout_log.shape[1]] = self.layout_log
        self.layout_log = log
        self.scratch = np.zeros((3, capacity))
        return capacity  # (the panel is rebuilt at the new capacity by _panel)

    def _grow_expansion(self):
        capacity = self.perm.shape[0]
        # past 2,048 columns by a quarter, and the cache's rows exactly as wide: narrower rows
        # leave more slots (the rows move in place, so growing more often costs little)
        capacity = self._grow_expansion_arrays(
            2 * capacity if capacity < _WIDE else capacity + capacity // 4)
        self.cache.grow(n_columns=capacity, exact=capacity >= _WIDE)

    def release_unused(self) -> None:
        """Keep only the rows of S in the store (renumbered by position), and the cache rows
        of those; everything else is forgotten."""
        if self.cache is not None:
            _expansion.compact(self._store(), self._svs(), self.cache.state, self.cnt,
                          self.scratch[0])
        else:
            self._compact_without_cache()
        n = int(self.cnt[_expansion.N_COLS])
        keep = self.perm[:n].copy()
        new_of_old = np.full(self.n_store, -1, dtype=np.int64)
        new_of_old[keep] = np.arange(n)
        if self.sparse:
            starts, stops = self.indptr[keep], self.indptr[keep + 1]
            lengths = stops - starts
            indptr = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(lengths, out=indptr[1:])
            take = (np.repeat(starts - indptr[:-1], lengths) + np.arange(indptr[-1])).astype(
                np.int64)
            self.data = self.data[take]
            self.indices = self.indices[take]
            self.indptr = indptr
        else:
            self.Xd = self.Xd[keep]
        self.sq = self.sq[keep]
        self.kd = self.kd[keep]
        self.ys = self.ys[keep]
        self.row_gen = self.row_gen[keep]
        self.stream_pos = self.stream_pos[keep]
        self.pos_of = np.arange(n, dtype=np.int64)
        self.perm[:n] = np.arange(n)
        if self.cache is not None:
            cache_remap_ids(new_of_old, self.cache.slot_meta, self.cache.id_meta,
                            self.cache.stats)
        self.n_store = n

    def _compact_without_cache(self):
        n = int(self.cnt[_expansion.N_COLS])
        order = np.flatnonzero(self.perm[:n] >= 0)
        m = order.shape[0]
        for name in ("perm", "alpha", "g", "lo", "hi"):
            array = getattr(self, name)
            array[:m] = array[order]
            array[m:n] = -1 if name == "perm" else 0
        self.pos_of[self.perm[:m]] = np.arange(m)
        self.cnt[_expansion.N_COLS] = m
        self.panel = None

    def _persist_state(self) -> dict:
        state = super()._persist_state()
        state["cache_totals"] = self._cache_counts()  # the dropped cache's hits and misses
        return state

    def _rows_in_use(self) -> dict[str, int]:
        n_cols, n_store = int(self.cnt[_expansion.N_COLS]), self.n_store
        in_use = dict.fromkeys(("perm", "alpha", "g", "lo", "hi"), n_cols)
        in_use.update(dict.fromkeys(("Xd", "sq", "kd", "ys", "pos_of", "row_gen", "stream_pos"),
                                    n_store))
        in_use["indptr"] = n_store + 1
        if self.sparse:
            in_use["data"] = in_use["indices"] = int(self.indptr[n_store])
        return in_use

    def _restore_transient(self) -> None:
        super()._restore_transient()
        capacity = self.perm.shape[0]
        self.cache = None
        self.layout_log = np.zeros((_expansion.N_GENERATIONS, capacity), dtype=np.int32)
        self.scratch = np.zeros((3, capacity))
        self.panel = None
        self.regions_beside = 0

    def _release_cache(self):
        if self.cache is not None:
            self.cache_totals += [self.cache.hits, self.cache.partial_hits, self.cache.misses]
            self.cache = None

    def set_side_weights(self, negative: float, positive: float) -> None:
        """Boxes of the examples inserted from now on: ``C`` times each side's class weight
        (``class_weight``; an example keeps the box it was inserted with)."""
        self.Cn = self.C * negative
        self.Cp = self.C * positive

    # ------------------------------------------------------------------ running
    def _run(self, pool, n_iter=_NO_LIMIT) -> None:
        """Online iterations over the store ids in ``pool`` (in the order the selection
        criterion takes them) until the pool is used up or ``n_iter`` iterations."""
        pool = np.ascontiguousarray(pool, dtype=np.int64)
        pstate = np.array([0, pool.shape[0]], dtype=np.int64)
        start_iter = int(self.cnt[_expansion.N_ITER])
        while True:
            self._ensure_cache()
            left = n_iter - (int(self.cnt[_expansion.N_ITER]) - start_iter)
            args = (self._store(), self._kern(), self._svs(), self.cache.state, self._work(),
                    self.cnt, self.st)
            if (self.algorithm == "lasvm" and self.selection == _lasvm_core.RANDOM
                    and self.delta_max == 0.0 and numba.get_num_threads() > 1):
                # the next kernel rows beside the steps (same model as the loop below)
                status, regions = _beside_core.lasvm_online_beside(
                    pool, pstate, left, self.n_seed, self.tau, self.Cp, self.Cn, *args,
                    self.rng_state)
                self.regions_beside += regions
            elif self.algorithm == "lasvm":
                # RANDOM takes the pool in order: None leaves the selection's scoring out of
                # the compiled loop (numba prunes it before typing)
                candidates = (None if self.selection == _lasvm_core.RANDOM
                              else self.n_candidates)
                status = _lasvm_core.lasvm_online(pool, pstate, left, self.selection,
                                            candidates, self.n_seed, self.tau,
                                            self.delta_max, self.Cp, self.Cn, *args,
                                            self.rng_state, np.bool_(False), np.bool_(True),
                                            self._par())
            else:
                status = _gap_core.lasvmg_online(pool, pstate, left, self.variant, self.s,
                                             self._gap_seeds(),
                                             self.clean_every, self.max_non_sv, self.tau,
                                             self.C, self.Cp, self.Cn, *args, self._par())
            if status != _expansion.NEED_GROW:
                return
            self._grow_expansion()

    def _gap_seeds(self) -> int:
        """Examples of each class that seed S before the LASVM-G family's ramp test: none
        here (LASVM-G, FULL SVM, and LASVM-NC / LASVM-I models saved before the seeds);
        :class:`streamsvm.lasvm.variants._RampSeededLearner` takes ``n_seed``."""
        return 0

    def process_examples(self, ids) -> None:
        """One online iteration per stored id, in the given order (no selection)."""
        selection = self.selection
        self.selection = _lasvm_core.RANDOM
        try:
            self._run(ids)
        finally:
            self.selection = selection

    def decision_stored(self, ids) -> np.ndarray:
        """``y(x)`` of stored rows (eq. 2) through the kernel cache."""
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        self._ensure_cache()
        out = np.empty(ids.shape[0])
        return _decision_core.decision_values(ids, self._store(), self._kern(), self._svs(),
                                     self.cache.state, self._work(), self.cnt, self.st, out,
                                     self._par())

    def partial_fit(self, X, y):
        ids = self.add_examples(X, y)
        self._run(ids)
        self.n_seen += X.shape[0]
        n = int(self.cnt[_expansion.N_LIVE])
        if self.n_store - n > max(n, 256):
            self.release_unused()

    # ------------------------------------------------------------------ per-row path
    def row_ready(self) -> bool:
        """The per-row path of learn_one / predict_one (:mod:`streamsvm.input.row_path`): a
        sparse store (dict rows) and this class's ``partial_fit``."""
        return self.sparse is True and type(self).partial_fit is _Learner.partial_fit

    def decision_row(self, cols, vals, state):
        """The decision value of one example (left gathered in ``state``'s scratch), or
        None if refused."""
        if state.ws is None or state.ws.shape[0] != self.n_features:
            state.ws = np.zeros(self.n_features)
        score = lasvm_decision_row(cols, vals, state.iscratch, state.fscratch, self.indptr,
                                   self.indices, self.data, self.sq, self.perm, self.alpha,
                                   self.cnt, self.st, 1 if self.algorithm == "lasvm" else 0,
                                   (self.code, self.gamma, self.degree, self.coef0), state.ws)
        return None if score != score else score

    def learn_row(self, cols, vals, y, state, known=None):
        """``partial_fit`` of one example: its score before (``known``: just computed by
        :meth:`decision_row`, whose gathered row is reused), or None if refused."""
        if known is None:
            known = self.decision_row(cols, vals, state)
            if known is None:
                return None
        start = self.n_store
        n = int(state.iscratch[1])
        # at the model's thread count (n_jobs), as partial_fit runs it (compiled_threads),
        # not numba's own (every core: each long kernel row would be a parallel region)
        previous = _swap_threads(state.threads)
        try:
            self._learn_row_stored(start, n, y, state)
        finally:
            if previous != state.threads:
                _swap_threads(previous)
        return known

    def _learn_row_stored(self, start, n, y, state):
        """:meth:`learn_row` of the example gathered in the scratch (``n`` entries), stored
        at ``start``."""
        if start + 1 > self.sq.shape[0] or int(self.indptr[start]) + n > self.data.shape[0]:
            row = sp.csr_matrix((state.fscratch[F_HEAD:F_HEAD + n].copy(),
                                 state.iscratch[I_HEAD:I_HEAD + n].copy(), np.array([0, n])),
                                shape=(1, self.n_features))
            self.partial_fit(row, np.array([y]))  # grows the store's arrays
            return
        store_row_csr(state.iscratch, state.fscratch, y, start, self.stream_offset + self.n_seen,
                      self.indptr, self.indices, self.data, self.sq, self.kd, self.ys,
                      self.pos_of, self.row_gen, self.stream_pos, self.layout_meta[0],
                      (self.code, self.gamma, self.degree, self.coef0))
        self.n_store = start + 1
        self._run(np.array([start], dtype=np.int64))
        self.n_seen += 1
        n = int(self.cnt[_expansion.N_LIVE])
        if self.n_store - n > max(n, 256):
            self.release_unused()

    def fit_pass(self, X, y):
        self._use_training_set(X, y)
        n = X.shape[0]
        for _ in range(self.epochs):
            pool = self.rng.permutation(n) if self.shuffle else np.arange(n)
            self._run(pool)
        if self.finishing:
            self.finish()
        self.release_unused()
        if self.finishing:  # without it, finish() is likely to follow: keep the cache
            self._release_cache()
        self.n_seen += n

    def finish(self):
        """LASVM's finishing step (REPROCESS until delta <= tau, with shrinking); then, at the
        end of the data, the store keeps only the rows of S (so that a saved model holds S)."""
        if self.algorithm == "lasvm" and self.cnt[_expansion.N_LIVE] > 0:
            self._ensure_cache()
            second_order = getattr(self, "second_order", False)  # models saved before it
            _finish_core.finish(self.tau, self.shrink_every, second_order, self._store(),
                                      self._kern(), self._svs(), self.cache.state,
                                      self._work(), self.cnt, self.st, self._par())
        if self._release_after_finish and self.n_store > self.cnt[_expansion.N_LIVE]:
            self.release_unused()

    # ------------------------------------------------------------------ model
    def _support(self):
        n = int(self.cnt[_expansion.N_COLS])
        positions = np.flatnonzero(self.alpha[:n] != 0.0)
        return self.perm[positions], self.alpha[positions]

    def support_rows(self):
        """``(rows, coefficients)``: the support vectors (dense array or CSR) and alphas."""
        ids, coef = self._support()
        if self.sparse:
            matrix = sp.csr_matrix((self.data, self.indices, self.indptr[: self.n_store + 1]),
                                   shape=(self.n_store, self.n_features))
            return matrix[ids], coef
        if self.sparse is None:
            return np.zeros((0, self.n_features)), coef
        return self.Xd[ids], coef

    def support_positions(self):
        """Stream positions of the support vectors (as :meth:`support_rows`), or None when
        some are unknown (rows of a file saved before positions were recorded)."""
        positions = self.stream_pos[self._support()[0]]
        return None if (positions < 0).any() else positions

    @property
    def intercept(self) -> float:
        return float(self.st[_expansion.B_]) if self.algorithm == "lasvm" else 0.0

    def decision_function(self, X):
        ids, coef = self._support()
        b = self.intercept
        n_rows = X.shape[0]
        out = np.empty(n_rows)
        if ids.shape[0] == 0:
            out[:] = b
            return out
        code, gamma, degree, coef0 = self.code, self.gamma, self.degree, self.coef0
        # on one thread the plain loops: the dispatch to blocks (and its prange build) is
        # compiled only for several threads (the same values, bit for bit)
        rows = _decision_core if self._par() is None else _parallel
        if self.sparse:
            X = sp.csr_matrix(X)
            if not X.has_sorted_indices:
                X = X.sorted_indices()
            starts, stops = self.indptr[ids], self.indptr[ids + 1]
            lengths = stops - starts
            sv_indptr = np.zeros(ids.shape[0] + 1, dtype=np.int64)
            np.cumsum(lengths, out=sv_indptr[1:])
            take = np.repeat(starts - sv_indptr[:-1], lengths) + np.arange(sv_indptr[-1])
            by_feature = sp.csr_matrix((self.data[take], self.indices[take], sv_indptr),
                                       shape=(ids.shape[0], self.n_features)).tocsc()
            colptr = by_feature.indptr.astype(np.int64)
            sv_rows = by_feature.indices.astype(np.int64)
            sv_vals = by_feature.data.astype(np.float64)
            for a in range(0, n_rows, _DECISION_BLOCK):
                block = X[a : a + _DECISION_BLOCK]
                data = block.data.astype(np.float64)
                x_sq = sqnorms_csr(block.indptr, data, np.empty(block.shape[0]))
                rows.decision_rows_csr(block.indptr, block.indices, data, x_sq, colptr,
                                            sv_rows, sv_vals, self.sq[ids], coef, b, code,
                                            gamma, degree, coef0, out[a : a + block.shape[0]])
            return out
        SV = self.Xd[ids]
        for a in range(0, n_rows, _DECISION_BLOCK):
            block = X[a : a + _DECISION_BLOCK]
            block = block.toarray() if sp.issparse(block) else block
            block = np.ascontiguousarray(block, dtype=np.float64)
            x_sq = sqnorms_dense(block, np.empty(block.shape[0]))
            rows.decision_rows_dense(block, x_sq, SV, self.sq[ids], coef, b, code, gamma,
                                      degree, coef0, out[a : a + block.shape[0]])
        return out

    # ------------------------------------------------------------------ counters
    @property
    def n_expansion(self) -> int:
        """Size of S (support vectors and the non-support vectors kept with them)."""
        return int(self.cnt[_expansion.N_LIVE])

    @property
    def n_support(self) -> int:
        return int(np.count_nonzero(self.alpha[: self.cnt[_expansion.N_COLS]]))

    @property
    def n_bounded(self) -> int:
        n = int(self.cnt[_expansion.N_COLS])
        a = self.alpha[:n]
        at_bound = (a != 0.0) & ((a == self.lo[:n]) | (a == self.hi[:n]))
        return int(np.count_nonzero(at_bound))

    @property
    def n_kernel_evals(self) -> int:
        return int(self.cnt[_expansion.KEVALS])

    def _cache_counts(self):
        counts = self.cache_totals.copy()
        if self.cache is not None:
            counts += [self.cache.hits, self.cache.partial_hits, self.cache.misses]
        return counts

    @property
    def cache_hits(self) -> int:
        return int(self._cache_counts()[0])

    @property
    def cache_misses(self) -> int:
        counts = self._cache_counts()
        return int(counts[1] + counts[2])

    def _check_restored(self) -> None:
        """Raise ValueError unless the state (e.g. read from a model file) is one the jitted
        loops can trust: they do not check bounds (see ``_grow_expansion_arrays``)."""
        d, n = self.n_features, self.n_store
        rows = self.sq.shape[0]
        capacity = self.perm.shape[0]
        dense = not self.sparse
        shapes = (
            type(d) is int and type(n) is int and 0 <= n <= rows
            and self.sparse in (None, True, False)
            and all(getattr(self, name).shape == (rows,)
                    for name in ("kd", "ys", "pos_of", "row_gen", "stream_pos"))
            and type(self.stream_offset) is int and self.stream_offset >= 0
            and self.Xd.shape == ((rows if dense else 0), d)
            and self.indptr.shape[0] == (rows + 1 if self.sparse else 1)
            and self.indices.shape == self.data.shape and self.data.ndim == 1
            and self.ws.shape == (d,)
            and all(getattr(self, name).shape == (capacity,)
                    for name in ("alpha", "g", "lo", "hi"))
            and self.layout_log.shape == (_expansion.N_GENERATIONS, capacity)
            and self.layout_meta.shape == (1 + 2 * _expansion.N_GENERATIONS,)
            and self.scratch.shape == (3, capacity)
            and self.cnt.shape == (_expansion.N_COUNTERS,)
            and self.st.shape == (_expansion.N_FLOATS,)
            and self.rng_state.shape == (1,)
        )
        if not shapes:
            raise ValueError("the store and expansion arrays do not have matching shapes")
        if self.sparse:
            indptr = self.indptr[: n + 1]
            nnz = int(indptr[-1])
            if (indptr[0] != 0 or (np.diff(indptr) < 0).any() or nnz > self.data.shape[0]
                    or ((self.indices[:nnz] < 0) | (self.indices[:nnz] >= d)).any()):
                raise ValueError("the stored sparse rows are inconsistent")
        n_cols, n_live = int(self.cnt[_expansion.N_COLS]), int(self.cnt[_expansion.N_LIVE])
        perm, pos_of = self.perm[:n_cols], self.pos_of[:n]
        members = perm[perm >= 0]
        ok = (
            (self.cnt >= 0).all() and 0 <= n_live <= n_cols <= capacity
            and ((perm >= -1) & (perm < n)).all() and members.shape[0] == n_live
            and ((pos_of >= -1) & (pos_of < n_cols)).all()
            and np.array_equal(pos_of[members], np.flatnonzero(perm >= 0))
            and np.count_nonzero(pos_of >= 0) == n_live
        )
        if not ok:
            raise ValueError("the expansion's positions and store indices disagree")
        alpha, lo, hi = self.alpha[:n_cols], self.lo[:n_cols], self.hi[:n_cols]
        ys = self.ys[:n]
        live = perm >= 0
        signs = ys[perm[live]]
        ok = (  # labels ±1 (0: not known yet); each box holds its coefficient (the ramp
                # variants shift the boxes, so not always 0); free positions hold zeros
            ((ys == 1.0) | (ys == -1.0) | (ys == 0.0)).all()
            and signs.shape == alpha[live].shape
            and (lo[live] <= alpha[live]).all() and (alpha[live] <= hi[live]).all()
            and not alpha[~live].any() and not lo[~live].any() and not hi[~live].any()
        )
        if not ok:
            raise ValueError("the labels, coefficients or their boxes are out of range")
        generation = int(self.layout_meta[0])
        sizes = self.layout_meta[1:].reshape(_expansion.N_GENERATIONS, 2)
        ok = (
            generation >= 0 and (self.row_gen[:n] <= generation).all()
            and ((sizes[:, 0] >= 0) & (sizes[:, 0] <= capacity)).all()
            and ((sizes[:, 1] >= 0) & (sizes[:, 1] <= sizes[:, 0])).all()
            and ((self.layout_log >= 0) & (self.layout_log < capacity)).all()
        )
        if not ok:
            raise ValueError("the layout log of the expansion is inconsistent")
        if self.cache is not None and not isinstance(self.cache, KernelCache):
            raise ValueError("the kernel cache is not a KernelCache")


def _writable(array):
    """``array``, or a copy of it if it is read-only (a memmap opened read-only, scikit-learn's
    checks): the compiled loops are typed for writable arrays, and a read-only one would make
    numba compile each of them a second time (minutes of LASVM's first fit)."""
    return array if array.flags.writeable else np.array(array)


def _grown(array, capacity, keep, fill=0):
    """A copy of ``array`` with first dimension ``capacity``, the first ``keep`` entries kept."""
    shape = (capacity,) + array.shape[1:]
    out = np.full(shape, fill, dtype=array.dtype) if fill else np.zeros(shape, dtype=array.dtype)
    out[:keep] = array[:keep]
    return out
