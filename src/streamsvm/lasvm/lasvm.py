"""LASVM: the online SVM of Bordes, Ertekin, Weston & Bottou (JMLR 2005), with example
selection (RANDOM, GRADIENT, ACTIVE, AUTOACTIVE)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from ..base import StreamClassifier
from ..base.support import SupportVectorsMixin, summed_over_learners
from ..base.weights import CLASS_WEIGHT
from ..kernels import FirstDataRule, kernel_parameter_constraints
from ..utils.params import (
    N_JOBS,
    RANDOM_STATE,
    VERBOSE,
    Boolean,
    Interval,
    IsNone,
    MemoryMB,
    Options,
    keep_params,
)
from . import _expansion_core as _expansion
from . import _lasvm_core
from .learner import _Learner

SELECTIONS = {
    "random": _lasvm_core.RANDOM,
    "gradient": _lasvm_core.GRADIENT,
    "active": _lasvm_core.ACTIVE,
    "autoactive": _lasvm_core.AUTOACTIVE,
}


class _KernelSVMBase(SupportVectorsMixin, FirstDataRule, StreamClassifier):
    """What LASVM and the LASVM-G family share: kernel, C, tau, cache, epochs, counters
    (``gamma_`` fixed from the first data by :class:`~streamsvm.kernels.FirstDataRule`)."""

    _learner_class = _Learner
    _algorithm = "lasvm"
    #: class_weight sets each binary problem's box per side (Cp, Cn) before a chunk
    _weighting = "sides"
    _weighting_refusal = ("LASVM keeps one box per side of each binary problem (C times the "
                          "class weight); a box per example is not implemented. Use "
                          "class_weight, or IncrementalSVM for sample weights")
    _learners_release_gil = True  # their online and finishing loops are nogil

    # built-in kernels only: the loops are compiled
    _parameter_constraints = {
        "verbose": VERBOSE,
        "C": [Interval(Real, 0, None, closed="neither")],
        **kernel_parameter_constraints(),
        "tau": [Interval(Real, 0, None, closed="neither")],
        "epochs": [Interval(Integral, 1, None)],
        "cache_size": [MemoryMB()],  # at most the machine's memory: never a MemoryError
        "shuffle": [Boolean()],
        "random_state": RANDOM_STATE,
        "class_weight": CLASS_WEIGHT,
        "n_jobs": N_JOBS,
    }

    def _learner_options(self) -> dict:
        return {}

    def _make_learner(self):
        rng = np.random.default_rng([self._seed_entropy, self._n_learners_made])
        self._n_learners_made += 1
        learner = self._learner_class(
            self.n_features_in_, rng, algorithm=self._algorithm, C=self.C,
            jit_kernel=self._jit_kernel, tau=self.tau, cache_size=self.cache_size,
            epochs=self.epochs, shuffle=self.shuffle, **self._learner_options(),
        )
        learner.stream_offset = int(getattr(self, "n_seen_", 0))  # a class first seen later
        return learner

    # ------------------------------------------------------------------ attributes
    n_support_vectors_ = summed_over_learners("n_support", "Support vectors (alpha != 0).")
    n_bounded_support_vectors_ = summed_over_learners(
        "n_bounded", "Support vectors at a bound of their box (``|alpha| = C``).")
    n_expansion_ = summed_over_learners(
        "n_expansion", "Size of the kernel expansion S (support vectors and kept others).")
    n_kernel_evals_ = summed_over_learners(
        "n_kernel_evals", "Kernel values computed while learning (cache misses, per value).")
    cache_hits_ = summed_over_learners("cache_hits", "Kernel-row requests the cache answered.")
    cache_misses_ = summed_over_learners(
        "cache_misses", "Kernel-row requests that computed values (rows missing or short).")

    def _binary_learner(self, attribute):
        self._check_fitted()
        if len(self.learners_) != 1:
            raise AttributeError(f"{attribute} exists for two-class models only")
        return self.learners_[0], self._signs[0]

    # support_vectors_, dual_coef_, intercept_, n_support_, support_ (streamsvm.base.support)
    def _learner_expansion(self, learner):
        rows, coef = learner.support_rows()
        return rows, coef, learner.intercept, learner.support_positions()


class LASVM(_KernelSVMBase):
    """LASVM: an online kernel SVM that converges to the SVM solution (Bordes et al. 2005).

    Each online iteration takes one example (in the stream order, or chosen by a selection
    criterion), runs PROCESS (insert it in the kernel expansion S and make an SMO direction
    search on the tau-violating pair with maximal gradient that involves it) and REPROCESS
    (a direction search on the most violating pair of S, then removal of the blatant
    non-support vectors, and b, delta from eq. 10). The finishing step (``finish()``, run
    by ``fit``) repeats REPROCESS until ``delta <= tau``, i.e. a tau-approximate SVM
    solution over S, with the shrinking heuristic. The kernel rows are kept in an LRU cache
    of ``cache_size`` MB with the members of S kept first.

    Choose it for an exact kernel SVM in one pass: one epoch plus the finishing step is
    about as accurate as a batch SVM; several epochs reach the SVM solution.

    Parameters
    ----------
    C : float, default=1.0
        Box of eq. 5: ``0 <= y_i alpha_i <= C`` (times the class weight). Chosen because it
        is ``SVC()``'s, so that ``LASVM()`` learns the SVM that ``SVC()`` learns (the defaults
        study: 0.5 pt above ``SVC()``'s balanced accuracy on average over 15 problems and both
        orders, no pair more than 8 pt below). The study's trials
        (``benchmarks/results/defaults_trials/``): C=10 is higher where the classes have fine
        structure (checkerboard 76 -> 88%, letter A 95 -> 99%) and lower on noisy Waveform
        (88 -> 85%); C=0.3 is lower almost everywhere. Raise C on a non-linear problem with
        clean labels.
    class_weight : None, "balanced" or dict {label: weight > 0}, default=None
        Multiplies C for the examples of a class (SVC's ``class_weight``): each binary
        problem's box is ``C * w`` on each side, the rest of one-vs-rest taking the mean
        weight of its classes. "balanced" is ``n / (k n_c)`` from the rows counted so far
        (``class_counts_``: ``fit`` counts all of ``y``; ``partial_fit`` counts each chunk
        before learning it); an example keeps the box it was inserted with.
        ``sample_weight`` is refused (one box per side). ``docs/imbalanced.md``.
    kernel, gamma, degree, coef0 : as in :class:`sklearn.svm.SVC` (``kernel="rbf"``,
        ``gamma="scale"``, fixed as ``gamma_`` from the first data: ``docs/design.md``).
    tau : float, default=0.001
        Tolerance of the tau-violating pairs (the paper's value).
    epochs : int, default=1
        Passes of online iterations that ``fit`` makes before the finishing step (LASVM×k).
    selection : {"random", "gradient", "active", "autoactive"}, default="random"
        How each iteration picks its example among those of the epoch (or chunk) not yet
        processed: in order (``shuffle`` decides the order); the smallest ``y y(x)`` among
        ``n_candidates`` random ones (eq. 12); the smallest ``|y(x)|`` among them (eq. 13);
        or sampling until 5 lie within ``1 + delta/2`` of the boundary, at most 100.
    n_candidates : int, default=50
        M, the sample size of GRADIENT and ACTIVE selection.
    n_seed : int, default=5
        The first examples of each class seed S (alpha = 0) before PROCESS starts for them.
    delta_max : float or None, default=None
        Section 3.5's variant: after PROCESS, repeat REPROCESS until ``delta < delta_max``
        (None: a single REPROCESS).
    finishing : bool, default=True
        Whether ``fit`` (and ``finish()``) run the finishing step.
    finishing_selection : {"second-order", "first-order"}, default="second-order"
        How each direction search of the finishing step picks its pair. Both stop at the
        same point (no tau-violating pair left in S). "first-order" is REPROCESS as the
        paper writes it (the most violating pair); "second-order" keeps its ``i`` and takes
        the ``j`` of largest gain ``(g_i - g_j)^2 / (K_ii + K_jj - 2 K_ij)`` (Fan, Chen &
        Lin 2005, as LIBSVM does): on Banana (C = 316) 80 thousand pair steps instead of
        870 thousand. The online REPROCESS is always first-order.
    cache_size : float, default=100
        Kernel cache budget in MB (per binary problem), at most the machine's physical
        memory (refused above it, naming the bytes it would ask for).
    shuffle : bool, default=False
        Visit the examples of each ``fit`` epoch in a random order (the paper shuffles);
        False keeps the given order.
    random_state : int or None
        Seeds the shuffles and the candidate sampling.
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
    n_support_vectors_, n_bounded_support_vectors_, n_expansion_ : counts.
    n_kernel_evals_, cache_hits_, cache_misses_ : kernel-evaluation counters.
    support_vectors_, dual_coef_, intercept_ : the two-class model (eq. 2).
    delta_ : float, the last delta of eq. 10 (per binary problem for more classes).

    Examples
    --------
    >>> from streamsvm import LASVM
    >>> from streamsvm.datasets import make_checkerboard
    >>> X, y = make_checkerboard(2000, random_state=0)
    >>> model = LASVM(C=10.0, gamma=1.0).fit(X[:1500], y[:1500])
    >>> model.score(X[1500:], y[1500:]) > 0.9
    True
    """

    _order_sensitive = True  # sorted labels: streamsvm.base.order

    _finish_compiles = True  # LASVM's finishing step

    _learner_params = ()
    _parameter_constraints = {
        **_KernelSVMBase._parameter_constraints,
        "selection": [Options(*SELECTIONS)],
        "n_candidates": [Interval(Integral, 1, None)],
        "n_seed": [Interval(Integral, 0, None)],
        "delta_max": [IsNone(), Interval(Real, 0, None, closed="neither")],
        "finishing": [Boolean()],
        "finishing_selection": [Options("second-order", "first-order")],
    }
    _test_params = [
        {"gamma": 0.2},
        {"selection": "active", "n_candidates": 10, "random_state": 0, "C": 10.0, "epochs": 2,
         "delta_max": 1.0, "cache_size": 0.05},
    ]

    def __init__(self, *, C=1.0, kernel="rbf", gamma="scale", degree=3, coef0=0.0, tau=1e-3,
                 epochs=1, selection="random", n_candidates=50, n_seed=5, delta_max=None,
                 finishing=True, finishing_selection="second-order", cache_size=100.0,
                 shuffle=False, random_state=None, class_weight=None, verbose=0, n_jobs=None):
        keep_params(self, locals())

    def _learner_options(self):
        return {
            "selection": SELECTIONS[self.selection],
            "n_candidates": self.n_candidates,
            "n_seed": self.n_seed,
            "delta_max": 0.0 if self.delta_max is None else float(self.delta_max),
            "finishing": bool(self.finishing),
            "second_order": self.finishing_selection == "second-order",
        }

    @property
    def _chunk_invariant(self) -> bool:
        """Random selection in stream order gives the same model however the stream is cut
        (unless gamma='scale' is fixed from the first chunk)."""
        return self.selection == "random" and super()._chunk_invariant

    @property
    def delta_(self):
        self._check_fitted()
        deltas = np.array([learner.st[_expansion.DELTA] for learner in self.learners_])
        return float(deltas[0]) if deltas.shape[0] == 1 else deltas
