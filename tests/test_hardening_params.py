"""Absurd parameter values refused up front, naming the parameter (issue 40, items 3 and 10):
a kernel cache larger than the machine's memory (was a MemoryError from ``fit``), a cache
too small for its table of examples (named ``KernelCache(size_mb=...)``), no label budget,
a negative budget-perceptron margin, no workers."""

import numpy as np
import pytest

import streamsvm
from streamsvm import LASVM, ActiveSVM, BudgetPerceptron, Pegasos
from streamsvm.sharded import fit_sharded
from streamsvm.utils.params import MAX_MEMORY_MB, MemoryMB, check_params, physical_memory_bytes

CACHED = ["LASVM", "LASVMG", "LASVMNC", "LASVMI", "FullSVM", "ActiveSVM"]


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, -1)


def test_every_estimator_with_a_cache_checks_it_against_memory():
    import inspect

    from streamsvm.registry import available_estimators

    with_cache = [name for name, cls in available_estimators().items()
                  if "cache_size" in inspect.signature(cls).parameters]
    assert sorted(with_cache) == sorted(CACHED)
    for name in CACHED:
        constraints = available_estimators()[name]._parameter_constraints["cache_size"]
        assert any(isinstance(c, MemoryMB) for c in constraints)


@pytest.mark.parametrize("name", CACHED)
@pytest.mark.parametrize("size", [1e8, 1e300, MemoryMB.limit_mb() * 1.01])
def test_a_cache_larger_than_memory_is_refused_before_fit_allocates(name, size):
    cls = getattr(streamsvm, name)
    X, y = _data()
    model = cls(cache_size=size)
    with pytest.raises(ValueError) as caught:
        model.fit(X, y)
    text = str(caught.value)
    assert f"{name}: parameter cache_size={size!r} is invalid" in text
    assert "MB" in text and ("machine's memory" in text or "cannot be read" in text)
    assert f"{size:g} MB would ask for" in text  # the bytes it asks for
    assert not hasattr(model, "classes_")  # nothing learnt


@pytest.mark.parametrize("size", [0, -1.0, float("nan"), float("inf"), True, "100"])
def test_other_bad_cache_sizes_are_refused(size):
    with pytest.raises(ValueError, match="parameter cache_size=.* is invalid"):
        check_params(LASVM(cache_size=size))


def test_the_bound_is_the_machines_memory_or_a_documented_maximum(monkeypatch):
    memory = physical_memory_bytes()
    if memory:
        assert MemoryMB.limit_mb() == memory / 2**20
        check_params(LASVM(cache_size=MemoryMB.limit_mb()))  # the bound itself is allowed
    import streamsvm.utils.params as params

    monkeypatch.setattr(params, "physical_memory_bytes", lambda: None)
    assert MemoryMB.limit_mb() == MAX_MEMORY_MB == 2**20
    check_params(LASVM(cache_size=MAX_MEMORY_MB))
    with pytest.raises(ValueError, match="cannot be read"):
        check_params(LASVM(cache_size=2 * MAX_MEMORY_MB))


def test_set_params_with_a_huge_cache_leaves_the_fitted_model_as_it_was():
    X, y = _data()
    model = LASVM(cache_size=1.0).fit(X, y)
    before = model.decision_function(X)
    with pytest.raises(ValueError, match="1e\\+08 MB would ask for 95.4 TiB"):
        model.set_params(cache_size=1e8)
    assert model.cache_size == 1.0
    np.testing.assert_array_equal(model.decision_function(X), before)


@pytest.mark.parametrize("size", [1e-300, 1e-6])
def test_a_cache_too_small_for_its_examples_names_cache_size(size):
    X, y = _data()
    with pytest.raises(ValueError) as caught:
        LASVM(cache_size=size).fit(X, y)
    text = str(caught.value)
    assert f"cache_size={size:g} MB is too small for" in text and "raise cache_size" in text
    assert "KernelCache" not in text and "size_mb" not in text


def test_active_svm_needs_a_label_budget_of_at_least_one():
    X, y = _data()
    model = ActiveSVM(max_labels=0)
    with pytest.raises(ValueError, match="ActiveSVM: parameter max_labels=0 is invalid; "
                                         "allowed: None or an int >= 1"):
        model.fit(X, y)
    assert not hasattr(model, "classes_")
    check_params(ActiveSVM(max_labels=1))
    check_params(ActiveSVM(max_labels=None))


@pytest.mark.parametrize("beta", [-1, -1e-9, float("-inf"), float("nan")])
def test_budget_perceptron_refuses_a_negative_margin(beta):
    X, y = _data()
    model = BudgetPerceptron(beta=beta)
    with pytest.raises(ValueError, match="BudgetPerceptron: parameter beta=.* is invalid; "
                                         "allowed: a float >= 0"):
        model.partial_fit(X, y)
    assert not hasattr(model, "classes_")


def test_budget_perceptron_margin_zero_and_above_still_learn():
    X, y = _data()
    for beta in (0.0, 0.5):
        model = BudgetPerceptron(beta=beta, budget=20).fit(X, y)
        assert int(model.n_support_.sum()) > 0


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
@pytest.mark.parametrize("backend", ["local", "serial"])
def test_fit_sharded_refuses_workers_below_one(workers, backend):
    X, y = _data()
    with pytest.raises(ValueError, match=f"workers must be an integer of at least 1 .*got "
                                         f"{workers!r}"):
        fit_sharded(Pegasos(), [(X[:60], y[:60]), (X[60:], y[60:])], backend=backend,
                    workers=workers)


def test_fit_sharded_workers_one_and_none_are_taken():
    X, y = _data()
    parts = [(X[:60], y[:60]), (X[60:], y[60:])]
    one = fit_sharded(Pegasos(), parts, backend="serial", workers=1)
    default = fit_sharded(Pegasos(), parts, backend="serial")
    np.testing.assert_array_equal(one.coef_, default.coef_)
