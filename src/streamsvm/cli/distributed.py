"""``streamsvm distributed``: replay an event log through the distributed tracker."""

from __future__ import annotations

import time

import click

from . import report
from .errors import (
    EXIT_USAGE,
    CLIError,
    _errors_as_one_line,
    console,
)
from .main import main


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
@click.option("--tracking", type=click.Choice(["auto", "budget", "exact"]), default="auto",
              show_default=True,
              help="'exact': the thesis' protocol (cost per row grows on noisy data); "
                   "'budget': a bounded cost per row; 'auto': budget for rbf and linear")
@click.option("--budget", type=click.IntRange(1), default=20, show_default=True,
              help="active atoms per site in the budget mode")
@click.option("--queries", "queries_out", type=click.File("w"),
              help="write 'line site decision label' for every query line")
@click.option("--records", "records_out", type=click.Path(dir_okay=False),
              help="write the per-event communication records as CSV")
@click.option("--report", "report_out", type=click.Path(dir_okay=False),
              help="write the communication totals as JSON")
@_errors_as_one_line
def distributed(log, n_sites, task, kernel, gamma, degree, coef0, C, epsilon, relative, update,
                backend, tracking, budget, queries_out, records_out, report_out):
    """Replay an event LOG (add/delete/query lines) through a DistributedL2SVM.

    The log format is described in docs/distributed.md; every line is checked before the
    first event runs, and errors name the line."""
    import csv
    import json

    from ..distributed import DistributedL2SVM, read_events
    from ..utils.params import check_params

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
                                 relative=relative, update=update, backend=backend,
                                 tracking=tracking, budget=budget)
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

