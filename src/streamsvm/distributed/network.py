"""Backends that host the sites, and the communication accounting shared by both.

A backend only runs site methods: :class:`LocalNetwork` calls them in-process (the default,
deterministic); :class:`~streamsvm.distributed.ray_backend.RayNetwork` runs each site as a
Ray actor. Messages are counted by the protocol driver, from what it moves between sites, so
both backends report the same counts for the same event log.

Counting rules (:class:`CommStats`): a broadcast to the other K − 1 sites is K − 1 messages;
a shipped point is one *vector* per recipient (``8·d`` bytes of float64 plus 16 bytes of id
and label); ids, coefficients, slacks and tokens are *scalars* of 8 bytes;
``vector_broadcasts`` counts each distinct vector once per broadcast (the quantity of the
paper's Figures 5.2 and 5.4); ``rounds`` counts local solves followed by a broadcast (the
iterations of Figure 5.1).
"""

from __future__ import annotations

__all__ = ["CommStats", "EventRecord", "LocalNetwork"]

_COUNTERS = ("messages", "vectors", "scalars", "bytes", "vector_broadcasts", "rounds",
             "membership_problems")


class EventRecord(dict):
    """Per-event accounting: ``kind``, ``site``, ``point_id``, the counters of
    :class:`CommStats` spent on this event, ``triggered`` (an update ran), ``certificate``
    (for deletions), ``fallback`` (method 2 fell back to method 1), ``n_atoms`` and
    ``objective`` after the event."""


class CommStats:
    """Running totals of the communication, and the records of every event."""

    def __init__(self, n_features: int):
        self.n_features = int(n_features)
        for name in _COUNTERS:
            setattr(self, name, 0)
        self.events: list[EventRecord] = []
        self._current: EventRecord | None = None

    def begin(self, kind, site, point_id=None) -> EventRecord:
        record = EventRecord(kind=kind, site=int(site), point_id=point_id, triggered=False,
                             certificate=None, fallback=False)
        for name in _COUNTERS:
            record[name] = 0
        self._current = record
        return record

    def end(self, **extra) -> EventRecord:
        record = self._current
        record.update(extra)
        self.events.append(record)
        self._current = None
        return record

    def _add(self, name, value):
        setattr(self, name, getattr(self, name) + value)
        if self._current is not None:
            self._current[name] += value

    def send(self, n_recipients=1, n_vectors=0, n_scalars=0):
        """Count ``n_recipients`` messages, each carrying the same payload."""
        if n_recipients <= 0:
            return
        self._add("messages", n_recipients)
        self._add("vectors", n_recipients * n_vectors)
        self._add("scalars", n_recipients * n_scalars)
        self._add("bytes", n_recipients * (n_vectors * (8 * self.n_features + 16)
                                           + 8 * n_scalars))

    def count(self, name, value=1):
        self._add(name, value)

    def totals(self) -> dict:
        out = {name: getattr(self, name) for name in _COUNTERS}
        out["events"] = len(self.events)
        out["additions"] = sum(1 for e in self.events if e["kind"] == "add")
        out["deletions"] = sum(1 for e in self.events if e["kind"] == "delete")
        out["updates"] = sum(1 for e in self.events if e["triggered"])
        return out


class LocalNetwork:
    """All sites in this process; calls are plain method calls, in site order."""

    name = "local"

    def __init__(self, sites):
        self.sites = list(sites)

    def call(self, k, method, *args):
        return getattr(self.sites[k], method)(*args)

    def call_many(self, ks, method, *args):
        return [getattr(self.sites[k], method)(*args) for k in ks]

    def export_sites(self):
        """The sites' states (for saving)."""
        return list(self.sites)

    def close(self):
        pass
