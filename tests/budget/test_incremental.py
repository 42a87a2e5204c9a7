"""IncrementalSVM against scikit-learn's SVC (the solver of record) and the KKT conditions."""

import numpy as np
import pytest
from sklearn.svm import SVC

from streamsvm import IncrementalSVM
from streamsvm.budget import _state as state

from tests.test_contract import assert_same_state, snapshot

KERNELS = {
    "rbf": dict(kernel="rbf", gamma=0.7),
    "linear": dict(kernel="linear"),
    "poly": dict(kernel="poly", degree=3, gamma=0.5, coef0=1.0),
}


def xor_data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1, -1)
    return X, y


def svc_reference(X, y, w, C, params):
    """SVC on the same data, weights and C: (dual objective, decision function)."""
    svc = SVC(C=C, tol=1e-12, **params).fit(X, y, sample_weight=w)
    from sklearn.metrics.pairwise import pairwise_kernels

    metric = params["kernel"]
    kw = {k: v for k, v in params.items() if k != "kernel"}
    K = pairwise_kernels(X, X, metric=metric, **kw)
    dc = svc.dual_coef_[0]
    sv = svc.support_
    objective = 0.5 * dc @ K[np.ix_(sv, sv)] @ dc - np.abs(dc).sum()
    return objective, svc


def check_against_svc(model, X, y, w, held, C, params):
    objective, svc = svc_reference(X[held], y[held], w[held], C, params)
    assert model.dual_objective_ == pytest.approx(objective, rel=1e-6)
    assert model.kkt_violation_ < 1e-6
    ours = model.decision_function(X)
    theirs = svc.decision_function(X)
    clear = np.abs(theirs) > 1e-3  # points on the boundary may go either way
    np.testing.assert_array_equal(np.sign(ours[clear]), np.sign(theirs[clear]))


@pytest.mark.parametrize("name", list(KERNELS))
def test_random_operations_match_svc(name):
    params = KERNELS[name]
    rng = np.random.default_rng(3)
    X, y = xor_data(120, seed=1)
    C = 2.0
    model = IncrementalSVM(C=C, **params).partial_fit(X[:80], y[:80])
    held = np.zeros(len(X), bool)
    held[:80] = True
    w = np.ones(len(X))
    next_new = 80
    ids = {i: i for i in range(80)}  # row -> example id
    for step in range(40):
        op = rng.integers(4)
        if op == 0:  # unlearn
            row = int(rng.choice(np.flatnonzero(held)))
            model.unlearn(ids.pop(row))
            held[row] = False
        elif op == 1:  # reweight
            row = int(rng.choice(np.flatnonzero(held)))
            w[row] = float(rng.uniform(0.2, 3.0))
            model.reweight(ids[row], w[row])
        elif op == 2:  # change C
            C = float(rng.uniform(0.3, 20.0))
            model.change_C(C)
        else:  # add
            if next_new < len(X):
                row = next_new
                next_new += 1
            else:
                row = int(rng.choice(np.flatnonzero(~held)))
            w[row] = float(rng.uniform(0.5, 2.0))
            ids[row] = model.n_seen_
            model.partial_fit(X[row : row + 1], y[row : row + 1], sample_weight=w[row : row + 1])
            held[row] = True
        if step % 8 == 7:
            check_against_svc(model, X, y, w, held, C, params)
    check_against_svc(model, X, y, w, held, C, params)
    assert model.n_margin_ + model.n_error_ + model.n_reserve_ == held.sum()


def test_fit_with_sample_weight_matches_svc():
    X, y = xor_data(150, seed=2)
    w = np.random.default_rng(0).uniform(0.1, 4.0, size=len(y))
    model = IncrementalSVM(C=3.0, **KERNELS["rbf"]).fit(X, y, sample_weight=w)
    check_against_svc(model, X, y, w, np.ones(len(y), bool), 3.0, KERNELS["rbf"])


def test_unlearning_equals_training_without():
    X, y = xor_data(100, seed=4)
    model = IncrementalSVM(C=5.0, **KERNELS["rbf"]).fit(X, y)
    drop = [3, 10, 11, 50, 77]
    model.unlearn(drop)
    keep = np.setdiff1d(np.arange(100), drop)
    fresh = IncrementalSVM(C=5.0, **KERNELS["rbf"]).fit(X[keep], y[keep])
    assert model.dual_objective_ == pytest.approx(fresh.dual_objective_, rel=1e-9)
    np.testing.assert_allclose(model.decision_function(X), fresh.decision_function(X),
                               atol=1e-7)
    assert sorted(model.example_ids_.tolist()) == keep.tolist()


def test_set_params_C_then_learning_moves_along_the_path():
    X, y = xor_data(90, seed=5)
    model = IncrementalSVM(C=1.0, **KERNELS["rbf"]).fit(X[:60], y[:60])
    model.set_params(C=7.0).partial_fit(X[60:], y[60:])
    fresh = IncrementalSVM(C=7.0, **KERNELS["rbf"]).fit(X, y)
    assert model.dual_objective_ == pytest.approx(fresh.dual_objective_, rel=1e-9)


def test_recursive_inverse_equals_the_inverse_of_J():
    X, y = xor_data(120, seed=6)
    model = IncrementalSVM(C=10.0, **KERNELS["rbf"]).fit(X, y)
    model.unlearn(list(range(0, 40, 3)))
    m = model.learners_[0].machine.m
    P = int(m[state.M_IST][state.I_P])
    S = m[state.M_MARGIN][:P]
    yS = m[state.M_Y][S]
    J = np.zeros((P + 1, P + 1))
    J[0, 1:] = yS
    J[1:, 0] = yS
    J[1:, 1:] = yS[:, None] * yS[None, :] * m[state.M_GRAM][np.ix_(S, S)]
    np.testing.assert_allclose(m[state.M_R][: P + 1, : P + 1] @ J, np.eye(P + 1), atol=1e-8)
    assert P >= 3


def test_sets_partition_by_kkt():
    X, y = xor_data(100, seed=7)
    model = IncrementalSVM(C=1.0, **KERNELS["rbf"]).fit(X, y)
    machine = model.learners_[0].machine
    margin, error, reserve = machine.sets()
    f = model.decision_function(X) * (1 if model.classes_[1] == 1 else -1)
    yf = y * f
    ids = machine.ids()
    np.testing.assert_allclose(yf[ids[margin]], 1.0, atol=1e-7)
    assert np.all(yf[ids[error]] <= 1 + 1e-7)
    assert np.all(yf[ids[reserve]] >= 1 - 1e-7)
    np.testing.assert_allclose(machine.m[state.M_ALPHA][error], machine.C)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m: m.unlearn([5, 1000]), "unknown example ids"),
        (lambda m: m.unlearn([5, 5]), "repeated"),
        (lambda m: m.unlearn(["a"]), "integers"),
        (lambda m: m.reweight(1000, 2.0), "unknown example ids"),
        (lambda m: m.reweight(3, -1.0), "weight"),
        (lambda m: m.reweight(3, np.nan), "weight"),
        (lambda m: m.change_C(0.0), "parameter C=0.0 is invalid"),
        (lambda m: m.partial_fit(np.zeros((2, 3)), [0, 1], sample_weight=[1.0, -1.0]),
         "sample_weight"),
        (lambda m: m.partial_fit(np.zeros((2, 3)), [0, 1], sample_weight=[1.0]),
         "sample_weight"),
        (lambda m: m.unlearn(list(range(60))), "every example"),
    ],
)
def test_bad_calls_leave_the_model_unchanged(call, message):
    X, y = xor_data(60, seed=8)
    model = IncrementalSVM(C=1.0, **KERNELS["rbf"]).fit(X, y)
    before = snapshot(model)
    with pytest.raises((ValueError, TypeError), match=message):
        call(model)
    assert_same_state(before, snapshot(model))


def test_rejects_kernels_it_does_not_support():
    X, y = xor_data(20, seed=9)
    with pytest.raises(ValueError, match="parameter kernel='sigmoid' is invalid"):
        IncrementalSVM(kernel="sigmoid").fit(X, y)


def test_degenerate_data_terminates_and_falls_back():
    """Far-off data under a polynomial kernel (Gram entries ~1e6, numerically rank 6):
    the update must terminate; the fallback re-solve keeps it near SVC's own accuracy."""
    rng = np.random.RandomState(0)
    X = rng.normal(loc=100, size=(100, 2))
    y = rng.randint(0, 2, size=100)
    model = IncrementalSVM(kernel="poly", degree=2, gamma=0.05, coef0=1.0).fit(X, y)
    assert np.isfinite(model.decision_function(X)).all()
