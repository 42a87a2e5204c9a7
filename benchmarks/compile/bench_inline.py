"""Replacing numba's IR-level inlining by plain calls cuts LASVM's cold compile without slowing
its hot loops by more than 5% (issue 36).

Writes: benchmarks/results/compile_inline.md
Run: python benchmarks/compile/bench_inline.py --variants today,none --repeats 3

What numba's IR-level inlining (``@njit(inline="always")``) costs in compile time and buys in
run time, for LASVM.

Claim checked (issue 36): replacing IR-level inlining by plain calls cuts LASVM's cold compile
without slowing its hot loops by more than 5%. For each variant the package is copied to a
temporary folder and its decorators rewritten (nothing in ``src/`` changes); then, in new
processes, LASVM's first ``fit`` (200 rows, 10 features) with an empty numba cache (wall and
user CPU seconds), and LASVM's fit on the regimes of ``bench_lasvm_vs_svc.py`` with the cache
warm (CPU seconds, best of ``--repeats``) with a digest of its test decisions (the same model
gives the same digest). Variants:

- ``today``: the code as it is;
- ``none``: no function inlined at numba's level (LLVM still inlines what it chooses);
- ``leaves``: only the small helpers called inside loops stay inlined (``LEAVES``);
- ``calls``: the kernel-row functions (``ROW_TREE``) become calls, the rest as today.

Run (several minutes per variant; the regimes need ``STREAMSVM_DATA``):

    PYTHONPATH=src python benchmarks/compile/bench_inline.py --variants today,none

writes ``benchmarks/results/compile_inline.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src" / "streamsvm"

LEAVES = set("""_unlink _link_before _list_sentinel _choose_victim _move_values _is_blank _is_digit
_ends_svm_token _expansion_value _add_slot _meet pair_gain _blatant lacks_row _scatter_row put
_zero_holes _compaction_due cache_set_length mark_prefetched _missing_columns
_summary_scratch""".split())
ROW_TREE = set("""kernel_row columns fill_columns dots_to_columns _dense_rbf_columns _column_dots
csr_column_dots prefetch_columns sync_row cache_acquire _acquire_row _steps""".split())


def keeps_inline(variant, name):
    return {"today": True, "none": False, "leaves": name in LEAVES,
            "calls": name not in ROW_TREE}[variant]


def rewrite(package: Path, variant: str) -> int:
    """Drop ``inline="always"`` where the variant says; returns how many were dropped."""
    dropped = 0
    for path in package.rglob("*.py"):
        lines = path.read_text().splitlines(keepends=True)
        for i, line in enumerate(lines[:-1]):
            match = re.match(r"def (\w+)", lines[i + 1])
            if 'inline="always"' in line and match and not keeps_inline(variant,
                                                                      match.group(1)):
                lines[i] = line.replace(', inline="always"', "")
                dropped += 1
        path.write_text("".join(lines))
    return dropped


COLD = r"""
import json, time, numpy as np
from streamsvm import LASVM
rng = np.random.default_rng(0)
X = rng.standard_normal((200, 10)); y = (X[:, 0] > 0).astype(int)
t0, c0 = time.perf_counter(), time.process_time()
LASVM().fit(X, y)
print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}))
"""

REGIMES = r"""
import hashlib, json, sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import bench_lasvm_vs_svc as B
from streamsvm import LASVM
out = {}
for name in sys.argv[3].split(","):
    reg = B.REGIMES[name]
    X, y, Xt, yt, _ = reg.load()
    make = lambda: LASVM(C=reg.C, gamma=reg.gamma)
    warm = np.concatenate([np.flatnonzero(y == c)[:100] for c in np.unique(y)])
    make().fit(X[warm], y[warm])
    best, model = B.best_cpu(lambda: make().fit(X, y), int(sys.argv[2]))
    digest = hashlib.sha1(model.decision_function(Xt).tobytes()).hexdigest()[:10]
    out[name] = [best, digest]
print(json.dumps(out))
"""


def run(code, args, src_root, cache):
    env = dict(os.environ, PYTHONPATH=str(src_root), NUMBA_CACHE_DIR=str(cache))
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="today,none,leaves,calls")
    parser.add_argument("--regimes", default="banana,ten-features,adult,mnist-8v9,reuters,w3a")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    rows = []
    for variant in args.variants.split(","):
        with tempfile.TemporaryDirectory(prefix=f"inline-{variant}-") as tmp:
            root = Path(tmp) / "src"
            shutil.copytree(SRC, root / "streamsvm",
                            ignore=shutil.ignore_patterns("__pycache__"))
            dropped = rewrite(root / "streamsvm", variant)
            cache = Path(tmp) / "cache"
            cold = run(COLD, [], root, cache)
            speed = run(REGIMES, [str(HERE.parent / "lasvm"), str(args.repeats), args.regimes],
                        root, cache)
        rows.append({"variant": variant, "dropped": dropped, "cold": cold, "speed": speed})
        print(json.dumps(rows[-1]), flush=True)
    sys.path.insert(0, str(HERE.parent))
    from _common import write_markdown

    regimes = args.regimes.split(",")
    base = {r: rows[0]["speed"][r][0] for r in regimes}
    lines = ["LASVM's cold first fit (200 × 10, empty numba cache, new process) and its fit "
             f"time per regime (CPU s, best of {args.repeats}, warm cache), per inlining "
             f"variant; in brackets the ratio to the first variant ({rows[0]['variant']}). "
             "Same digest = same model.", "",
             "| variant | inlines dropped | cold wall s | cold CPU s | "
             + " | ".join(regimes) + " |", "|---|---:|---:|---:|" + "---:|" * len(regimes)]
    for r in rows:
        cells = [f"{r['speed'][g][0]:.3f} ({r['speed'][g][0] / base[g]:.2f}, "
                 f"`{r['speed'][g][1]}`)" for g in regimes]
        lines.append(f"| {r['variant']} | {r['dropped']} | {r['cold']['wall']:.1f} | "
                     f"{r['cold']['cpu']:.1f} | " + " | ".join(cells) + " |")
    command = "PYTHONPATH=src python benchmarks/compile/bench_inline.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    lines += ["", f"_{time.strftime('%Y-%m-%d')}_", "", f"Run: `{command.strip()}`"]
    write_markdown("compile_inline.md", "IR-level inlining: compile seconds against run time",
                   lines)


if __name__ == "__main__":
    main()
