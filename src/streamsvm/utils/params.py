"""Hyper-parameter checking: declarative constraints and the one checker every estimator runs.

Each estimator class declares ``_parameter_constraints``: a dict mapping every constructor
parameter to a list of constraints, any one of which a valid value satisfies (the idea of
scikit-learn's tables, written here for this library). Rules that tie parameters together
are small named functions listed in ``_parameter_rules``; each returns ``None`` when the
rule holds, else ``(parameter, what is allowed)``.

:func:`check_params` runs at ``fit``, at the first ``partial_fit`` / ``learn_one`` and after
``set_params`` on a fitted model (:class:`CheckedParamsMixin`), never in ``__init__``, so
that :func:`sklearn.base.clone` works on any value. Every refusal is a ``ValueError`` (also
for a value of the wrong type, so callers catch one exception) worded the same way::

    LASVM: parameter C=-1 is invalid; allowed: a float > 0
"""

from __future__ import annotations

import functools
import math
import numbers
import os

import numpy as np

__all__ = [
    "Boolean",
    "CheckedParamsMixin",
    "Constraint",
    "Interval",
    "IsCallable",
    "IsNone",
    "IsInstance",
    "LabelPair",
    "MAX_MEMORY_MB",
    "MemoryMB",
    "N_JOBS",
    "Options",
    "RANDOM_STATE",
    "VERBOSE",
    "WeightDict",
    "check_param_values",
    "check_params",
    "keep_params",
    "param_error",
]


class Constraint:
    """One set of valid values: :meth:`accepts` tells membership, :meth:`describe` names it."""

    def accepts(self, value) -> bool:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def parts(self) -> list[str]:
        """The items of :meth:`describe`, so that error messages list alternatives flat."""
        return [self.describe()]

    def __repr__(self):
        return f"{type(self).__name__}({self.describe()})"


def _is_bool(value) -> bool:
    return isinstance(value, bool | np.bool_)


class Interval(Constraint):
    """Numbers of ``kind`` (``numbers.Real`` or ``numbers.Integral``) between ``low`` and
    ``high`` (``None``: unbounded), ends included as ``closed`` says (``"both"``, ``"left"``,
    ``"right"``, ``"neither"``).

    Booleans and NaN are never numbers here. Values must be finite unless an end is
    ``±math.inf`` and closed: ``Interval(numbers.Real, 0, math.inf, closed="right")`` is
    ``(0, inf]``. A real interval accepts integers too."""

    def __init__(self, kind, low=None, high=None, *, closed="both"):
        if kind not in (numbers.Real, numbers.Integral):
            raise ValueError(f"kind must be numbers.Real or numbers.Integral; got {kind!r}")
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be 'both', 'left', 'right' or 'neither'; got {closed!r}")
        self.kind = kind
        self.low = low
        self.high = high
        self.closed = closed

    @property
    def _low_closed(self) -> bool:
        return self.closed in ("both", "left")

    @property
    def _high_closed(self) -> bool:
        return self.closed in ("both", "right")

    def accepts(self, value) -> bool:
        if _is_bool(value) or not isinstance(value, self.kind):
            return False
        if not isinstance(value, numbers.Integral):  # ints are exact, however large
            if math.isnan(value):
                return False
            if math.isinf(value):
                below = value < 0 and self.low == -math.inf and self._low_closed
                above = value > 0 and self.high == math.inf and self._high_closed
                return below or above
        if self.low is not None and not (value > self.low
                                         or (value == self.low and self._low_closed)):
            return False
        if self.high is not None and not (value < self.high
                                          or (value == self.high and self._high_closed)):
            return False
        return True

    def describe(self) -> str:
        what = "an int" if self.kind is numbers.Integral else "a float"
        if self.low is None and self.high is None:
            return "a finite float" if self.kind is numbers.Real else what
        if self.low is None:
            return f"{what} {'<=' if self._high_closed else '<'} {_number(self.high)}"
        if self.high is None:
            return f"{what} {'>=' if self._low_closed else '>'} {_number(self.low)}"
        left = "[" if self._low_closed else "("
        right = "]" if self._high_closed else ")"
        return f"{what} in {left}{_number(self.low)}, {_number(self.high)}{right}"


def _number(value) -> str:
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)


class Options(Constraint):
    """One of the given values. A string matches only a string and a bool only a bool, so
    ``1`` is not ``True`` and ``1.0`` is not ``True`` here."""

    def __init__(self, *choices):
        self.choices = tuple(choices)

    def accepts(self, value) -> bool:
        for choice in self.choices:
            if isinstance(choice, str):
                if isinstance(value, str) and value == choice:
                    return True
            elif _is_bool(choice):
                if _is_bool(value) and bool(value) == choice:
                    return True
            elif type(value) is type(choice) and value == choice:
                return True
        return False

    def describe(self) -> str:
        return _either(self.parts())

    def parts(self) -> list[str]:
        return [repr(choice) for choice in self.choices]


class Boolean(Options):
    """``True`` or ``False`` (Python or NumPy booleans)."""

    def __init__(self):
        super().__init__(True, False)


class IsNone(Constraint):
    """``None``."""

    def accepts(self, value) -> bool:
        return value is None

    def describe(self) -> str:
        return "None"


class IsCallable(Constraint):
    """Any callable."""

    def accepts(self, value) -> bool:
        return callable(value)

    def describe(self) -> str:
        return "a callable"


class IsInstance(Constraint):
    """An instance of ``cls``, described as ``description``."""

    def __init__(self, cls, description):
        self.cls = cls
        self.description = description

    def accepts(self, value) -> bool:
        return isinstance(value, self.cls)

    def describe(self) -> str:
        return self.description


class WeightDict(Constraint):
    """A dict mapping labels to weights, each accepted by ``weight`` (e.g. an Interval)."""

    def __init__(self, weight: Constraint):
        self.weight = weight

    def accepts(self, value) -> bool:
        return isinstance(value, dict) and all(self.weight.accepts(w) for w in value.values())

    def describe(self) -> str:
        return f"a dict label -> {self.weight.describe()}"


#: the largest memory budget (MB) a parameter may ask for where the machine's memory cannot be
#: read (``os.sysconf`` missing, as on Windows): 1 TiB
MAX_MEMORY_MB = float(2**20)
_MB = float(2**20)


@functools.cache
def physical_memory_bytes() -> int | None:
    """The machine's physical memory in bytes (``os.sysconf``, read once), or ``None`` where
    it cannot be read cheaply."""
    try:
        pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return pages * page_size if pages > 0 and page_size > 0 else None


def _in_bytes(n: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.3g} bytes"


class MemoryMB(Constraint):
    """A memory budget in MB (1 MB = 2**20 bytes), such as ``cache_size``: a float > 0 and at
    most the machine's physical memory (a larger budget is never useful and ends in a
    ``MemoryError``), or at most :data:`MAX_MEMORY_MB` where the memory cannot be read."""

    @staticmethod
    def limit_mb() -> float:
        memory = physical_memory_bytes()
        return memory / _MB if memory else MAX_MEMORY_MB

    def accepts(self, value) -> bool:
        return Interval(numbers.Real, 0, self.limit_mb(), closed="right").accepts(value)

    def describe(self) -> str:
        limit = self.limit_mb()
        where = ("this machine's memory" if physical_memory_bytes()
                 else "the bound where the machine's memory cannot be read")
        return f"a float in (0, {limit:.6g}] MB ({where}, {_in_bytes(limit * _MB)})"

    def explain(self, value) -> str | None:
        """What a refused value would ask for, when it is a number too large."""
        if (isinstance(value, numbers.Real) and not _is_bool(value) and math.isfinite(value)
                and value > self.limit_mb()):
            return f"{value:g} MB would ask for {_in_bytes(value * _MB)}"
        return None


class LabelPair(Constraint):
    """Two distinct labels (a list, tuple or 1-D array), negative class first."""

    def accepts(self, value) -> bool:
        if isinstance(value, str | bytes | dict) or not hasattr(value, "__len__"):
            return False
        labels = np.asarray(value, dtype=object)
        return labels.shape == (2,) and labels[0] != labels[1]

    def describe(self) -> str:
        return "a list of two distinct labels"


#: ``random_state`` of the estimators that draw random numbers.
RANDOM_STATE = [IsNone(), Interval(numbers.Integral, 0, None),
                IsInstance(np.random.RandomState, "a numpy.random.RandomState")]
#: ``verbose``: 0 silent, 1 progress lines (``streamsvm.utils.progress``), 2 also start and end
VERBOSE = [Interval(numbers.Integral, 0, None)]
#: ``n_jobs`` of the kernel estimators (scikit-learn's convention): None = 1 thread, a positive
#: count, or -1 = every core, -2 = all but one ... (``streamsvm.utils.threads``)
N_JOBS = [IsNone(), Interval(numbers.Integral, 1, None), Interval(numbers.Integral, None, -1)]


def _either(parts: list[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def keep_params(estimator, arguments: dict) -> None:
    """Store a constructor's arguments on ``estimator`` as given, each under its own name
    (scikit-learn's rule for ``__init__``: nothing checked or changed there, so that ``clone``
    and ``set_params`` work on any value; :func:`check_params` checks them at ``fit``).
    ``arguments``: ``locals()`` at the constructor's first line."""
    for name, value in arguments.items():
        if name not in ("self", "__class__"):
            setattr(estimator, name, value)


def param_error(owner: str, name: str, value, allowed: str) -> ValueError:
    """The one error of the library for a bad parameter value."""
    return ValueError(f"{owner}: parameter {name}={value!r} is invalid; allowed: {allowed}")


def check_param_values(constraints: dict, values: dict, owner: str) -> None:
    """Check ``values`` (name -> value) against a constraints table; raise :func:`param_error`
    for the first parameter no constraint of its list accepts. Names missing from the table
    are not checked."""
    for name, value in values.items():
        allowed = constraints.get(name)
        if allowed is None:
            continue
        if not any(constraint.accepts(value) for constraint in allowed):
            parts = [part for constraint in allowed for part in constraint.parts()]
            why = [text for constraint in allowed
                   if (text := getattr(constraint, "explain", lambda v: None)(value))]
            raise param_error(owner, name, value, "; ".join([_either(parts), *why]))


def check_params(estimator) -> None:
    """Check every constructor parameter of ``estimator`` against its class's
    ``_parameter_constraints``, then run the class's ``_parameter_rules``; raise
    ``ValueError`` (:func:`param_error`) naming the parameter, the value given and what is
    allowed."""
    owner = type(estimator).__name__
    table = type(estimator)._parameter_constraints
    params = estimator.get_params(deep=False)
    missing = sorted(set(params) - set(table))
    if missing:  # a programming error of the class, not of the caller
        raise TypeError(f"{owner} declares no constraints for parameter(s) {missing}; add them "
                        "to its _parameter_constraints (docs/design.md, adding an estimator)")
    check_param_values(table, params, owner)
    for rule in type(estimator)._parameter_rules:
        broken = rule(estimator)
        if broken is not None:
            name, allowed = broken
            raise param_error(owner, name, params[name], allowed)


#: class -> its parameter names (:meth:`CheckedParamsMixin._get_param_names`)
_PARAM_NAMES: dict = {}


class CheckedParamsMixin:
    """``set_params`` that refuses a bad value on a fitted model and then leaves the model's
    parameters as they were (an unfitted model is checked at ``fit``, as scikit-learn does).

    Classes using it declare ``_parameter_constraints`` and may list ``_parameter_rules``.
    """

    _parameter_constraints: dict = {}
    _parameter_rules: tuple = ()

    @classmethod
    def _get_param_names(cls):
        """scikit-learn's list of the parameter names (read from ``__init__``'s signature),
        read once per class: ``get_params`` runs at least twice on a stream's first row
        (parameters checked), and reading the signature is most of its 20 us."""
        names = _PARAM_NAMES.get(cls)
        if names is None:
            names = _PARAM_NAMES[cls] = tuple(super()._get_param_names())
        return list(names)

    def set_params(self, **params):
        if not self.__sklearn_is_fitted__():
            return super().set_params(**params)
        before = self.get_params(deep=False)
        try:
            super().set_params(**params)
            check_params(self)
        except ValueError:
            for name, value in before.items():
                setattr(self, name, value)
            raise
        return self
