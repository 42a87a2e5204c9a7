"""Helpers for tests that need a dataset file from the folder named by STREAMSVM_DATA."""

import os
import pathlib

import pytest

from streamsvm.datasets import DATA_ENV, describe_dataset


def _require(*names: str) -> pathlib.Path:
    home = os.environ.get(DATA_ENV)
    if not home:
        pytest.skip(f"{DATA_ENV} is not set; this test needs the dataset file(s) "
                    f"{', '.join(names)}")
    folder = pathlib.Path(home)
    for name in names:
        if not (folder / name).is_file():
            pytest.skip(f"dataset file {name} is not in {DATA_ENV}={home}")
    return folder


@pytest.fixture
def data_file():
    """``data_file(name)``: path of a file under STREAMSVM_DATA, or skip naming the file."""

    def get(name: str) -> pathlib.Path:
        return _require(name) / name

    return get


@pytest.fixture
def need_dataset():
    """``need_dataset(name)``: skip unless every file of the named dataset is present."""

    def need(name: str) -> None:
        _require(*describe_dataset(name).files)

    return need
