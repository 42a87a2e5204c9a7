"""ActiveSampler: stream-based active learning with River's ``(y_pred, ask)`` protocol."""

import numpy as np
import pytest
import scipy.sparse as sp

from streamsvm import LASVM
from streamsvm.active import ActiveSampler, ActiveSVM

from .test_active import separable


def stream(n=1500, seed=0, cut=1.4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] + 0.2 * rng.normal(size=n) > cut, 1, -1)
    return X, y


def model(**params):
    return ActiveSVM(**{"C": 10.0, "gamma": 1.0, "random_state": 0, **params})


def test_oracle_is_called_once_per_ask_and_never_otherwise():
    X, y = stream()
    calls = []

    def oracle(index, x):
        np.testing.assert_array_equal(x, X[index])
        calls.append(index)
        return y[index]

    sampler = ActiveSampler(classes=[-1, 1], model=model(stopping=None))
    asks = [ask for _, ask in sampler.stream(X, oracle)]
    assert calls == np.flatnonzero(asks).tolist()  # each ask answered, in order, nothing else
    assert sampler.n_labels_ == sampler.n_asked_ == len(calls) < len(X) // 5
    assert sampler.n_seen_ == len(X) and sampler.model.n_seen_ == len(calls)
    assert np.mean(sampler.predict(X) == y) > 0.95


def test_ask_is_the_closest_of_the_window_under_the_current_model():
    """Reference: the newest example is asked about iff it is closer to the hyperplane than
    each of the last L - 1 examples seen (scored by the model's own decision_function), once
    there are L - 1 of them; every example before both classes have support vectors."""
    X, y = stream(600, seed=3)
    L = 8
    sampler = ActiveSampler(classes=[-1, 1], model=model(pool_size=L, stopping=None))
    window = []
    n_checked = 0
    for i, x in enumerate(X):
        m = sampler.model
        both = sampler.n_labels_ > 0 and len(np.unique(np.sign(m.dual_coef_[0]))) == 2
        if both:
            f = m.decision_function(np.vstack([x] + window))
            expected = bool(len(window) == L - 1 and abs(f[0]) < np.abs(f[1:]).min())
            n_checked += 1
        else:
            expected = True
        y_pred, ask = sampler.predict_one(x)
        assert ask == expected, i
        if sampler.n_labels_:
            assert y_pred == m.predict(x[None, :])[0]
        else:
            assert y_pred is None
        if ask:
            sampler.learn_one(x, y[i])
        window = ([x] + window)[: L - 1]
    assert n_checked > 500 and 20 < sampler.n_labels_ < 300


def test_budget_is_respected():
    X, y = stream()
    sampler = ActiveSampler(classes=[-1, 1], budget=15, model=model(stopping=None))
    calls = []
    asks = [ask for _, ask in sampler.stream(X, lambda i, x: calls.append(i) or y[i])]
    assert sum(asks) == len(calls) == sampler.n_labels_ == 15
    assert sampler.stop_reason_ == "budget"
    assert sampler.predict_one(X[0]) == (sampler.model.predict(X[:1])[0], False)
    before = sampler.model.decision_function(X)
    with pytest.raises(ValueError, match="budget of 15 is spent"):
        sampler.learn_one(X[1], y[1])
    assert sampler.n_labels_ == 15
    np.testing.assert_array_equal(sampler.model.decision_function(X), before)
    # the model's own max_labels is a budget too
    capped = ActiveSampler(classes=[-1, 1], model=model(stopping=None, max_labels=7))
    assert sum(ask for _, ask in capped.stream(X, lambda i, x: y[i])) == 7


def test_stopping_rules_end_the_asking():
    X, y = separable(4000, seed=5)
    for stopping in ("sv_count", "margin"):
        sampler = ActiveSampler(classes=[-1, 1], model=ActiveSVM(
            kernel="linear", C=1e4, pool_size=10, window=20, stopping=stopping,
            random_state=0))
        asks = np.array([ask for _, ask in sampler.stream(X, lambda i, x: y[i])])
        assert sampler.stop_reason_ == stopping
        last = int(np.flatnonzero(asks)[-1])
        assert last < len(X) // 2 and sampler.n_labels_ == asks.sum()
        assert np.mean(sampler.predict(X) == y) == 1.0
        learner = sampler._learner
        if stopping == "sv_count":  # the rule of the pool version, over the labels
            t, counts = learner.sv_stop, learner.sv_hist[: learner.n_labels].sum(axis=1)
            inside = np.abs(learner.picked_f[:t]) < learner.picked_r[:t]
            assert t == learner.n_labels
            assert abs(counts[t - 1] - counts[t - 21]) <= 0.02 * counts[t - 1]
            assert not inside[t - 20 : t].any()


def test_dict_examples_and_string_labels():
    X, y = stream(1500)
    labels = np.where(y == 1, "rare", "common")
    sampler = ActiveSampler(classes=["rare", "common"], model=model(stopping=None))
    for i, x in enumerate(X):
        y_pred, ask = sampler.predict_one({"a": x[0], "b": x[1]})
        assert y_pred in (None, "rare", "common")
        if ask:
            sampler.learn_one({"a": x[0], "b": x[1]}, labels[i])
    assert sampler.model.classes_.tolist() == ["common", "rare"]
    assert np.mean(sampler.predict(X) == labels) > 0.95


def test_bad_input_leaves_the_sampler_unchanged():
    X, y = stream(300)
    with pytest.raises(ValueError, match="two distinct labels"):
        ActiveSampler(classes=[1, 1])
    with pytest.raises(TypeError, match="ActiveSVM"):
        ActiveSampler(classes=[-1, 1], model=LASVM())
    with pytest.raises(ValueError, match="budget"):
        ActiveSampler(classes=[-1, 1], budget=-3)
    with pytest.raises(ValueError, match="pool_size"):
        ActiveSampler(classes=[-1, 1], model=ActiveSVM(pool_size="full"))
    sampler = ActiveSampler(classes=[-1, 1], model=model(stopping=None))
    with pytest.raises(TypeError, match="callable"):
        next(sampler.stream(X, "oracle"))
    for i in range(200):
        _, ask = sampler.predict_one(X[i])
        if ask:
            sampler.learn_one(X[i], y[i])
    state = (sampler.n_seen_, sampler.n_asked_, sampler.n_labels_)
    scores = sampler.decision_function(X)
    bad_calls = [
        (ValueError, "NaN", lambda: sampler.predict_one(np.array([np.nan, 0.0]))),
        (ValueError, "3 features", lambda: sampler.predict_one(np.zeros(3))),
        (ValueError, "1-D", lambda: sampler.predict_one(np.zeros((2, 2)))),
        (TypeError, "non-numeric", lambda: sampler.predict_one({0: "a", 1: 1.0})),
        (ValueError, "not one of the classes", lambda: sampler.learn_one(X[0], 2)),
        (ValueError, "not one of the classes", lambda: sampler.learn_one(X[0], [1, -1])),
        (ValueError, "3 features", lambda: sampler.learn_one(np.zeros(3), 1)),
        (ValueError, "NaN", lambda: sampler.learn_one(np.array([0.0, np.inf]), 1)),
        (ValueError, "one row", lambda: sampler.predict_one(sp.csr_matrix(np.ones((2, 2))))),
        (ValueError, "NaN|infinite",
         lambda: sampler.predict_one(sp.csr_matrix(np.array([[np.nan, 1.0]])))),
        (ValueError, "3 features", lambda: sampler.predict_one(sp.csr_matrix(np.ones((1, 3))))),
    ]
    for error, message, call in bad_calls:
        with pytest.raises(error, match=message):
            call()
        assert (sampler.n_seen_, sampler.n_asked_, sampler.n_labels_) == state
        np.testing.assert_array_equal(sampler.decision_function(X), scores)


def test_sparse_rows_keep_the_model_sparse_and_ask_as_dense_rows_do():
    """One-row sparse matrices (text, say): the model and the window stay sparse, and the
    asks are those of the same stream given as dense rows (the kernel values agree to
    rounding); dense rows after a sparse start are converted."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(900, 40))
    X[np.abs(X) < 1.0] = 0.0
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 1.2, 1, -1)
    runs = {}
    for kind in ("dense", "sparse"):
        sampler = ActiveSampler(classes=[-1, 1], model=model(gamma=0.05, stopping=None))
        rows = sp.csr_matrix(X) if kind == "sparse" else X
        asks = []
        for i in range(X.shape[0]):
            x = X[i] if kind == "sparse" and i % 7 == 3 else rows[i]  # some dense rows mixed in
            _, ask = sampler.predict_one(x)
            asks.append(ask)
            if ask:
                sampler.learn_one(x, y[i])
        runs[kind] = (sampler, np.array(asks))
    dense, sparse = runs["dense"], runs["sparse"]
    assert sparse[0]._learner.sparse and not dense[0]._learner.sparse
    np.testing.assert_array_equal(dense[1], sparse[1])
    assert 20 < sparse[0].n_labels_ < 300
    np.testing.assert_allclose(sparse[0].decision_function(X), dense[0].decision_function(X),
                               rtol=1e-9, atol=1e-9)
