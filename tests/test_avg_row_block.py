"""The averaged per-row steps on the row state's block (``linear/_avg_row_core.py``, the
``*_at`` steps): the same models bit for bit as the general path for every combination of
``fit_intercept`` and ``projection``, with raw rows' column factors, on sparse dicts (new keys
widen the weights and the sums), and after the learner's arrays are replaced between rows."""

import numpy as np
import pytest

from streamsvm import Pegasos, Perceptron
from streamsvm.input import row_path


def _rows(n=240, d=6, seed=3, scale=1.0, sparse=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * scale
    y = X @ rng.normal(size=d) + 0.5 * rng.normal(size=n) > 0
    if sparse:  # each row its own key set, new keys on the way
        rows = [{f"k{j}": float(v) for j, v in enumerate(x) if (i + j) % 3} for i, x in
                enumerate(X)]
    else:
        rows = [{f"f{j}": float(v) for j, v in enumerate(x)} for x in X]
    return rows, [bool(label) for label in y]


def _run(model, rows, labels, fast, monkeypatch):
    monkeypatch.setattr(row_path, "ENABLED", fast)
    predicted = []
    for x, label in zip(rows, labels, strict=True):
        predicted.append(model.predict_one(x))
        model.learn_one(x, label)
    monkeypatch.setattr(row_path, "ENABLED", True)
    return predicted


def _same(a, b, names):
    for name in names:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


CASES = [(Pegasos, dict(fit_intercept=i, projection=p)) for i in (True, False)
         for p in (True, False)] + [(Perceptron, dict(fit_intercept=i)) for i in (True, False)]


@pytest.mark.parametrize("make,params", CASES)
@pytest.mark.parametrize("scale", [1.0, 50.0])
@pytest.mark.parametrize("sparse", [False, True])
def test_block_steps_learn_the_general_paths_model(make, params, scale, sparse, monkeypatch):
    rows, labels = _rows(scale=scale, sparse=sparse)
    fast, general = make(**params), make(**params)
    fast_predicted = _run(fast, rows, labels, True, monkeypatch)
    assert "_row_state" in vars(fast)  # the per-row path ran
    general_predicted = _run(general, rows, labels, False, monkeypatch)
    assert fast_predicted == general_predicted
    a, b = fast.learners_[0], general.learners_[0]
    arrays = ("v", "u") if make is Pegasos else ("coef", "u")
    _same(a, b, arrays)
    scalars = (("scale", "sqnorm_v", "t", "avg_s", "n_avg") if make is Pegasos
               else ("intercept", "u_intercept", "count"))
    assert [getattr(a, s) for s in scalars] == [getattr(b, s) for s in scalars]
    assert a.n_updates == b.n_updates > 0
    np.testing.assert_array_equal(fast.coef_, general.coef_)


@pytest.mark.parametrize("make", [Pegasos, Perceptron])
def test_replaced_arrays_are_pointed_at_again(make, monkeypatch):
    """``set_weights`` between ``predict_one`` and ``learn_one`` replaces the weights and the
    sums: the block's header is written again before the step, as the general path learns."""
    rows, labels = _rows(n=120)
    fast, general = make(), make()
    for model, on in ((fast, True), (general, False)):
        _run(model, rows[:60], labels[:60], on, monkeypatch)
        monkeypatch.setattr(row_path, "ENABLED", on)
        learner = model.learners_[0]
        for x, label in zip(rows[60:], labels[60:], strict=True):
            model.predict_one(x)
            w, b = learner.weights()
            learner.set_weights(w.copy(), b)  # new arrays, the same mean
            model.learn_one(x, label)
        monkeypatch.setattr(row_path, "ENABLED", True)
    assert fast.learners_[0].u is not general.learners_[0].u
    np.testing.assert_array_equal(fast.coef_, general.coef_)
    np.testing.assert_array_equal(fast.intercept_, general.intercept_)
