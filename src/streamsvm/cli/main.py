"""The ``streamsvm`` group and its small commands: datasets, estimators, demo, bench,
warmup."""

from __future__ import annotations

import contextlib
import os
import sys
import time
import warnings
from pathlib import Path

import click
from rich.markup import escape

from .._version import __version__
from . import report
from .errors import (
    EXIT_USAGE,
    CLIError,
    _errors_as_one_line,
    _one_line,
    _show_warning,
    console,
    err_console,
)


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
    from .. import datasets as ds

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
    from .. import datasets as ds

    if name not in ds.list_datasets():
        raise CLIError(f"unknown dataset {name!r}; see 'streamsvm datasets list'", EXIT_USAGE)
    for line in report.dataset_lines(ds.describe_dataset(name)):
        console.print(line, highlight=False)



@main.command()
@click.option("--data", "data", default="synthetic-a", show_default=True,
              help="a built-in dataset or a generator")
@click.option("--n-train", type=click.IntRange(100), default=20_000, show_default=True)
@click.option("--n-test", type=click.IntRange(10), default=5_000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes for the estimators' first uses (compiling), side by "
                   "side before the timed runs [default: the cores this process may use].")
@_errors_as_one_line
def demo(data, n_train, n_test, seed, jobs):
    """Stream built-in data through every estimator, beside scikit-learn's SVC and SGD."""
    from ..datasets import UnknownSourceError
    from .demo import run_demo
    from .warmup import default_jobs

    def show(row):
        err_console.print(report.demo_line(row), highlight=False)

    try:
        rows = run_demo(data=data, n_train=n_train, n_test=n_test, seed=seed, on_result=show,
                        verbose=1, jobs=jobs or default_jobs())
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
    from ..bench import (
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
    from ..registry import available_estimators

    console.print(report.estimators_table(available_estimators()))


@main.command()
@click.argument("names", nargs=-1, metavar="[ESTIMATOR]...")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes that compile side by side, one module of estimators "
                   "each [default: the cores this process may use].")
@_errors_as_one_line
def warmup(names, jobs):
    """Compile every estimator's numba code once (or only the ESTIMATORs named).

    Fits each on a tiny problem with each kernel its loops take, dense and sparse, so later
    processes on this machine load the compiled code from numba's cache instead of compiling.
    """
    from .warmup import warm_up, worker_count

    def start(step):
        err_console.print(report.warmup_start_line(step), highlight=False)

    def done(step):
        err_console.print(report.warmup_done_line(step), highlight=False)

    started = time.perf_counter()
    try:
        workers = worker_count(names or None, jobs)
        steps = warm_up(names or None, jobs=workers, on_start=start, on_done=done)
    except ValueError as exc:  # an unknown estimator name
        raise CLIError(str(exc), EXIT_USAGE) from exc
    console.print(report.warmup_summary(steps, time.perf_counter() - started, workers))
    if any(step.error for step in steps):
        raise CLIError(f"{sum(bool(s.error) for s in steps)} warmup step(s) failed (above)")

