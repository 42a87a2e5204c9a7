"""streamsvm.load refuses damaged model files with ModelFileError, and none crashes or loads
silently wrong.

Writes: benchmarks/results/reliability_model_files.md
Run: python benchmarks/reliability/model_files.py --cases 2000 --seed 0 --out
    benchmarks/results/reliability_model_files.md

Damaged model files: how often ``streamsvm.load`` refuses them cleanly (issue: hardening).

Draws damaged copies of the files of a few small models (random bytes, flipped bytes,
truncations, hostile header edits, swapped arrays; see ``tests/model_file_cases.py``) from a
seeded generator, loads each in a worker process (so that a hard crash is counted, not
fatal) and counts the outcomes: refused with ``ModelFileError``, loaded and equal to the saved
model, loaded as a usable model with the edited values (header edits only), another exception
(wrong exception), loaded but failing when used or killing the process (crash), loaded with
non-finite or different answers (silently wrong). Run from the repository root::

    PYTHONPATH=src python benchmarks/reliability/model_files.py --cases 1000 \
        --out benchmarks/results/reliability_model_files.md
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(pathlib.Path(__file__).resolve().parent)]

from _worker import Worker  # noqa: E402

from tests import model_file_cases as cases  # noqa: E402


def worker() -> None:
    """Answer one case per input line: {"path", "model", "kind"} -> {"outcome", "detail"}."""
    import streamsvm

    originals = {}
    for line in sys.stdin:
        case = json.loads(line)
        name = case["model"]
        if name not in originals:
            folder = pathlib.Path(case["path"]).parent
            model = streamsvm.load(folder / f"{name}.valid.npz")
            with np.load(folder / f"{name}.inputs.npz", allow_pickle=False) as f:
                originals[name] = (model, f["query"], f["X_next"], f["y_next"])
        model, query, X_next, y_next = originals[name]
        result, detail = cases.outcome(case["path"], model, query, X_next, y_next,
                                       may_differ=case["kind"] in cases.MAY_DIFFER)
        print(json.dumps({"outcome": result, "detail": detail}), flush=True)


def run(n_cases: int, seed: int) -> tuple[dict, list]:
    rng = np.random.default_rng(seed)
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        valid = {}
        for name, (model, query, X_next, y_next) in cases.valid_models().items():
            path = folder / f"{name}.valid.npz"
            import streamsvm

            streamsvm.save(model, path)
            np.savez(folder / f"{name}.inputs.npz", query=query, X_next=X_next, y_next=y_next)
            valid[name] = path.read_bytes()
        names = sorted(valid)
        pool = Worker(__file__)
        for i in range(n_cases):
            name = names[i % len(names)]
            kind, data = cases.random_case(rng, valid[name])
            path = folder / f"case{i}.npz"
            path.write_bytes(data)
            answer = pool.ask({"path": str(path), "model": name, "kind": kind})
            counts[kind][answer["outcome"]] += 1
            if answer["outcome"] in ("wrong exception", "crash", "silently wrong"):
                bad.append((kind, name, answer["outcome"], answer["detail"]))
            path.unlink()
        pool.close()
    return counts, bad


def table(counts: dict) -> str:
    columns = ["refused", "equal", "edited", "wrong exception", "crash", "silently wrong"]
    heads = ["refused cleanly", "loaded, equal", "loaded, edited values", "wrong exception",
             "crashes", "silently wrong"]
    lines = ["| category | cases tried | " + " | ".join(heads) + " |",
             "|---|" + "---:|" * (len(heads) + 1)]
    total = collections.Counter()
    for kind in sorted(counts):
        total.update(counts[kind])
        row = [str(counts[kind][c]) for c in columns]
        lines.append(f"| {kind} | {sum(counts[kind].values())} | " + " | ".join(row) + " |")
    row = [str(total[c]) for c in columns]
    lines.append(f"| **all** | {sum(total.values())} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=pathlib.Path)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
        return
    counts, bad = run(args.cases, args.seed)
    import streamsvm

    text = (
        f"# Damaged model files (streamsvm {streamsvm.__version__})\n\n"
        f"Run: `PYTHONPATH=src python benchmarks/reliability/model_files.py --cases {args.cases} "
        f"--seed {args.seed}`\n\n{table(counts)}\n"
    )
    if bad:
        text += "\nFirst cases that were not refused cleanly:\n\n" + "\n".join(
            f"- {kind} of {name}: {result} ({detail})" for kind, name, result, detail in bad[:15]
        ) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
