"""The bounded ("budget") tracking mode: the driver of :mod:`.budget_site`.

The exact protocol (:class:`~streamsvm.distributed.protocol.Tracker`) keeps every point of
every site under watch and solves local problems over a site's points and all atoms of ê:
on noisy data most points become atoms, and the cost of a row grows with the stream (on
600 rows of banana, 77% of the rows were atoms and a row cost 8 ms at 100 rows, 38 ms at
600; ``docs/distributed.md``). This mode bounds every part of a row's cost:

* ê is a vector (:class:`~.budget_site.PrimalVector`) in an explicit feature space of fixed
  size D: the input space for the linear kernel, random Fourier features for RBF
  (:mod:`.features`). A broadcast carries D + 5 numbers, never a point: raw rows never
  leave their site.
* A new point is checked once, when it arrives (one z(x) and a dot product); if it violates
  its constraint (eq. 4.1, ≥ −ε) its site solves one local problem over at most
  ``budget + 2`` points (ê's rest, its active atoms, the point) and broadcasts the result.
  There is no settling loop: other sites check their atoms when they next solve.
* Sites are grouped in ``n_workers`` processes (:class:`~.budget_site.BudgetWorker`, one
  endpoint of the message layer or one Ray actor each), so 1,000 sites cost 16 endpoints.

Counting as in :class:`~streamsvm.distributed.network.CommStats`: a broadcast of ê is K − 1
messages of D + 5 scalars each; a deletion of an atom is one broadcast; the first point is
one broadcast.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import EventChecks, check_int
from .budget_site import PrimalVector
from .network import CopiedAsFiles, EventRecord, LocalNetwork

__all__ = ["BudgetTracker", "BudgetStats"]

_COUNTERS = ("messages", "vectors", "scalars", "bytes", "vector_broadcasts", "rounds",
             "membership_problems", "additions", "deletions", "updates")
_RECORDED = ("rounds", "messages", "vectors", "vector_broadcasts", "scalars", "bytes",
             "membership_problems")


class BudgetStats:
    """Running totals of the communication, and a record
    (:class:`~streamsvm.distributed.network.EventRecord`) of each event given one at a time
    (``add``, ``delete``, event logs); the rows of ``fit`` / ``partial_fit`` get none (a
    stream of millions of rows would keep millions of them)."""

    def __init__(self, n_features):
        self.n_features = int(n_features)
        for name in _COUNTERS:
            setattr(self, name, 0)
        self.events = []
        self._current = None

    def begin(self, kind, site, point_id):
        self._current = (EventRecord(kind=kind, site=int(site), point_id=point_id,
                                     triggered=False, certificate=None, fallback=False),
                         {name: getattr(self, name) for name in _RECORDED})

    def end(self, n_atoms, objective):
        record, before = self._current
        for name in _RECORDED:
            record[name] = getattr(self, name) - before[name]
        record["triggered"] = record["rounds"] > 0
        record.update(n_atoms=int(n_atoms), objective=float(objective))
        self.events.append(record)
        self._current = None

    def broadcast(self, n_sites, n_scalars):
        """One site sends ``n_scalars`` numbers to the K − 1 others."""
        k = n_sites - 1
        self.messages += k
        self.scalars += k * n_scalars
        self.bytes += k * 8 * n_scalars
        self.rounds += 1

    def totals(self) -> dict:
        out = {name: getattr(self, name) for name in _COUNTERS}
        out["events"] = self.additions + self.deletions
        return out


class BudgetTracker(CopiedAsFiles, EventChecks):
    """K sites tracking the L2-SVM in an explicit feature space with a budget of active atoms
    per site (see the module docstring).

    Parameters
    ----------
    n_sites, n_features : int ≥ 1
    space : the :class:`~streamsvm.distributed.objective.KernelSpace` (its kernel, C, task)
    feature_map : an :mod:`.features` map of that kernel
    epsilon, relative : the constraint ≥ −ε (absolute, or ε̂ of section 3.3)
    budget : active atoms per site
    n_workers : processes hosting the sites (site k at worker k mod n_workers)
    backend, checkpoint_every, checkpoint_dir, transport : as for the exact tracker
    monitor_tol : rounding allowance, relative to f(ê)
    """

    _transient = ("network", "_owner", "_wire", "_transport")

    def __init__(self, n_sites, n_features, space, feature_map, *, epsilon=0.0,
                 relative=False, budget=50, n_workers=16, backend="local", monitor_tol=1e-9,
                 checkpoint_every=100, checkpoint_dir=None, transport=None, tol=1e-10):
        from .budget_site import BudgetWorker

        check_int("n_sites", n_sites, 1)
        check_int("n_features", n_features, 1)
        check_int("budget", budget, 1)
        check_int("n_workers", n_workers, 1)
        if backend not in ("local", "ray"):
            raise ValueError(f"backend must be 'local' or 'ray'; got {backend!r}")
        self.n_sites, self.n_features = int(n_sites), int(n_features)
        self.space = space
        self.feature_map = feature_map
        self.epsilon, self.relative = float(epsilon), bool(relative)
        self.monitor_tol = float(monitor_tol)
        self.budget = int(budget)
        self.n_workers = min(int(n_workers), self.n_sites)
        self.backend = backend
        self.checkpoint_every = int(checkpoint_every)
        self.checkpoint_dir = checkpoint_dir
        self._transport = transport
        task = {"two-class": 2, "one-class": 1}[space.task]
        config = {"inv_c": space.inv_c, "task": task, "budget": self.budget, "tol": float(tol)}
        workers = [BudgetWorker(j, range(j, self.n_sites, self.n_workers), self.n_features,
                                feature_map, config) for j in range(self.n_workers)]
        self.network = self._make_network(workers)
        self.stats = BudgetStats(self.n_features)
        self.glob = None
        self._next_gen = 0
        self._owner: dict[int, int] = {}
        self._wire: dict[int, int] = {}
        self._next_wire = 0
        self._next_id = 0

    def _make_network(self, workers, *, private_if_taken=False):
        options = {"transport": getattr(self, "_transport", None),
                   "checkpoint_every": self.checkpoint_every,
                   "checkpoint_dir": self.checkpoint_dir, "private_if_taken": private_if_taken}
        if self.backend == "ray":
            from .ray_backend import RayNetwork

            return RayNetwork(workers, **options)
        return LocalNetwork(workers, **options)

    # ---------------------------------------------------------------------- events

    @property
    def _has_global(self) -> bool:
        return self.glob is not None

    def _where(self, site):
        return site % self.n_workers, site

    def threshold(self) -> float:
        """ε (absolute, after section 3.3) plus the rounding allowance."""
        if self.glob is None:
            return 0.0
        f = self.glob.f
        eps = self.epsilon / (1.0 + self.epsilon) * f if self.relative else self.epsilon
        return eps + self.monitor_tol * max(abs(f), 1.0)

    def add(self, site, x, y=1.0, point_id=None):
        """A point arrives at ``site``; returns ``{"point_id": ..., "slack": ...}``."""
        site, x, y, pid = self._begin_add(site, x, y, point_id)
        slack = self._add(site, x, y, pid)
        self._end()
        return {"point_id": pid, "slack": slack}

    def _end(self):
        self.stats.end(0 if self.glob is None else self.glob.n_atoms, self.objective_value())

    def add_rows(self, sites, X, y):
        """Add checked rows (the estimator's ``fit``), ids continuing from the last.

        BLAS runs on one thread meanwhile (the sites are the parallelism): its threads on
        the small products of a site's work took 7 times the CPU (10.7 s instead of 1.4 s
        for 800 rows of digits on a busy 2-core machine)."""
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            for k, row, label in zip(sites, X, y, strict=True):
                pid = self._check_point_id(None, new=True)
                self._add(int(k), np.ascontiguousarray(row, dtype=np.float64), float(label),
                          pid)

    def _add(self, site, x, y, pid):
        wid = self._next_wire
        worker, k = self._where(site)
        slack, new = self.network.call(worker, "add", k, self.glob, wid, x, y,
                                       self.threshold(), self._next_gen)
        self._next_wire += 1
        self._owner[pid] = site
        self._wire[pid] = wid
        self._next_id = max(self._next_id, pid + 1)
        self.stats.additions += 1
        if new is not None:
            self._install(new)
        return slack

    def _install(self, new):
        self.stats.updates += 1
        self.stats.broadcast(self.n_sites, new.w.shape[0] + PrimalVector.N_SCALARS)
        self.glob = new
        self._next_gen = max(self._next_gen, new.gen + 1)

    def delete(self, site, point_id):
        """Point ``point_id`` is deleted at ``site`` (where it was added)."""
        site, pid = self._begin_delete(site, point_id)
        worker, k = self._where(site)
        new = self.network.call(worker, "delete", k, self.glob, self._wire[pid])
        del self._owner[pid], self._wire[pid]
        self.stats.deletions += 1
        if new is None and self.glob is not None:  # ê had no other weight: no model
            self.stats.updates += 1
            self.stats.broadcast(self.n_sites, 1)
            self.glob = None
        elif new is not self.glob:
            self._install(new)
        self._end()
        return {"point_id": pid}

    def flip_labels(self):
        """Negate every label (the estimator's stream met its second class): w and b change
        sign, f does not."""
        self.network.call_many(range(self.n_workers), "flip_labels")
        if self.glob is not None:
            self.glob = self.glob.negated()

    # --------------------------------------------------------------------- queries

    def decision_function(self, X, site=0) -> np.ndarray:
        """w·z(x) + b (two-class; = Σ a_i y_i (z_i·z(x) + 1)) or w·z(x) − f (one-class), as
        every site holds it (no communication)."""
        self._check_site(site)
        if self.glob is None:
            raise ValueError("no point has been added yet: there is no model to query")
        X = self._check_rows(X)
        out = np.empty(X.shape[0])
        for i in range(0, X.shape[0], 4096):
            Z = self.feature_map.transform(X[i:i + 4096])
            out[i:i + 4096] = Z @ self.glob.w + (self.glob.b if self.space.task == "two-class"
                                                 else -self.glob.f)
        return out

    def objective_value(self, site=0) -> float:
        self._check_site(site)
        return math.nan if self.glob is None else self.glob.f

    def global_vector(self, site=0):
        """(point ids, coefficients) of the atoms of ê with weight (retired ones too)."""
        self._check_site(site)
        if self.glob is None:
            return np.empty(0, np.int64), np.empty(0)
        user = {w: p for p, w in self._wire.items()}
        rows = [r for part in self.network.call_many(range(self.n_workers), "atoms", self.glob)
                for r in part]
        rows.sort(key=lambda r: r[1])
        return (np.array([user[r[1]] for r in rows], dtype=np.int64),
                np.array([r[2] for r in rows], dtype=np.float64))

    def point_ids(self):
        return dict(self._owner)

    def report(self) -> dict:
        """Totals, with the naive protocol's beside them (as the exact tracker's)."""
        out = self._report_totals(0 if self.glob is None else int(self.glob.n_atoms))
        kept = self.network.call_many(range(self.n_workers), "counts")
        out["n_kept"] = int(sum(c[0] for c in kept))
        out["n_active"] = int(sum(c[1] for c in kept))
        return out

    def close(self):
        self.network.close()
