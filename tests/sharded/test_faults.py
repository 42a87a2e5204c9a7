"""Workers killed mid-shard: retried, the same model as without the fault; given up after
``max_retries`` with the shard named. Local spawned processes and Ray (a few small tests:
starting workers dominates their time)."""

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

from streamsvm import Pegasos, StreamSVM
from streamsvm.datasets import make_synthetic_a
from streamsvm.sharded import KillWorker, LocalBackend, WorkerLostError, fit_sharded


@pytest.fixture(scope="module")
def shard_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shards")
    X, y = make_synthetic_a(1200, random_state=7)
    for k in range(3):
        rows = slice(400 * k, 400 * (k + 1))
        dump_svmlight_file(X[rows], y[rows], str(folder / f"part-{k}.svm"), zero_based=False)
    return str(folder / "part-*.svm")


def test_killed_local_worker_is_retried_and_the_model_is_unchanged(shard_files):
    want = fit_sharded(StreamSVM(), shard_files, backend="serial", chunk_size=100)
    with LocalBackend(2, faults=[KillWorker(shard=1, after_chunks=2)]) as backend:
        got = fit_sharded(StreamSVM(), shard_files, backend=backend, chunk_size=100)
        assert backend.n_lost >= 1
        with pytest.raises(WorkerLostError, match=r"part-2\.svm: its worker died 3 times"):
            backend.faults = (KillWorker(shard=2, after_chunks=1, times=10),)
            fit_sharded(Pegasos(), shard_files, backend=backend, chunk_size=100)
    np.testing.assert_array_equal(got.coef_, want.coef_)
    assert got.n_seen_ == want.n_seen_ == 1200


def test_killed_ray_worker_is_retried_and_the_model_is_unchanged(shard_files):
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install ray)")
    from streamsvm.sharded import RayBackend

    want = fit_sharded(Pegasos(), shard_files, backend="serial", chunk_size=100)
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
    try:
        backend = RayBackend(2, faults=[KillWorker(shard=0, after_chunks=1)])
        got = fit_sharded(Pegasos(), shard_files, backend=backend, chunk_size=100)
        assert backend.n_lost >= 1
    finally:
        if started:
            ray.shutdown()
    np.testing.assert_array_equal(got.coef_, want.coef_)
