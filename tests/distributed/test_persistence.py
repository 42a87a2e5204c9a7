"""save/load of DistributedL2SVM (streamsvm.persistence, no pickle): a loaded model answers
queries identically and continues the event stream exactly like the uninterrupted run."""

import zipfile

import numpy as np
import pytest

import streamsvm
from streamsvm.distributed import DistributedL2SVM
from streamsvm.persistence import ModelFileError

from .test_protocol import make_stream


def replay(model, X, y, events):
    for kind, site, pid in events:
        if kind == "add":
            model.add(site, X[pid], y[pid], point_id=pid)
        else:
            model.delete(site, pid)


def state(model):
    """Everything observable: every site's ê, points and slacks, and the counts."""
    t = model.tracker_
    per_site = [(t.global_vector(k), t.site_points(k), t.shared_ids(k))
                for k in range(t.n_sites)]
    return per_site, t.report(), [dict(e) for e in t.stats.events]


def assert_same(a, b):
    (sa, ra, ea), (sb, rb, eb) = state(a), state(b)
    assert ra == rb
    assert len(ea) == len(eb)
    for x, z in zip(ea, eb, strict=True):
        assert x.keys() == z.keys()
        for key in x:
            assert x[key] == z[key] or (x[key] != x[key] and z[key] != z[key]), key
    for (ga, pa, ca), (gb, pb, cb) in zip(sa, sb, strict=True):
        np.testing.assert_array_equal(ga[0], gb[0])
        np.testing.assert_array_equal(ga[1], gb[1])
        np.testing.assert_array_equal(pa[0], pb[0])
        np.testing.assert_array_equal(pa[1], pb[1])
        assert ca == cb


@pytest.mark.parametrize("kwargs", [
    {"task": "two-class", "C": 4.0},
    {"task": "two-class", "C": 4.0, "update": "method2", "epsilon": 0.01, "relative": True},
    {"task": "one-class", "C": 1.0, "shared_cache": 3},
])
def test_saved_model_answers_and_continues_like_the_uninterrupted_run(tmp_path, kwargs):
    X, y, events = make_stream(n=60, seed=21)
    cut = len(events) // 2
    common = dict(kernel="rbf", gamma=0.5, **kwargs)
    whole = DistributedL2SVM(4, tracking="exact", **common)
    replay(whole, X, y, events)

    first = DistributedL2SVM(4, tracking="exact", **common)
    replay(first, X, y, events[:cut])
    path = tmp_path / "dist.npz"
    streamsvm.save(first, path)
    with zipfile.ZipFile(path) as z:  # numpy arrays and a JSON header, no pickle
        assert all(name.endswith(".npy") for name in z.namelist())
    loaded = streamsvm.load(path)
    assert isinstance(loaded, DistributedL2SVM)
    assert loaded.get_params() == first.get_params()
    assert_same(first, loaded)
    Q = np.random.default_rng(1).normal(size=(25, 2))
    for site in range(4):
        np.testing.assert_array_equal(loaded.decision_function(Q, site=site),
                                      first.decision_function(Q, site=site))
    np.testing.assert_array_equal(loaded.predict(Q), first.predict(Q))
    assert loaded.objective_ == first.objective_

    replay(loaded, X, y, events[cut:])
    assert_same(whole, loaded)
    np.testing.assert_array_equal(loaded.decision_function(Q), whole.decision_function(Q))


def test_unfitted_model_round_trips_and_a_corrupt_file_is_refused(tmp_path):
    path = tmp_path / "empty.npz"
    streamsvm.save(DistributedL2SVM(3, tracking="exact", C=2.0), path)
    model = streamsvm.load(path)
    assert model.get_params()["C"] == 2.0 and not hasattr(model, "tracker_")
    model.add(0, [0.0, 1.0], 1)
    model.add(1, [1.0, 0.0], -1)
    assert model.n_support_ == 2
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(ModelFileError):
        streamsvm.load(path)
