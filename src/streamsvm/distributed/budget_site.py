"""Sites of the bounded ("budget") tracking mode: the L2-SVM of section 4.1 of P.
Chrysogelos, "Streaming, High Performance Support Vector Methods" (diploma thesis, Technical
University of Crete, 2016) in an explicit feature space z (:mod:`.features`), with ê held as
a vector.

The points are φ̂(x_i) = [y_i z(x_i); y_i; e_i/√C] (two-class; one-class: [z(x_i); e_i/√C]),
so ê = Σ a_i φ̂(x_i) = [w; b; a/√C] with w = Σ a_i y_i z_i, b = Σ a_i y_i, and
f(ê) = ‖ê‖² = ‖w‖² + b² + q/C, q = Σ a_i². Every site needs only (w, b, q, f): the slack
of a new point (eq. 4.1, corrected) is ``2 (y (w·z + b) − f)``. A site keeps the
coefficients of its own atoms only, relative to a common scale: every broadcast multiplies
the coefficients of all atoms but the sender's by the same factor s, so a site stores
``coef`` with the log-scale ``L`` at which it was set, and its value now is
``coef · exp(L_now − L)`` (``gen``: all atoms older than the current generation have
weight 0).

Local problem (eq. 4.5, restricted): the sender r solves min ‖·‖² over the simplex of the
points {ê_rest / (1 − A)} ∪ {its active atoms} ∪ {the new point}, where ê_rest = ê minus r's
active atoms (total weight A). ê_rest/(1 − A) lies in the hull of the union, so the result
does too, and f never rises. Only ``budget`` atoms per site stay *active* (variables of its
local problems); past the budget the smallest-coefficient atoms are *retired*: their weight
stays in ê (nothing changes in w, b, q) and scales with the rest, but the site no longer
re-optimises them (it keeps them only to delete them exactly). Of the points that satisfy
their constraint when they arrive, a site keeps the last ``budget`` in a *pool*: candidates
of its next local problem, which may make them atoms. The cost of a row is one z(x) and
one dot product, plus, when it violates, one local problem of at most 2 ``budget`` + 2
points.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from ..utils.arrays import grow_rows, zero_rows
from .objective import minimise_gram

__all__ = ["PrimalVector", "BudgetSite", "BudgetWorker"]

#: below this weight the rest of ê (1 − A) counts as empty
_REST_FLOOR = 1e-9


class PrimalVector:
    """ê as broadcast in the budget mode: ``w`` (D), ``b``, ``q`` = Σ a_i², ``f`` = ‖ê‖²,
    the log-scale ``L`` and generation ``gen`` of the coefficients, ``n_atoms`` (atoms with
    weight, all sites), ``version`` (broadcasts so far). Never changed in place."""

    def __init__(self, w, b, q, f, L, gen, n_atoms, version):
        self.w = np.ascontiguousarray(w, dtype=np.float64)
        self.b = float(b)
        self.q = float(q)
        self.f = float(f)
        self.L = float(L)
        self.gen = int(gen)
        self.n_atoms = int(n_atoms)
        self.version = int(version)

    #: scalars a broadcast carries beside w: b, q, f, the scale factor, n_atoms (gen rarely)
    N_SCALARS = 5

    def negated(self):
        return PrimalVector(-self.w, -self.b, self.q, self.f, self.L, self.gen, self.n_atoms,
                            self.version)


class BudgetSite:
    """One site: its atoms (rows ``[:n]`` of the arrays; the first ones flagged ``active``)
    and its arithmetic. ``task`` 2 (two-class) or 1 (one-class)."""

    _transient = ("_row",)

    def __init__(self, index, n_features):
        self.index = int(index)
        self.n_features = int(n_features)
        zero_rows(self, {"_X": (np.float64, self.n_features), "_y": np.float64,
                         "_ids": np.int64, "_coef": np.float64, "_L": np.float64,
                         "_gen": np.int64, "_active": np.bool_}, 4)
        self._n = 0
        self._row = {}
        self._seen_gen = 0  # the generation of ê this site last saw
        # the pool: the last points that were not atoms (candidates of the next local problem)
        self._pool_ids = np.zeros(0, dtype=np.int64)
        self._pool_X = np.zeros((0, self.n_features))
        self._pool_y = np.zeros(0)

    def _restore_transient(self) -> None:
        self._row = {int(p): i for i, p in enumerate(self._ids[:self._n])}

    # ------------------------------------------------------------------ the atom table

    def _put(self, pid, x, y, coef, L, gen, active):
        if self._n == self._X.shape[0]:
            grow_rows(self, ("_X", "_y", "_ids", "_coef", "_L", "_gen", "_active"),
                      2 * self._n, self._n)
        n = self._n
        self._X[n], self._y[n], self._ids[n] = x, y, pid
        self._coef[n], self._L[n], self._gen[n], self._active[n] = coef, L, gen, active
        self._row[int(pid)] = n
        self._n = n + 1

    def _drop(self, rows):
        for row in sorted((int(r) for r in rows), reverse=True):
            del self._row[int(self._ids[row])]
            last = self._n - 1
            if row != last:
                for name in ("_X", "_y", "_ids", "_coef", "_L", "_gen", "_active"):
                    arr = getattr(self, name)
                    arr[row] = arr[last]
                self._row[int(self._ids[row])] = row
            self._n = last

    def coefficients(self, glob, rows):
        """Current coefficients of the atoms in ``rows`` under ``glob``."""
        if glob is None:
            return np.zeros(len(rows))
        rows = np.asarray(rows, dtype=np.int64)
        live = (self._gen[rows] == glob.gen) & (self._coef[rows] > 0.0)
        out = np.zeros(len(rows))
        with np.errstate(under="ignore"):  # coef · exp(L − L_at), in logs (each is ≤ 1)
            out[live] = np.exp(np.log(self._coef[rows][live]) + glob.L - self._L[rows][live])
        return out

    def n_atoms(self):
        return self._n

    def n_active(self):
        return int(self._active[:self._n].sum())

    # ------------------------------------------------------------------ events

    def first(self, pid, x, y, z, inv_c, task, gen):
        """ê = φ̂(x) (the first point of the stream initialises, chapter 5)."""
        self._put(pid, x, y, 1.0, 0.0, gen, True)
        self._seen_gen = gen
        w = y * z if task == 2 else z.copy()
        b = y if task == 2 else 0.0
        return PrimalVector(w, b, 1.0, float(w @ w) + b * b + inv_c, 0.0, gen, 1, 1)

    def purge(self, glob):
        """Drop the atoms of older generations (their weight is 0), once per generation."""
        if glob is not None and self._seen_gen != glob.gen:
            self._drop(np.flatnonzero(self._gen[:self._n] != glob.gen))
        if glob is not None:
            self._seen_gen = glob.gen

    def solve(self, glob, new, z_of, inv_c, task, budget, tol):
        """Local problem (eq. 4.5) over {ê_rest/(1 − A)} ∪ active atoms ∪ ``new`` (the
        candidates (ids, X, y): the pool and the arriving point; or None); returns the new
        :class:`PrimalVector`."""
        self.purge(glob)
        rows = np.flatnonzero(self._active[:self._n])
        a = self.coefficients(glob, rows)
        if np.any(a <= 0.0):  # underflowed to 0: no weight left
            self._drop(rows[a <= 0.0])
            rows = np.flatnonzero(self._active[:self._n])
            a = self.coefficients(glob, rows)
        X = self._X[rows]
        y = self._y[rows] if task == 2 else np.ones(len(rows))
        if new is not None:  # (ids, X, y) of the candidates
            X = np.vstack([X, new[1]])
            y = np.r_[y, new[2] if task == 2 else np.ones(len(new[0]))]
        m, k = len(y), len(rows)
        A = float(a.sum())
        rest = glob.n_atoms - k > 0 and 1.0 - A > _REST_FLOOR
        if m == 0:
            return glob
        Z = z_of(np.r_[self._ids[rows], new[0]] if new is not None else self._ids[rows], X)
        ya = a * y[:k]
        w_r = glob.w - ya @ Z[:k]
        b_r = glob.b - float(ya.sum()) if task == 2 else 0.0
        q_r = max(glob.q - float(a @ a), 0.0)
        G = Z @ Z.T
        if task == 2:
            G += 1.0
            G *= np.outer(y, y)
        G[np.diag_indices(m)] += inv_c
        init = np.r_[a, np.zeros(m - k)]
        if rest:
            u = 1.0 / (1.0 - A)
            cross = (Z @ w_r + b_r) * y * u if task == 2 else (Z @ w_r) * u
            rr = (float(w_r @ w_r) + b_r * b_r + q_r * inv_c) * u * u
            G = np.block([[np.array([[rr]]), cross[None, :]], [cross[:, None], G]])
            init = np.r_[1.0 - A, init]
        lam, _ = minimise_gram(0.5 * (G + G.T), init if init.sum() > 0 else None, tol)
        nu, c = (float(lam[0]), lam[1:]) if rest else (0.0, lam)
        s = nu / (1.0 - A) if rest else 0.0
        cy = c * y
        w = s * w_r + cy @ Z
        b = s * b_r + float(cy.sum()) if task == 2 else 0.0
        q = s * s * q_r + float(c @ c)
        if s > 0.0:
            L, gen, n_rest = glob.L + math.log(s), glob.gen, glob.n_atoms - k
        else:  # the rest of ê has no weight left: a new generation
            L, gen, n_rest = 0.0, glob.gen + 1, 0
            self._seen_gen = gen
            self._drop(np.flatnonzero(~self._active[:self._n]))  # retired ones: weight 0
            rows = np.flatnonzero(self._active[:self._n])
        self._store(rows, c, L, gen, new, budget)
        n_atoms = n_rest + int(np.count_nonzero(c))
        return PrimalVector(w, b, q, float(w @ w) + b * b + q * inv_c, L, gen, n_atoms,
                            glob.version + 1)

    def remember(self, pid, x, y, size):
        """Keep a point that satisfied its constraint among the last ``size`` such points."""
        self._pool_ids = np.r_[self._pool_ids, pid][-size:]
        self._pool_X = np.vstack([self._pool_X, x[None, :]])[-size:]
        self._pool_y = np.r_[self._pool_y, y][-size:]

    def candidates(self, pid, x, y):
        """The pool, then the new point: (ids, X, y)."""
        return (np.r_[self._pool_ids, pid], np.vstack([self._pool_X, x[None, :]]),
                np.r_[self._pool_y, y])

    def _store(self, rows, c, L, gen, new, budget):
        """Install the solution's coefficients ``c`` (over ``rows``, then ``new``); past
        ``budget`` active atoms the smallest are retired; zero ones are dropped."""
        k = len(rows)
        self._coef[rows] = c[:k]
        self._L[rows] = L
        self._gen[rows] = gen
        if new is not None:
            took = np.flatnonzero(c[k:] > 0.0)
            for i in took:
                self._put(new[0][i], new[1][i], new[2][i], c[k + i], L, gen, True)
            rows = np.r_[rows, np.arange(self._n - len(took), self._n)].astype(np.int64)
            left = np.flatnonzero(c[k:] <= 0.0)
            self._pool_ids, self._pool_X, self._pool_y = (new[0][left], new[1][left],
                                                          new[2][left])
        live = rows[self._coef[rows] > 0.0]
        if len(live) > budget:
            order = np.argsort(self._coef[live], kind="stable")
            self._active[live[order[:len(live) - budget]]] = False
        zero = rows[self._coef[rows] <= 0.0]
        if len(zero):
            self._drop(zero)

    def delete(self, glob, pid, z_of, inv_c, task, budget, tol):
        """Delete own point ``pid``: an atom leaves ê, ê' = (ê − a φ̂)/(1 − a) (section
        2.5.2), then a local problem repairs it. Returns the new ê, ``glob`` itself when the
        point carried no weight, None when ê had no other weight."""
        self.purge(glob)
        row = self._row.get(int(pid))
        if row is None:
            keep = self._pool_ids != int(pid)
            self._pool_ids, self._pool_X = self._pool_ids[keep], self._pool_X[keep]
            self._pool_y = self._pool_y[keep]
            return glob
        a = float(self.coefficients(glob, [row])[0])
        x, y = self._X[row].copy(), float(self._y[row])
        self._drop([row])
        if a <= 0.0:
            return glob
        if a >= 1.0 - _REST_FLOOR or glob.n_atoms <= 1:
            return None
        z = z_of([pid], x[None, :])[0]
        u = 1.0 / (1.0 - a)
        w = (glob.w - a * (y * z if task == 2 else z)) * u
        b = (glob.b - a * y) * u if task == 2 else 0.0
        q = max(glob.q - a * a, 0.0) * u * u
        out = PrimalVector(w, b, q, float(w @ w) + b * b + q * inv_c, glob.L + math.log(u),
                           glob.gen, glob.n_atoms - 1, glob.version)
        return self.solve(out, None, z_of, inv_c, task, budget, tol)


class BudgetWorker:
    """Sites grouped in one process (one Ray actor, or one endpoint of the simulated
    network): ``sites`` are the global indices it hosts. The feature map is the same at
    every worker (drawn from one seed)."""

    def __init__(self, index, sites, n_features, feature_map, config):
        self.index = int(index)
        self.site_ids = np.asarray(sites, dtype=np.int64)
        self.sites = [BudgetSite(int(k), n_features) for k in self.site_ids]
        self.feature_map = feature_map
        self.config = dict(config)
        self._local = {int(k): i for i, k in enumerate(self.site_ids)}
        self._zc = OrderedDict()

    _transient = ("_local", "_zc")

    def _restore_transient(self) -> None:
        self._local = {int(k): i for i, k in enumerate(self.site_ids)}
        self._zc = OrderedDict()

    def _site(self, k) -> BudgetSite:
        return self.sites[self._local[int(k)]]

    def _z(self, ids, X):
        """z of each row, one row at a time (the same bits whether cached or not), through a
        cache of the last ``4 budget + 4`` points' z (the candidates of local problems: on
        8,315-d text every local problem recomputed 2,048 features of its 41 points)."""
        out = np.empty((len(ids), self.feature_map.n_components))
        cache, size = self._zc, 4 * self.config["budget"] + 4
        for i, pid in enumerate(ids):
            z = cache.get(int(pid))
            if z is None:
                z = self.feature_map.transform(X[i:i + 1])[0]
                cache[int(pid)] = z
                if len(cache) > size:
                    cache.popitem(last=False)
            out[i] = z
        return out

    def _args(self):
        c = self.config
        return c["inv_c"], c["task"], c["budget"], c["tol"]

    def slack(self, glob, pid, x, y):
        """2 (y (w·z + b) − f) of a point that is not an atom (eq. 4.1, corrected)."""
        z = self._z([pid], x[None, :])[0]
        g = float(z @ glob.w) + glob.b
        return 2.0 * ((y * g if self.config["task"] == 2 else g) - glob.f)

    def add(self, k, glob, pid, x, y, threshold, gen=0):
        """A point arrives at site k: (its slack, the new ê or None). The first point of the
        stream (``glob`` None) becomes ê, of generation ``gen``."""
        inv_c, task, budget, tol = self._args()
        site = self._site(k)
        if glob is None:
            return np.nan, site.first(pid, x, y, self._z([pid], x[None, :])[0], inv_c, task,
                                      gen)
        s = self.slack(glob, pid, x, y)
        if s >= -threshold:
            site.remember(pid, x, y, budget)
            return s, None
        return s, site.solve(glob, site.candidates(pid, x, y), self._z, inv_c, task, budget,
                             tol)

    def delete(self, k, glob, pid):
        """Point ``pid`` is deleted at site k (:meth:`BudgetSite.delete`)."""
        return self._site(k).delete(glob, pid, self._z, *self._args())

    def flip_labels(self):
        for site in self.sites:
            site._y[:site._n] *= -1.0
            site._pool_y = -site._pool_y

    def atoms(self, glob):
        """(site, pid, coefficient) of every atom of these sites under ``glob``."""
        out = []
        for site in self.sites:
            coef = site.coefficients(glob, np.arange(site._n))
            out += [(site.index, int(p), float(c))
                    for p, c in zip(site._ids[:site._n], coef, strict=True) if c > 0]
        return out

    def counts(self):
        """(atoms kept, active atoms) over these sites."""
        return (sum(s.n_atoms() for s in self.sites), sum(s.n_active() for s in self.sites))
