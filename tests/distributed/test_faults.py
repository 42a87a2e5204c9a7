"""Faults injected into the message layer between the driver and the sites: lost, duplicated
and reordered messages, sites that crash and restart from their checkpoints. After each, the
tracked model is the centralised solution (the check of test_protocol), and it is the very
model (bit for bit, with the same protocol message counts) a run without faults gives."""

import numpy as np
import pytest

from streamsvm.distributed import KernelSpace, SquaredNorm, Tracker
from streamsvm.distributed.faults import FaultyTransport
from streamsvm.distributed.messages import (
    LocalHandle,
    MessageLayer,
    PerfectTransport,
    SiteEndpoint,
)
from streamsvm.kernels import Kernel

from .test_protocol import (
    GAMMA,
    centralised_check,
    make_stream,
    rbf,
    replay,
)
from tests.naive import l2svm_hat_gram

C = 4.0
PROTOCOL_COUNTS = ("messages", "vectors", "scalars", "bytes", "vector_broadcasts", "rounds",
                   "membership_problems", "updates")


def run(update, transport=None, **kwargs):
    X, y, events = make_stream(n=40, seed=11)
    space = KernelSpace(Kernel("rbf", gamma=GAMMA), C, "two-class")
    G_all = l2svm_hat_gram(X, y, np.arange(len(X)), rbf, C, "two-class")
    tracker = Tracker(4, 2, space, SquaredNorm(), update=update, transport=transport,
                      **kwargs)
    replay(tracker, X, y, events, centralised_check(G_all, C))
    return tracker


def assert_same_model(a, b):
    for k in range(a.n_sites):
        for got, want in zip(a.global_vector(k), b.global_vector(k), strict=True):
            np.testing.assert_array_equal(got, want)
        for got, want in zip(a.site_points(k), b.site_points(k), strict=True):
            np.testing.assert_array_equal(got, want)
    ra, rb = a.report(), b.report()
    assert {n: ra[n] for n in PROTOCOL_COUNTS} == {n: rb[n] for n in PROTOCOL_COUNTS}


FAULTS = {
    "loss": dict(drop=0.3),
    "duplication": dict(duplicate=0.4),
    "reordering": dict(reorder=0.4),
    "all three": dict(drop=0.2, duplicate=0.2, reorder=0.3),
    "crash before the first checkpoint": dict(crash={1: 9}),
    "crash after checkpoints": dict(crash={2: 60}),
    "two crashes and loss": dict(drop=0.15, crash={0: 25, 3: 70}),
}


@pytest.fixture(scope="module")
def fault_free():
    return {update: run(update) for update in ("method1", "method2")}


@pytest.mark.parametrize("update", ["method1", "method2"])
@pytest.mark.parametrize("fault", list(FAULTS))
def test_tracking_survives_faults(fault_free, update, fault):
    transport = FaultyTransport(seed=len(fault), **FAULTS[fault])
    tracker = run(update, transport, checkpoint_every=10)
    assert_same_model(tracker, fault_free[update])
    report = transport.injected
    counters = tracker.report()
    if "drop" in FAULTS[fault]:
        assert report["dropped"] > 0 and counters["resends"] > 0
    if "duplicate" in FAULTS[fault]:
        assert report["duplicated"] > 0 and counters["duplicates_dropped"] > 0
    if "reorder" in FAULTS[fault]:
        assert report["reordered"] > 0
    crashes = len(FAULTS[fault].get("crash", {}))
    assert report["crashes"] == counters["restarts"] == crashes
    if crashes:
        assert counters["replayed"] > 0
    # without faults the layer neither resends nor restarts
    clean = fault_free[update].report()
    assert clean["resends"] == clean["duplicates_dropped"] == clean["restarts"] == 0


def test_restarted_site_reloads_its_checkpoint_file(tmp_path):
    """The checkpoint is a streamsvm model file; the crashed site comes back from it."""
    import streamsvm

    transport = FaultyTransport(seed=1, crash={1: 30})
    tracker = run("method1", transport, checkpoint_every=5, checkpoint_dir=tmp_path)
    assert tracker.report()["restarts"] == 1
    checkpoint = streamsvm.load(tmp_path / "site-1.npz")
    assert checkpoint.seq > 0 and checkpoint.site.index == 1
    assert tracker.network.counters()["checkpoints"] > 0


def test_crash_without_checkpoints_is_a_clear_error():
    transport = FaultyTransport(seed=0, crash={0: 3})
    with pytest.raises(RuntimeError, match="site 0 crashed and there is no checkpoint"):
        run("method1", transport, checkpoint_every=0)


class Recorder:
    """A stand-in site that records the order in which requests reach it."""

    def __init__(self):
        self.seen = []

    def take(self, value):
        self.seen.append(value)
        return value * 10


@pytest.mark.parametrize("seed", range(5))
def test_layer_delivers_in_order_exactly_once(seed):
    """Many requests in flight to each site at once, through heavy loss, duplication and
    reordering: each site runs every request once, in the order sent; every result comes
    back to the right call."""

    sites = [Recorder() for _ in range(3)]
    transport = FaultyTransport(seed=seed, drop=0.3, duplicate=0.3, reorder=0.5)
    layer = MessageLayer([LocalHandle(SiteEndpoint(s)) for s in sites], transport)
    expected = [[] for _ in sites]
    for step in range(20):
        calls = [(k, "take", (100 * step + j,)) for j in range(4) for k in range(3)]
        assert layer.exchange(calls) == [10 * args[0] for _, _, args in calls]
        for k, _, args in calls:
            expected[k].append(args[0])
    assert [s.seen for s in sites] == expected
    assert layer.counters["resends"] > 0 and layer.counters["duplicates_dropped"] > 0
    assert transport.injected["reordered"] > 0


def test_perfect_transport_sends_no_extra_message():
    sites = [Recorder() for _ in range(2)]

    layer = MessageLayer([LocalHandle(SiteEndpoint(s)) for s in sites], PerfectTransport())
    layer.exchange([(0, "take", (1,)), (1, "take", (2,)), (0, "take", (3,))])
    assert layer.counters == {"resends": 0, "duplicates_dropped": 0, "restarts": 0,
                              "replayed": 0, "requests": 3, "checkpoints": 0}


@pytest.mark.parametrize("bad", [dict(drop=1.0), dict(duplicate=-0.1), dict(reorder=2)])
def test_faulty_transport_refuses_bad_probabilities(bad):
    with pytest.raises(ValueError, match="must be a probability"):
        FaultyTransport(**bad)


def test_saving_restarts_a_crashed_site_first(tmp_path):
    """A model saved while a site is down: the site is restarted from its checkpoint and
    caught up before its state is written, so the file holds the uninterrupted model."""
    import streamsvm
    from streamsvm.distributed import DistributedL2SVM

    X, y, _ = make_stream(n=40, seed=13)
    model = DistributedL2SVM(3, tracking="exact", gamma=0.5, C=C, checkpoint_every=7).fit(X, y)
    reference = DistributedL2SVM(3, tracking="exact", gamma=0.5, C=C, checkpoint_every=7).fit(X, y)
    model.tracker_.network.layer.crash(1)
    streamsvm.save(model, tmp_path / "m.npz")
    loaded = streamsvm.load(tmp_path / "m.npz")
    assert model.communication_report()["restarts"] == 1
    assert_same_model(loaded.tracker_, reference.tracker_)


def test_crash_right_after_a_checkpoint_before_its_reply(tmp_path):
    """The site saves a checkpoint and crashes before the coordinator hears of it: the
    coordinator still holds the older log, the restarted site answers the checkpoint request
    again and acknowledges the requests its checkpoint already holds, running none twice."""
    from streamsvm.distributed.messages import save_checkpoint
    from streamsvm.distributed.site import Site

    space = KernelSpace(Kernel("rbf", gamma=GAMMA), C, "two-class")
    config = {"epsilon": 0.0, "relative": False, "monitor_tol": 1e-9, "membership": "qp",
              "prune": True, "shared_cache": 10}
    site = Site(0, 2, space, SquaredNorm(), config)
    save_checkpoint(site, 0, tmp_path / "site-0.npz")
    transport = FaultyTransport(seed=0, crash={0: 4})  # requests 1-3, then the checkpoint
    layer = MessageLayer([LocalHandle(SiteEndpoint(site, str(tmp_path / "site-0.npz")))],
                         transport, checkpoint_dir=str(tmp_path), checkpoint_every=3)
    for pid in range(3):
        layer.exchange([(0, "add_point", (pid, np.array([pid, 1.0]), 1.0))])
    # the checkpoint's reply came from the restarted site, after the log was replayed to it
    assert transport.injected["crashes"] == 1 and layer.counters["checkpoints"] == 1
    assert layer.counters["restarts"] == 1 and layer.counters["replayed"] == 4
    assert layer.counters["duplicates_dropped"] == 3  # the acks of requests 1-3
    assert layer.exchange([(0, "n_points", ())]) == [3]  # 3 points, none added twice
    layer.exchange([(0, "add_point", (3, np.array([3.0, 1.0]), 1.0))])
    assert layer.exchange([(0, "n_points", ())]) == [4]


def test_checkpoint_folder_goes_with_the_model_without_a_warning():
    """A model that is never closed (a search clones, fits and drops it) removes its
    temporary checkpoint folder when collected, without a ResourceWarning; ``close`` removes
    it at once."""
    import gc
    import os
    import warnings

    import streamsvm

    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    model = streamsvm.DistributedL2SVM(tracking="exact", n_sites=2, checkpoint_every=5).fit(X, y)
    folder = model.tracker_.network.layer.checkpoint_dir
    assert os.path.isdir(folder) and os.listdir(folder)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del model
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
    assert not os.path.exists(folder)
    model = streamsvm.DistributedL2SVM(tracking="exact", n_sites=2, checkpoint_every=5).fit(X, y)
    folder = model.tracker_.network.layer.checkpoint_dir
    model.close()
    assert not os.path.exists(folder)
