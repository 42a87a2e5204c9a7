"""Kernels: parameters and validation (:class:`Kernel`), jitted rows and Gram matrices of
dense and CSR data (:mod:`streamsvm.kernels._core`), an LRU cache of kernel rows with a
memory budget (:class:`KernelCache` and its jitted functions, :mod:`streamsvm.kernels.cache`),
and the gamma and centring rule every estimator follows (:func:`resolve_gamma`,
:class:`FirstDataRule`; ``docs/design.md``).

Algorithms convert their data once to float64, C-contiguous (CSR: int32 sorted indices),
take ``Kernel.jit_params`` = ``(code, gamma, degree, coef0)`` and call the ``_core`` and
``cache`` functions from their own jitted loops; see those modules' docstrings.
"""

from ._core import LINEAR, POLY, RBF, SIGMOID
from .cache import KernelCache
from .first_data import (
    FirstDataRule,
    centring_mean,
    fixed_by_first_data,
    resolve_gamma_from_sums,
)
from .spec import (
    KERNEL_CODES,
    KERNEL_NAMES,
    KERNEL_PARAMETER_CONSTRAINTS,
    Kernel,
    PreparedBlock,
    dense_blocks,
    kernel_parameter_constraints,
    resolve_gamma,
    uses_gamma,
    validate_kernel_params,
)

__all__ = [
    "Kernel",
    "KernelCache",
    "PreparedBlock",
    "kernel_parameter_constraints",
    "validate_kernel_params",
    "KERNEL_CODES",
    "KERNEL_PARAMETER_CONSTRAINTS",
    "KERNEL_NAMES",
    "resolve_gamma",
    "uses_gamma",
    "dense_blocks",
    "FirstDataRule",
    "resolve_gamma_from_sums",
    "centring_mean",
    "fixed_by_first_data",
    "LINEAR",
    "RBF",
    "POLY",
    "SIGMOID",
]
