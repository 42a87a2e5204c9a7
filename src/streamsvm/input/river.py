"""River's classifier interface, when River is installed (``pip install streamsvm[river]``).

:class:`RiverClassifier` is a base class of every estimator. With River it derives from
``river.base.Base``, which supplies ``clone``, ``_get_params``, ``mutate``, the memory
measures and the rest of River's interface from the constructor's signature (scikit-learn's
``BaseEstimator`` keeps the parameters as attributes too), adds what River's ``Estimator`` and
``Classifier`` add (``_supervised``, ``_multiclass``, ``_tags``, ``|`` for pipelines, the
unit-test hooks), and is registered as a ``river.base.Classifier``, so that River's
``isinstance`` checks, metrics and pipelines accept the estimators. It does not derive from
``river.base.Estimator`` itself: that class defines River's ``_more_tags``, which
scikit-learn's checks take for its own tag method of before 1.6 and refuse
(``check_estimator_tags_renamed``). Without River it is a plain class and nothing changes.

The estimators list scikit-learn's ``BaseEstimator`` first, so ``repr``, ``get_params``,
``set_params`` and pickling are scikit-learn's (``sklearn.base.clone`` is a function and
does not meet River's ``clone`` method). The dict path itself (``learn_one``,
``predict_one``, ``predict_proba_one``) lives in :mod:`streamsvm.base`; ``docs/river.md``
shows the use.
"""

from __future__ import annotations

try:  # River is an optional extra
    from river import base as _river_base

    _RiverBase = _river_base.Base
    RIVER_INSTALLED = True
except ImportError:  # pragma: no cover - exercised by a test that blocks the import
    _river_base = None
    _RiverBase = object
    RIVER_INSTALLED = False

__all__ = ["RIVER_INSTALLED", "RiverClassifier"]


class RiverClassifier(_RiverBase):
    """River's ``Classifier`` face of a streamsvm estimator (nothing without River).

    Every estimator learns any number of classes (one-vs-rest), gives probabilities
    (``predict_proba_one``), and takes its randomness from ``random_state`` (scikit-learn's
    name for River's ``seed``)."""

    @property
    def _multiclass(self) -> bool:
        return True

    @property
    def _supervised(self) -> bool:
        return True

    @property
    def _tags(self) -> set[str]:
        """River's tags: none (numeric features; any labels)."""
        return set()

    def __or__(self, other):
        """``model | other``: a River pipeline."""
        from river import compose

        return compose.Pipeline(self, other)

    def __ror__(self, other):
        """``other | model`` (e.g. ``StandardScaler() | model``): a River pipeline."""
        from river import compose

        if isinstance(other, compose.Pipeline):
            return other.__or__(self)
        return compose.Pipeline(other, self)

    @classmethod
    def _unit_test_params(cls):
        """River's test parameters: the first scikit-learn test parameters of the class
        (small budgets, quick settings), seeded where the class has a ``random_state``."""
        params = dict(getattr(cls, "_test_params", [{}])[0])
        defaults = cls().get_params(deep=False)
        if "random_state" in defaults:
            params.setdefault("random_state", 0)
        if "cache_size" in defaults:
            # River's memory check compares the growth over two halves of a stream; a kernel
            # cache fills its budget (100 MB by default) as it goes, which it would read as
            # growth of the model: a small budget keeps the check about the model itself
            params.setdefault("cache_size", 2.0)
        yield params

    def _unit_test_skips(self) -> set[str]:
        """River checks that do not apply: none by default (a class narrows this)."""
        return set()


if RIVER_INSTALLED:
    _river_base.Classifier.register(RiverClassifier)
