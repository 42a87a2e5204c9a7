"""Compile every estimator's numba code once, ahead of first use (``streamsvm warmup``).

Each registered estimator is fitted on a tiny problem with each kernel its compiled loops
know, on dense rows and (where it takes them) on CSR rows, then asked for decisions, so that
numba compiles, or loads from its on-disk cache, every specialisation a user's first ``fit``
would. numba's cache is per machine and per installed copy of the library: a warmup helps the
processes that come after it on this machine (``docs/performance.md``).

The steps run in groups, one per module of estimators (the estimators of one module share
most of their compiled code: the LASVM variants, the fixed-budget baselines), and with
``jobs > 1`` the groups run side by side in that many worker processes, which write one
cache: numba compiles in one thread, so on two cores two groups at once take about half the
wall time of one after another.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from .workers import run_side_by_side

__all__ = ["WarmupStep", "default_jobs", "kernels_of", "warm_up", "warmup_steps",
           "worker_count"]

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


def default_jobs() -> int:
    """The cores this process may use (its CPU affinity where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _groups(steps: list[WarmupStep]) -> list[list[WarmupStep]]:
    """``steps`` in groups of one module of estimators each, in the registry's order."""
    from ..registry import get_estimator

    groups: dict[str, list[WarmupStep]] = {}
    for step in steps:
        groups.setdefault(get_estimator(step.estimator).__module__, []).append(step)
    return list(groups.values())


def worker_count(names=None, jobs: int | None = None) -> int:
    """The worker processes a warmup of ``names`` runs with ``jobs`` asked for (default: the
    cores, :func:`default_jobs`): at most one per group of steps."""
    return min(jobs or default_jobs(), len(_groups(warmup_steps(names))))


def _run_step(step: WarmupStep, clock: Callable[[], float]) -> WarmupStep:
    """Fit and score ``step``'s estimator on the tiny problem; its seconds or its error."""
    from ..registry import get_estimator

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
    return replace(step, seconds=clock() - start, error=error)


def _run_step_timed(step: WarmupStep) -> WarmupStep:
    return _run_step(step, time.perf_counter)


def warm_up(names=None, *, jobs: int = 1,
            on_start: Callable[[WarmupStep], None] | None = None,
            on_done: Callable[[WarmupStep], None] | None = None,
            clock: Callable[[], float] = time.perf_counter) -> list[WarmupStep]:
    """Run :func:`warmup_steps`; ``on_start(step)`` before each, ``on_done(step)`` with its
    seconds (or its error: a step that fails is reported, the others still run).

    ``jobs`` worker processes run the groups of steps side by side (at most one per group;
    ``1``: every step in this process, one after another, timed with ``clock``). The steps
    are returned in :func:`warmup_steps`' order either way.
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    steps = warmup_steps(names)
    groups = _groups(steps)
    if min(jobs, len(groups)) == 1:
        done = []
        for step in steps:
            if on_start is not None:
                on_start(step)
            done.append(_run_step(step, clock))
            if on_done is not None:
                on_done(done[-1])
        return done
    return _warm_up_in_workers(steps, groups, min(jobs, len(groups)), on_start, on_done)


def _warm_up_in_workers(steps, groups, jobs, on_start, on_done) -> list[WarmupStep]:
    """The groups on ``jobs`` worker processes (:func:`run_side_by_side`); a step whose worker
    died is reported failed."""
    results = run_side_by_side(
        _run_step_timed, groups, jobs, on_start=on_start,
        on_done=None if on_done is None else (lambda step, done: on_done(done)))
    for step in steps:
        if step not in results:
            results[step] = replace(step, error="its worker process died")
            if on_done is not None:
                on_done(results[step])
    return [results[step] for step in steps]
