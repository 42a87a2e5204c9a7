"""Checks of a built model: parameters, fitted state, each learner against a fresh one
of the same parameters, kept calibration rows, and one query."""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np

from ..input.vocabulary import FeatureVocabulary
from ..utils.params import check_params
from .decoding import _Spec
from .format import (
    _Problem,
)


def _default_constructible(cls) -> bool:
    try:
        cls()
    except TypeError:
        return False
    return True


def _check_parameters(model) -> None:
    """The estimator's parameters against its constraints table (``streamsvm.utils.params``);
    saved objects that are not estimators (a distributed site's checkpoint) have none."""
    if not hasattr(type(model), "_parameter_constraints"):
        return
    try:
        check_params(model)
    except (TypeError, ValueError) as exc:
        raise _Problem(f"its parameters are invalid: {exc}") from None


def _check_model(model) -> None:
    """The fitted state's own consistency, then one query (never half-built)."""
    from ..base import BinaryLearner, StreamClassifier

    fitted = ("classes_", "n_features_in_", "learners_", "_targets", "_signs")
    if isinstance(model, StreamClassifier):
        present = [name for name in fitted if name in model.__dict__]
        if present and len(present) < len(fitted):
            missing = sorted(set(fitted) - set(present))
            raise _Problem(f"the model is partly fitted: it lacks {missing}")
    if not hasattr(model, "classes_"):
        return
    classes = model.classes_
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.size == 0:
        raise _Problem("classes_ is not a non-empty list of labels")
    if classes.size > 1 and not (classes[1:] > classes[:-1]).all():
        raise _Problem("classes_ is not sorted and unique")
    n_features = getattr(model, "n_features_in_", None)
    if type(n_features) is not int or n_features < 1:
        raise _Problem(f"n_features_in_ is {n_features!r}")
    vocabulary = model.__dict__.get("_vocabulary")
    if vocabulary is not None and (not isinstance(vocabulary, FeatureVocabulary)
                                   or len(vocabulary) != n_features):
        raise _Problem(f"the model's feature vocabulary does not name its {n_features} "
                       "features")
    if isinstance(model, StreamClassifier):
        for name, bits in (("n_seen_", 63), ("_seed_entropy", 128), ("_n_learners_made", 63)):
            value = model.__dict__.get(name)
            if type(value) is not int or not 0 <= value < 2**bits:
                raise _Problem(f"{name} is {value!r}, not a count below 2**{bits}")
        learners = model.__dict__.get("learners_")
        targets, signs = model.__dict__.get("_targets"), model.__dict__.get("_signs")
        expected = 1 if classes.size <= 2 else classes.size
        ok = (
            isinstance(learners, list)
            and len(learners) == expected
            and all(isinstance(learner, BinaryLearner) for learner in learners)
            and isinstance(targets, list)
            and isinstance(signs, list)
            and len(targets) == len(signs) == expected
            and all(s in (1.0, -1.0) for s in signs)
        )
        if ok:
            wanted = list(classes[1:]) if classes.size == 2 else list(classes)
            kinds = {"i": "iu", "u": "iu", "f": "f", "U": "U", "O": "U", "b": "b"}
            ok = targets == wanted and np.asarray(targets).dtype.kind in kinds.get(
                classes.dtype.kind, "")
        if not ok:
            raise _Problem(
                f"the model should hold {expected} binary learner(s) "
                f"with their targets and signs for {classes.size} classes"
            )
        _check_against_fresh_learners(model)
        names = model.__dict__.get("feature_names_in_")
        if names is not None and (not isinstance(names, np.ndarray) or names.dtype != object
                                  or names.shape != (n_features,)
                                  or not all(isinstance(n, str) for n in names)):
            raise _Problem(f"feature_names_in_ should hold {n_features} names (strings)")
        mean = model.__dict__.get("mean_")
        if mean is not None and (not isinstance(mean, np.ndarray) or mean.shape != (n_features,)
                                 or mean.dtype != np.float64):
            raise _Problem(f"mean_ should hold {n_features} float64 values")
    probe = np.zeros((2, n_features))
    try:
        with warnings.catch_warnings():  # an array for a model fitted on a table: no names
            warnings.simplefilter("ignore", UserWarning)
            scores = np.asarray(model.decision_function(probe), dtype=float)
    except Exception as exc:  # noqa: BLE001 - a model that cannot answer is refused
        raise _Problem(f"the model cannot answer a query ({type(exc).__name__}: {exc})") from None
    if scores.shape[0] != 2 or not np.isfinite(scores).all():
        raise _Problem("the model answers a query with non-finite or misshapen scores")


def _check_against_fresh_learners(model) -> None:
    """Each saved learner matches what this model would build today: same classes, no
    missing attributes, same dtypes and dimensions, and the same size along every axis that
    grows with the number of features (found by building fresh learners for two widths)."""
    fresh = []
    for extra in (0, 1):
        shadow = copy.copy(model)
        shadow.n_features_in_ = model.n_features_in_ + extra
        try:
            fresh.append(shadow._make_learner())
        except Exception as exc:  # noqa: BLE001 - parameters or state the class cannot use
            raise _Problem(f"its learners cannot be rebuilt ({type(exc).__name__}: {exc})") \
                from None
    params = model.get_params(deep=False)

    def check_copy_of_parameter(name, saved, fresh_value):
        """A learner's verbatim copy of a parameter must be a valid value of it."""
        given = params.get(name, _Spec)
        if type(given) is not type(fresh_value) or given != fresh_value or saved == given:
            return
        trial = copy.copy(model)
        setattr(trial, name, saved)
        try:
            _check_parameters(trial)
        except _Problem:
            raise _Problem(f"a learner holds {name}={saved!r}, not a valid value of that "
                           "parameter") from None

    for i, learner in enumerate(model.learners_):
        _compare(learner, fresh[0], fresh[1], f"learner {i}")
        for name, value in vars(fresh[0]).items():
            if isinstance(value, bool | int | float | str):
                check_copy_of_parameter(name, vars(learner)[name], value)
        saved, wanted = _configuration(learner), _configuration(fresh[0])
        for name, value in wanted.items():
            if saved.get(name) != value:
                raise _Problem(f"learner {i}.{name} is {saved.get(name)!r}; the estimator's "
                               f"parameters give {value!r} (the learner was not built by "
                               f"this {type(model).__name__})")
    _check_kept_rows(model)


#: The configuration of each kind of learner: attributes its constructor sets from the
#: estimator's parameters and that learning never changes, by class path (subclasses
#: included). A saved learner's must equal those of the learner the estimator builds today
#: (a LASVM file whose learner runs FullSVM's algorithm, a copy of ``cache_size`` edited to
#: 1e8, are refused). Nested state (the budget machine's kernel, TVM's options) is read by
#: :func:`_configuration`.
_CONFIGURATION: dict[str, tuple[str, ...]] = {
    "streamsvm.lasvm.learner._Learner": (
        "algorithm", "variant", "C", "code", "gamma", "degree", "coef0", "tau", "cache_size",
        "epochs", "shuffle", "selection", "n_candidates", "n_seed", "delta_max", "finishing",
        "shrink_every", "second_order", "s", "clean_every", "max_non_sv"),
    "streamsvm.active.learner._ActiveLearner": (
        "pool_size", "stopping", "rule", "window", "tolerance", "span", "max_labels"),
    "streamsvm.meb.blurred._BlurredBallLearner": (
        "epsilon", "inv_C", "lookahead", "tol", "code", "gamma", "degree", "coef0",
        "normalized", "linear"),
    "streamsvm.budget.baselines._KernelPerceptronLearner": ("budget",),
    "streamsvm.budget.baselines._BudgetPerceptronLearner": ("beta",),
    "streamsvm.budget.baselines._BudgetPerceptronWindowLearner": ("window",),
    "streamsvm.budget.baselines._RandomLearner": ("budget",),
    "streamsvm.linear.pegasos._PegasosLearner": (
        "alpha", "block_size", "projection", "fit_intercept"),
    "streamsvm.linear.perceptron._PerceptronLearner": ("fit_intercept",),
    "streamsvm.meb.streamsvm._StreamSVMLearner": ("inv_C", "tol", "lookahead"),
}


def _configuration(learner) -> dict:
    """``name -> value`` of the learner's configuration (:data:`_CONFIGURATION`), with what
    the learner and the objects it holds add by a ``_saved_configuration()`` method (a
    budget machine's kernel, the Twin Vector Machine's options)."""
    out = {}
    for cls in type(learner).__mro__:
        for name in _CONFIGURATION.get(f"{cls.__module__}.{cls.__qualname__}", ()):
            out[name] = vars(learner).get(name)
    for part in (learner, *vars(learner).values()):  # its own, and its parts' (a machine)
        details = getattr(type(part), "_saved_configuration", None)
        if details is not None and type(part).__module__.startswith("streamsvm."):
            out.update(details(part))
    return out


def _check_kept_rows(model) -> None:
    """The rows a linear model's calibrators keep are rescored by their learner when
    probabilities are asked for: one of them must score (a column missing made
    ``predict_proba`` fail on shapes)."""
    scores = getattr(model, "_learner_scores", None)
    for i, learner in enumerate(model.learners_):
        calibrator = getattr(learner, "calibration", None)
        rows = getattr(calibrator, "rows", None)
        if rows is None or scores is None:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                score = np.asarray(scores(learner, rows[:1].astype(np.float64)), dtype=float)
            ok = score.shape == (1,)
        except Exception:  # noqa: BLE001 - rows the learner cannot score are refused
            ok = False
        if not ok:
            raise _Problem(f"learner {i}.calibration.rows holds rows of {rows.shape[1]} "
                           "columns, which the learner cannot score")


def _compare(saved, fresh, wider, where: str) -> None:
    if fresh is None:
        return
    if isinstance(fresh, np.ndarray):
        ok = (
            isinstance(saved, np.ndarray)
            and saved.dtype == fresh.dtype
            and saved.ndim == fresh.ndim
            and all(saved.shape[k] == fresh.shape[k]
                    for k in range(fresh.ndim) if fresh.shape[k] != wider.shape[k])
        )
        if not ok:
            got = (f"{saved.dtype} of shape {saved.shape}" if isinstance(saved, np.ndarray)
                   else type(saved).__name__)
            raise _Problem(f"{where} holds {got}; the model needs {fresh.dtype} with "
                           f"{fresh.ndim} dimension(s) matching its {fresh.shape}")
        return
    if isinstance(fresh, bool | int | float | str):
        kinds = {bool: (bool,), int: (int,), float: (int, float), str: (str,)}[type(fresh)]
        if not isinstance(saved, kinds) or (isinstance(saved, bool) and bool not in kinds):
            raise _Problem(f"{where} is a {type(saved).__name__}, not a {type(fresh).__name__}")
        if type(saved) is int and not -(2**63) <= saved < 2**63:
            raise _Problem(f"{where} = {saved} does not fit in 64 bits")
        if type(saved) is float and math.isnan(saved):
            raise _Problem(f"{where} is NaN")
        if type(fresh) is int and fresh >= 0 and saved < 0:  # counts and sizes stay >= 0
            raise _Problem(f"{where} = {saved} is negative")
        return
    if type(saved) is not type(fresh):
        raise _Problem(f"{where} is a {type(saved).__name__}, not a {type(fresh).__name__}")
    if isinstance(fresh, tuple):
        if len(saved) != len(fresh):
            raise _Problem(f"{where} holds {len(saved)} items, not {len(fresh)}")
        for k, (a, b, c) in enumerate(zip(saved, fresh, wider, strict=True)):
            _compare(a, b, c, f"{where}[{k}]")
    elif type(fresh).__module__.startswith("streamsvm.") and hasattr(fresh, "__dict__"):
        transient = set(getattr(fresh, "_transient", ()))
        missing = sorted(set(vars(fresh)) - set(vars(saved)) - transient)
        if missing:
            raise _Problem(f"{where} lacks the attributes {missing[:5]}")
        nan_ok = set(getattr(type(fresh), "_may_hold_nan", ()))
        for name, value in vars(fresh).items():
            if name in nan_ok and type(vars(saved)[name]) is float and math.isnan(
                    vars(saved)[name]):
                continue
            if name not in transient:
                _compare(vars(saved)[name], value, vars(wider).get(name), f"{where}.{name}")
