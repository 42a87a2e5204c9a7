"""The kernel rows of the members of S through the cache: ``K(x_rid, x_perm[p])`` over the
positions ``p < ncol`` of S, only the columns a cached row lacks computed (holes of S give 0),
on one thread or in fixed blocks of columns on several (the same bits), from the panel of S
where it has one (:mod:`._panel_core`). Pure jitted functions over the state tuples described
in :mod:`._expansion_core`; a cached row is first brought to the current layout of S there
(:func:`._expansion_core.sync_row`).
"""

import numpy as np
from numba import njit, prange

from ..kernels._cache_core import cache_acquire, cache_set_length
from ..kernels._core import (
    PARALLEL_BLOCK,
    RBF,
    _dots_to_kernel,
    dot_rows,
    dot_rows4,
    exp_nonpositive,
    kernel_from_dot,
    parallel_worth,
)
from ._expansion_core import (
    KERN_CODE,
    KERN_COEF0,
    KERN_DEGREE,
    KERN_GAMMA,
    KERN_SPARSE,
    KEVALS,
    STORE_DATA,
    STORE_INDICES,
    STORE_INDPTR,
    STORE_ROW_GEN,
    STORE_SQ,
    STORE_XD,
    SV_GMETA,
    SV_PANEL,
    SV_PERM,
    sync_row,
)
from ._panel_core import panel_dots


@njit(cache=True, inline="always")
def dots_to_columns(target, lo, hi, x_sq, sq, perm, kern):
    """Turn the dot products ``target[j] = x·x_perm[j]`` (``lo <= j < hi``) into kernel
    values in place, and the holes of S (``perm[j] < 0``) into 0; returns the number of
    kernel values (columns that are not holes). One tight loop per kernel, which LLVM
    vectorises for the RBF kernel (see ``kernels._core.exp_nonpositive``)."""
    code, gamma = kern[KERN_CODE], kern[KERN_GAMMA]
    degree, coef0 = kern[KERN_DEGREE], kern[KERN_COEF0]
    # loops over slices: indices from 0 are known to be >= 0, which spares numba's
    # wraparound of negative indices and lets LLVM vectorise (4x faster here)
    row = target[lo:hi]
    cols = perm[lo:hi]
    n = row.shape[0]
    if code == RBF:
        # the gather of the squared norms (next to writes to the row, which might alias
        # them) keeps a loop scalar: the exponentials get a loop of their own
        for j in range(n):
            distance = x_sq + sq[max(cols[j], 0)] - 2.0 * row[j]
            if distance < 0.0:
                distance = 0.0
            row[j] = -gamma * distance
        for j in range(n):
            row[j] = exp_nonpositive(row[j])
    else:
        for j in range(n):
            row[j] = kernel_from_dot(row[j], x_sq, sq[max(cols[j], 0)], code, gamma, degree,
                                     coef0)
    return _zero_holes(row, cols)


@njit(cache=True, inline="always")
def _zero_holes(row, cols):
    """``row[p] = 0`` where ``cols[p] < 0`` (a hole of S); returns the number of the others
    (the kernel values computed)."""
    live = 0
    for p in range(row.shape[0]):
        if cols[p] >= 0:
            live += 1
        else:
            row[p] = 0.0
    return live


@njit(cache=True, inline="always")
def columns(rid, lo, hi, store, kern, perm, panel, ws, target):
    """``target[p] = K(x_rid, x_perm[p])`` for positions ``lo <= p < hi``, 0 for the holes of
    S; for CSR, ``x_rid`` already scattered into ``ws``. From the panel where S has one
    (:mod:`._panel_core`), else one member row at a time. Returns the number of kernel
    values (columns that are not holes)."""
    if panel.shape[0] > 0:
        return _panel_columns(rid, lo, hi, store, kern, perm, panel, target)
    _column_dots(rid, lo, hi, store[STORE_XD], store[STORE_INDPTR], store[STORE_INDICES],
                 store[STORE_DATA], kern[KERN_SPARSE], perm, ws, target)
    return dots_to_columns(target, lo, hi, store[STORE_SQ][rid], store[STORE_SQ], perm, kern)


@njit(cache=True)  # a call, not inlined: its loops stay out of every kernel-row site
def _panel_columns(rid, lo, hi, store, kern, perm, panel, target):
    """:func:`columns` from the panel: its dot products, then the kernel values with the
    members' squared norms read in position order (the arithmetic of
    :func:`dots_to_columns`, without its gather)."""
    panel_dots(store[STORE_XD], rid, panel, lo, hi, target)
    row = target[lo:hi]
    _dots_to_kernel(row, store[STORE_SQ][rid], panel[panel.shape[0] - 1, lo:hi],
                    kern[KERN_CODE], kern[KERN_GAMMA], kern[KERN_DEGREE], kern[KERN_COEF0])
    return _zero_holes(row, perm[lo:hi])


@njit(cache=True, inline="always")
def fill_columns(rid, valid, n, target, store, kern, svs, ws, cnt):
    """The missing columns ``valid .. n - 1`` of a kernel row on one thread (the general
    one-thread branch of :func:`kernel_row`)."""
    indptr, indices, data = store[STORE_INDPTR], store[STORE_INDICES], store[STORE_DATA]
    sparse = kern[KERN_SPARSE]
    if valid < n:
        if sparse:
            _scatter_row(rid, indptr, indices, data, ws, False)
        cnt[KEVALS] += columns(rid, valid, n, store, kern, svs[SV_PERM], svs[SV_PANEL], ws,
                               target)
        if sparse:
            _scatter_row(rid, indptr, indices, data, ws, True)


@njit(cache=True)
def kernel_row(rid, ncol, store, kern, svs, cache, ws, scratch, cnt, par=True):
    """``K(x_rid, x_perm[p])`` for positions ``p < ncol``, through the cache (row id ``rid``).

    Only the columns the cached row lacks are computed (holes of S give 0); returns a view
    of length ``ncol``, valid until the acquire after the next one (the cache never evicts
    the previous row).
    """
    Xd, sq = store[STORE_XD], store[STORE_SQ]
    sparse = kern[KERN_SPARSE]
    perm = svs[SV_PERM]
    rows, slot_meta, id_meta, stats = cache
    slot, valid = cache_acquire(rows, slot_meta, id_meta, stats, rid, ncol)
    if slot >= 0 and store[STORE_ROW_GEN][rid] != svs[SV_GMETA][0]:  # behind the layout
        valid = sync_row(rid, slot, ncol, valid, store[STORE_ROW_GEN], svs, cache, scratch)
    target = scratch if slot < 0 else rows[slot]
    if par is not None and valid < ncol and parallel_worth(ncol - valid,
                                                           _row_width(rid, store, sparse)):
        cnt[KEVALS] += columns_in_blocks(rid, valid, ncol, store, kern, perm, svs[SV_PANEL], ws,
                                         target)
        cache_set_length(slot_meta, slot, ncol)
    elif valid < ncol and not sparse and kern[KERN_CODE] == RBF and svs[SV_PANEL].shape[0] == 0:
        cnt[KEVALS] += _dense_rbf_columns(rid, valid, ncol, Xd, sq, perm, kern[KERN_GAMMA],
                                          target)
        cache_set_length(slot_meta, slot, ncol)
    elif valid < ncol:
        fill_columns(rid, valid, ncol, target, store, kern, svs, ws, cnt)
        cache_set_length(slot_meta, slot, ncol)
    return target[:ncol]


@njit(cache=True)
def _dense_rbf_columns(rid, lo, hi, Xd, sq, perm, gamma, target):
    """:func:`_column_dots` then :func:`dots_to_columns` for a dense RBF row, with the
    distance taken beside each dot product (where the row of the member and its squared
    norm are loaded anyway) and the exponentials in a loop of their own: the same
    arithmetic, so the same bits, with one pass less over the row. Returns the number of
    kernel values (columns that are not holes)."""
    x_sq = sq[rid]
    row = target[lo:hi]
    cols = perm[lo:hi]
    n = row.shape[0]
    live = 0
    for j in range(n):
        s = cols[j]
        if s < 0:
            row[j] = 0.0
        else:
            distance = x_sq + sq[s] - 2.0 * dot_rows(Xd, rid, Xd, s)
            if distance < 0.0:
                distance = 0.0
            row[j] = -gamma * distance
            live += 1
    for j in range(n):
        row[j] = exp_nonpositive(row[j])
    if live < n:  # exp(0) = 1 where the holes are: 0 again
        for j in range(n):
            if cols[j] < 0:
                row[j] = 0.0
    return live


@njit(cache=True, inline="always")
def _scatter_row(rid, indptr, indices, data, ws, clear):
    """Write CSR example ``rid`` into the dense workspace ``ws`` (or zero it again)."""
    for p in range(indptr[rid], indptr[rid + 1]):
        ws[indices[p]] = 0.0 if clear else data[p]


@njit(cache=True, inline="always")
def _column_dots(rid, lo, hi, Xd, indptr, indices, data, sparse, perm, ws, target):
    """``target[j] = x_rid · x_perm[j]`` for ``lo <= j < hi`` (0 for holes of S); for CSR,
    ``x_rid`` already scattered into ``ws``. dot_rows, not dot_dense(Xd[rid], Xd[s]): a view
    per column costs reference counting, which on 10 features took longer than the dot
    product (same bits)."""
    for j in range(lo, hi):
        s = perm[j]
        if s < 0:
            target[j] = 0.0
        elif sparse:
            dot = 0.0
            for p in range(indptr[s], indptr[s + 1]):
                dot += ws[indices[p]] * data[p]
            target[j] = dot
        else:
            target[j] = dot_rows(Xd, rid, Xd, s)


@njit(cache=True)
def _row_width(rid, store, sparse):
    """Values per stored row, for the cost of a kernel row: the features of a dense row, the
    stored values of example ``rid`` for CSR (about what a column of its row costs)."""
    if sparse:
        indptr = store[STORE_INDPTR]
        return indptr[rid + 1] - indptr[rid]
    return store[STORE_XD].shape[1]


@njit(cache=True, parallel=True)
def columns_in_blocks(rid, valid, ncol, store, kern, perm, panel, ws, target):
    """:func:`kernel_row`'s columns ``valid .. ncol - 1`` on several threads: fixed blocks of
    ``PARALLEL_BLOCK`` columns, each computed as the one-thread loop computes it (the same
    bits); for CSR, ``x`` is scattered into ``ws`` once and only read inside the blocks.
    Returns the number of kernel values computed."""
    indptr, indices, data = store[STORE_INDPTR], store[STORE_INDICES], store[STORE_DATA]
    sparse = kern[KERN_SPARSE]
    if sparse:
        _scatter_row(rid, indptr, indices, data, ws, False)
    n_blocks = (ncol - valid + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK
    live = np.zeros(n_blocks, dtype=np.int64)
    for b in prange(n_blocks):
        lo = valid + b * PARALLEL_BLOCK
        hi = min(lo + PARALLEL_BLOCK, ncol)
        live[b] = columns(rid, lo, hi, store, kern, perm, panel, ws, target)
    if sparse:
        _scatter_row(rid, indptr, indices, data, ws, True)
    return live.sum()


@njit(cache=True)
def column_dots(Xd, s, j, ids, slots, m, rows):
    """Column ``j`` of the cached rows ``slots[:m]`` (dense examples ``ids[:m]``): the dot
    products with stored example ``s``, four rows at a time so that they share the loads of
    ``Xd[s]`` (:func:`~streamsvm.kernels._core.dot_rows4`; the same bits as one at a time)."""
    b = 0
    while b + 4 <= m:
        d0, d1, d2, d3 = dot_rows4(Xd, ids[b], ids[b + 1], ids[b + 2], ids[b + 3], Xd, s)
        rows[slots[b], j] = d0
        rows[slots[b + 1], j] = d1
        rows[slots[b + 2], j] = d2
        rows[slots[b + 3], j] = d3
        b += 4
    for rest in range(b, m):
        rows[slots[rest], j] = dot_rows(Xd, ids[rest], Xd, s)
