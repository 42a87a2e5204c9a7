"""The streaming svmlight reader reads files of any size in bounded memory, at a throughput
comparable with scikit-learn's loader.

Writes: benchmarks/results/svmlight_reader.md
Run: python benchmarks/library/bench_svmlight_reader.py

Throughput and peak memory of the streaming svmlight reader against scikit-learn's loader.

Writes generated svmlight files of growing size to a scratch folder (``benchmarks/.scratch``,
kept out of git), then, each in a fresh Python process, reads every file

- with :func:`streamsvm.datasets.iter_svmlight`, chunk by chunk, keeping nothing
  (``n_features`` and ``zero_based`` given: one pass; and left to ``"auto"``: the extra
  counting pass), and
- with :func:`sklearn.datasets.load_svmlight_file`, which builds the whole matrix,

and records the wall time and the peak resident memory of the process
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``), also measured just before the read so that
the reader's own share can be told apart from the interpreter and its imports. The result
is a Markdown table in ``benchmarks/results/svmlight_reader.md``.

Usage::

    python benchmarks/library/bench_svmlight_reader.py            # 64 MB, 256 MB, 1 GB
    python benchmarks/library/bench_svmlight_reader.py --quick    # 4 MB, 16 MB (smoke run)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
N_FEATURES = 50_000
NNZ_PER_ROW = 60
CHUNK_SIZE = 10_000


# --------------------------------------------------------------------------- data
def _template_block(seed: int, target_bytes: int = 16 << 20) -> bytes:
    """About ``target_bytes`` of svmlight lines: labels +-1, one-based sorted indices,
    values with 7 significant digits (some in exponent notation), like tf-idf data."""
    rng = np.random.default_rng(seed)
    lines = []
    size = 0
    while size < target_bytes:
        n = 5000
        counts = rng.poisson(NNZ_PER_ROW, size=n).clip(1, 400)
        labels = rng.choice(["+1", "-1"], size=n)
        for i in range(n):
            idx = np.sort(rng.choice(N_FEATURES, size=counts[i], replace=False)) + 1
            vals = rng.lognormal(-2.0, 1.5, size=counts[i])
            pairs = " ".join(f"{j}:{v:.7g}" for j, v in zip(idx, vals, strict=True))
            line = f"{labels[i]} {pairs}"
            lines.append(line)
            size += len(line) + 1
    return ("\n".join(lines) + "\n").encode()


def make_file(folder: Path, megabytes: int) -> Path:
    """A file of ``megabytes`` MB made of repeated generated blocks (cached on disk)."""
    path = folder / f"synthetic_{megabytes}MB.svm"
    target = megabytes << 20
    if path.exists() and path.stat().st_size >= target:
        return path
    folder.mkdir(parents=True, exist_ok=True)
    blocks = [_template_block(seed, min(16 << 20, target)) for seed in range(4)]
    written = 0
    with open(path, "wb") as f:
        for i in range(1 << 30):
            block = blocks[i % len(blocks)]
            if written + len(block) > target:  # cut the last block at a line end
                block = block[: block.rfind(b"\n", 0, target - written) + 1]
            f.write(block)
            written += len(block)
            if written >= target or len(block) == 0:
                break
    return path


# --------------------------------------------------------------------------- workers
def _status_mb(field: str) -> float | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0  # kB
    except OSError:
        pass
    return None


def _reset_peak() -> bool:
    """Reset the kernel's high-water mark of resident memory (Linux >= 4.0)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _peak_mb() -> float:
    """Peak resident memory of this process since the last reset, in MB."""
    hwm = _status_mb("VmHWM")
    if hwm is not None:
        return hwm
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # kB on Linux


def _baseline_mb() -> float:
    """Resident memory now, with the peak reset to it where the system allows."""
    _reset_peak()
    return _status_mb("VmRSS") or _peak_mb()


def worker(method: str, path: str) -> dict:
    """Run in a fresh process: read ``path`` once and report time and memory."""
    import scipy.sparse  # noqa: F401 - imported before the baseline, as the readers need it

    if method == "sklearn":
        from sklearn.datasets import load_svmlight_file

        warm = Path(path).with_suffix(".warm.svm")
        warm.write_text("1 1:1\n-1 2:1\n")
        load_svmlight_file(str(warm))
        baseline = _baseline_mb()
        start = time.perf_counter()
        X, y = load_svmlight_file(path)
        seconds = time.perf_counter() - start
        rows, nnz = X.shape[0], X.nnz
    else:
        from streamsvm.datasets import iter_svmlight

        warm = Path(path).with_suffix(".warm.svm")
        warm.write_text("1 1:1\n-1 2:1\n")
        for _ in iter_svmlight(warm):  # loads the jitted parser from numba's cache
            pass
        kwargs = {} if method == "ours-auto" else {"n_features": N_FEATURES, "zero_based": False}
        baseline = _baseline_mb()
        start = time.perf_counter()
        rows = nnz = 0
        for X, _ in iter_svmlight(path, chunk_size=CHUNK_SIZE, **kwargs):
            rows += X.shape[0]
            nnz += X.nnz
        seconds = time.perf_counter() - start
    return {"method": method, "seconds": seconds, "rows": rows, "nnz": int(nnz),
            "baseline_mb": baseline, "peak_mb": _peak_mb()}


def measure(method: str, path: Path, repeat: int) -> dict:
    """Best time and largest peak of ``repeat`` reads, each in a fresh process."""
    env = dict(os.environ)
    src = str(HERE.parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    runs = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, __file__, "--worker", method, str(path)],
                             capture_output=True, text=True, env=env, check=False)
        if out.returncode != 0:
            raise RuntimeError(f"{method} on {path.name} failed:\n{out.stderr}")
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    best = min(runs, key=lambda r: r["seconds"])
    best["peak_mb"] = max(r["peak_mb"] for r in runs)
    best["rise_mb"] = max(r["peak_mb"] - r["baseline_mb"] for r in runs)
    best["runs"] = repeat
    return best


# --------------------------------------------------------------------------- report
def _versions() -> str:
    import numba
    import scipy
    import sklearn

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} CPUs; Python {platform.python_version()}, "
            f"numpy {np.__version__}, scipy {scipy.__version__}, numba {numba.__version__}, "
            f"scikit-learn {sklearn.__version__}")


def report(results: list[dict], quick: bool) -> str:
    lines = [
        "# Streaming svmlight reader: throughput and peak memory",
        "",
        "Run: `python benchmarks/library/bench_svmlight_reader.py"
        + (" --quick" if quick else "") + f"` ({time.strftime('%Y-%m-%d')})",
        "",
        f"Machine: {_versions()}.",
        "",
        f"Files: plain-text svmlight, labels +-1, one-based sorted indices among {N_FEATURES:,} "
        f"features, about {NNZ_PER_ROW} nonzeros per row, values with 7 significant digits "
        "(generated blocks repeated up to the size; the file is in the page cache, so the "
        "numbers measure parsing, not the disk).",
        "",
        f"Each read runs in a fresh process ({results[0]['ours']['runs']} runs each; the "
        "fastest time is shown). *Peak RSS* is the process's high-water resident memory "
        "during the read (`VmHWM` after resetting it through `/proc/self/clear_refs` once "
        "the interpreter, the imports and a warm-up read, which loads numba's cached parser, "
        "are done); in brackets, its rise above the resident memory at the start of the "
        "read. "
        f"`iter_svmlight` streams chunks of {CHUNK_SIZE:,} rows and keeps nothing: *one pass* "
        "is with `n_features` and `zero_based` given, *auto* lets it find them with its extra "
        "counting pass. `load_svmlight_file` (scikit-learn) returns the whole CSR matrix.",
        "",
        "| file | rows | nonzeros | iter_svmlight one pass | peak RSS (reader) "
        "| iter_svmlight auto (2 passes) | peak RSS (reader) | sklearn load_svmlight_file "
        "| peak RSS (reader) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        cells = [f"{r['bytes'] / 2**20:,.0f} MB", f"{r['rows']:,}", f"{r['nnz']:,}"]
        for method in ("ours", "ours-auto", "sklearn"):
            m = r.get(method)
            if m is None:
                cells += ["not run", "-"]
                continue
            rate = r["bytes"] / 2**20 / m["seconds"]
            cells.append(f"{rate:,.0f} MB/s ({m['seconds']:.1f} s)")
            cells.append(f"{m['peak_mb']:,.0f} MB ({m['rise_mb']:+,.0f} MB)")
        lines.append("| " + " | ".join(cells) + " |")
    ours = [r[m]["rise_mb"] for r in results for m in ("ours", "ours-auto")]
    lines += [
        "",
        f"The streaming reader's memory does not grow with the file: its rise stays between "
        f"{min(ours):.0f} and {max(ours):.0f} MB (one block of 8 MB, one chunk, the parser's "
        "output arrays) from the smallest to the largest file, while scikit-learn's loader "
        "holds the whole matrix.",
    ]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small files only (smoke run)")
    parser.add_argument("--sizes", type=int, nargs="+", help="file sizes in MB")
    parser.add_argument("--sklearn-max", type=int, default=1024,
                        help="largest file (MB) to read with scikit-learn (default 1024)")
    parser.add_argument("--scratch", type=Path, default=HERE.parent / ".scratch")
    parser.add_argument("--repeat", type=int, default=2, help="runs per measurement (best time)")
    parser.add_argument("--output", type=Path, default=None,
                        help="Markdown file to write (default: benchmarks/results/"
                             "svmlight_reader.md; --quick only prints unless given)")
    parser.add_argument("--worker", nargs=2, metavar=("METHOD", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(*args.worker)))
        return
    sizes = args.sizes or ([4, 16] if args.quick else [64, 256, 1024])
    output = args.output
    if output is None and not args.quick:
        output = HERE.parent / "results" / "svmlight_reader.md"
    results = []
    for megabytes in sizes:
        path = make_file(args.scratch, megabytes)
        row = {"megabytes": megabytes, "bytes": path.stat().st_size}
        methods = ["ours", "ours-auto"] + (["sklearn"] if megabytes <= args.sklearn_max else [])
        for method in methods:
            row[method] = measure(method, path, args.repeat)
            print(f"{megabytes} MB {method}: {row[method]}", flush=True)
        row["rows"], row["nnz"] = row["ours"]["rows"], row["ours"]["nnz"]
        for method in methods[1:]:
            assert (row[method]["rows"], row[method]["nnz"]) == (row["rows"], row["nnz"]), method
        results.append(row)
    table = report(results, args.quick)
    if output is None:
        print(table)
        return
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(table)
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
