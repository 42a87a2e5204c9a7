"""The ``streamsvm`` command: list data, train, predict, evaluate, a demo and the benchmarks.

Examples (shell)::

    streamsvm datasets list
    streamsvm datasets describe mnist-0v1
    streamsvm train Pegasos --data synthetic-a --n-samples 100000 --block-size 20 --save model.npz
    streamsvm train Perceptron --file train.svm --format svmlight --save model.npz
    zcat train.svm.gz | streamsvm train LASVM --file - --save model.npz
    streamsvm train --resume model.npz --data synthetic-a --seed 1 --save model2.npz
    streamsvm evaluate model.npz --data synthetic-a --subset test
    streamsvm predict model.npz --file new.svm --output labels.txt
    streamsvm estimators
    streamsvm warmup
    streamsvm demo
    streamsvm bench --quick
    streamsvm distributed events.log --sites 10 --task one-class --gamma 1 --report out.json

This module only parses options and hands over: data sources are opened by
:func:`streamsvm.datasets.open_stream`, estimators found by :mod:`streamsvm.registry`, and
everything shown is formatted by :mod:`streamsvm.cli.report`. Estimator parameters are given as
options after the estimator's name, spelled like the Python parameter with dashes
(``--block-size 20``, ``--fit-intercept false``). Errors are printed as one line starting
with ``error:``; the exit code is 1 for bad data or model files and 2 for bad usage (unknown
estimator, parameter or data source).

The command's parts: :mod:`~streamsvm.cli.errors` (how it reports), :mod:`~streamsvm.cli.
options` (shared options), :mod:`~streamsvm.cli.main` (the group and its small commands),
:mod:`~streamsvm.cli.training`, :mod:`~streamsvm.cli.scoring` and :mod:`~streamsvm.cli.
distributed`.
"""

from . import distributed, scoring, training  # noqa: F401 - each registers its commands
from .errors import EXIT_DATA, EXIT_USAGE, CLIError
from .main import main

__all__ = ["main", "CLIError", "EXIT_DATA", "EXIT_USAGE"]
