"""Threads of the compiled loops: ``n_jobs`` -> numba's thread count, BLAS held at one thread.

The kernel estimators take ``n_jobs`` as scikit-learn does: ``None`` is one thread, a positive
count that many (at most the cores numba may use, ``numba.config.NUMBA_NUM_THREADS``), ``-1``
every core, ``-2`` all but one, and so on. :func:`compiled_threads` sets numba's thread count
for the duration of one call (``fit``, ``partial_fit``, ``decision_function``, ``finish``)
and puts the previous count back; numba's count is per calling thread, so estimators used from
different Python threads do not disturb each other. The compiled loops ask
``numba.get_num_threads()`` and run their ``prange`` paths only above a size threshold
(``lasvm/_parallel_core.py``, ``kernels/_core.py``); their blocks are fixed and each block is
summed in order, so the result does not depend on the thread count (``docs/performance.md``).

BLAS: the parallel loops call none (their bodies are plain numba loops), so numba's threads
never run beside BLAS threads of their own making, and the BLAS thread count is left as it
is: the bits of NumPy's products depend on it (OpenBLAS splits its sums by thread), and a model
must not depend on ``n_jobs``.

One-vs-rest problems are independent: :func:`for_each` trains the binary learners of one call
side by side on Python threads, each with its share of the threads, for estimators whose
learners' compiled loops release the GIL (``StreamClassifier._learners_release_gil``: the
LASVM family) and when the threading layer is thread-safe (OpenMP, TBB; numba's workqueue is
not, and then they run one after the other). Meanwhile BLAS is held at one thread
(threadpoolctl), so that learners side by side do not each start a BLAS pool; those learners
do their work in compiled loops, not in BLAS, so this changes no result. No process pool:
numba's threading layers are not fork-safe.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numba
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.ufunc.parallel import _launch_threads

__all__ = ["compiled_threads", "effective_n_jobs", "fetch_add", "for_each", "threads_now"]

# The threading layer registers its C functions (``get_num_threads`` among them) as symbols
# that compiled code links against; loaded from numba's cache, such code needs them at once.
_launch_threads()


@intrinsic
def threads_now(typingctx):
    """Numba's thread count of the calling thread, inside compiled code (what
    ``numba.get_num_threads()`` returns in Python). numba's own jitted ``get_num_threads``
    calls through a ctypes pointer, which keeps every function that uses it out of the
    on-disk cache; this calls the threading layer's symbol by name, which caches."""
    _launch_threads()

    def codegen(context, builder, signature, args):
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(32), []), "get_num_threads")
        return builder.sext(builder.call(function, []), ir.IntType(64))

    return types.int64(), codegen


def available_threads() -> int:
    """The most threads numba's parallel loops can use (``NUMBA_NUM_THREADS``)."""
    return int(numba.config.NUMBA_NUM_THREADS)


def effective_n_jobs(n_jobs) -> int:
    """The thread count ``n_jobs`` asks for: None -> 1, ``k > 0`` -> ``min(k, cores)``,
    ``-1`` -> every core, ``-k`` -> ``cores + 1 - k`` (at least 1)."""
    cores = available_threads()
    if n_jobs is None:
        return 1
    n_jobs = int(n_jobs)
    if n_jobs == 0:
        raise ValueError("n_jobs=0 asks for no thread; use None, a positive count or -1")
    if n_jobs < 0:
        return max(1, cores + 1 + n_jobs)
    return min(n_jobs, cores)


@intrinsic
def _set_threads(typingctx, count):
    """Set numba's thread count of the calling thread (the threading layer's symbol, as
    :func:`threads_now`); ``count`` must lie in 1 .. NUMBA_NUM_THREADS."""
    _launch_threads()

    def codegen(context, builder, signature, args):
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [ir.IntType(32)]), "set_num_threads")
        builder.call(function, [builder.trunc(args[0], ir.IntType(32))])
        return context.get_dummy_value()

    return types.none(types.int64), codegen


@intrinsic
def fetch_add(typingctx, counter, value):
    """Add ``value`` to ``counter[0]`` (an int64 array) in one atomic step and return what it
    held before: threads of one parallel region take work from a shared count this way (each
    number is handed out once, whatever the threads' timing)."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
        return None

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.atomic_rmw("add", array.data, args[1], "seq_cst")

    return types.int64(counter, types.int64), codegen


@njit(cache=True)
def _swap_threads(count):
    """Set the calling thread's count to ``count``; returns the count it had (one compiled
    call: about a tenth of ``numba.get_num_threads`` and ``numba.set_num_threads``)."""
    previous = threads_now()
    if count != previous:
        _set_threads(count)
    return previous


class compiled_threads:  # lower case: used as ``with compiled_threads(n_jobs):``
    """Context manager: numba's thread count set from ``n_jobs`` for the block; the previous
    count is restored on exit. ``as`` gives the count. Costs about a microsecond."""

    __slots__ = ("threads", "_previous")

    def __init__(self, n_jobs):
        self.threads = 1 if n_jobs is None else effective_n_jobs(n_jobs)

    def __enter__(self) -> int:
        self._previous = _swap_threads(self.threads)
        return self.threads

    def __exit__(self, *exc_info) -> None:
        if self._previous != self.threads:
            _swap_threads(self._previous)


def _layer_is_thread_safe() -> bool:
    try:
        return numba.threading_layer() in ("omp", "tbb")
    except ValueError:  # no parallel region has run yet: the layer is not chosen
        return False


def for_each(function: Callable, items: Sequence, n_jobs) -> None:
    """``function(item)`` for every item (independent one-vs-rest learners), on up to
    ``effective_n_jobs(n_jobs)`` Python threads, each running its compiled loops with an equal
    share of the threads, BLAS at one thread meanwhile; in order on the calling thread when
    one thread is asked for, there is one item, or the threading layer is not thread-safe.
    The first error is raised after every call has ended."""
    threads = 1 if n_jobs is None else effective_n_jobs(n_jobs)
    if threads == 1 or len(items) < 2 or not _layer_is_thread_safe():
        for item in items:
            function(item)
        return
    workers = min(threads, len(items))
    share = max(1, threads // workers)

    def run(item):
        with compiled_threads(share):
            function(item)

    from threadpoolctl import threadpool_limits

    with (threadpool_limits(limits=1, user_api="blas"),
          ThreadPoolExecutor(max_workers=workers, thread_name_prefix="streamsvm") as pool):
        futures = [pool.submit(run, item) for item in items]
    for future in futures:
        future.result()
