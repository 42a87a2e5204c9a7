"""The order guard (streamsvm.base.order): ``fit`` of an order-sensitive estimator warns once when
its rows come sorted by label, and only then."""

import warnings

import numpy as np
import pytest

import streamsvm
from streamsvm.base import StreamClassifier
from streamsvm.base.order import MIN_ROWS, SortedLabelsWarning, label_blocks
from streamsvm.registry import available_estimators

ESTIMATORS = {name: cls for name, cls in available_estimators().items()
              if issubclass(cls, StreamClassifier)}
SENSITIVE = sorted(name for name, cls in ESTIMATORS.items() if cls._order_sensitive)


@pytest.mark.parametrize(("y", "blocks"), [
    ([0] * 15 + [1] * 10, [(0, 15), (1, 10)]),
    (["b"] * 8 + ["a"] * 8 + ["c"] * 8, [("b", 8), ("a", 8), ("c", 8)]),
    ([-1.0] * 10 + [1.0] * 10, [(-1.0, 10), (1.0, 10)]),
    ([0, 1] * 15, None),  # interleaved
    ([0] * 10 + [1] * 10 + [0] * 5, None),  # a class in two blocks
    ([0] * 30, None),  # one class
    ([0] * (MIN_ROWS // 2) + [1] * (MIN_ROWS // 2 - 1), None),  # too few rows to say
])
def test_label_blocks(y, blocks):
    assert label_blocks(np.array(y, dtype=object if isinstance(y[0], str) else None)) == blocks


def _sorted_problem(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    order = np.argsort(y, kind="stable")
    return X[order], y[order]


def _order_warnings(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return [w for w in caught if issubclass(w.category, SortedLabelsWarning)]


def test_the_measured_order_sensitive_estimators_are_marked():
    """The estimators whose ``fit`` lost much on sorted labels (streamsvm.base.order's table)."""
    assert SENSITIVE == ["BudgetPerceptron", "Forgetron", "LASVM", "LASVMI", "Pegasos",
                         "Perceptron", "StreamSVM"]


@pytest.mark.parametrize("name", SENSITIVE)
def test_sorted_rows_warn_once_and_shuffled_ones_do_not(name):
    X, y = _sorted_problem()
    cls = ESTIMATORS[name]
    caught = _order_warnings(lambda: cls().fit(X, y))
    assert len(caught) == 1
    assert f"{name}.fit got its rows sorted by label" in str(caught[0].message)
    assert f"{np.count_nonzero(y == -1)} rows of -1, then" in str(caught[0].message)
    order = np.random.default_rng(1).permutation(len(y))
    assert _order_warnings(lambda: cls().fit(X[order], y[order])) == []
    # a stream's chunks may hold one class each: partial_fit is not checked
    assert _order_warnings(lambda: cls().partial_fit(X, y, classes=[-1, 1])) == []


@pytest.mark.parametrize("make", [
    lambda: streamsvm.LASVM(shuffle=True, random_state=0),  # shuffles its epoch itself
    lambda: streamsvm.IncrementalSVM(),  # exact: the same model in any order
    lambda: streamsvm.BlurredBallSVM(),  # measured within a point or two (streamsvm.base.order)
])
def test_an_estimator_that_shuffles_or_does_not_depend_on_the_order_is_quiet(make):
    """No warning where sorted rows cost nothing: the model learnt from them scores as the
    one learnt from the same rows shuffled."""
    X, y = _sorted_problem()
    order = np.random.default_rng(1).permutation(len(y))
    models = []
    assert _order_warnings(lambda: models.append(make().fit(X, y))) == []
    shuffled = make().fit(X[order], y[order])
    assert abs(models[0].score(X, y) - shuffled.score(X, y)) <= 0.02


def test_the_warning_names_the_remedy_the_estimator_has():
    X, y = _sorted_problem()
    (lasvm,) = _order_warnings(lambda: streamsvm.LASVM().fit(X, y))
    (pegasos,) = _order_warnings(lambda: streamsvm.Pegasos().fit(X, y))
    assert "Pass shuffle=True" in str(lasvm.message)
    assert "shuffle=True" not in str(pegasos.message).split("KFold")[0]
    assert "sklearn.utils.shuffle" in str(pegasos.message)
