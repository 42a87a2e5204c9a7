"""The tracking protocol of P. Chrysogelos, "Streaming, High Performance Support Vector
Methods" (diploma thesis, Technical University of Crete, 2016), chapters 2–3: minimise a
convex differentiable f over the convex hull of the union of K sites' fully dynamic point
sets, with every site holding the (exact or ε-approximate) optimum ê at all times.

:class:`Tracker` is the driver. It routes events to sites, lets the sites check their local
constraints, and when a constraint fails runs an update, moving every message between sites
itself and counting it (:class:`~streamsvm.distributed.network.CommStats`); the moves go
through the message layer of :mod:`~streamsvm.distributed.messages`. Synchronous
rounds are assumed: after a broadcast a site that sees no violation stays silent, and a site
that does reports its smallest slack (one scalar) to the broadcaster, which hands a token to
the most violated site (the paper leaves the choice open: "one of the sites having at least
one violation is selected").

Monitoring (sections 2.4, 3.1): a new point x_N at site r is checked against
``∇f(ê)ᵀ(x_N − ê) ≥ −ε`` (Theorems 1 and 5; ε = 0 exact, with a rounding allowance
``monitor_tol · scale``). Relative error (section 3.3): ε = ε̂ / (1 + ε̂) · f(ê), recomputed
whenever ê (even a temporary one) is broadcast. A deleted point with coefficient 0 in ê
(section 2.4.2; slack > 0 implies it, Theorem 3) needs no communication.

Updates after an addition (section 2.5.1 / 3.2.1):

* ``method1``: the site solves problem 2.3 over its known points, broadcasts the result; the
  most violated site (if any) solves next, until no site has a violation.
* ``method2``: the violator is broadcast; every site cuts the rays from x_N through its known
  points at ∂S_ε (eq. 4.2), finds the extreme points of that set (hull membership, QP or
  the LP of Theorem 6) and sends the own-stream ones to r; r solves problem 2.4 once and
  broadcasts. In the approximate case, if the solution lies on ∂S_ε the paper's fall-back to
  method 1 runs at r, over its known points and the points it received.

Wire ids: the sites never see the user's point ids, but ids the tracker hands out once and
never reuses (in a real deployment, (site, serial) pairs made up locally). A user may reuse a
point id after its deletion; the sites' dictionary of shared vectors (see
:mod:`~streamsvm.distributed.site`) must never confuse the two points.

Counting: a combination broadcast carries every atom's id and coefficient (scalars) and the
vectors of the atoms that are not shared yet (``vector_broadcasts``, once each); a recipient
that owns such a vector is not sent its own point (``vectors`` counts copies per recipient).

Updates after a deletion of an atom (section 2.5.2 / 3.2.2): method 1 from the site of the
deletion. In exact mode ``deletion_check='hull'`` first collects the points on ∂S (slack 0)
and tries to re-express ê without the deleted point (section 2.4.2).
"""

from __future__ import annotations

import copy
import math
import numbers
import os
import warnings

import numpy as np

from ._checks import EventChecks, check_int
from .network import CommStats, CopiedAsFiles, LocalNetwork
from .objective import PointBlock
from .site import Site

__all__ = ["Tracker"]

UPDATE_METHODS = ("method1", "method2")


class Tracker(CopiedAsFiles, EventChecks):
    """K sites tracking min f over conv(∪_k D_k); see the module docstring.

    Parameters
    ----------
    n_sites : int ≥ 1
    n_features : int ≥ 1, width of every point
    space, objective : a space and an objective of :mod:`~streamsvm.distributed.objective`
    epsilon : float ≥ 0, 0 for exact tracking; absolute, or ε̂ when ``relative``
    update : 'method1' or 'method2'
    membership : 'qp' or 'lp', hull membership in method 2's extreme-point search
    prune : the collector of method 2 discards non-extremes before solving
    monitor_tol : rounding allowance of the constraints, relative to max k̂(x, x) of ê's atoms
    deletion_check : 'update' (update at once) or 'hull' (exact mode: try to re-express ê)
    backend : 'local' or 'ray'
    max_rounds : cap on method-1 rounds per event (default 20 K + 100)
    shared_cache : int ≥ 0, entries of every site's dictionary of broadcast vectors (0: only
        the atoms of the previous ê are known, the thesis' chapter-5 counting)
    checkpoint_every : int ≥ 0, requests to a site between its checkpoints (0: none; a site
        that crashes then ends the run)
    checkpoint_dir : where the sites' checkpoints go (default: a temporary directory)
    transport : how the message layer's envelopes travel (default: perfectly; a
        :class:`~streamsvm.distributed.faults.FaultyTransport` injects faults)
    """

    _transient = ("network", "_owner", "_wire", "_user", "_transport")

    def __init__(self, n_sites, n_features, space, objective, *, epsilon=0.0, relative=False,
                 update="method1", membership="qp", prune=True, monitor_tol=1e-9,
                 deletion_check="update", backend="local", max_rounds=None,
                 shared_cache=10_000, checkpoint_every=100, checkpoint_dir=None,
                 transport=None):
        check_int("n_sites", n_sites, 1)
        check_int("n_features", n_features, 1)
        if not isinstance(epsilon, numbers.Real) or isinstance(epsilon, bool) \
                or not math.isfinite(epsilon) or epsilon < 0:
            raise ValueError(f"epsilon must be a finite float >= 0; got {epsilon!r}")
        if update not in UPDATE_METHODS:
            raise ValueError(f"update must be 'method1' or 'method2'; got {update!r}")
        if membership not in ("qp", "lp"):
            raise ValueError(f"membership must be 'qp' or 'lp'; got {membership!r}")
        if deletion_check not in ("update", "hull"):
            raise ValueError(f"deletion_check must be 'update' or 'hull'; got {deletion_check!r}")
        if backend not in ("local", "ray"):
            raise ValueError(f"backend must be 'local' or 'ray'; got {backend!r}")
        check_int("shared_cache", shared_cache, 0)
        check_int("checkpoint_every", checkpoint_every, 0)
        self.checkpoint_every = int(checkpoint_every)
        self.checkpoint_dir = None if checkpoint_dir is None else os.fspath(checkpoint_dir)
        self._transport = transport
        self.n_sites = int(n_sites)
        self.n_features = int(n_features)
        self.space = space
        self.objective = objective
        self.epsilon = float(epsilon)
        self.relative = bool(relative)
        self.update = update
        self.deletion_check = deletion_check
        self.backend = backend
        self.max_rounds = 20 * self.n_sites + 100 if max_rounds is None else int(max_rounds)
        config = {"epsilon": self.epsilon, "relative": self.relative,
                  "monitor_tol": float(monitor_tol), "membership": membership,
                  "prune": bool(prune), "shared_cache": int(shared_cache)}
        # every site has its own copy of the space (its kernel counts the site's own work),
        # in-process as on Ray actors, and after a restart from a checkpoint
        self.network = self._make_network(
            [Site(k, self.n_features, copy.deepcopy(space), objective, config)
             for k in range(self.n_sites)])
        self.stats = CommStats(self.n_features)
        self._owner: dict[int, int] = {}  # user point id -> site
        self._wire: dict[int, int] = {}  # user point id -> wire id
        self._user: dict[int, int] = {}  # wire id -> user point id
        self._next_wire = 0
        self._atoms = np.empty(0, dtype=np.int64)  # wire ids
        self._has_global = False
        self._threshold = 0.0
        self._next_id = 0

    def _make_network(self, sites, *, private_if_taken=False):
        """The network of ``sites``; ``private_if_taken``: a copy or a loaded tracker, which
        checkpoints its sites anew in a temporary folder of its own when its
        ``checkpoint_dir`` is in use by another live model (a new one is refused)."""
        options = {"transport": getattr(self, "_transport", None),
                   # files saved before the message layer lack these two
                   "checkpoint_every": getattr(self, "checkpoint_every", 100),
                   "checkpoint_dir": getattr(self, "checkpoint_dir", None),
                   "private_if_taken": private_if_taken}
        if self.backend == "ray":
            from .ray_backend import RayNetwork

            return RayNetwork(sites, **options)
        return LocalNetwork(sites, **options)

    # ------------------------------------------------------------------ persistence

    def _restore_transient(self) -> None:
        super()._restore_transient()
        self._user = {w: p for p, w in self._wire.items()}

    # ---------------------------------------------------------------------- events

    def add(self, site, x, y=1.0, point_id=None):
        """A point arrives at ``site``; returns the event's record (its ``point_id`` too)."""
        site, x, y, pid = self._begin_add(site, x, y, point_id)
        wid = self._next_wire
        slack = self.network.call(site, "add_point", wid, x, y)
        self._next_wire += 1
        self._owner[pid] = site
        self._wire[pid] = wid
        self._user[wid] = pid
        self._next_id = max(self._next_id, pid + 1)
        if not self._has_global:
            self.stats._current["triggered"] = True
            comb = self.network.call(site, "init_global", wid)
            self.stats.count("rounds")
            self._settle(site, self._broadcast(site, comb))
        elif slack < -self._threshold:
            self.stats._current["triggered"] = True
            if self.update == "method1":
                self._method1(site)
            else:
                self._method2(site, PointBlock([wid], [x], [y]))
        return self._end()

    def delete(self, site, point_id):
        """Point ``point_id`` is deleted at ``site`` (where it was added)."""
        site, pid = self._begin_delete(site, point_id)
        wid = self._wire[pid]
        coef, slack = self.network.call(site, "point_certificate", wid)
        del self._owner[pid], self._wire[pid], self._user[wid]
        if coef == 0.0:
            # section 2.4.2: zero coefficient (and Theorem 3: slack > 0 implies it)
            cert = "positive-slack" if slack > self._threshold else "zero-coefficient"
            self.stats._current["certificate"] = cert
            self.network.call(site, "remove_point", wid)
            return self._end()
        self.stats._current["triggered"] = True
        if self.deletion_check == "hull" and self.epsilon == 0.0 and self._hull_check(site, wid):
            self.stats._current["certificate"] = "re-expressed"
            return self._end()
        self.network.call(site, "remove_point", wid)
        if not self._owner:
            self._clear_global()
        else:
            self._method1(site)
        return self._end()

    def _end(self):
        return self.stats.end(n_atoms=int(self._atoms.size), objective=self.objective_value())

    # --------------------------------------------------------------------- updates

    def _broadcast(self, s, comb):
        """Site s sends ê (the atoms not shared yet as vectors, all ids and coefficients) to
        the others; every site installs it. Returns each site's (min slack, violations,
        threshold)."""
        owners = [self._owner[self._user[int(w)]] for w in comb.new.ids]
        for k in range(self.n_sites):
            if k != s:  # a site is not sent its own points
                self.stats.send(1, n_vectors=len(owners) - owners.count(k),
                                n_scalars=2 * len(comb.ids))
        self.stats.count("vector_broadcasts", len(comb.new))
        results = self.network.call_many(range(self.n_sites), "set_global", comb)
        self._atoms = comb.ids.copy()
        self._has_global = True
        self._threshold = results[0][2]
        return results

    def _settle(self, s, results):
        """Method-1 rounds until no site reports a violation (section 2.5.1)."""
        last_f = np.inf
        while True:
            violators = [(r[0], k) for k, r in enumerate(results) if r[1] > 0]
            if not violators:
                return
            reporters = [k for _, k in violators if k != s]
            self.stats.send(len(reporters), n_scalars=1)
            _, nxt = min(violators)
            if nxt != s:
                self.stats.send(1, n_scalars=1)  # the token
            s = nxt
            if self.stats._current["rounds"] >= self.max_rounds:
                warnings.warn(f"update stopped after {self.max_rounds} rounds with violations "
                              "left (numerical trouble?)", RuntimeWarning, stacklevel=3)
                return
            comb = self.network.call(s, "solve_local", None)
            self.stats.count("rounds")
            if comb.f >= last_f and s == violators[0][1] and len(violators) == 1:
                warnings.warn("a local solve made no progress on its own violation; stopping "
                              "the update", RuntimeWarning, stacklevel=3)
                return
            last_f = comb.f
            results = self._broadcast(s, comb)

    def _method1(self, s, extra=None):
        comb = self.network.call(s, "solve_local", extra)
        hops = 0
        while comb is None:  # s knows no point any more (ê was its deleted point): pass on
            hops += 1
            s = (s + 1) % self.n_sites
            self.stats.send(1, n_scalars=1)
            comb = self.network.call(s, "solve_local", extra)
            if hops > self.n_sites:
                raise RuntimeError("no site holds a point, yet the tracker has points")
        self.stats.count("rounds")
        self._settle(s, self._broadcast(s, comb))

    def _method2(self, r, violator: PointBlock):
        others = [k for k in range(self.n_sites) if k != r]
        self.stats.send(len(others), n_vectors=1)  # broadcast of x_N
        self.stats.count("vector_broadcasts", 1)
        replies = self.network.call_many(others, "ray_extremes", violator)
        received = PointBlock.empty(self.n_features)
        shared = []
        for block, ids, solved in replies:
            self.stats.count("membership_problems", solved)
            if len(block) or ids:  # vectors, and the ids of shared ones
                self.stats.send(1, n_vectors=len(block), n_scalars=len(ids))
                received = received.concat(block)
                shared += ids
        if shared:
            received = received.concat(self.network.call(r, "decode_shared", shared))
        comb, ec_slack, _ = self.network.call(r, "collect_and_solve", violator, received)
        self.stats.count("rounds")
        eps_abs = self.network.call(r, "epsilon_abs")
        if self.epsilon == 0.0 or ec_slack < -eps_abs - 1e-12 * max(1.0, abs(eps_abs)):
            self._settle(r, self._broadcast(r, comb))
        else:
            # e_c on ∂S_ε: fall back to method 1 (section 3.2.1), r keeps what it received
            self.stats._current["fallback"] = True
            self._method1(r, received)

    def _hull_check(self, site, pid):
        """Exact deletion of an atom (section 2.4.2): collect the points on ∂S and try to
        write ê as their convex combination without x_D. Returns True if it succeeded (the
        new combination is then broadcast and the point removed)."""
        others = [k for k in range(self.n_sites) if k != site]
        self.stats.send(len(others), n_scalars=1)  # request
        collected = PointBlock.empty(self.n_features)
        for block in self.network.call_many(others, "boundary_points", pid):
            if len(block):
                self.stats.send(1, n_vectors=len(block))
                collected = collected.concat(block)
        comb = self.network.call(site, "reexpress_without", pid, collected)
        if comb is None:
            return False
        self.network.call(site, "remove_point", pid)
        self._broadcast(site, comb)
        return True

    def _clear_global(self):
        self._has_global = False
        self._atoms = np.empty(0, dtype=np.int64)
        self.network.call_many(range(self.n_sites), "clear_global")

    # --------------------------------------------------------------------- queries

    def objective_value(self, site=0) -> float:
        """f(ê) as ``site`` holds it (nan before any point)."""
        return float(self.network.call(self._check_site(site), "objective_value"))

    def decision_function(self, X, site=0) -> np.ndarray:
        """Decision values at ``site`` (no communication, section 4.4)."""
        site = self._check_site(site)
        if not self._has_global:
            raise ValueError("no point has been added yet: there is no model to query")
        return self.network.call(site, "decision_function", self._check_rows(X))

    def _user_ids(self, wire_ids):
        return np.array([self._user[int(w)] for w in wire_ids], dtype=np.int64)

    def global_vector(self, site=0):
        """(atom point ids, coefficients) of ê at ``site``."""
        ids, coef = self.network.call(self._check_site(site), "global_vector")
        return self._user_ids(ids), coef

    def site_points(self, site):
        """(point ids, slacks) of the points of ``site`` under its current ê."""
        ids, slacks = self.network.call(self._check_site(site), "own_slacks")
        return self._user_ids(ids), slacks

    def shared_ids(self, site=0):
        """Point ids whose vectors every site holds (ê's atoms, then the dictionary of
        shared vectors, oldest first), as ``site`` keeps them; ids of points deleted since
        are left out."""
        ids = self.network.call(self._check_site(site), "shared_ids")
        return [self._user[w] for w in ids if w in self._user]

    def threshold(self) -> float:
        """The current constraint threshold ε(ê) + rounding allowance."""
        return self._threshold

    def point_ids(self):
        """{point id: site} of every current point."""
        return dict(self._owner)

    def report(self) -> dict:
        """Totals of the communication, with the naive protocol's beside them:
        ``naive_vectors``, every added point sent once (to a coordinator, or broadcast to
        every site, which keeps every site's model current as this protocol does; compare
        with ``vector_broadcasts``); ``naive_copies_every_site``, the latter per recipient
        (compare with ``vectors``); ``naive_bytes``, the coordinator's bytes."""
        return self._report_totals(int(self._atoms.size))

    def flip_labels(self):
        """Negate every label at every site (the estimator's stream met its second class)."""
        self.network.call_many(range(self.n_sites), "flip_labels")

    def close(self):
        self.network.close()
