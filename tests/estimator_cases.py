"""Hostile inputs for estimators, and the judge of what an estimator did with them.

A case is a first call (``fit`` or ``partial_fit``) then a second chunk (``partial_fit``),
built from a few named choices (:data:`CHOICES`) and a NumPy generator, so the hypothesis
tests (``tests/test_estimator_fuzzing.py``) and the reliability script
(``benchmarks/reliability/estimator_fuzzing.py``) draw from the same space. :func:`run_case`
runs one case and sorts the outcome into ``accepted`` / ``refused`` (the documented
``ValueError``) / ``wrong exception`` / ``crash`` / ``silently wrong``.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import scipy.sparse as sp

#: Feature values: finite and sane, finite but extreme, or non-finite.
VALUES = ("normal", "integers", "zeros", "tiny", "mixed scale", "large", "huge", "nan", "inf",
          "-inf")
#: Values every estimator must refuse (non-finite, or overflowing any kernel).
MUST_REFUSE_VALUES = frozenset({"huge", "nan", "inf", "-inf"})
#: Label sets.
LABELS = ("int", "bool", "float", "string", "many", "one class", "mixed", "none", "empty",
          "continuous")
MUST_REFUSE_LABELS = frozenset({"mixed", "none", "empty", "continuous"})
SANE_VALUES = tuple(v for v in VALUES if v not in MUST_REFUSE_VALUES)
SANE_LABELS = ("int", "bool", "float", "string", "many")
#: Where the bad value goes.
PLACES = ("first", "last", "random")
#: What the second chunk changes.
SECOND = ("same", "wrong width", "other label kind", "sparse", "bad values")

CHOICES = {"values": VALUES, "labels": LABELS, "place": PLACES, "second": SECOND,
           "first_call": ("fit", "partial_fit")}


@dataclasses.dataclass
class Case:
    """One hostile scenario; ``must_refuse`` says whether any acceptance is wrong."""

    choices: dict
    X1: object
    y1: object
    X2: object
    y2: object
    probe: np.ndarray
    must_refuse_first: bool
    must_refuse_second: bool


def random_choices(rng: np.random.Generator) -> dict:
    """One value of each of :data:`CHOICES`, plus the sizes; values, labels and the second
    chunk are sane half of the time each (so that accepted paths are exercised too)."""
    out = {name: options[rng.integers(len(options))] for name, options in CHOICES.items()}
    if rng.random() < 0.5:
        out["values"] = SANE_VALUES[rng.integers(len(SANE_VALUES))]
    if rng.random() < 0.5:
        out["labels"] = SANE_LABELS[rng.integers(len(SANE_LABELS))]
    if rng.random() < 0.5:
        out["second"] = ("same", "sparse")[rng.integers(2)]
    out["n_rows"] = int(rng.integers(1, 13))
    out["n_features"] = int(rng.integers(1, 6))
    return out


def _values(rng, kind, n, d, place):
    X = rng.normal(size=(n, d))
    if kind == "integers":
        return rng.integers(-5, 6, size=(n, d)).astype(np.float64)
    if kind == "zeros":
        return np.zeros((n, d))
    if kind == "tiny":
        return X * 1e-300
    if kind == "mixed scale":
        return X * np.logspace(-10, 10, d)
    special = {"large": 1e30, "huge": 1e200, "nan": np.nan, "inf": np.inf, "-inf": -np.inf}
    if kind in special:
        row = {"first": 0, "last": n - 1, "random": int(rng.integers(n))}[place]
        X[row, int(rng.integers(d))] = special[kind]
    return X


def _labels(rng, kind, n):
    if kind == "many":
        return rng.integers(0, 5, size=n)
    if kind == "one class":
        return np.ones(n, dtype=np.int64)
    y = rng.integers(0, 2, size=n)
    if n >= 2:
        y[:2] = [0, 1]  # two classes whenever there are two rows
    if kind == "bool":
        return y.astype(bool)
    if kind == "float":
        return y.astype(np.float64)
    if kind == "string":
        return np.array(["neg", "pos"])[y]
    if kind == "mixed":
        out = y.astype(object)
        out[-1] = "a"
        return out.tolist()
    if kind == "none":
        out = y.astype(object)
        out[-1] = None
        return out
    if kind == "empty":
        out = np.array(["", "x"])[y]
        out[-1] = ""
        return out
    if kind == "continuous":
        return y + 0.5 * rng.random(n)
    return y


def make_case(rng: np.random.Generator, choices: dict) -> Case:
    """Build the case of ``choices`` (see :func:`random_choices`) with ``rng``."""
    n, d = choices["n_rows"], choices["n_features"]
    if choices["labels"] == "mixed":
        n = max(n, 2)  # a number and a string
    X1 = _values(rng, choices["values"], n, d, choices["place"])
    y1 = _labels(rng, choices["labels"], n)
    refuse_first = (
        choices["values"] in MUST_REFUSE_VALUES
        or choices["labels"] in MUST_REFUSE_LABELS
        or (choices["first_call"] == "fit" and len(np.unique(np.asarray(y1, dtype=str))) < 2)
    )
    second = choices["second"]
    X2 = rng.normal(size=(n, d))
    y2 = np.asarray(y1).copy() if choices["labels"] not in MUST_REFUSE_LABELS else \
        rng.integers(0, 2, size=n)
    refuse_second = False
    if second == "wrong width":
        X2 = rng.normal(size=(n, d + 1))
        refuse_second = True
    elif second == "other label kind":
        numeric = choices["labels"] not in ("string", "empty")
        y2 = np.array(["u", "v"])[rng.integers(0, 2, size=n)] if numeric else \
            rng.integers(0, 2, size=n)
        refuse_second = True
    elif second == "sparse":
        X2[rng.random((n, d)) < 0.5] = 0.0
        X2 = sp.csr_matrix(X2)
    elif second == "bad values":
        X2 = _values(rng, ("nan", "inf", "huge")[rng.integers(3)], n, d, "last")
        refuse_second = True
    return Case(choices, X1, y1, X2, y2, rng.normal(size=(4, d)), refuse_first, refuse_second)


CATEGORIES = ("accepted", "refused", "refused valid input", "wrong exception", "crash",
              "silently wrong")
#: Finite values a model may refuse: they can overflow a polynomial kernel.
MAY_REFUSE_VALUES = frozenset({"large"})


def _classes_of_one_kind(classes) -> bool:
    kinds = {"number" if np.asarray(c).dtype.kind in "biuf" else "text" for c in classes}
    return len(kinds) <= 1 and np.asarray(classes).dtype.kind != "O"


def _judge_model(model, probe) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = model.decision_function(probe)
        labels = model.predict(probe)
    if not np.isfinite(scores).all():
        return "silently wrong"
    if not _classes_of_one_kind(model.classes_) or not np.isin(labels, model.classes_).all():
        return "silently wrong"
    return "accepted"


def _call(fn, must_refuse, may_refuse):
    """Outcome of one call: (category, detail); category None when it succeeded rightly."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except ValueError as error:
        if must_refuse or may_refuse:
            return "refused", str(error)
        return "refused valid input", str(error)
    except (TypeError, AttributeError, KeyError, IndexError, ZeroDivisionError, OverflowError,
            FloatingPointError, RuntimeError, AssertionError) as error:
        kind = "wrong exception" if isinstance(error, TypeError) else "crash"
        return kind, f"{type(error).__name__}: {error}"
    except Exception as error:  # noqa: BLE001 - anything else escaping is a crash
        return "crash", f"{type(error).__name__}: {error}"
    return ("silently wrong", "accepted input it must refuse") if must_refuse else (None, "")


def run_case(estimator_class, case: Case, params: dict | None = None) -> tuple[str, str]:
    """Run ``case`` on a fresh ``estimator_class(**params)``; return (category, detail).

    ``accepted``: every call that must succeed did, and the model's decisions on finite
    rows are finite with one kind of ``classes_``; ``refused``: a call that had to (or, for
    values that may overflow a kernel, could) be refused raised ValueError; ``refused valid
    input``: a ValueError for a sane call; ``wrong exception``: a TypeError; ``crash``: any
    other exception; ``silently wrong``: bad input accepted, or non-finite decisions.
    """
    model = estimator_class(**(params or {}))
    first = model.fit if case.choices["first_call"] == "fit" else model.partial_fit
    may_refuse = case.choices["values"] in MAY_REFUSE_VALUES
    binary_only = not model.__sklearn_tags__().classifier_tags.multi_class
    category, detail = _call(lambda: first(case.X1, case.y1),
                             case.must_refuse_first or (binary_only and _over_two(case.y1)),
                             may_refuse)
    if category is not None:
        return category, detail
    judged = _judge_or_crash(model, case.probe)
    if judged[0] != "accepted":
        return judged
    if sp.issparse(case.X2) and not model._accepts_sparse:
        return "accepted", ""
    category, detail = _call(lambda: model.partial_fit(case.X2, case.y2),
                             case.must_refuse_second
                             or (binary_only and _over_two(case.y1, case.y2)), may_refuse)
    if category is not None:
        return category, detail
    return _judge_or_crash(model, case.probe)


def _over_two(*label_arrays) -> bool:
    """More than two distinct labels (a binary-only estimator must refuse them)."""
    try:
        return np.unique(np.concatenate([np.ravel(y) for y in label_arrays])).size > 2
    except TypeError:  # mixed kinds: refused for that reason anyway
        return False


def _judge_or_crash(model, probe):
    try:
        return _judge_model(model, probe), "decisions after learning"
    except Exception as error:  # noqa: BLE001 - prediction must not fail on finite rows
        return "crash", f"predicting after learning: {type(error).__name__}: {error}"
