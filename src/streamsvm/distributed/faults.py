"""A seeded transport that loses, duplicates and reorders messages and crashes sites, to test
the message layer (:mod:`~streamsvm.distributed.messages`) and the protocol above it."""

from __future__ import annotations

import numpy as np

from .messages import PerfectTransport

__all__ = ["FaultyTransport"]


class FaultyTransport(PerfectTransport):
    """Each message sent is lost with probability ``drop``, else also sent twice with
    probability ``duplicate``; each message in flight is held back behind later ones with
    probability ``reorder``. ``crash``: {site: m}, site crashes (losing its state and its
    unsent replies) right after the m-th request delivered to it. ``injected`` counts what
    was done."""

    def __init__(self, seed=0, *, drop=0.0, duplicate=0.0, reorder=0.0, crash=None):
        super().__init__()
        for name, p in (("drop", drop), ("duplicate", duplicate), ("reorder", reorder)):
            if not 0.0 <= p < 1.0:
                raise ValueError(f"{name} must be a probability in [0, 1); got {p!r}")
        self.rng = np.random.default_rng(seed)
        self.drop, self.duplicate, self.reorder = float(drop), float(duplicate), float(reorder)
        self.crash = {int(k): int(m) for k, m in (crash or {}).items()}
        self.delivered = {}
        self.injected = {"dropped": 0, "duplicated": 0, "reordered": 0, "crashes": 0}

    def send(self, env):
        if self.rng.random() < self.drop:
            self.injected["dropped"] += 1
            return
        self.queue.append(env)
        if self.rng.random() < self.duplicate:
            self.injected["duplicated"] += 1
            self.queue.append(env)

    def next_batch(self):
        batch, held = [], []
        for env in self.queue:
            if self.rng.random() < self.reorder:
                held.append(env)
            else:
                batch.append(env)
        self.queue.clear()
        if not batch:  # nothing goes through this time: the held ones arrive next
            self.queue.extend(held)
            return []
        self.injected["reordered"] += len(held)
        self.queue.extend(held)
        return batch

    def after_delivery(self, layer, site, n_requests):
        before = self.delivered.get(site, 0)
        self.delivered[site] = before + n_requests
        m = self.crash.get(site)
        if m is not None and before < m <= before + n_requests:
            self.injected["crashes"] += 1
            layer.crash(site)
