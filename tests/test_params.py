"""Hyper-parameter checking (``streamsvm.utils.params``): the constraint objects, and for every
estimator (the registry's and DistributedL2SVM) bad values generated from its own table,
refused with one message shape at ``fit``, at the first ``partial_fit`` / ``learn_one`` and by
``set_params`` on a fitted model, which then keeps its parameters and its decisions."""

import ast
import copy
import inspect
import math
import pathlib
import re
import tempfile
from numbers import Integral, Real

import numpy as np
import pytest
from sklearn.base import clone

import streamsvm
from streamsvm.distributed import DistributedL2SVM
from streamsvm.kernels import KERNEL_PARAMETER_CONSTRAINTS, Kernel, kernel_parameter_constraints
from streamsvm.linear.perceptron import Perceptron
from streamsvm.meb.streamsvm import StreamSVM
from streamsvm.registry import available_estimators
from streamsvm.utils.params import (
    Boolean,
    Interval,
    IsCallable,
    IsInstance,
    IsNone,
    LabelPair,
    Options,
    WeightDict,
    check_params,
    keep_params,
    param_error,
)

ESTIMATORS = {**available_estimators(), "DistributedL2SVM": DistributedL2SVM}


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    return X, y


def message_shape(name, param, value):
    """The one message shape: owner, parameter, the value given, what is allowed."""
    return rf"^{name}: parameter {param}={re.escape(repr(value))} is invalid; allowed: \S.*$"


# ------------------------------------------------------------------ the constraint objects
def test_interval_of_reals_open_at_zero():
    positive = Interval(Real, 0, None, closed="neither")
    for good in (1e-300, 3, 2.5, np.float32(2.5), np.int64(4)):
        assert positive.accepts(good), good
    for bad in (0, 0.0, -1, math.nan, math.inf, -math.inf, True, np.bool_(True), "1", None,
                [1.0]):
        assert not positive.accepts(bad), bad
    assert positive.describe() == "a float > 0"


def test_interval_of_integers():
    at_least_one = Interval(Integral, 1, None)
    for good in (1, 7, np.int64(7), 10**400):
        assert at_least_one.accepts(good), good
    assert not Interval(Integral, None, 5).accepts(10**400)
    for bad in (0, -3, 1.0, 2.5, True, math.inf, math.nan, "2"):
        assert not at_least_one.accepts(bad), bad
    assert at_least_one.describe() == "an int >= 1"
    assert Interval(Integral, 0, 5, closed="right").describe() == "an int in (0, 5]"


def test_infinite_ends_are_allowed_only_when_closed():
    up_to_inf = Interval(Real, 0, math.inf, closed="right")
    assert up_to_inf.accepts(math.inf) and up_to_inf.accepts(1e308)
    assert not up_to_inf.accepts(-math.inf) and not up_to_inf.accepts(math.nan)
    assert not up_to_inf.accepts(0.0)
    assert up_to_inf.describe() == "a float in (0, inf]"
    below_one = Interval(Real, -math.inf, 1, closed="left")
    assert below_one.accepts(-math.inf) and below_one.accepts(np.nextafter(1.0, 0.0))
    assert not below_one.accepts(1.0) and not below_one.accepts(math.inf)
    finite = Interval(Real)
    assert finite.accepts(-1e300) and not finite.accepts(math.inf)
    assert finite.describe() == "a finite float"
    # an open infinite end: inf itself is not in [0, inf)
    assert not Interval(Real, 0, math.inf, closed="left").accepts(math.inf)


def test_options_match_type_as_well_as_value():
    center = Options("auto", True, False)
    for good in ("auto", True, False, np.bool_(False)):
        assert center.accepts(good), good
    for bad in (1, 0, 1.0, "True", "AUTO", None):
        assert not center.accepts(bad), bad
    assert center.describe() == "'auto', True or False"
    assert Options("sv_count", None).accepts(None)
    assert Boolean().accepts(np.bool_(True)) and not Boolean().accepts(1)


def test_other_constraints():
    assert IsNone().accepts(None) and not IsNone().accepts(0)
    assert IsCallable().accepts(len) and not IsCallable().accepts("rbf")
    state = IsInstance(np.random.RandomState, "a RandomState")
    assert state.accepts(np.random.RandomState(0)) and not state.accepts(0)
    weights = WeightDict(Interval(Real, 0, None, closed="neither"))
    assert weights.accepts({1: 2.0, "a": 1}) and weights.accepts({})
    assert not weights.accepts({1: -1.0}) and not weights.accepts({1: math.nan})
    assert not weights.accepts([(1, 2.0)])
    pair = LabelPair()
    assert pair.accepts(["a", "b"]) and pair.accepts(np.array([0, 1])) and pair.accepts((1, 2))
    for bad in ([1], [1, 1], [1, 2, 3], "ab", 3, {1: 2}):
        assert not pair.accepts(bad), bad


def test_param_error_wording():
    error = param_error("LASVM", "C", -1, "a float > 0")
    assert isinstance(error, ValueError)
    assert str(error) == "LASVM: parameter C=-1 is invalid; allowed: a float > 0"


def test_kernel_table_is_shared():
    rbf_only = kernel_parameter_constraints(("rbf",))
    assert rbf_only["gamma"] == KERNEL_PARAMETER_CONSTRAINTS["gamma"]
    assert not any(c.accepts("linear") for c in rbf_only["kernel"])
    assert not any(c.accepts(len) for c in rbf_only["kernel"])
    assert any(c.accepts(len) for c in kernel_parameter_constraints(callable_kernel=True)["kernel"])
    with pytest.raises(ValueError, match=message_shape("Kernel", "gamma", -2.0)):
        Kernel("rbf", gamma=-2.0)


# ------------------------------------------------------------------ values from a table
class _Unknown:
    """A value of a type no constraint accepts."""

    def __repr__(self):
        return "<unknown>"


def _bad_candidates(constraint):
    if isinstance(constraint, Interval):
        out = [math.nan, math.inf, -math.inf, True, "1", [1]]
        step = 1 if constraint.kind is Integral else 0.5
        if constraint.low is not None and math.isfinite(constraint.low):
            out += [constraint.low - step, constraint.low]
        if constraint.high is not None and math.isfinite(constraint.high):
            out += [constraint.high + step, constraint.high]
        if constraint.kind is Integral:
            out.append((constraint.low or 0) + 1.5)
        return out
    if isinstance(constraint, Options):
        return ["not-an-option", 1, 0.5]
    if isinstance(constraint, WeightDict):
        return [{1: -1.0}, {1: "heavy"}]
    if isinstance(constraint, LabelPair):
        return [[1], [1, 1], "ab"]
    return []


def bad_values(constraints):
    """Values that every constraint of a parameter refuses: beyond and at open bounds, NaN,
    infinities, booleans and strings where numbers go, unknown options, None, any object."""
    candidates = [None, _Unknown()]
    for constraint in constraints:
        candidates += _bad_candidates(constraint)
    out = []
    for value in candidates:
        if not any(c.accepts(value) for c in constraints) and not any(
            type(value) is type(seen) and repr(value) == repr(seen) for seen in out
        ):
            out.append(value)
    return out


def boundary_values(constraints):
    """Values at the edges of what a parameter allows (each must be accepted)."""
    out = []
    for constraint in constraints:
        if isinstance(constraint, Interval):
            integral = constraint.kind is Integral
            for end, closed, inward in ((constraint.low, constraint._low_closed, math.inf),
                                        (constraint.high, constraint._high_closed, -math.inf)):
                if end is None:
                    continue
                if closed:
                    out.append(end)
                elif math.isfinite(end):
                    out.append(end + (1 if inward > 0 else -1) if integral
                               else float(np.nextafter(end, inward)))
        elif isinstance(constraint, Options):
            out += list(constraint.choices)
        elif isinstance(constraint, IsNone):
            out.append(None)
        elif isinstance(constraint, IsCallable):
            out.append(_linear_kernel)
        elif isinstance(constraint, WeightDict):
            out.append({1: 2.0})
        elif isinstance(constraint, LabelPair):
            out.append([-1, 1])
        elif isinstance(constraint, IsInstance):
            if isinstance(np.random.RandomState(0), constraint.cls):
                out.append(np.random.RandomState(0))
            else:  # a path (DistributedL2SVM's checkpoint_dir)
                out.append(tempfile.mkdtemp(prefix="streamsvm-params-"))
    return out


def _linear_kernel(A, B):
    return A @ B.T


def test_the_generated_values_are_what_they_claim():
    constraints = [Options("scale", "auto"), Interval(Real, 0, None, closed="neither")]
    bad = bad_values(constraints)
    assert {repr(v) for v in bad} >= {"nan", "inf", "-inf", "True", "-0.5", "0", "None",
                                      "'not-an-option'"}
    assert boundary_values(constraints) == ["scale", "auto", 5e-324]
    assert boundary_values([Interval(Integral, 2, None)]) == [2]
    assert 1.5 in bad_values([Interval(Integral, 0, None)])


# ------------------------------------------------------------------ every estimator
@pytest.fixture(scope="module", params=list(ESTIMATORS), ids=list(ESTIMATORS))
def fitted(request):
    name = request.param
    X, y = _data()
    return name, ESTIMATORS[name]().fit(X, y)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_table_covers_exactly_the_constructor_parameters(name):
    cls = ESTIMATORS[name]
    assert set(cls._parameter_constraints) == set(cls().get_params(deep=False))
    check_params(cls())  # the defaults are valid
    for params in getattr(cls, "_test_params", []):
        check_params(cls(**params))


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_bad_values_are_refused_at_fit_not_at_construction(name):
    cls = ESTIMATORS[name]
    X, y = _data(30)
    checked = 0
    for param, constraints in cls._parameter_constraints.items():
        for value in bad_values(constraints):
            model = cls(**{param: value})  # __init__ never validates
            copied = clone(model)
            assert repr(copied.get_params(deep=False)[param]) == repr(value)
            with pytest.raises(ValueError, match=message_shape(name, param, value)):
                model.fit(X, y)
            assert not model.__sklearn_is_fitted__()
            checked += 1
    assert checked >= 3 * len(cls._parameter_constraints)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_bad_values_are_refused_at_the_first_partial_fit_and_learn_one(name):
    cls = ESTIMATORS[name]
    X, y = _data(30)
    for param, constraints in cls._parameter_constraints.items():
        value = bad_values(constraints)[0]
        with pytest.raises(ValueError, match=message_shape(name, param, value)):
            cls(**{param: value}).partial_fit(X, y)
        if hasattr(cls, "learn_one"):
            with pytest.raises(ValueError, match=message_shape(name, param, value)):
                cls(**{param: value}).learn_one(X[0], y[0])


def _decisions(model):
    return np.asarray(model.decision_function(_data(20, seed=1)[0]))


def test_set_params_mid_stream_refuses_and_keeps_the_model(fitted):
    name, model = fitted
    model = copy.deepcopy(model)
    before_params = model.get_params(deep=False)
    before_decisions = _decisions(model)
    table = type(model)._parameter_constraints
    for param, constraints in table.items():
        # a good change of another parameter in the same call is rolled back too
        other = {}
        for other_param in table:
            changed = [v for v in boundary_values(table[other_param])
                       if repr(v) != repr(before_params[other_param])]
            if other_param != param and changed:
                other = {other_param: changed[0]}
                break
        for value in bad_values(constraints):
            with pytest.raises(ValueError, match=message_shape(name, param, value)):
                model.set_params(**other, **{param: value})
            after = model.get_params(deep=False)
            assert all(after[p] is before_params[p] for p in before_params), (param, value)
            np.testing.assert_array_equal(_decisions(model), before_decisions)


def test_boundary_values_are_accepted_mid_stream(fitted):
    name, model = fitted
    model = copy.deepcopy(model)
    original = model.get_params(deep=False)
    for param, constraints in type(model)._parameter_constraints.items():
        for value in boundary_values(constraints):
            model.set_params(**{param: value})
            assert model.get_params(deep=False)[param] is value
            model.set_params(**{param: original[param]})


def test_a_parameter_missing_from_the_table_is_a_programming_error():
    class Careless(Perceptron):
        def __init__(self, *, fit_intercept=True, extra=1):
            self.fit_intercept = fit_intercept
            self.extra = extra

    with pytest.raises(TypeError, match=r"Careless declares no constraints for .*'extra'"):
        Careless().fit(*_data(20))


def test_set_params_on_an_unfitted_model_defers_the_check():
    model = StreamSVM().set_params(C=-1.0)
    assert model.C == -1.0
    with pytest.raises(ValueError, match=message_shape("StreamSVM", "C", -1.0)):
        model.fit(*_data(20))


def test_cross_parameter_rule_refuses_and_rolls_back():
    X, y = _data(40)
    with pytest.raises(ValueError, match=message_shape("StreamSVM", "n_balls", 3)):
        StreamSVM(n_balls=3, kernel="rbf", lookahead=1).fit(X, y)
    with pytest.raises(ValueError, match=message_shape("StreamSVM", "n_balls", 3)):
        StreamSVM(n_balls=3).fit(X, y)  # the default lookahead is Algorithm 2's
    model = StreamSVM(n_balls=3, lookahead=1).fit(X, y)
    before = _decisions(model)
    with pytest.raises(ValueError, match=message_shape("StreamSVM", "n_balls", 3)):
        model.set_params(lookahead=5)
    assert model.lookahead == 1 and model.n_balls == 3
    np.testing.assert_array_equal(_decisions(model), before)


def test_no_hand_written_checks_remain():
    """Parameter checks live in the tables: no function of the package is called
    ``_check_params``, ``_check_number`` or ``check_positive`` any more."""
    root = pathlib.Path(streamsvm.__file__).parent
    found = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in (
                "_check_params", "_check_number", "check_positive"
            ):
                found.append(f"{path.relative_to(root)}:{node.lineno} {node.name}")
    assert found == []


# --------------------------------------------------------------------------- keep_params
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_constructors_keep_every_argument_as_given(name):
    """scikit-learn's rule, kept by ``keep_params``: a constructor stores each of its
    arguments under its own name, the very object given, and nothing else."""
    cls = ESTIMATORS[name]
    signature = inspect.signature(cls.__init__)
    names = [p for p in signature.parameters if p != "self"]
    given = {p: object() for p in names}  # values no check would accept: stored unchecked
    model = cls(**given)
    assert sorted(vars(model)) == sorted(names)
    assert all(getattr(model, p) is given[p] for p in names)
    defaults = cls()
    assert {p: getattr(defaults, p) for p in names} == {
        p: signature.parameters[p].default for p in names}


def test_keep_params_leaves_out_self_and_the_class_cell():
    class Owner:
        def __init__(self, *, a=1, b=None):
            keep_params(self, locals())
            super().__init__()  # a constructor that calls super() has __class__ in locals()

    owner = Owner(a=2)
    assert vars(owner) == {"a": 2, "b": None}
