"""Bad input to the tracker and the estimator: a clear error and an unchanged state."""

import numpy as np
import pytest

from streamsvm.distributed import DistributedL2SVM, KernelSpace, SquaredNorm, Tracker
from streamsvm.kernels import Kernel


def snapshot(tracker):
    return (
        tracker.report(),
        {k: tuple(map(np.ndarray.tolist, tracker.global_vector(k)))
         for k in range(tracker.n_sites)},
        {k: tuple(map(np.ndarray.tolist, tracker.site_points(k)))
         for k in range(tracker.n_sites)},
        tracker.point_ids(),
    )


@pytest.fixture
def tracker():
    rng = np.random.default_rng(0)
    t = Tracker(3, 2, KernelSpace(Kernel("rbf", gamma=1.0), 2.0, "two-class"), SquaredNorm())
    for i in range(12):
        x = rng.normal(size=2)
        t.add(i % 3, x, 1.0 if x[0] > 0 else -1.0, point_id=i)
    return t


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda t: t.add(3, [0.0, 0.0], 1.0), ValueError, "unknown site 3"),
        (lambda t: t.add(-1, [0.0, 0.0], 1.0), ValueError, "unknown site"),
        (lambda t: t.add(1.5, [0.0, 0.0], 1.0), TypeError, "site must be an integer"),
        (lambda t: t.add(0, [0.0, np.nan], 1.0), ValueError, "NaN"),
        (lambda t: t.add(0, [0.0, 0.0, 1.0], 1.0), ValueError, "2 features"),
        (lambda t: t.add(0, [0.0, 0.0], 0.5), ValueError, "-1 or \\+1"),
        (lambda t: t.add(0, [0.0, 0.0], 1.0, point_id=4), ValueError, "already in use"),
        (lambda t: t.delete(0, 99), ValueError, "unknown point id 99"),
        (lambda t: t.delete(1, 0), ValueError, "at site 0, not at site 1"),
        (lambda t: t.delete(7, 0), ValueError, "unknown site 7"),
        (lambda t: t.delete(0, "a"), TypeError, "point_id must be an integer"),
        (lambda t: t.decision_function([[0.0]]), ValueError, "2 features"),
        (lambda t: t.global_vector(5), ValueError, "unknown site"),
    ],
)
def test_bad_input_leaves_state_unchanged(tracker, call, error, match):
    before = snapshot(tracker)
    with pytest.raises(error, match=match):
        call(tracker)
    assert snapshot(tracker) == before


def test_constructor_errors():
    space = KernelSpace(Kernel("linear"), 1.0, "two-class")
    with pytest.raises(ValueError, match="update"):
        Tracker(2, 2, space, SquaredNorm(), update="method3")
    with pytest.raises(ValueError, match="epsilon"):
        Tracker(2, 2, space, SquaredNorm(), epsilon=-1.0)
    with pytest.raises(ValueError, match="n_sites"):
        Tracker(0, 2, space, SquaredNorm())
    with pytest.raises(ValueError, match="task"):
        KernelSpace(Kernel("linear"), 1.0, "three-class")
    with pytest.raises(ValueError, match="shared_cache"):
        Tracker(2, 2, space, SquaredNorm(), shared_cache=-1)
    with pytest.raises(TypeError, match="shared_cache"):
        Tracker(2, 2, space, SquaredNorm(), shared_cache=1.5)


def test_estimator_bad_input_and_not_fitted():
    from sklearn.exceptions import NotFittedError

    svm = DistributedL2SVM(tracking="exact", n_sites=2, kernel="linear")
    with pytest.raises(NotFittedError):
        svm.predict([[0.0, 1.0]])
    with pytest.raises(ValueError, match="-1 or \\+1"):
        svm.add(0, [0.0, 1.0], 3)
    svm.add(0, [0.0, 1.0], 1)
    before = snapshot(svm.tracker_)
    with pytest.raises(ValueError, match="unknown site"):
        svm.add(2, [0.0, 1.0], 1)
    with pytest.raises(ValueError, match="two classes"):
        DistributedL2SVM(tracking="exact", n_sites=2).fit([[0.0], [1.0]], [1, 1])
    with pytest.raises(ValueError, match="not one of the classes"):
        DistributedL2SVM(tracking="exact", n_sites=2, classes=["a", "b"]).add(0, [0.0], "c")
    # gamma='scale' on add() is fixed from that first point (docs/design.md), as SVC fixes it
    # from one row: variance 0 -> 1.0, else 1 / (d Var)
    single = DistributedL2SVM(tracking="exact", n_sites=2, gamma="scale")
    single.add(0, [0.0], 1)
    assert single.gamma_ == 1.0
    first = DistributedL2SVM(tracking="exact", n_sites=2)
    first.add(0, [1.0, 3.0], 1)
    assert first.gamma_ == 1.0 / (2 * np.var([1.0, 3.0])) == 0.5
    first.add(1, [10.0, -30.0], -1)
    assert first.gamma_ == 0.5
    with pytest.raises(ValueError, match="label"):
        svm.partial_fit([[0.0, 1.0], [1.0, 0.0]], [1, 2])
    assert snapshot(svm.tracker_) == before
