"""Shards: the layout the driver fixes (widths, indexing, classes, gamma and centring from the
union of the shards) and the refusals that come before any model exists."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

from streamsvm import LASVM, Pegasos, StreamSVM
from streamsvm.datasets import load_svmlight, make_synthetic_a
from streamsvm.kernels import resolve_gamma
from streamsvm.sharded import ShardError, fit_sharded
from streamsvm.sharded.shards import reconcile, resolve_shards, scan_shard
from streamsvm.sharded.worker import start_shared

from ._backends import ReversedBackend


def write_svmlight_parts(tmp_path, X, y, n_parts, zero_based=False):
    paths = []
    for k, (Xk, yk) in enumerate(zip(np.array_split(X, n_parts), np.array_split(y, n_parts),
                                     strict=True)):
        path = tmp_path / f"part-{k}.svm"
        dump_svmlight_file(Xk, yk, str(path), zero_based=zero_based)
        paths.append(path)
    return paths


def layout_of(shards):
    shards = resolve_shards(shards)
    return reconcile(shards, [scan_shard(s, 7) for s in shards])


def test_svmlight_shards_of_different_widths_read_as_their_concatenation(tmp_path):
    """A shard whose last columns are zero is narrower: all are read at the widest width,
    one-based unless some shard uses index 0 (as loading the concatenated file does)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 6))
    X[:20, 4:] = 0.0  # the first shard is narrower
    y = np.where(X[:, 0] > 0, 1, -1)
    paths = write_svmlight_parts(tmp_path, X, y, 2)
    whole = tmp_path / "whole.svm"
    whole.write_text("".join(p.read_text() for p in paths))
    X_whole, y_whole = load_svmlight(whole)
    layout = layout_of(str(tmp_path / "part-*.svm"))
    assert layout.n_features == X_whole.shape[1] == 6
    assert not layout.zero_based
    assert layout.n_rows == 40
    np.testing.assert_array_equal(layout.classes, [-1, 1])
    np.testing.assert_allclose(layout.column_sums, np.asarray(X_whole.sum(axis=0)).ravel(),
                               rtol=1e-12)
    model = start_shared(LASVM(), layout)
    assert model.gamma_ == pytest.approx(resolve_gamma("scale", X_whole), rel=1e-12)


def test_zero_based_when_any_shard_uses_index_zero(tmp_path):
    (tmp_path / "a.svm").write_text("1 0:1.5 2:1\n-1 1:2\n")
    (tmp_path / "b.svm").write_text("1 3:1\n-1 1:1\n")
    layout = layout_of([tmp_path / "a.svm", tmp_path / "b.svm"])
    assert layout.zero_based and layout.n_features == 4
    np.testing.assert_allclose(layout.column_sums, [1.5, 3.0, 1.0, 1.0])


def test_shared_gamma_and_mean_are_those_of_the_union():
    """The centring mean and gamma='scale' of StreamSVM started over shards equal what
    ``fit`` on the union of the shards fixes."""
    X, y = make_synthetic_a(900, random_state=3)
    X = X * [1.0, 5.0] + [2.0, -1.0]
    parts = [(X[:200], y[:200]), (X[200:650], y[200:650]), (X[650:], y[650:])]
    layout = layout_of(parts)
    model = start_shared(StreamSVM(kernel="rbf"), layout)
    whole = StreamSVM(kernel="rbf").fit(X, y)
    np.testing.assert_allclose(model.mean_, whole.mean_, rtol=1e-12)
    assert model.gamma_ == pytest.approx(whole.gamma_, rel=1e-12)
    assert model.n_features_in_ == 2 and list(model.classes_) == list(whole.classes_)


def test_scan_sums_are_numpys_column_sums_bit_for_bit_and_refuse_nan_only():
    """The scan's one compiled read per chunk: column sums chunk after chunk equal NumPy's
    ``X.sum(axis=0)`` per chunk bit for bit (so the centring mean is unchanged), entry sums
    and squares those of the union; NaN and infinity are refused, and so is a row whose
    squared norm overflows (the estimators refuse it), but not a column's sum of squares
    that alone overflows."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(130, 5)) * 10.0 ** rng.integers(-3, 4, size=5)
    y = np.where(X[:, 0] > 0, 1, -1)
    summary = scan_shard(resolve_shards([(X, y)])[0], 40)
    want = np.zeros(5)
    for start in range(0, 130, 40):
        want += X[start : start + 40].sum(axis=0)
    np.testing.assert_array_equal(summary.column_sums, want)
    assert summary.entry_sum == pytest.approx(X.sum(), rel=1e-12)
    assert summary.entry_sqsum == pytest.approx(np.sum(X * X), rel=1e-12)
    assert (summary.n_rows, summary.n_columns) == (130, 5)
    sparse = scan_shard(resolve_shards([(sp.csr_matrix(X), y)])[0], 40)
    np.testing.assert_allclose(sparse.column_sums, X.sum(axis=0), rtol=1e-12)
    assert sparse.uses_index_zero and sparse.entry_sqsum == pytest.approx(np.sum(X * X))
    no_zero = X.copy()
    no_zero[:, 0] = 0.0  # column 0 stores nothing
    assert not scan_shard(resolve_shards([(sp.csr_matrix(no_zero), y)])[0], 40).uses_index_zero
    for bad in (np.nan, np.inf):
        X_bad = X.copy()
        X_bad[77, 3] = bad
        with pytest.raises(ShardError, match="array shard 0: the shard holds NaN or infinite"):
            scan_shard(resolve_shards([(X_bad, y)])[0], 40)
    X_big = X.copy()
    X_big[5, 2] = 1e200  # finite, but its row's squared norm overflows: every estimator
    with pytest.raises(ShardError, match="array shard 0, row 6: the row is too large"):
        scan_shard(resolve_shards([(X_big, y)])[0], 40)  # refuses it: so does the scan
    X_wide = np.full((40, 1), 1e154)  # rows within range, their column's square sum is not
    assert scan_shard(resolve_shards([(X_wide, y[:40])])[0], 40).entry_sqsum == np.inf


def test_sparse_array_shards_are_not_centred():
    X, y = make_synthetic_a(200, random_state=0)
    model = fit_sharded(StreamSVM(), [(sp.csr_matrix(X[:100]), y[:100]),
                                      (sp.csr_matrix(X[100:]), y[100:])], backend="serial")
    assert model.mean_ is None


def test_csv_shards_with_different_column_counts_are_refused(tmp_path):
    (tmp_path / "a.csv").write_text("1,2,1\n3,4,-1\n")
    (tmp_path / "b.csv").write_text("1,2,3,1\n3,4,5,-1\n")
    with pytest.raises(ShardError, match=r"b\.csv has 3 feature columns but .*a\.csv has 2"):
        fit_sharded(Pegasos(), str(tmp_path / "*.csv"), backend="serial")


def test_sparse_and_dense_shards_are_refused():
    X, y = make_synthetic_a(100, random_state=0)
    with pytest.raises(ShardError, match="not both sparse or both dense"):
        fit_sharded(Pegasos(), [(X[:50], y[:50]), (sp.csr_matrix(X[50:]), y[50:])],
                    backend="serial")


def test_missing_shard_is_named(tmp_path):
    with pytest.raises(ShardError, match=r"nothing\.svm: no such data file"):
        fit_sharded(Pegasos(), [tmp_path / "nothing.svm"], backend="serial")
    with pytest.raises(ShardError, match="no file matches"):
        fit_sharded(Pegasos(), str(tmp_path / "none-*.svm"), backend="serial")


def test_malformed_shard_fails_with_file_and_line_before_any_model(tmp_path):
    X, y = make_synthetic_a(60, random_state=0)
    paths = write_svmlight_parts(tmp_path, X, y, 3)
    with open(paths[2], "a") as f:
        f.write("1 1:0.5 2:oops\n")
    backend = ReversedBackend()
    with pytest.raises(ShardError, match=r"part-2\.svm:21: .*oops"):
        fit_sharded(Pegasos(), [str(p) for p in paths], backend=backend)
    assert set(backend.kinds) == {"ScanTask"}  # no shard was learnt


def test_one_class_over_all_shards_is_refused():
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ShardError, match="one class only"):
        fit_sharded(Pegasos(), [(X[:10], np.ones(10)), (X[10:], np.ones(10))],
                    backend="serial")


def test_estimators_without_sharded_training_are_refused():
    from streamsvm import TwinVectorMachine

    X, y = make_synthetic_a(20, random_state=0)
    with pytest.raises(ValueError, match="TwinVectorMachine has no sharded training"):
        fit_sharded(TwinVectorMachine(), [(X, y)], backend="serial")


def test_shard_tasks_run_with_blas_at_one_thread(monkeypatch):
    """Workers are the parallelism: a task holds BLAS at one thread (2 workers each waking a
    BLAS pool of their own fought over 2 cores), whatever the backend."""
    from threadpoolctl import threadpool_info

    from streamsvm.sharded import worker

    seen = []
    monkeypatch.setattr(worker, "_scan", lambda task: seen.extend(
        info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"))
    X, y = make_synthetic_a(20, random_state=0)
    worker.run_task(worker.ScanTask(resolve_shards([(X, y)])[0], 10))
    assert seen and set(seen) == {1}
