"""Save and load models without pickle; every file is validated whole before a model is built.

A model file is a zip of uncompressed ``.npy`` arrays holding the model's arrays and one JSON
header (the array ``__streamsvm_header__``):

.. code-block:: json

    {"format": "streamsvm-model", "format_version": 2, "library_version": "0.1.0",
     "estimator": "streamsvm.linear.perceptron.Perceptron",
     "params": {...}, "state": {...},
     "arrays": {"a0": {"dtype": "<f8", "shape": [3], "sha256": "9f86d0..."}, ...}}

``state`` mirrors the model's attributes: numbers, strings and lists are stored as JSON,
arrays as references ``{"__array__": "a3"}`` into the archive, sparse matrices as their
three arrays, random generators as their bit-generator state, and the library's own state
objects (binary learners, kernels, caches) as ``{"__object__": "streamsvm....", "state": {...}}``.
``arrays`` declares each array's dtype and shape (format version 2; version 1 files, written
by streamsvm 0.1.0, lack it and are still read) and, from format version 7, its SHA-256
digest (:func:`array_digest`), so that an array rewritten without its header is refused
naming the entry (files of earlier versions have none and still load). Dicts whose keys are
not all strings (``class_weight={0: 1, 1: 3}``) are saved as ``{"__items__": [[key, value],
...]}``, their keys typed (NumPy scalars as ``{"__scalar__": [dtype, value]}``).

Loading only ever instantiates classes defined in the ``streamsvm`` package, found by name
in its modules, without calling their constructors: a file cannot make the loader run any
other code. :func:`load` checks everything before building anything: the header's JSON types
and keys; each zip member's size in the zip directory against the array it should hold
(before any byte is read, so a small file cannot inflate to gigabytes, and no fixed cap
refuses a large honest model); every array's dtype and shape against the header; finiteness
of float arrays (±inf only in attributes a class lists in ``_may_hold_infinity``); each saved
object's own invariants (its ``_check_restored`` method: index arrays its compiled loops
trust, lengths that agree, values its state can hold); the model's consistency (classes,
learners matching those it builds today, each learner's configuration equal to the one its
parameters give, feature counts, parameters, kept calibration rows its learners can score);
and finally that the built model answers a query. So even a consistently edited file (its
digests rewritten to match) loads into a model that works or is refused. A file is a usable
model or a :class:`ModelFileError` naming the file and the first problem (design page,
"Model files").

Compatibility: :data:`MOVED_CLASSES` maps the dotted path of a class that has moved to its new
path, and :data:`STATE_MIGRATIONS` upgrades the saved state of a class written by an older
format version (see ``docs/design.md``, "Model files"). Mid-stream state is saved too, so
``partial_fit`` resumes exactly.

The parts: :mod:`~streamsvm.persistence.format` (versions and compatibility tables),
:mod:`~streamsvm.persistence.writing`, :mod:`~streamsvm.persistence.archive` (the zip and its
arrays), :mod:`~streamsvm.persistence.decoding` (the state), :mod:`~streamsvm.persistence.
reading` (:func:`load`) and :mod:`~streamsvm.persistence.checks` (the built model).
"""

# FORMAT, _HEADER, _Encoder, array_digest and check_writable: for the CLI, tools and tests
from .format import (  # noqa: F401
    _HEADER,
    ADDED_PARAMETERS,
    FORMAT,
    FORMAT_VERSION,
    MOVED_CLASSES,
    STATE_MIGRATIONS,
    ModelFileError,
)
from .reading import load
from .writing import _Encoder, array_digest, check_writable, save  # noqa: F401

__all__ = [
    "save",
    "load",
    "FORMAT_VERSION",
    "ModelFileError",
    "MOVED_CLASSES",
    "STATE_MIGRATIONS",
    "ADDED_PARAMETERS",
]
