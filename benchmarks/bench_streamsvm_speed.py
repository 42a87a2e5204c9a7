"""One linear pass over a generated dense stream: StreamSVM vs SGDClassifier and the baselines.

Training time per example (only the ``partial_fit`` calls are timed; the chunks are generated
outside the clock) and peak resident memory, each estimator in a fresh process, for streams
of 10^6 and 10^7 examples × 100 features in chunks of 10^4. The stream is never held whole,
so a model whose memory does not grow shows the same peak at both sizes.
Run: ``python benchmarks/bench_streamsvm_speed.py [--quick]``; writes
``benchmarks/results/streamsvm_speed.md``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np

from _common import write_markdown

ESTIMATORS = {
    "StreamSVM (Algo-1)": "from streamsvm import StreamSVM; model = StreamSVM()",
    "StreamSVM (Algo-2, L=10)": "from streamsvm import StreamSVM; model = StreamSVM(lookahead=10)",
    "Perceptron": "from streamsvm import Perceptron; model = Perceptron()",
    "Pegasos k=1": "from streamsvm import Pegasos; model = Pegasos()",
    "sklearn SGDClassifier (hinge, 1 epoch)": (
        "from sklearn.linear_model import SGDClassifier; model = SGDClassifier()"
    ),
}
N_FEATURES = 100
CHUNK = 10_000


def child(setup: str, n_examples: int) -> dict:
    namespace: dict = {}
    exec(setup, namespace)  # noqa: S102 - the fixed setup strings above
    model = namespace["model"]
    rng = np.random.default_rng(0)
    direction = rng.normal(size=N_FEATURES)
    seconds = 0.0
    warm = rng.normal(size=(100, N_FEATURES))  # compile / load jitted code outside the clock
    type(model)().partial_fit(warm, np.where(warm @ direction > 0, 1, -1), classes=[-1, 1])
    for _ in range(n_examples // CHUNK):
        X = rng.normal(size=(CHUNK, N_FEATURES)) + 0.5
        y = np.where(X @ direction + rng.normal(size=CHUNK) > 0.5 * direction.sum(), 1, -1)
        start = time.perf_counter()
        model.partial_fit(X, y, classes=[-1, 1])
        seconds += time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "peak_mb": peak_mb}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10^5 and 10^6 examples")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(ESTIMATORS[args.child[0]], int(args.child[1]))))
        return
    sizes = (100_000, 1_000_000) if args.quick else (1_000_000, 10_000_000)
    results = {}
    for name in ESTIMATORS:
        for n in sizes:
            out = subprocess.run([sys.executable, __file__, "--child", name, str(n)],
                                 capture_output=True, text=True, check=True)
            results[name, n] = json.loads(out.stdout)
            print(name, n, results[name, n], flush=True)
    sgd = "sklearn SGDClassifier (hinge, 1 epoch)"
    lines = [
        f"Dense stream, {N_FEATURES} features, chunks of {CHUNK:,}; training time of the "
        "`partial_fit` calls only; peak RSS of the whole process (Python, NumPy, numba and "
        "the current chunk included).",
        "",
        "| estimator | " + " | ".join(f"{n:,} examples: s (ns/example)" for n in sizes)
        + " | speed-up vs SGD | " + " | ".join(f"peak MB at {n:,}" for n in sizes) + " |",
        "|---|" + "---:|" * (2 * len(sizes) + 1),
    ]
    for name in ESTIMATORS:
        times = [results[name, n]["seconds"] for n in sizes]
        cells = [f"{t:.2f} ({1e9 * t / n:.0f})" for t, n in zip(times, sizes, strict=True)]
        speedup = results[sgd, sizes[-1]]["seconds"] / times[-1]
        peaks = [f"{results[name, n]['peak_mb']:.0f}" for n in sizes]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {speedup:.1f}× | "
                     + " | ".join(peaks) + " |")
    lines += [
        "",
        "The issue asks one linear pass to be at least 2× faster than `SGDClassifier.partial_fit` "
        "for one epoch, and peak memory not to grow from 10^6 to 10^7 examples.",
    ]
    write_markdown("streamsvm_speed.md" if not args.quick else "streamsvm_speed_quick.md",
                   "StreamSVM: speed and memory of one pass", lines)


if __name__ == "__main__":
    main()
