"""What the command line shows: tables, one-line summaries and progress bars.

Every function takes plain results and returns something :class:`rich.console.Console` prints
(a :class:`~rich.table.Table` or a string), or a progress bar bound to a given console; none
computes a result or prints by itself. The Markdown and JSON files of ``streamsvm bench`` are
written by :mod:`streamsvm.bench.report`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress
from rich.table import Table

from ..utils.progress import Progress

__all__ = [
    "DemoRow",
    "bench_notes",
    "bench_table",
    "dataset_lines",
    "datasets_table",
    "demo_line",
    "demo_table",
    "distributed_table",
    "estimator_parameters",
    "estimators_table",
    "human_bytes",
    "metrics_table",
    "parameter_options",
    "train_progress",
    "train_summary",
    "warmup_done_line",
    "warmup_start_line",
    "warmup_summary",
]


def human_bytes(n: int | None) -> str:
    """``1536`` -> ``'1.5 KB'``; None -> ``'-'``.

    >>> human_bytes(None), human_bytes(512), human_bytes(1536), human_bytes(3 * 1024**3)
    ('-', '512 B', '1.5 KB', '3.0 GB')
    """
    if n is None:
        return "-"
    for unit in ("B", "KB", "MB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


# --------------------------------------------------------------------------- datasets
def datasets_table(infos: Iterable, present: Iterable[bool]) -> Table:
    """One row per :class:`~streamsvm.datasets.DatasetInfo`, with whether its files are here."""
    table = Table(title="datasets (files under $STREAMSVM_DATA)")
    for column in ("name", "task", "train", "test", "features", "present"):
        table.add_column(column)
    for info, here in zip(infos, present, strict=True):
        table.add_row(info.name, str(info.task), str(info.n_train), str(info.n_test),
                      str(info.n_features), "yes" if here else "[red]no[/]")
    return table


def dataset_lines(info) -> list[str]:
    """``field: value`` lines (rich markup) for every field of a ``DatasetInfo``."""
    fields = vars(info) if hasattr(info, "__dict__") else info._asdict()
    return [f"[bold]{field}[/]: {value}" for field, value in fields.items()]


# --------------------------------------------------------------------------- train / evaluate
def train_progress(console: Console, description: str, *, quiet: bool = False):
    """A progress bar of examples, examples/s and model size; returns ``(progress, update)``.

    ``update(n_seen, rate, model_bytes)`` moves the bar; use ``progress`` as a context manager.
    When ``console`` is not a terminal (a log, CI), a bar would show nothing until the end, so
    progress lines of :mod:`streamsvm.utils.progress` (one every few seconds) stand in for it.
    """
    if not quiet and not console.is_terminal:
        lines = Progress(description)

        def update_lines(n_seen: int, rate: float, model_bytes: int | None) -> None:
            lines.update(n_seen)

        return lines, update_lines
    progress = RichProgress(
        TextColumn("[bold]{task.description}"), BarColumn(),
        TextColumn("{task.completed:,} examples"), TextColumn("{task.fields[rate]:,.0f} ex/s"),
        TextColumn("model {task.fields[size]}"), TimeElapsedColumn(),
        console=console, disable=quiet, transient=False,
    )
    task = progress.add_task(description, total=None, rate=0.0, size="-")

    def update(n_seen: int, rate: float, model_bytes: int | None) -> None:
        progress.update(task, completed=n_seen, rate=rate, size=human_bytes(model_bytes))

    return progress, update


def train_summary(estimator: str, n_seen: int, source: str, seconds: float,
                  model_bytes: int | None) -> str:
    """The line ``train`` ends with.

    >>> train_summary("Pegasos", 3000, "synthetic-a (generated)", 1.5, 2048)
    'trained Pegasos on 3,000 examples of synthetic-a (generated) in 1.50 s (2,000 examples/s); model 2.0 KB'
    """  # noqa: E501
    rate = n_seen / max(seconds, 1e-9)
    return (f"trained {estimator} on {n_seen:,} examples of {source} in {seconds:.2f} s "
            f"({rate:,.0f} examples/s); model {human_bytes(model_bytes)}")


def parameter_options(defaults: dict) -> str:
    """Parameters as the command line spells them, with their defaults.

    >>> parameter_options({"block_size": 1, "fit_intercept": True, "kernel": "rbf"})
    '--block-size 1, --fit-intercept true, --kernel rbf'
    """
    def shown(value):
        return str(value).lower() if isinstance(value, bool) or value is None else str(value)

    return ", ".join(f"--{name.replace('_', '-')} {shown(value)}"
                     for name, value in defaults.items()) or "(none)"


def estimator_parameters(estimators: dict[str, type]) -> list[tuple[str, str]]:
    """``(name, its parameters with defaults)`` for each estimator class (``train --help`` and
    ``streamsvm estimators`` both show these)."""
    return [(name, parameter_options(cls().get_params(deep=False)))
            for name, cls in estimators.items()]


def estimators_table(estimators: dict[str, type]) -> Table:
    """Every estimator, the first line of its docstring and its parameters with defaults."""
    table = Table(title="estimators (parameters with their defaults)", show_lines=True)
    table.add_column("estimator", no_wrap=True)
    table.add_column("what it is")
    table.add_column("parameters")
    for (name, options), cls in zip(estimator_parameters(estimators), estimators.values(),
                                    strict=True):
        summary = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
        table.add_row(name, escape(summary.replace("``", "")), options)  # reST code marks
    return table


def metrics_table(title: str, metrics: dict[str, float], n_examples: int) -> Table:
    """The table of ``evaluate``: the number of examples, then each metric to 4 decimals
    (as wide as its title, which names the data: a path is not broken across lines)."""
    table = Table(title=title, min_width=len(title))
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_row("examples", f"{n_examples:,}")
    for name, value in metrics.items():
        table.add_row(name, f"{value:.4f}")
    return table


# --------------------------------------------------------------------------- demo
@dataclass(frozen=True)
class DemoRow:
    """One estimator's result in ``streamsvm demo``."""

    name: str
    accuracy: float
    seconds: float
    examples_per_second: float
    model_bytes: int
    #: seconds of the untimed first use before training (compiling or loading the compiled
    #: code); None for scikit-learn's models
    first_use_seconds: float | None = None


def demo_line(row: DemoRow) -> str:
    """The progress line logged after each estimator of the demo."""
    first = ("" if row.first_use_seconds is None
             else f" (first use before it: {row.first_use_seconds:.2f} s)")
    return f"{row.name}: accuracy {row.accuracy:.4f} in {row.seconds:.2f} s{first}"


def demo_table(rows: Sequence[DemoRow], *, data: str, n_train: int, n_test: int) -> Table:
    """Test accuracy, training time, throughput and model size of every estimator."""
    table = Table(
        title=f"streamsvm demo: {data}, {n_train:,} training / {n_test:,} test examples",
        caption="train s: wall clock of training on the examples already drawn. first use s: "
                "a use on a few rows before it, which compiles the jitted code on the first "
                "run after installing (minutes) and loads it from numba's cache later. "
                "Measured comparisons: streamsvm bench.",
    )
    for column in ("estimator", "accuracy", "train s", "examples/s", "model bytes",
                   "first use s"):
        table.add_column(column, justify="left" if column == "estimator" else "right")
    for r in rows:
        table.add_row(r.name, f"{r.accuracy:.4f}", f"{r.seconds:.2f}",
                      f"{r.examples_per_second:,.0f}", f"{r.model_bytes:,}",
                      "" if r.first_use_seconds is None else f"{r.first_use_seconds:.2f}")
    return table


# --------------------------------------------------------------------------- bench
def bench_notes(quick: bool) -> str:
    """The notes written above the results of ``streamsvm bench``."""
    return (
        "Run: `streamsvm bench" + (" --quick" if quick else "") + "`. Training time "
        "is CPU time (process_time) and excludes loading and (for River) turning rows into "
        "dicts; peak MB is what training allocates as seen by tracemalloc (NumPy and Python "
        "objects; not LIBSVM's own cache); model KB is the pickled model for streamsvm and "
        "River (streamsvm's pickle leaves the kernel cache out) and the fitted arrays for "
        "scikit-learn's estimators. "
        "Streaming contenders learn in chunks of 1,000 in the file's order, one pass."
    )


def bench_table(results: Sequence, contender_names: Sequence[str]) -> Table:
    """Accuracy % (train seconds) per contender (rows) and task (columns)."""
    table = Table(title="accuracy % (train seconds)")
    table.add_column("contender")
    task_order = list(dict.fromkeys(r.task for r in results))
    for name in task_order:
        table.add_column(name, justify="right")
    by_pair = {(r.task, r.contender): r for r in reversed(results)}  # the first one wins
    for contender in contender_names:
        cells = []
        for task in task_order:
            r = by_pair.get((task, contender))
            if r is not None and r.accuracy is not None:
                cells.append(f"{100 * r.accuracy:.2f} ({r.train_seconds:.2f}s)")
            elif r is None or not r.error:
                cells.append("-")
            else:
                cells.append("skipped" if r.error.startswith("skipped") else "failed")
        table.add_row(contender, *cells)
    return table


# --------------------------------------------------------------------------- warmup
def _step_name(step) -> str:
    kernel = f" kernel={step.kernel}" if step.kernel is not None else ""
    return f"{step.estimator}{kernel} ({step.layout})"


def warmup_start_line(step) -> str:
    """The line shown before one warmup step compiles (or loads) its code."""
    return f"compiling {_step_name(step)} ..."


def warmup_done_line(step) -> str:
    """The line shown after one warmup step: its seconds, or why it failed."""
    if step.error:
        return f"  {_step_name(step)}: failed: {step.error}"
    return f"  {_step_name(step)}: {step.seconds:.1f} s"


def warmup_summary(steps: Sequence, wall_seconds: float | None = None,
                   workers: int = 1) -> Table:
    """Seconds per estimator (all its kernels and layouts), in the order they ran; with
    ``wall_seconds``, a caption with the wall time (less than the total when ``workers`` > 1
    processes compiled side by side)."""
    table = Table(title="streamsvm warmup: seconds to compile (or load from numba's cache)")
    if wall_seconds is not None:
        side_by_side = (f" in {workers} worker processes side by side" if workers > 1
                        else "")
        table.caption = f"wall time {wall_seconds:.1f} s{side_by_side}"
    table.add_column("estimator")
    table.add_column("steps", justify="right")
    table.add_column("seconds", justify="right")
    table.add_column("failed", justify="right")
    totals: dict[str, list] = {}
    for step in steps:
        entry = totals.setdefault(step.estimator, [0, 0.0, 0])
        entry[0] += 1
        entry[1] += step.seconds or 0.0
        entry[2] += step.error is not None
    for name, (n, seconds, failed) in totals.items():
        table.add_row(name, str(n), f"{seconds:.1f}", str(failed) if failed else "")
    n_failed = sum(s.error is not None for s in steps)
    table.add_row("total", str(len(steps)), f"{sum(s.seconds or 0.0 for s in steps):.1f}",
                  str(n_failed) if n_failed else "")
    return table


# --------------------------------------------------------------------------- distributed
DISTRIBUTED_COUNTS = ("events", "additions", "deletions", "updates", "rounds", "messages",
                      "vector_broadcasts", "vectors", "scalars", "bytes", "naive_vectors",
                      "n_points", "n_atoms")


def distributed_table(title: str, report: dict, seconds: float) -> Table:
    """The communication totals of a replayed event log, the objective and the time."""
    table = Table(title=title)
    table.add_column("quantity")
    table.add_column("value", justify="right")
    for key in DISTRIBUTED_COUNTS:
        table.add_row(key, f"{report[key]:,}")
    table.add_row("objective f(ê)", f"{report['objective']:.6g}")
    table.add_row("seconds", f"{seconds:.2f}")
    return table
