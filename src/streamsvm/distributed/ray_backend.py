"""Ray backend: every site is a Ray actor (a process, possibly on another machine).

Same API as :class:`~streamsvm.distributed.network.LocalNetwork`: the driver's requests reach
the actors through the message layer (:mod:`~streamsvm.distributed.messages`; ``call_many``
runs them in parallel on the sites), and the protocol's messages are counted exactly as
in-process, so the two backends give the same model and the same counts. An actor that dies
(``ray.kill``, a crashed worker) is replaced by a new one started from the site's last
checkpoint, which then catches up from the coordinator's log.

Ray is optional (``pip install streamsvm[distributed]``). If Ray is not initialised, the
network starts a local instance (``ray.init`` with ``ray_init_kwargs``) and shuts it down on
:meth:`close`; an instance the caller started (e.g. ``ray.init(address=...)`` for a cluster)
is used as is. Actors ask for ``num_cpus=0`` by default so that K sites fit on a small machine;
pass ``actor_options={"num_cpus": 1}`` to pin one site per core.
"""

from __future__ import annotations

import copy

from .messages import SiteDown, SiteEndpoint
from .network import SiteNetwork

__all__ = ["RayNetwork", "ray_available"]


def ray_available() -> bool:
    """Whether the ``ray`` package can be imported."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


class _SiteActor(SiteEndpoint):
    """A site's endpoint in a Ray actor, started from a site's state, or restarted from its
    checkpoint file (``site=None``)."""

    def __init__(self, site, path):  # noqa: D107
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1, user_api="blas")  # the actors are the parallelism
        if site is None:
            restarted = SiteEndpoint.restart(path)
            super().__init__(restarted.site, path, restarted.delivered)
        else:
            # Ray hands arguments over as read-only zero-copy arrays: the site needs its own
            own = type(site).__new__(type(site))
            own.__dict__.update(copy.deepcopy(site.__dict__))
            super().__init__(own, path)

    def export_site(self):
        return self.site


class _RayHandle:
    """One actor; a dead actor (killed, crashed) shows as :class:`SiteDown`."""

    def __init__(self, ray, remote_cls, site, path):
        self._ray = ray
        self._remote_cls = remote_cls
        self.actor = remote_cls.remote(site, path)
        self.dead = False

    def submit(self, envelopes):
        if self.dead:
            raise SiteDown
        return self.actor.receive.remote(envelopes)

    def collect(self, ref):
        try:
            return self._ray.get(ref)
        except self._ray.exceptions.RayActorError as exc:
            raise SiteDown from exc

    def crash(self):
        if not self.dead:
            self._ray.kill(self.actor)
            self.dead = True

    def alive(self):
        return not self.dead

    def restart(self, path):
        self.actor = self._remote_cls.remote(None, path)
        self.dead = False

    def export_site(self):
        if self.dead:
            raise SiteDown
        return self.collect(self.actor.export_site.remote())


class RayNetwork(SiteNetwork):
    """K sites as Ray actors, behind the message layer (a killed actor is restarted from its
    site's last checkpoint, which must be on a disk the new actor can read)."""

    name = "ray"

    def __init__(self, sites, *, actor_options=None, ray_init_kwargs=None, transport=None,
                 checkpoint_every=0, checkpoint_dir=None, private_if_taken=False):
        """``sites``: :class:`Site` objects whose states the actors start from
        (``private_if_taken``: see :class:`SiteNetwork`)."""
        try:
            import ray
        except ImportError as exc:
            raise ImportError(
                "backend='ray' needs the ray package: pip install 'streamsvm[distributed]'"
            ) from exc
        self._ray = ray
        self._owns_ray = False
        if not ray.is_initialized():
            kwargs = {"include_dashboard": False, "log_to_driver": False,
                      "configure_logging": False}
            kwargs.update(ray_init_kwargs or {})
            ray.init(**kwargs)
            self._owns_ray = True
        options = {"num_cpus": 0, "max_restarts": 0}
        options.update(actor_options or {})
        remote_site = ray.remote(**options)(_SiteActor)

        def handles(sites, layer):
            return [_RayHandle(ray, remote_site, site, layer.checkpoint_path(k))
                    for k, site in enumerate(sites)]

        self._start_layer(list(sites), handles, transport, checkpoint_every, checkpoint_dir,
                          private_if_taken)

    @property
    def actors(self):
        return [handle.actor for handle in self.layer.handles]

    def close(self):
        for handle in self.layer.handles:
            handle.crash()
        self.layer.handles = []
        if self._owns_ray:
            self._ray.shutdown()
            self._owns_ray = False
        super().close()
