"""Jitted loops of the budget baselines of the TVM paper: Random (the incremental SVM on a
reservoir sample), the self-tuned Forgetron, and the budget kernel perceptron.

Their kernel rows have at most ``budget`` values, never worth a thread, and the estimators
have no ``n_jobs``: every row passes ``par=None``, so none of them compiles the parallel
kernel row (:func:`streamsvm.kernels._core.kernel_row_dense`)."""

import numpy as np
from numba import njit

from ..kernels._core import kernel_dense, kernel_row_dense
from . import _incremental_core as core
from ._state import (
    I_FAIL,
    I_N,
    M_IDS,
    M_IST,
    M_X,
)


# ------------------------------------------------------------------ Random (reservoir IDSVM)
@njit(cache=True)
def reservoir_run(m, slot_of, B, X, sq, y, draws, t0, start, failed):
    """Vitter's reservoir (Algorithm R) of size B with the exact SVM kept on it: example t
    (from 0) is stored if t < B, else it replaces reservoir entry ``draws[r]`` (uniform in
    0..t) when that is < B (decremental unlearning of the old entry, incremental learning of
    the new). ``slot_of[p]`` is the machine slot of reservoir entry p (its id is p).
    Returns the next row; stops after a row whose update needs a re-solve (``failed[0]``)."""
    krow = np.zeros(m[M_X].shape[0])
    for r in range(start, X.shape[0]):
        t = t0 + r
        if t < B:
            p = t
        elif draws[r] < B:
            p = draws[r]
            slot = slot_of[p]
            moved = core.remove_slot(m, slot)
            if moved >= 0:
                slot_of[m[M_IDS][slot]] = slot
            if m[M_IST][I_FAIL] >= 1000000:
                failed[0] = 1
        else:
            continue
        row = core.kernel_row(m, X[r], sq[r], krow, None)  # one thread: no parallel code
        slot = core.add_example(m, X[r], sq[r], y[r], 1.0, p, row)
        if slot < 0:
            slot = m[M_IST][I_N] - 1
            failed[0] = 1
        slot_of[p] = slot
        if failed[0]:
            return r + 1
    return X.shape[0]


# ------------------------------------------------------------------ self-tuned Forgetron
@njit(cache=True)
def forgetron_run(V, Vsq, sigma, labels, order, state, fstate, X, sq, y, code, gamma, degree,
                  coef0):
    """Self-tuned Forgetron (Dekel, Shalev-Shwartz & Singer 2008) over the rows of a chunk.

    ``f(x) = sum_i sigma_i y_i K(v_i, x)`` over at most B stored examples. On a mistake
    (``y f(x) <= 0``, M += 1) the example is added with ``sigma = 1``; if that makes B + 1,
    the oldest ``r`` is removed after every ``sigma`` is shrunk by

        phi = max { phi in (0, 1] : Psi(sigma_r phi, mu) + Q <= 15/32 M },
        Psi(lam, mu) = lam^2 + 2 lam - 2 lam mu,   mu = y_r f'(v_r)

    (``f'`` the hypothesis after adding the new example), and ``Q += Psi(sigma_r phi, mu)``.
    The condition is quadratic in ``lam = sigma_r phi``; its largest root is
    ``lam* = -(1 - mu) + sqrt((1 - mu)^2 + c)`` with ``c = 15/32 M - Q``.

    ``order`` is a ring of slot indices, oldest first (``state = [n, head, mistakes, B]``);
    ``fstate = [Q]``. Returns the number of mistakes in the chunk.
    """
    B = state[3]
    krow = np.zeros(V.shape[0])
    mistakes = 0
    for r in range(X.shape[0]):
        n = state[0]
        f = 0.0
        if n > 0:
            kernel_row_dense(X[r], sq[r], V[:n], Vsq[:n], code, gamma, degree, coef0, krow,
                             None)
            for i in range(n):
                f += sigma[i] * labels[i] * krow[i]
        if y[r] * f > 0.0:
            continue
        mistakes += 1
        state[2] += 1
        for feat in range(V.shape[1]):  # a loop: no shape-error code to compile
            V[n, feat] = X[r, feat]
        Vsq[n] = sq[r]
        sigma[n] = 1.0
        labels[n] = y[r]
        order[(state[1] + n) % (B + 1)] = n
        state[0] = n + 1
        if n + 1 <= B:
            continue
        oldest = order[state[1] % (B + 1)]
        f_old = 0.0
        kernel_row_dense(V[oldest], Vsq[oldest], V[: n + 1], Vsq[: n + 1], code, gamma, degree,
                         coef0, krow, None)
        for i in range(n + 1):
            f_old += sigma[i] * labels[i] * krow[i]
        mu = labels[oldest] * f_old
        c = 15.0 / 32.0 * state[2] - fstate[0]
        s_r = sigma[oldest]
        psi_full = s_r * s_r + 2.0 * s_r - 2.0 * s_r * mu
        if psi_full <= c:
            phi = 1.0
        else:
            disc = (1.0 - mu) * (1.0 - mu) + c
            lam = -(1.0 - mu) + np.sqrt(max(disc, 0.0))
            phi = min(max(lam / s_r, 0.0), 1.0)
        lam = s_r * phi
        fstate[0] += lam * lam + 2.0 * lam - 2.0 * lam * mu
        for i in range(n + 1):
            sigma[i] *= phi
        # remove the oldest: the last slot moves into its place
        last = n
        if oldest != last:
            for feat in range(V.shape[1]):  # a loop: no shape-error code to compile
                V[oldest, feat] = V[last, feat]
            Vsq[oldest] = Vsq[last]
            sigma[oldest] = sigma[last]
            labels[oldest] = labels[last]
            for k in range(B + 1):
                if order[k] == last:
                    order[k] = oldest
        state[1] = (state[1] + 1) % (B + 1)
        state[0] = n
    return mistakes


# ------------------------------------------------------------------ budget kernel perceptron
#: removal rules of :func:`budget_perceptron_run`
REMOVE_MARGIN = 0  # Crammer, Kandola & Singer 2003: the largest margin without itself
REMOVE_ERRORS = 1  # Weston, Bordes & Bottou 2005: the fewest errors on the cache without it
REMOVE_WINDOW_ERRORS = 2  # the fewest errors on the last B rows of the stream without it


@njit(cache=True)
def _remove_slot(V, Vsq, coef, fsv, n, who, krow, code, gamma, degree, coef0):
    """Take stored example ``who`` out of the ``n`` stored ones: ``fsv -= coef_who K(v_who, .)``
    and the last slot moves into its place. Returns the new count."""
    kernel_row_dense(V[who], Vsq[who], V[:n], Vsq[:n], code, gamma, degree, coef0, krow, None)
    for i in range(n):
        fsv[i] -= coef[who] * krow[i]
    last = n - 1
    for feat in range(V.shape[1]):  # a loop: no shape-error code to compile
        V[who, feat] = V[last, feat]
    Vsq[who] = Vsq[last]
    coef[who] = coef[last]
    fsv[who] = fsv[last]
    return n - 1


@njit(cache=True, inline="always")
def _expansion_value(x, x_sq, V, Vsq, coef, n, code, gamma, degree, coef0, krow):
    """``f(x) = sum_i coef_i K(v_i, x)`` over the first n stored examples; their kernel values
    are left in ``krow[:n]``."""
    f = 0.0
    if n > 0:
        kernel_row_dense(x, x_sq, V[:n], Vsq[:n], code, gamma, degree, coef0, krow, None)
        for i in range(n):
            f += coef[i] * krow[i]
    return f


@njit(cache=True, inline="always")
def _add_slot(V, Vsq, coef, fsv, n, x, x_sq, y, f, krow, code, gamma, degree, coef0):
    """Store ``x`` with coefficient ``y`` in slot ``n`` (Crammer et al.'s update
    ``f <- f + y K(x, .)``): the stored examples' values ``fsv`` gain ``y K(x, v_i)`` (from
    ``krow``), the new slot's is ``f(x) + y K(x, x)``. Returns the new count."""
    for i in range(n):
        fsv[i] += y * krow[i]
    for feat in range(V.shape[1]):  # a loop: no shape-error code to compile
        V[n, feat] = x[feat]
    Vsq[n] = x_sq
    coef[n] = y
    fsv[n] = f + y * kernel_dense(x, x_sq, x, x_sq, code, gamma, degree, coef0)
    return n + 1


@njit(cache=True)
def _fewest_errors(V, Vsq, coef, fsv, n, krow, code, gamma, degree, coef0):
    """Among the first ``n - 1`` stored examples (the last is the one just added), the one
    whose removal leaves the fewest stored examples misclassified, ``y_j (f(v_j) - a_i
    K(v_i, v_j)) <= 0`` over all n (itself included); ties go to the largest margin without
    itself (the margin rule). O(n^2 d)."""
    best_err = n + 1
    best_margin = -np.inf
    who = 0
    for i in range(n - 1):
        kernel_row_dense(V[i], Vsq[i], V[:n], Vsq[:n], code, gamma, degree, coef0, krow,
                         None)
        errors = 0
        for j in range(n):
            yj = 1.0 if coef[j] > 0 else -1.0
            if yj * (fsv[j] - coef[i] * krow[j]) <= 0.0:
                errors += 1
        yi = 1.0 if coef[i] > 0 else -1.0
        margin = yi * (fsv[i] - coef[i] * krow[i])
        if errors < best_err or (errors == best_err and margin > best_margin):
            best_err = errors
            best_margin = margin
            who = i
    return who


@njit(cache=True)
def budget_perceptron_run(V, Vsq, coef, fsv, state, X, sq, y, beta, removal, code, gamma,
                          degree, coef0):
    """Budget kernel perceptron (Crammer, Kandola & Singer 2003) over a chunk.

    ``f(x) = sum_i coef_i K(v_i, x)``. An example with ``y f(x) <= beta`` is added with
    ``coef = y``; when the B slots are full one stored example is removed:

    * ``REMOVE_MARGIN`` (the paper's rule), before adding: the one whose margin without
      itself is largest, ``argmax_i y_i (f(v_i) - coef_i K(v_i, v_i))``;
    * ``REMOVE_ERRORS`` (Weston, Bordes & Bottou 2005), after adding: the one whose removal
      leaves the fewest stored examples misclassified (ties: the margin rule), never the new
      one. The margin rule keeps exactly the examples the others misclassify, so on noisy
      data the cache fills with label noise and the model inverts (Banana: balanced
      accuracy 0.44-0.50); counting errors removes an outlier once it misleads more of its
      neighbours than it supports.

    ``fsv[i] = f(v_i)`` is kept up to date in O(B) per change (``state = [n, B]``). Returns
    the number of updates."""
    B = state[1]
    krow = np.zeros(V.shape[0])
    updates = 0
    for r in range(X.shape[0]):
        n = state[0]
        f = _expansion_value(X[r], sq[r], V, Vsq, coef, n, code, gamma, degree, coef0, krow)
        if y[r] * f > beta:
            continue
        updates += 1
        if n == B and removal == REMOVE_MARGIN:
            best = -np.inf
            who = 0
            for i in range(n):
                yi = 1.0 if coef[i] > 0 else -1.0
                kii = kernel_dense(V[i], Vsq[i], V[i], Vsq[i], code, gamma, degree, coef0)
                score = yi * (fsv[i] - coef[i] * kii)
                if score > best:
                    best = score
                    who = i
            n = _remove_slot(V, Vsq, coef, fsv, n, who, krow, code, gamma, degree, coef0)
            # the row of the new example over the remaining slots
            f = _expansion_value(X[r], sq[r], V, Vsq, coef, n, code, gamma, degree, coef0, krow)
        n = _add_slot(V, Vsq, coef, fsv, n, X[r], sq[r], y[r], f, krow, code, gamma, degree,
                      coef0)
        if n > B:  # REMOVE_ERRORS: the slot B + 1 holds the new example
            who = _fewest_errors(V, Vsq, coef, fsv, n, krow, code, gamma, degree, coef0)
            n = _remove_slot(V, Vsq, coef, fsv, n, who, krow, code, gamma, degree, coef0)
        state[0] = n
    return updates


@njit(cache=True)
def _fewest_window_errors(V, Vsq, coef, fsv, n, KW, fW, Wy, m, code, gamma, degree, coef0):
    """Among the first ``n - 1`` stored examples (the last is the one just added), the one
    whose removal leaves the fewest of the ``m`` window rows misclassified,
    ``y_j (f(w_j) - a_i K(v_i, w_j)) <= 0``; ties go to the largest margin without itself
    (the margin rule). O(n m) from the kept kernel values ``KW[j, i] = K(w_j, v_i)``."""
    best_err = m + 1
    best_margin = -np.inf
    who = 0
    for i in range(n - 1):
        errors = 0
        for j in range(m):
            if Wy[j] * (fW[j] - coef[i] * KW[j, i]) <= 0.0:
                errors += 1
        if errors > best_err:
            continue
        yi = 1.0 if coef[i] > 0 else -1.0
        kii = kernel_dense(V[i], Vsq[i], V[i], Vsq[i], code, gamma, degree, coef0)
        margin = yi * (fsv[i] - coef[i] * kii)
        if errors < best_err or margin > best_margin:
            best_err = errors
            best_margin = margin
            who = i
    return who


@njit(cache=True)
def budget_perceptron_window_run(V, Vsq, coef, fsv, state, W, Wsq, Wy, KW, fW, wstate, X, sq,
                                 y, beta, code, gamma, degree, coef0):
    """Budget kernel perceptron whose removal counts errors on the recent stream.

    As :func:`budget_perceptron_run` (``y f(x) <= beta`` adds ``x`` with ``coef = y``), but
    a full budget removes the stored example whose removal leaves the fewest of the last
    ``E = W.shape[0]`` rows of the stream misclassified (ties: the margin rule; never the
    new one). Weston, Bordes & Bottou's error rule counts errors on the stored examples, which
    are the stream's mistakes: a biased sample that, once label noise fills the budget,
    rewards keeping the noise (Synthetic A, 100,000 rows: the model swings between 72% and
    96% from one 5,000 rows to the next). The window is an unbiased sample of the recent
    stream.

    The window is a ring: ``wstate = [m, next slot]``. ``KW[j, i] = K(w_j, v_i)`` and
    ``fW[j] = f(w_j)`` are kept up to date: a row entering the window brings the kernel row
    and ``f`` already computed for its prediction; an added example costs one kernel column
    over the window, O(E d); choosing the removal costs O(B E). Returns the number of
    updates."""
    B = state[1]
    E = W.shape[0]
    krow = np.zeros(V.shape[0])
    col = np.zeros(E)
    updates = 0
    for r in range(X.shape[0]):
        n = state[0]
        f = _expansion_value(X[r], sq[r], V, Vsq, coef, n, code, gamma, degree, coef0, krow)
        # the row enters the window (replacing the oldest once it is full)
        p = wstate[1]
        for feat in range(W.shape[1]):  # a loop: no shape-error code to compile
            W[p, feat] = X[r, feat]
        Wsq[p] = sq[r]
        Wy[p] = y[r]
        fW[p] = f
        for i in range(n):
            KW[p, i] = krow[i]
        wstate[1] = (p + 1) % E
        if wstate[0] < E:
            wstate[0] += 1
        if y[r] * f > beta:
            continue
        updates += 1
        m = wstate[0]
        kernel_row_dense(X[r], sq[r], W[:m], Wsq[:m], code, gamma, degree, coef0, col, None)
        for j in range(m):
            KW[j, n] = col[j]
            fW[j] += y[r] * col[j]
        n = _add_slot(V, Vsq, coef, fsv, n, X[r], sq[r], y[r], f, krow, code, gamma, degree,
                      coef0)
        if n > B:  # slot B + 1 holds the new example
            who = _fewest_window_errors(V, Vsq, coef, fsv, n, KW, fW, Wy, m, code, gamma,
                                        degree, coef0)
            last = n - 1
            for j in range(m):
                fW[j] -= coef[who] * KW[j, who]
                KW[j, who] = KW[j, last]
            n = _remove_slot(V, Vsq, coef, fsv, n, who, krow, code, gamma, degree, coef0)
        state[0] = n
    return updates
