"""The compiled cache follows the sources: a change to a compiled function in one file reaches
the cached code of its callers in other files (``streamsvm._compiled_cache``).

Each step runs in a new process, as a user's next session would: a small package of two
modules, ``caller.f`` calling ``callee.g``, both ``cache=True``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CALLEE = textwrap.dedent("""
    from numba import njit

    @njit(cache=True)
    def g(x):
        return x + {step}
""")
CALLER = textwrap.dedent("""
    from numba import njit

    from .callee import g

    @njit(cache=True)
    def f(x):
        return 10 * g(x)
""")
RUN = textwrap.dedent("""
    import importlib.util, json, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    # the module alone, without importing the whole of streamsvm
    spec = importlib.util.spec_from_file_location("compiled_cache", sys.argv[3])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    deleted = module.refresh(Path(sys.argv[1]) / "pkg") if sys.argv[2] == "refresh" else []
    from pkg.caller import f
    print(json.dumps({"f": f(1), "deleted": len(deleted)}))
""")


def _package(root: Path, step: int) -> None:
    pkg = root / "pkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "callee.py").write_text(CALLEE.format(step=step))
    (pkg / "caller.py").write_text(CALLER)


def _run(root: Path, mode: str, env: dict) -> dict:
    import json

    import streamsvm._compiled_cache as compiled_cache

    done = subprocess.run([sys.executable, "-c", RUN, str(root), mode, compiled_cache.__file__],
                          env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("cache_dir", [False, True], ids=["pycache", "NUMBA_CACHE_DIR"])
def test_a_callee_changed_in_another_file_reaches_its_callers(tmp_path, cache_dir):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    if cache_dir:
        env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba-cache")
    root = tmp_path / "src"
    root.mkdir()
    _package(root, step=1)
    assert _run(root, "refresh", env)["f"] == 20  # compiled and cached
    _package(root, step=2)  # g changes in its own file; caller.py is untouched
    # numba alone loads the caller's cached code, which holds the old g
    assert _run(root, "plain", env)["f"] == 20
    fresh = _run(root, "refresh", env)
    assert fresh["f"] == 30
    assert fresh["deleted"] >= 2  # the caller's index and code at least
    # unchanged sources: nothing deleted, the cache loads
    again = _run(root, "refresh", env)
    assert again == {"f": 30, "deleted": 0}


def test_a_touch_alone_deletes_nothing(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    root = tmp_path / "src"
    root.mkdir()
    _package(root, step=1)
    assert _run(root, "refresh", env)["f"] == 20
    for path in (root / "pkg").glob("*.py"):
        os.utime(path, (path.stat().st_atime + 100, path.stat().st_mtime + 100))
    assert _run(root, "refresh", env) == {"f": 20, "deleted": 0}


def test_the_package_is_stamped_on_import():
    import streamsvm
    from streamsvm._compiled_cache import STAMP, compiled_sources

    root = Path(streamsvm.__file__).parent
    sources = compiled_sources(root)
    assert root / "lasvm" / "_lasvm_core.py" in sources
    assert root / "cli.py" not in sources  # no compiled code: its edits purge nothing
    if "NUMBA_CACHE_DIR" not in os.environ and os.access(root / "lasvm", os.W_OK):
        assert (root / "lasvm" / "__pycache__" / STAMP).is_file()
