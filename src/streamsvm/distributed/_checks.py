"""What the exact :class:`~streamsvm.distributed.protocol.Tracker` and the bounded
:class:`~streamsvm.distributed.budget.BudgetTracker` share: the checks of the events a
tracking driver receives and of the rows it is asked to score, and the totals of its report."""

from __future__ import annotations

import numbers

import numpy as np

from .messages import RECOVERY_COUNTERS

__all__ = ["EventChecks", "check_int"]


class EventChecks:
    """Validation of sites, points, labels and point ids, and the start of an event's record;
    needs ``n_sites``, ``n_features``, ``space`` (its ``task``), ``_owner``, ``_next_id``,
    ``stats`` (its ``begin`` and ``totals``) and ``network`` (its ``counters``)."""

    def _begin_add(self, site, x, y, point_id):
        """``(site, x, y, point id)`` of a point arriving at ``site``, checked; its event
        begun."""
        site = self._check_site(site)
        x = self._check_x(x)
        y = self._check_y(y)
        pid = self._check_point_id(point_id, new=True)
        self.stats.begin("add", site, pid)
        return site, x, y, pid

    def _begin_delete(self, site, point_id):
        """``(site, point id)`` of a point deleted at ``site``, checked (``site`` holds it);
        its event begun."""
        site = self._check_site(site)
        pid = self._check_point_id(point_id, new=False)
        if pid not in self._owner:
            raise ValueError(f"unknown point id {pid}: no site holds it")
        if self._owner[pid] != site:
            raise ValueError(f"point id {pid} is at site {self._owner[pid]}, not at site {site}")
        self.stats.begin("delete", site, pid)
        return site, pid

    def _check_site(self, site):
        if isinstance(site, bool) or not isinstance(site, numbers.Integral):
            raise TypeError(f"site must be an integer; got {type(site).__name__}")
        if not 0 <= site < self.n_sites:
            raise ValueError(f"unknown site {site}: sites are 0..{self.n_sites - 1}")
        return int(site)

    def _check_rows(self, X):
        """``X`` (one row, or rows of ``n_features`` columns) as finite float64 rows."""
        X = np.asarray(X, dtype=np.float64)
        X = X.reshape(1, -1) if X.ndim == 1 else X
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"X must have {self.n_features} features; got shape {X.shape}")
        if not np.all(np.isfinite(X)):
            raise ValueError("X contains NaN or infinity")
        return X

    def _report_totals(self, n_atoms: int) -> dict:
        """The communication totals of ``stats``, with the naive protocol's beside them
        (:meth:`~streamsvm.distributed.protocol.Tracker.report`), the counts of atoms and
        points, and the message layer's recovery counters (apart from the protocol's)."""
        out = self.stats.totals()
        out["naive_vectors"] = out["additions"]
        out["naive_copies_every_site"] = out["additions"] * (self.n_sites - 1)
        out["naive_bytes"] = out["additions"] * (8 * self.n_features + 16)
        out["n_atoms"] = n_atoms
        out["n_points"] = len(self._owner)
        counters = self.network.counters()
        out.update((name, counters[name]) for name in RECOVERY_COUNTERS)
        return out

    def _check_x(self, x):
        try:
            x = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError("x must be a vector of numbers") from exc
        if x.ndim != 1 or x.shape[0] != self.n_features:
            raise ValueError(f"x must be a 1-D vector of {self.n_features} features; got shape "
                             f"{x.shape}")
        if not np.all(np.isfinite(x)):
            raise ValueError("x contains NaN or infinity")
        return np.ascontiguousarray(x)

    def _check_y(self, y):
        if getattr(self.space, "task", "plain") != "two-class":
            return 1.0
        if isinstance(y, bool) or not isinstance(y, numbers.Real) or y not in (-1, 1):
            raise ValueError(f"a two-class label must be -1 or +1; got {y!r}")
        return float(y)

    def _check_point_id(self, point_id, *, new):
        if point_id is None and new:
            while self._next_id in self._owner:
                self._next_id += 1
            return self._next_id
        if isinstance(point_id, bool) or not isinstance(point_id, numbers.Integral):
            raise TypeError(f"point_id must be an integer; got {type(point_id).__name__}")
        point_id = int(point_id)
        if new and point_id in self._owner:
            raise ValueError(f"point id {point_id} is already in use (at site "
                             f"{self._owner[point_id]})")
        if new and point_id < 0:
            raise ValueError(f"point id must be >= 0; got {point_id}")
        return point_id


def check_int(name, value, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {type(value).__name__}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}; got {value}")
