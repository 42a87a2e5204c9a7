"""The Twin Vector Machine reproduces the ordering of Tables 2-5 of Wang & Vucetic (above Random
and Forgetron, close to the unbounded SVMs, accuracy growing with B) on reduced data.

Writes: benchmarks/results/tvm_tables.md, tvm_tables.json
Run: python benchmarks/budget/bench_tvm_tables.py --n-train 5000 --idsvm-seconds 10 --budgets
    20,50,100,200,500

TVM paper, Tables 2-5, reproduced (reduced) on the data we have.

For each data set (Covertype is not available offline): attributes standardised with the
training mean and deviation; RBF ``exp(-||x - y||^2 / (2 delta))`` with ``delta = K / 2``
(gamma = 1 / K), ``delta = 0.37`` on the checkerboards; polynomial ``(x.y + 1)^d``, d = 3
(7 on the checkerboards); linear ``x.y``. C = 1 on Adult, 100 elsewhere; TVM keeps
``C * sum of weights = C * B`` (the paper's rule, ``scale_C=True``: our C is SVC's per-example
C by default). Training examples in one random order (seed 0).

* Table 2: training time (CPU s) and support/twin vectors: TVM B=100, SVC (LIBSVM), IDSVM.
* Table 3 (RBF): Forgetron B=100, Random B=100, SVC, IDSVM, TVM B = 20/50/100/200/500.
* Table 3b (RBF): TVM B = 20/50/100/200/500 with C per original example (``scale_C=False``,
  today's default rule), the same C.
* Table 4 (poly, linear): Forgetron, Random, IDSVM, TVM, all B = 100.
* Table 5 (RBF, B=100): TVM default, [-1 1] (m2 = 1), [-2 2] (m1 = 2), no Rejection,
  Global merging, feature-space merging.

IDSVM runs on a CPU-time budget like the paper's (3000 s there), then reports the examples
learnt. Run: ``python benchmarks/budget/bench_tvm_tables.py [--n-train 10000] [--idsvm-seconds 20]
[--datasets banana,gauss] [--tables 3,3b,4,5]``; a run of some tables keeps the
others' results in the JSON. Writes ``benchmarks/results/tvm_tables.md``
(and ``tvm_tables.json``, updated after each data set).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from streamsvm import Forgetron, IncrementalSVM, RandomBudgetSVM, TwinVectorMachine
from streamsvm.datasets import (
    DatasetNotFoundError,
    load_dataset,
    make_checkerboard,
    make_gauss,
    make_noisy_checkerboard,
    make_waveform,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for _common
from _common import RESULTS, write_markdown  # noqa: E402

# Paper values. Table 3: Forgetron, Random, LIBSVM, IDSVM, TVM B=20, 50, 100, 200, 500
T3 = {
    "Adult": (80.7, 79.5, 84.3, 84.0, 83.0, 82.9, 82.1, 82.8, 83.7),
    "Banana": (83.7, 86.9, 90.2, 91.6, 87.5, 88.3, 89.8, 89.8, 89.9),
    "Checkerboard": (82.4, 82.9, 99.8, 99.7, 75.0, 91.3, 98.1, 98.4, 99.0),
    "N-Checkerboard": (70.3, 72.9, 96.9, 95.8, 73.3, 91.4, 97.1, 97.7, 98.8),
    "Gauss": (77.3, 78.7, 81.5, 80.7, 81.3, 81.3, 81.1, 81.4, 81.8),
    "IJCNN": (88.1, 90.3, 98.7, 98.4, 93.1, 95.8, 97.0, 97.4, 97.9),
    "Letter": (73.1, 71.9, 93.2, 95.0, 76.5, 82.5, 87.6, 90.3, 92.0),
    "Pendigits": (96.6, 93.9, 99.5, 98.7, 96.6, 98.7, 99.1, 99.1, 99.2),
    "Shuttle": (99.4, 98.3, 99.9, 99.9, 99.7, 99.6, 99.8, 99.8, 99.8),
    "USPS": (83.9, 86.8, 96.1, 96.7, 85.0, 88.5, 92.1, 93.5, 95.0),
    "Waveform": (82.5, 85.4, 87.9, 89.0, 86.9, 86.1, 87.7, 88.5, 88.8),
}
# Table 4: poly (Forgetron, Random, IDSVM, TVM), linear (Forgetron, Random, IDSVM, TVM)
T4 = {
    "Adult": (71.8, 78.1, 72.4, 81.2, 61.9, 74.4, 84.5, 81.3),
    "Banana": (61.6, 76.2, 76.3, 83.0, 48.8, 55.1, 54.2, 56.4),
    "Checkerboard": (54.1, 81.9, 99.8, 91.1, 49.8, 48.7, 49.7, 51.7),
    "N-Checkerboard": (49.2, 71.6, 69.9, 93.9, 50.0, 48.8, 49.2, 50.8),
    "Gauss": (71.4, 78.6, 80.9, 81.1, 65.7, 75.4, 76.2, 76.9),
    "IJCNN": (84.1, 88.0, 95.1, 96.9, 52.5, 89.8, 92.1, 94.2),
    "Letter": (68.5, 68.0, 88.6, 84.7, 63.9, 66.8, 72.2, 72.5),
    "Pendigits": (95.0, 93.2, 98.3, 98.8, 82.6, 85.9, 90.7, 90.1),
    "Shuttle": (93.7, 95.9, 99.9, 99.6, 86.6, 95.9, 98.1, 98.1),
    "USPS": (83.3, 86.6, 95.8, 92.8, 75.4, 78.7, 86.6, 83.8),
    "Waveform": (75.9, 78.3, 81.6, 86.6, 65.1, 79.6, 85.2, 85.3),
}
# Table 5: Default, [-1 1], [-2 2], NoRejection, Global, FeatureSpace
T5 = {
    "Adult": (82.1, 81.4, 80.5, 83.2, 82.3, 81.8),
    "Banana": (89.8, 88.7, 89.8, 90.5, 90.4, 90.3),
    "Checkerboard": (98.1, 97.3, 95.2, 97.9, 95.5, 97.4),
    "N-Checkerboard": (97.1, 97.1, 89.1, 97.2, 94.6, 96.9),
    "Gauss": (81.1, 81.2, 81.2, 81.2, 81.2, 81.2),
    "IJCNN": (97.0, 97.3, 92.1, 90.0, 95.9, 96.8),
    "Letter": (87.6, 87.5, 78.4, 78.8, 80.4, 86.9),
    "Pendigits": (99.1, 98.9, 93.0, 98.8, 98.6, 99.2),
    "Shuttle": (99.8, 99.8, 98.0, 99.8, 99.8, 99.8),
    "USPS": (92.1, 91.7, 84.3, 81.9, 91.1, 91.9),
    "Waveform": (87.7, 87.1, 83.2, 84.3, 88.1, 87.6),
}
READING = """**Reading.** Banana and Pendigits ran with up to 10,000 training examples and a 20 s
IDSVM budget (their whole training sets: 4,000 and 7,494 rows); the others with 5,000 and
10 s; the TVM times of Table 2 were measured before the last 2.6x speed-up of the TVM
bookkeeping (see tvm_checkerboard.md for current times). With at most 5,000 examples instead
of the paper's 20,000-100,000 the unbounded SVMs (SVC, IDSVM) lose a little on the generated
sets, and TVM, whose accuracy grows with the stream, loses more: on the checkerboards TVM
B=100 gives 95.4 / 94.7% against the paper's 98.1 / 97.1% (the long N-Checkerboard run
reaches 96% from 20,000 examples on). Where the training sets are small or complete (Banana,
Pendigits, USPS, Gauss), TVM matches or exceeds the paper's numbers at every budget, and
the ordering of the paper holds everywhere: TVM with B = 100 above Random and Forgetron and
close to the unbounded SVMs, accuracy growing with B. Forgetron uses the SVMs' kernel width
(the paper tuned it separately), which explains its low Checkerboard numbers. The
polynomial kernel is erratic, as the paper says: degree 7 on N-Checkerboard gives TVM 69.7%
(paper 93.9). Adult (C = 1) was run again after two changes (the other rows are from
before them; at 5,000 examples they move Table 3 by less than a point, see
tvm_c_semantics.md and the changelog): TVM merges twins of the same majority label first
(`same_label_merging`). Before it, the TVMs with B <= 100 stayed at 76.4-76.6% (the
majority rate: the few positive twins were averaged into the negative ones while f < 0
everywhere) and the polynomial TVM failed outright (23.6%); now B = 20 / 50 / 100 give
76.4 / 79.9 / 81.3% under the paper's C rule (paper 83.0 / 82.9 / 82.1) and the
polynomial TVM 79.7% (paper 81.2; RBF 81.3). Table 3b: with C = 1 per original example
(`scale_C=False`, today's default rule) Adult gives 83.3 / 83.2 / 81.8 / 83.1 / 84.0% for
B = 20 ... 500, the paper's Adult row within 0.4 point for B <= 100, which suggests the
paper's Adult runs bounded each example by C = 1 rather than keeping C Σ s at B; on the
other sets the two rules agree within a point or two at 5,000 examples (the per-example
rule is lower on N-Checkerboard with B <= 100, where C = 100 per example overfits). In
Table 5 the heuristics differ less than in the paper at these stream lengths; the paper's
large drops of [-2 2] and NoRejection were not reproduced on
Pendigits."""

VARIANTS = {
    "Default": {},
    "[-1 1]": {"m2": 1.0},
    "[-2 2]": {"m1": 2.0},
    "NoRejection": {"rejection": False},
    "Global": {"one_sided": False},
    "FeatureSpace": {"merging": "feature"},
}


def named(name):
    def load(n_train):
        X, y = load_dataset(name)
        Xt, yt = load_dataset(name, subset="test")
        return X, y, Xt, yt

    return load


def generated(make, clean_test=None):
    def load(n_train):
        X, y = make(n_train, 0)
        Xt, yt = (clean_test or make)(5000, 1)
        return X, y, Xt, yt

    return load


DATASETS = {
    "Adult": named("adult"),
    "Banana": named("banana"),
    "Checkerboard": generated(lambda n, s: make_checkerboard(n, random_state=s)),
    "N-Checkerboard": generated(lambda n, s: make_noisy_checkerboard(n, random_state=s),
                                lambda n, s: make_checkerboard(n, random_state=s)),
    "Gauss": generated(lambda n, s: make_gauss(n, random_state=s)),
    "IJCNN": named("ijcnn1"),
    "Letter": named("letter-am-vs-nz"),
    "Pendigits": named("pendigits-round"),
    "Shuttle": named("shuttle-1vrest"),
    "USPS": named("usps-round"),
    "Waveform": generated(lambda n, s: (lambda X, y: (X, np.where(y == 0, 1, -1)))(
        *make_waveform(n, random_state=s))),
}
CHECKER = ("Checkerboard", "N-Checkerboard")


def prepare(name, n_train):
    X, y, Xt, yt = DATASETS[name](n_train)
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    Xt = Xt.toarray() if hasattr(Xt, "toarray") else np.asarray(Xt, dtype=float)
    order = np.random.default_rng(0).permutation(X.shape[0])[:n_train]
    X, y = X[order], np.asarray(y)[order]
    keep = np.random.default_rng(1).permutation(Xt.shape[0])[:20_000]  # test rows, at most
    Xt, yt = Xt[keep], np.asarray(yt)[keep]
    scaler = StandardScaler().fit(X)
    return scaler.transform(X), y, scaler.transform(Xt), yt


def kernels(name, n_features):
    checker = name in CHECKER
    return {
        "rbf": {"kernel": "rbf", "gamma": 1 / (2 * 0.37) if checker else 1.0 / n_features},
        "poly": {"kernel": "poly", "gamma": 1.0, "coef0": 1.0, "degree": 7 if checker else 3},
        "linear": {"kernel": "linear"},
    }


def timed_fit(model, X, y):
    start = time.process_time()
    model.fit(X, y)
    return model, time.process_time() - start


def idsvm_on_budget(params, C, X, y, Xt, yt, seconds):
    model = IncrementalSVM(C=C, **params)
    start = time.process_time()
    learnt = 0
    for lo in range(0, X.shape[0], 200):
        model.partial_fit(X[lo : lo + 200], y[lo : lo + 200], classes=np.unique(y))
        learnt = min(lo + 200, X.shape[0])
        if time.process_time() - start > seconds:
            break
    return {"acc": 100 * model.score(Xt, yt), "cpu": time.process_time() - start,
            "learnt": learnt, "n_sv": int(model.n_support_.sum()), "complete": learnt == X.shape[0]}


def run_dataset(name, args):
    X, y, Xt, yt = prepare(name, args.n_train)
    C = 1.0 if name == "Adult" else 100.0
    ks = kernels(name, X.shape[1])
    out = {"n_train": int(X.shape[0]), "n_test": int(Xt.shape[0]), "C": C}
    rbf = ks["rbf"]
    acc = lambda m: 100 * m.score(Xt, yt)  # noqa: E731
    if 2 in args.tables or 3 in args.tables:
        start = time.process_time()
        svc = SVC(C=C, cache_size=500, **rbf).fit(X, y)
        out["svc"] = {"acc": 100 * svc.score(Xt, yt), "cpu": time.process_time() - start,
                      "n_sv": int(svc.n_support_.sum())}
        out["idsvm_rbf"] = idsvm_on_budget(rbf, C, X, y, Xt, yt, args.idsvm_seconds)
        out["forgetron_rbf"] = acc(Forgetron(budget=100, **rbf).fit(X, y))
        out["random_rbf"] = acc(RandomBudgetSVM(budget=100, C=C, random_state=0, **rbf).fit(X, y))
        out["tvm_rbf"] = {}
        for budget in args.budgets:
            model, cpu = timed_fit(TwinVectorMachine(budget=budget, C=C, scale_C=True, **rbf),
                                   X, y)
            out["tvm_rbf"][budget] = {"acc": acc(model), "cpu": cpu, "n_tv": model.n_twins_,
                                      "merges": model.n_merges_}
            print(name, "TVM", budget, out["tvm_rbf"][budget], flush=True)
    if "3b" in args.tables:  # C per original example (today's default rule)
        out["tvm_rbf_per_example"] = {}
        for budget in args.budgets:
            model = TwinVectorMachine(budget=budget, C=C, **rbf).fit(X, y)
            out["tvm_rbf_per_example"][budget] = acc(model)
        print(name, "TVM per example", out["tvm_rbf_per_example"], flush=True)
    if 4 in args.tables:
        for kname in ("poly", "linear"):
            params = ks[kname]
            out[f"forgetron_{kname}"] = acc(Forgetron(budget=100, **params).fit(X, y))
            out[f"random_{kname}"] = acc(RandomBudgetSVM(budget=100, C=C, random_state=0,
                                                         **params).fit(X, y))
            out[f"idsvm_{kname}"] = idsvm_on_budget(params, C, X, y, Xt, yt, args.idsvm_seconds)
            out[f"tvm_{kname}"] = acc(TwinVectorMachine(budget=100, C=C, scale_C=True,
                                                        **params).fit(X, y))
            print(name, kname, out[f"tvm_{kname}"], flush=True)
    if 5 in args.tables:
        out["variants"] = {}
        for label, extra in VARIANTS.items():
            if label == "Default" and "tvm_rbf" in out and 100 in out["tvm_rbf"]:
                out["variants"][label] = out["tvm_rbf"][100]["acc"]
                continue
            model = TwinVectorMachine(budget=100, C=C, scale_C=True, **rbf, **extra).fit(X, y)
            out["variants"][label] = acc(model)
        print(name, "variants", out["variants"], flush=True)
    return out


def fmt(value):
    return "–" if value is None else f"{value:.1f}"


def report(results, args):
    lines = [
        f"Reduced reproduction: at most {args.n_train:,} training examples per data set (the "
        "paper: 100,000 for the generated sets, IJCNN 49,990, Adult 21,048, Shuttle "
        "42,603), one random order instead of 5 repetitions, IDSVM stopped after "
        f"{args.idsvm_seconds:.0f} CPU s instead of 3000 s. Covertype is not available. "
        "test sets of more than 20,000 rows (Adult, IJCNN) subsampled to 20,000. "
        "CPU seconds on one core of a shared machine. Ours / paper.",
        "",
        "## Table 2: training time (CPU s) and number of SVs / TVs (RBF)",
        "",
        "| data | n train | TVM B=100 s | SVC s | IDSVM s (learnt) | TVM TVs | SVC SVs "
        "| IDSVM SVs | paper TVM s / LIBSVM s / IDSVM s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    paper_t2 = {"Adult": "230 / 395 / *", "Banana": "21 / 1 / 54",
                "Checkerboard": "1406 / 112 / *", "N-Checkerboard": "1778 / 3604 / *",
                "Gauss": "774 / 3940 / *", "IJCNN": "122 / 231 / *", "Letter": "138 / 5 / *",
                "Pendigits": "33 / 2 / 168", "Shuttle": "11 / 5 / 601",
                "USPS": "186 / 24 / 1621", "Waveform": "304 / 38673 / *"}
    for name, r in results.items():
        if "svc" not in r:
            continue
        t, s, i = r["tvm_rbf"].get(100) or r["tvm_rbf"].get("100"), r["svc"], r["idsvm_rbf"]
        star = "" if i["complete"] else f" (*{i['learnt']:,})"
        lines.append(f"| {name} | {r['n_train']:,} | {t['cpu']:.1f} | {s['cpu']:.1f} | "
                     f"{i['cpu']:.1f}{star} | {t['n_tv']} | {s['n_sv']} | {i['n_sv']} | "
                     f"{paper_t2[name]} |")
    lines += [
        "",
        "## Table 3: accuracy (%) with the RBF kernel, ours / paper",
        "",
        "| data | Forgetron 100 | Random 100 | SVC | IDSVM | TVM 20 | TVM 50 | TVM 100 "
        "| TVM 200 | TVM 500 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        if "svc" not in r:
            continue
        p = T3[name]
        tv = r["tvm_rbf"]
        cells = [r["forgetron_rbf"], r["random_rbf"], r["svc"]["acc"], r["idsvm_rbf"]["acc"]]
        cells += [(tv.get(b) or tv.get(str(b)) or {}).get("acc") for b in (20, 50, 100, 200, 500)]
        row = [f"{fmt(c)} / {pv}" for c, pv in zip(cells, p, strict=True)]
        if not r["idsvm_rbf"]["complete"]:
            row[3] += f" (*{r['idsvm_rbf']['learnt']:,})"
        lines.append(f"| {name} | " + " | ".join(row) + " |")
    lines += [
        "",
        "## Table 3b: TVM with C per original example (`scale_C=False`, today's default "
        "rule; same C), ours / paper",
        "",
        "| data | TVM 20 | TVM 50 | TVM 100 | TVM 200 | TVM 500 |",
        "|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        per = r.get("tvm_rbf_per_example")
        if not per:
            continue
        cells = [per.get(b) or per.get(str(b)) for b in (20, 50, 100, 200, 500)]
        row = [f"{fmt(c)} / {pv}" for c, pv in zip(cells, T3[name][4:], strict=True)]
        lines.append(f"| {name} | " + " | ".join(row) + " |")
    lines += [
        "",
        "## Table 4: accuracy (%) with polynomial and linear kernels, B = 100, ours / paper",
        "",
        "| data | poly Forgetron | poly Random | poly IDSVM | poly TVM | lin Forgetron "
        "| lin Random | lin IDSVM | lin TVM |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        if "tvm_poly" not in r:
            continue
        cells = []
        for k in ("poly", "linear"):
            i = r[f"idsvm_{k}"]
            star = "" if i["complete"] else f" (*{i['learnt']:,})"
            cells += [fmt(r[f"forgetron_{k}"]), fmt(r[f"random_{k}"]), fmt(i["acc"]) + star,
                      fmt(r[f"tvm_{k}"])]
        row = [f"{c} / {pv}" for c, pv in zip(cells, T4[name], strict=True)]
        lines.append(f"| {name} | " + " | ".join(row) + " |")
    lines += [
        "",
        "## Table 5: TVM heuristics (RBF, B = 100), ours / paper",
        "",
        "| data | " + " | ".join(VARIANTS) + " |",
        "|---|" + "---|" * len(VARIANTS),
    ]
    for name, r in results.items():
        if "variants" not in r:
            continue
        row = [f"{fmt(r['variants'].get(v))} / {pv}" for v, pv in zip(VARIANTS, T5[name],
                                                                       strict=True)]
        lines.append(f"| {name} | " + " | ".join(row) + " |")
    lines += ["", READING]
    lines += ["", "Run: `python benchmarks/budget/bench_tvm_tables.py "
              f"--n-train {args.n_train} "
              f"--idsvm-seconds {args.idsvm_seconds:g} --budgets "
              f"{','.join(map(str, args.budgets))}`", ""]
    write_markdown("tvm_tables.md", "TVM paper, Tables 2-5 (reduced)", lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-train", type=int, default=10_000)
    parser.add_argument("--idsvm-seconds", type=float, default=20.0)
    parser.add_argument("--budgets", default="20,50,100,200,500")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--tables", default="2,3,3b,4,5")
    args = parser.parse_args()
    args.budgets = [int(b) for b in args.budgets.split(",")]
    args.tables = {t if t == "3b" else int(t) for t in args.tables.split(",")}
    path = RESULTS / "tvm_tables.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    for name in filter(None, args.datasets.split(",")):
        try:
            results[name] = {**results.get(name, {}), **run_dataset(name, args)}
        except DatasetNotFoundError as error:
            print(f"skipping {name}: {error}")
            continue
        path.write_text(json.dumps(results, indent=1, default=str))
        report(results, args)
    report(results, args)  # ``--datasets ""`` only rewrites the report from the JSON


if __name__ == "__main__":
    main()
