"""Ray backend: every site is a Ray actor (a process, possibly on another machine).

Same API as :class:`~streamsvm.distributed.network.LocalNetwork`; the protocol driver calls
site methods remotely (``call_many`` runs them in parallel on the sites) and counts messages
exactly as in-process, so the two backends give the same model and the same counts.

Ray is optional (``pip install streamsvm[distributed]``). If Ray is not initialised, the
network starts a local instance (``ray.init`` with ``ray_init_kwargs``) and shuts it down on
:meth:`close`; an instance the caller started (e.g. ``ray.init(address=...)`` for a cluster)
is used as is. Actors ask for ``num_cpus=0`` by default so that K sites fit on a small machine;
pass ``actor_options={"num_cpus": 1}`` to pin one site per core.
"""

from __future__ import annotations

import copy

from .site import Site

__all__ = ["RayNetwork", "ray_available"]


def ray_available() -> bool:
    """Whether the ``ray`` package can be imported."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


class _SiteActor(Site):
    """A site started from a given site's state (a new one, or one loaded from a file)."""

    def __init__(self, site):  # noqa: D107 - the state is the given site's
        # Ray hands arguments over as read-only zero-copy arrays: the site needs its own
        self.__dict__.update(copy.deepcopy(site.__dict__))

    def export_site(self):
        site = Site.__new__(Site)
        site.__dict__.update(self.__dict__)
        return site


class RayNetwork:
    """K sites as Ray actors."""

    name = "ray"

    def __init__(self, sites, *, actor_options=None, ray_init_kwargs=None):
        """``sites``: :class:`Site` objects whose states the actors start from."""
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
        options = {"num_cpus": 0}
        options.update(actor_options or {})
        remote_site = ray.remote(**options)(_SiteActor)
        self.actors = [remote_site.remote(site) for site in sites]

    def call(self, k, method, *args):
        return self._ray.get(getattr(self.actors[k], method).remote(*args))

    def call_many(self, ks, method, *args):
        refs = [self._ray.put(a) for a in args]
        return self._ray.get([getattr(self.actors[k], method).remote(*refs) for k in ks])

    def export_sites(self):
        """The sites' states, fetched from the actors (for saving)."""
        return self._ray.get([actor.export_site.remote() for actor in self.actors])

    def close(self):
        for actor in self.actors:
            self._ray.kill(actor)
        self.actors = []
        if self._owns_ray:
            self._ray.shutdown()
            self._owns_ray = False
