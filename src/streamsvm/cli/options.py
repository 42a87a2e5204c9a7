"""Options shared by the commands: estimator parameters after the estimator's name,
the data-source options, opening a source, loading a model file, the metrics shown."""

from __future__ import annotations

from pathlib import Path

import click
import numpy as np
from click.core import ParameterSource

from .errors import (
    EXIT_USAGE,
    CLIError,
    _one_line,
)


def parse_estimator_options(cls, args: list[str]) -> dict:
    """Turn ``--name value`` pairs into keyword arguments of ``cls``, typed by its defaults."""
    defaults = cls().get_params(deep=False)
    params = {}
    i = 0
    while i < len(args):
        token = args[i]
        if not token.startswith("--"):
            raise CLIError(
                f"unexpected argument {token!r}; parameters are given as --name value", EXIT_USAGE
            )
        name, _, value = token[2:].partition("=")
        key = name.replace("-", "_")
        if key not in defaults:
            valid = ", ".join("--" + p.replace("_", "-") for p in defaults) or "(none)"
            raise CLIError(
                f"{cls.__name__} has no parameter {name!r}; its parameters: {valid}", EXIT_USAGE
            )
        if not value:
            if i + 1 >= len(args):
                raise CLIError(f"--{name} needs a value", EXIT_USAGE)
            value = args[i + 1]
            i += 1
        params[key] = _parse_value(value, defaults[key], name)
        i += 1
    return params


def _parse_value(text: str, default, name: str):
    lowered = text.strip().lower()
    if isinstance(default, bool):
        if lowered in ("true", "yes", "1", "on"):
            return True
        if lowered in ("false", "no", "0", "off"):
            return False
        raise CLIError(f"--{name} takes true or false; got {text!r}", EXIT_USAGE)
    is_int = isinstance(default, int) and not isinstance(default, bool)
    if lowered == "none":
        return None
    for convert in (int, float):
        try:
            value = convert(text)
        except ValueError:
            continue
        if is_int and convert is float:
            raise CLIError(f"--{name} takes an integer; got {text!r}", EXIT_USAGE)
        return value
    if is_int:
        raise CLIError(f"--{name} takes an integer; got {text!r}", EXIT_USAGE)
    if isinstance(default, float):
        raise CLIError(f"--{name} takes a number; got {text!r}", EXIT_USAGE)
    return text


# --------------------------------------------------------------------------- data options
def data_options(subset: str):
    """``--data``/``--file`` and how to read them (the options of ``open_stream``);
    ``subset``: the part of a dataset or generator the command reads by default (``train``
    learns from the training part, ``predict`` and ``evaluate`` read the test part)."""
    options = [
        click.option("--data", "data", metavar="NAME",
                     help="a built-in dataset or a generator (or any source --file takes)"),
        click.option("--file", "file", metavar="PATH",
                     help="a data file (svmlight, CSV, .npz; .gz/.bz2/.xz) or - for stdin"),
        click.option("--format", "fmt", type=click.Choice(["svmlight", "csv", "npz"]),
                     help="file format (default: from the suffix; for stdin, its first line)"),
        click.option("--subset", type=click.Choice(["train", "test", "all"]), default=subset,
                     show_default=True, help="the part of a --data set or generator to read"),
        click.option("--zero-based", "zero_based", type=click.Choice(["auto", "yes", "no"]),
                     default=None,
                     help="svmlight files: whether feature indices start at 0 [default: auto, "
                          "zero-based if index 0 occurs; give it when predicting on a file "
                          "that may not show its base]"),
        click.option("--label-column", "label_column", metavar="INDEX|none", default=None,
                     help="CSV files: the column of the labels, negative from the end, or "
                          "'none' for rows without labels (predict) [default: -1, the last]"),
        click.option("--delimiter", default=None, metavar="CHAR",
                     help="CSV files: the field separator [default: ,]"),
        click.option("--chunk-size", type=click.IntRange(1), default=5000, show_default=True),
        click.option("--n-samples", type=click.IntRange(1), default=None,
                     help="at most this many examples [generators: 100,000]"),
        click.option("--seed", type=int, default=0, show_default=True,
                     help="seed of generated data"),
    ]

    def decorate(f):
        for option in reversed(options):
            f = option(f)
        return f

    return decorate


#: the reader options the data options set, as the command line spells them
_READER_FLAGS = {"zero_based": "--zero-based", "label_column": "--label-column",
                 "delimiter": "--delimiter"}


def _reader_options(source_options: dict) -> dict:
    """The readers' keyword arguments for the reading options given on the command line."""
    options = {}
    zero_based = source_options.get("zero_based")
    if zero_based is not None:
        options["zero_based"] = {"auto": "auto", "yes": True, "no": False}[zero_based]
    column = source_options.get("label_column")
    if column is not None:
        if column.strip().lower() == "none":
            options["label_column"] = None
        else:
            try:
                options["label_column"] = int(column)
            except ValueError:
                raise CLIError(f"--label-column takes an integer or 'none'; got {column!r}",
                               EXIT_USAGE) from None
    delimiter = source_options.get("delimiter")
    if delimiter is not None:
        if len(delimiter) != 1:
            raise CLIError(f"--delimiter takes one character; got {delimiter!r}", EXIT_USAGE)
        options["delimiter"] = delimiter
    return options


def _given(name: str) -> bool:
    """Whether the running command's option ``name`` was given, not left at its default."""
    source = click.get_current_context().get_parameter_source(name)
    return source is not None and source is not ParameterSource.DEFAULT


def _open(source_options: dict, n_features=None):
    """The stream ``--data``/``--file`` name; an unknown name is a usage error."""
    from ..datasets import ReaderOptionError, UnknownSourceError, open_stream

    data, file = source_options["data"], source_options["file"]
    if (data is None) == (file is None):
        raise CLIError("give exactly one of --data NAME or --file PATH", EXIT_USAGE)
    if file is not None and _given("subset"):
        raise CLIError("--subset chooses a part of a --data set or generator; a --file is "
                       "read whole", EXIT_USAGE)
    source = data if data is not None else file
    if file is not None and file != "-":
        source = Path(file)  # --file is always a path, even when it spells a dataset's name
    try:
        return open_stream(source, format=source_options["fmt"],
                           subset=source_options["subset"],
                           chunk_size=source_options["chunk_size"],
                           n_samples=source_options["n_samples"], n_features=n_features,
                           random_state=source_options["seed"],
                           **_reader_options(source_options))
    except UnknownSourceError as exc:
        raise CLIError(_one_line(exc), EXIT_USAGE) from exc
    except ReaderOptionError as exc:
        raise CLIError(f"{_READER_FLAGS.get(exc.option, exc.option)} does not apply to "
                       f"{exc.what}", EXIT_USAGE) from exc


def _load_model(path):
    from ..persistence import ModelFileError, load

    try:
        return load(path)
    except (FileNotFoundError, ModelFileError) as exc:
        raise CLIError(_one_line(exc)) from exc


def _load_fitted(path):
    """The model saved in ``path``, which must have learnt (``predict``, ``evaluate``): a
    file saved before any example (or during ``learn_one``'s warm-up, rows buffered but no
    model yet) is refused naming the file, not left to fail on a missing attribute."""
    model = _load_model(path)
    if not model.__sklearn_is_fitted__() or not hasattr(model, "n_features_in_"):
        raise CLIError(f"the model in {path} was never fitted (it was saved before it learnt "
                       f"from any example); train it first, e.g. 'streamsvm train --resume "
                       f"{path} --file DATA --save {path}'")
    return model


def _model_bytes(model) -> int | None:
    return getattr(model, "model_nbytes_", None)


def _metrics(y_true, y_pred, scores, classes) -> dict[str, float]:
    """Accuracy; with two classes present, also g-means, AUC and PRBEP of the second."""
    from .. import metrics

    values = {"accuracy": metrics.accuracy(y_true, y_pred)}
    if len(classes) == 2 and len(np.unique(y_true)) == 2:
        positive = classes[1]
        values["g-means"] = metrics.g_means(y_true, y_pred, pos_label=positive)
        values["AUC"] = metrics.roc_auc(y_true, scores, pos_label=positive)
        values["PRBEP"] = metrics.prbep(y_true, scores, pos_label=positive)
    return values

