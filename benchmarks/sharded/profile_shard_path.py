"""A worker's CPU seconds per stage of StreamSVM's shard path do not grow from 1 to 2 workers.

Writes: benchmarks/results/sharded_profile.md
Run: python benchmarks/sharded/profile_shard_path.py --rows 250000

Where one worker's time goes on the shard path of StreamSVM over ``.npz`` shards: the scan
task and the training task of ``fit_sharded``, run in a pool of spawned processes with 1 and
then 2 workers, each task measured inside its worker (``resource.getrusage``: user and system
CPU seconds, minor page faults) and the pool's wall time per stage.

CPU seconds per stage should not grow from 1 to 2 workers; where they do, the workers fight
over something (BLAS thread pools of their own, page faults). Wall times on a machine shared
with other work are distorted; the CPU seconds much less so.

Run from the repository root: ``python benchmarks/sharded/profile_shard_path.py [--rows N]``
(N rows per shard, 4 shards of Synthetic A and of Waveform; default 1,000,000: about 2
minutes on an idle 2-core machine). Writes ``benchmarks/results/sharded_profile.md``.
"""

from __future__ import annotations

import argparse
import copy
import multiprocessing
import resource
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_sharded import write_npz_shards  # noqa: E402

from _common import write_markdown  # noqa: E402

STAGES = ("scan", "train")


def measured_task(task):
    """``(result, usage)``: one shard task run in this worker, with its rusage deltas."""
    from streamsvm.sharded.worker import run_task

    before, begin = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    result = run_task(task)
    wall, after = time.perf_counter() - begin, resource.getrusage(resource.RUSAGE_SELF)
    return result, {"wall": wall, "user": after.ru_utime - before.ru_utime,
                    "sys": after.ru_stime - before.ru_stime,
                    "faults": after.ru_minflt - before.ru_minflt}


def profile(pattern: str, workers: int, repeats: int, chunk_size: int):
    """Per stage, the repeat of least pool wall time: ``{stage: (pool wall, summed usage)}``."""
    from streamsvm import StreamSVM
    from streamsvm.sharded.shards import reconcile, resolve_shards
    from streamsvm.sharded.worker import ScanTask, TrainTask, start_shared

    shards = resolve_shards(pattern)
    best = {}
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        for repeat in range(repeats + 1):  # the first run loads the compiled code: not kept
            begin = time.perf_counter()
            scans = list(pool.map(measured_task, [ScanTask(s, chunk_size) for s in shards]))
            scan_wall = time.perf_counter() - begin
            layout = reconcile(shards, [r for r, _ in scans])
            model = start_shared(StreamSVM(), layout)
            tasks = [TrainTask(s, layout, copy.deepcopy(model), chunk_size) for s in shards]
            begin = time.perf_counter()
            trains = list(pool.map(measured_task, tasks))
            train_wall = time.perf_counter() - begin
            if repeat == 0:
                continue
            for stage, wall, results in (("scan", scan_wall, scans),
                                         ("train", train_wall, trains)):
                usage = {k: sum(u[k] for _, u in results) for k in results[0][1]}
                if stage not in best or wall < best[stage][0]:
                    best[stage] = (wall, usage)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows per shard")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--chunk-size", type=int, default=50_000)
    args = parser.parse_args(argv)
    from streamsvm.datasets import make_waveform

    begin = time.perf_counter()
    lines = [
        f"Run: `python benchmarks/sharded/profile_shard_path.py --rows {args.rows}` "
        f"(chunks of {args.chunk_size:,} rows, the best of {args.repeats} runs by pool wall "
        "time, after one run that loads the compiled code). Per stage: the pool's wall "
        "time, and summed over the 4 tasks as measured in the workers: wall, user and system "
        "CPU seconds, minor page faults. On a machine shared with other work the wall times "
        "are distorted; the CPU seconds much less.",
        "",
        "| shards | stage | workers | pool wall (s) | tasks' wall (s) | user (s) | "
        "system (s) | page faults |",
        "|---|---|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = [("Synthetic A", write_npz_shards(folder, args.rows)),
                ("Waveform", write_npz_shards(folder, args.rows, make_waveform, "waveform"))]
        for name, pattern in data:
            for workers in (1, 2):
                best = profile(pattern, workers, args.repeats, args.chunk_size)
                for stage in STAGES:
                    wall, u = best[stage]
                    lines.append(f"| 4 × {args.rows:,} {name} | {stage} | {workers} | "
                                 f"{wall:.3f} | {u['wall']:.3f} | {u['user']:.3f} | "
                                 f"{u['sys']:.3f} | {u['faults']:,} |")
                    print(lines[-1], flush=True)
    lines[0] = lines[0].replace("). Per stage", f"; {time.perf_counter() - begin:.0f} s). "
                                "Per stage", 1)
    path = write_markdown("sharded_profile.md", "Where the shard path of StreamSVM spends its "
                          "time, 1 and 2 workers", lines)
    print(path.read_text())


if __name__ == "__main__":
    main()
