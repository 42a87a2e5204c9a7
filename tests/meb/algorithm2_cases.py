"""The Algorithm 2 (lookahead) models recorded before its buffers' balls moved into one
compiled loop: the cases, and how each is learnt (``python -m tests.meb.algorithm2_cases``
writes ``algorithm2_before.json`` with the installed streamsvm; the committed file was
written by commit a6f5244, whose lookahead solved each buffer's ball with the exact
active-set solver to ``tol=1e-8``)."""

import json
import pathlib

import numpy as np
import scipy.sparse as sp

from streamsvm import StreamSVM
from streamsvm.datasets import make_synthetic_c

RECORDED = pathlib.Path(__file__).with_name("algorithm2_before.json")


def generated(rows: int, d: int = 100, seed: int = 0):
    """The dense stream of ``benchmarks/streamsvm/bench_linear_vs_sgd.py`` (shifted Gaussian
    rows)."""
    rng = np.random.default_rng(seed)
    direction = rng.normal(size=d)
    X = rng.normal(size=(rows, d)) + 0.5
    y = np.where(X @ direction + rng.normal(size=rows) > 0.5 * direction.sum(), 1, -1)
    return X, y


def sparse_stream(seed: int = 3, n: int = 2000):
    """Shifted synthetic rows with 40% zeros, as CSR."""
    X, y = make_synthetic_c(n, random_state=seed)
    rng = np.random.default_rng(seed)
    return sp.csr_matrix((X + 3.0) * (rng.random(X.shape) < 0.6)), y


def cases() -> dict:
    """``name: (make model, X, y, chunk or None for fit)``."""
    Xc, yc = make_synthetic_c(3000, random_state=1)
    Xg, yg = generated(20_000)
    Xs, ys = sparse_stream()
    return {
        "synthetic_c_L10_fit": (lambda: StreamSVM(lookahead=10), Xc, yc, None),
        "synthetic_c_L300_chunks": (lambda: StreamSVM(), Xc, yc, 1000),
        "generated_default_fit": (lambda: StreamSVM(), Xg, yg, None),
        "sparse_L50_C2_chunks": (lambda: StreamSVM(lookahead=50, C=2.0), Xs, ys, 700),
        "sparse_L300_fit": (lambda: StreamSVM(), Xs, ys, None),
    }


def learn(make, X, y, chunk):
    model = make()
    if chunk is None:
        return model.fit(X, y)
    for start in range(0, X.shape[0], chunk):
        model.partial_fit(X[start : start + chunk], y[start : start + chunk], classes=[-1, 1])
    return model.finish()


def record() -> dict:
    out = {}
    for name, (make, X, y, chunk) in cases().items():
        model = learn(make, X, y, chunk)
        out[name] = {"coef": model.coef_.ravel().tolist(), "radius": model.radius_,
                     "n_core_vectors": int(model.n_core_vectors_),
                     "accuracy": float(model.score(X, y))}
    return out


if __name__ == "__main__":
    RECORDED.write_text(json.dumps(record(), indent=1) + "\n")
