"""The ``streamsvm`` command: list data, train, predict, evaluate, and a demo.

Examples (shell)::

    streamsvm datasets list
    streamsvm datasets describe mnist-0v1
    streamsvm train Pegasos --data synthetic-a --n-samples 100000 --block-size 20 --save model.npz
    streamsvm train Perceptron --file train.svm --format svmlight --save model.npz
    streamsvm evaluate model.npz --data synthetic-a --subset test
    streamsvm predict model.npz --file new.svm --output labels.txt
    streamsvm demo
    streamsvm bench --quick
    streamsvm distributed events.log --sites 10 --task one-class --gamma 1 --report out.json

Estimator parameters are given as options after the estimator's name, spelled like the
Python parameter with dashes (``--block-size 20``, ``--fit-intercept false``). Errors are
printed as one line starting with ``error:`` and the exit code is 1 for bad data or model
files and 2 for bad usage (unknown estimator, parameter or dataset).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import click
import numpy as np
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import __version__

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
        err_console.print(f"[bold red]error:[/] {self.message}", highlight=False, markup=True)


# --------------------------------------------------------------------------- data sources
GENERATORS = {
    "checkerboard": "checkerboard",
    "noisy-checkerboard": "noisy_checkerboard",
    "gauss": "gauss",
    "waveform-generator": "waveform",
    "synthetic-a": "synthetic_a",
    "synthetic-b": "synthetic_b",
    "synthetic-c": "synthetic_c",
    "chessboard-10d": "chessboard_10d",
}


def _generated_stream(name: str, n_samples: int, chunk_size: int, seed: int) -> Iterator:
    from . import datasets

    generator = getattr(datasets, GENERATORS[name])
    produced = 0
    for X, y in generator(chunk_size=chunk_size, random_state=seed):
        take = min(X.shape[0], n_samples - produced)
        yield X[:take], y[:take]
        produced += take
        if produced >= n_samples:
            return


def open_stream(data, file, fmt, chunk_size, subset, n_samples, seed, n_features=None):
    """Chunks ``(X, y)`` from a named dataset, a generator or a file, and a short description."""
    from . import datasets

    if (data is None) == (file is None):
        raise CLIError("give exactly one of --data NAME or --file PATH", EXIT_USAGE)
    if file is not None:
        fmt = fmt or _guess_format(file)
        if fmt == "svmlight":
            return datasets.iter_svmlight(file, chunk_size=chunk_size, n_features=n_features), file
        if fmt == "csv":
            return datasets.iter_csv(file, chunk_size=chunk_size), file
        if fmt == "npz":
            return datasets.iter_npz(file, "X", "y", chunk_size=chunk_size), file
        raise CLIError(f"unknown --format {fmt!r}; use svmlight, csv or npz", EXIT_USAGE)
    if data in GENERATORS:
        # the test part of a generated set is drawn with another seed
        stream_seed = seed if subset != "test" else seed + 1_000_003
        return _generated_stream(data, n_samples, chunk_size, stream_seed), f"{data} (generated)"
    names = datasets.list_datasets()
    if data not in names:
        raise CLIError(
            f"unknown dataset {data!r}; choose one of: {', '.join(names + list(GENERATORS))}",
            EXIT_USAGE,
        )
    return datasets.iter_dataset(data, subset=subset, chunk_size=chunk_size), data


def _guess_format(path: str) -> str:
    name = path.lower()
    for suffix in (".gz", ".bz2"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if name.endswith((".csv", ".dat", ".data")):
        return "csv"
    if name.endswith(".npz"):
        return "npz"
    return "svmlight"


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
    if lowered == "none":
        return None
    for convert in (int, float):
        try:
            value = convert(text)
        except ValueError:
            continue
        if isinstance(default, int) and not isinstance(default, bool) and convert is float:
            raise CLIError(f"--{name} takes an integer; got {text!r}", EXIT_USAGE)
        return value
    if isinstance(default, int) and not isinstance(default, bool):
        raise CLIError(f"--{name} takes an integer; got {text!r}", EXIT_USAGE)
    if isinstance(default, float):
        raise CLIError(f"--{name} takes a number; got {text!r}", EXIT_USAGE)
    return text


def _human_bytes(n: int | None) -> str:
    if n is None:
        return "-"
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def _model_bytes(model) -> int | None:
    try:
        return int(model.model_nbytes_)
    except AttributeError:
        return None


# --------------------------------------------------------------------------- commands
@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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

    table = Table(title="datasets (files under $STREAMSVM_DATA)")
    for column in ("name", "task", "train", "test", "features", "present"):
        table.add_column(column)
    for name in ds.list_datasets():
        info = ds.describe_dataset(name)
        table.add_row(
            name,
            str(info.task),
            str(info.n_train),
            str(info.n_test),
            str(info.n_features),
            "yes" if ds.dataset_available(name) else "[red]no[/]",
        )
    console.print(table)
    console.print("generated (always available): " + ", ".join(GENERATORS))


@datasets.command("describe")
@click.argument("name")
def datasets_describe(name):
    """Everything known about one dataset."""
    from . import datasets as ds

    if name not in ds.list_datasets():
        raise CLIError(f"unknown dataset {name!r}; see 'streamsvm datasets list'", EXIT_USAGE)
    info = ds.describe_dataset(name)
    for field, value in vars(info).items() if hasattr(info, "__dict__") else info._asdict().items():
        console.print(f"[bold]{field}[/]: {value}", highlight=False)


data_options = [
    click.option("--data", "data", metavar="NAME", help="a named dataset or generator"),
    click.option("--file", "file", type=click.Path(dir_okay=False), help="a data file"),
    click.option(
        "--format",
        "fmt",
        type=click.Choice(["svmlight", "csv", "npz"]),
        help="file format (default: from the suffix)",
    ),
    click.option(
        "--subset", type=click.Choice(["train", "test", "all"]), default="train", show_default=True
    ),
    click.option("--chunk-size", type=click.IntRange(1), default=5000, show_default=True),
    click.option(
        "--n-samples",
        type=click.IntRange(1),
        default=100_000,
        show_default=True,
        help="examples drawn from a generator",
    ),
    click.option("--seed", type=int, default=0, show_default=True, help="seed of generated data"),
]


def with_data_options(f):
    for option in reversed(data_options):
        f = option(f)
    return f


def _load_model(path):
    from .persistence import ModelFileError, load

    try:
        return load(path)
    except FileNotFoundError as exc:
        raise CLIError(str(exc)) from exc
    except ModelFileError as exc:
        raise CLIError(str(exc)) from exc


def _reraise_data_errors(func):
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except CLIError:
            raise
        except FileNotFoundError as exc:
            raise CLIError(str(exc)) from exc
        except (ValueError, TypeError) as exc:
            raise CLIError(str(exc)) from exc

    return wrapper


@main.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("estimator")
@with_data_options
@click.option("--save", "save_path", type=click.Path(dir_okay=False), help="write the model here")
@click.option("--resume", type=click.Path(dir_okay=False), help="continue training a saved model")
@click.option("--quiet", is_flag=True, help="no progress bar")
@click.pass_context
@_reraise_data_errors
def train(
    ctx, estimator, data, file, fmt, subset, chunk_size, n_samples, seed, save_path, resume, quiet
):
    """Train ESTIMATOR on a stream, one chunk at a time (extra options: its parameters)."""
    from .persistence import save
    from .registry import get_estimator

    if resume:
        model = _load_model(resume)
        if ctx.args:
            raise CLIError("parameters cannot be changed when resuming a saved model", EXIT_USAGE)
    else:
        try:
            cls = get_estimator(estimator)
        except ValueError as exc:
            raise CLIError(str(exc), EXIT_USAGE) from exc
        model = cls(**parse_estimator_options(cls, ctx.args))
    n_features = getattr(model, "n_features_in_", None)
    stream, source = open_stream(data, file, fmt, chunk_size, subset, n_samples, seed, n_features)
    start = time.perf_counter()
    seen = 0
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,} examples"),
        TextColumn("{task.fields[rate]:,.0f} ex/s"),
        TextColumn("model {task.fields[size]}"),
        TimeElapsedColumn(),
        console=err_console,
        disable=quiet,
        transient=False,
    ) as progress:
        task = progress.add_task(
            f"{type(model).__name__} on {source}", total=None, rate=0.0, size="-"
        )
        for X, y in stream:
            model.partial_fit(X, y)
            seen += X.shape[0]
            elapsed = time.perf_counter() - start
            progress.update(
                task,
                completed=seen,
                rate=seen / max(elapsed, 1e-9),
                size=_human_bytes(_model_bytes(model)),
            )
    if seen == 0:
        raise CLIError(f"{source} holds no examples")
    model.finish()
    elapsed = time.perf_counter() - start
    console.print(
        f"trained {type(model).__name__} on {seen:,} examples of {source} in {elapsed:.2f} s "
        f"({seen / max(elapsed, 1e-9):,.0f} examples/s); model {_human_bytes(_model_bytes(model))}",
        highlight=False,
    )
    if save_path:
        save(model, save_path)
        console.print(f"saved to {save_path}", highlight=False)


@main.command()
@click.argument("model_path", type=click.Path(dir_okay=False))
@with_data_options
@click.option(
    "--output", type=click.File("w"), default="-", help="where to write one label per line"
)
@_reraise_data_errors
def predict(model_path, data, file, fmt, subset, chunk_size, n_samples, seed, output):
    """Predict a label for every example of a stream."""
    model = _load_model(model_path)
    stream, _ = open_stream(
        data, file, fmt, chunk_size, subset, n_samples, seed, model.n_features_in_
    )
    for X, _y in stream:
        for label in model.predict(X):
            output.write(f"{label}\n")


@main.command()
@click.argument("model_path", type=click.Path(dir_okay=False))
@with_data_options
@_reraise_data_errors
def evaluate(model_path, data, file, fmt, subset, chunk_size, n_samples, seed):
    """Metrics of a saved model on a labelled stream (binary: g-means, AUC, PRBEP too)."""
    from . import metrics

    model = _load_model(model_path)
    stream, source = open_stream(
        data, file, fmt, chunk_size, subset, n_samples, seed, model.n_features_in_
    )
    labels, predictions, scores = [], [], []
    for X, y in stream:
        labels.append(np.asarray(y))
        predictions.append(model.predict(X))
        scores.append(model.decision_function(X))
    if not labels:
        raise CLIError(f"{source} holds no examples")
    y_true = np.concatenate(labels)
    y_pred = np.concatenate(predictions)
    rows = [
        ("examples", f"{y_true.shape[0]:,}"),
        ("accuracy", f"{metrics.accuracy(y_true, y_pred):.4f}"),
    ]
    if len(model.classes_) == 2:
        positive = model.classes_[1]
        s = np.concatenate(scores)
        present = np.unique(y_true)
        if len(present) == 2:
            rows += [
                ("g-means", f"{metrics.g_means(y_true, y_pred, pos_label=positive):.4f}"),
                ("AUC", f"{metrics.roc_auc(y_true, s, pos_label=positive):.4f}"),
                ("PRBEP", f"{metrics.prbep(y_true, s, pos_label=positive):.4f}"),
            ]
    table = Table(title=f"{type(model).__name__} on {source}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for row in rows:
        table.add_row(*row)
    console.print(table)


@main.command()
@click.option(
    "--data", "data", default="synthetic-a", show_default=True, help="dataset or generator"
)
@click.option("--n-train", type=click.IntRange(100), default=20_000, show_default=True)
@click.option("--n-test", type=click.IntRange(10), default=5_000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@_reraise_data_errors
def demo(data, n_train, n_test, seed):
    """Stream built-in data through every estimator, beside scikit-learn's SVC and SGD."""
    from .demo import run_demo

    table = run_demo(data=data, n_train=n_train, n_test=n_test, seed=seed, console=err_console)
    console.print(table)


@main.command()
@click.option("--quick", is_flag=True, help="small tasks, a few minutes on two cores (CI smoke)")
@click.option("--task", "task_names", multiple=True, help="run only this task (repeatable)")
@click.option(
    "--contender", "contender_names", multiple=True,
    help="run only contenders whose name contains this (repeatable)",
)
@click.option(
    "--output-dir", type=click.Path(file_okay=False), default="benchmarks/results",
    show_default=True, help="where the Markdown and JSON results are written",
)
@click.option("--no-memory", is_flag=True, help="skip the second, memory-traced run")
@click.option(
    "--update", is_flag=True,
    help="merge into the results already in --output-dir: re-measured pairs replace their "
         "old rows, the others stay",
)
def bench(quick, task_names, contender_names, output_dir, no_memory, update):
    """Every estimator of the library against scikit-learn and River on the papers' data.

    Writes bench_quick.{md,json} (with --quick) or bench_suite.{md,json}.
    """
    from .bench import contenders, get_tasks, load_results, merge_results, run_suite, write_results

    try:
        tasks = get_tasks(task_names, quick=quick)
        chosen = contenders(contender_names)
    except ValueError as error:
        raise CLIError(str(error), EXIT_USAGE) from error
    stem = "bench_quick" if quick else "bench_suite"
    previous_path = Path(output_dir) / f"{stem}.json"
    previous = None
    if update and previous_path.exists():
        try:
            previous = load_results(previous_path)
        except (ValueError, TypeError) as error:
            raise CLIError(f"cannot merge into {previous_path}: {error}", EXIT_USAGE) from error
    with Progress(
        TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(),
        console=err_console, transient=True,
    ) as progress:
        bar = progress.add_task("bench", total=len(tasks) * len(chosen))

        def step(task, contender):
            progress.update(bar, advance=1, description=f"{task.name}: {contender.name}")

        results = run_suite(tasks, chosen, measure_memory=not no_memory, progress=step)
    if previous is not None:
        results = merge_results(previous, results)
    notes = (
        "Produced by `streamsvm bench" + (" --quick" if quick else "") + "`. Training time "
        "is CPU time (process_time) and excludes loading and (for River) turning rows into "
        "dicts; peak MB is what training allocates as seen by tracemalloc (NumPy and Python "
        "objects; not LIBSVM's own cache). "
        "Streaming contenders learn in chunks of 1,000 in the file's order, one pass."
    )
    md, js = write_results(results, output_dir, stem, title="streamsvm benchmark suite",
                           notes=notes)
    table = Table(title="accuracy % (train seconds)")
    table.add_column("contender")
    task_order = list(dict.fromkeys(r.task for r in results))
    for name in task_order:
        table.add_column(name, justify="right")
    for contender in chosen:
        cells = []
        for name in task_order:
            match = [r for r in results if r.task == name and r.contender == contender.name]
            r = match[0] if match else None
            if r is None or r.accuracy is None:
                if r is None or not r.error:
                    cells.append("-")
                else:
                    cells.append("skipped" if r.error.startswith("skipped") else "failed")
            else:
                cells.append(f"{100 * r.accuracy:.2f} ({r.train_seconds:.2f}s)")
        table.add_row(contender.name, *cells)
    console.print(table)
    for r in results:
        if r.error:
            err_console.print(f"{r.task}: {r.contender}: {r.error}", highlight=False)
    console.print(f"wrote {md} and {js}")
@main.command("distributed")
@click.argument("log", type=click.Path(dir_okay=False, exists=True))
@click.option("--sites", "n_sites", type=click.IntRange(1), default=10, show_default=True,
              help="number of sites K (every site index in the log must be below it)")
@click.option("--task", type=click.Choice(["two-class", "one-class"]), default="two-class",
              show_default=True)
@click.option("--kernel", type=click.Choice(["linear", "rbf", "poly", "sigmoid"]),
              default="rbf", show_default=True)
@click.option("--gamma", default="auto", show_default=True, help="float or 'auto' (1/d)")
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
def distributed(log, n_sites, task, kernel, gamma, degree, coef0, C, epsilon, relative, update,
                backend, queries_out, records_out, report_out):
    """Replay an event LOG (add/delete/query lines) through a DistributedL2SVM.

    The log format is described in docs/distributed.md; every line is checked before the
    first event runs, and errors name the line."""
    import csv
    import json

    from .distributed import DistributedL2SVM, read_events

    try:
        gamma_value = gamma if gamma == "auto" else float(gamma)
    except ValueError as exc:
        raise CLIError(f"--gamma must be a float or 'auto'; got {gamma!r}", EXIT_USAGE) from exc
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
        model._check_params()
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
    report = model.communication_report()
    report["seconds"] = round(elapsed, 3)
    report["objective"] = model.objective_
    table = Table(title=f"DistributedL2SVM ({update}, {backend}) on {log}")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    for key in ("events", "additions", "deletions", "updates", "rounds", "messages",
                "vector_broadcasts", "vectors", "scalars", "bytes", "naive_vectors",
                "n_points", "n_atoms"):
        table.add_row(key, f"{report[key]:,}")
    table.add_row("objective f(ê)", f"{report['objective']:.6g}")
    table.add_row("seconds", f"{elapsed:.2f}")
    console.print(table)
    if report_out:
        with open(report_out, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2)
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
