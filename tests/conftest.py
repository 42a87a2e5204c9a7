import os
import pathlib

import pytest

DATA_ENV = "STREAMSVM_DATA"

# The suite runs in parallel processes (README: ``pytest -n auto``), so the threads of one
# test's parallel regions share their cores with other tests. OpenMP threads that spin while
# they wait would take those cores from the other processes (benchmarks/threads/busy.md):
# they sleep instead. Set before numba first loads its OpenMP layer; results do not depend
# on it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def data_file(name: str) -> pathlib.Path:
    """Path of a dataset file under STREAMSVM_DATA, or skip the test naming what is missing."""
    home = os.environ.get(DATA_ENV)
    if not home:
        pytest.skip(f"{DATA_ENV} is not set; this test needs the dataset file {name}")
    path = pathlib.Path(home) / name
    if not path.exists():
        pytest.skip(f"dataset file {name} is not in {DATA_ENV}={home}")
    return path


def pytest_sessionstart(session):
    """Before the whole suite runs in parallel processes (the README's ``pytest -n auto``),
    compile every estimator once, side by side (``streamsvm warmup``'s worker processes, one
    module of estimators each), so that the test processes load the compiled code instead of
    each compiling the same estimators again (issue 36: the suite's means). Only for the whole
    suite (no paths named) and in the controlling process; ``STREAMSVM_TEST_WARMUP=0`` skips
    it. A step that fails here is left to the tests to report."""
    config = session.config
    if (hasattr(config, "workerinput") or not config.getoption("numprocesses", None)
            or config.args_source != pytest.Config.ArgsSource.TESTPATHS
            or os.environ.get("STREAMSVM_TEST_WARMUP", "1") == "0"):
        return
    import time

    from streamsvm.cli.warmup import warm_up, worker_count

    reporter = config.pluginmanager.get_plugin("terminalreporter")
    workers = worker_count()
    started = time.perf_counter()
    steps = warm_up(jobs=workers)
    if reporter is not None:
        failed = sum(step.error is not None for step in steps)
        reporter.write_line(
            f"streamsvm warmup before the suite: {len(steps)} steps in {workers} worker "
            f"processes, {time.perf_counter() - started:.1f} s"
            + (f", {failed} failed (the tests report them)" if failed else ""))
