"""The verdicts of the defaults study on one result, and its two acceptance numbers.

A result is one (estimator, problem, order) pair with the estimator's balanced accuracy and
the reference's (``SVC()`` for kernel models, ``LinearSVC()`` for linear ones), both in
``Pipeline(StandardScaler(), model)``. Issue 18's acceptance lines:

- *collapse*: balanced accuracy <= 0.55 where the reference reaches >= 0.70;
- *gap*: more than 8 points of balanced accuracy below the reference.

An estimator that raised counts as a gap (its pair failed) and, where the reference reaches
0.70, as a collapse too: a user gets no model either way.
"""

from __future__ import annotations

COLLAPSE_AT_MOST = 0.55
REFERENCE_AT_LEAST = 0.70
GAP_MORE_THAN = 0.08

__all__ = ["COLLAPSE_AT_MOST", "REFERENCE_AT_LEAST", "GAP_MORE_THAN", "flags", "acceptance"]


def flags(balanced_accuracy, reference) -> list[str]:
    """The verdicts on one pair: ``"collapse"``, ``"gap"``, both or none.

    ``balanced_accuracy`` is None when the estimator raised.

    >>> flags(0.50, 0.90), flags(0.80, 0.90), flags(0.85, 0.90), flags(0.50, 0.60)
    (['collapse', 'gap'], ['gap'], [], ['gap'])
    """
    out = []
    failed = balanced_accuracy is None
    if reference >= REFERENCE_AT_LEAST and (failed or balanced_accuracy <= COLLAPSE_AT_MOST):
        out.append("collapse")
    # a small epsilon so that 0.08 computed as 0.90 - 0.82 is not "more than 8 pt"
    if failed or reference - balanced_accuracy > GAP_MORE_THAN + 1e-12:
        out.append("gap")
    return out


def acceptance(results) -> dict:
    """The two acceptance numbers over ``results`` (dicts with ``balanced_accuracy`` and
    ``reference_balanced_accuracy``): the count of collapses and the share of gaps.

    >>> acceptance([{"balanced_accuracy": 0.5, "reference_balanced_accuracy": 0.9},
    ...             {"balanced_accuracy": 0.9, "reference_balanced_accuracy": 0.9}])
    {'pairs': 2, 'collapses': 1, 'gaps': 1, 'gap_share': 0.5}
    """
    results = list(results)
    verdicts = [flags(r["balanced_accuracy"], r["reference_balanced_accuracy"])
                for r in results]
    collapses = sum("collapse" in v for v in verdicts)
    gaps = sum("gap" in v for v in verdicts)
    return {"pairs": len(results), "collapses": collapses, "gaps": gaps,
            "gap_share": gaps / len(results) if results else 0.0}
