"""The message layer between the protocol driver (the coordinator) and the sites.

The driver never calls a site directly: every call is a *request* envelope with a per-site
sequence number, and every answer is a *reply* envelope carrying the request's number, which
is also its acknowledgement. The layer survives lost, duplicated and reordered messages, and
sites that crash:

* the coordinator resends every request still without a reply once nothing else is in flight
  (a timeout), until it is answered;
* a site delivers requests strictly in sequence order (later ones wait in a reorder buffer),
  runs each exactly once, and answers a duplicate with the cached reply; a request carries
  the number up to which the coordinator holds every reply, so the site can drop old replies;
* the coordinator drops duplicate replies, and replies to requests it no longer waits for;
* every ``checkpoint_every`` requests to a site, once the site has nothing outstanding, the
  coordinator asks it for a *checkpoint*: the site saves its state with
  :func:`streamsvm.save` (a :class:`SiteCheckpoint`) and the coordinator forgets its log of
  the requests before it. A crashed site is restarted from its last checkpoint and catches
  up by receiving the logged requests again, in order (``replayed``): sites are
  deterministic, so it reaches exactly the state it had, and the model is the one a run
  without faults gives.

What travels here is counted apart from the protocol's messages between sites
(:class:`~streamsvm.distributed.network.CommStats`): ``resends``, ``duplicates_dropped``,
``restarts`` and ``replayed`` (all 0 without faults), and ``requests`` / ``checkpoints``.
"""

from __future__ import annotations

import os
from collections import deque

from ..utils.threads import compiled_threads

__all__ = ["Envelope", "SiteEndpoint", "SiteCheckpoint", "MessageLayer", "PerfectTransport",
           "SiteDown", "RECOVERY_COUNTERS"]

#: counters of the layer that :meth:`~streamsvm.distributed.protocol.Tracker.report` shows
RECOVERY_COUNTERS = ("resends", "duplicates_dropped", "restarts", "replayed")

_CHECKPOINT = "__checkpoint__"


class SiteDown(RuntimeError):
    """The site's process is gone (crashed, or its Ray actor was killed)."""


class Envelope:
    """One message: ``kind`` 'request' (method, args, ack), 'reply' (result), or 'ack' (a
    restarted site's answer to a request that its checkpoint already holds)."""

    __slots__ = ("kind", "site", "seq", "method", "args", "ack", "result")

    def __init__(self, kind, site, seq, method=None, args=(), ack=0, result=None):
        self.kind, self.site, self.seq, self.ack = kind, int(site), int(seq), int(ack)
        self.method, self.args, self.result = method, args, result


class SiteCheckpoint:
    """A site's state after request ``seq``, as :func:`streamsvm.save` writes it."""

    _streamsvm_model = True
    _transient = ()

    def __init__(self):
        self.site = None
        self.seq = 0

    def get_params(self, deep=False):  # noqa: ARG002 - save reads the (empty) parameters
        return {}


def save_checkpoint(site, seq, path) -> None:
    """Write ``site``'s state after request ``seq`` to ``path`` (:func:`streamsvm.save`)."""
    from ..persistence import save

    checkpoint = SiteCheckpoint()
    checkpoint.site = site
    checkpoint.seq = int(seq)
    save(checkpoint, path)


class SiteEndpoint:
    """The receiving side of one site: sequence order, exactly-once execution, reply cache,
    checkpoints. ``path``: where the checkpoints go (None: no checkpoints)."""

    def __init__(self, site, path=None, seq=0):
        self.site = site
        self.path = path
        self.delivered = int(seq)  # every request up to this number has run
        self.checkpoint_seq = int(seq)
        self.waiting = {}  # seq -> request that arrived early (reorder buffer)
        self.replies = {}  # seq -> reply not yet acknowledged

    @classmethod
    def restart(cls, path):
        """A site restarted from its last checkpoint."""
        from ..persistence import load

        checkpoint = load(path)
        return cls(checkpoint.site, path, checkpoint.seq)

    def save_checkpoint(self):
        save_checkpoint(self.site, self.delivered, self.path)
        self.checkpoint_seq = self.delivered

    def receive(self, envelopes):
        """Deliver what can be delivered; return the reply envelopes.

        A site's compiled loops run on one thread (``compiled_threads(None)``, as an
        estimator's with ``n_jobs=None``): the sites are the parallelism, and the kernel
        rows' ``prange`` above 256 atoms, one parallel region per row of a Gram matrix, made
        a fit of 500 MNIST rows on 2 busy cores take 194 CPU s instead of 10.5 (the same
        bits: ``docs/performance.md``, Threads)."""
        with compiled_threads(None):
            return self._receive(envelopes)

    def _receive(self, envelopes):
        out = []
        for env in envelopes:
            for seq in [s for s in self.replies if s <= env.ack]:
                del self.replies[seq]
            if env.seq <= self.delivered:  # a duplicate: answer again, never run again
                if env.seq in self.replies:
                    out.append(self.replies[env.seq])
                elif env.seq == self.checkpoint_seq and env.method == _CHECKPOINT:
                    out.append(Envelope("reply", env.site, env.seq, result=env.seq))
                else:  # ran before the checkpoint this site restarted from
                    out.append(Envelope("ack", env.site, env.seq))
                continue
            self.waiting[env.seq] = env
            while self.delivered + 1 in self.waiting:
                request = self.waiting.pop(self.delivered + 1)
                self.delivered = request.seq
                if request.method == _CHECKPOINT:
                    self.save_checkpoint()
                    result = request.seq
                else:
                    result = getattr(self.site, request.method)(*request.args)
                reply = Envelope("reply", request.site, request.seq, result=result)
                self.replies[request.seq] = reply
                out.append(reply)
        return out


class LocalHandle:
    """A site endpoint in this process (the supervisor can crash and restart it)."""

    def __init__(self, endpoint):
        self.endpoint = endpoint

    def submit(self, envelopes):
        if self.endpoint is None:
            raise SiteDown
        return self.endpoint.receive(envelopes)

    @staticmethod
    def collect(pending):
        return pending

    def crash(self):
        self.endpoint = None

    def alive(self):
        return self.endpoint is not None

    def restart(self, path):
        self.endpoint = SiteEndpoint.restart(path)

    def export_site(self):
        if self.endpoint is None:
            raise SiteDown
        return self.endpoint.site


class PerfectTransport:
    """Delivers every message once, in the order sent."""

    def __init__(self):
        self.queue = deque()

    def send(self, env):
        self.queue.append(env)

    def next_batch(self):
        """Messages to deliver now (empty when nothing is in flight)."""
        batch = list(self.queue)
        self.queue.clear()
        return batch

    def after_delivery(self, layer, site, n_requests):
        """Hook of fault-injecting transports (crashes); nothing here."""


class _Link:
    """The coordinator's side of one site: numbering, unacknowledged requests, the log since
    the last checkpoint."""

    def __init__(self):
        self.next_seq = 1
        self.results = {}  # seq -> result, while someone waits for it
        self.pending = {}  # seq -> request without a reply
        self.log = {}  # seq -> request after the last checkpoint
        self.replaying = set()  # replayed to a restarted site, not yet acknowledged
        self.acked = 0  # every reply up to this number has arrived
        self.since_checkpoint = 0


class MessageLayer:
    """Coordinator side: :meth:`exchange` sends requests and returns their results."""

    def __init__(self, handles, transport=None, *, checkpoint_dir=None, checkpoint_every=0,
                 max_timeouts=1000):
        self.handles = list(handles)
        self.transport = transport if transport is not None else PerfectTransport()
        self.links = [_Link() for _ in self.handles]
        self.checkpoint_dir = checkpoint_dir
        self.checkpoint_every = int(checkpoint_every)
        self.max_timeouts = int(max_timeouts)
        self.counters = dict.fromkeys(RECOVERY_COUNTERS + ("requests", "checkpoints"), 0)

    def checkpoint_path(self, k):
        if self.checkpoint_dir is None:
            return None
        return os.path.join(self.checkpoint_dir, f"site-{k}.npz")

    def _send(self, k, method, args):
        link = self.links[k]
        seq = link.next_seq
        link.next_seq += 1
        env = Envelope("request", k, seq, method, args, ack=link.acked)
        link.pending[seq] = env
        if self.checkpoint_dir is not None:
            link.log[seq] = env
        self.transport.send(env)
        return seq

    def exchange(self, calls):
        """Run ``calls`` ([(site, method, args)], several per site allowed, delivered in this
        order at each site); return their results in the same order."""
        tickets = [(k, self._send(k, method, args)) for k, method, args in calls]
        self.counters["requests"] += len(tickets)
        try:
            self._wait(tickets)
        except BaseException:  # a site method raised: nobody waits for these any more
            for k, seq in tickets:
                self.links[k].pending.pop(seq, None)
                self.links[k].results.pop(seq, None)
            raise
        results = [self.links[k].results.pop(seq) for k, seq in tickets]
        if self.checkpoint_every > 0 and self.checkpoint_dir is not None:
            self._checkpoints([k for k, _ in tickets])
        return results

    def _checkpoints(self, sites):
        """Checkpoint the sites among ``sites`` (one entry per request just answered) that
        have had ``checkpoint_every`` requests since their last checkpoint."""
        for k in sites:
            self.links[k].since_checkpoint += 1
        due = []
        for k in sorted(set(sites)):
            link = self.links[k]
            if link.since_checkpoint >= self.checkpoint_every and not link.pending:
                due.append((k, self._send(k, _CHECKPOINT, ())))
        if not due:
            return
        self._wait(due)
        for k, seq in due:
            link = self.links[k]
            link.results.pop(seq)
            link.log = {s: e for s, e in link.log.items() if s > seq}
            link.replaying = {s for s in link.replaying if s in link.log}
            link.since_checkpoint = 0
            self.counters["checkpoints"] += 1

    def _wait(self, tickets):
        waiting = {(k, seq) for k, seq in tickets}
        timeouts = 0
        while True:
            waiting = {t for t in waiting if t[1] not in self.links[t[0]].results}
            if not waiting:
                return
            batch = self.transport.next_batch()
            if batch:
                self._deliver(batch)
                continue
            timeouts += 1  # nothing in flight, yet replies are missing
            if timeouts > self.max_timeouts:
                raise RuntimeError(f"sites {sorted({k for k, _ in waiting})} do not answer "
                                   f"after {self.max_timeouts} resends")
            self._recover({k for k, _ in waiting})

    def _deliver(self, batch):
        requests, replies = {}, []
        for env in batch:
            if env.kind == "request":
                requests.setdefault(env.site, []).append(env)
            else:
                replies.append(env)
        pending = {}
        for k, envs in requests.items():
            try:
                pending[k] = (self.handles[k].submit(envs), len(envs))
            except SiteDown:
                self.handles[k].crash()
        for k, (ticket, n) in pending.items():
            try:
                out = self.handles[k].collect(ticket)
            except SiteDown:
                self.handles[k].crash()
                continue
            self.transport.after_delivery(self, k, n)
            if self.handles[k].alive():  # a site that crashed now sends nothing
                for env in out:
                    self.transport.send(env)
        for env in replies:
            self._on_reply(env)

    def _on_reply(self, env):
        link = self.links[env.site]
        link.replaying.discard(env.seq)
        if env.seq not in link.pending or env.kind == "ack":
            self.counters["duplicates_dropped"] += 1
            return
        del link.pending[env.seq]
        link.results[env.seq] = env.result
        while link.acked + 1 < link.next_seq and link.acked + 1 not in link.pending:
            link.acked += 1

    def _recover(self, sites):
        """A timeout: restart crashed sites from their checkpoints (they catch up from the
        log), resend what is still unanswered elsewhere."""
        for k in sorted(sites):
            link, handle = self.links[k], self.handles[k]
            if not handle.alive():
                path = self.checkpoint_path(k)
                if path is None:
                    raise RuntimeError(f"site {k} crashed and there is no checkpoint to "
                                       "restart it from (checkpoint_every=0)")
                handle.restart(path)
                self.counters["restarts"] += 1
                link.replaying = set(link.log)
                for seq in sorted(link.log):
                    env = link.log[seq]
                    env.ack = link.acked
                    self.transport.send(env)
                    self.counters["replayed"] += 1
                continue
            for seq in sorted(link.replaying | set(link.pending)):
                env = link.log[seq] if seq in link.replaying else link.pending[seq]
                env.ack = link.acked
                self.transport.send(env)
                self.counters["resends"] += 1

    def crash(self, k):
        """Make site ``k`` crash now (fault injection)."""
        self.handles[k].crash()
