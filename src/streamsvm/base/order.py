"""The order guard: a warning when ``fit`` is given rows sorted by label.

``fit`` learns its rows in the given order, in one pass (or LASVM's one epoch). Rows sorted
by label, each class in one block, are how many tables are stored (scikit-learn's
``load_iris``, ``load_wine``, ...) and how cross-validation folds keep them when they are not
shuffled, and they are the worst order for the learners that follow the last rows: the model
sees one class for a long time, then the other. Training accuracy with the rows sorted by
label / shuffled once (each estimator at its defaults):

=================  ===========================  ======================================
estimator          iris, class 2 vs the rest    ``make_classification(600, 5,
                                                random_state=0)``
=================  ===========================  ======================================
Perceptron         33.3% / 90.7%                68.5% / 96.0%
Pegasos            33.3% / 66.7%                58.8% / 95.0%
LASVM              34.0% / 96.7%                74.3% / 96.0%
LASVM-I            69.3% / 94.7%                89.3% / 95.5%
Forgetron          72.0% / 95.3%                63.2% / 97.3%
BudgetPerceptron   72.0% / 96.0%                54.5% / 93.5%
StreamSVM          97.3% / 97.3%                86.5% / 94.5%
=================  ===========================  ======================================

The others (the Blurred Ball SVM, LASVM-G, LASVM-NC, the full SVM, ActiveSVM, the exact
IncrementalSVM, TVM, RandomBudgetSVM) stayed within a point or two. The estimators above set
``_order_sensitive = True``; their ``fit`` emits one :class:`SortedLabelsWarning` when the
labels come in blocks (at least :data:`MIN_ROWS` rows, every class in one block) and the
estimator does not shuffle them itself (LASVM's ``shuffle=True``). ``partial_fit`` is not
checked: a stream's chunks may well hold one class each, and their order is the stream's.
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["MIN_ROWS", "SortedLabelsWarning", "guard_order", "label_blocks"]

#: fewer rows than this are not checked (a toy problem written by hand is often sorted)
MIN_ROWS = 20


class SortedLabelsWarning(UserWarning):
    """``fit`` of an order-sensitive estimator got its rows sorted by label, every class in
    one block (:mod:`streamsvm.base.order`): shuffle them first (``sklearn.utils.shuffle``,
    ``KFold(shuffle=True)``), or pass ``shuffle=True`` where the estimator has it."""


def label_blocks(y) -> list[tuple[object, int]] | None:
    """``[(label, rows), ...]`` in the order of the blocks when ``y`` holds at least
    :data:`MIN_ROWS` labels of at least two classes with every class in one contiguous
    block; None otherwise.

    >>> label_blocks([0] * 15 + [1] * 10)
    [(0, 15), (1, 10)]
    >>> label_blocks([0, 1] * 15) is None
    True
    """
    y = np.asarray(y)
    n = y.shape[0]
    if n < MIN_ROWS:
        return None
    changes = np.flatnonzero(y[1:] != y[:-1]) + 1
    if changes.size == 0 or changes.size + 1 != np.unique(y).shape[0]:
        return None
    starts = np.concatenate(([0], changes))
    ends = np.concatenate((changes, [n]))
    return [(y[s].item() if isinstance(y[s], np.generic) else y[s], int(e - s))
            for s, e in zip(starts, ends, strict=True)]


def guard_order(estimator, y) -> None:
    """Emit a :class:`SortedLabelsWarning` when ``estimator`` (about to ``fit``) is
    order-sensitive, does not shuffle its rows itself, and ``y`` comes sorted by label."""
    if not getattr(type(estimator), "_order_sensitive", False):
        return
    params = estimator.get_params(deep=False)
    if params.get("shuffle", False):
        return
    blocks = label_blocks(y)
    if blocks is None:
        return
    name = type(estimator).__name__
    layout = ", then ".join(f"{rows} rows of {label!r}" for label, rows in blocks)
    remedy = ("pass shuffle=True, or shuffle the rows" if "shuffle" in params
              else "shuffle the rows")
    warnings.warn(
        f"{name}.fit got its rows sorted by label ({layout}): it learns them in this order, "
        f"and on sorted rows it can end far from what it learns on shuffled ones, or predict "
        f"one class. {remedy[0].upper()}{remedy[1:]} first (sklearn.utils.shuffle(X, y, "
        f"random_state=0); in cross-validation, KFold(shuffle=True)).",
        SortedLabelsWarning, stacklevel=5)
