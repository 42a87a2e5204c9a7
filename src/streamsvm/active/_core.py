"""Jitted pieces of small-pool active selection (pure functions over arrays).

The pool of unlabelled examples is a pair of parallel arrays ``ids`` (store ids of the LASVM
learner) and ``rows`` (the caller's row numbers), of which the first ``m`` entries are live.
"""

import numpy as np
from numba import njit


@njit(cache=True)
def rand_below(rng, n):
    """Uniform integer in 0 .. n-1 from a splitmix64 state ``rng`` (uint64 array of 1)."""
    z = rng[0] + np.uint64(0x9E3779B97F4A7C15)
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z % np.uint64(n))


@njit(cache=True)
def draw_front(ids, rows, m, n_draw, rng):
    """Move ``n_draw`` entries drawn uniformly without replacement from the live ``[0, m)``
    to the front (a partial Fisher-Yates shuffle of both arrays)."""
    for t in range(min(n_draw, m)):
        r = t + rand_below(rng, m - t)
        a = ids[t]
        ids[t] = ids[r]
        ids[r] = a
        b = rows[t]
        rows[t] = rows[r]
        rows[r] = b


@njit(cache=True)
def closest(ids, f, n):
    """Position ``t < n`` of the smallest ``|f[t]|``; exact ties go to the smaller id, so the
    choice depends only on the candidate *set*, not on the order it was drawn in."""
    best = 0
    best_abs = np.inf
    for t in range(n):
        a = abs(f[t])
        if a < best_abs or (a == best_abs and ids[t] < ids[best]):
            best = t
            best_abs = a
    return best


@njit(cache=True)
def support_stats(alpha, g, perm, ys, b, n):
    """``(n_neg_sv, n_pos_sv, r)`` over the expansion positions ``< n``: support vectors
    (alpha != 0) by class (the sign of alpha is the label) and ``r = max |y(x_s)|`` over them,
    with ``y(x_s) = y_s - g_s + b`` read off the gradients (eq. 9 of Bordes et al.)."""
    n_neg = 0
    n_pos = 0
    r = 0.0
    for s in range(n):
        a = alpha[s]
        if a == 0.0:
            continue
        if a > 0.0:
            n_pos += 1
        else:
            n_neg += 1
        f = abs(ys[perm[s]] - g[s] + b)
        if f > r:
            r = f
    return n_neg, n_pos, r


@njit(cache=True)
def remove_at(ids, rows, t, m):
    """Remove live entry ``t`` by moving the last live one into its place; returns ``m - 1``."""
    ids[t] = ids[m - 1]
    rows[t] = rows[m - 1]
    return m - 1
