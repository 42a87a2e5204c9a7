"""Kernels: parameters and validation (:class:`Kernel`), jitted rows and Gram matrices of
dense and CSR data (:mod:`streamsvm.kernels._core`), and an LRU cache of kernel rows with a
memory budget (:class:`KernelCache` and its jitted functions, :mod:`streamsvm.kernels.cache`).

Algorithms convert their data once to float64, C-contiguous (CSR: int32 sorted indices),
take ``Kernel.jit_params`` = ``(code, gamma, degree, coef0)`` and call the ``_core`` and
``cache`` functions from their own jitted loops; see those modules' docstrings.
"""

from ._core import LINEAR, POLY, RBF, SIGMOID
from .cache import KernelCache
from .spec import KERNEL_CODES, Kernel, PreparedBlock, validate_kernel_params

__all__ = [
    "Kernel",
    "KernelCache",
    "PreparedBlock",
    "validate_kernel_params",
    "KERNEL_CODES",
    "LINEAR",
    "RBF",
    "POLY",
    "SIGMOID",
]
