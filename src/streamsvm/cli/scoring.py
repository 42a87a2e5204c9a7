"""``streamsvm predict`` and ``streamsvm evaluate`` on a saved model."""

from __future__ import annotations

import click
import numpy as np

from . import report
from .errors import (
    EXIT_USAGE,
    CLIError,
    _errors_as_one_line,
    console,
)
from .main import main
from .options import (
    _load_fitted,
    _metrics,
    _open,
    data_options,
)


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

