"""LASVM-NC and LASVM-I collapse on MNIST-8 in file order without LASVM's seeding and learn with
it.

Writes: benchmarks/results/lasvm_file_order_mnist8.md
Run: python benchmarks/lasvm/bench_lasvm_file_order.py --n-train 10000

LASVM-NC and LASVM-I on MNIST-8 (digit 8 vs rest) in FILE ORDER, with and without
LASVM's seeding.

Ertekin, Bottou & Giles ("Nonconvex Online Support Vector Machines", IEEE TPAMI 2011) build
LASVM-NC and LASVM-I on LASVM, whose initialisation seeds the expansion with a few
examples of each class. Without it, the first negatives of the file (the first 8 is image
18) drive f(x) to about -1 everywhere (C = 100, gamma = 0.001 on pixels in [0, 1]: a nearly
flat kernel), every later 8 scores ``y f(x) < s = -1``, LASVM-I skips it and LASVM-NC gives
it beta = C: both predict "not 8" everywhere. One pass over the first ``--n-train`` training
images in the file's order (the paper: 60,000, averages of 10 shuffled runs), the 10,000
test images, C = 100, gamma = 0.001 (the paper's Table 2), s = -1, CLEAN every 300.

Run: ``python benchmarks/lasvm/bench_lasvm_file_order.py [--n-train 60000]``. Writes
``benchmarks/results/lasvm_file_order_mnist8.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from streamsvm import LASVM, LASVMG, LASVMI, LASVMNC
from streamsvm.datasets import load_dataset
from streamsvm.metrics import g_means

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for _common
from _common import write_markdown  # noqa: E402

PAPER = {"LASVM-G": 99.27, "LASVM-NC": 99.15, "LASVM-I": 99.18}  # Table 3, 60,000 shuffled


READING = """**Reading.** Without seeds LASVM-NC and LASVM-I keep a handful of support vectors, all
negatives, and predict "not 8" for every test image (accuracy = the share of non-8s, g-means
0): the ramp test judged each 8 by a model that had seen only negatives. With LASVM's seeds
(hinge box, learnt before the ramp applies) both learn the 8s, but on 10,000 images with 5
seeds they stay 1.3 points below LASVM: an early model still scores many 8s below s = -1,
and the ramp discards them for good. Tried: more seeds (the default is now 50; measured
with 5 / 20 / 50 / 100 seeds: LASVM-NC 97.11 / 97.39 / 97.50 / 97.57%, LASVM-I 97.11 /
97.22 / 97.66 / 97.58%), which brings both within 0.9 point of LASVM; seeds beyond 50 add
nothing, so the rest of the gap is the ramp point itself, not the start: with s = -2 (5
seeds) they reach 98.22 / 98.20%, within 0.2 point of LASVM, at the cost of the sparsity
the ramp buys (845 / 852 support vectors instead of 619 / 607; measured before the seeds
were learnt, s = -1.5 gave 97.84 / 98.04%). We keep the paper's s = -1: the paper chose it
on its shuffled 60,000-image runs, where the gap closes, and we measured once on all 60,000
images in file order (5 seeds, same machine under load): LASVM 99.38%, LASVM-NC 99.15% with
2,507 support vectors, LASVM-I 99.17% with 2,552 (the paper, shuffled: 99.15% / 2,653 and
99.18% / 2,722)."""


def contenders():
    common = {"C": 100.0, "gamma": 0.001}
    out = {"LASVM": lambda: LASVM(**common), "LASVM-G": lambda: LASVMG(**common)}
    for name, cls in (("LASVM-NC", LASVMNC), ("LASVM-I", LASVMI)):
        out |= {
            f"{name}, no seeds": lambda cls=cls: cls(n_seed=0, **common),
            f"{name}, 5 seeds": lambda cls=cls: cls(n_seed=5, **common),
            f"{name}, 50 seeds (default)": lambda cls=cls: cls(**common),
            f"{name}, 5 seeds, s = -2": lambda cls=cls: cls(n_seed=5, s=-2.0, **common),
        }
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-train", type=int, default=60_000)
    args = parser.parse_args()
    X, y = load_dataset("mnist-8vrest")
    Xt, yt = load_dataset("mnist-8vrest", subset="test")
    X, y = X[: args.n_train], y[: args.n_train]
    lines = [
        f"One pass over the first {X.shape[0]:,} MNIST training images in file order (method: "
        "the script's docstring), tested on the 10,000 test images. CPU seconds "
        "(process time, compilation excluded) on a shared 2-core machine.",
        "",
        "| method | accuracy % | g-means % | SVs | CPU s | paper accuracy (60,000, shuffled) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for make in contenders().values():  # compile first: the CPU times exclude compilation
        make().fit(X[:300], y[:300])
    for label, make in contenders().items():
        start = time.process_time()
        model = make().fit(X, y)
        cpu = time.process_time() - start
        pred = model.predict(Xt)
        acc = 100 * (pred == yt).mean()
        gm = 100 * g_means(yt, pred)
        paper = PAPER.get(label.split(",")[0], "–")
        lines.append(f"| {label} | {acc:.2f} | {gm:.2f} | {int(model.n_support_.sum())} | "
                     f"{cpu:.1f} | {paper} |")
        print(lines[-1], flush=True)
    lines += ["", READING]
    lines += ["", f"Run: `python benchmarks/lasvm/bench_lasvm_file_order.py --n-train "
              f"{args.n_train}`", ""]
    write_markdown("lasvm_file_order_mnist8.md", "LASVM-NC / LASVM-I on MNIST-8 in file order",
                   lines)


if __name__ == "__main__":
    main()
