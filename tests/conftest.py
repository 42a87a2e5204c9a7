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

