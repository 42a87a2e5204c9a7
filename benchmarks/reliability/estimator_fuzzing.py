"""Every registered estimator answers hostile input with finite decisions or the documented
ValueError, and none crashes or is silently wrong.

Writes: benchmarks/results/reliability_estimators.md
Run: python benchmarks/reliability/estimator_fuzzing.py --cases 40 --seed 2

Hostile inputs against every registered estimator: how many cases were accepted (a model
with finite decisions), refused cleanly (the documented ValueError), refused although valid,
gave a wrong exception, crashed, or were silently wrong.

The cases come from ``tests/estimator_cases.py`` (the generator the hypothesis tests draw
from): non-finite and extreme values at the first, last or a random row, label sets mixing
kinds, holding None, empty strings or continuous values, a second chunk of the wrong width,
of the other label kind, sparse, or with bad values.

Run from the repository root: ``python benchmarks/reliability/estimator_fuzzing.py
[--cases 40] [--seed 2] [--output NAME]``; writes
``benchmarks/results/reliability_estimators.md``. To measure another version of the library,
put its ``src`` first on ``PYTHONPATH`` (and give another ``--output``).
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from streamsvm.registry import available_estimators  # noqa: E402

from _common import write_markdown  # noqa: E402
from tests.estimator_cases import CATEGORIES, make_case, random_choices, run_case  # noqa: E402


def run(n_cases: int, seed: int):
    """``({estimator: Counter of categories}, Counter of failure descriptions)`` over
    ``n_cases`` cases per registered estimator."""
    rng = np.random.default_rng(seed)
    per_estimator, failures = {}, collections.Counter()
    for name, estimator in available_estimators().items():
        counts = collections.Counter()
        for _ in range(n_cases):
            choices = random_choices(rng)
            category, detail = run_case(estimator, make_case(rng, choices))
            counts[category] += 1
            if category not in ("accepted", "refused"):
                failures[(name, category, choices["values"], choices["labels"],
                          choices["second"], detail[:80])] += 1
        per_estimator[name] = counts
    return per_estimator, failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=40, help="cases per estimator")
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--output", default="reliability_estimators.md",
                        help="file name under benchmarks/results")
    args = parser.parse_args()
    start = time.perf_counter()
    per_estimator, failures = run(args.cases, args.seed)
    rows, totals = [], collections.Counter()
    for name, counts in per_estimator.items():
        totals.update(counts)
        rows.append(f"| {name} | {args.cases} | " + " | ".join(str(counts[c]) for c in CATEGORIES)
                    + " |")
    seconds = time.perf_counter() - start
    header = "| estimator | cases | " + " | ".join(CATEGORIES) + " |"
    lines = [
        f"{sum(totals.values())} cases (seed {args.seed}, {args.cases} per estimator) in "
        f"{seconds:.1f} s. `accepted`: a model whose decisions on finite rows are finite; "
        "`refused`: the documented ValueError for input that must (or, for values that may "
        "overflow a polynomial kernel, may) be refused.",
        "",
        header,
        "|" + "---|" * (len(CATEGORIES) + 2),
        *rows,
        "| **all** | " + str(sum(totals.values())) + " | "
        + " | ".join(str(totals[c]) for c in CATEGORIES) + " |",
    ]
    if failures:
        lines += ["", "Failures (estimator, category, values, labels, second chunk, detail):", ""]
        lines += [f"- {count} × {key}" for key, count in failures.most_common(30)]
    path = write_markdown(args.output, "Estimators under hostile input", lines)
    print("\n".join(lines))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
