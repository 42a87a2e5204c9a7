"""The :class:`Kernel` object: scikit-learn-style kernel parameters, validation, and rows,
Gram matrices and self-kernels of dense or CSR input through the jitted functions of
:mod:`streamsvm.kernels._core`."""

from __future__ import annotations

import math
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

from ..utils.params import Boolean, Interval, IsCallable, Options, check_param_values
from . import _core

__all__ = [
    "KERNEL_CODES",
    "KERNEL_NAMES",
    "KERNEL_PARAMETER_CONSTRAINTS",
    "KERNEL_VALUE_LIMIT",
    "Kernel",
    "PSD_KERNELS",
    "PreparedBlock",
    "dense_blocks",
    "kernel_parameter_constraints",
    "max_safe_sqnorm",
    "psd_kernel_rule",
    "resolve_gamma",
    "uses_gamma",
    "validate_kernel_params",
]

#: Kernel name -> integer code of the jitted functions.
KERNEL_CODES = {
    "linear": _core.LINEAR,
    "rbf": _core.RBF,
    "poly": _core.POLY,
    "sigmoid": _core.SIGMOID,
}
#: Integer code of the jitted functions -> kernel name (the inverse of :data:`KERNEL_CODES`).
KERNEL_NAMES = {code: name for name, code in KERNEL_CODES.items()}

_CALLABLE_CHUNK = 256  # rows per call when a callable's self-kernels are computed
_DENSE_BLOCK = 1024  # CSR rows densified at a time by :func:`dense_blocks`

#: The kernel parameters of every kernel estimator (and of :class:`Kernel`), as constraint
#: lists of :mod:`streamsvm.utils.params`; estimators take theirs from
#: :func:`kernel_parameter_constraints`.
KERNEL_PARAMETER_CONSTRAINTS = {
    "kernel": [Options(*KERNEL_CODES), IsCallable()],
    "gamma": [Options("scale", "auto"), Interval(numbers.Real, 0, None, closed="neither")],
    "degree": [Interval(numbers.Integral, 1, None)],
    "coef0": [Interval(numbers.Real)],
    "normalized": [Boolean()],
}


#: The named kernels whose Gram matrices are positive semi-definite for every allowed
#: parameter value (poly: with ``coef0 >= 0``, see :func:`psd_kernel_rule`). The sigmoid
#: kernel ``tanh(gamma x·z + coef0)`` is not a Mercer kernel: its Gram matrices can have
#: negative eigenvalues for every gamma > 0.
PSD_KERNELS = ("linear", "rbf", "poly")


class PsdKernelOptions(Options):
    """The named kernels of an estimator that needs a positive semi-definite Gram matrix;
    the refusal says why (``why``: what needs it)."""

    def __init__(self, *choices, why: str):
        super().__init__(*choices)
        self.why = why

    def parts(self) -> list[str]:
        parts = super().parts()
        refused = [name for name in KERNEL_CODES if name not in self.choices]
        parts[-1] += (f" (the positive semi-definite kernels, which {self.why}; "
                      + " and ".join(repr(name) for name in refused)
                      + (" is not one" if len(refused) == 1 else " are not")
                      + ": its Gram matrices can have negative eigenvalues)")
        return parts


def kernel_parameter_constraints(kernels=tuple(KERNEL_CODES), *, callable_kernel=False,
                                 names=("kernel", "gamma", "degree", "coef0"),
                                 psd_why: str | None = None) -> dict:
    """The entries ``names`` of :data:`KERNEL_PARAMETER_CONSTRAINTS` for an estimator whose
    ``kernel`` may be one of ``kernels`` (and a callable if ``callable_kernel``).

    ``psd_why``: the estimator needs a positive semi-definite Gram matrix (``psd_why`` says
    what needs it, for the error): ``kernels`` are cut to :data:`PSD_KERNELS`, the refusal
    of another names the reason, and the estimator lists :func:`psd_kernel_rule` in its
    ``_parameter_rules`` (poly with ``coef0 < 0`` is not positive semi-definite either)."""
    table = {name: list(KERNEL_PARAMETER_CONSTRAINTS[name]) for name in names}
    if "kernel" in table:
        unknown = set(kernels) - set(KERNEL_CODES)
        if unknown:
            raise ValueError(f"unknown kernel names {sorted(unknown)}")
        if psd_why is None:
            choice = Options(*kernels)
        else:
            choice = PsdKernelOptions(*(k for k in kernels if k in PSD_KERNELS), why=psd_why)
        table["kernel"] = [choice] + ([IsCallable()] if callable_kernel else [])
    return table


def psd_kernel_rule(model):
    """A ``_parameter_rules`` entry (:mod:`streamsvm.utils.params`) of the estimators that need a
    positive semi-definite Gram matrix: ``kernel='poly'`` with ``coef0 < 0`` is refused
    (``(gamma x·z + coef0)^degree`` with a negative ``coef0`` has Gram matrices with negative
    eigenvalues, e.g. degree 1 on two equal rows of small norm)."""
    coef0 = getattr(model, "coef0", 0.0)
    if (getattr(model, "kernel", None) == "poly" and isinstance(coef0, numbers.Real)
            and coef0 < 0):
        return "coef0", ("a float >= 0 with kernel='poly': with a negative coef0 the "
                         "polynomial kernel is not positive semi-definite, and "
                         f"{type(model).__name__}'s solves need a positive semi-definite "
                         "Gram matrix")
    return None


def validate_kernel_params(kernel, *, gamma="scale", degree=3, coef0=0.0, normalized=False):
    """Check kernel parameters against :data:`KERNEL_PARAMETER_CONSTRAINTS`; raise
    ``ValueError`` naming the parameter, the value given and what is allowed. Returns ``None``.

    >>> validate_kernel_params("rbf", gamma=0.5)
    >>> validate_kernel_params("poly", degree=0)
    Traceback (most recent call last):
    ...
    ValueError: Kernel: parameter degree=0 is invalid; allowed: an int >= 1
    """
    check_param_values(KERNEL_PARAMETER_CONSTRAINTS,
                       {"kernel": kernel, "gamma": gamma, "degree": degree, "coef0": coef0,
                        "normalized": normalized}, "Kernel")


def uses_gamma(kernel) -> bool:
    """Whether ``kernel`` has a ``gamma``: 'rbf', 'poly' and 'sigmoid' do; 'linear' and
    callables do not."""
    return not callable(kernel) and kernel != "linear"


def resolve_gamma(gamma, X) -> float:
    """The number ``gamma`` stands for on data X (dense or sparse), as
    :class:`sklearn.svm.SVC` computes it: ``'scale'`` -> ``1 / (n_features * Var(X))``, the
    variance of all entries (zeros of sparse X included: ``mean(X²) - mean(X)²``), and 1.0
    when that variance is 0; ``'auto'`` -> ``1 / n_features``; a number -> itself.

    >>> resolve_gamma("scale", np.array([[0.0, 2.0], [2.0, 0.0]]))
    0.5
    >>> resolve_gamma("auto", np.zeros((3, 4)))
    0.25
    """
    if not isinstance(gamma, str):
        return float(gamma)
    if sp.issparse(X):
        X = sp.csr_matrix(X).astype(np.float64)
    else:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"gamma={gamma!r} needs a 2-D X to be resolved; got shape {X.shape}")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"gamma={gamma!r} needs a non-empty X to be resolved; got shape "
                         f"{X.shape}")
    if gamma == "auto":
        return 1.0 / X.shape[1]
    if gamma != "scale":
        raise ValueError(f"gamma must be 'scale', 'auto' or a positive float; got {gamma!r}")
    with np.errstate(over="ignore", under="ignore"):  # a value out of range is refused below
        variance = X.multiply(X).mean() - X.mean() ** 2 if sp.issparse(X) else X.var()
        if variance == 0:
            return 1.0
        value = float(1.0 / (X.shape[1] * variance))
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"gamma='scale' is not a positive finite number on this data "
                         f"(Var(X) = {variance!r}); give gamma as a number")
    return value


def dense_blocks(X, *arrays):
    """``(rows, *arrays)`` as dense C-contiguous float64 blocks, for loops over dense rows:
    dense X whole, CSR X densified 1024 rows at a time (memory stays bounded), each of
    ``arrays`` sliced alongside."""
    if not sp.issparse(X):
        yield (np.ascontiguousarray(X, dtype=np.float64), *arrays)
        return
    for start in range(0, X.shape[0], _DENSE_BLOCK):
        stop = start + _DENSE_BLOCK
        yield (X[start:stop].toarray(), *(a[start:stop] for a in arrays))


class PreparedBlock:
    """A block of vectors in the layout of the jitted functions, with its squared norms.

    Dense: ``dense`` is C-contiguous float64 (n, d). CSR: ``indptr``, ``indices`` (int32,
    sorted per row) and ``data`` (float64). ``sqnorms[i] = ‖row i‖²``. Made by
    :meth:`Kernel.prepare`; pass it instead of the raw array to repeated :meth:`Kernel.row`
    calls to skip the conversion and the norms.
    """

    __slots__ = ("is_sparse", "dense", "indptr", "indices", "data", "n_samples", "n_features",
                 "sqnorms", "_self_values")

    def __init__(self, X):
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            if not X.has_sorted_indices:
                X = X.sorted_indices()
            if X.nnz >= np.iinfo(np.int32).max:
                raise ValueError("sparse input has more than 2**31 stored values; split it")
            self.is_sparse = True
            self.dense = None
            self.indptr = np.ascontiguousarray(X.indptr, dtype=np.int32)
            self.indices = np.ascontiguousarray(X.indices, dtype=np.int32)
            self.data = np.ascontiguousarray(X.data, dtype=np.float64)
            self.n_samples, self.n_features = X.shape
            self.sqnorms = _core.sqnorms_csr(self.indptr, self.data, np.empty(self.n_samples))
        else:
            dense = np.ascontiguousarray(X, dtype=np.float64)
            if dense.ndim == 1:
                dense = dense.reshape(1, -1)
            if dense.ndim != 2:
                raise ValueError(f"expected a 1-D or 2-D array of vectors; got shape {dense.shape}")
            self.is_sparse = False
            self.dense = dense
            self.indptr = self.indices = self.data = None
            self.n_samples, self.n_features = dense.shape
            self.sqnorms = _core.sqnorms_dense(dense, np.empty(self.n_samples))
        self._self_values = {}

    def row_slice(self, i):
        """Row ``i`` as ``dense[i]`` or ``(indices, data)``."""
        if self.is_sparse:
            start, stop = self.indptr[i], self.indptr[i + 1]
            return self.indices[start:stop], self.data[start:stop]
        return self.dense[i]

    def __repr__(self):
        kind = "CSR" if self.is_sparse else "dense"
        return f"PreparedBlock({kind}, n_samples={self.n_samples}, n_features={self.n_features})"


def _prepared(X) -> PreparedBlock:
    return X if isinstance(X, PreparedBlock) else PreparedBlock(X)


class Kernel:
    """A kernel function from scikit-learn-style parameters.

    ``kernel`` is ``'linear'`` (``x·z``), ``'rbf'`` (``exp(-gamma ‖x − z‖²)``), ``'poly'``
    (``(gamma x·z + coef0)^degree``), ``'sigmoid'`` (``tanh(gamma x·z + coef0)``) or a
    callable ``kernel(A, B) -> (len(A), len(B)) array`` as accepted by
    :class:`sklearn.svm.SVC`. ``gamma='scale'``/``'auto'`` are resolved from training data
    by :meth:`resolve`. ``normalized=True`` gives ``k(x, z) / sqrt(k(x, x) k(z, z))``, which
    has ``k(x, x) = 1`` for every non-zero x (the MEB equivalence of StreamSVM needs a
    constant ``k(x, x)``; RBF has it already).

    :meth:`row`, :meth:`matrix`, :meth:`self_values` and :meth:`diag` take dense arrays
    (any float dtype), scipy sparse matrices, or a :class:`PreparedBlock`; everything is
    converted once to float64 (C-contiguous; CSR with int32 sorted indices) so the jitted
    functions have one specialization. Results are float64. Inputs are not checked for
    NaN/inf (estimators validate their input first).

    ``n_evals`` counts kernel values computed (one per returned entry); algorithms that call
    the jitted functions directly add theirs with :meth:`add_evals`.

    Callable kernels go through Python (one call per :meth:`row`, and per chunk of 256 rows
    for self-kernels), are much slower and cannot be used inside jitted loops: check
    :attr:`is_callable` and use :attr:`jit_params` only when it is False.

    >>> import numpy as np
    >>> k = Kernel("rbf", gamma=0.5)
    >>> k.row(np.array([1.0, 0.0]), np.array([[1.0, 0.0], [0.0, 1.0]])).round(4)
    array([1.    , 0.3679])
    >>> k.n_evals
    2
    """

    def __init__(self, kernel="rbf", *, gamma="scale", degree=3, coef0=0.0, normalized=False):
        validate_kernel_params(kernel, gamma=gamma, degree=degree, coef0=coef0,
                               normalized=normalized)
        self.kernel = kernel
        self.gamma = gamma
        self.degree = int(degree)
        self.coef0 = float(coef0)
        self.normalized = bool(normalized)
        self.gamma_ = None if isinstance(gamma, str) else float(gamma)
        self.n_evals = 0
        self._workspace = np.zeros(0)

    # ------------------------------------------------------------------ parameters

    @property
    def is_callable(self) -> bool:
        """True for a user callable (Python path only; no jitted use)."""
        return callable(self.kernel)

    @property
    def code(self) -> int:
        """Integer code for the jitted functions (:data:`KERNEL_CODES`)."""
        if self.is_callable:
            raise TypeError("a callable kernel has no jitted code; check Kernel.is_callable")
        return KERNEL_CODES[self.kernel]

    @property
    def jit_params(self) -> tuple[int, float, int, float]:
        """``(code, gamma, degree, coef0)`` as the jitted functions take them.

        ``gamma`` must be resolved (:meth:`resolve`) unless the kernel is linear.
        """
        code = self.code
        if self.gamma_ is None:
            if code != _core.LINEAR:
                raise NotFittedError(
                    f"gamma={self.gamma!r} is not resolved yet; call Kernel.resolve(X) with the "
                    "training data first"
                )
            return code, 0.0, self.degree, self.coef0
        return code, self.gamma_, self.degree, self.coef0

    def get_params(self) -> dict:
        """The constructor parameters."""
        return {"kernel": self.kernel, "gamma": self.gamma, "degree": self.degree,
                "coef0": self.coef0, "normalized": self.normalized}

    def resolve(self, X) -> Kernel:
        """Set ``gamma_`` from training data X (dense or sparse) by :func:`resolve_gamma`
        (as :class:`sklearn.svm.SVC` does). Returns ``self``."""
        if isinstance(self.gamma, str):
            self.gamma_ = resolve_gamma(self.gamma, X)
        return self

    @classmethod
    def from_jit_params(cls, code, gamma, degree, coef0, normalized=False) -> Kernel:
        """The kernel whose :attr:`jit_params` are ``(code, gamma, degree, coef0)``: what a
        learner that keeps only those numbers predicts with (the linear kernel ignores
        ``gamma``)."""
        name = KERNEL_NAMES[int(code)]
        return cls(name, gamma="scale" if name == "linear" else float(gamma),
                   degree=int(degree), coef0=float(coef0), normalized=bool(normalized))

    # ----------------------------------------------------------------- counting

    def add_evals(self, n: int) -> None:
        """Add ``n`` kernel evaluations made elsewhere (e.g. inside jitted loops)."""
        self.n_evals += int(n)

    def reset_evals(self) -> None:
        """Set :attr:`n_evals` back to 0."""
        self.n_evals = 0

    # --------------------------------------------------------------- evaluation

    def prepare(self, X) -> PreparedBlock:
        """Convert a block once (float64, squared norms) for repeated :meth:`row` calls."""
        return _prepared(X)

    def self_values(self, A) -> np.ndarray:
        """``k(a, a)`` for every row of A, *not* normalised (shape (n,)); what the
        normalised kernel divides by."""
        block = _prepared(A)
        values = self._self_values(block)
        self.n_evals += block.n_samples
        return values.copy()

    def diag(self, A) -> np.ndarray:
        """Diagonal of the Gram matrix of A under this kernel (shape (n,)); with
        ``normalized=True`` it is 1 (0 for a row whose self-kernel is <= 0)."""
        block = _prepared(A)
        values = self._self_values(block)
        self.n_evals += block.n_samples
        if self.normalized:
            return (values > 0).astype(np.float64)
        return values.copy()

    def row(self, x, block) -> np.ndarray:
        """``k(x, z_j)`` for one example x (1-D array, or one row dense/CSR) against every
        row ``z_j`` of ``block`` (dense, CSR or :class:`PreparedBlock`); shape (n,)."""
        x = _prepared(x)
        if x.n_samples != 1:
            raise ValueError(f"x must be a single example; got {x.n_samples} rows")
        block = _prepared(block)
        self._check_widths(x, block)
        n = block.n_samples
        if self.is_callable:
            out = self._callable_gram(x, block)[0]
        else:
            out = np.empty(n)
            params = self.jit_params
            if x.is_sparse and block.is_sparse:
                x_indices, x_data = x.row_slice(0)
                _core.kernel_row_csr(x_indices, x_data, x.sqnorms[0], block.indptr,
                                     block.indices, block.data, block.sqnorms, *params,
                                     self._get_workspace(block.n_features), out)
            elif x.is_sparse:
                x_indices, x_data = x.row_slice(0)
                _core.kernel_row_csr_dense(x_indices, x_data, x.sqnorms[0], block.dense,
                                           block.sqnorms, *params, out)
            elif block.is_sparse:
                _core.kernel_row_dense_csr(x.dense[0], x.sqnorms[0], block.indptr,
                                           block.indices, block.data, block.sqnorms, *params,
                                           out)
            else:
                _core.kernel_row_dense(x.dense[0], x.sqnorms[0], block.dense, block.sqnorms,
                                       *params, out, _core.threads_par())
        if self._needs_normalizing():
            _core.normalize_row(out, self._self_values(x)[0], self._self_values(block))
        self.n_evals += n
        return out

    def matrix(self, A, B=None) -> np.ndarray:
        """Gram matrix ``K[i, j] = k(a_i, b_j)`` (shape (m, n)); ``B=None`` means A.

        Row i equals :meth:`row` of ``a_i`` against B exactly."""
        A = _prepared(A)
        B = A if B is None else _prepared(B)
        self._check_widths(A, B)
        if self.is_callable:
            out = self._callable_gram(A, B)
        else:
            out = np.empty((A.n_samples, B.n_samples))
            params = self.jit_params
            if A.is_sparse and B.is_sparse:
                _core.gram_csr(A.indptr, A.indices, A.data, A.sqnorms, B.indptr, B.indices,
                               B.data, B.sqnorms, A.n_features, *params, out)
            elif A.is_sparse:
                transposed = np.empty((B.n_samples, A.n_samples))
                _core.gram_dense_csr(B.dense, B.sqnorms, A.indptr, A.indices, A.data,
                                     A.sqnorms, *params, transposed)
                out[:] = transposed.T
            elif B.is_sparse:
                _core.gram_dense_csr(A.dense, A.sqnorms, B.indptr, B.indices, B.data,
                                     B.sqnorms, *params, out)
            else:
                _core.gram_dense(A.dense, A.sqnorms, B.dense, B.sqnorms, *params, out,
                                 _core.threads_par())
        if self._needs_normalizing():
            _core.normalize_gram(out, self._self_values(A), self._self_values(B))
        self.n_evals += out.size
        return out

    # ----------------------------------------------------------------- helpers

    def _needs_normalizing(self) -> bool:
        # RBF has k(x, x) = 1 for every x: normalising changes nothing.
        return self.normalized and (self.is_callable or self.kernel != "rbf")

    def _check_widths(self, A: PreparedBlock, B: PreparedBlock) -> None:
        if A.n_features != B.n_features:
            raise ValueError(
                f"the two inputs have different numbers of features: {A.n_features} and "
                f"{B.n_features}"
            )

    def _get_workspace(self, n_features: int) -> np.ndarray:
        if self._workspace.shape[0] < n_features:
            self._workspace = np.zeros(n_features)
        return self._workspace

    def _self_values(self, block: PreparedBlock) -> np.ndarray:
        """Unnormalised k(a, a) per row, memoised on the block per kernel parameters."""
        if self.is_callable:
            return self._callable_self_values(block)
        key = self.jit_params
        values = block._self_values.get(key)
        if values is None:
            values = _core.self_kernels(block.sqnorms, *key, np.empty(block.n_samples))
            block._self_values[key] = values
        return values

    def _as_input(self, block: PreparedBlock, start=0, stop=None):
        """The block (or rows start:stop) as a float64 array or CSR matrix for a callable."""
        stop = block.n_samples if stop is None else stop
        if block.is_sparse:
            matrix = sp.csr_matrix((block.data, block.indices, block.indptr),
                                   shape=(block.n_samples, block.n_features))
            return matrix[start:stop]
        return block.dense[start:stop]

    def _callable_gram(self, A: PreparedBlock, B: PreparedBlock, a_range=None, b_range=None):
        a_range = a_range or (0, A.n_samples)
        b_range = b_range or (0, B.n_samples)
        result = self.kernel(self._as_input(A, *a_range), self._as_input(B, *b_range))
        if sp.issparse(result):
            result = result.toarray()
        result = np.array(result, dtype=np.float64, order="C")
        expected = (a_range[1] - a_range[0], b_range[1] - b_range[0])
        if result.shape != expected:
            raise ValueError(
                f"the kernel callable returned shape {result.shape}; expected {expected} "
                "(one row per example of its first argument, one column per example of its second)"
            )
        return result

    def _callable_self_values(self, block: PreparedBlock) -> np.ndarray:
        values = np.empty(block.n_samples)
        for start in range(0, block.n_samples, _CALLABLE_CHUNK):
            stop = min(start + _CALLABLE_CHUNK, block.n_samples)
            gram = self._callable_gram(block, block, (start, stop), (start, stop))
            values[start:stop] = np.diagonal(gram)
        return values

    def __repr__(self):
        name = getattr(self.kernel, "__name__", repr(self.kernel)) if self.is_callable \
            else repr(self.kernel)
        parts = [name, f"gamma={self.gamma!r}"]
        if self.is_callable or self.kernel == "poly":
            parts.append(f"degree={self.degree}")
        if self.is_callable or self.kernel in ("poly", "sigmoid"):
            parts.append(f"coef0={self.coef0!r}")
        if self.normalized:
            parts.append("normalized=True")
        return f"Kernel({', '.join(parts)})"


#: Largest kernel value or dot product a model may meet. Far below float64's maximum
#: (1.8e308), so that squaring one, or summing many of them times bounded coefficients (the
#: decision function, a weight vector, a gradient), stays finite.
KERNEL_VALUE_LIMIT = 1e100


def max_safe_sqnorm(kernel, *, gamma=None, degree=3, coef0=0.0) -> float:
    """Largest squared row norm R² such that, for any rows x, z with ‖x‖², ‖z‖² <= R², the
    kernel value and its intermediate dot products stay within :data:`KERNEL_VALUE_LIMIT`.

    With H = :data:`KERNEL_VALUE_LIMIT` and |x·z| <= R² (Cauchy–Schwarz):

    * ``'linear'``: x·z itself, so R² = H;
    * ``'rbf'``: ‖x‖², ‖z‖², x·z and ‖x − z‖² <= 4R² (the value is in [0, 1]), so R² = H;
    * ``'poly'``: |gamma x·z + coef0|^degree <= H, so R² = (H^(1/degree) − |coef0|) / gamma
      (at most H; 0 when ``|coef0|^degree`` alone exceeds H);
    * ``'sigmoid'``: gamma x·z finite (tanh is bounded), so R² = min(H, H / gamma);
    * a callable: unknown; treated as ``'linear'`` (dot-product sized).

    ``gamma`` is the resolved value (``gamma_``); it is ignored by ``'linear'`` and
    ``'rbf'``. A degree-3 polynomial with ``gamma=1`` allows entries up to about 1e16, far
    below the 1e154 of the linear kernel.

    >>> max_safe_sqnorm("poly", gamma=1.0, degree=2, coef0=0.0)
    1e+50
    """
    limit = KERNEL_VALUE_LIMIT
    if callable(kernel) or kernel in ("linear", "rbf"):
        return limit
    if kernel not in KERNEL_CODES:
        raise ValueError(f"kernel must be one of {sorted(KERNEL_CODES)} or a callable; "
                         f"got {kernel!r}")
    if gamma is None or not math.isfinite(gamma) or gamma < 0:
        raise ValueError(f"max_safe_sqnorm needs the resolved gamma (a finite float >= 0); "
                         f"got {gamma!r}")
    if gamma == 0:
        return limit
    if kernel == "sigmoid":
        return min(limit, limit / gamma)
    base = limit ** (1.0 / int(degree)) - abs(float(coef0))
    return max(0.0, min(limit, base / gamma))
