"""The svmlight and CSV readers read hostile files as a slow reference reading does, or refuse
them with a ValueError naming the file.

Writes: benchmarks/results/reliability_readers.md
Run: python benchmarks/reliability/readers.py --cases 2000 --seed 0 --out
    benchmarks/results/reliability_readers.md

Damaged data files: how often the svmlight and CSV readers refuse them cleanly.

Draws hostile files from a seeded generator (random bytes, valid files with hostile edits,
compressed files that are truncated, corrupt or not compressed at all; see
``streamsvm.datasets.hostile``), reads each with ``load_svmlight``/``load_csv`` in a worker
process (so that a hard crash is counted, not fatal) and with a slow reference reading of
the documented formats, and counts the outcomes: read as the reference reads it (correct),
refused with a ``ValueError`` naming the file where the reference refuses too (refused
cleanly; ``file:line:`` form counted apart), another exception (wrong exception), a valid
file refused (wrongly refused), a killed process (crash), a result the reference does not
give (silently wrong). The case generator is loaded from this checkout and the readers
from whatever ``streamsvm`` is importable, so an older version can be measured too. Run
from the repository root::

    PYTHONPATH=src python benchmarks/reliability/readers.py --cases 2000 \
        --out benchmarks/results/reliability_readers.md
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import pathlib
import re
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _worker import Worker  # noqa: E402

COLUMNS = ("cases tried", "correct", "refused cleanly", "of which file:line:", "wrong exception",
           "wrongly refused", "crashes", "silently wrong")


def load_hostile():
    """The case generator of this checkout, imported by path (no package import needed)."""
    spec = importlib.util.spec_from_file_location(
        "hostile", ROOT / "src" / "streamsvm" / "datasets" / "hostile.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["hostile"] = module
    spec.loader.exec_module(module)
    return module


def worker() -> None:
    """Answer one case per input line: {"seed", "index", "folder"} -> {"outcome", ...}."""
    from streamsvm.datasets import load_csv, load_svmlight

    hostile = load_hostile()
    readers = {"svmlight": load_svmlight, "csv": load_csv}
    for line in sys.stdin:
        job = json.loads(line)
        case = hostile.make_reader_case(np.random.default_rng([job["seed"], job["index"]]))
        outcome, detail = hostile.run_case(case, job["folder"], readers)
        located = bool(re.match(r".*\.(svm|csv)(\.gz|\.bz2|\.xz)?:\d+: ", detail))
        print(json.dumps({"outcome": outcome, "detail": detail[:300], "kind": case.kind,
                          "located": located}), flush=True)


def run(n_cases: int, seed: int):
    counts = collections.Counter()
    by_kind = collections.defaultdict(collections.Counter)
    examples = collections.defaultdict(list)
    worker_process = Worker(__file__, kind="?", located=False)
    with tempfile.TemporaryDirectory() as folder:
        for index in range(n_cases):
            answer = worker_process.ask({"seed": seed, "index": index, "folder": folder})
            outcome = answer["outcome"]
            counts[outcome] += 1
            counts["located"] += outcome == "refused" and answer["located"]
            by_kind[answer["kind"].split(" .")[0]][outcome] += 1
            if outcome not in ("correct", "refused") and len(examples[outcome]) < 5:
                examples[outcome].append(f"case {index} ({answer['kind']}): {answer['detail']}")
    worker_process.close()
    return counts, by_kind, examples


def table(counts, n_cases):
    row = [n_cases, counts["correct"], counts["refused"], counts["located"],
           counts["wrong_exception"], counts["wrongly_refused"], counts["crash"],
           counts["silently_wrong"]]
    return ("| " + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS) + "\n| "
            + " | ".join(str(v) for v in row) + " |\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=pathlib.Path)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
        return
    counts, by_kind, examples = run(args.cases, args.seed)
    import streamsvm

    where = pathlib.Path(streamsvm.__file__).resolve().parent
    if where.is_relative_to(ROOT):
        where = where.relative_to(ROOT)
    text = (f"# Reliability: damaged svmlight and CSV files\n\n"
            f"Run: `PYTHONPATH=src python benchmarks/reliability/readers.py --cases {args.cases} "
            f"--seed {args.seed}` (readers of streamsvm {streamsvm.__version__}, "
            f"from `{where}`)\n\n"
            + table(counts, args.cases) + "\nBy kind of case:\n\n| kind | "
            + " | ".join(("correct", "refused", "wrong_exception", "wrongly_refused", "crash",
                          "silently_wrong")) + " |\n|---|---|---|---|---|---|---|\n")
    for kind, c in sorted(by_kind.items()):
        text += f"| {kind} | " + " | ".join(str(c[o]) for o in (
            "correct", "refused", "wrong_exception", "wrongly_refused", "crash",
            "silently_wrong")) + " |\n"
    for outcome, lines in examples.items():
        text += f"\nExamples, {outcome}:\n\n" + "".join(f"- {line}\n" for line in lines)
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
