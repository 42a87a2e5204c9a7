"""River's classifier interface, when River is installed (``pip install streamsvm[river]``).

:class:`RiverClassifier` is a base class of every estimator: ``river.base.Classifier`` when
River can be imported, otherwise a plain class, so that without River nothing changes. River's
``Base`` supplies ``clone``, ``_get_params``, ``mutate``, ``_tags`` and ``|`` (pipelines) from
the constructor's signature, which scikit-learn's ``BaseEstimator`` keeps as attributes too;
the estimators list scikit-learn's ``BaseEstimator`` first, so ``repr``, ``get_params``,
``set_params`` and pickling are scikit-learn's (``sklearn.base.clone`` is a function and
does not meet River's ``clone`` method). The dict path itself (``learn_one``,
``predict_one``, ``predict_proba_one``) lives in :mod:`streamsvm.base`; ``docs/river.md``
shows the use.
"""

from __future__ import annotations

try:  # River is an optional extra
    from river.base import Classifier as _RiverBase

    RIVER_INSTALLED = True
except ImportError:  # pragma: no cover - exercised by a test that blocks the import
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

    @classmethod
    def _unit_test_params(cls):
        """River's test parameters: the first scikit-learn test parameters of the class
        (small budgets, quick settings), seeded where the class has a ``random_state``."""
        params = dict(getattr(cls, "_test_params", [{}])[0])
        if "random_state" in cls().get_params(deep=False):
            params.setdefault("random_state", 0)
        yield params

    def _unit_test_skips(self) -> set[str]:
        """River checks that do not apply: none by default (a class narrows this)."""
        return set()
