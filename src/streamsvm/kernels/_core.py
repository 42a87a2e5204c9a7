"""Jitted kernel maths: kernel values, rows and Gram matrices (pure functions over arrays).

Everything here is ``@njit(cache=True)`` and meant to be called from the algorithms' own
jitted loops, so the arguments are plain arrays and scalars:

* a kernel is ``(code, gamma, degree, coef0)`` with ``code`` one of the module constants
  :data:`LINEAR`, :data:`RBF`, :data:`POLY`, :data:`SIGMOID` (int), ``gamma`` and ``coef0``
  floats and ``degree`` an int >= 1. The formulas are scikit-learn's:

  - linear  ``x·z``
  - rbf     ``exp(-gamma ‖x − z‖²)`` with ``‖x − z‖² = ‖x‖² + ‖z‖² − 2 x·z`` clamped at 0
  - poly    ``(gamma x·z + coef0)^degree``
  - sigmoid ``tanh(gamma x·z + coef0)``

* dense vectors are 1-D ``float64`` arrays, a dense block of stored vectors is a 2-D
  C-contiguous ``float64`` array (one vector per row);
* a CSR block is ``(indptr, indices, data)`` with sorted ``int32`` indices and ``float64``
  data (the layout :mod:`streamsvm.input.validation` produces); one CSR vector is
  ``(indices, data)``;
* squared norms (``‖x‖²``) are passed in, never recomputed: the algorithms keep them beside
  the stored vectors.

Callers convert their input once to float64 / C-contiguous / int32 indices (as
:func:`streamsvm.input.validation.check_features` does), so numba compiles a single
specialization of each function; passing float32 or non-contiguous arrays works but
compiles (and caches) another one.

A row over a contiguous part of a block is computed by slicing, which numba does without a
copy: ``kernel_row_dense(x, xs, block[a:b], sqnorms[a:b], ..., out[a:b])`` and, for CSR,
``kernel_row_csr(xi, xd, xs, indptr[a:b + 1], indices, data, sqnorms[a:b], ..., out[a:b])``
(``indptr`` values index the whole ``indices``/``data`` arrays, so those are not sliced).

Sparse dot products of a row against a CSR block scatter ``x`` into a dense workspace of
length ``n_features`` once, then gather ``workspace[indices[p]] * data[p]`` over the block's
stored values: one pass over the block with no branches, O(nnz(x) + nnz(block)). The
alternative, merging the two sorted index lists per block row, costs
O(nnz(x) + nnz(row)) *per block row* and branches unpredictably; on Reuters-like data it is
about ten times slower (``benchmarks/library/bench_kernels.py`` measures both). The merge is
used only for a single pair of CSR vectors (:func:`kernel_csr`), where no workspace is at hand.

The LRU cache of kernel rows and its compiled functions are in :mod:`streamsvm.kernels.cache`.

**Threads.** :func:`kernel_row_dense` computes its row in parallel (``prange`` over fixed blocks
of ``PARALLEL_BLOCK`` rows) when numba has more than one thread (``numba.get_num_threads()``,
set per call from an estimator's ``n_jobs`` by :mod:`streamsvm.utils.threads`) and the row costs at
least ``PARALLEL_MIN_WORK`` multiply-adds; every value is computed by the same code either way,
so the row is bit for bit the same whatever the thread count. Below the threshold the cost of
waking the threads exceeds the gain. Its last argument ``par`` is None on one thread: numba
prunes the ``par is not None`` branch before typing, so a one-thread caller compiles no
``parallel=True`` function (4-5 CPU s of IncrementalSVM's and the Twin Vector Machine's cold
first fits); :func:`threads_par` gives the value for a call made now.
"""

import numba
import numpy as np
from numba import njit, prange

from ..utils.threads import threads_now

__all__ = [
    "LINEAR",
    "RBF",
    "POLY",
    "SIGMOID",
    # scalar kernels
    "PARALLEL_BLOCK",
    "PARALLEL_MIN_WORK",
    "parallel_worth",
    "threads_par",
    "exp_nonpositive",
    "kernel_from_dot",
    "dot_dense",
    "dot_rows",
    "dot_rows4",
    "dot_csr_dense",
    "dot_csr",
    "kernel_dense",
    "kernel_csr",
    "kernel_csr_dense",
    # squared norms and self-kernels
    "sqnorms_dense",
    "sqnorms_csr",
    "self_kernels",
    # rows
    "kernel_row_dense",
    "kernel_row_csr",
    "kernel_row_dense_csr",
    "kernel_row_csr_dense",
    "normalize_row",
    # Gram matrices
    "gram_dense",
    "gram_csr",
    "gram_dense_csr",
    "normalize_gram",
]

#: Kernel codes understood by every function of this module.
LINEAR = 0
RBF = 1
POLY = 2
SIGMOID = 3

_DOT_FLAGS = {"reassoc", "contract"}  # lets LLVM vectorise the dense dot reductions

#: rows per block of the parallel kernel rows (fixed: the blocks never depend on the threads)
PARALLEL_BLOCK = 256
#: the least work (multiply-adds, about rows x (features + 8)) that is run on several threads
PARALLEL_MIN_WORK = 1 << 16

# exp_nonpositive: exp(x) = 2^k exp(r), k = round(x / ln 2), |r| <= ln(2) / 2, ln 2 split in
# a high part with trailing zero bits (k * _LN2_HI is exact) and the rest
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_EXP_FLOOR = -708.0  #: below this exp(x) < 3.4e-308: 0 (no subnormal results)
_POW2_NEG = np.ldexp(1.0, -np.arange(1024))  #: 2^-k, k = 0 .. 1023
# 1 / n! for the Taylor polynomial of exp(r) on |r| <= ln(2) / 2 (remainder < 2e-16)
_F2, _F3, _F4, _F5, _F6 = 1 / 2, 1 / 6, 1 / 24, 1 / 120, 1 / 720
_F7, _F8, _F9, _F10 = 1 / 5040, 1 / 40320, 1 / 362880, 1 / 3628800
_F11, _F12 = 1 / 39916800, 1 / 479001600


# --------------------------------------------------------------------------- scalar kernels


@njit(cache=True)
def _integer_power(base, exponent):
    """``base ** exponent`` for an int exponent >= 0, by repeated squaring."""
    result = 1.0
    while exponent > 0:
        if exponent & 1:
            result *= base
        base *= base
        exponent >>= 1
    return result


@njit(cache=True)
def exp_nonpositive(x):
    """``exp(x)`` for ``x <= 0`` (the RBF kernel's argument), within 2 ulp of the correctly
    rounded value, and 0 below -708 (where exp underflows to subnormals).

    Plain IEEE arithmetic and a table lookup, with no call into libm: in a loop over an array
    LLVM vectorises it (about 1.5 ns a value against libm's 4.4 ns here), and the scalar and
    vectorised forms give the same bits, so a kernel value does not depend on which code path
    computed it. Positive ``x`` is not supported (the table holds ``2^-k`` only)."""
    if not x >= _EXP_FLOOR:
        return 0.0 if x < _EXP_FLOOR else x  # NaN stays NaN
    k = np.floor(x * _LOG2E + 0.5)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = _F12 * r + _F11
    p = p * r + _F10
    p = p * r + _F9
    p = p * r + _F8
    p = p * r + _F7
    p = p * r + _F6
    p = p * r + _F5
    p = p * r + _F4
    p = p * r + _F3
    p = p * r + _F2
    p = p * r + 1.0
    p = p * r + 1.0
    return p * _POW2_NEG[np.int64(-k)]


@njit(cache=True)
def kernel_from_dot(dot, x_sqnorm, z_sqnorm, code, gamma, degree, coef0):
    """Kernel value from ``x·z`` and the squared norms ``‖x‖²``, ``‖z‖²`` (see module doc)."""
    if code == LINEAR:
        return dot
    if code == RBF:
        distance = x_sqnorm + z_sqnorm - 2.0 * dot
        if distance < 0.0:
            distance = 0.0
        return exp_nonpositive(-gamma * distance)
    if code == POLY:
        return _integer_power(gamma * dot + coef0, degree)
    if code == SIGMOID:
        return np.tanh(gamma * dot + coef0)
    raise ValueError("unknown kernel code; use LINEAR, RBF, POLY or SIGMOID")


@njit(cache=True, fastmath=_DOT_FLAGS)
def dot_dense(x, z):
    """``x·z`` of two dense vectors of equal length."""
    total = 0.0
    for j in range(x.shape[0]):
        total += x[j] * z[j]
    return total


@njit(cache=True, fastmath=_DOT_FLAGS)
def dot_rows(X, i, Z, j):
    """``X[i]·Z[j]`` for rows of two dense 2-D arrays of equal width, without making views
    of the rows (each view costs reference counting when made in an inner loop); the same
    summation order as :func:`dot_dense`."""
    total = 0.0
    for q in range(X.shape[1]):
        total += X[i, q] * Z[j, q]
    return total


@njit(cache=True, fastmath=_DOT_FLAGS)
def dot_rows4(X, i0, i1, i2, i3, Z, j):
    """``(X[i0]·Z[j], X[i1]·Z[j], X[i2]·Z[j], X[i3]·Z[j])``: four dot products that share the
    loads of ``Z[j]`` (half the memory traffic of four :func:`dot_rows`)."""
    t0 = 0.0
    t1 = 0.0
    t2 = 0.0
    t3 = 0.0
    for q in range(X.shape[1]):
        z = Z[j, q]
        t0 += X[i0, q] * z
        t1 += X[i1, q] * z
        t2 += X[i2, q] * z
        t3 += X[i3, q] * z
    return t0, t1, t2, t3


@njit(cache=True)
def dot_csr_dense(indices, data, z):
    """``x·z`` for a CSR vector ``x = (indices, data)`` and a dense vector ``z``."""
    total = 0.0
    for p in range(indices.shape[0]):
        total += data[p] * z[indices[p]]
    return total


@njit(cache=True)
def dot_csr(x_indices, x_data, z_indices, z_data):
    """``x·z`` of two CSR vectors with sorted indices, by merging the index lists."""
    total = 0.0
    p = 0
    q = 0
    while p < x_indices.shape[0] and q < z_indices.shape[0]:
        i = x_indices[p]
        j = z_indices[q]
        if i == j:
            total += x_data[p] * z_data[q]
            p += 1
            q += 1
        elif i < j:
            p += 1
        else:
            q += 1
    return total


@njit(cache=True)
def kernel_dense(x, x_sqnorm, z, z_sqnorm, code, gamma, degree, coef0):
    """``k(x, z)`` of two dense vectors given their squared norms."""
    return kernel_from_dot(dot_dense(x, z), x_sqnorm, z_sqnorm, code, gamma, degree, coef0)


@njit(cache=True)
def kernel_csr(x_indices, x_data, x_sqnorm, z_indices, z_data, z_sqnorm, code, gamma, degree,
               coef0):
    """``k(x, z)`` of two CSR vectors (sorted indices) given their squared norms."""
    dot = dot_csr(x_indices, x_data, z_indices, z_data)
    return kernel_from_dot(dot, x_sqnorm, z_sqnorm, code, gamma, degree, coef0)


@njit(cache=True)
def kernel_csr_dense(x_indices, x_data, x_sqnorm, z, z_sqnorm, code, gamma, degree, coef0):
    """``k(x, z)`` of a CSR vector ``x`` and a dense vector ``z`` given their squared norms."""
    dot = dot_csr_dense(x_indices, x_data, z)
    return kernel_from_dot(dot, x_sqnorm, z_sqnorm, code, gamma, degree, coef0)


# --------------------------------------------------------------- squared norms, self-kernels


@njit(cache=True)
def sqnorms_dense(block, out):
    """``out[i] = ‖block[i]‖²`` for a (n, d) dense block; ``out`` has shape (n,)."""
    for i in range(block.shape[0]):
        out[i] = dot_dense(block[i], block[i])
    return out


@njit(cache=True)
def sqnorms_csr(indptr, data, out):
    """``out[i] = ‖row i‖²`` for a CSR block given ``indptr`` (n + 1,) and ``data``."""
    for i in range(indptr.shape[0] - 1):
        total = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            total += data[p] * data[p]
        out[i] = total
    return out


@njit(cache=True)
def self_kernels(sqnorms, code, gamma, degree, coef0, out):
    """``out[i] = k(x_i, x_i)`` from the squared norms ``sqnorms[i] = ‖x_i‖²`` (shape (n,)).

    Linear ``‖x‖²``, rbf 1, poly ``(gamma ‖x‖² + coef0)^degree``,
    sigmoid ``tanh(gamma ‖x‖² + coef0)``.
    """
    for i in range(sqnorms.shape[0]):
        s = sqnorms[i]
        out[i] = kernel_from_dot(s, s, s, code, gamma, degree, coef0)
    return out


# --------------------------------------------------------------------------------- rows


@njit(cache=True)
def _dots_to_kernel(out, x_sqnorm, block_sqnorms, code, gamma, degree, coef0):
    """Turn ``out[j] = x·z_j`` into ``out[j] = k(x, z_j)`` in place (one branch per row)."""
    n = out.shape[0]
    if code == LINEAR:
        return
    if code == RBF:
        for j in range(n):
            distance = x_sqnorm + block_sqnorms[j] - 2.0 * out[j]
            if distance < 0.0:
                distance = 0.0
            out[j] = exp_nonpositive(-gamma * distance)
        return
    if code == POLY:
        for j in range(n):
            out[j] = _integer_power(gamma * out[j] + coef0, degree)
        return
    if code == SIGMOID:
        for j in range(n):
            out[j] = np.tanh(gamma * out[j] + coef0)
        return
    raise ValueError("unknown kernel code; use LINEAR, RBF, POLY or SIGMOID")


@njit(cache=True)
def copy_into(dst, src):
    """``dst[:n] = src`` (``n = len(src)``) as a loop: numba compiles an array-to-array slice
    assignment with its shape-mismatch message, about 4 CPU s of string code in every process
    that compiles one (the same values; LLVM vectorises the loop)."""
    for u in range(src.shape[0]):
        dst[u] = src[u]


def threads_par():
    """The ``par`` argument of the compiled loops for a call made now: None when numba runs
    one thread (``n_jobs=None`` or 1: the loops then compile no ``parallel=True`` function),
    else True. Plain Python, called by the estimators before entering a compiled loop."""
    return None if numba.get_num_threads() == 1 else True


@njit(cache=True)
def parallel_worth(n_rows, n_features):
    """Whether a loop over ``n_rows`` rows of ``n_features`` values runs on several threads:
    numba has more than one (``streamsvm.utils.threads``) and the work reaches
    ``PARALLEL_MIN_WORK``."""
    return (n_rows > PARALLEL_BLOCK and n_rows * (n_features + 8) >= PARALLEL_MIN_WORK
            and threads_now() > 1)


@njit(cache=True)
def _kernel_row_dense_serial(x, x_sqnorm, block, block_sqnorms, code, gamma, degree, coef0,
                             row):
    for j in range(row.shape[0]):
        row[j] = dot_dense(x, block[j])
    _dots_to_kernel(row, x_sqnorm, block_sqnorms, code, gamma, degree, coef0)


@njit(cache=True, parallel=True)
def _kernel_row_dense_blocks(x, x_sqnorm, block, block_sqnorms, code, gamma, degree, coef0,
                             row):
    """:func:`_kernel_row_dense_serial` over fixed blocks of ``PARALLEL_BLOCK`` rows, one
    block per task (the same values, computed by the same code)."""
    n = row.shape[0]
    for b in prange((n + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK):
        lo = b * PARALLEL_BLOCK
        hi = min(lo + PARALLEL_BLOCK, n)
        _kernel_row_dense_serial(x, x_sqnorm, block[lo:hi], block_sqnorms[lo:hi], code, gamma,
                                 degree, coef0, row[lo:hi])


@njit(cache=True)
def kernel_row_dense(x, x_sqnorm, block, block_sqnorms, code, gamma, degree, coef0, out,
                     par=True):
    """``out[j] = k(x, block[j])`` for a dense ``x`` (d,) and a C-contiguous block (n, d).

    ``block_sqnorms`` (n,) holds ``‖block[j]‖²``; ``out`` has at least n entries (only the
    first n are written). Returns ``out[:n]``. On several threads above the threshold of
    :func:`parallel_worth` (the same bits), unless ``par`` is None: then numba prunes the
    parallel branch before typing and no ``parallel=True`` function is compiled (what the
    estimators pass on one thread, :func:`threads_par`).
    """
    n = block.shape[0]
    row = out[:n]
    if par is not None and parallel_worth(n, block.shape[1]):
        _kernel_row_dense_blocks(x, x_sqnorm, block, block_sqnorms, code, gamma, degree,
                                 coef0, row)
    else:
        _kernel_row_dense_serial(x, x_sqnorm, block, block_sqnorms, code, gamma, degree,
                                 coef0, row)
    return row


@njit(cache=True)
def kernel_row_dense_csr(x, x_sqnorm, block_indptr, block_indices, block_data, block_sqnorms,
                         code, gamma, degree, coef0, out):
    """``out[j] = k(x, z_j)`` for a dense ``x`` (d,) and the rows ``z_j`` of a CSR block.

    The block has ``n = len(block_indptr) - 1`` rows; returns ``out[:n]``.
    """
    n = block_indptr.shape[0] - 1
    row = out[:n]
    for j in range(n):
        total = 0.0
        for p in range(block_indptr[j], block_indptr[j + 1]):
            total += x[block_indices[p]] * block_data[p]
        row[j] = total
    _dots_to_kernel(row, x_sqnorm, block_sqnorms, code, gamma, degree, coef0)
    return row


@njit(cache=True)
def kernel_row_csr(x_indices, x_data, x_sqnorm, block_indptr, block_indices, block_data,
                   block_sqnorms, code, gamma, degree, coef0, workspace, out):
    """``out[j] = k(x, z_j)`` for a CSR vector ``x = (x_indices, x_data)`` and a CSR block.

    ``workspace`` is a float64 array of length >= n_features holding zeros; ``x`` is
    scattered into it, the block's values gather from it, and it is zeroed again before
    returning. Returns ``out[:n]`` with ``n = len(block_indptr) - 1``.
    """
    for p in range(x_indices.shape[0]):
        workspace[x_indices[p]] = x_data[p]
    row = kernel_row_dense_csr(workspace, x_sqnorm, block_indptr, block_indices, block_data,
                               block_sqnorms, code, gamma, degree, coef0, out)
    for p in range(x_indices.shape[0]):
        workspace[x_indices[p]] = 0.0
    return row


@njit(cache=True)
def kernel_row_csr_dense(x_indices, x_data, x_sqnorm, block, block_sqnorms, code, gamma,
                         degree, coef0, out):
    """``out[j] = k(x, block[j])`` for a CSR vector ``x`` and a dense block (n, d)."""
    n = block.shape[0]
    row = out[:n]
    for j in range(n):
        row[j] = dot_csr_dense(x_indices, x_data, block[j])
    _dots_to_kernel(row, x_sqnorm, block_sqnorms, code, gamma, degree, coef0)
    return row


@njit(cache=True)
def normalize_row(row, x_self, block_self):
    """Normalise a kernel row in place: ``row[j] /= sqrt(k(x,x) k(z_j,z_j))``.

    ``x_self = k(x, x)``, ``block_self[j] = k(z_j, z_j)`` (see :func:`self_kernels`). Where
    the product of the self values is <= 0 (a zero vector under the linear or poly kernel)
    the normalised value is defined as 0. Normalised kernels have ``k(x, x) = 1`` for every
    non-zero ``x``, which the MEB formulation of StreamSVM needs. Returns ``row``.
    """
    for j in range(row.shape[0]):
        product = x_self * block_self[j]
        if product > 0.0:
            row[j] = row[j] / np.sqrt(product)
        else:
            row[j] = 0.0
    return row


# ------------------------------------------------------------------------------- Gram


@njit(cache=True)
def gram_dense(A, A_sqnorms, B, B_sqnorms, code, gamma, degree, coef0, out, par=True):
    """``out[i, j] = k(A[i], B[j])`` for dense blocks A (m, d), B (n, d); ``out`` (m, n).

    Row ``i`` is exactly :func:`kernel_row_dense` of ``A[i]`` against ``B`` (``par`` as
    there).
    """
    for i in range(A.shape[0]):
        kernel_row_dense(A[i], A_sqnorms[i], B, B_sqnorms, code, gamma, degree, coef0, out[i],
                         par)
    return out


@njit(cache=True)
def gram_csr(A_indptr, A_indices, A_data, A_sqnorms, B_indptr, B_indices, B_data, B_sqnorms,
             n_features, code, gamma, degree, coef0, out):
    """``out[i, j] = k(a_i, b_j)`` for two CSR blocks of width ``n_features``; ``out`` (m, n).

    Row ``i`` is exactly :func:`kernel_row_csr` of ``a_i`` against B.
    """
    workspace = np.zeros(n_features)
    for i in range(A_indptr.shape[0] - 1):
        start, stop = A_indptr[i], A_indptr[i + 1]
        kernel_row_csr(A_indices[start:stop], A_data[start:stop], A_sqnorms[i], B_indptr,
                       B_indices, B_data, B_sqnorms, code, gamma, degree, coef0, workspace,
                       out[i])
    return out


@njit(cache=True)
def gram_dense_csr(A, A_sqnorms, B_indptr, B_indices, B_data, B_sqnorms, code, gamma, degree,
                   coef0, out):
    """``out[i, j] = k(A[i], b_j)`` for a dense block A (m, d) and a CSR block B; ``out`` (m, n).

    Also gives CSR-vs-dense Gram matrices by symmetry of the kernels (transpose).
    """
    for i in range(A.shape[0]):
        kernel_row_dense_csr(A[i], A_sqnorms[i], B_indptr, B_indices, B_data, B_sqnorms, code,
                             gamma, degree, coef0, out[i])
    return out


@njit(cache=True)
def normalize_gram(out, A_self, B_self):
    """Normalise a Gram matrix in place: ``out[i, j] /= sqrt(A_self[i] B_self[j])`` (0 if the
    product is <= 0), as :func:`normalize_row` does for each row."""
    for i in range(out.shape[0]):
        normalize_row(out[i], A_self[i], B_self)
    return out
