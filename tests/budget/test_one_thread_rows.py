"""The dense kernel rows on one thread build no parallel loop (issue 36):
``kernels._core.kernel_row_dense`` takes ``par``, None on one thread, and numba prunes its
``par is not None`` branch before typing, so a one-thread fit of the estimators whose rows it
computes (the budget family, the Blurred Ball SVM's and StreamSVM's kernel paths) compiles no
``parallel=True`` function; with ``n_jobs=2`` the loops get ``par=True`` and keep their
threads, with the same rows bit for bit."""

import json
import os
import subprocess
import sys

import numba
import numpy as np
from numba import types

from streamsvm.kernels._core import RBF, kernel_row_dense, sqnorms_dense, threads_par
from streamsvm.utils.threads import compiled_threads

_CHILD = r"""
import gc, json
import numpy as np
from numba.core.dispatcher import Dispatcher
from streamsvm import (BlurredBallSVM, BudgetPerceptron, Forgetron, IncrementalSVM,
                       RandomBudgetSVM, StreamSVM, TwinVectorMachine)
from streamsvm.budget import _incremental_core, _tvm_core
from streamsvm.meb import _blurred_core, _core
rng = np.random.default_rng(0)
X = rng.standard_normal((120, 4))
y = np.where(X[:, 0] + 0.3 * rng.standard_normal(120) > 0, 1, -1)
IncrementalSVM(gamma=0.5).fit(X, y).decision_function(X)
TwinVectorMachine(budget=20, gamma=0.5).fit(X, y)
RandomBudgetSVM(budget=30, gamma=0.5).fit(X, y)
Forgetron(budget=20, gamma=0.5).fit(X, y)
BudgetPerceptron(budget=20, gamma=0.5).fit(X, y)
BlurredBallSVM(kernel="rbf", gamma=0.5).fit(X, y)
StreamSVM(kernel="rbf", gamma=0.5).fit(X, y)
one_thread = {f.__name__: [str(sig[-1]) for sig in f.signatures]
              for f in (_incremental_core.add_many, _tvm_core.tvm_run,
                        _blurred_core.scan_kernel, _core.kernel_stream_dense)}
parallel = [d.py_func.__qualname__ for d in gc.get_objects()
            if isinstance(d, Dispatcher) and d.signatures and d.targetoptions.get("parallel")]
IncrementalSVM(gamma=0.5, n_jobs=2).fit(X, y)
threaded = [str(sig[-1]) for sig in _incremental_core.add_many.signatures]
print(json.dumps({"one_thread": one_thread, "parallel": parallel, "threaded": threaded}))
"""


def test_one_thread_fits_compile_no_parallel_function():
    """In a new process (numba's cache shared with this one: from the cache only the entry
    points get signatures, so the parallel check bites where the loops compile), one-thread
    fits of the seven estimators pass ``par=None`` to their compiled loops and no
    ``parallel=True`` function has a signature; ``n_jobs=2`` passes ``par=True``."""
    env = dict(os.environ, NUMBA_NUM_THREADS="2")
    done = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True,
                          env=env, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    for name, last in report["one_thread"].items():
        assert last == ["none"], name
    assert report["parallel"] == []
    assert "bool" in report["threaded"] and "none" in report["threaded"]


def test_par_none_gives_the_rows_of_the_threads():
    """``par=None`` and ``par=True`` (two threads, a row above the threshold, so blocks on
    the threads) give the same row, bit for bit; ``threads_par`` follows the thread count."""
    rng = np.random.default_rng(3)
    block = rng.standard_normal((1500, 50)) / 7
    x = rng.standard_normal(50) / 7
    sq = sqnorms_dense(block, np.empty(1500))
    rows = []
    for par in (None, True):
        with compiled_threads(2):
            rows.append(kernel_row_dense(x, float(x @ x), block, sq, RBF, 0.4, 3, 0.0,
                                         np.empty(1500), par))
    assert rows[0].tobytes() == rows[1].tobytes()
    np.testing.assert_allclose(rows[0], np.exp(-0.4 * ((block - x) ** 2).sum(axis=1)),
                               rtol=1e-12)
    sigs = [sig[-1] for sig in kernel_row_dense.signatures]
    assert types.none in sigs and types.boolean in sigs
    with compiled_threads(None):
        assert threads_par() is None
    with compiled_threads(2):
        assert threads_par() is (True if numba.get_num_threads() > 1 else None)
