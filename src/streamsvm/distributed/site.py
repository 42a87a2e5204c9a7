"""One site of the tracking protocol (P. Chrysogelos, "Streaming, High Performance Support
Vector Methods", diploma thesis, Technical University of Crete, 2016, section 1.3): its
points D_k, the global vector ê (known to every site, as a convex combination of atoms),
local constraints and local problems. A site never talks to other sites itself: the protocol
driver (:mod:`~streamsvm.distributed.protocol`) moves messages between sites and counts them,
through the message layer (:mod:`~streamsvm.distributed.messages`), so the same
:class:`Site` runs in-process or as a Ray actor.

Known points M_k = D_k ∪ atoms(ê) (section 2.3): the local problems (2.3, 4.5) and method 2's
rays use exactly these. Point ids here are the tracker's wire ids (unique for the life of the
tracker, never reused), not the user's point ids.

Shared vectors (a decode-only dictionary). Chapter 5 of the thesis sends "only the new
components" of each new combination, i.e. atoms that were not in the previous one, so an atom
that drops out and later re-enters crossed the network again (a quarter of all vector
broadcasts on the 10-D chessboard). Every site sees every broadcast in the same order, so the
set B of points that were broadcast to all sites is common knowledge: each site keeps B's
vectors in a FIFO dictionary of ``shared_cache`` entries (current atoms are held apart and
always known), updated by the same deterministic rule at every site, and a broadcast carries
only the atoms not in B. The dictionary only decodes ids: it is never part of M_k, so a
cached point that its owner has since deleted (without telling anyone, as the deletion
certificates allow) can never enter a local problem; as wire ids are never reused it is
merely dead weight until it leaves the FIFO. ``shared_cache=0`` gives the thesis' counting.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ..utils.arrays import grow_rows, zero_rows
from . import _core
from .geometry import extreme_points
from .objective import PointBlock, minimise_gram

__all__ = ["Site", "Combination"]


class Combination:
    """A global vector as sent over the wire: atom ``ids``, convex ``coef`` and the atoms'
    points that the receivers may not know yet (``new``)."""

    __slots__ = ("ids", "coef", "new", "f")

    def __init__(self, ids, coef, new: PointBlock, f: float):
        self.ids = np.asarray(ids, dtype=np.int64)
        self.coef = np.asarray(coef, dtype=np.float64)
        self.new = new
        self.f = float(f)


class Site:
    """State and local computations of site ``index``.

    ``config``: ``epsilon`` (≥ 0), ``relative`` (ε read as ε̂ of section 3.3),
    ``monitor_tol`` (rounding allowance of the exact constraints, relative to the scale of
    the atoms' Gram diagonal), ``membership`` ('qp' or 'lp', for extreme points),
    ``prune`` (the collector of method 2 discards non-extremes), ``shared_cache`` (entries of
    the dictionary of broadcast vectors; see the module docstring).
    """

    #: slacks of points added before any global vector are NaN (not known yet)
    _may_hold_nan = ("_slacks",)

    _transient = ("_row", "_cache", "_atom_gram", "_own_cross", "_known_gram")

    def __init__(self, index, n_features, space, objective, config):
        self.index = int(index)
        self.n_features = int(n_features)
        self.space = space
        self.objective = objective
        self.config = dict(config)
        # zero-filled, so that the unused capacity is part of a reproducible state
        zero_rows(self, {"_X": (np.float64, self.n_features), "_y": np.float64,
                         "_ids": np.int64, "_slacks": np.float64}, 16)
        self._n = 0
        self._row = {}
        self._atoms = PointBlock.empty(self.n_features)
        self._coef = np.empty(0)
        self._installed = PointBlock.empty(self.n_features)  # atoms of the last broadcast ê
        self._cache = OrderedDict()  # wire id -> (x, y): broadcast earlier, not an atom now
        self._atom_gram = None  # (wire ids, their k̂ Gram) of the last installed ê
        self._own_cross = None  # (atom ids, own ids, k̂ between them) of the last slacks
        self._known_gram = None  # (ids, ids, k̂ among them) of the last local problem's M_k
        self._summary = None
        self._threshold = 0.0
        self._eps_abs = 0.0

    # ------------------------------------------------------------------ persistence

    def _persist_state(self) -> dict:
        """Attributes to save (:mod:`streamsvm.persistence`): the dictionaries as arrays."""
        state = {k: v for k, v in vars(self).items() if k not in self._transient}
        state["_cache_block"] = self._cache_block()
        return state

    def _restore_transient(self) -> None:
        self._row = {int(p): i for i, p in enumerate(self._ids[:self._n])}
        self._atom_gram = None
        self._own_cross = None
        self._known_gram = None
        block = self.__dict__.pop("_cache_block", None)
        self._cache = OrderedDict()
        if block is not None:
            for p, x, y in zip(block.ids, block.X, block.y, strict=True):
                self._cache[int(p)] = (x.copy(), float(y))

    def _cache_block(self) -> PointBlock:
        if not self._cache:
            return PointBlock.empty(self.n_features)
        ids = list(self._cache)
        return PointBlock(ids, np.array([self._cache[p][0] for p in ids]),
                          [self._cache[p][1] for p in ids])

    def shared_ids(self) -> list:
        """Wire ids every site can decode without receiving the vector: the atoms of the
        last broadcast ê, then the dictionary in FIFO order (identical at every site)."""
        return self._installed.ids.tolist() + list(self._cache)

    def _is_shared(self, pid) -> bool:
        return pid in self._cache or bool(np.any(self._installed.ids == pid))

    def _cache_put(self, pid, x, y):
        pid = int(pid)
        self._cache.pop(pid, None)
        self._cache[pid] = (np.array(x, dtype=np.float64), float(y))

    def _cache_trim(self):
        limit = int(self.config.get("shared_cache", 0))
        while len(self._cache) > limit:
            self._cache.popitem(last=False)

    def register_broadcast(self, block: PointBlock) -> None:
        """Points broadcast to every site outside a combination (method 2's violator) join
        the dictionary."""
        for p, x, y in zip(block.ids, block.X, block.y, strict=True):
            if not np.any(self._installed.ids == p):
                self._cache_put(p, x, y)
        self._cache_trim()

    def flip_labels(self) -> None:
        """Negate every label this site holds (the estimator re-targets a stream that met its
        second class; k̂ = y_i y_j (k + 1) + δ_ij/C does not change, so neither do ê nor the
        slacks, and the decision function changes sign)."""
        self._y[:self._n] *= -1.0
        # new blocks, not negated in place: the sites of one process may share them
        flipped = {id(b): PointBlock(b.ids, b.X, -b.y) for b in (self._atoms, self._installed)}
        self._atoms, self._installed = flipped[id(self._atoms)], flipped[id(self._installed)]
        for p, (x, y) in list(self._cache.items()):
            self._cache[p] = (x, -y)

    # ------------------------------------------------------------------ own points

    def own_block(self) -> PointBlock:
        n = self._n
        return PointBlock(self._ids[:n], self._X[:n], self._y[:n])

    def has_point(self, pid) -> bool:
        return int(pid) in self._row

    def n_points(self) -> int:
        return self._n

    def _grow(self):
        grow_rows(self, ("_X", "_y", "_ids", "_slacks"), 2 * self._X.shape[0], self._n)

    def add_point(self, pid, x, y) -> float:
        """Store a new point; return its slack ∇f(ê)ᵀ(x − ê) (nan before any global vector)."""
        if self._n == self._X.shape[0]:
            self._grow()
        n = self._n
        self._X[n] = x
        self._y[n] = y
        self._ids[n] = pid
        self._row[int(pid)] = n
        self._n = n + 1
        slack = np.nan
        if self._summary is not None:
            slack = float(self._slacks_of(PointBlock([pid], [x], [y]))[0])
        self._slacks[n] = slack
        return slack

    def point_certificate(self, pid):
        """(coefficient of the point in ê, its slack): the two drop-out certificates of
        section 2.4.2 (zero coefficient; slack > 0 ⇒ zero coefficient, Theorem 3)."""
        pid = int(pid)
        hit = np.flatnonzero(self._atoms.ids == pid)
        coef = float(self._coef[hit[0]]) if hit.size else 0.0
        return coef, float(self._slacks[self._row[pid]])

    def remove_point(self, pid) -> None:
        """Delete an own point; if it is an atom, drop it from ê here (ê is then stale until
        the update broadcasts a new one; the remaining weights warm-start the local solve)."""
        pid = int(pid)
        row = self._row.pop(pid)
        last = self._n - 1
        if row != last:
            self._X[row] = self._X[last]
            self._y[row] = self._y[last]
            self._ids[row] = self._ids[last]
            self._slacks[row] = self._slacks[last]
            self._row[int(self._ids[row])] = row
        self._n = last
        keep = self._atoms.ids != pid
        if not keep.all():
            self._atoms = self._atoms.take(np.flatnonzero(keep))
            self._coef = self._coef[keep]
            total = self._coef.sum()
            if total > 0:
                self._coef = self._coef / total

    # --------------------------------------------------------------- global vector

    def has_global(self) -> bool:
        return self._summary is not None

    def _slacks_of(self, block: PointBlock) -> np.ndarray:
        return self.objective.slacks(self.space, self._atoms, self._coef, self._summary, block)

    def _known(self, extra: PointBlock | None = None, exclude=()) -> PointBlock:
        """M_k (own points, then atoms that are not own points), plus ``extra``."""
        own = self.own_block()
        atoms = self._atoms
        mask = np.array([int(i) not in self._row for i in atoms.ids], dtype=bool)
        block = own.concat(atoms.take(np.flatnonzero(mask))) if mask.any() else own
        if extra is not None and len(extra):
            seen = set(block.ids.tolist())
            fresh = [i for i, pid in enumerate(extra.ids) if int(pid) not in seen]
            if fresh:
                block = block.concat(extra.take(fresh))
        if exclude:
            keep = ~np.isin(block.ids, np.asarray(list(exclude), dtype=np.int64))
            block = block.take(np.flatnonzero(keep))
        return block

    def init_global(self, pid) -> Combination:
        """ê = the first point of the stream (chapter 5: the first point initialises)."""
        row = self._row[int(pid)]
        block = PointBlock([pid], self._X[row:row + 1], self._y[row:row + 1])
        f = self.objective.summarise(self.space, block, np.ones(1)).f
        return Combination([pid], [1.0], block, f)

    def set_global(self, comb: Combination):
        """Install a broadcast ê; recompute every own slack. Returns (min slack, number of
        violated constraints, threshold) after the change.

        Atoms missing from ``comb.new`` are decoded from the last ê, the dictionary of
        shared vectors or the own points; the previous atoms that left the combination join
        the dictionary (the same rule at every site keeps the dictionaries identical)."""
        installed, ids = self._installed, comb.ids
        atoms = self._decode(comb)
        for k in np.flatnonzero(~np.isin(installed.ids, ids)):
            self._cache_put(installed.ids[k], installed.X[k], installed.y[k])
        if self._cache:
            now = set(ids.tolist())
            for p in [p for p in self._cache if p in now]:
                self._cache.pop(p)
        self._cache_trim()
        self._atoms = self._installed = atoms
        self._coef = comb.coef.copy()
        if hasattr(self.objective, "summarise_gram") and not self.space.explicit:
            self._summary = self.objective.summarise_gram(self._atoms_gram(), self._coef)
        else:
            self._summary = self.objective.summarise(self.space, self._atoms, self._coef)
        eps = float(self.config["epsilon"])
        if self.config["relative"]:
            eps = eps / (1.0 + eps) * self._summary.f  # section 3.3
        self._eps_abs = eps
        self._threshold = eps + self.config["monitor_tol"] * self._summary.scale
        n = self._n
        if n:
            if hasattr(self.objective, "slacks_gram") and not self.space.explicit:
                own = self.own_block()
                cross = _reused_gram(self.space, self._own_cross, self._atoms, own)
                self._own_cross = (self._atoms.ids.copy(), own.ids.copy(), cross)
                self._slacks[:n] = self.objective.slacks_gram(cross, self._coef, self._summary)
            else:
                self._slacks[:n] = self._slacks_of(self.own_block())
        return self.violation()

    def _decode(self, comb: Combination) -> PointBlock:
        """The atoms of ``comb`` with their vectors: from the sent atoms, then the last ê's
        (vectorised, each vector copied once, straight to its row), the rest from the
        dictionary or the own points. Sites of one process that decode the same broadcast
        from the same last ê (the same atoms: a wire id names one vector) share the result
        (``_shared_work``)."""
        new, installed, ids = comb.new, self._installed, comb.ids
        last = _shared_work["decode"]
        if last is not None and last[0] is comb and np.array_equal(last[1], installed.ids):
            return last[2]
        X = np.empty((len(ids), self.n_features))
        y = np.empty(len(ids))
        found = np.zeros(len(ids), dtype=bool)
        for block in (new, installed):
            slot = _slots(block.ids, ids)
            take = np.flatnonzero((slot >= 0) & ~found)
            if take.size:
                X[take] = block.X[slot[take]]
                y[take] = block.y[slot[take]]
                found[take] = True
        shareable = bool(found.all())
        for i in np.flatnonzero(~found):
            p = int(ids[i])
            if p in self._cache:
                X[i], y[i] = self._cache[p]
            elif p in self._row:
                row = self._row[p]
                X[i], y[i] = self._X[row], self._y[row]
            else:
                raise RuntimeError(f"site {self.index} cannot decode atom {p}: its vector was "
                                   "neither sent nor shared (protocol bug)")
        atoms = PointBlock(ids, X, y)
        if shareable:
            _shared_work["decode"] = (comb, installed.ids, atoms)
        return atoms

    def violation(self):
        """(min own slack, number of own points below −threshold, threshold)."""
        n = self._n
        if n == 0:
            return np.inf, 0, self._threshold
        s = self._slacks[:n]
        return float(s.min()), int(np.sum(s < -self._threshold)), self._threshold

    def _atoms_gram(self) -> np.ndarray:
        """k̂ among the atoms of ê, reusing the entries between atoms of the previous ê.

        Consecutive ê share most atoms; recomputing the whole Gram matrix at every
        broadcast would be most of the time on 784-d MNIST. Each
        entry depends on its two points only (the kernels' rows are exact per pair), so the
        reused entries are the very bits a fresh ``space.gram`` gives."""
        atoms = self._atoms
        previous = self._atom_gram
        last = _shared_work["atom_gram"]
        if last is not None and last[0] is atoms:  # the bits of space.gram(atoms), however made
            self.space.kernel.n_evals += len(atoms) ** 2
            self._atom_gram = last[1]
            return last[1][1]
        if previous is None or len(atoms) == 0:
            G = self.space.gram(atoms)
        else:
            old_ids, old_G = previous
            # the kernel counts the values used, as a fresh Gram matrix would (a model resumed
            # from a file, whose reuse starts afresh, counts the same)
            self.space.kernel.n_evals += len(atoms) ** 2
            if np.array_equal(old_ids, atoms.ids):
                return old_G
            counted = self.space.kernel.n_evals
            sorter = np.argsort(old_ids)
            at = np.minimum(np.searchsorted(old_ids, atoms.ids, sorter=sorter),
                            max(len(old_ids) - 1, 0))
            slot = sorter[at] if len(old_ids) else np.zeros(len(atoms), np.int64)
            hit = (old_ids[slot] == atoms.ids) if len(old_ids) else np.zeros(len(atoms), bool)
            slot = np.where(hit, slot, -1)
            known = np.flatnonzero(slot >= 0)
            fresh = np.flatnonzero(slot < 0)
            G = np.empty((len(atoms), len(atoms)))
            G[np.ix_(known, known)] = old_G[np.ix_(slot[known], slot[known])]
            if fresh.size:
                cross = self.space.gram(atoms.take(fresh), atoms)
                G[fresh, :] = cross
                G[:, fresh] = cross.T
                # the fresh block as space.gram(atoms) gives it: symmetrised
                block = cross[:, fresh]
                G[np.ix_(fresh, fresh)] = 0.5 * (block + block.T)
            self.space.kernel.n_evals = counted
        self._atom_gram = (atoms.ids.copy(), G)
        _shared_work["atom_gram"] = (atoms, self._atom_gram)
        return G

    def threshold(self) -> float:
        """ε (absolute, after section 3.3) plus the rounding allowance."""
        return self._threshold

    def epsilon_abs(self) -> float:
        return self._eps_abs

    def solve_local(self, extra: PointBlock | None = None) -> Combination:
        """Problem 2.3 (kernel form 4.5) over M_k (∪ ``extra``), warm-started at ê."""
        base = self._known(extra)
        if len(base) == 0:
            return None
        init = np.zeros(len(base))
        where = {int(p): i for i, p in enumerate(base.ids)}
        for p, c in zip(self._atoms.ids, self._coef, strict=True):
            if int(p) in where:
                init[where[int(p)]] = c
        init = init if init.sum() > 0 else None
        if hasattr(self.objective, "summarise_gram") and not self.space.explicit:
            lam, f = minimise_gram(self._base_gram(base), init, self.objective.tol)
        else:
            lam, f = self.objective.minimise(self.space, base, None, init)
        return self._combination(base, lam, f)

    def _base_gram(self, base: PointBlock) -> np.ndarray:
        """``space.gram(base)`` for a local problem over M_k, from the entries the site
        already holds: the last local problem's matrix (the own points), the atoms' Gram
        (:meth:`_atoms_gram`) and the atoms against the own points (:meth:`set_global`);
        only the rows of points in none of them (the point just added, atoms that came in
        since) are computed. Every entry depends on its two points only and the kernels are
        exactly symmetric (``x·z`` sums the same products in the same order as ``z·x``), so
        these are the very bits of a fresh ``space.gram(base)``; on 500 rows of 8,315-d
        Reuters the local problems' Gram matrices had taken 263 of 356 CPU s."""
        sources = [s for s in (self._known_gram, self._own_cross) if s is not None]
        if self._atom_gram is not None:
            sources.append((self._atom_gram[0], self._atom_gram[0], self._atom_gram[1]))
        G = _gram_from(self.space, base, sources)
        self._known_gram = (base.ids.copy(), base.ids.copy(), G)
        return G

    def _combination(self, base: PointBlock, coef, f) -> Combination:
        support = np.flatnonzero(coef > 0)
        coef = coef[support] / coef[support].sum()
        block = base.take(support)
        new = [i for i, p in enumerate(block.ids) if not self._is_shared(int(p))]
        return Combination(block.ids, coef, block.take(new), f)

    def clear_global(self):
        """Forget ê and the shared vectors (every point of every site has been deleted)."""
        self._atoms = PointBlock.empty(self.n_features)
        self._installed = self._atoms
        self._cache.clear()
        self._coef = np.empty(0)
        self._summary = None

    # ------------------------------------------------------- drop-out of the hull

    def boundary_points(self, pid):
        """Own non-atom points with slack 0 (|slack| within the rounding allowance), other
        than ``pid``: the only points that can carry weight in another representation of ê
        (section 2.4.2, from Theorem 3)."""
        n = self._n
        atoms = set(self._atoms.ids.tolist())
        pick = [i for i in range(n) if abs(self._slacks[i]) <= self._threshold
                and int(self._ids[i]) not in atoms and int(self._ids[i]) != int(pid)]
        return self.own_block().take(pick)

    def reexpress_without(self, pid, collected: PointBlock):
        """ê as a convex combination of (atoms \\ {pid}) ∪ collected, or None if ê is not in
        their hull: min_a ‖Σ a_k φ̂_k − ê‖² over the simplex (section 4.3.2, QP form)."""
        keep = self._atoms.ids != int(pid)
        base = self._atoms.take(np.flatnonzero(keep)).concat(collected)
        if len(base) == 0:
            return None
        both = base.concat(self._atoms)
        G = self.space.gram(both)
        m = len(base)
        c = self._coef
        Gbe = G[:m, m:] @ c
        T = G[:m, :m] - Gbe[:, None] - Gbe[None, :] + float(c @ G[m:, m:] @ c)
        lam, dist2 = minimise_gram(0.5 * (T + T.T), None, 1e-13)
        if dist2 > self.config["monitor_tol"] * self._summary.scale:
            return None
        return self._combination(base, lam, self._summary.f)

    # ----------------------------------------------------------- update method 2

    def _ray_points(self, violator: PointBlock, extra: PointBlock | None = None):
        """Base [x_N, M_k \\ {x_N} (∪ extra)], the ray matrix W (eq. 4.2) and slacks."""
        cands = self._known(extra, exclude=(int(violator.ids[0]),))
        slacks = self._slacks_of(cands)
        s_new = float(self._slacks_of(violator)[0])
        lambdas = np.empty(len(cands))
        _core.ray_lambdas(slacks, s_new, -self._eps_abs, lambdas)
        W = _core.ray_matrix(lambdas)
        base = violator.concat(cands)
        return base, W, lambdas, np.r_[s_new, slacks]

    def ray_extremes(self, violator: PointBlock):
        """The extreme points of D̂_k (rays from x_N through M_k \\ {x_N} cut at
        ∂S_ε, Theorem 4) that are own points and not atoms (the collector knows the atoms).

        Returns (PointBlock of the points to send as vectors, wire ids of those the
        collector can decode from the shared dictionary, number of hull-membership
        problems solved)."""
        self.register_broadcast(violator)
        if self._n == 0:
            return PointBlock.empty(self.n_features), [], 0
        base, _W, lambdas, _ = self._ray_points(violator)
        Gy = _core.ray_gram(self.space.gram(base), lambdas)
        idx, solved = extreme_points(Gy[1:, 1:], self.config["membership"])
        cands = base.take(np.arange(1, len(base)))
        atoms = set(self._atoms.ids.tolist())
        mine = [i for i in idx if int(cands.ids[i]) in self._row
                and int(cands.ids[i]) not in atoms]
        send = [i for i in mine if int(cands.ids[i]) not in self._cache]
        shared = [int(cands.ids[i]) for i in mine if int(cands.ids[i]) in self._cache]
        return cands.take(send), shared, solved

    def decode_shared(self, ids) -> PointBlock:
        """Points of the shared dictionary by wire id (method 2's collector)."""
        ids = [int(p) for p in ids]
        if not ids:
            return PointBlock.empty(self.n_features)
        return PointBlock(ids, np.array([self._cache[p][0] for p in ids]),
                          [self._cache[p][1] for p in ids])

    def collect_and_solve(self, violator: PointBlock, received: PointBlock):
        """Collector of method 2: problem 2.4 over {x_N} ∪ D̂ (own rays and the received
        points' rays), Gram by eq. 4.3. Returns (combination over original points,
        slack of e_c w.r.t. the old ê, number of points in C)."""
        self.register_broadcast(violator)  # the other sites hold x_N from its broadcast
        base, W, lambdas, slacks = self._ray_points(violator, received)
        keep = np.arange(len(base))
        if getattr(self.objective, "name", "") == "squared_norm":
            Gy = _core.ray_gram(self.space.gram(base), lambdas)
            if self.config["prune"] and len(base) > 2:
                idx, _ = extreme_points(Gy[1:, 1:], self.config["membership"])
                keep = np.r_[0, idx + 1]
            mu, _f = minimise_gram(Gy[np.ix_(keep, keep)], None, self.objective.tol)
        else:
            if self.config["prune"] and len(base) > 2:
                Gy = W @ self.space.gram(base) @ W.T
                idx, _ = extreme_points(Gy[1:, 1:], self.config["membership"])
                keep = np.r_[0, idx + 1]
            mu, _f = self.objective.minimise(self.space, base, W[keep], None)
        coef = mu @ W[keep]
        ec_slack = float(coef @ slacks)
        coef[coef < 0] = 0.0
        f = self.objective.summarise(self.space, base.take(np.flatnonzero(coef > 0)),
                                     coef[coef > 0] / coef[coef > 0].sum()).f
        return self._combination(base, coef, f), ec_slack, len(keep)

    # --------------------------------------------------------------------- queries

    def objective_value(self) -> float:
        return np.nan if self._summary is None else self._summary.f

    def global_vector(self):
        """(atom ids, coefficients) of ê as this site knows it."""
        return self._atoms.ids.copy(), self._coef.copy()

    def decision_function(self, X) -> np.ndarray:
        """Two-class: Σ a_i y_i (k(x_i, x) + 1) = wᵀφ(x) + b. One-class:
        Σ a_i k(x_i, x) − ρ with ρ = f(ê) (at the optimum ρ = (K̂a)_i on the support).
        Other spaces: the slack ∇f(ê)ᵀ(x − ê) / 2."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        task = getattr(self.space, "task", "plain")
        if task in ("two-class", "one-class") and not getattr(self.space, "explicit", False):
            K = self.space.raw_gram(PointBlock(np.full(len(X), -1), X, np.ones(len(X))),
                                    self._atoms)
            if task == "two-class":
                return (K + 1.0) @ (self._coef * self._atoms.y)
            return K @ self._coef - self._summary.f
        block = PointBlock(np.full(len(X), -1), X, np.ones(len(X)))
        return 0.5 * self._slacks_of(block)

    def own_slacks(self):
        """(ids, slacks) of the own points under the current ê (the Theorem 1 certificate)."""
        n = self._n
        return self._ids[:n].copy(), self._slacks[:n].copy()


#: The last decoded broadcast ((comb, the last ê's atom ids, atoms)) and the last Gram matrix
#: of a decoded ê's atoms ((atoms, (ids, Gram))), kept for the other sites of this process
#: (the local backend), which would compute the very same arrays: on 500 rows of 8,315-d
#: Reuters, ten copies of every ê's vectors were most of ``set_global``'s time. Keyed by the
#: identity of the broadcast and of the atoms (held here, so never reused); the shared blocks
#: and matrices are never changed in place (``flip_labels`` makes new blocks).
_shared_work = {"decode": None, "atom_gram": None}


def _slots(old_ids, ids):
    """Position of each of ``ids`` in ``old_ids`` (-1 where absent)."""
    if len(old_ids) == 0 or len(ids) == 0:
        return np.full(len(ids), -1, dtype=np.int64)
    sorter = np.argsort(old_ids)
    at = np.minimum(np.searchsorted(old_ids, ids, sorter=sorter), len(old_ids) - 1)
    slot = sorter[at]
    return np.where(old_ids[slot] == ids, slot, -1)


def _gram_from(space, block: PointBlock, sources) -> np.ndarray:
    """``space.gram(block)``, taking the entries that ``sources`` = [(row ids, column ids,
    their k̂ matrix), ...] hold (each in both orientations: k̂ is symmetric) and computing the
    rows of the points some entry of which none holds."""
    n = len(block)
    if n == 0 or not sources:
        return space.gram(block)
    counted = space.kernel.n_evals + n * n  # the values used, as space.gram counts
    K = np.empty((n, n))
    have = np.zeros((n, n), dtype=bool)
    for row_ids, col_ids, M in sources:
        rows, cols = _slots(row_ids, block.ids), _slots(col_ids, block.ids)
        r, c = np.flatnonzero(rows >= 0), np.flatnonzero(cols >= 0)
        if r.size and c.size:
            part = M[np.ix_(rows[r], cols[c])]
            K[np.ix_(r, c)] = part
            K[np.ix_(c, r)] = part.T
            have[np.ix_(r, c)] = True
            have[np.ix_(c, r)] = True
    fresh = _covering_rows(~have)
    if fresh.size:
        cross = space.gram(block.take(fresh), block)
        K[fresh, :] = cross
        K[:, fresh] = cross.T
        part = cross[:, fresh]  # as space.gram(block) gives it: symmetrised
        K[np.ix_(fresh, fresh)] = 0.5 * (part + part.T)
    space.kernel.n_evals = counted
    return K


def _covering_rows(missing) -> np.ndarray:
    """Rows whose computation (row and column, by symmetry) fills every True entry of the
    symmetric ``missing``: greedily the row missing most, until none misses any (the point
    just added misses an entry in every row, and is then the only row computed)."""
    missing = missing.copy()
    counts = missing.sum(axis=1)
    rows = []
    while counts.size:
        i = int(np.argmax(counts))
        if counts[i] == 0:
            break
        rows.append(i)
        counts -= missing[:, i]
        missing[:, i] = False
        missing[i, :] = False
        counts[i] = 0
    return np.sort(np.asarray(rows, dtype=np.int64))


def _reused_gram(space, previous, A: PointBlock, B: PointBlock) -> np.ndarray:
    """``space.gram(A, B)`` (A and B different blocks), reusing the entries of ``previous`` =
    (A ids, B ids, their matrix) and computing only the rows and columns of new points. Every
    entry depends on its two points (and their ids) only, so these are the same bits."""
    if previous is None:
        return space.gram(A, B)
    counted = space.kernel.n_evals + len(A) * len(B)  # the values used, as space.gram counts
    rows, cols = _slots(previous[0], A.ids), _slots(previous[1], B.ids)
    K = np.empty((len(A), len(B)))
    kept_rows, kept_cols = np.flatnonzero(rows >= 0), np.flatnonzero(cols >= 0)
    K[np.ix_(kept_rows, kept_cols)] = previous[2][np.ix_(rows[kept_rows], cols[kept_cols])]
    fresh_rows, fresh_cols = np.flatnonzero(rows < 0), np.flatnonzero(cols < 0)
    if fresh_rows.size:
        K[fresh_rows, :] = space.gram(A.take(fresh_rows), B)
    if fresh_cols.size:
        K[:, fresh_cols] = space.gram(A, B.take(fresh_cols))
    space.kernel.n_evals = counted
    return K
