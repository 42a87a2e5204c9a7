"""scikit-learn's ``SVC`` attributes for the kernel expansions of the library.

A model whose decision is ``f(x) = sum_i c_i K(x_i, x) + b`` per binary learner exposes, as
:class:`sklearn.svm.SVC` does:

* ``support_vectors_`` (n_SV, n_features): the ``x_i`` with ``c_i != 0`` (dense array, or CSR
  for models that keep sparse rows);
* ``dual_coef_`` (n_rows, n_SV): the ``c_i = y_i alpha_i``, signed as the decision of
  ``classes_[1]``; ``intercept_`` (n_rows,): ``b``;
* ``n_support_`` (n_classes,) int32: support vectors per class, in ``classes_`` order, and
  ``support_vectors_`` grouped in that order;
* ``support_``: the stream positions (0 = the first row learnt) of the support vectors, for
  models whose vectors are rows of the stream and that record their positions; the others
  raise ``AttributeError`` naming the reason.

Two classes: as SVC, one row of ``dual_coef_``, the vectors of ``classes_[0]`` (``c_i < 0``)
first, and ``decision_function(X) == K(X, support_vectors_) @ dual_coef_[0] + intercept_[0]``.

More classes: SVC is one-vs-one (``dual_coef_`` has n_classes - 1 rows); these models are
one-vs-rest, so the layout differs: ``support_vectors_`` stacks one block per class (the
expansion of "class k against the rest"; a row may appear in several blocks), ``n_support_[k]``
is the size of block k, ``dual_coef_`` is (n_classes, n_SV) with row k nonzero only on block
k, ``intercept_`` is (n_classes,), and ``decision_function(X)[:, k] == K(X,
support_vectors_) @ dual_coef_[k] + intercept_[k]``.

The counters of an expansion (support vectors, kernel values computed, ...) are the learners'
counts summed over the one-vs-rest learners: :func:`summed_over_learners` makes each one.
"""

from __future__ import annotations

import operator

import numpy as np
import scipy.sparse as sp

__all__ = ["SupportVectorsMixin", "summed_over_learners"]


def _support_part(index: int, doc: str) -> property:
    """Item ``index`` of :meth:`SupportVectorsMixin._support_parts` (the module's layout) as
    a read-only attribute whose docstring is ``doc``."""
    return property(lambda self: self._support_parts()[index], doc=doc)


class SupportVectorsMixin:
    """The attributes of the module docstring from one hook per estimator:
    :meth:`_learner_expansion` ``(learner) -> (rows, coef, b, positions or None)`` in the
    learner's ±1 labels (``coef`` the ``y_i alpha_i`` of the support vectors only)."""

    #: why ``support_`` is not available (None: the learners return positions)
    _support_positions_missing: str | None = None

    def _learner_expansion(self, learner):
        raise NotImplementedError

    def _support_parts(self):
        """``(rows, coef, intercept, positions, n_support)`` in the module's layout."""
        self._check_fitted()
        parts = [self._learner_expansion(learner) for learner in self.learners_]
        signs = [float(s) for s in self._signs]
        if len(parts) == 1:
            rows, coef, b, positions = parts[0]
            coef = signs[0] * np.asarray(coef, dtype=np.float64)
            order = np.argsort(coef > 0, kind="stable")  # classes_[0] first, as SVC
            rows = rows[order]
            positions = None if positions is None else np.asarray(positions)[order]
            n_negative = int(np.count_nonzero(coef < 0))
            n_support = np.array([n_negative, coef.size - n_negative], dtype=np.int32)
            return (rows, coef[order][None, :], np.array([signs[0] * b]), positions,
                    n_support)
        sizes = [len(p[1]) for p in parts]
        total = sum(sizes)
        dual = np.zeros((len(parts), total))
        start = 0
        for k, ((_, coef, _, _), sign) in enumerate(zip(parts, signs, strict=True)):
            dual[k, start : start + sizes[k]] = sign * np.asarray(coef, dtype=np.float64)
            start += sizes[k]
        blocks = [p[0] for p in parts]
        rows = sp.vstack(blocks, format="csr") if sp.issparse(blocks[0]) else np.vstack(blocks)
        positions = None
        if all(p[3] is not None for p in parts):
            positions = np.concatenate([np.asarray(p[3], dtype=np.int64) for p in parts])
        intercept = np.array([s * p[2] for p, s in zip(parts, signs, strict=True)])
        return rows, dual, intercept, positions, np.array(sizes, dtype=np.int32)

    support_vectors_ = _support_part(0, "Support vectors, grouped by class in ``classes_`` order.")
    dual_coef_ = _support_part(1, "``y_i alpha_i`` of the support vectors, signed for classes_[1].")
    intercept_ = _support_part(2, "``b`` of each decision function (module docstring).")
    n_support_ = _support_part(4, "Support vectors per class, in ``classes_`` order, int32.")

    @property
    def support_(self) -> np.ndarray:
        """Stream positions of the support vectors (0 = the first row learnt)."""
        if self._support_positions_missing is not None:
            raise AttributeError(f"{type(self).__name__} has no support_: "
                                 f"{self._support_positions_missing}")
        positions = self._support_parts()[3]
        if positions is None:
            raise AttributeError(f"{type(self).__name__} has no support_: this model does not "
                                 "know the stream positions of its rows (saved by an older "
                                 "version)")
        return np.asarray(positions, dtype=np.int64)


def summed_over_learners(attribute, doc: str) -> property:
    """A fitted model's read-only count: the learners' ``attribute`` (a name, or a function
    of a learner) summed over the one-vs-rest learners, an int; ``doc`` is its docstring."""
    read = operator.attrgetter(attribute) if isinstance(attribute, str) else attribute

    def total(self) -> int:
        self._check_fitted()
        return int(sum(read(learner) for learner in self.learners_))

    return property(total, doc=doc)
