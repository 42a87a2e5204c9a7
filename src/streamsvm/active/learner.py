"""Small-pool active selection with early stopping over a LASVM learner (Ertekin, Huang,
Bottou & Giles, "Learning on the border", CIKM 2007, Sections 3.2-3.4).

:class:`_ActiveLearner` is LASVM's binary learner (:mod:`streamsvm.lasvm.learner`) plus an
unlabelled *pool* of stored rows and a selection loop. Each step

1. draws ``L`` pool rows uniformly without replacement (eq. 6-7: the closest of them is among
   the ``p`` closest of the whole pool with probability ``1 - eta`` when
   ``L = ceil(log eta / log(1 - p))``), or takes the whole pool (``pool_size="full"``, the
   full search of Tong & Koller that the paper compares with);
2. takes the one with the smallest ``|y(x)|`` (closest to the hyperplane; exact ties go to the
   smaller store id) -- *this* is the query whose label is spent;
3. makes one LASVM online iteration on it (PROCESS + REPROCESS, ``process_examples``).

Until the model has support vectors of both classes, ``y(x)`` is the same for every
example and step 2 carries no information: picks are uniformly random then (``L = 1``).

Early stopping (Section 3.4), both rules are checked at every step and the first step at which
each held is recorded; ``stopping`` says which ones end the selection:

* ``"sv_count"`` (the paper's practical rule): the number of support vectors has stopped
  growing: ``|n_SV(t) - n_SV(t - window)| <= tolerance * n_SV(t)`` after pick ``t``, counted
  from the first pick at which both classes have support vectors;
* ``"margin"`` (its "theoretically sound" rule): the newly selected example is no closer to
  the hyperplane than every support vector, ``|y(x_new)| >= min(1, max_s |y(x_s)|)``. The
  free support vectors lie on ``|y| = 1``; bounded ones beyond the margin (misclassified
  outliers) are outside the region that can be exhausted, hence the cap at 1. The check is
  made *before* the label is asked for, so stopping on it spends no label. With a small pool
  it holds with probability ``1 - eta`` only when fewer than ``p`` of the pool is closer than
  the support vectors; with the full search it is exact;
* ``"either"``: whichever comes first; ``None``: never stop (the rules are still recorded).

The Python loop runs once per query (an oracle answers between two steps); all numeric work
(decision values of the candidates through the kernel cache, the LASVM iteration, the draws)
is jitted.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..lasvm import _expansion_core as _expansion
from ..lasvm._expansion_core import N_COLS as _N_COLS
from ..lasvm._expansion_core import N_LIVE as _N_LIVE
from ..lasvm.learner import _Learner
from ..utils.arrays import grow_rows
from . import _core

STOPPING_RULES = ("sv_count", "margin", "either", None)
_HISTORY = 256
_S_RESERVE = 512  #: S is given this capacity up front (when the pool is as large)
_HOLES_WORTH_A_LAYOUT = 64  #: at capacity, compact rather than grow when 1 column in this is a hole
_NO_LIMIT = np.iinfo(np.int64).max
_RULES = {None: _core.RULE_NONE, "sv_count": _core.RULE_SV, "margin": _core.RULE_MARGIN,
          "either": _core.RULE_EITHER}
_STOP_NAMES = {_core.STOP_NONE: "", _core.STOP_SV: "sv_count", _core.STOP_MARGIN: "margin",
               _core.STOP_BUDGET: "budget", _core.STOP_EXHAUSTED: "pool exhausted"}


class _ActiveLearner(_Learner):
    """LASVM learner with an unlabelled pool and the selection loop of the module docstring.

    The loop's state lives in two small arrays (``ist``, ``fst``; indices in
    :mod:`streamsvm.active._core`) so that the compiled loop and the Python face share it."""

    _release_after_finish = False
    #: the per-label histories are grown with room to spare (saved without it)
    _spare_capacity = (*_Learner._spare_capacity, "sv_hist", "picked_rows", "picked_f",
                       "picked_r")

    def __init__(self, n_features, rng, *, pool_size, stopping, window, tolerance, span,
                 max_labels, class_weight, **lasvm):
        super().__init__(n_features, rng, **lasvm)
        self.pool_size = -1 if pool_size == "full" else int(pool_size)
        self.stopping = stopping
        self.rule = _RULES[stopping]
        self.window = int(window)
        self.tolerance = float(tolerance)
        self.span = int(span)
        self.max_labels = -1 if max_labels is None else int(max_labels)
        self.class_weight = class_weight
        self.al_rng = np.array([rng.integers(0, 2**63 - 1)], dtype=np.uint64)
        self.pool_ids = np.zeros(0, dtype=np.int64)
        self.pool_rows = np.zeros(0, dtype=np.int64)
        self.pool_total = 0  # rows the current pool started with
        self.ist = np.zeros(_core.N_IST, dtype=np.int64)
        self.ist[[_core.I_BOTH, _core.I_SVSTOP, _core.I_MSTOP, _core.I_PENDING]] = -1
        self.fst = np.zeros(_core.N_FST)
        self.sv_hist = np.zeros((_HISTORY, 2), dtype=np.int64)  # after each label: SV-, SV+
        self.picked_rows = np.zeros(_HISTORY, dtype=np.int64)  # caller's row of each query
        self.picked_f = np.zeros(_HISTORY)  # y(x) of each query when it was picked
        self.picked_r = np.zeros(_HISTORY)  # min(1, max_s |y(x_s)|) then (0: random start)

    def _check_restored(self) -> None:
        """Raise ValueError unless the pool, the loop's state and the records (e.g. read from
        a model file) fit each other and the store (compiled loops trust them)."""
        super()._check_restored()
        ist, history = self.ist, self.sv_hist.shape[0]
        n_pool, n_labels = int(ist[_core.I_NPOOL]), int(ist[_core.I_NLABELS])
        ok = (
            ist.shape == (_core.N_IST,) and self.fst.shape == (_core.N_FST,)
            and self.sv_hist.shape == (history, 2)
            and all(getattr(self, name).shape == (history,)
                    for name in ("picked_rows", "picked_f", "picked_r"))
            and self.pool_ids.ndim == 1 and self.pool_rows.shape == self.pool_ids.shape
            and 0 <= n_pool <= self.pool_ids.shape[0] and 0 <= n_labels <= history
            and ((self.pool_ids[:n_pool] >= 0) & (self.pool_ids[:n_pool] < self.n_store)).all()
            and -1 <= int(ist[_core.I_PENDING]) < max(n_pool, 1)
            and int(ist[_core.I_STOP]) in _STOP_NAMES
            and 0 <= int(ist[_core.I_POOLSTART]) <= n_labels
            and self.al_rng.shape == (1,)
        )
        if not ok:
            raise ValueError("the pool, the selection state and the records disagree")

    # ------------------------------------------------------------------ state views
    n_pool = property(lambda self: int(self.ist[_core.I_NPOOL]))
    n_labels = property(lambda self: int(self.ist[_core.I_NLABELS]))
    both_at = property(lambda self: int(self.ist[_core.I_BOTH]))
    sv_stop = property(lambda self: int(self.ist[_core.I_SVSTOP]))
    margin_stop = property(lambda self: int(self.ist[_core.I_MSTOP]))
    pending = property(lambda self: int(self.ist[_core.I_PENDING]))
    pool_start = property(lambda self: int(self.ist[_core.I_POOLSTART]))
    label_counts = property(lambda self: self.ist[[_core.I_NEG, _core.I_POS]].copy())

    @property
    def stop_reason(self) -> str:
        """"" while selecting, else "sv_count", "margin", "budget" or "pool exhausted"."""
        return _STOP_NAMES[int(self.ist[_core.I_STOP])]

    @property
    def stopped(self) -> bool:
        return self.ist[_core.I_STOP] != _core.STOP_NONE

    # ------------------------------------------------------------------ the pool
    def set_pool(self, ids, rows) -> None:
        """Make the stored rows ``ids`` (caller's row numbers ``rows``) the unlabelled pool;
        what was left of the previous pool is dropped and the stopping rules start afresh."""
        self.pool_ids = np.array(ids, dtype=np.int64)
        self.pool_rows = np.array(rows, dtype=np.int64)
        ist = self.ist
        ist[_core.I_NPOOL] = self.pool_ids.shape[0]
        self.pool_total = self.pool_ids.shape[0]
        ist[_core.I_POOLSTART] = ist[_core.I_NLABELS]
        ist[[_core.I_PENDING, _core.I_SVSTOP, _core.I_MSTOP]] = -1
        if ist[_core.I_STOP] != _core.STOP_BUDGET:
            ist[_core.I_STOP] = _core.STOP_NONE
        self._reserve(ist[_core.I_NLABELS] + self.pool_total)
        want = min(_S_RESERVE, int(self.cnt[_N_COLS]) + self.pool_total + 1)
        while self.perm.shape[0] < want:  # S sized up front: each doubling copies the cache
            self._grow_expansion()

    def _reserve(self, n_labels) -> None:
        """Room in the records for ``n_labels`` labels."""
        have = self.sv_hist.shape[0]
        if n_labels > have:
            size = max(n_labels, 2 * have)
            grow_rows(self, ("sv_hist", "picked_rows", "picked_f", "picked_r"), size,
                      self.n_labels)

    def _grow_expansion(self):
        if self.cache is None:  # no cache yet: grow the arrays only (the cache is made to fit)
            self._grow_expansion_arrays()
            return
        # Doubling S doubles the width of the cached rows, so the cache may have to drop
        # rows. The candidates' rows are what makes small-pool selection cheap (each
        # example is scored 59 x data efficiency times): when doubling would drop some,
        # S drops its holes instead (if a 64th of it is holes), or grows only as far as
        # every cached row keeps its slot (at least by an eighth). On MNIST-8 with 3000 MB
        # the doubling from 4096 to 8192 columns had made 447M kernel values out of ~300M.
        cache = self.cache
        capacity = self.perm.shape[0]
        if cache.slots_for(2 * capacity) < cache.n_cached:
            holes = int(self.cnt[_N_COLS] - self.cnt[_N_LIVE])
            if holes > 0 and _HOLES_WORTH_A_LAYOUT * holes >= int(self.cnt[_N_COLS]):
                _expansion.compact(self._store(), self._svs(), cache.state, self.cnt,
                                    self.scratch[0])
                return
            step = max(capacity // 8, 1)
            wider = capacity + step
            while wider + step < 2 * capacity and cache.slots_for(wider + step) >= cache.n_cached:
                wider += step
            if cache.slots_for(wider) >= cache.n_cached:
                self._grow_expansion_arrays(wider)
                cache.grow(n_columns=wider, exact=True)
                return
        super()._grow_expansion()

    def _costs(self):
        self.fst[_core.F_CP] = self.Cp
        self.fst[_core.F_CN] = self.Cn

    def _loop_args(self):
        return (self.tau, self._store(), self._kern(), self._svs(), self.cache.state,
                self._work(), self.cnt, self.st, self._par())

    def propose(self):
        """The next query as ``(row, store id, y(x))``, or None when selection has ended
        (``stop_reason`` says why). Repeated calls return the same query until it is
        answered with :meth:`learn_pending`."""
        self._ensure_cache()
        status = _core.propose(self.pool_ids, self.pool_rows, self.pool_size, self.rule,
                               self.max_labels, self.ist, self.fst, self._store(),
                               self._kern(), self._svs(), self.cache.state, self._work(),
                               self.cnt, self.st, self.al_rng, self._par())
        if status != _core.PROPOSED:
            return None
        t = self.pending
        return int(self.pool_rows[t]), int(self.pool_ids[t]), float(self.fst[_core.F_PENDING])

    def learn_pending(self, y) -> None:
        """Label (+-1) of the pending query: one LASVM iteration on it, then the SV-count
        rule (all in one compiled call)."""
        if self.pending < 0:
            raise RuntimeError("no query is pending")
        self._costs()
        while True:
            self._ensure_cache()
            status = _core.learn(float(y), self.rule, self.window, self.tolerance, self.span,
                                 self.class_weight == "balanced", self.C, self.pool_ids,
                                 self.pool_rows, self.ist, self.fst, self.sv_hist,
                                 self.picked_rows, self.picked_f, self.picked_r,
                                 *self._loop_args())
            if status != _core.NEED_GROW:
                break
            self._grow_expansion()
        self._read_costs()
        self._check_cache_room()

    def learn_example(self, row, y, index, f, radius) -> None:
        """Learn a labelled example from outside the pool (the stream sampler): it is stored,
        made the pending query (``index`` its caller's number, ``f`` its score when it was
        picked, ``radius`` the margin then) and learnt by :meth:`learn_pending`; the store
        drops the rows S no longer holds once they outnumber S."""
        ids = self.add_examples(row)
        self.pool_ids = ids.astype(np.int64)
        self.pool_rows = np.array([index], dtype=np.int64)
        self.ist[_core.I_NPOOL] = 1
        self.ist[_core.I_PENDING] = 0
        self.fst[_core.F_PENDING] = f
        self.fst[_core.F_RADIUS] = radius
        self._reserve(self.n_labels + 1)
        self.learn_pending(y)
        n = int(self.cnt[_N_LIVE])
        if self.n_store - n > max(n, 256):
            self.release_unused()

    def _read_costs(self):
        self.Cp = float(self.fst[_core.F_CP])
        self.Cn = float(self.fst[_core.F_CN])

    def select(self, max_labels=None) -> None:
        """Run the selection loop with the stored labels as the oracle (labels known): one
        compiled call for all the queries (again only when S must grow)."""
        left = _NO_LIMIT if max_labels is None else int(max_labels)
        self._costs()
        while left > 0:
            self._ensure_cache()
            done, status = _core.run_known(
                left, self.pool_size, self.rule, self.max_labels, self.window, self.tolerance,
                self.span, self.class_weight == "balanced", self.C, self.pool_ids,
                self.pool_rows, self.ist, self.fst, self.sv_hist, self.picked_rows,
                self.picked_f, self.picked_r, self.tau, self._store(), self._kern(), self._svs(),
                self.cache.state, self._work(), self.cnt, self.st, self.al_rng, self._par())
            left -= done
            if status != _core.NEED_GROW:
                break
            self._grow_expansion()
        self._read_costs()
        self._check_cache_room()

    def _check_cache_room(self) -> None:
        """Warn once when the kernel cache cannot hold the rows of S and a block of
        candidates: every candidate's row is then recomputed at every query (about
        ``L x n_SV`` kernel values per label instead of the few new columns)."""
        if getattr(self, "_cache_warned", False) or self.cache is None:
            return
        block = self.n_pool if self.pool_size < 0 else min(self.pool_size, self.n_pool)
        need = int(self.cnt[_N_LIVE]) + block + _core.BLOCK_SPARE_SLOTS
        if block > 1 and self.cache.n_slots < min(need, self.n_store):
            self._cache_warned = True
            megabytes = self.cache.size_mb_for(2 * need, self.perm.shape[0])
            warnings.warn(
                f"the kernel cache (cache_size={self.cache.size_mb:g} MB) holds "
                f"{self.cache.n_slots} rows, fewer than the {int(self.cnt[_N_LIVE])} members "
                f"of the expansion plus {block} candidates: the candidates' kernel rows are "
                f"recomputed at every query, which is much slower; give cache_size room for "
                f"twice that, {megabytes:.0f} MB", RuntimeWarning, stacklevel=2)

    # ------------------------------------------------------------------ streaming face
    def fit_pass(self, X, y):
        self._use_training_set(X, y)
        n = X.shape[0]
        self.set_pool(np.arange(n), np.arange(n))
        self.select()
        if self.finishing:
            self.finish()
        self._drop_pool()
        self.release_unused()
        self._release_cache()
        self.n_seen += n

    def partial_fit(self, X, y):
        ids = self.add_examples(X, y)
        self.set_pool(ids, self.n_seen + np.arange(X.shape[0]))
        self.select()
        self.n_seen += X.shape[0]
        n = int(self.cnt[_N_LIVE])
        if self.n_store - n > max(n, 256):
            self._drop_pool()
            self.release_unused()

    def _drop_pool(self):
        """Forget the unlabelled rows left (their store rows can then be released)."""
        self.pool_ids = self.pool_ids[:0].copy()
        self.pool_rows = self.pool_rows[:0].copy()
        self.ist[_core.I_NPOOL] = 0
        self.ist[_core.I_PENDING] = -1

    # ------------------------------------------------------------------ records
    @property
    def stopping_point(self) -> int:
        """Labels spent when selection was stopped by the chosen rule, or -1."""
        reason = self.stop_reason
        if reason in ("sv_count", "margin"):
            return self.sv_stop if reason == "sv_count" else self.margin_stop
        return -1
