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

# every public name of the parts, as their ``__all__`` lists them
from . import generators, loaders, readers, sources
from .generators import *  # noqa: F403
from .loaders import *  # noqa: F403
from .readers import *  # noqa: F403
from .sources import *  # noqa: F403

#: the public names of the parts, less their settings (block sizes, formats, counts)
_SETTINGS = ("BLOCK", "DEFAULT_BLOCK_SIZE", "DEFAULT_N_GENERATED", "FORMATS")
__all__ = [name for part in (sources, readers, loaders, generators) for name in part.__all__
           if name not in _SETTINGS]
