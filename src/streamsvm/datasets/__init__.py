"""Data for streams: chunked file readers, the papers' datasets by name, seeded generators.

Every source is an iterator of ``(X, y)`` chunks that holds one chunk at a time:

- readers: :func:`iter_svmlight` (CSR chunks; plain, ``.gz``, ``.bz2``, ``.xz``),
  :func:`iter_csv` (dense), :func:`iter_arrays`, :func:`iter_npz`, and the whole-file
  ``load_*`` forms; a damaged file raises :class:`DataFileError` (``file:line: problem``);
- the papers' datasets, read from the folder ``$STREAMSVM_DATA``: :func:`list_datasets`,
  :func:`describe_dataset`, :func:`iter_dataset`, :func:`load_dataset`;
- :func:`open_stream`: one entry for what a user types (a file path, a dataset name, a
  generator name or ``'-'`` for standard input), used by the command line;
- endless seeded generators (:func:`checkerboard`, :func:`gauss`, :func:`waveform`,
  :func:`synthetic_a`, ..., :func:`chessboard_10d`) and their finite ``make_*`` forms.
"""

from .generators import (
    GENERATORS,
    checkerboard,
    chessboard_10d,
    gauss,
    make_checkerboard,
    make_chessboard_10d,
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
    waveform_means,
)
from .loaders import (
    DATA_ENV,
    SPLIT_SEED,
    DatasetInfo,
    DatasetNotFoundError,
    data_home,
    dataset_available,
    describe_dataset,
    iter_dataset,
    iter_mnist,
    list_datasets,
    load_dataset,
    load_waveform_file,
)
from .readers import (
    DEFAULT_MAX_FEATURES,
    DataFileError,
    IndexBaseWarning,
    concat_chunks,
    iter_arrays,
    iter_csv,
    iter_npz,
    iter_svmlight,
    load_csv,
    load_svmlight,
)
from .sources import (
    GENERATOR_SOURCES,
    DataSourceError,
    DataStream,
    ReaderOptionError,
    UnknownSourceError,
    open_stream,
)

__all__ = [
    # what a user types
    "open_stream",
    "DataStream",
    "DataSourceError",
    "ReaderOptionError",
    "UnknownSourceError",
    "GENERATOR_SOURCES",
    # readers
    "DataFileError",
    "DEFAULT_MAX_FEATURES",
    "IndexBaseWarning",
    "iter_svmlight",
    "load_svmlight",
    "iter_csv",
    "load_csv",
    "iter_arrays",
    "iter_npz",
    "concat_chunks",
    # the papers' datasets
    "DATA_ENV",
    "SPLIT_SEED",
    "DatasetInfo",
    "DatasetNotFoundError",
    "data_home",
    "list_datasets",
    "describe_dataset",
    "dataset_available",
    "iter_dataset",
    "load_dataset",
    "iter_mnist",
    "load_waveform_file",
    # generators
    "GENERATORS",
    "checkerboard",
    "make_checkerboard",
    "noisy_checkerboard",
    "make_noisy_checkerboard",
    "gauss",
    "make_gauss",
    "waveform",
    "make_waveform",
    "waveform_means",
    "synthetic_a",
    "make_synthetic_a",
    "synthetic_b",
    "make_synthetic_b",
    "synthetic_c",
    "make_synthetic_c",
    "chessboard_10d",
    "make_chessboard_10d",
]
