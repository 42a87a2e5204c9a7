"""Checks of the events a tracking driver receives (shared by the exact
:class:`~streamsvm.distributed.protocol.Tracker` and the bounded
:class:`~streamsvm.distributed.budget.BudgetTracker`)."""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["EventChecks", "check_int"]


class EventChecks:
    """Validation of sites, points, labels and point ids; needs ``n_sites``,
    ``n_features``, ``space`` (its ``task``), ``_owner`` and ``_next_id``."""

    def _check_site(self, site):
        if isinstance(site, bool) or not isinstance(site, numbers.Integral):
            raise TypeError(f"site must be an integer; got {type(site).__name__}")
        if not 0 <= site < self.n_sites:
            raise ValueError(f"unknown site {site}: sites are 0..{self.n_sites - 1}")
        return int(site)

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
