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
everything shown is formatted by :mod:`streamsvm.report`. Estimator parameters are given as
options after the estimator's name, spelled like the Python parameter with dashes
(``--block-size 20``, ``--fit-intercept false``). Errors are printed as one line starting
with ``error:``; the exit code is 1 for bad data or model files and 2 for bad usage (unknown
estimator, parameter or data source).
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import time
import warnings
from pathlib import Path

import click
import numpy as np
from click.core import ParameterSource
from rich.console import Console
from rich.markup import escape

from . import progress, report
from ._version import __version__

console = Console()
err_console = Console(stderr=True)

EXIT_DATA = 1
EXIT_USAGE = 2


class CLIError(click.ClickException):
    """An error shown as ``error: message`` with a chosen exit code."""

    def __init__(self, message: str, exit_code: int = EXIT_DATA):
        super().__init__(message)
        self.exit_code = exit_code

    def show(self, file=None):
        err_console.print(f"[bold red]error:[/] {escape(self.message)}", highlight=False,
                          soft_wrap=True)


def _one_line(exc: BaseException) -> str:
    from .datasets._common import NONFINITE_HINT  # (error path only: keeps --help fast)
    from .datasets.files import DataFileError

    text = str(exc)
    reader_error = exc
    while reader_error is not None and not isinstance(reader_error, DataFileError):
        reader_error = reader_error.__cause__  # (a stream re-raises it naming its source)
    if reader_error is not None and reader_error.hint == NONFINITE_HINT:
        # the readers' hint names a Python argument; the estimators refuse non-finite values
        text = text.replace(f"({NONFINITE_HINT})", "(the estimators take finite values only: "
                            "fix or drop that value)")
    return _in_cli_terms(text) or type(exc).__name__


#: hints of the readers that name a Python argument, and the command line's option for it
_CLI_SPELLING = {"label_column=None": "--label-column none",
                 "pass zero_based=True": "give --zero-based yes"}


def _in_cli_terms(text: str) -> str:
    """``text`` on one line, its hints spelled as the command line's options."""
    for python, option in _CLI_SPELLING.items():
        text = text.replace(python, option)
    return " ".join(text.split())


def _errors_as_one_line(func):
    """Bad data, files and values become ``CLIError`` (exit 1), never a traceback."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except (click.ClickException, click.exceptions.Exit, click.Abort, BrokenPipeError):
            raise
        except (OSError, EOFError, ValueError, TypeError) as exc:
            raise CLIError(_one_line(exc)) from exc

    return wrapper


# --------------------------------------------------------------------------- parameters
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
    from .datasets import ReaderOptionError, UnknownSourceError, open_stream

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
    from .persistence import ModelFileError, load

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
    from . import metrics

    values = {"accuracy": metrics.accuracy(y_true, y_pred)}
    if len(classes) == 2 and len(np.unique(y_true)) == 2:
        positive = classes[1]
        values["g-means"] = metrics.g_means(y_true, y_pred, pos_label=positive)
        values["AUC"] = metrics.roc_auc(y_true, scores, pos_label=positive)
        values["PRBEP"] = metrics.prbep(y_true, scores, pos_label=positive)
    return values


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """Python warnings as one ``warning:`` line, with the command line's spelling of the
    readers' hints."""
    err_console.print(f"[bold yellow]warning:[/] {escape(_in_cli_terms(str(message)))}",
                      highlight=False, soft_wrap=True)


class _Main(click.Group):
    """The ``streamsvm`` group: warnings shown as one line each; click's own errors (a bad
    option value, a file ``--output`` cannot open) as one ``error:`` line like the others;
    and a reader that stops reading (``streamsvm predict ... | head``) ends the command
    quietly, as Unix tools do."""

    def invoke(self, ctx):
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            try:
                return super().invoke(ctx)
            except click.FileError as exc:
                raise CLIError(exc.format_message()) from exc
            except click.UsageError as exc:
                command = exc.ctx.command_path if exc.ctx is not None else "streamsvm"
                raise CLIError(f"{exc.format_message()} (see '{command} --help')",
                               EXIT_USAGE) from exc
            except BrokenPipeError:
                with contextlib.suppress(OSError, ValueError, AttributeError):
                    # nothing more can reach the reader: flushing at exit must not complain
                    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                ctx.exit(1)


# --------------------------------------------------------------------------- commands
@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="streamsvm")
def main():
    """Support vector machines that learn from streams."""


@main.group()
def datasets():
    """List and describe the datasets of the papers (read from $STREAMSVM_DATA)."""


@datasets.command("list")
def datasets_list():
    """Every named dataset, whether its file is present, and the generators."""
    from . import datasets as ds

    names = ds.list_datasets()
    console.print(report.datasets_table([ds.describe_dataset(n) for n in names],
                                        [ds.dataset_available(n) for n in names]))
    try:
        console.print(f"data folder: {ds.data_home()}", highlight=False)
    except ds.DatasetNotFoundError as exc:
        console.print(f"[red]{escape(str(exc))}[/]", highlight=False)
    console.print("generated (always available): " + ", ".join(ds.GENERATOR_SOURCES))


@datasets.command("describe")
@click.argument("name")
def datasets_describe(name):
    """Everything known about one dataset."""
    from . import datasets as ds

    if name not in ds.list_datasets():
        raise CLIError(f"unknown dataset {name!r}; see 'streamsvm datasets list'", EXIT_USAGE)
    for line in report.dataset_lines(ds.describe_dataset(name)):
        console.print(line, highlight=False)


class _TrainCommand(click.Command):
    """``train``, whose help ends with every estimator and its parameters (with defaults)."""

    def format_epilog(self, ctx, formatter):
        from .registry import available_estimators

        rows = report.estimator_parameters(available_estimators())
        with formatter.section("Estimators (parameters with their defaults)"):
            first = max(len(name) for name, _ in rows) + 2
            width = max(formatter.width - formatter.current_indent - first, 30)
            for name, options in rows:  # lines broken between options, never inside one
                lines, line = [], ""
                for option in options.split(", "):
                    candidate = f"{line}, {option}" if line else option
                    if line and len(candidate) + 1 > width:
                        lines.append(line + ",")
                        candidate = option
                    line = candidate
                lines.append(line)
                for k, text in enumerate(lines):
                    label = name if k == 0 else ""
                    formatter.write(f"{'':>{formatter.current_indent}}{label:<{first}}{text}\n")


@main.command(
    cls=_TrainCommand,
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.argument("estimator", required=False)
@data_options("train")
@click.option("--save", "save_path", type=click.Path(dir_okay=False), help="write the model here")
@click.option("--resume", type=click.Path(dir_okay=False),
              help="continue training a saved model (ESTIMATOR may then be left out)")
@click.option("--quiet", is_flag=True, help="no progress bar")
@click.option("--shards", "shards", multiple=True, metavar="GLOB",
              help="train over shards in parallel (files or globs, repeatable; see "
                   "docs/sharded.md) instead of --data/--file")
@click.option("--workers", type=click.IntRange(1), default=None,
              help="worker processes for --shards (local backend) [default: 2]; without "
                   "--shards, the estimator's own --workers if it has one")
@click.option("--backend", type=click.Choice(["local", "ray", "serial"]), default=None,
              help="where --shards workers run (serial: this process) [default: local]; "
                   "without --shards, the estimator's own --backend if it has one")
@click.pass_context
@_errors_as_one_line
def train(ctx, estimator, data, file, fmt, subset, zero_based, label_column, delimiter,
          chunk_size, n_samples, seed, save_path, resume, quiet, shards, workers, backend):
    """Train ESTIMATOR on a stream, one chunk at a time (extra options: its parameters)."""
    from ._params import check_params
    from .persistence import check_writable, save
    from .registry import get_estimator

    extra = list(ctx.args)
    if estimator is not None and estimator.startswith("-"):  # an option, not a name
        extra, estimator = [estimator, *extra], None
    if not shards:  # --backend/--workers name the estimator's parameters (DistributedL2SVM)
        for flag, value in (("--backend", backend), ("--workers", workers)):
            if value is not None:
                extra += [flag, str(value)]
    if save_path:
        try:
            check_writable(save_path)  # before the training, not after it
        except OSError as exc:
            raise CLIError(_one_line(exc)) from exc
    model = _load_model(resume) if resume else None
    if model is not None and extra:
        raise CLIError("parameters cannot be changed when resuming a saved model", EXIT_USAGE)
    if estimator is None and model is None:
        raise CLIError("give an ESTIMATOR name or --resume FILE (the name comes first: "
                       "train ESTIMATOR --its-parameter VALUE ... --data NAME)", EXIT_USAGE)
    if estimator is not None:
        try:
            cls = get_estimator(estimator)
        except ValueError as exc:
            raise CLIError(str(exc), EXIT_USAGE) from exc
        if model is not None and type(model) is not cls:
            raise CLIError(f"{resume} holds a {type(model).__name__}, not a {cls.__name__}; "
                           "leave the estimator name out to resume it", EXIT_USAGE)
        if model is None:
            model = cls(**parse_estimator_options(cls, extra))
            try:
                check_params(model)
            except ValueError as exc:
                raise CLIError(str(exc), EXIT_USAGE) from exc
    if shards:
        if data is not None or file is not None or resume:
            raise CLIError("--shards replaces --data, --file and --resume", EXIT_USAGE)
        given = [f"--{name.replace('_', '-')}" for name in ("subset", "zero_based",
                                                              "label_column", "delimiter")
                 if _given(name)]
        if given:
            raise CLIError(f"{' and '.join(given)} cannot be used with --shards: the shards "
                           "are read whole, and their scan finds their width and svmlight base "
                           "(docs/sharded.md)", EXIT_USAGE)
        _train_sharded(model, shards, fmt=fmt, chunk_size=chunk_size, workers=workers or 2,
                       backend=backend or "local", quiet=quiet, save_path=save_path)
        return
    source_options = dict(data=data, file=file, fmt=fmt, subset=subset, zero_based=zero_based,
                          label_column=label_column, delimiter=delimiter,
                          chunk_size=chunk_size, n_samples=n_samples, seed=seed)
    stream = _open(source_options, getattr(model, "n_features_in_", None))
    name = type(model).__name__
    first = progress.first_use(name)
    if first and not quiet:
        err_console.print(progress.first_use_notice(name), highlight=False)
    start = time.perf_counter()
    seen = 0
    bar, update = report.train_progress(err_console, f"{name} on {stream.description}",
                                        quiet=quiet)
    with bar, _heartbeat(f"{name}: first use", enabled=first and not quiet) as compiling:
        for X, y in stream:
            if y is None:
                raise CLIError(f"{stream.description} has no labels to learn from "
                               "(--label-column none): train needs a label per example",
                               EXIT_USAGE)
            model.partial_fit(X, y)
            compiling.stop()
            seen += X.shape[0]
            update(seen, seen / max(time.perf_counter() - start, 1e-9), _model_bytes(model))
    if seen == 0:
        raise CLIError(f"{stream.description} holds no examples")
    with _heartbeat(f"{name}: finishing", enabled=not quiet):
        model.finish()
    console.print(report.train_summary(name, seen, stream.description,
                                       time.perf_counter() - start, _model_bytes(model)),
                  highlight=False)
    if save_path:
        save(model, save_path)
        console.print(f"saved to {save_path}", highlight=False)
    elif not quiet:
        err_console.print("the model was not kept: give --save PATH to write it to a file",
                          highlight=False)


def _heartbeat(label: str, *, enabled: bool) -> progress.Heartbeat:
    """A line every few seconds on standard error while work that reports nothing runs."""
    return progress.Heartbeat(
        label, enabled=enabled, write=lambda line: err_console.print(line, highlight=False))


def _train_sharded(model, shards, *, fmt, chunk_size, workers, backend, quiet, save_path):
    """``train --shards``: :func:`streamsvm.sharded.fit_sharded`, a line per shard."""
    from .persistence import save
    from .sharded import WorkerLostError, fit_sharded, sharded_method

    name = type(model).__name__
    try:
        method = sharded_method(model)
    except ValueError as exc:
        raise CLIError(str(exc), EXIT_USAGE) from exc
    start = time.perf_counter()
    try:
        model = fit_sharded(model, list(shards), backend=backend, workers=workers,
                            chunk_size=chunk_size, format=fmt, verbose=0 if quiet else 1)
    except WorkerLostError as exc:
        raise CLIError(_one_line(exc)) from exc
    source = f"{', '.join(shards)} ({method})"
    console.print(report.train_summary(name, model.n_seen_, source,
                                       time.perf_counter() - start, _model_bytes(model)),
                  highlight=False)
    if save_path:
        save(model, save_path)
        console.print(f"saved to {save_path}", highlight=False)


@main.command()
@click.argument("model_path", type=click.Path(dir_okay=False))
@data_options("test")
@click.option("--output", type=click.File("w"), default="-",
              help="where to write one label per line")
@_errors_as_one_line
def predict(model_path, output, **source_options):
    """Predict a label for every example of a stream."""
    model = _load_fitted(model_path)
    for X, _y in _open(source_options, model.n_features_in_):
        output.writelines(f"{label}\n" for label in _as_written(model.predict(X)))


def _as_written(labels: np.ndarray) -> np.ndarray:
    """Labels as a data file writes them: whole-number floats (svmlight's labels are read as
    floats) as integers, ``-1`` rather than ``-1.0``; any other labels as they are."""
    if (labels.dtype.kind == "f" and np.all(np.isfinite(labels)) and np.all(labels % 1 == 0)
            and np.all(np.abs(labels) < _INT64_BOUND)):  # beyond int64 a cast wraps around
        return labels.astype(np.int64)
    return labels


_INT64_BOUND = 2.0**63


@main.command()
@click.argument("model_path", type=click.Path(dir_okay=False))
@data_options("test")
@_errors_as_one_line
def evaluate(model_path, **source_options):
    """Metrics of a saved model on a labelled stream (binary: g-means, AUC, PRBEP too)."""
    model = _load_fitted(model_path)
    stream = _open(source_options, model.n_features_in_)
    labels, predictions, scores = [], [], []
    for X, y in stream:
        if y is None:
            raise CLIError(f"{stream.description} has no labels to evaluate against "
                           "(--label-column none)", EXIT_USAGE)
        labels.append(np.asarray(y))
        predictions.append(model.predict(X))
        scores.append(model.decision_function(X))
    if not labels:
        raise CLIError(f"{stream.description} holds no examples")
    y_true = np.concatenate(labels)
    _check_labels_known(y_true, model.classes_, stream.description)
    values = _metrics(y_true, np.concatenate(predictions), np.concatenate(scores),
                      model.classes_)
    console.print(report.metrics_table(f"{type(model).__name__} on {stream.description}",
                                       values, y_true.shape[0]))


def _check_labels_known(y_true, classes, source: str) -> None:
    """A usage error when the labels of ``source`` are none of the model's classes (another
    labelling: 0/1 against -1/+1, text against numbers)."""
    classes, found = np.asarray(classes), np.unique(y_true)
    if classes.dtype.kind in "biuf" and found.dtype.kind in "biuf":
        unknown = found[~np.isin(found, classes)]  # 1 and 1.0 are one label
    else:
        unknown = found[~np.isin(found.astype(str), classes.astype(str))]
    if unknown.size:
        shown = ", ".join(str(v) for v in _as_written(unknown[:5]))
        raise CLIError(f"{source} has labels the model never learnt ({shown}"
                       f"{', ...' if unknown.size > 5 else ''}); its classes: "
                       f"{', '.join(str(c) for c in _as_written(classes))}", EXIT_USAGE)


@main.command()
@click.option("--data", "data", default="synthetic-a", show_default=True,
              help="a built-in dataset or a generator")
@click.option("--n-train", type=click.IntRange(100), default=20_000, show_default=True)
@click.option("--n-test", type=click.IntRange(10), default=5_000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@_errors_as_one_line
def demo(data, n_train, n_test, seed):
    """Stream built-in data through every estimator, beside scikit-learn's SVC and SGD."""
    from .datasets import UnknownSourceError
    from .demo import run_demo

    def show(row):
        err_console.print(report.demo_line(row), highlight=False)

    try:
        rows = run_demo(data=data, n_train=n_train, n_test=n_test, seed=seed, on_result=show,
                        verbose=1)
    except UnknownSourceError as exc:
        raise CLIError(_one_line(exc), EXIT_USAGE) from exc
    console.print(report.demo_table(rows, data=data, n_train=n_train, n_test=n_test))


@main.command()
@click.option("--quick", is_flag=True, help="small tasks, a few minutes on two cores (CI smoke)")
@click.option("--task", "task_names", multiple=True, help="run only this task (repeatable)")
@click.option("--contender", "contender_names", multiple=True,
              help="run only contenders whose name contains this (repeatable)")
@click.option("--output-dir", type=click.Path(file_okay=False), default=None,
              help="where the Markdown and JSON results are written [default: "
                   "$XDG_CACHE_HOME/streamsvm/bench, i.e. ~/.cache/streamsvm/bench]")
@click.option("--no-memory", is_flag=True, help="skip the second, memory-traced run")
@click.option("--update", is_flag=True,
              help="merge into the results already in --output-dir: re-measured pairs replace "
                   "their old rows, the others stay")
@_errors_as_one_line
def bench(quick, task_names, contender_names, output_dir, no_memory, update):
    """Every estimator of the library against scikit-learn and River on the papers' data.

    Writes bench_quick.{md,json} (with --quick) or bench_suite.{md,json}, and a line as each
    pair starts and ends, with progress every few seconds of training.
    """
    from .bench import (
        contenders,
        default_results_dir,
        get_tasks,
        load_results,
        merge_results,
        run_suite,
        write_results,
    )

    try:
        tasks = get_tasks(task_names, quick=quick)
        chosen = contenders(contender_names, quick=quick)
    except ValueError as error:
        raise CLIError(str(error), EXIT_USAGE) from error
    stem = "bench_quick" if quick else "bench_suite"
    if output_dir is None:
        output_dir = default_results_dir()
    previous_path = Path(output_dir) / f"{stem}.json"
    previous = None
    if update and previous_path.exists():
        try:
            previous = load_results(previous_path)
        except (ValueError, TypeError) as error:
            raise CLIError(f"cannot merge into {previous_path}: {error}", EXIT_USAGE) from error
    results = run_suite(tasks, chosen, measure_memory=not no_memory, verbose=1)
    if previous is not None:
        results = merge_results(previous, results)
    md, js = write_results(results, output_dir, stem, title="streamsvm benchmark suite",
                           notes=report.bench_notes(quick))
    console.print(report.bench_table(results, [c.name for c in chosen]))
    for r in results:
        if r.error:
            err_console.print(f"{r.task}: {r.contender}: {r.error}", highlight=False)
    console.print(f"wrote {md} and {js}")


@main.command()
def estimators():
    """Every estimator, what it is, and its parameters with their defaults."""
    from .registry import available_estimators

    console.print(report.estimators_table(available_estimators()))


@main.command()
@click.argument("names", nargs=-1, metavar="[ESTIMATOR]...")
@_errors_as_one_line
def warmup(names):
    """Compile every estimator's numba code once (or only the ESTIMATORs named).

    Fits each on a tiny problem with each kernel its loops take, dense and sparse, so later
    processes on this machine load the compiled code from numba's cache instead of compiling.
    """
    from .warmup import warm_up

    def start(step):
        err_console.print(report.warmup_start_line(step), highlight=False)

    def done(step):
        err_console.print(report.warmup_done_line(step), highlight=False)

    try:
        steps = warm_up(names or None, on_start=start, on_done=done)
    except ValueError as exc:  # an unknown estimator name
        raise CLIError(str(exc), EXIT_USAGE) from exc
    console.print(report.warmup_summary(steps))
    if any(step.error for step in steps):
        raise CLIError(f"{sum(bool(s.error) for s in steps)} warmup step(s) failed (above)")


@main.command("distributed")
@click.argument("log", type=click.Path(dir_okay=False, exists=True))
@click.option("--sites", "n_sites", type=click.IntRange(1), default=10, show_default=True,
              help="number of sites K (every site index in the log must be below it)")
@click.option("--task", type=click.Choice(["two-class", "one-class"]), default="two-class",
              show_default=True)
@click.option("--kernel", type=click.Choice(["linear", "rbf", "poly", "sigmoid"]),
              default="rbf", show_default=True)
@click.option("--gamma", default="scale", show_default=True,
              help="float, 'scale' or 'auto' (fixed from the first point; docs/design.md)")
@click.option("--degree", type=int, default=3, show_default=True)
@click.option("--coef0", type=float, default=0.0, show_default=True)
@click.option("-C", "--C", "C", type=float, default=1.0, show_default=True)
@click.option("--epsilon", type=float, default=0.0, show_default=True,
              help="0 exact; > 0 absolute error of f (relative with --relative)")
@click.option("--relative", is_flag=True, help="read --epsilon as a relative error")
@click.option("--update", type=click.Choice(["method1", "method2"]), default="method1",
              show_default=True)
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local",
              show_default=True)
@click.option("--queries", "queries_out", type=click.File("w"),
              help="write 'line site decision label' for every query line")
@click.option("--records", "records_out", type=click.Path(dir_okay=False),
              help="write the per-event communication records as CSV")
@click.option("--report", "report_out", type=click.Path(dir_okay=False),
              help="write the communication totals as JSON")
@_errors_as_one_line
def distributed(log, n_sites, task, kernel, gamma, degree, coef0, C, epsilon, relative, update,
                backend, queries_out, records_out, report_out):
    """Replay an event LOG (add/delete/query lines) through a DistributedL2SVM.

    The log format is described in docs/distributed.md; every line is checked before the
    first event runs, and errors name the line."""
    import csv
    import json

    from ._params import check_params
    from .distributed import DistributedL2SVM, read_events

    try:
        gamma_value = gamma if gamma in ("scale", "auto") else float(gamma)
    except ValueError as exc:
        raise CLIError(f"--gamma must be a float, 'scale' or 'auto'; got {gamma!r}",
                       EXIT_USAGE) from exc
    try:
        events = read_events(log)
    except ValueError as exc:
        raise CLIError(f"{log}: {exc}") from exc
    if not events:
        raise CLIError(f"{log} holds no events")
    try:
        model = DistributedL2SVM(n_sites, task=task, kernel=kernel, gamma=gamma_value,
                                 degree=degree, coef0=coef0, C=C, epsilon=epsilon,
                                 relative=relative, update=update, backend=backend)
        check_params(model)
    except (ValueError, TypeError) as exc:
        raise CLIError(str(exc), EXIT_USAGE) from exc

    def answer(event, value):
        if queries_out is not None:
            label = 1 if value >= 0 else -1
            queries_out.write(f"{event.line} {event.site} {value!r} {label}\n")

    start = time.perf_counter()
    try:
        model.run_events(events, on_query=answer)
    except (ValueError, TypeError) as exc:
        raise CLIError(f"{log}: {exc}") from exc
    finally:
        elapsed = time.perf_counter() - start
    totals = model.communication_report()
    totals["seconds"] = round(elapsed, 3)
    totals["objective"] = model.objective_
    console.print(report.distributed_table(f"DistributedL2SVM ({update}, {backend}) on {log}",
                                           totals, elapsed))
    if report_out:
        with open(report_out, "w", encoding="utf-8") as handle:
            json.dump(totals, handle, indent=2)
    if records_out:
        fields = ["kind", "site", "point_id", "triggered", "certificate", "fallback", "rounds",
                  "messages", "vectors", "vector_broadcasts", "scalars", "bytes",
                  "membership_problems", "n_atoms", "objective"]
        with open(records_out, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=fields, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(model.events_)
    model.close()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
