"""n_jobs=None does not make LASVM slower on small problems than a source tree without threads.

Writes: benchmarks/threads/small.md
Run: python benchmarks/threads/bench_small.py --baseline /work/main/src

``n_jobs=None`` must not make small problems slower: CPU seconds of LASVM on small problems
with this checkout's code against another source tree (e.g. ``main`` before ``n_jobs``).

Each tree runs in its own subprocess (the same module names cannot be imported twice in one
process), the trees alternate for ``--rounds`` rounds and each task keeps its best CPU time
(``time.process_time``, compilation excluded by a warm-up). Tasks: ``fit`` on the Banana set
(5,300 × 2; C = 316, gamma = 0.5 as in Bordes et al. 2005, Figure 7), ``partial_fit`` in
chunks of 100 of a 10-feature problem of 4,000 rows, 300 ``learn_one`` calls, and
``decision_function`` of 5,000 rows.

Run: ``python benchmarks/threads/bench_small.py --baseline /work/main/src`` (about a minute);
writes ``benchmarks/threads/small.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).parent
SRC = HERE.parents[1] / "src"


def measure(repeats: int) -> dict:
    import numpy as np
    from sklearn.datasets import make_classification

    from streamsvm import LASVM
    from streamsvm.datasets import load_dataset

    Xb, yb = load_dataset("banana")
    X10, y10 = make_classification(n_samples=4000, n_features=10, n_informative=6,
                                   random_state=0)

    def banana_fit():
        return LASVM(C=316.0, gamma=0.5).fit(Xb, yb)

    def chunks():
        model = LASVM(C=1.0, gamma=0.1)
        for start in range(0, 4000, 100):
            model.partial_fit(X10[start:start + 100], y10[start:start + 100], classes=[0, 1])
        return model

    def learn_one():
        model = LASVM(C=1.0, gamma=0.1)
        model.partial_fit(X10[:2], y10[:2], classes=[0, 1])
        for i in range(2, 302):
            model.learn_one(X10[i], y10[i])

    fitted = banana_fit()

    def decisions():
        return fitted.decision_function(np.tile(Xb[:1000], (5, 1)))

    tasks = {"Banana fit": banana_fit, "partial_fit, chunks of 100": chunks,
             "300 learn_one": learn_one, "decision_function, 5,000 rows": decisions}
    out = {}
    for name, task in tasks.items():
        task()  # warm-up: compilation or the cache
        best = np.inf
        for _ in range(repeats):
            start = time.process_time()
            task()
            best = min(best, time.process_time() - start)
        out[name] = best
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="/work/main/src",
                        help="the other source tree (its src folder)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(3)))
        return
    trees = {"this checkout": str(SRC), "baseline": args.baseline}
    best: dict[str, dict[str, float]] = {}
    for _ in range(args.rounds):
        for label, src in trees.items():
            env = dict(os.environ, PYTHONPATH=src)
            done = subprocess.run([sys.executable, __file__, "--measure"], env=env, check=True,
                                  capture_output=True, text=True)
            times = json.loads(done.stdout.strip().splitlines()[-1])
            for task, seconds in times.items():
                previous = best.setdefault(label, {}).get(task, float("inf"))
                best[label][task] = min(previous, seconds)
    lines = ["# Small problems: n_jobs=None against the baseline (CPU seconds)", "",
             f"_{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end; "
             f"baseline `{args.baseline}`; best of 3 runs × {args.rounds} rounds_", "",
             "Run: `python benchmarks/threads/bench_small.py --baseline "
             f"{args.baseline} --rounds {args.rounds}`", "",
             "| task | this checkout | baseline | ratio |", "|---|---:|---:|---:|"]
    for task in best["baseline"]:
        mine, theirs = best["this checkout"][task], best["baseline"][task]
        lines.append(f"| {task} | {mine:.4f} | {theirs:.4f} | {mine / theirs:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    (HERE / "small.md").write_text(text)


if __name__ == "__main__":
    main()
