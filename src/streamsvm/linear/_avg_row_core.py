"""Compiled per-row steps of the averaged Pegasos and Perceptron (``average=True``) for
``learn_one`` / ``predict_one`` (:mod:`streamsvm.input.row_path`): one call per example over
:func:`~streamsvm.linear._core.pegasos_avg_csr` or
:func:`~streamsvm.linear._core.perceptron_avg_csr` run on the one-row CSR matrix the scratch
holds, so a row learnt here is learnt with the same bits as by ``partial_fit``; the first
chunk's column factors, if any, are applied to the gathered row before the step, as
``scale_columns`` applies them to a chunk. The steps on a schema of known keys
(``*_at``) take the row state's block by its address, its header naming the weights, the
sums and the factors (:func:`~streamsvm.input.row_path.block_at`,
:func:`~streamsvm.input.row_path.block_sums`): a compiled call's array argument costs about
150 ns, an integer 30."""

import numpy as np
from numba import njit

from ..input.row_path import (
    F_DOT,
    F_HEAD,
    H_FLAG,
    H_FLAG2,
    I_HEAD,
    DirectSteps,
    block_at,
    block_parameter,
    block_sums,
    gathered_at,
    gathered_row,
)
from ._core import pegasos_avg_csr, perceptron_avg_csr

#: the column factors of a learner without them (the steps take an array either way)
NO_FACTORS = np.empty(0)

#: the block size of the per-row steps, as an int64 (not a literal 1) with ``projection`` as
#: a bool: the argument types of ``partial_fit``'s call, so the row steps link the
#: chunk loop compiled for it rather than compiling another (2-3 s cold); the same bits
ONE_ROW = np.int64(1)


@njit(cache=True)
def _average_weight(j, v, u, avg_s, n_avg, scale):
    """Entry ``j`` of the averaged weights ``(avg_s v - u) / n_avg`` (``scale v`` before any
    step), rounded as the learner's ``weights()`` computes them."""
    if n_avg > 0:
        return (avg_s * v[j] - u[j]) / n_avg
    return scale * v[j]


@njit(cache=True)
def _average_score(idx, val, n, v, u, avg_s, n_avg, scale, intercept, col_scale):
    """``x·w̄ + b̄`` of the gathered row on the features as given (``w̄`` times the column
    factors), summed as SciPy's CSR product with the learner's dense weights."""
    scaled = col_scale.shape[0] > 0
    total = 0.0
    for p in range(n):
        j = idx[p]
        w = _average_weight(j, v, u, avg_s, n_avg, scale)
        if scaled:
            w = w * col_scale[j]
        total += val[p] * w
    if intercept:
        total += _average_weight(v.shape[0] - 1, v, u, avg_s, n_avg, scale)
    return total


@njit(cache=True)
def _live_dot(idx, val, n, v, intercept, col_scale, fscratch):
    """``fscratch[F_DOT]``: ``x·v`` of the scaled row (``+ v[-1]`` with ``intercept``), the
    live iterate's margin before its factor ``y * scale``, summed as the chunk loops sum it,
    so that the learner can take a step without an update in Python."""
    scaled = col_scale.shape[0] > 0
    dot = 0.0
    for p in range(n):
        x = val[p] * col_scale[idx[p]] if scaled else val[p]
        dot += x * v[idx[p]]
    if intercept:
        dot += v[v.shape[0] - 1]
    fscratch[F_DOT] = dot


@njit(cache=True)
def pegasos_avg_decision_row(cols, vals, iscratch, fscratch, v, u, avg_s, n_avg, scale,
                             intercept, col_scale):
    """The averaged model's decision value of one example; NaN when it is refused
    (:func:`streamsvm.input.row_path.gather_row`). The gathered row, as given, stays in the
    scratch for :func:`pegasos_avg_learn_row` with ``reuse``, and the live iterate's
    margin in ``fscratch[F_DOT]`` (:func:`_live_dot`)."""
    n = gathered_row(cols, vals, iscratch, fscratch, 0)
    if n < 0:
        return np.nan
    idx, val = iscratch[I_HEAD:], fscratch[F_HEAD:]
    _live_dot(idx, val, n, v, intercept, col_scale, fscratch)
    return _average_score(idx, val, n, v, u, avg_s, n_avg, scale, intercept, col_scale)


@njit(cache=True)
def pegasos_avg_learn_row(cols, vals, iscratch, fscratch, reuse, y, v, u, avg_s, n_avg,
                          scale, sqnorm_v, t, lam, project, intercept, col_scale):
    """One step of block size 1 of :func:`~streamsvm.linear._core.pegasos_avg_csr`
    (``reuse``: the row gathered by the call before, as given). Returns ``(score before,
    scale, sqnorm_v, t, n_updates, avg_s)``; the score is NaN when the example is refused
    (nothing changed)."""
    n = gathered_row(cols, vals, iscratch, fscratch, reuse)
    if n < 0:
        return np.nan, scale, sqnorm_v, t, 0, avg_s
    idx, val = iscratch[I_HEAD:], fscratch[F_HEAD:]
    score = _average_score(idx, val, n, v, u, avg_s, n_avg, scale, intercept, col_scale)
    if col_scale.shape[0] > 0:  # the scratch's row becomes the scaled row the step learns
        for p in range(n):
            val[p] *= col_scale[idx[p]]
    fscratch[0] = y
    label = fscratch[:1]
    scale, sqnorm_v, t, updates, avg_s = pegasos_avg_csr(
        iscratch[:2], idx, val, label, label, v, scale, sqnorm_v, t, lam, ONE_ROW,
        project != 0, fscratch[1:2], intercept, u, avg_s)
    return score, scale, sqnorm_v, t, updates, avg_s


@njit(cache=True)
def _perceptron_score(idx, val, n, w, bias, u, u_bias, count, col_scale):
    """``x·w̄ + b̄`` of the gathered row, ``w̄ = w - u / count`` (times the column factors),
    rounded as the learner's ``weights()`` and SciPy's CSR product compute it."""
    scaled = col_scale.shape[0] > 0
    total = 0.0
    for p in range(n):
        j = idx[p]
        a = w[j] - u[j] / count
        if scaled:
            a = a * col_scale[j]
        total += val[p] * a
    return total + (bias - u_bias / count)


@njit(cache=True)
def perceptron_avg_decision_row(cols, vals, iscratch, fscratch, w, bias, u, u_bias, count,
                                col_scale):
    """The averaged perceptron's decision value of one example (NaN: refused); the live
    iterate's ``x·w`` in ``fscratch[F_DOT]``."""
    n = gathered_row(cols, vals, iscratch, fscratch, 0)
    if n < 0:
        return np.nan
    idx, val = iscratch[I_HEAD:], fscratch[F_HEAD:]
    _live_dot(idx, val, n, w, False, col_scale, fscratch)
    return _perceptron_score(idx, val, n, w, bias, u, u_bias, count, col_scale)


@njit(cache=True)
def perceptron_avg_learn_row(cols, vals, iscratch, fscratch, reuse, y, w, bias,
                             fit_intercept, u, u_bias, count, col_scale):
    """One row of :func:`~streamsvm.linear._core.perceptron_avg_csr`. Returns ``(score
    before, bias, mistakes, u_bias, count)``; the score is NaN when the example is refused
    (nothing changed)."""
    n = gathered_row(cols, vals, iscratch, fscratch, reuse)
    if n < 0:
        return np.nan, bias, 0, u_bias, count
    idx, val = iscratch[I_HEAD:], fscratch[F_HEAD:]
    score = _perceptron_score(idx, val, n, w, bias, u, u_bias, count, col_scale)
    if col_scale.shape[0] > 0:
        for p in range(n):
            val[p] *= col_scale[idx[p]]
    fscratch[0] = y
    bias, mistakes, u_bias, count = perceptron_avg_csr(iscratch[:2], idx, val, fscratch[:1],
                                                       w, bias, fit_intercept, u, u_bias,
                                                       count)
    return score, bias, mistakes, u_bias, count


@njit(cache=True)
def pegasos_avg_decision_at(vals, n, address, avg_s, n_avg, scale):
    """:func:`pegasos_avg_decision_row` of the example of ``n`` values ``vals`` on the
    schema's columns, with ``v``, ``u``, the factors and ``fit_intercept`` (flag 2) of the
    block's header."""
    head, iscratch, fscratch, columns, v = block_at(address)
    u, col_scale = block_sums(head)
    m = gathered_at(vals, n, iscratch, fscratch, columns)
    if m < 0:
        return np.nan
    intercept = head[H_FLAG2] != 0
    idx, val = iscratch[I_HEAD:], fscratch[F_HEAD:]
    _live_dot(idx, val, m, v, intercept, col_scale, fscratch)
    return _average_score(idx, val, m, v, u, avg_s, n_avg, scale, intercept, col_scale)


@njit(cache=True)
def pegasos_avg_learn_at(address, y, scale, sqnorm_v, t, avg_s):
    """:func:`pegasos_avg_learn_row` of the example the block holds, gathered by
    :func:`pegasos_avg_decision_at` (its header's ``projection`` as flag, ``alpha`` as
    parameter). Returns ``(scale, sqnorm_v, t, n_updates, avg_s)``."""
    head, iscratch, fscratch, _, v = block_at(address)
    u, col_scale = block_sums(head)
    n = iscratch[1]
    idx, val = iscratch[I_HEAD:], fscratch[F_HEAD:]
    if col_scale.shape[0] > 0:  # the scratch's row becomes the scaled row the step learns
        for p in range(n):
            val[p] *= col_scale[idx[p]]
    fscratch[0] = y
    label = fscratch[:1]
    return pegasos_avg_csr(iscratch[:2], idx, val, label, label, v, scale, sqnorm_v, t,
                           block_parameter(address), ONE_ROW, head[H_FLAG] != 0,
                           fscratch[1:2], head[H_FLAG2] != 0, u, avg_s)


@njit(cache=True)
def perceptron_avg_decision_at(vals, n, address, bias, u_bias, count):
    """:func:`perceptron_avg_decision_row` of the example of ``n`` values ``vals`` on the
    schema's columns, with ``w``, ``u`` and the factors of the block's header."""
    head, iscratch, fscratch, columns, w = block_at(address)
    u, col_scale = block_sums(head)
    m = gathered_at(vals, n, iscratch, fscratch, columns)
    if m < 0:
        return np.nan
    idx, val = iscratch[I_HEAD:], fscratch[F_HEAD:]
    _live_dot(idx, val, m, w, False, col_scale, fscratch)
    return _perceptron_score(idx, val, m, w, bias, u, u_bias, count, col_scale)


@njit(cache=True)
def perceptron_avg_learn_at(address, y, bias, u_bias, count):
    """:func:`perceptron_avg_learn_row` of the example the block holds, gathered by
    :func:`perceptron_avg_decision_at` (its header's ``fit_intercept`` as flag). Returns
    ``(bias, mistakes, u_bias, count)``."""
    head, iscratch, fscratch, _, w = block_at(address)
    u, col_scale = block_sums(head)
    n = iscratch[1]
    idx, val = iscratch[I_HEAD:], fscratch[F_HEAD:]
    if col_scale.shape[0] > 0:
        for p in range(n):
            val[p] *= col_scale[idx[p]]
    fscratch[0] = y
    return perceptron_avg_csr(iscratch[:2], idx, val, fscratch[:1], w, bias,
                              head[H_FLAG] != 0, u, u_bias, count)


#: the steps above as the per-row path calls them (skipping numba's dispatch)
direct = DirectSteps(pegasos_avg_decision_row, pegasos_avg_learn_row,
                     perceptron_avg_decision_row, perceptron_avg_learn_row,
                     pegasos_avg_decision_at, pegasos_avg_learn_at,
                     perceptron_avg_decision_at, perceptron_avg_learn_at)
