"""Small simplex-constrained problems in Gram form: min-norm point and enclosing balls.

Only inner products are needed, so every function takes the Gram matrix ``G`` of the points
(or ball centres), ``G[i, k] = p_i · p_k``, and returns convex weights ``λ`` over them; the
point or centre they describe is ``Σ λ_i p_i``. This works unchanged in a kernel's feature
space and in the augmented spaces of the MEB-based SVMs (see :func:`augmented_gram`).

Tolerances and certificates (``scale = max_i G_ii``):

* :func:`min_norm_point` stops when ``λᵀGλ − min_i (Gλ)_i ≤ tol · scale`` (the optimality
  condition of min ‖x‖² over the hull, up to ``tol``).
* :func:`meb_of_points` and :func:`meb_of_balls_and_points` return the radius of the ball about
  the returned centre that *encloses* every input, together with a lower bound on the optimal
  radius computed from the dual; on convergence ``radius ≤ (1 + tol) · lower_bound``.

Below about ``256 ε · scale`` in squared distance (ε the machine epsilon) Gram-form distances
are rounding noise, so a relative tolerance finer than that cannot be certified (the solvers
then stop with a :class:`~sklearn.exceptions.ConvergenceWarning` naming the bounds reached).
The enclosing-ball solvers centre the Gram matrix on the centroid internally, so a cloud far
from the origin costs only the rounding already present in G.

For use inside ``@njit`` code, call the cores in :mod:`streamsvm.qp._core` directly
(``min_norm_point_core``, ``meb_of_points_core``, ``meb_of_balls_core``, ``simplex_qp``): they
take float64 C-contiguous arrays, skip validation and return tuples with an integer status.
"""

from __future__ import annotations

import numbers
import warnings
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from . import _core

__all__ = [
    "MinNormResult",
    "BallResult",
    "min_norm_point",
    "meb_of_points",
    "meb_of_balls_and_points",
    "augmented_gram",
    "combined_extra_sq_norm",
]

_MAX_OUTER = 100
_SYMMETRY_TOL = 1e-10


class MinNormResult(NamedTuple):
    """Result of :func:`min_norm_point`.

    weights : (m,) convex weights λ; the point is x = Σ λ_i p_i.
    sq_norm : ‖x‖² = λᵀGλ.
    gap : ‖x‖² − min_i x·p_i ≥ 0; at the optimum it is 0, and ½(‖x‖² − ‖x*‖²) ≤ gap.
    lower_bound : a certified lower bound on ‖x*‖², max(‖x‖² − 2 gap, (min_i x·p_i)₊²/‖x‖²).
    n_iter : active-set cycles used.
    converged : whether gap ≤ tol · max_i G_ii was reached.
    """

    weights: np.ndarray
    sq_norm: float
    gap: float
    lower_bound: float
    n_iter: int
    converged: bool


class BallResult(NamedTuple):
    """Result of :func:`meb_of_points` and :func:`meb_of_balls_and_points`.

    weights : (m,) convex weights λ; the centre is c = Σ λ_j c_j.
    radius : max_j ‖c − c_j‖ + r_j, so the returned ball encloses every input ball / point.
    lower_bound : a certified lower bound on the optimal radius R* (from the dual).
    centre_sq_norm : ‖c‖² = λᵀGλ (StreamSVM keeps it as ‖w‖² + ξ²).
    n_iter : active-set cycles used (over all outer steps for balls).
    converged : whether radius ≤ (1 + tol) · lower_bound was certified.
    """

    weights: np.ndarray
    radius: float
    lower_bound: float
    centre_sq_norm: float
    n_iter: int
    converged: bool


def _check_gram(G, name="G"):
    try:
        G = np.asarray(G, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric matrix, got {type(G).__name__}") from exc
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"{name} must be a square 2-D Gram matrix, got shape {G.shape}")
    if G.shape[0] == 0:
        raise ValueError(f"{name} is empty: at least one point is needed")
    if not np.all(np.isfinite(G)):
        raise ValueError(f"{name} contains NaN or infinity")
    scale = float(np.max(np.abs(np.diag(G)), initial=0.0))
    asymmetry = float(np.max(np.abs(G - G.T)))
    if asymmetry > _SYMMETRY_TOL * max(scale, 1e-300):
        raise ValueError(
            f"{name} is not symmetric (largest |G - G.T| = {asymmetry:.3g}); "
            "a Gram matrix of inner products is"
        )
    if np.any(np.diag(G) < -_SYMMETRY_TOL * max(scale, 1e-300)):
        raise ValueError(
            f"{name} has a negative diagonal entry, so it is not positive semi-definite "
            "(the diagonal holds squared norms)"
        )
    G = 0.5 * (G + G.T)
    # Cauchy–Schwarz, a cheap necessary condition for PSD: |G_ik| ≤ sqrt(G_ii G_kk)
    norms = np.sqrt(np.maximum(np.diag(G), 0.0))
    excess = np.abs(G) - np.outer(norms, norms)
    if np.any(excess > _SYMMETRY_TOL * max(scale, 1e-300)):
        i, k = np.unravel_index(int(np.argmax(excess)), G.shape)
        raise ValueError(
            f"{name} is not positive semi-definite: |G[{i}, {k}]| exceeds "
            f"sqrt(G[{i}, {i}] * G[{k}, {k}]) (Cauchy-Schwarz)"
        )
    return np.ascontiguousarray(G)


def _check_tol(tol):
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real):
        raise TypeError(f"tol must be a real number, got {type(tol).__name__}")
    if not (np.isfinite(tol) and tol > 0):
        raise ValueError(f"tol must be positive and finite, got {tol!r}")
    return float(tol)


def _check_max_iter(max_iter, m):
    if max_iter is None:
        return 20 * m + 100
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral):
        raise TypeError(f"max_iter must be an integer, got {type(max_iter).__name__}")
    if max_iter < 1:
        raise ValueError(f"max_iter must be at least 1, got {max_iter}")
    return int(max_iter)


def _check_init(init, m):
    if init is None:
        return np.empty(0)
    init = np.asarray(init, dtype=np.float64)
    if init.shape != (m,):
        raise ValueError(f"init must have shape ({m},) like the Gram matrix, got {init.shape}")
    if not np.all(np.isfinite(init)) or np.any(init < 0) or not init.sum() > 0:
        raise ValueError("init must be finite, non-negative weights with a positive sum")
    return np.ascontiguousarray(init / init.sum())


def _check_radii(radii, m):
    try:
        radii = np.asarray(radii, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError("radii must be a 1-D array of numbers") from exc
    if radii.shape != (m,):
        raise ValueError(f"radii must have shape ({m},), one per centre in G, got {radii.shape}")
    if not np.all(np.isfinite(radii)):
        raise ValueError("radii contain NaN or infinity")
    if np.any(radii < 0):
        raise ValueError(f"radii must be non-negative, got minimum {radii.min():.6g}")
    return np.ascontiguousarray(radii)


def _check_problem(G, tol, max_iter, init):
    """Validate the arguments every solver takes: ``(G, tol, max_iter, lam0)``."""
    G = _check_gram(G)
    m = G.shape[0]
    return G, _check_tol(tol), _check_max_iter(max_iter, m), _check_init(init, m)


#: where a solver that did not reach ``tol`` stopped, by its status
_STOPPED = {_core.MAX_ITER: "at max_iter",
            _core.STALLED: "at the rounding level of the Gram matrix"}


def _raise_or_warn(status, what, detail, stacklevel=3):
    """Refuse a Gram matrix that is not PSD; warn (to the solver's caller) when the solver
    stopped before reaching ``tol``."""
    if status == _core.NOT_PSD:
        raise ValueError("G is not positive semi-definite (a negative pivot appeared)")
    if status in _STOPPED:
        warnings.warn(f"{what} stopped {_STOPPED[status]} before reaching tol; {detail}",
                      ConvergenceWarning, stacklevel=stacklevel)


def _ball_result(what, lam, radius, lower, centre_sq, n_iter, status) -> BallResult:
    """The :class:`BallResult` of a ball solver's compiled outputs, its status reported."""
    _raise_or_warn(status, what, f"radius = {radius:.17g}, lower bound = {lower:.17g}",
                   stacklevel=4)
    return BallResult(lam, float(radius), float(lower), float(centre_sq), int(n_iter),
                      status == _core.CONVERGED)


def min_norm_point(G, *, tol=1e-10, max_iter=None, init=None) -> MinNormResult:
    """Point of smallest norm in the convex hull of p_1..p_m, given G_ik = p_i·p_k.

    Solves min_λ λᵀGλ over λ ≥ 0, Σλ = 1 (the distributed L2-SVM tracker's problem,
    Chrysogelos (2016) with G = k̂). Optimality: (Gλ)_i ≥ λᵀGλ for all i, with equality where
    λ_i > 0.

    Solver: Wolfe's minimum-norm-point active-set method (see :mod:`streamsvm.qp._core`):
    finite, exact up to rounding, O(m·s + s²) per cycle with s the support size, a handful of
    cycles per support point. Frank–Wolfe variants were not chosen because they only
    approach a degenerate optimum linearly and would need a polishing step that is this
    method anyway.

    Parameters
    ----------
    G : (m, m) symmetric positive semi-definite array
    tol : float, stop when λᵀGλ − min_i (Gλ)_i ≤ tol · max_i G_ii
    max_iter : int, cap on active-set cycles (default 20 m + 100)
    init : (m,) non-negative weights to warm-start from (e.g. the previous solution)

    Examples
    --------
    The segment from (1, 1) to (1, -1) is closest to the origin at (1, 0):

    >>> import numpy as np
    >>> P = np.array([[1.0, 1.0], [1.0, -1.0]])
    >>> res = min_norm_point(P @ P.T)
    >>> res.weights.round(6).tolist(), round(res.sq_norm, 12)
    ([0.5, 0.5], 1.0)
    """
    G, tol, max_iter, lam0 = _check_problem(G, tol, max_iter, init)
    lam, sq_norm, gap, lower, n_iter, status = _core.min_norm_point_core(G, lam0, tol, max_iter)
    _raise_or_warn(status, "min_norm_point", f"gap = {gap:.3g}")
    return MinNormResult(
        lam, float(sq_norm), float(gap), float(lower), int(n_iter), status == _core.CONVERGED
    )


def meb_of_points(G, *, tol=1e-10, max_iter=None, init=None) -> BallResult:
    """Minimum enclosing ball of points p_1..p_m, given G_ik = p_i·p_k.

    Dual (CVM; StreamSVM, Rai et al. 2009, section 3): max_λ D(λ) = Σλ_i G_ii − λᵀGλ over the
    simplex; centre c = Σλ_i p_i. For every λ, D(λ) = Σλ_i ‖p_i − c‖² ≤ R*² ≤
    max_i ‖p_i − c‖², and the solver (the active-set method of :func:`min_norm_point` with a
    linear term) stops when max_i ‖p_i − c‖² ≤ (1 + tol)·D(λ).

    Returns a :class:`BallResult`: ``radius = max_i ‖p_i − c‖`` (the ball encloses every
    point) and ``lower_bound = sqrt(D(λ)) ≤ R*``, so radius ≤ (1 + tol)·R* on convergence.

    Examples
    --------
    Three corners of the unit square: the hypotenuse is a diameter.

    >>> import numpy as np
    >>> P = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> ball = meb_of_points(P @ P.T)
    >>> (ball.weights @ P).round(6).tolist(), round(ball.radius**2, 10)
    ([0.5, 0.5], 0.5)
    """
    G, tol, max_iter, lam0 = _check_problem(G, tol, max_iter, init)
    return _ball_result("meb_of_points", *_core.meb_of_points_core(G, lam0, tol, max_iter))


def meb_of_balls_and_points(G, radii, *, tol=1e-10, max_iter=None, init=None) -> BallResult:
    """Minimum enclosing ball of balls B(c_j, r_j), given the centres' Gram matrix G.

    R* = min_c max_j (‖c − c_j‖ + r_j); points are balls of radius 0. The optimal centre lies
    in conv{c_j} (projection onto the hull brings c closer to every c_j), so c = Σλ_j c_j
    with λ on the simplex. Used by StreamSVM's lookahead (old ball ∪ L buffered points,
    Rai et al. 2009, Algorithm 2), its multiple balls (section 4.3) and the Blurred Ball SVM
    (MEB of kept balls ∪ buffer, Nathan & Raghvendra 2014, Algorithm 1).

    Method: a parametric sequence of weighted MEB duals. For R ≥ max r_j, R is feasible iff
    max_λ Σλ_j s_j(R) − λᵀGλ ≤ R² with s_j(R) = G_jj − r_j² + 2R r_j. Each λ gives the lower
    bound R* ≥ ā + sqrt(ā² + V) (ā = Σλ_j r_j, V = Σλ_j(G_jj − r_j²) − λᵀGλ); starting at
    R₀ = max r_j, solving the weighted dual at R_k and setting R_{k+1} to that bound is a
    Newton step on a convex function, increasing monotonically to R* (quadratically near
    it). Every step's centre gives an enclosing radius; the loop stops when it is within
    (1 + tol) of the best lower bound. Details and the argument: :func:`._core.meb_of_balls_core`.

    Returns a :class:`BallResult` with ``radius = max_j ‖c − c_j‖ + r_j`` (exactly, for the
    returned weights) and ``lower_bound ≤ R*``.

    Augmented spaces: pass the Gram matrix of the *full* centres. When each centre is a
    feature part plus a part orthogonal to everything else (the ``C^{-1/2} e_n`` of a new point,
    or the ξ-part of StreamSVM's current centre, whose ``e_n`` are orthogonal to all new points'
    ``e_n``), that is the feature Gram plus a diagonal: see :func:`augmented_gram`. Centres whose
    extra parts overlap (two balls built from common core vectors) need the extra parts' inner
    products off the diagonal as well.

    Examples
    --------
    Discs of radii 1 and 2 with centres 4 apart: R = (4 + 1 + 2) / 2.

    >>> import numpy as np
    >>> centres = np.array([[0.0, 0.0], [4.0, 0.0]])
    >>> ball = meb_of_balls_and_points(centres @ centres.T, [1.0, 2.0])
    >>> round(ball.radius, 9), (ball.weights @ centres).round(9).tolist()
    (3.5, [2.5, 0.0])

    StreamSVM lookahead (Algorithm 2) with a linear kernel and C = 2: the current ball has
    centre [w; ξ-part] with ‖ξ-part‖² = ξ² and radius R; the buffered points are
    [y_n x_n; C^{-1/2} e_n]. Their extra parts are mutually orthogonal, so the Gram matrix is
    the feature Gram plus the diagonal (ξ², 1/C, ..., 1/C):

    >>> C, w, xi2, R = 2.0, np.array([0.6, 0.0]), 0.3, 0.7
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.8, 0.6]])
    >>> y = np.array([1.0, -1.0, 1.0])
    >>> F = np.vstack([w, y[:, None] * X])            # feature parts: centre, then points
    >>> extra = np.r_[xi2, np.full(len(y), 1.0 / C)]  # squared norms of the orthogonal parts
    >>> ball = meb_of_balls_and_points(augmented_gram(F @ F.T, extra), np.r_[R, np.zeros(3)])
    >>> w_new = ball.weights @ F                      # new feature part of the centre
    >>> xi2_new = combined_extra_sq_norm(ball.weights, extra)
    >>> bool(np.isclose(w_new @ w_new + xi2_new, ball.centre_sq_norm))
    True
    >>> round(ball.radius, 6), bool(ball.radius <= (1 + 1e-10) * ball.lower_bound)
    (1.108729, True)
    """
    G, tol, max_iter, lam0 = _check_problem(G, tol, max_iter, init)
    radii = _check_radii(radii, G.shape[0])
    return _ball_result("meb_of_balls_and_points", *_core.meb_of_balls_core(
        G, radii, lam0, tol, max_iter, _MAX_OUTER))


def augmented_gram(feature_gram, extra):
    """Gram matrix of points/centres carrying extra parts orthogonal to the feature parts.

    In the MEB formulation of the L2-SVM (Rai et al. 2009, eq. 3; Nathan & Raghvendra 2014,
    section 3) a point is p_n = [y_n φ(x_n); C^{-1/2} e_n] and a ball's centre is [w; ξ-part].
    Inner products split into the feature part (``feature_gram``, e.g. y_i y_k k(x_i, x_k),
    plus y_i y_k for the Blurred Ball bias coordinate) and the extra part:

    * ``extra`` 1-D (m,): the extra parts are mutually orthogonal, and ``extra[i]`` is the
      squared norm of the i-th one: 1/C for a new point (its own e_n), ξ² for a current centre
      whose e-part lies in the span of earlier e_n's. Returns feature_gram + diag(extra).
    * ``extra`` 2-D (m, m): the Gram matrix E of the extra parts when they overlap. Returns
      feature_gram + extra. This is the Blurred Ball case: a new ball's centre
      Σ_j λ_j c_j + Σ_n μ_n p_n over kept balls j and buffered points n has an extra part that
      overlaps every kept ball's, with E_new,k = Σ_j λ_j E_jk and
      E_new,new = Σ_jk λ_j λ_k E_jk + Σ_n μ_n² / C (buffered points are orthogonal to all).

    >>> import numpy as np
    >>> augmented_gram(np.ones((2, 2)), [0.5, 0.25]).tolist()
    [[1.5, 1.0], [1.0, 1.25]]
    """
    feature_gram = np.asarray(feature_gram, dtype=np.float64)
    extra = np.asarray(extra, dtype=np.float64)
    if feature_gram.ndim != 2 or feature_gram.shape[0] != feature_gram.shape[1]:
        raise ValueError(f"feature_gram must be square, got shape {feature_gram.shape}")
    m = feature_gram.shape[0]
    if extra.shape == (m,):
        if np.any(extra < 0):
            raise ValueError("extra squared norms must be non-negative")
        out = feature_gram.copy()
        out[np.diag_indices(m)] += extra
        return out
    if extra.shape == (m, m):
        return feature_gram + extra
    raise ValueError(f"extra must have shape ({m},) or ({m}, {m}), got {extra.shape}")


def combined_extra_sq_norm(weights, extra):
    """Squared norm Σ_i λ_i² extra_i of the extra part of Σ λ_i p_i (orthogonal extra parts).

    This is StreamSVM's new ξ² after a lookahead solve: λ_0² ξ² + Σ_n λ_n² / C
    (Algorithm 1's ξ² ← ξ²(1 − a)² + a²/C is the case of one point).

    >>> combined_extra_sq_norm([0.5, 0.5], [1.0, 1.0])
    0.5
    """
    weights = np.asarray(weights, dtype=np.float64)
    extra = np.asarray(extra, dtype=np.float64)
    if weights.shape != extra.shape or weights.ndim != 1:
        raise ValueError(
            f"weights and extra must be 1-D of equal length, got {weights.shape} and {extra.shape}"
        )
    return float(np.sum(weights * weights * extra))
