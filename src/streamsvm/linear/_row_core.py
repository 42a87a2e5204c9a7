"""Compiled per-row steps of the linear learners for ``learn_one`` / ``predict_one``
(:mod:`streamsvm._row_path`): one call per example, over the chunk loops of
:mod:`streamsvm.linear._core` run on a one-row CSR matrix, so a row learnt here is learnt
with the same bits as by ``partial_fit``."""

import numpy as np
from numba import njit

from .._row_path import gather_row
from ._core import pegasos_csr, perceptron_csr


@njit(cache=True)
def _score(idx, val, n, w, factor, bias):
    """``x·(factor w) + bias`` summed as SciPy's CSR product with the dense ``factor * w``
    (the learners' ``decision_function``)."""
    total = 0.0
    for p in range(n):
        total += val[p] * (factor * w[idx[p]])
    return total + bias


@njit(cache=True)
def linear_decision_row(cols, vals, bound, idx, val, w, factor, bias):
    """``(status, f(x))`` of one example for ``f(x) = x·(factor w) + bias``; status < 0: the
    example is refused (:func:`streamsvm._row_path.gather_row`)."""
    n = gather_row(cols, vals, bound, idx, val)
    if n < 0:
        return n, 0.0
    return 0, _score(idx, val, n, w, factor, bias)


@njit(cache=True)
def perceptron_learn_row(cols, vals, bound, idx, val, indptr, ybuf, y, w, bias,
                         fit_intercept):
    """Rosenblatt's rule on one example (:func:`~streamsvm.linear._core.perceptron_csr`).
    Returns ``(status, score before, bias, mistakes)``; status < 0: refused, nothing changed."""
    n = gather_row(cols, vals, bound, idx, val)
    if n < 0:
        return n, 0.0, bias, 0
    score = _score(idx, val, n, w, 1.0, bias)
    indptr[0] = 0
    indptr[1] = n
    ybuf[0] = y
    bias, mistakes = perceptron_csr(indptr, idx, val, ybuf, w, bias, fit_intercept)
    return 0, score, bias, mistakes


@njit(cache=True)
def pegasos_learn_row(cols, vals, bound, idx, val, indptr, ybuf, y, v, scale, sqnorm_v, t,
                      lam, project, margins):
    """One Pegasos step of block size 1 (:func:`~streamsvm.linear._core.pegasos_csr`).
    Returns ``(status, score before, scale, sqnorm_v, t, n_updates)``; status < 0: refused,
    nothing changed."""
    n = gather_row(cols, vals, bound, idx, val)
    if n < 0:
        return n, 0.0, scale, sqnorm_v, t, 0
    score = _score(idx, val, n, v, scale, 0.0)
    indptr[0] = 0
    indptr[1] = n
    ybuf[0] = y
    scale, sqnorm_v, t, updates = pegasos_csr(indptr, idx, val, ybuf, v, scale, sqnorm_v, t,
                                              lam, 1, project, margins)
    return 0, score, scale, sqnorm_v, t, updates
