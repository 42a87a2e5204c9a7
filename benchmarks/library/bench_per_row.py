"""Pegasos and Perceptron at their defaults, per row (predict_one, learn_one), vs River.

Writes: benchmarks/results/per_row.md, per_row_profile_after.md
Run: python benchmarks/library/bench_per_row.py

River's way, ``predict_one`` then ``learn_one`` for every row, as River's progressive
evaluation does (issue 19 item 7; issue 38 asks Pegasos and the Perceptron at their defaults
for >= 1.5x River's Perceptron), on two streams:

* River's Phishing (1,250 rows of 9 numeric features, bundled with River), raw values;
* Adult a9a as sparse dicts (each row a dict of its non-zero features, about 14 of 123;
  the first ``--adult-rows`` rows, default 10,000, of ``adult.trn.bz2`` from
  ``$STREAMSVM_DATA``; labels ``True`` for +1, as River's binary models predict).

Rows per CPU second (``time.process_time``; the best of ``--repeats`` passes, default 5, each
with a fresh model, the contenders in turn, after one untimed pass that compiles) and the
progressive accuracy, for our Pegasos, Perceptron and LASVM (the acceptance), the
last-iterate models beside them (``Pegasos(average=False)``, ``Perceptron(average=False)``:
the defaults before the averaged iterates, named as such), and River's Perceptron,
LogisticRegression and PAClassifier, all in one process.
``general path`` rows run the same estimator with the per-row fast path switched off
(:data:`streamsvm.input.row_path.ENABLED`), i.e. the path of before this work.

``--profile`` instead runs cProfile on 20,000 rows of Phishing (the stream repeated) for
Pegasos, Perceptron and LASVM and writes the top functions by own time to
``benchmarks/results/per_row_profile_after.md`` (``per_row_profile_before.md`` holds the
same run before this work).

About two minutes on an idle machine. The page gives the machine's load average beside the
ratios.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import itertools
import os
import pathlib
import pstats
import re
import sys
import time
from pathlib import Path

from river import datasets, linear_model
from sklearn.datasets import load_svmlight_file

import streamsvm
from streamsvm.input import row_path as _row_path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for _common
from _common import write_markdown  # noqa: E402


def phishing_rows():
    return list(datasets.Phishing())


def adult_rows(n: int):
    path = pathlib.Path(os.environ.get("STREAMSVM_DATA", "")) / "adult.trn.bz2"
    X, y = load_svmlight_file(str(path), n_features=123, zero_based=True)
    X = X[:n].tocsr()
    rows = []
    for i in range(X.shape[0]):
        start, stop = X.indptr[i], X.indptr[i + 1]
        rows.append(({f"f{j}": float(v) for j, v in zip(X.indices[start:stop],
                                                         X.data[start:stop], strict=True)},
                      bool(y[i] > 0)))
    return rows


#: the models of before the averaged defaults (the last iterate), timed beside the defaults
LAST_ITERATE = {"Pegasos": "Pegasos(average=False)", "Perceptron": "Perceptron(average=False)"}

PROFILE_NOTE = ("`python benchmarks/library/bench_per_row.py --profile`: cProfile (its own clock, "
                "wall time under load; only the ratios mean anything), top functions by own "
                "time. The compiled calls appear as single entries.")

PROFILE_SUMMARY = [
    "## Profile, before and after",
    "",
    "cProfile on 20,000 rows of Phishing (the stream repeated), River's loop "
    "([before](per_row_profile_before.md), [after](per_row_profile_after.md)). Before, each "
    "row went through `vocabulary.row` (a `feature_value` call per key, a one-row SciPy CSR "
    "matrix built twice: for `predict_one` and for `learn_one`), scikit-learn's and our "
    "`check_features`, `np.unique`/`np.isin` on the one label, and `decision_function` twice "
    "(the prediction and the calibration score); LASVM also rebuilt the CSR matrix of its "
    "support vectors for every prediction. After, what is left is the Python of the row "
    "path itself (`RowState.predict` / `learn`: one tuple of keys, the values packed into "
    "one `bytes`, on a new key set the columns joined from per-key packed int64, a label "
    "lookup) and one compiled call per `predict_one` and at most one per `learn_one` (none "
    "where the Perceptron makes no mistake or a Pegasos step only shrinks w). New keys "
    "(sparse dicts) and a fresh model's second label are learnt on the row path too; a "
    "fresh model's first row still takes the general path (about 0.5 ms). The Perceptron "
    "and Pegasos widen their weight vectors themselves (`widen_features`) rather than "
    "through two fresh learners per new-key row (about 100 us each; 10-13% of an Adult "
    "pass before). What remains between Pegasos and the Perceptron is Pegasos's step on "
    "every row (the Perceptron does nothing without a mistake): about 0.3 us of Python "
    "where the step only shrinks w, one compiled call (about 0.6 us) where it updates. "
    "Since then (issue 19's last per-row work) the compiled steps are called through "
    "their numba entry points (numba's type dispatch cost about 0.4 us a call), "
    "`learn_one`'s calibration bookkeeping is one tuple appended per row (it was "
    "five appends and three counters, and a flush of the waiting rows at each new "
    "key of a sparse stream), Pegasos skips the projection's square roots well "
    "inside the ball, and LASVM's row step runs at `n_jobs`' thread count (it ran "
    "at every core: parallel regions per row past ~3,000 columns of S). Issue 38 "
    "(defaults): the linear learners' steps take one int64 block of the row state (a "
    "header naming the weights, the scratch, the schema's columns) by its address, where a "
    "compiled call's integer argument costs about 30 ns, an array 150 and bytes 190 "
    "(Pegasos's decision call 784 -> ~450 ns); `learn_one` checks the dict unchanged since "
    "`predict_one` against a copy (`x == copy`, 0.3 us; it repacked the values and rebuilt "
    "the key tuple, 0.9 us); the row path runs the collapse guard every 2,048 rows (every "
    "256 it cost 0.33 us a row and wrote the calibration list out early). What remains: "
    "the calibration's bookkeeping, 1.1-1.2 us a row (`record_learnt_row` and its list "
    "written every 256 rows; with it stubbed out, the Perceptron ran at 1.63x River's "
    "Perceptron and Pegasos at 1.19x, load 8), two Python frames per call (the estimator's "
    "and the row state's), and Pegasos's step on every row (1.5 us a row more than the "
    "Perceptron: scalar Python where the margin is at least 1, a compiled call on 36% of "
    "Phishing's rows). Issue 38 item 2: the calibration's bookkeeping is now four references "
    "added to a flat list per row (inline in the row state), counted and written out only "
    "when read (probabilities, a save, every 2,048 rows for the collapse guard: under 0.1 us "
    "a row then), 0.8-0.9 us a row less. Since the averaged iterates became the defaults "
    "(issue 38 item 3: `average=True`), `Pegasos` and `Perceptron` run their own averaged "
    "per-row steps (`linear/_avg_row_core.py`); the `(average=False)` rows are the "
    "last-iterate models on the block-address steps above. The averaged steps first took "
    "5-7 arrays per call (about 150 ns each) and made a compiled call on every row; now "
    "(issue 38, per-row at the defaults) the block's header also names the averaged sums "
    "and the column factors, so the decision (`*_avg_decision_at`) and the step after it "
    "(`*_avg_learn_at`) take the block's address and three scalars, a row without an "
    "update is learnt in Python (the Perceptron's row counter; Pegasos's shrink, "
    "projection and the sums' scalars, the projection's square roots skipped well inside "
    "the ball), the margin is read through a memoryview of the scratch, and `predict_one` "
    "tests its schema once. Measured piece by piece (timeit, Phishing rows, load 2-4): "
    "`predict_one` about 1.7-2.0 us, of which the averaged decision call 0.4-0.6 us (0.9-1.2 "
    "with the arrays), `pack(*x.values())` 0.33, `tuple(x)` 0.14, the dict's copy for "
    "`learn_one`'s check 0.09; Pegasos's compiled step on the 33% of Phishing's rows it "
    "updates 0.5-0.8 us (the Perceptron's on its 17% of mistakes about 0.5). What remains "
    "is Python: six frames per row (the estimator's, the row state's and the learner's, "
    "for each of the two calls) and the attribute reads and writes of the learner's scalars; "
    "a fresh model's first rows (general path, column factors from the first chunk, the "
    "calibrator and the row state made) cost about 0.6-1.3 ms, 0.5-1 us a row of a "
    "1,250-row pass.",
]


def contenders():
    yield "Pegasos", streamsvm.Pegasos, True
    yield "Perceptron", streamsvm.Perceptron, True
    yield "LASVM", streamsvm.LASVM, True
    yield LAST_ITERATE["Pegasos"], lambda: streamsvm.Pegasos(average=False), True
    yield LAST_ITERATE["Perceptron"], lambda: streamsvm.Perceptron(average=False), True
    yield "Pegasos (general path)", streamsvm.Pegasos, False
    yield "Perceptron (general path)", streamsvm.Perceptron, False
    yield "LASVM (general path)", streamsvm.LASVM, False
    yield "River Perceptron", linear_model.Perceptron, True
    yield "River LogisticRegression", linear_model.LogisticRegression, True
    yield "River PAClassifier", linear_model.PAClassifier, True


def one_pass(make, rows, fast: bool):
    """``(CPU seconds, progressive accuracy)`` of predict_one then learn_one on each row."""
    _row_path.ENABLED = fast
    try:
        model = make()
        correct = 0
        start = time.process_time()
        for x, y in rows:
            correct += model.predict_one(x) == y
            model.learn_one(x, y)
        seconds = time.process_time() - start
    finally:
        _row_path.ENABLED = True
    return seconds, correct / len(rows)


def measure(rows, repeats: int):
    """Best of ``repeats`` passes per contender, the contenders taken in turn within each
    round (so a change of the machine's load falls on all of them alike)."""
    found = {name: (float("inf"), None) for name, _, _ in contenders()}
    for _, make, fast in contenders():
        one_pass(make, rows[:200], fast)  # compile / warm up
    for _ in range(repeats):
        for name, make, fast in contenders():
            found[name] = min(found[name], one_pass(make, rows, fast),
                              key=lambda result: result[0])
    results = {}
    for name, (best, accuracy) in found.items():
        results[name] = (len(rows) / best, accuracy)
        print(f"  {name}: {len(rows) / best:,.0f} rows/s, accuracy {accuracy:.2%}", flush=True)
    return results


def profile(n_rows: int = 20_000, top: int = 12) -> list[str]:
    rows = list(itertools.islice(itertools.cycle(phishing_rows()), n_rows))
    lines = []
    for name, make in (("Pegasos", streamsvm.Pegasos), ("Perceptron", streamsvm.Perceptron),
                       ("LASVM", streamsvm.LASVM)):
        one_pass(make, rows[:200], True)
        profiler = cProfile.Profile()
        profiler.enable()
        seconds, _ = one_pass(make, rows, True)
        profiler.disable()
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out).sort_stats("tottime")
        stats.print_stats(top)
        lines += [f"### {name}: {n_rows:,} rows of Phishing, {seconds:.2f} CPU s under cProfile",
                  "", "```", *_trim(out.getvalue()), "```", ""]
    return lines


def _trim(text: str) -> list[str]:
    keep = []
    for line in text.splitlines():
        if "function calls" in line or line.strip().startswith(("ncalls",)) or \
                line[:1] == " " and line.strip() and line.strip()[0].isdigit():
            keep.append(re.sub(r"\S*/(src/streamsvm|site-packages)/", r"\1/", line.rstrip()))
    return keep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adult-rows", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    if args.profile:
        lines = profile()
        print("\n".join(lines))
        write_markdown("per_row_profile_after.md", "Profile of the dict path after the per-row "
                       "work (issue 19 item 7)", [PROFILE_NOTE, "", *lines])
        return
    load = os.getloadavg()[0]
    streams = {"Phishing": phishing_rows(), f"Adult as dicts ({args.adult_rows:,} rows)":
               adult_rows(args.adult_rows)}
    table = {}
    for stream, rows in streams.items():
        print(stream, flush=True)
        table[stream] = measure(rows, args.repeats)
    names = list(next(iter(table.values())))
    lines = ["Rows per CPU second (predict_one then learn_one per row, best of "
             f"{args.repeats}) and progressive accuracy; every estimator at its defaults. Load "
             f"average (1 min) at the start: {load:.1f}, at the end: "
             f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.", "",
             "Run: `python benchmarks/library/bench_per_row.py"
             + (f" --repeats {args.repeats}" if args.repeats != 5 else "") + "`", "",
             "| estimator | " + " | ".join(f"{s} rows/s | accuracy" for s in table) + " |",
             "|---|" + "---:|---:|" * len(table)]
    for name in names:
        cells = " | ".join(f"{table[s][name][0]:,.0f} | {table[s][name][1]:.2%}" for s in table)
        lines.append(f"| {name} | {cells} |")
    lines += ["", "Ratios to River's Perceptron in the same process (goals: issue 38's, "
              "Pegasos and Perceptron >= 1.5 on both streams; issue 19's, LASVM >= 3x its "
              "general path's 6,700 rows/s of an idle machine, i.e. >= 0.094 of River's "
              "Perceptron's 214,000):", ""]
    for stream in table:
        river = table[stream]["River Perceptron"][0]
        ratios = ", ".join(f"{n} {table[stream][n][0] / river:.3f}"
                           for n in ("Pegasos", "Perceptron", "LASVM", *LAST_ITERATE.values()))
        lines.append(f"- {stream}: {ratios}")
    lines += ["", "CPU times on a machine shared with other work; rerun on an idle machine "
              "for absolute numbers (`python benchmarks/library/bench_per_row.py`).", "",
              *PROFILE_SUMMARY]
    write_markdown("per_row.md", "Per-row speed of the dict path (River's way)", lines)


if __name__ == "__main__":
    main()
