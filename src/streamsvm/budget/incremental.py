"""IncrementalSVM: the exact incremental/decremental C-SVM of Cauwenberghs & Poggio (2001)."""

from __future__ import annotations

from numbers import Real

import numpy as np

from ..base import BinaryLearner, SampleWeightMixin
from ..base.support import summed_over_learners
from ..base.weights import CLASS_WEIGHT
from ..kernels import dense_blocks
from ..utils.params import N_JOBS, VERBOSE, Interval, check_param_values, check_params, keep_params
from ._common import KernelStreamClassifier
from ._machine import Machine


class _IncrementalLearner(BinaryLearner):
    """One two-class IDSVM over every example learnt (and not unlearnt)."""

    def __init__(self, n_features, rng, *, C, jit_kernel, tol):
        super().__init__(n_features, rng)
        self.machine = Machine(n_features, capacity=16, jit_kernel=jit_kernel, C=C, tol=tol)
        # it holds every example learnt: files leave its Gram matrix out (n² values)
        self.machine.rebuild_gram_on_load = True

    def learn(self, X, y, weights, ids):
        for dense, labels, w, idc in dense_blocks(X, y, weights, ids):
            self.machine.add(dense, labels, w, idc)
        self.n_seen += X.shape[0]

    def partial_fit(self, X, y, sample_weight=None):
        start = self.n_seen
        weights = np.ones(X.shape[0]) if sample_weight is None else sample_weight
        self.learn(X, y, weights, np.arange(start, start + X.shape[0]))

    def decision_function(self, X):
        out = np.empty(X.shape[0])
        position = 0
        for dense, in dense_blocks(X):
            out[position : position + dense.shape[0]] = self.machine.decision_function(dense)
            position += dense.shape[0]
        return out

    def unlearn(self, example_id):
        slot = self.machine.slot_of(example_id)
        if slot >= 0:
            self.machine.remove(slot)

    def reweight(self, example_id, weight):
        slot = self.machine.slot_of(example_id)
        if slot >= 0:
            self.machine.set_weight(slot, weight)

    def change_C(self, C):
        self.machine.set_C(C)


class IncrementalSVM(SampleWeightMixin, KernelStreamClassifier):
    """Exact online C-SVM with unlearning (Cauwenberghs & Poggio 2001, "IDSVM").

    After every operation the model is *the* solution of the weighted C-SVM

        min 1/2 ||w||^2 + C sum_i s_i xi_i,   y_i (w.phi(x_i) + b) >= 1 - xi_i,  xi_i >= 0

    on the examples currently held (dual box ``0 <= alpha_i <= s_i C``, TVM paper Sec. 2.1),
    with the KKT conditions kept on every example by adiabatic increments (Sec. 2.2):

    * ``partial_fit`` / ``learn_one`` add examples (weight ``class_weight[y] *
      sample_weight``, 1 by default);
    * :meth:`unlearn` removes examples by id (decremental unlearning: the result equals the
      SVM trained without them);
    * :meth:`reweight` changes one example's weight ``s_i``;
    * :meth:`change_C` (or ``set_params(C=...)`` followed by more learning) moves C along
      the regularisation path (Diehl & Cauwenberghs 2003).

    Examples get ids in stream order: the k-th example learnt (from 0) has id k, across
    ``partial_fit`` calls; ``example_ids_`` lists those held. Cost per added example
    O(N P) for the sensitivities plus O(P^2) per set change (P margin vectors, N stored
    examples), O(N d) kernel values; memory O(N^2 + N d) (the Gram matrix of the stored
    examples), growing with the stream as the paper says. Choose it when you need the
    exact SVM on a stream of moderate size, or exact deletion of examples; for unbounded
    streams use :class:`TwinVectorMachine`.

    Parameters
    ----------
    C : float, default=1.0
        Box constant; example i's bound is ``class_weight[y_i] * sample_weight_i * C`` (as
        scikit-learn's SVC, whose solution this model equals with the same weights).
        Chosen because it is ``SVC()``'s: ``IncrementalSVM()`` is then exactly ``SVC()``
        on the rows it holds (the defaults study: within 1 pt of ``SVC()`` on average).
    kernel : {"linear", "rbf", "poly"}, default="rbf"
    gamma, degree, coef0 : as in scikit-learn (default ``gamma='scale'``, fixed from the
        first data the model sees: ``docs/design.md``).
    tol : float, default=1e-9
        An added example with ``y f(x) >= 1 - tol`` is a reserve vector at once.
    class_weight : None, "balanced" or dict {label: weight > 0}, default=None
        Multiplies the box of each example of a class (SVC's ``class_weight``). "balanced"
        gives class c the weight ``n / (k n_c)`` from the rows counted so far
        (``class_counts_``; ``fit`` counts all of ``y`` first, so it equals SVC's;
        ``partial_fit`` counts each chunk before learning it). An example keeps the box it
        was added with (:meth:`reweight` changes it). ``docs/imbalanced.md``.
    verbose : int, default 0
        0: silent; 1: a progress line (rows done, rows/s) every few seconds of ``fit`` or
        ``partial_fit`` and a notice before the first use compiles; 2: also their start and
        end (``streamsvm.utils.progress``).
    n_jobs : int or None, default None
        Threads of the compiled loops as in scikit-learn (None = 1, -1 = every core); every
        value learns the very same model. Give them idle cores: on busy ones ``n_jobs > 1``
        can be many times slower than one thread (``docs/performance.md``).

    Attributes
    ----------
    support_vectors_, dual_coef_, intercept_, n_support_ : SVC's attributes
        (:mod:`streamsvm.base.support`); ``dual_coef_`` holds ``y_i alpha_i``.
    support_ : array of int, the support vectors' example ids (stream positions).
    n_margin_, n_error_, n_reserve_ : int, sizes of the sets S, E, R.
    example_ids_ : array of int, ids of the examples held.
    dual_objective_ : float, ``1/2 a'Qa - sum a``.
    kkt_violation_ : float, largest KKT violation, gradients recomputed from scratch.
    max_rows_hint : int (class attribute), 2,000 — the training size past which the O(N^2)
        memory and time become costly; ``streamsvm demo`` and the defaults study train on at
        most that many rows.

    Examples
    --------
    >>> import numpy as np
    >>> from streamsvm import IncrementalSVM
    >>> from streamsvm.datasets import make_checkerboard
    >>> X, y = make_checkerboard(300, random_state=0, standardize=True)
    >>> model = IncrementalSVM(C=10.0, gamma=2.0).fit(X, y)
    >>> before = model.decision_function(X[:3])
    >>> _ = model.unlearn([5, 17]).partial_fit(X[[5, 17]], y[[5, 17]])  # out and back in
    >>> bool(np.allclose(before, model.decision_function(X[:3]), atol=1e-6))
    True
    """

    _learner_class = _IncrementalLearner
    _bounded_memory = False
    #: training rows past which this model's memory (the Gram matrix of all it holds, O(N^2))
    #: outgrows a laptop's; the demo and the defaults study train on the first rows only
    max_rows_hint = 2_000
    _test_params = [
        {},
        {"kernel": "linear", "C": 10.0},
        {"kernel": "poly", "degree": 2, "gamma": 0.05, "coef0": 1.0},
    ]

    _parameter_constraints = {
        "verbose": VERBOSE,
        "n_jobs": N_JOBS,
        "C": [Interval(Real, 0, None, closed="neither")],
        **KernelStreamClassifier._kernel_constraints,
        "tol": [Interval(Real, 0, None, closed="neither")],
        "class_weight": CLASS_WEIGHT,
    }

    def __init__(self, *, C=1.0, kernel="rbf", gamma="scale", degree=3, coef0=0.0, tol=1e-9,
                 class_weight=None, verbose=0, n_jobs=None):
        keep_params(self, locals())

    @property
    def _expected_failed_checks(self) -> dict:
        if self.kernel != "linear" and self.gamma == "scale":
            reason = ("gamma='scale' is resolved from the unweighted rows, so duplicating a "
                      "row and doubling its weight change gamma (SVC does the same)")
            return {"check_sample_weight_equivalence_on_dense_data": reason,
                    "check_sample_weight_equivalence_on_sparse_data": reason}
        return {}

    def _learner_kwargs(self) -> dict:
        return {"C": float(self.C), "jit_kernel": self._jit_kernel, "tol": float(self.tol)}

    # ------------------------------------------------------------------ weights
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Continue the stream (ids continue from the examples learnt before); ``C`` and
        ``sample_weight`` as in ``fit``.

        Returns
        -------
        self
        """
        check_params(self)  # every chunk: C is applied to the whole model at each chunk
        return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    def _learn(self, X, y, *, whole_pass, sample_weight=None):
        weights = self._row_weights(y, sample_weight, self._class_weight_vector())
        if weights is None:
            weights = np.ones(X.shape[0])
        ids = np.arange(self.n_seen_, self.n_seen_ + X.shape[0], dtype=np.int64)
        for learner, target, sign in zip(self.learners_, self._targets, self._signs, strict=True):
            learner.change_C(self.C)
            y_binary = np.where(y == target, sign, -sign).astype(np.float64)
            self._record_before(learner, X, y_binary, sample_weight)  # a weight counts as copies
            learner.learn(X, y_binary, weights, ids)
            self._record_after(learner, X, y_binary, sample_weight)
        self.n_seen_ += X.shape[0]

    # ------------------------------------------------------------------ operations
    def _check_ids(self, example_ids):
        self._check_fitted()
        ids = np.atleast_1d(np.asarray(example_ids))
        if ids.ndim != 1 or ids.dtype.kind not in "iu":
            raise TypeError(f"example ids must be integers; got {example_ids!r}")
        held = self.example_ids_
        unknown = np.setdiff1d(ids, held)
        if unknown.size:
            raise ValueError(f"unknown example ids {unknown.tolist()[:10]}: the model holds "
                             f"{held.size} examples (ids learnt and not unlearnt)")
        if np.unique(ids).size != ids.size:
            raise ValueError(f"repeated example ids in {ids.tolist()[:10]}")
        return ids.astype(np.int64)

    def unlearn(self, example_ids):
        """Remove examples by id; the model becomes the SVM trained without them.

        Returns
        -------
        self
        """
        ids = self._check_ids(example_ids)
        if ids.size >= self.example_ids_.size:
            raise ValueError("cannot unlearn every example the model holds; use fit to restart")
        for example_id in ids:
            for learner in self.learners_:
                learner.unlearn(int(example_id))
        return self

    def reweight(self, example_id, weight):
        """Change one example's weight (its bound becomes ``weight * C``).

        Returns
        -------
        self
        """
        ids = self._check_ids(example_id)
        if ids.size != 1:
            raise ValueError("reweight takes one example id")
        check_param_values({"weight": [Interval(Real, 0, None)]}, {"weight": weight}, self._name)
        for learner in self.learners_:
            learner.reweight(int(ids[0]), float(weight))
        return self

    def change_C(self, C):
        """Move the fitted model to a new C along the regularisation path; sets ``self.C``.

        Returns
        -------
        self
        """
        self._check_fitted()
        check_param_values({"C": self._parameter_constraints["C"]}, {"C": C}, self._name)
        for learner in self.learners_:
            learner.change_C(float(C))
        self.C = C
        return self

    # ------------------------------------------------------------------ introspection
    def _machine(self):
        self._check_fitted()
        return self.learners_[0].machine

    @property
    def example_ids_(self) -> np.ndarray:
        self._check_fitted()
        if not self.learners_:
            return np.zeros(0, dtype=np.int64)
        return np.unique(np.concatenate([lr.machine.ids() for lr in self.learners_]))

    n_margin_ = summed_over_learners(lambda lr: lr.machine.sets()[0].size,
                                     "Size of the set S (margin vectors).")
    n_error_ = summed_over_learners(lambda lr: lr.machine.sets()[1].size,
                                    "Size of the set E (error vectors).")
    n_reserve_ = summed_over_learners(lambda lr: lr.machine.sets()[2].size,
                                      "Size of the set R (reserve vectors).")

    @property
    def dual_objective_(self) -> float:
        return self._machine().dual_objective()

    @property
    def kkt_violation_(self) -> float:
        self._check_fitted()
        return max(max(lr.machine.kkt_violation()) for lr in self.learners_)

    n_refactorizations_ = summed_over_learners(lambda lr: lr.machine.n_refactorizations,
                                               "Times the inverse was refactorized.")
    n_kernel_evals_ = summed_over_learners(lambda lr: lr.machine.n_kernel_evals,
                                           "Kernel values computed while learning.")


__all__ = ["IncrementalSVM"]
