"""Blurred Ball SVM: the streaming SVM of Nathan & Raghvendra ("Accurate Streaming Support
Vector Machines", 2014) over Agarwal & Sharathkumar's blurred ball cover.

Every example is the augmented point ``p = [y φ(x); y; C^{-1/2} e]`` of the Core Vector
Machine (section 3, with the bias coordinate y); the L2-SVM with bias is the minimum enclosing
ball (MEB) of these points. Training (Algorithm 1) keeps a few balls, each the MEB of a small
core set of input points: a point outside the (1+ε)-expansion of every kept ball makes a new
ball, the MEB of the buffered points and the core sets of the kept balls, and balls smaller
than ε/4 of the new one are dropped. Classification (Algorithm 2) lets the balls that contain
a point vote with their distances to their hyperplanes.

What "MEB of {B} ∪ cores" means (line 8). The cover is made of core *sets*: the new ball is
the MEB of the buffer and of the kept balls' core points, not of the kept balls themselves.
Were it the MEB of the kept balls, it would contain each of them, B_j ⊂ B_new, hence
‖c_j − c_new‖ + (1+ε) r_j ≤ r_new + ε r_j ≤ (1+ε) r_new, i.e. (1+ε)B_j ⊂ (1+ε)B_new: the newest
ball alone would decide coverage, every other ball would be redundant, and the method would
be StreamSVM's single ball (a 3/2-approximation) instead of the (1+√3)/2 cover. With core sets
each ball is the MEB of actual input points, which is what the cover's analysis uses.

Why dropping a ball never uncovers a point (used by the tests): a dropped ball B_i has
r_i < ε r_new / 4, its centre lies in conv(K_i) ⊂ B_new (K_i was enclosed), so every point q of
(1+ε)B_i has ‖q − c_new‖ ≤ r_new + (1+ε) ε r_new / 4 ≤ (1+ε) r_new for ε ≤ 3.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp

from ..base import BinaryLearner, StreamClassifier
from ..base.support import summed_over_learners
from ..input.validation import check_features, check_labels, feature_names_of
from ..kernels import (
    KERNEL_CODES,
    KERNEL_NAMES,
    LINEAR,
    Kernel,
    dense_blocks,
    kernel_parameter_constraints,
)
from ..kernels._core import threads_par
from ..kernels.spec import psd_kernel_rule
from ..qp import meb_of_points
from ..utils.params import N_JOBS, VERBOSE, Boolean, Interval, IsNone, Options, keep_params
from ..utils.threads import compiled_threads
from . import _blurred_core
from ._blurred_cover import _CoverOfBalls
from .streamsvm import MEB_WEIGHTING_REFUSAL, _CentredOnFirstChunk, map_rows

__all__ = ["BlurredBallSVM"]

CLASSIFIERS = ("blurred", "union", "last")


class _BlurredBallLearner(_CoverOfBalls, BinaryLearner):
    """The blurred ball cover of one two-class problem.

    State (all NumPy arrays, capacity-doubled):

    * core points (the union of the kept balls' core sets): ``pool_X`` (prepared rows),
      ``pool_y``, ``pool_sq`` (‖x‖²), ``pool_self`` (raw k(x, x)), ``pool_index`` (position in
      the stream), ``pool_K`` (their augmented Gram: y_i y_j (k_ij + 1) + δ_ij / C);
    * balls, oldest first: ``radius``, ``cnorm2`` (‖c_B‖²), the centre's coefficients over core
      points in CSR form ``ball_ptr``, ``ball_slot``, ``ball_coef``; for the linear kernel also
      ``W`` (Σ a y x) and ``bias`` (Σ a y), so that p·c_B = y (x·W_B + b_B);
    * the lookahead buffer ``buf_*``.
    """

    _transient = ("_union",)
    #: the pool's per-point arrays, saved up to ``n_pool`` (their later rows are written before
    #: they are read); ``pool_K`` is saved as its ``n_pool`` x ``n_pool`` block likewise
    _spare_capacity = ("pool_X", "pool_y", "pool_sq", "pool_self", "pool_index")

    def __init__(self, n_features, rng, *, epsilon, C, lookahead, tol, jit_kernel):
        super().__init__(n_features, rng)
        self.epsilon = float(epsilon)
        self.inv_C = 0.0 if math.isinf(C) else 1.0 / float(C)
        self.lookahead = int(lookahead)
        self.tol = float(tol)
        self.code, self.gamma, self.degree, self.coef0, self.normalized = jit_kernel
        self.linear = self.code == LINEAR
        d = n_features
        self.n_pool = 0
        self.pool_X = np.zeros((16, d))
        self.pool_y = np.zeros(16)
        self.pool_sq = np.zeros(16)
        self.pool_self = np.zeros(16)
        self.pool_index = np.zeros(16, dtype=np.int64)
        self.pool_K = np.zeros((16, 16))
        self.n_balls = 0
        self.radius = np.zeros(8)
        self.cnorm2 = np.zeros(8)
        self.ball_ptr = np.zeros(9, dtype=np.int64)
        self.ball_slot = np.zeros(32, dtype=np.int64)
        self.ball_coef = np.zeros(32)
        self.W = np.zeros((8, d if self.linear else 0))
        self.bias = np.zeros(8)
        capacity = max(self.lookahead, 1)
        self.buf_X = np.zeros((capacity, d))
        self.buf_y = np.zeros(capacity)
        self.buf_index = np.zeros(capacity, dtype=np.int64)
        self.buf_covered = np.zeros(capacity, dtype=np.bool_)
        self.n_buf = 0
        self.n_updates = 0
        self.n_dropped = 0
        self.n_kernel_evals = 0
        self.max_balls = 0
        self.max_core = 0
        self._union = None

    def _rows_in_use(self) -> dict[str, int]:
        return dict.fromkeys(self._spare_capacity, int(self.n_pool))

    def _persist_state(self) -> dict:
        """The base class's state (the pool's arrays cut to the ``n_pool`` points in use),
        with the pool's Gram cut likewise to its ``n_pool`` x ``n_pool`` block; loading pads
        it back to the capacity of ``pool_X``."""
        state = super()._persist_state()
        used = int(self.n_pool)
        if used < self.pool_K.shape[0]:
            state["pool_K"] = self.pool_K[:used, :used].copy()
        return state

    def _restore_transient(self):
        super()._restore_transient()
        K, X = self.pool_K, self.pool_X
        capacity = X.shape[0] if isinstance(X, np.ndarray) and X.ndim == 2 else 0
        if isinstance(K, np.ndarray) and K.ndim == 2 and K.shape[0] < capacity:
            if K.dtype != np.float64 or K.shape != (self.n_pool, self.n_pool):
                raise ValueError("the saved pool Gram does not fit the saved pool")
            full = np.zeros((capacity, capacity))
            full[: K.shape[0], : K.shape[0]] = K
            self.pool_K = full
        self._union = None

    def _check_restored(self) -> None:
        """Raise ValueError unless the pool, the balls and the buffer (e.g. read from a model
        file) agree in size and every ball points at pool slots that exist."""
        d, P, B = self.n_features, self.pool_X.shape[0], self.radius.shape[0]
        capacity = max(self.lookahead, 1)
        ok = (
            self.pool_X.shape == (P, d) and self.pool_K.shape == (P, P)
            and all(getattr(self, name).shape == (P,)
                    for name in ("pool_y", "pool_sq", "pool_self", "pool_index"))
            and self.cnorm2.shape == (B,) and self.bias.shape == (B,)
            and self.ball_ptr.shape == (B + 1,)
            and self.W.shape == (B, d if self.linear else 0)
            and self.ball_slot.ndim == 1 and self.ball_slot.shape == self.ball_coef.shape
            and self.buf_X.shape == (capacity, d)
            and all(getattr(self, name).shape == (capacity,)
                    for name in ("buf_y", "buf_index", "buf_covered"))
            and 0 <= self.n_pool <= P and 0 <= self.n_balls <= B and 0 <= self.n_buf <= capacity
            and self.code in KERNEL_NAMES and self.linear == (self.code == KERNEL_CODES["linear"])
            and math.isfinite(self.tol) and self.tol > 0 and self.inv_C >= 0
        )
        if not ok:
            raise ValueError("the pool, balls and buffer disagree in size")
        ptr = self.ball_ptr[: self.n_balls + 1]
        nnz = int(ptr[-1])
        slots = self.ball_slot[:nnz]
        if (ptr[0] != 0 or (np.diff(ptr) < 0).any() or nnz > self.ball_slot.shape[0]
                or ((slots < 0) | (slots >= self.n_pool)).any()):
            raise ValueError("the balls point at pool slots that do not exist")
        self._check_pool_values(nnz)

    def _check_pool_values(self, nnz: int) -> None:
        """The pool's values (e.g. an edited file): labels ±1, the balls' coefficients
        finite and >= 0, and the pool's augmented Gram block and squared norms those of
        its rows (an edited row or Gram entry made the next ``partial_fit`` find G not
        positive semi-definite), within rounding."""
        n = int(self.n_pool)
        X, y = self.pool_X[:n], self.pool_y[:n]
        coef = self.ball_coef[:nnz]
        if not (((y == 1.0) | (y == -1.0)).all() and np.isfinite(coef).all()
                and (coef >= 0).all()):
            raise ValueError("the pool's labels or the balls' coefficients are out of range")
        if n == 0:
            return
        with np.errstate(over="ignore", invalid="ignore"):
            K = self.kernel().matrix(X) if not self.linear else X @ X.T
            G = (y[:, None] * y[None, :]) * (K + 1.0)  # as augmented_cross, without counting
            G[np.diag_indices(n)] += self.inv_C
            sq = np.einsum("ij,ij->i", X, X)
            scale = np.sqrt(np.abs(np.diag(G)))
            slack = 1e-7 * np.outer(scale, scale) + 1e-300
            ok = (
                np.isfinite(G).all()
                and (np.abs(self.pool_K[:n, :n] - G) <= slack).all()
                and np.allclose(self.pool_sq[:n], sq, rtol=1e-9, atol=0.0)
            )
        if not ok:
            raise ValueError("the pool's Gram block or squared norms are not those of its "
                             "rows")

    # ------------------------------------------------------------------ kernel helpers
    def kernel(self) -> Kernel:
        return Kernel.from_jit_params(self.code, self.gamma, self.degree, self.coef0,
                                      self.normalized)

    def augmented_cross(self, A, ya, B, yb, *, count=False):
        """y_a y_b (k(a, b) + 1): inner products of augmented points without their e-parts."""
        K = A @ B.T if self.linear else self.kernel().matrix(A, B)
        if count and not self.linear:
            self.n_kernel_evals += K.size
        return (ya[:, None] * yb[None, :]) * (K + 1.0)

    # ------------------------------------------------------------------ training
    def partial_fit(self, X, y):
        for dense, labels in dense_blocks(X, y):
            self._scan(np.ascontiguousarray(dense), labels)
            self.n_seen += dense.shape[0]

    def _scan(self, X, y):
        expand2 = (1.0 + self.epsilon) ** 2
        position = 0
        sq = None if self.linear else np.einsum("ij,ij->i", X, X)
        while position < X.shape[0]:
            if self.linear:
                position, self.n_buf, flush = _blurred_core.scan_linear(
                    X, y, position, self.n_seen, self.W, self.bias, self.radius,
                    self.cnorm2, self.n_balls, expand2, self.inv_C, self.buf_X,
                    self.buf_y, self.buf_index, self.buf_covered, self.n_buf,
                )
            else:
                row = np.empty(self.pool_X.shape[0])
                position, self.n_buf, flush, evals = _blurred_core.scan_kernel(
                    X, sq, y, position, self.n_seen, self.pool_X, self.pool_sq,
                    self.pool_self, self.pool_y, self.n_pool, self.ball_ptr, self.ball_slot,
                    self.ball_coef, self.radius, self.cnorm2, self.n_balls, expand2,
                    self.inv_C, self.code, self.gamma, self.degree, self.coef0,
                    self.normalized, row, self.buf_X, self.buf_y, self.buf_index,
                    self.buf_covered, self.n_buf, threads_par(),
                )
                self.n_kernel_evals += int(evals)
            if flush:
                self._new_ball()

    def finish(self):
        """End of stream: a partly filled buffer with an uncovered point makes a last ball."""
        if self.n_buf and bool(np.any(~self.buf_covered[: self.n_buf])):
            self._new_ball()
        self.n_buf = 0

    def _new_ball(self):
        """Algorithm 1, lines 8–10: B = MEB(buffer ∪ core points of the kept balls), its core set
        the points of positive weight; drop the balls with radius < ε/4 · r(B); free the core
        points no kept ball refers to."""
        M, k = self.n_pool, self.n_buf
        m = M + k
        bx, by = self.buf_X[:k], self.buf_y[:k]
        G = np.empty((m, m))
        G[:M, :M] = self.pool_K[:M, :M]
        if M:
            cross = self.augmented_cross(self.pool_X[:M], self.pool_y[:M], bx, by, count=True)
            G[:M, M:] = cross
            G[M:, :M] = cross.T
        G[M:, M:] = self.augmented_cross(bx, by, bx, by, count=True)
        G[M:, M:][np.diag_indices(k)] += self.inv_C
        init = None
        if self.n_balls:  # warm start from the newest ball
            init = np.zeros(m)
            b = self.n_balls - 1
            s, e = self.ball_ptr[b], self.ball_ptr[b + 1]
            init[self.ball_slot[s:e]] = self.ball_coef[s:e]
            init[M:] += 1.0 / m
        ball = meb_of_points(G, tol=self.tol, init=init)
        support = np.flatnonzero(ball.weights > 0.0)
        old = support[support < M]
        new = support[support >= M]
        # new core points enter the pool
        n_new = new.shape[0]
        self._ensure_pool(M + n_new)
        slots = np.concatenate([old, np.arange(M, M + n_new)])
        self.pool_X[M : M + n_new] = bx[new - M]
        self.pool_y[M : M + n_new] = by[new - M]
        self.pool_sq[M : M + n_new] = np.einsum("ij,ij->i", bx[new - M], bx[new - M])
        if not self.linear:
            self.pool_self[M : M + n_new] = self.kernel().self_values(bx[new - M])
        else:
            self.pool_self[M : M + n_new] = self.pool_sq[M : M + n_new]
        self.pool_index[M : M + n_new] = self.buf_index[new - M]
        keep_rows = np.concatenate([np.arange(M), new])
        self.pool_K[: M + n_new, : M + n_new] = G[np.ix_(keep_rows, keep_rows)]
        self.n_pool = M + n_new
        coef = ball.weights[support]
        self._append_ball(slots, coef, ball.radius, ball.centre_sq_norm)
        self._drop_small_balls(ball.radius)
        self.n_buf = 0
        self.n_updates += 1
        self.max_balls = max(self.max_balls, self.n_balls)
        self.max_core = max(self.max_core, self.n_pool)
        self._union = None

    def decision_function(self, X):
        return self.decision(X, "blurred")


class BlurredBallSVM(_CentredOnFirstChunk, StreamClassifier):
    """Streaming L2-SVM by a blurred ball cover (Nathan & Raghvendra, Algorithms 1 and 2).

    Each example becomes ``[y φ(x); y; C^{-1/2} e]`` (section 3); the SVM with bias is the
    minimum enclosing ball of these points. The model keeps several balls, each the exact MEB
    of a small core set of examples; a point outside the (1+ε)-expansion of every ball (or, with
    a lookahead, a buffer of L points holding one) adds the MEB of the buffer and all kept core
    points as a new ball, and balls smaller than ε/4 of it are dropped. Prediction (Algorithm 2)
    sums, over the balls containing ``p = φ̄(x, +1)`` and over those containing ``−p``, the
    distances to their hyperplanes, and takes the sign of the difference: a non-convex
    combination of linear (or kernel) separators.

    Choose it for the most accurate one-pass MEB-based SVM (Table 1 of the paper: above
    StreamSVM, and on MNIST above batch libSVM); memory is the kept core points, which stays
    bounded in ε but is larger than StreamSVM's single ball.

    Parameters
    ----------
    epsilon : float, default=1e-3
        Expansion of the cover: a point within (1+ε) of a kept ball is not learnt. The paper:
        1e-3 (MNIST), 1e-6 (IJCNN). Smaller ε, more balls and core points.
    C : float, default=3.0
        Slack cost (eq. 3.1); ``np.inf`` is the hard-margin SVM (the paper's MNIST setting;
        the paper uses 1e5 on IJCNN). Chosen because hard-margin balls of data that are not
        separable shrink towards the origin and the cover stops learning after a few dozen
        balls: one pass (ε = 1e-3, lookahead 0, mean of 3 orders) gives on IJCNN 84.3% with
        C = ∞ (the previous default), 86.0% with 100, 90.5% with 10, 90.7% with 3 and 90.6%
        with 1 (the paper: 89.64 / 90.82 with its ε = 1e-6, C = 1e5, which give 82.9 / 85.9
        here); on raw Adult 77.4, 78.3, 79.4, 81.9, 83.1%; on MNIST 8 vs 9 96.8, 96.8, 97.1,
        97.2, 97.3%; C = 1 costs 6-10 times the CPU time of C = 3 (more balls and core
        points), C = 3 4-8 times that of C = ∞ (``benchmarks/results/defaults_blurred.md``).
    lookahead : int, default=10
        Algorithm 1's L: points are buffered L at a time, and a buffer holding an uncovered
        point becomes part of one new ball. 0 (and 1) process each point at once; the paper
        uses 0 and 10. Chosen because, with C = 3, 10 is more accurate on every dataset
        measured (IJCNN 90.7 → 90.8%, raw Adult 81.9 → 83.1%, MNIST 8 vs 9 97.2 → 97.8%, w3a
        97.35 → 97.4%) and lifts scikit-learn's diabetes table (progression > 250, file
        order, standardised) from 0.53 to 0.59 balanced accuracy, for 1-6 times the CPU time
        (``benchmarks/results/defaults_blurred.md``).
    classifier : {"last", "blurred", "union"}, default="last"
        "blurred" is Algorithm 2 (Definitions 1–2; where no ball contains p or −p it falls
        back to the mean signed distance to the balls' hyperplanes); "union" is the
        hyperplane of the MEB of all kept balls (the cover's MEB approximation); "last" is the
        newest ball's hyperplane (the MEB of the buffer and of every kept core point, so the
        one ball that has seen the whole cover). Chosen because Algorithm 2 lets every kept
        ball vote, and with ε = 1e-3 almost no ball is ever dropped, so the many early balls
        built from the first few dozen examples outvote the newest one and the votes side
        with the majority class on imbalanced tables: in the defaults study
        (``benchmarks/results/defaults.md``) "blurred" gave balanced accuracy 55.0 / 50.0 on
        scikit-learn's diabetes table (progression > 250; file order / shuffled) and
        57.7 / 50.9 on w3a, "last" 72.9 / 69.7 and 76.2 / 78.8 (LinearSVC 73.3 and 80.0);
        over the study's 14 problems other than Reuters, "last" has no pair more than 8 pt
        below LinearSVC (6 with "blurred") and a mean of 78.0% (74.4%). On the papers'
        datasets with C = 3 and lookahead 10 (one pass, test accuracy, mean of 3 orders) the
        two are within a point: IJCNN 90.83 → 90.68%, raw Adult 83.06 → 83.11%, w3a
        97.40 → 98.04%, MNIST 8 vs 9 97.80 → 97.85%. The paper's tables pin
        ``classifier="blurred"``.
    kernel : {"linear", "rbf", "poly"}, default="linear"
        ``gamma`` (default ``'scale'``, fixed from the raw features of the first chunk,
        before centring: ``docs/design.md``), ``degree``, ``coef0`` (>= 0) as in
        scikit-learn. poly is normalised (``normalize``) so that k(x, x) is constant, as the
        MEB equivalence needs. The balls are solved over the pool's Gram matrix, which must
        be positive semi-definite: ``'sigmoid'``, and ``'poly'`` with ``coef0 < 0``, are
        refused by the parameter check.
    gamma : float, 'scale' or 'auto', default='scale'
        Kernel coefficient of ``rbf``, ``poly`` and ``sigmoid`` as in scikit-learn, fixed from
        the raw features of the first chunk (``gamma_``).
    degree : int, default=3
        Degree of ``poly``.
    coef0 : float, default=0.0
        Independent term of ``poly`` and ``sigmoid`` (>= 0 here).
    normalize : bool, default=True
        Scale rows to unit norm (linear kernel; the other kernels are normalised in kernel
        space).
    center : {"auto", True, False}, default="auto"
        Subtract the mean of the first chunk ("auto": dense input only), as StreamSVM does:
        the separators pass through the origin of the augmented space.
    tol : float or None, default=None
        Relative accuracy of each new ball's MEB solve; None is ε/100 (well below ε).
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
    n_balls_ : int (or array, one per one-vs-rest learner), balls kept.
    radii_ : ndarray (or list of them), radii of the kept balls, oldest first.
    core_set_sizes_ : ndarray (or list), core points of each kept ball.
    n_core_points_ : int, distinct core points stored (the union of the core sets).
    mean_ : ndarray or None, the centring mean (from the first chunk).
    gamma_ : float or None, the kernel's gamma (None for the linear kernel).
    n_updates_ : int, balls added so far; ``n_dropped_``: balls dropped.
    union_radius_ : float (or array), radius of the MEB of the kept balls.

    Examples
    --------
    >>> from streamsvm import BlurredBallSVM
    >>> from streamsvm.datasets import make_synthetic_a
    >>> X, y = make_synthetic_a(3000, random_state=0)
    >>> model = BlurredBallSVM(epsilon=1e-2, C=10.0).fit(X, y)
    >>> model.score(X, y) > 0.9, model.n_balls_ >= 1
    (True, True)
    """

    _learner_class = _BlurredBallLearner
    _weighting_refusal = MEB_WEIGHTING_REFUSAL
    _parameter_constraints = {
        "verbose": VERBOSE,
        "n_jobs": N_JOBS,
        "epsilon": [Interval(Real, 0, 1, closed="right")],
        "C": [Interval(Real, 0, math.inf, closed="right")],
        "lookahead": [Interval(Integral, 0, None)],
        "classifier": [Options(*CLASSIFIERS)],
        **kernel_parameter_constraints(
            psd_why="the enclosing-ball solves over the pool's Gram matrix need"),
        "normalize": [Boolean()],
        "center": [Options("auto", True, False)],
        "tol": [IsNone(), Interval(Real, 0, 1, closed="neither")],
    }
    _parameter_rules = (psd_kernel_rule,)
    # Memory is bounded in ε, not by a fixed budget: each new ball is at least
    # sqrt(1 + ε²(2+ε)²/(4(1+ε)²)) times the newest one (tests/meb/test_blurred.py) and radii are
    # at most κ, so the number of updates is bounded independently of n, but the cover grows
    # until it settles; the harness's fixed-budget check does not apply.
    _bounded_memory = False
    _test_params = [
        {"epsilon": 0.01, "C": 10.0},
        {"epsilon": 0.01, "C": 10.0, "lookahead": 5, "center": False},
        {"epsilon": 0.01, "C": 10.0, "kernel": "rbf", "classifier": "last"},
    ]

    def __init__(
        self,
        *,
        epsilon=1e-3,
        C=3.0,
        lookahead=10,
        classifier="last",
        kernel="linear",
        gamma="scale",
        degree=3,
        coef0=0.0,
        normalize=True,
        center="auto",
        tol=None,
        verbose=0,
        n_jobs=None,
    ):
        keep_params(self, locals())

    @property
    def _tol(self) -> float:
        return float(self.tol) if self.tol is not None else max(self.epsilon / 100.0, 1e-12)

    def _make_learner(self):
        rng = np.random.default_rng([self._seed_entropy, self._n_learners_made])
        self._n_learners_made += 1
        return _BlurredBallLearner(
            self.n_features_in_, rng, epsilon=self.epsilon, C=float(self.C),
            lookahead=self.lookahead, tol=self._tol, jit_kernel=self._meb_jit_kernel,
        )

    # ------------------------------------------------------------------ preprocessing
    def _prepare(self, X):
        """Centre and, for the linear kernel, scale rows to unit norm (k(x, x) = 1)."""
        return map_rows(X, self.mean_, False, bool(self.normalize) and self.kernel == "linear")

    # ------------------------------------------------------------------ prediction
    def decision_function(self, X):
        """Scores of the chosen ``classifier``: S(p) − S(−p) for "blurred" (Algorithm 2),
        the signed distance to the hyperplane for "union" and "last"; positive means
        ``classes_[1]``. Shape (n,) for two classes, (n, K) one-vs-rest."""
        return self._decision(X, self.classifier)

    def decision_function_of(self, X, classifier):
        """Scores of any of the classifiers ("blurred", "union", "last") of the fitted cover,
        whatever ``classifier`` is set to (e.g. to compare them on one model)."""
        if classifier not in CLASSIFIERS:
            raise ValueError(
                f"classifier must be one of {', '.join(map(repr, CLASSIFIERS))}; "
                f"got {classifier!r}"
            )
        return self._decision(X, classifier)

    def _learner_scores(self, learner, X):
        """The chosen ``classifier``'s scores (the calibration's, as ``decision_function``)."""
        return learner.decision(X, self.classifier)

    def _decision(self, X, classifier):
        self._check_fitted()
        self._check_feature_names(feature_names_of(X))
        X, sqnorms = check_features(X, n_features=self.n_features_in_, accept_sparse=True,
                                    estimator_name=self._name, return_sqnorms=True)
        self._check_row_norms(X, sqnorms)
        X = self._prepare(X)
        with compiled_threads(self.n_jobs):
            scores = [
                sign * learner.decision(X, classifier)
                for learner, sign in zip(self.learners_, self._signs, strict=True)
            ]
        return scores[0] if len(scores) == 1 else np.column_stack(scores)

    # ------------------------------------------------------------------ the cover
    def _per_learner(self, fn):
        self._check_fitted()
        values = [fn(learner) for learner in self.learners_]
        return values[0] if len(values) == 1 else values

    @property
    def n_balls_(self):
        value = self._per_learner(lambda lr: lr.n_balls)
        return value if isinstance(value, int) else np.array(value)

    @property
    def radii_(self):
        return self._per_learner(lambda lr: lr.radius[: lr.n_balls].copy())

    @property
    def core_set_sizes_(self):
        return self._per_learner(lambda lr: lr.core_set_sizes())

    n_core_points_ = summed_over_learners("n_pool", "Distinct core points stored.")
    n_updates_ = summed_over_learners("n_updates", "Balls added so far.")
    n_dropped_ = summed_over_learners("n_dropped", "Balls dropped so far.")
    n_kernel_evals_ = summed_over_learners("n_kernel_evals", "Kernel values computed.")

    @property
    def union_radius_(self):
        value = self._per_learner(lambda lr: lr.union_ball()[1] if lr.n_balls else 0.0)
        return value if isinstance(value, float) else np.array(value)

    def approximation_ratio(self, X, y):
        """r(MEB of the kept balls) / r(exact MEB of the augmented points of ``X, y``).

        ``X, y`` must be the examples the model has learnt (e.g. the data passed to ``fit``);
        the exact MEB is solved in Gram form (O(n²) memory), so ``X`` may have at most 5000
        rows. Agarwal & Sharathkumar bound the ratio by (1+√3)/2 + ε (Chan & Pathak: < 1.22).
        Returns a float (an array, one per learner, for more than two classes).
        """
        self._check_fitted()
        X = check_features(X, n_features=self.n_features_in_, accept_sparse=True,
                           estimator_name=self._name)
        y = check_labels(y, X.shape[0])
        if X.shape[0] > 5000:
            raise ValueError(
                f"approximation_ratio solves the exact MEB of all {X.shape[0]} examples in "
                "Gram form; pass at most 5000"
            )
        unknown = np.setdiff1d(np.unique(y), self.classes_)
        if unknown.size:
            raise ValueError(f"y contains labels {unknown.tolist()} the model has not seen")
        X = self._prepare(X)
        dense = X.toarray() if sp.issparse(X) else X
        ratios = []
        for learner, target, sign in zip(self.learners_, self._targets, self._signs,
                                         strict=True):
            yb = np.where(y == target, sign, -sign).astype(np.float64)
            G = learner.augmented_cross(dense, yb, dense, yb)
            G[np.diag_indices_from(G)] += learner.inv_C
            exact = meb_of_points(G, tol=1e-12).radius
            ratios.append(learner.union_ball()[1] / exact if exact > 0 else 1.0)
        return ratios[0] if len(ratios) == 1 else np.array(ratios)
