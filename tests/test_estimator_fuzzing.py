"""Fuzzing every registered estimator with hostile arrays, shapes and label sets
(:mod:`tests.estimator_cases`): the only outcomes are a model whose decisions are finite, or
the documented ValueError. Fixed seed (``derandomize``) and a bounded number of examples."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from streamsvm.registry import available_estimators

from .estimator_cases import CHOICES, make_case, run_case

ESTIMATORS = available_estimators()

choices = st.fixed_dictionaries(
    {
        **{name: st.sampled_from(options) for name, options in CHOICES.items()},
        "n_rows": st.integers(1, 12),
        "n_features": st.integers(1, 5),
    }
)


@pytest.mark.parametrize("name", list(ESTIMATORS))
@settings(max_examples=25, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(drawn=choices, seed=st.integers(0, 2**32 - 1))
def test_hostile_input_gives_a_model_or_a_value_error(name, drawn, seed):
    case = make_case(np.random.default_rng(seed), drawn)
    category, detail = run_case(ESTIMATORS[name], case)
    assert category in ("accepted", "refused"), f"{category}: {detail}"


@pytest.mark.parametrize("seed", [0, 1])
def test_random_corpus_has_no_failures(seed):
    """The reliability script's corpus (numpy-seeded, both accepted and refused paths)."""
    from .estimator_cases import random_choices

    rng = np.random.default_rng(seed)
    seen = set()
    for estimator in ESTIMATORS.values():
        for _ in range(6):
            category, detail = run_case(estimator, make_case(rng, random_choices(rng)))
            assert category in ("accepted", "refused"), f"{estimator.__name__}: {detail}"
            seen.add(category)
    assert seen == {"accepted", "refused"}


@pytest.mark.parametrize("name", list(ESTIMATORS))
@settings(max_examples=12, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(
    X=hnp.arrays(np.float64, st.tuples(st.integers(2, 8), st.integers(1, 4)),
                 elements=st.floats(allow_nan=True, allow_infinity=True)),
    labels=st.sampled_from([[0, 1], [-1, 1], ["a", "b"], [False, True], [0, 1, 2]]),
)
def test_any_float_array_gives_a_finite_model_or_a_value_error(name, X, labels):
    """Hypothesis' own floats (subnormals, ±0, the largest finite values, NaN, ±inf)."""
    y = np.array(labels * X.shape[0])[: X.shape[0]]
    model = ESTIMATORS[name]()
    try:
        model.fit(X, y)
    except ValueError as error:
        sane = np.isfinite(X).all() and np.einsum("ij,ij->i", X, X).max() <= 1e98 \
            and getattr(model, "kernel", "linear") != "poly" \
            and (len(set(labels)) <= 2 or model.__sklearn_tags__().classifier_tags.multi_class)
        # tiny values: gamma='scale' = 1 / (n_features * variance) overflows
        assert not sane or "is not a positive finite number" in str(error), \
            f"a sane chunk was refused: {error}"
        assert not hasattr(model, "classes_")
        return
    assert np.isfinite(X).all()
    probe = np.nan_to_num(X, nan=0.0, posinf=1.0, neginf=-1.0) / 1e60
    assert np.isfinite(model.decision_function(probe)).all()
