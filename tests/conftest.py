import os
import pathlib

import pytest

DATA_ENV = "STREAMSVM_DATA"


def data_file(name: str) -> pathlib.Path:
    """Path of a dataset file under STREAMSVM_DATA, or skip the test naming what is missing."""
    home = os.environ.get(DATA_ENV)
    if not home:
        pytest.skip(f"{DATA_ENV} is not set; this test needs the dataset file {name}")
    path = pathlib.Path(home) / name
    if not path.exists():
        pytest.skip(f"dataset file {name} is not in {DATA_ENV}={home}")
    return path
