"""Summed over every hostile-input generator of the project, no case crashes or is silently wrong.

Writes: docs/reliability.md
Run: python benchmarks/reliability/summary.py

The reliability table of ``docs/reliability.md``: every hostile-input generator of the
project, run with fixed seeds, summed into one row per category.

Categories and their generators (each also has its own script here with a detailed table):

- estimator input: ``tests/estimator_cases.py`` through ``estimator_fuzzing.py`` (non-finite
  and extreme values, label sets mixing kinds, wrong widths, sparse chunks, every registered
  estimator);
- data files: ``streamsvm.datasets.hostile`` through ``readers.py`` (random bytes, edited,
  truncated, corrupt and falsely compressed svmlight and CSV files);
- model files: ``tests/model_file_cases.py`` through ``model_files.py`` (random bytes, flipped
  bytes, truncation, header edits, arrays replaced, of saved models of several families).

Outcomes: *correct* (a right result: a model with finite decisions, a file read as the
reference reads it, a model file loaded equal to what was saved or to its edited values),
*refused cleanly* (the documented exception with a message naming the problem), *valid input
refused*, *wrong exception*, *crash* (any other exception, or a killed worker process) and
*silently wrong* (bad input accepted, or a result that differs from the reference).

Run from the repository root (about two minutes on two cores)::

    PYTHONPATH=src python benchmarks/reliability/summary.py

It rewrites the table between the markers of ``docs/reliability.md`` and prints it.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
PAGE = ROOT / "docs" / "reliability.md"
BEGIN, END = "<!-- reliability table: begin -->", "<!-- reliability table: end -->"
COLUMNS = ("cases tried", "correct", "refused cleanly", "valid input refused",
           "wrong exception", "crashes", "silently wrong")


def _script(name: str):
    """One of the sibling scripts, imported by path."""
    spec = importlib.util.spec_from_file_location(f"reliability_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def estimator_row(n_cases: int, seed: int) -> collections.Counter:
    per_estimator, _ = _script("estimator_fuzzing").run(n_cases, seed)
    total = collections.Counter()
    for counts in per_estimator.values():
        total.update(counts)
    return collections.Counter({
        "correct": total["accepted"], "refused cleanly": total["refused"],
        "valid input refused": total["refused valid input"],
        "wrong exception": total["wrong exception"], "crashes": total["crash"],
        "silently wrong": total["silently wrong"],
    })


def reader_row(n_cases: int, seed: int) -> collections.Counter:
    counts, _, _ = _script("readers").run(n_cases, seed)
    return collections.Counter({
        "correct": counts["correct"], "refused cleanly": counts["refused"],
        "valid input refused": counts["wrongly_refused"],
        "wrong exception": counts["wrong_exception"], "crashes": counts["crash"],
        "silently wrong": counts["silently_wrong"],
    })


def model_file_row(n_cases: int, seed: int) -> collections.Counter:
    per_kind, _ = _script("model_files").run(n_cases, seed)
    total = collections.Counter()
    for counts in per_kind.values():
        total.update(counts)
    return collections.Counter({
        "correct": total["equal"] + total["edited"], "refused cleanly": total["refused"],
        "wrong exception": total["wrong exception"], "crashes": total["crash"],
        "silently wrong": total["silently wrong"],
    })


def table(rows: dict[str, tuple[str, collections.Counter]]) -> str:
    lines = ["| category | generator (seed) | " + " | ".join(COLUMNS) + " |",
             "|---|---|" + "---:|" * len(COLUMNS)]
    total = collections.Counter()
    for category, (generator, counts) in rows.items():
        tried = sum(counts.values())
        total.update(counts)
        lines.append(f"| {category} | {generator} | {tried} | "
                     + " | ".join(str(counts[c]) for c in COLUMNS[1:]) + " |")
    lines.append(f"| **all** | | {sum(total.values())} | "
                 + " | ".join(str(total[c]) for c in COLUMNS[1:]) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--estimator-cases", type=int, default=40, help="per estimator")
    parser.add_argument("--reader-cases", type=int, default=2000)
    parser.add_argument("--model-file-cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    start = time.perf_counter()
    rows = {
        "estimator input": (f"`estimator_fuzzing.py` ({args.seed})",
                            estimator_row(args.estimator_cases, args.seed)),
        "data files": (f"`readers.py` ({args.seed})", reader_row(args.reader_cases, args.seed)),
        "model files": (f"`model_files.py` ({args.seed})",
                        model_file_row(args.model_file_cases, args.seed)),
    }
    text = table(rows)
    print(text)
    print(f"({time.perf_counter() - start:.0f} s)")
    if args.no_write:
        return
    page = PAGE.read_text()
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    command = ("`PYTHONPATH=src python benchmarks/reliability/summary.py "
               f"--estimator-cases {args.estimator_cases} --reader-cases {args.reader_cases} "
               f"--model-file-cases {args.model_file_cases} --seed {args.seed}`")
    PAGE.write_text(f"{head}{BEGIN}\n{command}\n\n{text}\n{END}{tail}")
    print(f"wrote {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
