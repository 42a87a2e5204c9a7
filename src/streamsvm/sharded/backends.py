"""Where the shard tasks run: spawned local processes, Ray, or the calling process.

A backend runs a list of tasks (:mod:`streamsvm.sharded.worker`) and returns their results
in the order of the list, whatever order the workers finish in. A worker that dies (its
process killed, a Ray worker lost) has its tasks run again, at most ``max_retries`` times;
then :class:`WorkerLostError` names the shard. A data problem (:class:`ShardError`) is not
retried: it is raised at once.

With the local backend a dead process breaks the whole pool, so every unfinished task of
that round is counted as an attempt and run again on a fresh pool (a task is
deterministic, so running it again gives the same result).
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace

from .shards import ShardError
from .worker import NodeTask, run_task

__all__ = ["BACKENDS", "Backend", "KillWorker", "LocalBackend", "RayBackend",
           "SerialBackend", "WorkerLostError", "make_backend"]


class WorkerLostError(RuntimeError):
    """A task whose worker died more often than the backend retries (names the shard)."""


@dataclass(frozen=True)
class KillWorker:
    """A fault for tests: the worker streaming shard ``shard`` dies (``os._exit``) after
    ``after_chunks`` chunks, on its first ``times`` attempts."""

    shard: int
    after_chunks: int = 1
    times: int = 1


class Backend:
    """Runs tasks and retries those whose worker died (module docstring)."""

    def __init__(self, workers: int = 2, *, max_retries: int = 2, faults=()):
        if int(workers) < 1:
            raise ValueError(f"workers must be at least 1; got {workers!r}")
        if int(max_retries) < 0:
            raise ValueError(f"max_retries must be at least 0; got {max_retries!r}")
        self.workers = int(workers)
        self.max_retries = int(max_retries)
        self.faults = tuple(faults)
        #: tasks run again because their worker died, since the backend was made
        self.n_lost = 0

    def _with_faults(self, task, attempt: int):
        task = replace(task, attempt=attempt, kill_after_chunks=None)
        if isinstance(task, NodeTask):
            return task
        for fault in self.faults:
            if fault.shard == task.shard.index and attempt < fault.times:
                task = replace(task, kill_after_chunks=fault.after_chunks)
        return task

    def run(self, tasks: list, on_done=None) -> list:
        """The results of ``tasks``, in their order; ``on_done(index, result)`` is called as
        each task ends (in the order they end)."""
        results = [None] * len(tasks)
        attempts = [0] * len(tasks)
        pending = list(range(len(tasks)))
        while pending:
            batch = [self._with_faults(tasks[i], attempts[i]) for i in pending]
            lost = []
            for k, ok, value in self._run_batch(batch):
                if ok:
                    results[pending[k]] = value
                    if on_done is not None:
                        on_done(pending[k], value)
                else:
                    lost.append(pending[k])
            self.n_lost += len(lost)
            for i in lost:
                attempts[i] += 1
                if attempts[i] > self.max_retries:
                    task = tasks[i]
                    name = task.name if isinstance(task, NodeTask) else task.shard.name
                    raise WorkerLostError(
                        f"{name}: its worker died {attempts[i]} times (max_retries="
                        f"{self.max_retries}); giving up")
            pending = sorted(lost)
        return results

    def _run_batch(self, tasks):
        """Yield ``(position, ok, result)`` as tasks end (ok False: the worker died)."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop the workers (a later :meth:`run` starts them again)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class SerialBackend(Backend):
    """Every task in the calling process, in order (tests, debugging; faults not applied)."""

    def __init__(self, *, max_retries: int = 0):
        super().__init__(1, max_retries=max_retries)

    def _with_faults(self, task, attempt):
        return replace(task, attempt=attempt, kill_after_chunks=None)

    def _run_batch(self, tasks):
        for k, task in enumerate(tasks):
            yield k, True, run_task(task)


class LocalBackend(Backend):
    """``workers`` processes started with ``spawn`` (no state inherited from the caller);
    the pool is kept between runs until :meth:`close`, so start-up is paid once."""

    def __init__(self, workers: int = 2, *, max_retries: int = 2, faults=()):
        super().__init__(workers, max_retries=max_retries, faults=faults)
        self._pool = None

    def start(self) -> LocalBackend:
        """Start the processes now and have each import the library (start-up cost)."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"))
        futures = [self._pool.submit(_import_library) for _ in range(self.workers)]
        for future in futures:
            future.result()
        return self

    def _run_batch(self, tasks):
        if self._pool is None:
            self.start()
        futures = {self._pool.submit(run_task, task): k for k, task in enumerate(tasks)}
        broken = False
        try:
            left = set(futures)
            while left:
                done, left = wait(left, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=futures.get):
                    try:
                        value = future.result()
                    except BrokenProcessPool:
                        broken = True
                        yield futures[future], False, None
                    else:
                        yield futures[future], True, value
        except ShardError:
            self.close()
            raise
        finally:
            if broken:
                self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _import_library() -> bool:
    """Import every estimator (and numpy, numba, scikit-learn) in a fresh worker."""
    from ..registry import available_estimators

    available_estimators()
    return True


class RayBackend(Backend):
    """Tasks as Ray tasks on the cluster ``ray.init`` connected to (started locally with
    ``workers`` CPUs when Ray is not initialised yet); Ray's own retries are off, this
    backend's count instead. Needs the ``distributed`` extra
    (``pip install 'streamsvm[distributed]'``)."""

    def __init__(self, workers: int = 2, *, max_retries: int = 2, faults=()):
        super().__init__(workers, max_retries=max_retries, faults=faults)
        try:
            import ray
        except ImportError as exc:
            raise ImportError("the 'ray' backend needs Ray: pip install "
                              "'streamsvm[distributed]'") from exc
        self._ray = ray
        self._remote = None

    def _run_batch(self, tasks):
        ray = self._ray
        if not ray.is_initialized():
            ray.init(num_cpus=self.workers, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
        if self._remote is None:
            self._remote = ray.remote(max_retries=0)(run_task)
        refs = {self._remote.remote(task): k for k, task in enumerate(tasks)}
        left = list(refs)
        while left:
            done, left = ray.wait(left, num_returns=1)
            for ref in done:
                try:
                    value = ray.get(ref)
                except ray.exceptions.RayTaskError as exc:
                    cause = exc.as_instanceof_cause()
                    if isinstance(cause, ShardError):
                        raise ShardError(str(exc.cause)) from None
                    raise
                except (ray.exceptions.WorkerCrashedError, ray.exceptions.RayActorError,
                        ray.exceptions.NodeDiedError):
                    yield refs[ref], False, None
                else:
                    yield refs[ref], True, value


BACKENDS = {"local": LocalBackend, "ray": RayBackend, "serial": SerialBackend}


def make_backend(backend, workers: int | None, max_retries: int) -> tuple[Backend, bool]:
    """``(backend, owned)``: a :class:`Backend` from a name (owned: closed by the caller)
    or the given object."""
    if isinstance(backend, Backend):
        return backend, False
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)} or a Backend; got "
                         f"{backend!r}")
    if backend == "serial":
        return SerialBackend(max_retries=max_retries), True
    return BACKENDS[backend](2 if workers is None else workers, max_retries=max_retries), True
