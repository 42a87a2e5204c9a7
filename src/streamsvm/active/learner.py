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

import numpy as np

from ..lasvm._core import N_COLS as _N_COLS
from ..lasvm._core import N_LIVE as _N_LIVE
from ..lasvm.learner import _Learner
from . import _core

STOPPING_RULES = ("sv_count", "margin", "either", None)
_HISTORY = 256


class _ActiveLearner(_Learner):
    """LASVM learner with an unlabelled pool and the selection loop of the module docstring."""

    def __init__(self, n_features, rng, *, pool_size, stopping, window, tolerance, max_labels,
                 class_weight, **lasvm):
        super().__init__(n_features, rng, **lasvm)
        self.pool_size = -1 if pool_size == "full" else int(pool_size)
        self.stopping = stopping
        self.window = int(window)
        self.tolerance = float(tolerance)
        self.max_labels = -1 if max_labels is None else int(max_labels)
        self.class_weight = class_weight
        self.al_rng = np.array([rng.integers(0, 2**63 - 1)], dtype=np.uint64)
        self.pool_ids = np.zeros(0, dtype=np.int64)
        self.pool_rows = np.zeros(0, dtype=np.int64)
        self.n_pool = 0
        self.pool_total = 0  # rows the current pool started with
        self.pool_start = 0  # labels spent before the current pool
        self.pending = -1  # position of the proposed (not yet labelled) candidate, or -1
        self.pending_f = 0.0
        self.n_labels = 0
        self.label_counts = np.zeros(2, dtype=np.int64)  # labels seen: [negatives, positives]
        self.both_at = -1  # labels spent when both classes first had support vectors
        self.sv_stop = -1  # labels spent when the SV-count rule first held (this pool)
        self.margin_stop = -1  # labels spent when the margin rule first held (this pool)
        self.stop_reason = ""  # "", "sv_count", "margin", "budget", "pool exhausted"
        self.sv_hist = np.zeros((_HISTORY, 2), dtype=np.int32)  # after each label: SV-, SV+
        self.picked_rows = np.zeros(_HISTORY, dtype=np.int64)  # caller's row of each query

    # ------------------------------------------------------------------ the pool
    def set_pool(self, ids, rows) -> None:
        """Make the stored rows ``ids`` (caller's row numbers ``rows``) the unlabelled pool;
        what was left of the previous pool is dropped and the stopping rules start afresh."""
        self.pool_ids = np.array(ids, dtype=np.int64)
        self.pool_rows = np.array(rows, dtype=np.int64)
        self.n_pool = self.pool_ids.shape[0]
        self.pool_total = self.n_pool
        self.pool_start = self.n_labels
        self.pending = -1
        self.sv_stop = -1
        self.margin_stop = -1
        if self.stop_reason != "budget":
            self.stop_reason = ""

    @property
    def stopped(self) -> bool:
        return self.stop_reason != ""

    def _both_classes(self) -> bool:
        return self.both_at >= 0

    def propose(self):
        """The next query as ``(row, store id, y(x))``, or None when selection has ended
        (``stop_reason`` says why). Repeated calls return the same query until it is
        answered with :meth:`learn_pending`."""
        if self.pending >= 0:
            t = self.pending
            return int(self.pool_rows[t]), int(self.pool_ids[t]), self.pending_f
        if self.stopped:
            return None
        if 0 <= self.max_labels <= self.n_labels:
            self.stop_reason = "budget"
            return None
        m = self.n_pool
        if m == 0:
            self.stop_reason = "pool exhausted"
            return None
        if not self._both_classes():
            _core.draw_front(self.pool_ids, self.pool_rows, m, 1, self.al_rng)
            t = 0
            f = float(self.decision_stored(self.pool_ids[:1])[0])
        else:
            if 0 < self.pool_size < m:
                _core.draw_front(self.pool_ids, self.pool_rows, m, self.pool_size, self.al_rng)
                n = self.pool_size
            else:
                n = m
            f_all = self.decision_stored(self.pool_ids[:n])
            t = _core.closest(self.pool_ids, f_all, n)
            f = float(f_all[t])
            if self._margin_exhausted(abs(f)):
                if self.margin_stop < 0:
                    self.margin_stop = self.n_labels
                if self.stopping in ("margin", "either"):
                    self.stop_reason = "margin"
                    return None
        self.pending = t
        self.pending_f = f
        return int(self.pool_rows[t]), int(self.pool_ids[t]), f

    def _margin_exhausted(self, distance) -> bool:
        n = int(self.cnt[_N_COLS])
        _, _, r = _core.support_stats(self.alpha, self.g, self.perm, self.ys, self.intercept, n)
        return distance >= min(1.0, r)

    def learn_pending(self, y) -> None:
        """Label (±1) of the pending query: one LASVM iteration on it, then the SV-count rule."""
        t = self.pending
        k = int(self.pool_ids[t])
        row = int(self.pool_rows[t])
        self.set_labels([k], float(y))
        self.label_counts[int(y > 0)] += 1
        if self.class_weight == "balanced":
            self._balance_costs()
        self.process_examples(np.array([k], dtype=np.int64))
        self.n_pool = _core.remove_at(self.pool_ids, self.pool_rows, t, self.n_pool)
        self.pending = -1
        self._record(row)

    def _balance_costs(self):
        """DC: the minority class gets ``C`` times the imbalance ratio of the labels so far
        (Ertekin et al., Section 6); applies to examples inserted from now on."""
        neg, pos = (max(int(c), 1) for c in self.label_counts)
        self.Cp = self.C * max(1.0, neg / pos)
        self.Cn = self.C * max(1.0, pos / neg)

    def _record(self, row) -> None:
        t = self.n_labels
        if t >= self.sv_hist.shape[0]:
            grown = np.zeros((2 * t, 2), dtype=np.int32)
            grown[:t] = self.sv_hist[:t]
            self.sv_hist = grown
            rows = np.zeros(2 * t, dtype=np.int64)
            rows[:t] = self.picked_rows[:t]
            self.picked_rows = rows
        n = int(self.cnt[_N_COLS])
        n_neg, n_pos, _ = _core.support_stats(self.alpha, self.g, self.perm, self.ys,
                                              self.intercept, n)
        self.sv_hist[t] = (n_neg, n_pos)
        self.picked_rows[t] = row
        self.n_labels = t + 1
        if self.both_at < 0 and n_neg > 0 and n_pos > 0:
            self.both_at = self.n_labels
        self._check_sv_count()

    def _check_sv_count(self) -> None:
        t = self.n_labels
        if self.both_at < 0 or t - self.window < max(self.both_at, self.pool_start):
            return
        now = int(self.sv_hist[t - 1].sum())
        before = int(self.sv_hist[t - 1 - self.window].sum())
        if abs(now - before) <= self.tolerance * now:
            if self.sv_stop < 0:
                self.sv_stop = t
            if self.stopping in ("sv_count", "either"):
                self.stop_reason = "sv_count"

    def select(self, max_labels=None) -> None:
        """Run the selection loop with the stored labels as the oracle (labels known)."""
        done = 0
        while max_labels is None or done < max_labels:
            query = self.propose()
            if query is None:
                return
            self.learn_pending(self.ys[query[1]])
            done += 1

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
        self.n_pool = 0
        self.pending = -1

    # ------------------------------------------------------------------ records
    @property
    def stopping_point(self) -> int:
        """Labels spent when selection was stopped by the chosen rule, or -1."""
        if self.stop_reason in ("sv_count", "margin"):
            return self.sv_stop if self.stop_reason == "sv_count" else self.margin_stop
        return -1
