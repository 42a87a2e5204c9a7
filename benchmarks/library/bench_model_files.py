"""A LASVM model file stays within 3 × SVC's model bytes + 64 KB (issue 19).

Writes: benchmarks/results/model_files.md
Run: python benchmarks/library/bench_model_files.py --n 20000

Model file sizes (issue 19, "slim model files"): LASVM (Bordes, Ertekin, Weston & Bottou,
"Fast Kernel Classifiers with Online and Active Learning", JMLR 2005) streamed over the
checkerboard in chunks of 1,000 rows, C = 1000, gamma = 1, then its finishing step (what
``streamsvm train`` does), saved with ``streamsvm.save`` and pickled; beside it the bytes of
scikit-learn's ``SVC`` model (``support_vectors_`` + ``dual_coef_`` + ``intercept_``) on the
same rows and parameters, and the acceptance bound (3x SVC's bytes + 64 KB).

Run: ``python benchmarks/library/bench_model_files.py [--n 20000] [--before BYTES]``; ``--before``
records the size the same run gave before the change (measured on the merge base). Writes
``benchmarks/results/model_files.md``.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import tempfile
from pathlib import Path

from sklearn.svm import SVC

import streamsvm
from streamsvm.datasets import make_checkerboard

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for _common
from _common import timed, write_markdown  # noqa: E402

C, GAMMA, CHUNK = 1000.0, 1.0, 1000


def svc_bytes(svc) -> int:
    return int(svc.support_vectors_.nbytes + svc.dual_coef_.nbytes + svc.intercept_.nbytes)


def streamed_lasvm(X, y):
    """The model streamed and finished, and its file size before ``finish()``."""
    model = streamsvm.LASVM(C=C, gamma=GAMMA)
    for start in range(0, X.shape[0], CHUNK):
        model.partial_fit(X[start : start + CHUNK], y[start : start + CHUNK])
    unfinished = file_bytes(model)
    model.finish()
    return model, unfinished


def file_bytes(model) -> int:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.npz")
        streamsvm.save(model, path)
        return os.path.getsize(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--before", type=int, default=None,
                        help="file bytes of the same run before the change")
    args = parser.parse_args()
    X, y = make_checkerboard(args.n, random_state=0)
    (model, unfinished), seconds = timed(streamed_lasvm, X, y)
    svc, svc_seconds = timed(SVC(C=C, gamma=GAMMA).fit, X, y)
    saved, pickled, reference = file_bytes(model), len(pickle.dumps(model)), svc_bytes(svc)
    bound = 3 * reference + 64 * 1024
    rows = [
        ("LASVM file before `finish()` (stored rows outside S kept)", unfinished),
        ("LASVM file (`streamsvm.save`)", saved),
        ("LASVM pickle", pickled),
        ("SVC: support_vectors_ + dual_coef_ + intercept_", reference),
        ("bound: 3 x SVC + 64 KB", bound),
    ]
    if args.before is not None:
        rows.insert(0, ("LASVM file before (kernel cache saved)", args.before))
    lines = [
        f"LASVM streamed over {args.n:,} checkerboard rows (chunks of {CHUNK:,}, C = {C:g}, "
        f"gamma = {GAMMA:g}) and finished in {seconds:.1f} s: "
        f"{model.learners_[0].n_support:,} support vectors; SVC on the same rows "
        f"({svc_seconds:.1f} s): {svc.support_vectors_.shape[0]:,}.",
        "",
        "| what | bytes |",
        "|---|---|",
        *[f"| {what} | {value:,} |" for what, value in rows],
    ]
    for line in lines:
        print(line)
    write_markdown("model_files.md", "Model file sizes: LASVM on the checkerboard", lines)


if __name__ == "__main__":
    main()
