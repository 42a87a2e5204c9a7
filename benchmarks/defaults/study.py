"""Every registered estimator with its defaults, as a new user would try it, comes near
scikit-learn's SVMs on binary problems of every shape (the defaults study, issue 18).

Writes: benchmarks/results/defaults.md, defaults.json
Run: python benchmarks/defaults/study.py

Every estimator of :mod:`streamsvm.registry` is fitted with its defaults inside
``Pipeline(StandardScaler(), model)`` (``with_mean=False`` on sparse text) on the binary
problems of ``problems.py``, once with the training rows in file order and once shuffled
(seed 0), and scored on the test rows: balanced accuracy and accuracy, beside ``SVC()`` for
kernel models and ``LinearSVC()`` for linear ones in the same pipeline. Seeds
(``random_state``) are set to 0 where an estimator has one, LinearSVC's included. An
estimator whose class declares ``max_rows_hint`` (memory or time that grows with the square
of the rows) is trained on the first ``max_rows_hint`` rows of the ordered training part, and
the table says so. An estimator that raises is recorded with its message; so is a fit that
takes more than 30 CPU seconds (``FIT_LIMIT_S``). ``verdicts.py`` flags collapses and gaps.

Run from the repository root (the full study takes about 15 minutes on one core)::

    PYTHONPATH=src STREAMSVM_DATA=/path/to/data python benchmarks/defaults/study.py

It writes ``benchmarks/results/defaults.md`` and ``defaults.json`` and prints the acceptance
numbers. ``--quick`` runs small versions of every problem (800 training rows) and writes
``defaults_quick.*``; ``--only LASVM --only Forgetron`` and ``--problems banana adult`` run
parts; ``--set LASVM.C=10`` tries a parameter other than the default (results then go to
``defaults_trial.*`` unless ``--output`` names a file; the trials behind the chosen defaults
are in ``benchmarks/results/defaults_trials/``). ``--report STEM`` rewrites ``STEM.md`` from
``STEM.json`` without running anything; ``--combine A B --output C`` merges result files (B's
rows replace A's).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import pathlib
import signal
import sys
import time
import warnings

import numpy as np
from sklearn.metrics import accuracy_score, balanced_accuracy_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from problems import get_problems  # noqa: E402
from verdicts import acceptance, flags  # noqa: E402

from streamsvm.registry import available_estimators  # noqa: E402

from _common import machine_line, run_line  # noqa: E402

RESULTS = pathlib.Path(__file__).resolve().parents[1] / "results"
ORDERS = ("file", "shuffled")
SHUFFLE_SEED = 0
QUICK_ROWS = 800
FIT_LIMIT_S = 30.0  # CPU seconds one fit may take before it is recorded as an error


class FitTooSlow(Exception):
    """A fit ran past its CPU-time limit."""


@contextlib.contextmanager
def cpu_limit(seconds):
    """Raise :class:`FitTooSlow` in the Python code of the block after ``seconds`` of CPU time
    (a compiled loop finishes its call first); no limit where the platform has no ITIMER_PROF
    or ``seconds`` is None."""
    if not seconds or not hasattr(signal, "setitimer"):
        yield
        return

    def stop(signum, frame):
        raise FitTooSlow(f"more than {seconds:g} CPU s (the study's limit per fit)")

    previous = signal.signal(signal.SIGPROF, stop)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def is_linear(model) -> bool:
    """Linear models are compared with LinearSVC, kernel models with SVC."""
    return model.get_params().get("kernel", "linear") == "linear"


def scaler(problem):
    return StandardScaler(with_mean=not problem.sparse)


def score(pipeline, X_test, y_test) -> dict:
    predicted = np.asarray(pipeline.predict(X_test))
    return {"balanced_accuracy": float(balanced_accuracy_score(y_test, predicted)),
            "accuracy": float(accuracy_score(y_test, predicted)),
            "predicted_positive": float(np.mean(predicted == 1))}


def fit_and_score(model, problem, X, y, X_test, y_test, limit=FIT_LIMIT_S) -> dict:
    """Fit ``Pipeline(StandardScaler(), model)``; its scores, CPU seconds and warnings, or the
    error it raised (or :class:`FitTooSlow` past ``limit`` CPU seconds)."""
    pipeline = make_pipeline(scaler(problem), model)
    start = time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with cpu_limit(limit):
                pipeline.fit(X, y)
            out = score(pipeline, X_test, y_test)
        except Exception as exc:  # recorded, not fatal: the table shows the message
            message = f"{type(exc).__name__}: {exc}"
            if limit and time.process_time() - start >= 0.99 * limit:
                # the limit's exception, raised inside a compiled call, surfaces as SystemError
                message = f"FitTooSlow: more than {limit:g} CPU s (the study's limit per fit)"
            out = {"balanced_accuracy": None, "accuracy": None, "predicted_positive": None,
                   "error": message[:300]}
    out["cpu_s"] = time.process_time() - start
    out["warnings"] = sorted({type(w.message).__name__ if isinstance(w.message, Warning)
                              else str(w.category.__name__) for w in caught})
    return out


def make_model(cls, overrides):
    model = cls()
    params = model.get_params()
    if "random_state" in params:
        model.set_params(random_state=0)
    if overrides:
        model.set_params(**overrides)
    return model


def parse_overrides(items) -> dict:
    """``["LASVM.C=10", "Forgetron.budget=200"]`` -> ``{"LASVM": {"C": 10}, ...}``."""
    out: dict = {}
    for item in items or []:
        target, _, value = item.partition("=")
        name, _, param = target.partition(".")
        if not (name and param and value):
            raise SystemExit(f"--set wants ESTIMATOR.PARAM=VALUE; got {item!r}")
        try:
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            parsed = value
        out.setdefault(name, {})[param] = parsed
    return out


def run_study(problems, estimators, *, rows=None, overrides=None, log=print) -> dict:
    """Every (problem, order, estimator) result and the references, as one JSON-ready dict."""
    overrides = overrides or {}
    results, references, skipped = [], {}, []
    for problem in problems:
        if not problem.available:
            skipped.append(problem.name)
            log(f"skip {problem.name}: its data file is missing")
            continue
        X, y, X_test, y_test = problem.load(n_train=rows, n_test=rows)
        refs = {}
        for kind, ref in (("SVC", SVC()), ("LinearSVC", LinearSVC(random_state=0))):
            refs[kind] = fit_and_score(ref, problem, X, y, X_test, y_test, limit=None)
        references[problem.name] = {**refs, "n_train": int(X.shape[0]),
                                    "n_test": int(X_test.shape[0]), "shape": problem.shape}
        log(f"{problem.name}: {X.shape[0]} x {X.shape[1]}, SVC "
            f"{refs['SVC']['balanced_accuracy']:.3f}, LinearSVC "
            f"{refs['LinearSVC']['balanced_accuracy']:.3f}")
        shuffled = np.random.default_rng(SHUFFLE_SEED).permutation(X.shape[0])
        for order in ORDERS:
            rows_in_order = shuffled if order == "shuffled" else np.arange(X.shape[0])
            for name, cls in estimators.items():
                model = make_model(cls, overrides.get(name))
                cap = getattr(cls, "max_rows_hint", None)
                take = rows_in_order if cap is None else rows_in_order[:cap]
                Xo = X[take]
                reference = "LinearSVC" if is_linear(model) else "SVC"
                out = fit_and_score(model, problem, Xo, y[take], X_test, y_test)
                ref_bal = refs[reference]["balanced_accuracy"]
                row = {"estimator": name, "problem": problem.name, "order": order,
                       "n_train": int(Xo.shape[0]), "capped": len(take) < X.shape[0],
                       "reference": reference, "reference_balanced_accuracy": ref_bal,
                       "reference_accuracy": refs[reference]["accuracy"], **out}
                row["flags"] = flags(row["balanced_accuracy"], ref_bal)
                results.append(row)
                shown = ("error" if row["balanced_accuracy"] is None
                         else f"{row['balanced_accuracy']:.3f}")
                log(f"  {order:8s} {name:18s} {shown} (ref {ref_bal:.3f}) "
                    f"{row['cpu_s']:.1f}s {' '.join(row['flags'])}")
    return {"results": results, "references": references, "skipped": skipped,
            "acceptance": acceptance(results), "overrides": overrides}


# --------------------------------------------------------------------------- the table


def _cell(row) -> str:
    if row["balanced_accuracy"] is None:
        return "error"
    mark = "**C**" if "collapse" in row["flags"] else ("*g*" if "gap" in row["flags"] else "")
    return f"{100 * row['balanced_accuracy']:.1f}{mark}"


def markdown(study, *, title_note="") -> list[str]:
    """The result file: acceptance, references, two matrices, flagged pairs, every result."""
    results, refs = study["results"], study["references"]
    acc = study["acceptance"]
    problems = list(refs)
    estimators = list(dict.fromkeys(r["estimator"] for r in results))
    by_key = {(r["estimator"], r["problem"], r["order"]): r for r in results}
    lines = [
        "Every registered estimator with its defaults in `Pipeline(StandardScaler(), model)` "
        "(`with_mean=False` on sparse text), trained once on the training rows in file order "
        "and once shuffled (seed 0); balanced accuracy (bal.) and accuracy on the test rows, "
        "against `SVC()` (kernel models) or `LinearSVC()` (linear models) in the same "
        "pipeline. `random_state=0` where an estimator has one. Regenerate with "
        "`python benchmarks/defaults/study.py` (see its docstring)." + title_note,
        "",
        f"**Acceptance** (issue 18): {acc['collapses']} collapses (bal. <= 0.55 where the "
        f"reference >= 0.70); {acc['gaps']} of {acc['pairs']} pairs "
        f"({100 * acc['gap_share']:.1f}%) more than 8 pt of balanced accuracy below the "
        "reference (an error counts as both where the reference reaches 0.70).",
        "",
    ]
    if study.get("combined_from"):
        lines += ["Combined from the result files (later ones replace the rows of earlier "
                  "ones; every pair judged against the first file's references): "
                  + ", ".join(f"`{s}.json`" for s in study["combined_from"]) + ".", ""]
    elif study.get("rerun"):
        lines += [f"Rerun later and merged in (`--merge`): {', '.join(study['rerun'])}.", ""]
    if study.get("overrides"):
        lines += [f"Parameters other than the defaults: `{study['overrides']}`.", ""]
    if study["skipped"]:
        lines += [f"Skipped (data file missing): {', '.join(study['skipped'])}.", ""]
    capped = sorted({(r["estimator"], r["n_train"], r["problem"]) for r in results
                     if r["capped"]})
    if capped:
        caps = {}
        for name, n, _ in capped:
            caps.setdefault(name, set()).add(n)
        lines += ["Row caps (`max_rows_hint`, the first rows of the ordered training part): "
                  + "; ".join(f"{k} {max(v):,} rows" for k, v in caps.items()) + ".", ""]
    lines += ["## Problems and references", "",
              "| problem | shape | train / test rows | SVC bal. / acc. | LinearSVC bal. / acc. |",
              "|---|---|---|---|---|"]
    for p in problems:
        r = refs[p]
        lines.append(f"| {p} | {r['shape']} | {r['n_train']:,} / {r['n_test']:,} | "
                     f"{100 * r['SVC']['balanced_accuracy']:.1f} / "
                     f"{100 * r['SVC']['accuracy']:.1f} | "
                     f"{100 * r['LinearSVC']['balanced_accuracy']:.1f} / "
                     f"{100 * r['LinearSVC']['accuracy']:.1f} |")
    lines += ["", "## By estimator", "",
              "Over every problem and both orders: mean balanced accuracy, mean points below "
              "the reference (negative: above), pairs more than 8 pt below, collapses, errors, "
              "CPU seconds in all.", "",
              "| estimator | mean bal. | mean gap (pt) | > 8 pt below | collapses | errors "
              "| CPU s |", "|---|---|---|---|---|---|---|"]
    for row in per_estimator(results):
        lines.append("| {estimator} | {mean_balanced:.1f} | {mean_gap:+.1f} | {gaps} | "
                     "{collapses} | {errors} | {cpu_s:.1f} |".format(**row))
    for order in ORDERS:
        lines += ["", f"## Balanced accuracy (%), training rows {order}"
                  + (" (seed 0)" if order == "shuffled" else ""), "",
                  "**C** collapse, *g* more than 8 pt below the reference.", "",
                  "| estimator | " + " | ".join(problems) + " |",
                  "|---|" + "---|" * len(problems)]
        for name in estimators:
            cells = [_cell(by_key[(name, p, order)]) if (name, p, order) in by_key else ""
                     for p in problems]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    flagged = [r for r in results if r["flags"]]
    lines += ["", f"## Flagged pairs ({len(flagged)})", "",
              "| estimator | problem | order | bal. | acc. | reference bal. / acc. | gap (pt) "
              "| predicted +1 | flags |", "|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(flagged, key=lambda r: (r["estimator"], r["problem"], r["order"])):
        lines.append(_long_row(r))
    errors = [r for r in results if r.get("error")]
    if errors:
        lines += ["", "## Errors", ""]
        lines += [f"- {r['estimator']} on {r['problem']} ({r['order']}): `{r['error']}`"
                  for r in errors]
    lines += ["", "## Every result", "",
              "| estimator | problem | order | bal. | acc. | reference bal. / acc. | gap (pt) "
              "| predicted +1 | flags | train rows | CPU s |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(_long_row(r) + f" {r['n_train']:,}{' (cap)' if r['capped'] else ''} | "
                     f"{r['cpu_s']:.2f} |")
    return lines


def per_estimator(results) -> list[dict]:
    """One summary row per estimator (the means over the pairs that did not raise)."""
    out = []
    for name in dict.fromkeys(r["estimator"] for r in results):
        rows = [r for r in results if r["estimator"] == name]
        scored = [r for r in rows if r["balanced_accuracy"] is not None]
        bal = [100 * r["balanced_accuracy"] for r in scored]
        gap = [100 * (r["reference_balanced_accuracy"] - r["balanced_accuracy"])
               for r in scored]
        out.append({"estimator": name, "mean_balanced": float(np.mean(bal)) if bal else 0.0,
                    "mean_gap": float(np.mean(gap)) if gap else 0.0,
                    "gaps": sum("gap" in r["flags"] for r in rows),
                    "collapses": sum("collapse" in r["flags"] for r in rows),
                    "errors": len(rows) - len(scored),
                    "cpu_s": float(sum(r["cpu_s"] for r in rows))})
    return out


def _long_row(r) -> str:
    ref = f"{r['reference']} {100 * r['reference_balanced_accuracy']:.1f} / " \
          f"{100 * r['reference_accuracy']:.1f}"
    if r["balanced_accuracy"] is None:
        return (f"| {r['estimator']} | {r['problem']} | {r['order']} | error | | {ref} | | | "
                f"{', '.join(r['flags'])} |")
    gap = 100 * (r["reference_balanced_accuracy"] - r["balanced_accuracy"])
    return (f"| {r['estimator']} | {r['problem']} | {r['order']} | "
            f"{100 * r['balanced_accuracy']:.1f} | {100 * r['accuracy']:.1f} | {ref} | "
            f"{gap:+.1f} | {100 * r['predicted_positive']:.0f}% | {', '.join(r['flags'])} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"at most {QUICK_ROWS} training and test rows per problem")
    parser.add_argument("--only", action="append", metavar="ESTIMATOR",
                        help="run only this registered estimator (repeatable)")
    parser.add_argument("--problems", nargs="+", metavar="PROBLEM")
    parser.add_argument("--set", action="append", metavar="EST.PARAM=VALUE",
                        help="a parameter other than the default (repeatable)")
    parser.add_argument("--output", help="result file stem in benchmarks/results "
                        "(default: defaults, defaults_quick or defaults_trial)")
    parser.add_argument("--merge", action="store_true",
                        help="replace the rerun estimators' rows in the existing result "
                        "file (--output, default defaults) and keep the others")
    parser.add_argument("--report", metavar="STEM",
                        help="rewrite STEM.md from STEM.json of an earlier run; run nothing")
    parser.add_argument("--combine", nargs="+", metavar="STEM",
                        help="merge earlier result files, later ones replacing the rows of "
                        "earlier ones (e.g. a trial of the new defaults), into --output; "
                        "run nothing")
    parser.add_argument("--note", default="", help="a sentence for the head of the table")
    args = parser.parse_args(argv)
    if args.combine:
        if not args.output:
            parser.error("--combine needs --output")
        study = json.loads((RESULTS / f"{args.combine[0]}.json").read_text())
        for stem in args.combine[1:]:
            study = merged(study, json.loads((RESULTS / f"{stem}.json").read_text()))
        study["combined_from"] = args.combine
        study["note"] = args.note
        study["commands"] = [this_command()]
        (RESULTS / f"{args.output}.json").write_text(json.dumps(study, indent=1) + "\n")
        write_report(study, args.output)
        return 0
    if args.report:
        study = json.loads((RESULTS / f"{args.report}.json").read_text())
        write_report(study, args.report)
        return 0

    known = available_estimators()
    names = args.only or list(known)
    lowered = {k.lower(): k for k in known}
    unknown = [n for n in names if n.lower() not in lowered]
    if unknown:
        parser.error(f"unknown estimator(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    estimators = {lowered[n.lower()]: known[lowered[n.lower()]] for n in names}
    overrides = parse_overrides(args.set)
    problems = get_problems(args.problems)

    start = time.process_time()
    study = run_study(problems, estimators, rows=QUICK_ROWS if args.quick else None,
                      overrides=overrides)
    study["cpu_s"] = time.process_time() - start
    stem = args.output or ("defaults" if args.merge and not args.quick
                           else "defaults_trial" if overrides or args.only or args.problems
                           else "defaults_quick" if args.quick else "defaults")
    study["quick"] = bool(args.quick)
    study["note"] = args.note
    study["commands"] = [this_command()]
    if args.merge:
        study = merged(json.loads((RESULTS / f"{stem}.json").read_text()), study)
    (RESULTS / stem).parent.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{stem}.json").write_text(json.dumps(study, indent=1) + "\n")
    write_report(study, stem)
    return 0


def merged(old, new) -> dict:
    """``old`` with every (estimator, problem, order) result of ``new`` put in its place,
    judged against ``old``'s reference scores where ``old`` has the problem (LinearSVC's
    coordinate descent varies a little between runs; before and after share one yardstick)."""
    references = {**new["references"], **old["references"]}
    for r in new["results"]:
        ref = references[r["problem"]][r["reference"]]
        r["reference_balanced_accuracy"] = ref["balanced_accuracy"]
        r["reference_accuracy"] = ref["accuracy"]
        r["flags"] = flags(r["balanced_accuracy"], ref["balanced_accuracy"])
    fresh = {(r["estimator"], r["problem"], r["order"]): r for r in new["results"]}
    results = [fresh.pop((r["estimator"], r["problem"], r["order"]), r)
               for r in old["results"]]
    results += list(fresh.values())
    reran = sorted({r["estimator"] for r in new["results"]})
    return {**old, "results": results, "acceptance": acceptance(results),
            "references": references,
            "cpu_s": old["cpu_s"], "quick": old.get("quick", False),
            "rerun": sorted(set(old.get("rerun", [])) | set(reran)),
            "commands": [*old.get("commands", [None]), *new.get("commands", [])]}


def this_command() -> str:
    """The command line of this run, ``python benchmarks/defaults/study.py <options>``."""
    line = run_line() or "Run: `python benchmarks/defaults/study.py`"
    return line.removeprefix("Run: ").strip("`")


def page_run_line(study, stem) -> str:
    """The page's ``Run:`` line: the commands the study's JSON records (a run, then each run
    merged into it); a JSON of an older run records none (None in their place), and then the
    page names the ``--report`` that rewrote it from that JSON."""
    commands = study.get("commands") or [None]
    if commands[0] is None:
        run = (f"Run: `python benchmarks/defaults/study.py --report {stem}` (rewritten from "
               f"`{stem}.json` of an earlier run, whose command it does not record)")
    else:
        run = f"Run: `{commands[0]}`"
    if len(commands) > 1:
        run += ", then merged in: " + ", ".join(f"`{c}`" for c in commands[1:])
    return run


def write_report(study, stem):
    """Write ``STEM.md`` and print the per-estimator summary and the acceptance numbers."""
    quick = study.get("quick", False)
    note = f" Quick run: at most {QUICK_ROWS} rows per part." if quick else ""
    note += f" {study['note']}" if study.get("note") else ""
    lines = markdown(study, title_note=note)
    (RESULTS / f"{stem}.md").write_text(
        f"# Defaults study\n\n_{machine_line()} · {study['cpu_s']:.0f} CPU s in all_\n\n"
        f"{page_run_line(study, stem)}\n\n" + "\n".join(lines) + "\n")
    acc = study["acceptance"]
    for row in per_estimator(study["results"]):
        print("{estimator:18s} mean bal. {mean_balanced:5.1f}  mean gap {mean_gap:+5.1f} pt  "
              "> 8 pt: {gaps:2d}  collapses: {collapses}  errors: {errors}  "
              "{cpu_s:6.1f} CPU s".format(**row))
    print(f"collapses: {acc['collapses']}")
    print(f"pairs more than 8 pt below the reference: {acc['gaps']} of {acc['pairs']} "
          f"({100 * acc['gap_share']:.1f}%)")
    print(f"wrote {RESULTS / stem}.md and .json")


if __name__ == "__main__":
    sys.exit(main())
