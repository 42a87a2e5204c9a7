"""The share of examples that the Twin Vector Machine's Beneficial test keeps falls as the stream
grows (Wang & Vucetic, Sec. 4.4), under each C rule.

Writes: benchmarks/results/tvm_beneficial.md
Run: python benchmarks/budget/bench_tvm_beneficial.py

Twin Vector Machine: the share of examples that Beneficial keeps, by C rule.

The paper (Sec. 4.4) says the share n/N of examples within the margin "decreases with N"
because the margin shrinks as the stream grows; our long N-Checkerboard run keeps about
22% all along (``tvm_checkerboard.md``). This measures the share per segment of a
50,000-example N-Checkerboard stream (15% of labels flipped, standardised, B = 100, RBF
gamma = 1.35, C = 100) under the paper's C rule (``scale_C=True``: ``C_t Σ s = C B``, so
the bound per example falls as ``1 / N`` and the margin cannot shrink), under C fixed per
example (``scale_C=False``), and with the paper's merging, with the test accuracy on 5,000
clean checkerboard points.

Run: ``python benchmarks/budget/bench_tvm_beneficial.py``. Writes
``benchmarks/results/tvm_beneficial.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from streamsvm import TwinVectorMachine
from streamsvm.datasets import make_checkerboard, make_noisy_checkerboard

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for _common
from _common import write_markdown  # noqa: E402

STOPS = (1000, 5000, 10_000, 20_000, 50_000)
CONFIGS = {
    "paper's C rule, same-label merging": {"scale_C": True},
    "C per example, same-label merging": {"scale_C": False},
    "paper's C rule and merging": {"scale_C": True, "same_label_merging": False},
}


def main():
    X, y = make_noisy_checkerboard(STOPS[-1], random_state=0, standardize=True)
    Xt, yt = make_checkerboard(5000, random_state=1, standardize=True)
    lines = [
        "Share of each segment's examples kept by Beneficial (`|f(x)| <= 1`) and test "
        "accuracy (%) at its end; method: the script's docstring.",
        "",
        "| rule | " + " | ".join(f"{a:,}-{b:,}" for a, b in zip((0,) + STOPS[:-1], STOPS,
                                                                  strict=True)) + " |",
        "|---|" + "---|" * len(STOPS),
    ]
    for label, params in CONFIGS.items():
        model = TwinVectorMachine(budget=100, C=100.0, gamma=1.35, **params)
        cells, last = [], 0
        for stop in STOPS:
            kept = model.n_beneficial_ if last else 0
            model.partial_fit(X[last:stop], y[last:stop], classes=[-1, 1])
            share = (model.n_beneficial_ - kept) / (stop - last)
            cells.append(f"{100 * share:.1f}% / {100 * model.score(Xt, yt):.2f}")
            last = stop
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    lines += ["", READING, "", "Run: `python benchmarks/budget/bench_tvm_beneficial.py`", ""]
    write_markdown("tvm_beneficial.md", "TVM: the Beneficial share by C rule", lines)


READING = """**Reading.** Under the paper's C rule the share stays near 20% (the 22% of the long
run): C_t falls as 1 / N, so the SVM's margin does not shrink and as many examples fall
inside it. With C fixed per example the share falls as the paper describes (29% of the
first thousand, about 9% by 50,000): the paper's statement matches a fixed C, not the rule
its Sec. 4.3 gives. That is a measured explanation, not a change: a fixed C = 100 per example
overfits the noisy stream as it grows (the accuracy turns down after 20,000 examples), which
is what the paper's rule prevents; the paper's own settings keep the rule."""


if __name__ == "__main__":
    main()
