"""Ball merge (StreamSVM) and averaging (Pegasos, Perceptron) over shards: the merged ball
against an exact MEB of the union, accuracy against one machine, the combination order."""

import copy

import numpy as np
import pytest

from streamsvm import Pegasos, Perceptron, StreamSVM
from streamsvm.datasets import load_dataset, make_synthetic_a, make_synthetic_c
from streamsvm.meb import _core
from streamsvm.meb.streamsvm import map_rows
from streamsvm.qp import meb_of_balls_and_points, meb_of_points
from streamsvm.sharded import fit_sharded
from streamsvm.sharded.combine import average_models
from streamsvm.sharded.shards import reconcile, resolve_shards, scan_shard
from streamsvm.sharded.worker import start_shared

from ..conftest import data_file
from ._backends import ReversedBackend


def split(X, y, n_parts):
    """``n_parts`` consecutive ``(X, y)`` parts (dense or CSR X)."""
    bounds = np.linspace(0, X.shape[0], n_parts + 1).astype(int)
    return [(X[a:b], y[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def shard_models(estimator, parts):
    """Each shard learnt on its own from the shared start (the reference of the driver)."""
    shards = resolve_shards(parts)
    layout = reconcile(shards, [scan_shard(s) for s in shards])
    start = start_shared(estimator, layout)
    return [copy.deepcopy(start).partial_fit(X, y).finish() for X, y in parts], start


def assert_encloses(centres, xi2, radii, weights, radius, rtol=1e-7):
    """Every ball (centre ``[w_i; xi part]``, mutually orthogonal xi parts) lies in the ball
    of centre ``sum_j weights_j c_j`` and ``radius``."""
    w = weights @ centres
    for i in range(len(radii)):
        xi_part = np.sum(weights**2 * xi2) - 2 * weights[i] * xi2[i] + xi2[i]
        distance = np.sqrt(np.sum((w - centres[i]) ** 2) + xi_part)
        assert distance + radii[i] <= radius * (1 + rtol)


def test_merged_ball_encloses_every_ball_within_five_halves_of_the_exact_meb():
    """The merged ball encloses each shard's ball, so every point; its radius is at least the
    exact MEB radius R* of the union's augmented points and at most 5/2 R*
    (``streamsvm.sharded.combine``), tested against the exact solver on 600 points."""
    X, y = make_synthetic_a(600, random_state=1)
    parts = split(X, y, 3)
    C = 1.0
    models, start = shard_models(StreamSVM(C=C), parts)
    merged = fit_sharded(StreamSVM(C=C), parts, backend="serial")
    learner = merged.learners_[0]
    sign = merged._signs[0]
    centres = np.array([m._signs[0] * sign * m.learners_[0].w for m in models])
    xi2 = np.array([m.learners_[0].state[_core.XI2] for m in models])
    radii = np.array([m.learners_[0].state[_core.R_] for m in models])
    ball = meb_of_balls_and_points(centres @ centres.T + np.diag(xi2), radii)
    np.testing.assert_allclose(ball.weights @ centres, learner.w, rtol=1e-9, atol=1e-12)
    assert_encloses(centres, xi2, radii, ball.weights, learner.radius)
    # the exact MEB of the augmented points [y x~; e / sqrt(C)] of the union
    mapped = map_rows(X, start.mean_, True, True)
    y_signed = np.where(y == merged._targets[0], sign, -sign)
    points = y_signed[:, None] * mapped
    exact = meb_of_points(points @ points.T + np.eye(len(y)) / C)
    assert exact.radius * (1 - 1e-7) <= learner.radius <= 2.5 * exact.radius
    assert merged.n_seen_ == 600


@pytest.mark.parametrize("estimator", [StreamSVM(), Pegasos(), Perceptron()],
                         ids=lambda e: type(e).__name__)
def test_sharded_accuracy_within_one_point_of_one_machine_on_synthetic_a(estimator):
    X, y = make_synthetic_a(12_000, random_state=0)
    X_test, y_test = make_synthetic_a(4000, random_state=1)
    one = type(estimator)().fit(X, y).score(X_test, y_test)
    sharded = fit_sharded(estimator, split(X, y, 4), backend="serial").score(X_test, y_test)
    assert sharded >= one - 0.01


@pytest.mark.parametrize("estimator", [Pegasos(), Perceptron()], ids=lambda e: type(e).__name__)
def test_averaged_accuracy_within_one_point_of_one_machine_on_synthetic_c(estimator):
    X, y = make_synthetic_c(12_000, random_state=0)
    X_test, y_test = make_synthetic_c(4000, random_state=1)
    one = type(estimator)().fit(X, y).score(X_test, y_test)
    for rounds in (1, 3):  # one-shot and iterative parameter mixing
        sharded = fit_sharded(estimator, split(X, y, 4), backend="serial",
                              mixing_rounds=rounds)
        assert sharded.score(X_test, y_test) >= one - 0.01


@pytest.mark.data
@pytest.mark.parametrize("estimator", [StreamSVM(), Pegasos(), Perceptron()],
                         ids=lambda e: type(e).__name__)
def test_sharded_accuracy_within_one_point_of_one_machine_on_adult(estimator):
    data_file("adult.trn.bz2")
    X, y = load_dataset("adult", subset="train")[:2]
    X_test, y_test = load_dataset("adult", subset="test")[:2]
    one = type(estimator)().fit(X, y).score(X_test, y_test)
    sharded = fit_sharded(estimator, split(X, y, 4), backend="serial").score(X_test, y_test)
    assert sharded >= one - 0.01


def test_averages_weighted_by_rows_or_uniform():
    X, y = make_synthetic_a(1000, random_state=2)
    parts = [(X[:100], y[:100]), (X[100:400], y[100:400]), (X[400:], y[400:])]
    for estimator in (Pegasos(), Perceptron()):
        models, _ = shard_models(estimator, parts)
        rows = np.array([100, 300, 600])
        for weighting, weights in (("rows", rows / rows.sum()), ("uniform", np.ones(3) / 3)):
            got = fit_sharded(estimator, parts, backend="serial", weighting=weighting)
            want_w = sum(a * m.coef_ for a, m in zip(weights, models, strict=True))
            want_b = sum(a * m.intercept_ for a, m in zip(weights, models, strict=True))
            np.testing.assert_allclose(got.coef_, want_w, rtol=1e-12)
            np.testing.assert_allclose(got.intercept_, want_b, rtol=1e-12, atol=1e-15)
        with pytest.raises(ValueError, match="weighting"):
            average_models(models, [1, 1, 1], weighting="median")


def test_multiclass_shards_average_one_learner_per_class():
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 4.0], [4.0, 0.0], [-4.0, -4.0]])
    y = rng.integers(3, size=1500)
    X = centres[y] + rng.normal(size=(1500, 2))
    model = fit_sharded(Perceptron(), split(X, y, 3), backend="serial")
    assert model.coef_.shape == (3, 2)
    assert model.score(X, y) > 0.95


@pytest.mark.parametrize("estimator", [StreamSVM(), Pegasos(), Perceptron()],
                         ids=lambda e: type(e).__name__)
def test_the_model_does_not_depend_on_the_order_workers_finish_in(estimator):
    X, y = make_synthetic_a(1200, random_state=4)
    parts = split(X, y, 3)
    in_order = fit_sharded(estimator, parts, backend="serial", chunk_size=128)
    reversed_ = fit_sharded(estimator, parts, backend=ReversedBackend(), chunk_size=128)
    np.testing.assert_array_equal(in_order.coef_, reversed_.coef_)
    np.testing.assert_array_equal(in_order.decision_function(X), reversed_.decision_function(X))


@pytest.mark.parametrize("estimator", [StreamSVM(), Pegasos(), Perceptron()],
                         ids=lambda e: type(e).__name__)
def test_sharded_models_save_load_and_go_on_learning(estimator, tmp_path):
    from streamsvm import load, save

    X, y = make_synthetic_a(900, random_state=5)
    model = fit_sharded(estimator, split(X, y, 3), backend="serial")
    save(model, tmp_path / "model.ssvm")
    loaded = load(tmp_path / "model.ssvm")
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    model.partial_fit(X[:100], y[:100])
    loaded.partial_fit(X[:100], y[:100])
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_union_of_blurred_ball_covers_covers_every_point_of_every_shard(kernel):
    """Every example of every shard lies in the (1+ε)-expansion of some ball of the merged
    cover (core points are inside their own balls and skipped), and the merged model is
    within 1 point of one machine."""
    from streamsvm import BlurredBallSVM

    X, y = make_synthetic_a(3000, random_state=6)
    X_test, y_test = make_synthetic_a(2000, random_state=7)
    estimator = BlurredBallSVM(kernel=kernel, C=10.0, epsilon=0.1)
    merged = fit_sharded(estimator, split(X, y, 3), backend="serial", chunk_size=500)
    learner = merged.learners_[0]
    rows = merged._prepare(X)
    y_signed = np.where(y == merged._targets[0], merged._signs[0], -merged._signs[0])
    F = learner.centre_products(rows)
    self_values = np.ones(len(y)) if kernel == "rbf" else np.einsum("ij,ij->i", rows, rows)
    dist2 = (self_values + 1.0 + learner.inv_C)[:, None] - 2 * y_signed[:, None] * F \
        + learner.cnorm2[None, : learner.n_balls]
    reach = ((1 + learner.epsilon) * learner.radius[: learner.n_balls]) ** 2
    covered = (dist2 <= reach * (1 + 1e-9)).any(axis=1)
    core = np.zeros(len(y), dtype=bool)
    core[learner.pool_index[: learner.n_pool]] = True
    assert covered[~core].all()
    assert learner.n_balls >= 3 and merged.n_seen_ == 3000
    one = BlurredBallSVM(kernel=kernel, C=10.0, epsilon=0.1).fit(X, y).score(X_test, y_test)
    assert merged.score(X_test, y_test) >= one - 0.01
    again = fit_sharded(estimator, split(X, y, 3), backend=ReversedBackend(), chunk_size=500)
    np.testing.assert_array_equal(again.decision_function(X_test),
                                  merged.decision_function(X_test))
