"""``streamsvm train``: learn from a source or shards, resume a saved model, save it."""

from __future__ import annotations

import time

import click

from ..utils import progress
from . import report
from .errors import (
    EXIT_USAGE,
    CLIError,
    _errors_as_one_line,
    _one_line,
    console,
    err_console,
)
from .main import main
from .options import (
    _given,
    _load_model,
    _model_bytes,
    _open,
    data_options,
    parse_estimator_options,
)


class _TrainCommand(click.Command):
    """``train``, whose help ends with every estimator and its parameters (with defaults)."""

    def format_epilog(self, ctx, formatter):
        from ..registry import available_estimators

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
    from ..persistence import check_writable, save
    from ..registry import get_estimator
    from ..utils.params import check_params

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
    from ..persistence import save
    from ..sharded import WorkerLostError, fit_sharded, sharded_method

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

