"""Compile every estimator's numba code once, ahead of first use (``streamsvm warmup``).

Each registered estimator is fitted on a tiny problem with each kernel its compiled loops
know, on dense rows and (where it takes them) on CSR rows, then asked for decisions, so that
numba compiles, or loads from its on-disk cache, every specialisation a user's first ``fit``
would. numba's cache is per machine and per installed copy of the library: a warmup helps the
processes that come after it on this machine (``docs/performance.md``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = ["WarmupStep", "kernels_of", "warm_up", "warmup_steps"]

#: gamma of the sigmoid steps: tanh(gamma x.y) with a small gamma is close to the (positive
#: semi-definite) linear kernel, so no solver refuses the tiny problem
SIGMOID_GAMMA = 1e-3


@dataclass(frozen=True)
class WarmupStep:
    """One estimator, kernel and input layout to compile; ``seconds`` and ``error`` once run."""

    estimator: str
    kernel: str | None
    layout: str
    seconds: float | None = None
    error: str | None = None


def kernels_of(cls) -> list[str | None]:
    """The named kernels ``cls``'s compiled loops take (``[None]`` without a kernel)."""
    constraints = getattr(cls, "_parameter_constraints", {}).get("kernel")
    if constraints is None:
        return [None]
    return [choice for constraint in constraints
            for choice in getattr(constraint, "choices", ()) if isinstance(choice, str)]


def warmup_steps(names=None) -> list[WarmupStep]:
    """Every (estimator, kernel, layout) to compile, for the registered estimators named in
    ``names`` (default: all, in the registry's order)."""
    from ..registry import available_estimators, get_estimator

    classes = (available_estimators() if names is None
               else {get_estimator(n).__name__: get_estimator(n) for n in names})
    steps = []
    for name, cls in classes.items():
        layouts = ["dense", "csr"] if getattr(cls, "_accepts_sparse", True) else ["dense"]
        steps += [WarmupStep(name, kernel, layout)
                  for kernel in kernels_of(cls) for layout in layouts]
    return steps


def _tiny_problem(layout: str):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] - X[:, 1] > 0, 1, -1)
    return (sp.csr_matrix(X) if layout == "csr" else X), y


def warm_up(names=None, *, on_start: Callable[[WarmupStep], None] | None = None,
            on_done: Callable[[WarmupStep], None] | None = None,
            clock: Callable[[], float] = time.perf_counter) -> list[WarmupStep]:
    """Run :func:`warmup_steps`; ``on_start(step)`` before each, ``on_done(step)`` with its
    seconds (or its error: a step that fails is reported, the others still run)."""
    from ..registry import get_estimator

    done = []
    for step in warmup_steps(names):
        if on_start is not None:
            on_start(step)
        cls = get_estimator(step.estimator)
        params = {} if step.kernel is None else {"kernel": step.kernel}
        if step.kernel == "sigmoid":  # near-PSD, which the solvers that factor G need
            params["gamma"] = SIGMOID_GAMMA
        X, y = _tiny_problem(step.layout)
        start = clock()
        error = None
        try:
            cls(**params).fit(X, y).decision_function(X)
        except Exception as exc:  # reported, not fatal: the other steps still compile
            error = f"{type(exc).__name__}: {exc}"
        finished = WarmupStep(step.estimator, step.kernel, step.layout, clock() - start, error)
        done.append(finished)
        if on_done is not None:
            on_done(finished)
    return done
