"""Backends that host the sites, and the communication accounting shared by both.

A backend runs site methods behind the message layer of
:mod:`~streamsvm.distributed.messages` (sequence numbers, acknowledgements, resends,
checkpoints): :class:`LocalNetwork` keeps the sites in-process (the default, deterministic);
:class:`~streamsvm.distributed.ray_backend.RayNetwork` runs each site as a Ray actor. The
protocol's messages are counted by the protocol driver, from what it moves between sites, so
both backends report the same counts for the same event log, with or without faults.

Counting rules (:class:`CommStats`): a broadcast to the other K − 1 sites is K − 1 messages;
a shipped point is one *vector* per recipient (``8·d`` bytes of float64 plus 16 bytes of id
and label); ids, coefficients, slacks and tokens are *scalars* of 8 bytes;
``vector_broadcasts`` counts each distinct vector once per broadcast (the quantity of the
paper's Figures 5.2 and 5.4); ``rounds`` counts local solves followed by a broadcast (the
iterations of Figure 5.1).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
import weakref

import numpy as np

from .messages import LocalHandle, MessageLayer, SiteDown, SiteEndpoint, save_checkpoint

__all__ = ["CommStats", "EventRecord", "LocalNetwork", "SiteNetwork", "checkpoint_dir_holder",
           "checkpoint_dir_in_use"]

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


#: explicit checkpoint folders in use, by real path: a weak reference to the network that
#: writes its sites' checkpoints there (two live networks writing ``site-k.npz`` to one folder
#: would restart each other's sites from the wrong checkpoint)
_CLAIMED: dict[str, weakref.ref] = {}


def checkpoint_dir_holder(path):
    """The live (not closed, not collected) network whose checkpoints go to the folder
    ``path``, or None."""
    ref = _CLAIMED.get(os.path.realpath(os.fspath(path)))
    holder = None if ref is None else ref()
    return None if holder is None or holder._closed else holder


def checkpoint_dir_in_use(path, owner=None) -> str:
    """The error's text when a network other than ``owner`` holds the folder ``path``, or
    ``""`` when it is free."""
    holder = checkpoint_dir_holder(path)
    if holder is None or holder is owner:
        return ""
    return (f"checkpoint_dir={os.fspath(path)!r} is already used by another live model's "
            "sites: two models writing their checkpoints to one folder would restart each "
            "other's sites from the wrong state. Give each model its own folder, leave "
            "checkpoint_dir=None (a temporary folder per model), or close() the other model")


class SiteNetwork:
    """Sites behind the message layer (:mod:`~streamsvm.distributed.messages`): the driver's
    ``call`` / ``call_many`` become numbered requests, acknowledged, resent and deduplicated;
    a site that crashes restarts from its last checkpoint.

    ``transport``: how envelopes travel (default: perfectly; a
    :class:`~streamsvm.distributed.faults.FaultyTransport` injects faults);
    ``checkpoint_every``: requests to a site between its checkpoints (0: none, and a crash
    ends the run); ``checkpoint_dir``: where the sites' checkpoints go (default: a temporary
    directory removed with the network). Each network owns its folder: an explicit
    ``checkpoint_dir`` that another live network uses is refused (ValueError), and
    ``private_if_taken`` takes a temporary folder instead (copies and loaded models, whose
    state is checkpointed anew there).
    """

    name = "?"
    _closed = False

    def _start_layer(self, sites, handles_from, transport, checkpoint_every, checkpoint_dir,
                     private_if_taken=False):
        self._remove_checkpoints = None
        if checkpoint_every > 0 and checkpoint_dir is not None:
            taken = checkpoint_dir_in_use(checkpoint_dir)
            if taken and not private_if_taken:
                raise ValueError(taken)
            if taken:
                warnings.warn(f"checkpoint_dir={os.fspath(checkpoint_dir)!r} is already used "
                              "by another live model's sites; this copy of the model keeps its "
                              "checkpoints in a temporary folder of its own",
                              UserWarning, stacklevel=5)
                checkpoint_dir = None
            else:
                _CLAIMED[os.path.realpath(os.fspath(checkpoint_dir))] = weakref.ref(self)
        if checkpoint_every > 0 and checkpoint_dir is None:
            checkpoint_dir = tempfile.mkdtemp(prefix="streamsvm-sites-")
            # removed by close(), or quietly when the network is collected (a model that a
            # search clones and drops is never closed: no ResourceWarning, no folder left)
            self._remove_checkpoints = weakref.finalize(self, shutil.rmtree, checkpoint_dir,
                                                        ignore_errors=True)
        if checkpoint_every > 0:
            try:  # the initial checkpoints; a site that cannot be saved has none
                for k, site in enumerate(sites):
                    save_checkpoint(site, 0, os.path.join(checkpoint_dir, f"site-{k}.npz"))
            except TypeError:
                checkpoint_every, checkpoint_dir = 0, None
        if checkpoint_every == 0:
            checkpoint_dir = None
        self.layer = MessageLayer([None] * len(sites), transport, checkpoint_dir=checkpoint_dir,
                                  checkpoint_every=checkpoint_every)
        self.layer.handles = handles_from(sites, self.layer)

    def call(self, k, method, *args):
        return self.layer.exchange([(k, method, args)])[0]

    def call_many(self, ks, method, *args):
        return self.layer.exchange([(k, method, args) for k in ks])

    def export_sites(self):
        """The sites' states (for saving); a crashed site is restarted (and caught up) first."""
        sites = []
        for k, handle in enumerate(self.layer.handles):
            try:
                sites.append(handle.export_site())
            except SiteDown:
                handle.crash()
                self.layer.exchange([(k, "n_points", ())])  # times out: restart, catch up
                sites.append(handle.export_site())
        return sites

    def counters(self) -> dict:
        """The message layer's counters (resends, duplicates dropped, restarts, ...)."""
        return dict(self.layer.counters)

    def close(self):
        self._closed = True
        if self._remove_checkpoints is not None:
            self._remove_checkpoints()
            self._remove_checkpoints = None


class LocalNetwork(SiteNetwork):
    """All sites in this process, behind the message layer."""

    name = "local"

    def __init__(self, sites, *, transport=None, checkpoint_every=0, checkpoint_dir=None,
                 private_if_taken=False):
        self._start_layer(list(sites), self._handles, transport, checkpoint_every,
                          checkpoint_dir, private_if_taken)

    @staticmethod
    def _handles(sites, layer):
        return [LocalHandle(SiteEndpoint(site, layer.checkpoint_path(k)))
                for k, site in enumerate(sites)]

    @property
    def sites(self):
        return self.export_sites()


class CopiedAsFiles:
    """What a tracker saves (:mod:`streamsvm.persistence`): its attributes less
    ``_transient``, the sites' states (fetched from the actors with the Ray backend) and the
    id maps as arrays. Copies (``copy.deepcopy``, pickle) are made as files are: the copy
    starts a network of its own from the sites' states, checkpointed anew in a folder of its
    own (a copy sharing the original's folder would lose its checkpoints when the original is
    dropped, and the two would overwrite each other's). The message layer's counters carry
    over."""

    def _persist_state(self) -> dict:
        state = {k: v for k, v in vars(self).items() if k not in self._transient}
        state["_sites"] = self.network.export_sites()
        pids = np.fromiter(self._owner, dtype=np.int64, count=len(self._owner))
        state["_id_table"] = np.array(
            [pids, [self._owner[p] for p in pids], [self._wire[p] for p in pids]],
            dtype=np.int64).reshape(3, -1)
        return state

    def _restore_transient(self) -> None:
        table = self.__dict__.pop("_id_table")
        self._owner = {int(p): int(k) for p, k in zip(table[0], table[1], strict=True)}
        self._wire = {int(p): int(w) for p, w in zip(table[0], table[2], strict=True)}
        self.stats.events = [EventRecord(e) for e in self.stats.events]
        self.network = self._make_network(self.__dict__.pop("_sites"), private_if_taken=True)

    def __getstate__(self) -> dict:
        state = self._persist_state()
        state["_layer_counters"] = self.network.counters()
        return state

    def __setstate__(self, state: dict) -> None:
        counters = state.pop("_layer_counters", None)
        self.__dict__.update(state)
        self._restore_transient()
        if counters is not None:
            self.network.layer.counters.update(counters)
