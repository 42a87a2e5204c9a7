"""LASVM on one thread builds no parallel loop (issue 36): its compiled loops take
``par=None``, and numba prunes every ``par is not None`` branch before typing, so no
``parallel=True`` function of the package is compiled or loaded by a one-thread fit; with
``n_jobs=2`` the same code takes them where S is large enough, with the same model."""

import json
import os
import subprocess
import sys

import numpy as np

from streamsvm import LASVM

_CHILD = r"""
import gc, json
import numpy as np
from numba.core.dispatcher import Dispatcher
from streamsvm import LASVM, LASVMG
rng = np.random.default_rng(0)
X = rng.standard_normal((300, 5))
y = np.where(X[:, 0] + 0.3 * rng.standard_normal(300) > 0, 1, -1)
LASVM(gamma=0.5).fit(X, y).decision_function(X)
LASVMG(gamma=0.5).fit(X, y)
used = [d.py_func.__qualname__ for d in gc.get_objects()
        if isinstance(d, Dispatcher) and d.signatures]
parallel = [d.py_func.__qualname__ for d in gc.get_objects()
            if isinstance(d, Dispatcher) and d.signatures and d.targetoptions.get("parallel")]
print(json.dumps({"used": used, "parallel": parallel}))
"""


def test_one_thread_fit_compiles_no_parallel_function():
    """In a new process (numba's cache shared with this one), a one-thread fit, predict and
    LASVM-G fit: dispatchers with a signature are those compiled or loaded (from the cache:
    the entry points only), none of them a ``parallel=True`` one."""
    done = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True,
                          env=dict(os.environ), check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"lasvm_online", "lasvm_finish", "lasvmg_online"} <= set(report["used"])
    assert report["parallel"] == []


def test_threaded_entry_gives_the_one_thread_model():
    """``par=True`` (what the learner passes with several threads) and ``par=None`` give the
    same model bit for bit on a problem small enough for every parallel branch to decline."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((250, 4))
    y = np.where(X[:, 1] - X[:, 0] + 0.4 * rng.standard_normal(250) > 0, 1, -1)
    one = LASVM(gamma=0.7).fit(X, y)
    two = LASVM(gamma=0.7, n_jobs=2).fit(X, y)
    assert one.decision_function(X).tobytes() == two.decision_function(X).tobytes()
    assert one.learners_[0].alpha.tobytes() == two.learners_[0].alpha.tobytes()
