"""Tasks in groups, the groups side by side in spawned worker processes (``streamsvm warmup``
and the first uses of ``streamsvm demo``: numba compiles in one thread, so two processes
compile about twice as much in the same wall time on two cores)."""

from __future__ import annotations

import multiprocessing
import queue
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

__all__ = ["run_side_by_side"]

#: the events queue of a worker process (set by :func:`_start_worker`)
_EVENTS = None


def _start_worker(events) -> None:
    global _EVENTS
    _EVENTS = events


def _run_group_in_worker(run, group: list) -> None:
    """A worker process's task: ``run(task)`` for each task of ``group`` in turn, telling the
    parent each start and each result."""
    for task in group:
        _EVENTS.put(("start", task, None))
        _EVENTS.put(("done", task, run(task)))


def run_side_by_side(run: Callable, groups: list[list], jobs: int, *,
                     on_start: Callable | None = None,
                     on_done: Callable | None = None) -> dict:
    """``{task: run(task)}`` for the tasks of ``groups``, each group's tasks one after another
    in one of ``jobs`` spawned worker processes, the groups side by side.

    ``run`` and the tasks must be picklable (``run`` a module-level function); a group's tasks
    share one process, so they share what it compiled. ``on_start(task)`` and
    ``on_done(task, result)`` run in this process as the workers' events arrive. A task whose
    worker died has no entry. Spawned, not forked: numba is not safe to fork once it has
    compiled.
    """
    context = multiprocessing.get_context("spawn")
    events = context.Queue()
    results: dict = {}

    def handle(kind, task, result):
        if kind == "start" and on_start is not None:
            on_start(task)
        elif kind == "done":
            results[task] = result
            if on_done is not None:
                on_done(task, result)

    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_start_worker,
                             initargs=(events,)) as pool:
        pending = {pool.submit(_run_group_in_worker, run, group) for group in groups}
        while pending:
            try:
                handle(*events.get(timeout=0.2))
            except queue.Empty:
                pass
            pending = {f for f in pending if not f.done()}
    while True:  # the events sent before the last worker returned
        try:
            handle(*events.get(timeout=0.2))
        except queue.Empty:
            return results
