"""The Ray backend (one actor per site) against the in-process network on one event log:
the same model at every site and the same message counts. Skipped without ray."""

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="ray is not installed (pip install ray)")

from streamsvm.distributed import DistributedL2SVM  # noqa: E402


def events(n=30, seed=0, n_sites=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] - X[:, 2] > 0, 1, -1)
    out, live = [], []
    for i in range(n):
        out.append(("add", int(rng.integers(n_sites)), i, X[i], y[i]))
        live.append(out[-1])
        if i % 5 == 4:
            victim = live.pop(int(rng.integers(len(live))))
            out.append(("delete", victim[1], victim[2], None, None))
    return out


@pytest.fixture(scope="module")
def local_ray():
    """One small local Ray instance for the module (started here, shut down after)."""
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
    yield
    if started:
        ray.shutdown()


def test_ray_and_local_backends_agree(local_ray):
    """Approximate method 2 with deletions runs every remote site method: broadcasts, ray
    extremes, the collector's solve, method-1 fall-backs and deletion updates (one Ray test
    only: starting actors dominates its time)."""
    log = events()
    models = {}
    try:
        for backend in ("local", "ray"):
            m = DistributedL2SVM(tracking="exact",
                n_sites=3, kernel="rbf", gamma=0.5, C=2.0, epsilon=0.02,
                                 update="method2", backend=backend)
            for kind, site, pid, x, y in log:
                if kind == "add":
                    m.add(site, x, y, point_id=pid)
                else:
                    m.delete(site, pid)
            models[backend] = m
        local, remote = models["local"], models["ray"]
        kinds = {(r["kind"], r["fallback"], r["triggered"]) for r in local.events_}
        assert {("add", True, True), ("add", False, True), ("delete", False, True)} <= kinds
        assert local.communication_report() == remote.communication_report()
        assert [dict(r) for r in local.events_] == [dict(r) for r in remote.events_]
        grid = np.random.default_rng(1).normal(size=(10, 3))
        for site in range(3):
            ids_l, coef_l = local.tracker_.global_vector(site)
            ids_r, coef_r = remote.tracker_.global_vector(site)
            np.testing.assert_array_equal(ids_l, ids_r)
            np.testing.assert_array_equal(coef_l, coef_r)
            np.testing.assert_array_equal(local.decision_function(grid, site=site),
                                          remote.decision_function(grid, site=site))
    finally:
        for m in models.values():
            m.close()


def test_ray_model_saves_and_loads_onto_new_actors(local_ray, tmp_path):
    """Saving fetches the sites' states from the actors; loading starts new actors from
    them; the loaded model continues the log exactly like the in-process one."""
    import streamsvm

    log = events(n=20, seed=3)
    cut = len(log) // 2
    common = dict(n_sites=3, kernel="rbf", gamma=0.5, C=2.0)
    local = DistributedL2SVM(tracking="exact", **common)
    remote = DistributedL2SVM(tracking="exact", backend="ray", **common)
    loaded = None
    try:
        for i, (kind, site, pid, x, y) in enumerate(log):
            for m in (local, remote) if i < cut else (local, loaded):
                if kind == "add":
                    m.add(site, x, y, point_id=pid)
                else:
                    m.delete(site, pid)
            if i == cut - 1:
                streamsvm.save(remote, tmp_path / "ray.npz")
                remote.close()
                loaded = streamsvm.load(tmp_path / "ray.npz")
                assert loaded.tracker_.network.name == "ray"
        assert loaded.communication_report() == local.communication_report()
        for site in range(3):
            np.testing.assert_array_equal(loaded.tracker_.global_vector(site)[1],
                                          local.tracker_.global_vector(site)[1])
    finally:
        for m in (local, remote, loaded):
            if m is not None:
                m.close()


def test_ray_actor_killed_mid_stream_restarts_from_its_checkpoint(local_ray):
    """``ray.kill`` of a site's actor mid-stream, while messages to the actors are also lost,
    duplicated and reordered: the next request finds the actor dead, a new actor starts from
    the site's last checkpoint and catches up from the coordinator's log; the model is the
    centralised solution, bit for bit the in-process run's, with the same protocol counts."""
    from streamsvm.distributed import KernelSpace, SquaredNorm, Tracker
    from streamsvm.distributed.faults import FaultyTransport
    from streamsvm.kernels import Kernel

    from .test_faults import PROTOCOL_COUNTS, C, assert_same_model
    from .test_protocol import GAMMA, centralised_check, make_stream, rbf
    from tests.naive import l2svm_hat_gram

    X, y, log = make_stream(n=30, seed=12, n_sites=3)
    G_all = l2svm_hat_gram(X, y, np.arange(len(X)), rbf, C, "two-class")
    check = centralised_check(G_all, C)
    space = KernelSpace(Kernel("rbf", gamma=GAMMA), C, "two-class")
    local = Tracker(3, 2, space, SquaredNorm(), checkpoint_every=8)
    faults = FaultyTransport(seed=4, drop=0.1, duplicate=0.1, reorder=0.2)
    remote = Tracker(3, 2, space, SquaredNorm(), checkpoint_every=8, backend="ray",
                     transport=faults)
    try:
        for i, (kind, site, pid) in enumerate(log):
            if i in (12, 25):
                ray.kill(remote.network.actors[i % 3])
            for t in (local, remote):
                if kind == "add":
                    t.add(site, X[pid], y[pid], point_id=pid)
                else:
                    t.delete(site, pid)
            check(remote)
        assert_same_model(remote, local)
        report = remote.report()
        assert report["restarts"] == 2 and report["replayed"] > 0
        assert report["resends"] > 0 and report["duplicates_dropped"] > 0
        assert {n: report[n] for n in PROTOCOL_COUNTS} == \
            {n: local.report()[n] for n in PROTOCOL_COUNTS}
    finally:
        remote.close()
