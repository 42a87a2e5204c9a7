"""Streams: chunked file readers, the papers' datasets by name, seeded generators."""

from .generators import (
    GENERATORS,
    chessboard_10d,
    checkerboard,
    gauss,
    make_chessboard_10d,
    make_checkerboard,
    make_gauss,
    make_noisy_checkerboard,
    make_synthetic_a,
    make_synthetic_b,
    make_synthetic_c,
    make_waveform,
    noisy_checkerboard,
    synthetic_a,
    synthetic_b,
    synthetic_c,
    waveform,
)
from .loaders import (
    DATA_ENV,
    DatasetInfo,
    DatasetNotFoundError,
    data_home,
    dataset_available,
    describe_dataset,
    iter_dataset,
    list_datasets,
    load_dataset,
)
from .readers import iter_arrays, iter_csv, iter_npz, iter_svmlight, load_svmlight

__all__ = [
    "iter_svmlight", "load_svmlight", "iter_csv", "iter_arrays", "iter_npz",
    "DATA_ENV", "DatasetInfo", "DatasetNotFoundError", "data_home", "dataset_available",
    "describe_dataset", "iter_dataset", "list_datasets", "load_dataset",
    "GENERATORS", "checkerboard", "noisy_checkerboard", "gauss", "waveform", "synthetic_a",
    "synthetic_b", "synthetic_c", "chessboard_10d", "make_checkerboard",
    "make_noisy_checkerboard", "make_gauss", "make_waveform", "make_synthetic_a",
    "make_synthetic_b", "make_synthetic_c", "make_chessboard_10d",
]
