"""Compiled per-row steps of the linear learners for ``learn_one`` / ``predict_one``
(:mod:`streamsvm.input.row_path`): one call per example, over the chunk loops of
:mod:`streamsvm.linear._core` run on a one-row CSR matrix, so a row learnt here is learnt
with the same bits as by ``partial_fit``. Scratch: ``iscratch`` (int32) holds the row's
``indptr`` then its columns, ``fscratch`` (float64) the label, a margin and the model's
row-norm bound, then its values (:data:`streamsvm.input.row_path.I_HEAD` and ``F_HEAD``).
The ``*_at`` steps read them from the row state's block (:func:`~streamsvm.input.row_path.
block_at`); numba's cache does not see a change of that layout in another module, so this
one is edited with it (its compiled functions built again)."""

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
    gathered_row,
)
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
def linear_decision_row(cols, vals, iscratch, fscratch, w, factor, bias):
    """``f(x) = x·(factor w) + bias`` of one example; NaN when the example is refused
    (:func:`streamsvm.input.row_path.gather_row`). The gathered row stays in the scratch, and
    the plain ``x·w`` in ``fscratch[F_DOT]``."""
    n = gathered_row(cols, vals, iscratch, fscratch, 0)
    if n < 0:
        return np.nan
    idx, val = iscratch[I_HEAD:], fscratch[F_HEAD:]
    dot = 0.0
    for p in range(n):
        dot += val[p] * w[idx[p]]
    fscratch[F_DOT] = dot
    return _score(idx, val, n, w, factor, bias)


@njit(cache=True)
def pegasos_decision_row(cols, vals, iscratch, fscratch, v, scale, intercept):
    """:func:`linear_decision_row` of Pegasos's ``w = scale v`` (``intercept``: its bias is
    ``scale * v[-1]``), the bias computed here rather than by the caller; ``fscratch[F_DOT]``
    then holds ``x·v + v[-1]`` (``x·v`` without the intercept), the margin of
    :func:`~streamsvm.linear._core.pegasos_csr` before its factor ``y * scale``."""
    last = v.shape[0] - 1
    score = linear_decision_row(cols, vals, iscratch, fscratch, v, scale,
                                scale * v[last] if intercept else 0.0)
    if intercept:
        fscratch[F_DOT] += v[last]
    return score


@njit(cache=True)
def perceptron_learn_row(cols, vals, iscratch, fscratch, reuse, y, w, bias, fit_intercept):
    """Rosenblatt's rule on one example (:func:`~streamsvm.linear._core.perceptron_csr`;
    ``reuse``: the row gathered by the call before). Returns ``(score before, bias,
    mistakes)``; the score is NaN when the example is refused (nothing changed)."""
    n = gathered_row(cols, vals, iscratch, fscratch, reuse)
    if n < 0:
        return np.nan, bias, 0
    idx, val = iscratch[I_HEAD:], fscratch[F_HEAD:]
    score = _score(idx, val, n, w, 1.0, bias)
    fscratch[0] = y
    bias, mistakes = perceptron_csr(iscratch[:2], idx, val, fscratch[:1], w, bias,
                                    fit_intercept)
    return score, bias, mistakes


@njit(cache=True)
def pegasos_learn_row(cols, vals, iscratch, fscratch, reuse, y, v, scale, sqnorm_v, t, lam,
                      project, intercept):
    """One Pegasos step of block size 1 (:func:`~streamsvm.linear._core.pegasos_csr`;
    ``reuse``: the row gathered by the call before). Returns ``(score before, scale,
    sqnorm_v, t, n_updates)``; the score is NaN when the example is refused (nothing
    changed). ``intercept``: the bias weight is ``v[-1]`` (``fit_intercept``)."""
    n = gathered_row(cols, vals, iscratch, fscratch, reuse)
    if n < 0:
        return np.nan, scale, sqnorm_v, t, 0
    idx, val = iscratch[I_HEAD:], fscratch[F_HEAD:]
    score = _score(idx, val, n, v, scale, scale * v[v.shape[0] - 1] if intercept else 0.0)
    fscratch[0] = y
    label = fscratch[:1]  # unweighted: the label is its own step factor
    scale, sqnorm_v, t, updates = pegasos_csr(iscratch[:2], idx, val, label, label, v, scale,
                                              sqnorm_v, t, lam, 1, project, fscratch[1:2],
                                              intercept)
    return score, scale, sqnorm_v, t, updates


@njit(cache=True)
def pegasos_learn_gathered(iscratch, fscratch, y, v, scale, sqnorm_v, t, lam, project,
                           intercept):
    """:func:`pegasos_learn_row` of the example the call before gathered (fewer arguments:
    learn_one right after predict_one). Returns ``(scale, sqnorm_v, t, n_updates)``."""
    fscratch[0] = y
    label = fscratch[:1]
    return pegasos_csr(iscratch[:2], iscratch[I_HEAD:], fscratch[F_HEAD:], label, label, v,
                       scale, sqnorm_v, t, lam, 1, project, fscratch[1:2], intercept)


@njit(cache=True)
def perceptron_learn_at(address, y, bias):
    """:func:`perceptron_learn_row` of the example the block at ``address`` holds, gathered
    by :func:`~streamsvm.input.row_path.linear_decision_at` (the block's header: the
    weights, ``fit_intercept`` as its flag). Returns ``(bias, mistakes)``."""
    head, iscratch, fscratch, _, w = block_at(address)
    fscratch[0] = y
    return perceptron_csr(iscratch[:2], iscratch[I_HEAD:], fscratch[F_HEAD:], fscratch[:1],
                          w, bias, head[H_FLAG] != 0)


@njit(cache=True)
def pegasos_learn_at(address, y, scale, sqnorm_v, t):
    """:func:`pegasos_learn_gathered` of the example the block at ``address`` holds (its
    header: ``v``, ``projection`` and ``fit_intercept`` as its flags, ``alpha`` as its
    parameter). Returns ``(scale, sqnorm_v, t, n_updates)``."""
    head, iscratch, fscratch, _, v = block_at(address)
    return pegasos_learn_gathered(iscratch, fscratch, y, v, scale, sqnorm_v, t,
                                  block_parameter(address), head[H_FLAG],
                                  head[H_FLAG2] != 0)


#: the steps above as the per-row path calls them (skipping numba's dispatch)
direct = DirectSteps(linear_decision_row, pegasos_decision_row, perceptron_learn_row,
                     pegasos_learn_row, pegasos_learn_gathered, perceptron_learn_at,
                     pegasos_learn_at)
