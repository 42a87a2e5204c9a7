"""The binary problems of the defaults study: shapes a new user meets, not the papers' settings.

Each problem gives a training part in the order of its source ("file order") and a test part.
The sources are the papers' data files (``STREAMSVM_DATA``), scikit-learn's bundled tables
(``load_*``, no download) and the library's seeded generators. Large sources are cut to
``n_train`` training rows and ``n_test`` test rows drawn with a fixed seed and kept in file
order; sources without a published
split are split with a fixed seed, the training rows kept in their original order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from streamsvm.datasets import dataset_available, generators, load_dataset

__all__ = ["Problem", "PROBLEMS", "get_problems"]

SPLIT_SEED = 0


@dataclass(frozen=True)
class Problem:
    """One binary problem: where it comes from and what shape it has.

    ``source`` is ``"data:<dataset>"`` (:func:`streamsvm.datasets.load_dataset`),
    ``"sklearn:<loader>"`` or ``"gen:<generator>"``. ``sparse`` problems keep CSR input and are
    scaled without centring (``StandardScaler(with_mean=False)``); ``shape`` is the line the
    table prints (size, dimension, balance, linear or not).
    """

    name: str
    source: str
    shape: str
    n_train: int = 3000
    n_test: int = 2000
    sparse: bool = False

    @property
    def available(self) -> bool:
        kind, _, what = self.source.partition(":")
        return kind != "data" or dataset_available(what)

    def load(self, *, n_train=None, n_test=None):
        """``(X_train, y_train, X_test, y_test)``, labels ±1, training rows in file order."""
        n_train = min(n_train or self.n_train, self.n_train)
        n_test = min(n_test or self.n_test, self.n_test)
        kind, _, what = self.source.partition(":")
        if kind == "data":
            X, y = load_dataset(what, subset="train")
            Xt, yt = load_dataset(what, subset="test")
            X, y = _seeded_rows(X, y, n_train)
            Xt, yt = _seeded_rows(Xt, yt, n_test)
        elif kind == "gen":
            X, y = getattr(generators, what)(n_train + n_test, random_state=SPLIT_SEED)
            X, y, Xt, yt = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
        else:
            X, y = _SKLEARN[what]()
            X, y, Xt, yt = _seeded_split(X, y, n_train, n_test)
        if not self.sparse:
            X = X.toarray() if sp.issparse(X) else X
            Xt = Xt.toarray() if sp.issparse(Xt) else Xt
        return X, np.asarray(y), Xt, np.asarray(yt)


def _seeded_rows(X, y, n):
    """``n`` rows drawn with a fixed seed, kept in file order (some files are ordered by
    label in places: w3a's first 3,000 training rows are 45% positive, the file 3%)."""
    if n >= len(y):
        return X, y
    rows = np.sort(np.random.default_rng(SPLIT_SEED).choice(len(y), n, replace=False))
    return X[rows], y[rows]


def _seeded_split(X, y, n_train, n_test):
    """A seeded split of a table without a published one (test share 30%, at most the caps);
    the training rows keep their order in the table."""
    rng = np.random.default_rng(SPLIT_SEED)
    order = rng.permutation(len(y))
    n_test_rows = min(n_test, int(round(0.3 * len(y))))
    test = np.sort(order[:n_test_rows])
    train = np.sort(order[n_test_rows:])[:n_train]
    return X[train], y[train], X[test], y[test]


def _breast_cancer():
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    return data.data, np.where(data.target == 0, 1, -1)  # +1 = malignant (37%)


def _digits_zero():
    from sklearn.datasets import load_digits

    data = load_digits()
    return data.data, np.where(data.target == 0, 1, -1)  # +1 = digit 0 (10%)


def _diabetes_high():
    from sklearn.datasets import load_diabetes

    data = load_diabetes()
    return data.data, np.where(data.target > 250, 1, -1)  # +1 = progression > 250 (15%)


_SKLEARN = {
    "breast_cancer": _breast_cancer,
    "digits_zero": _digits_zero,
    "diabetes_high": _diabetes_high,
}

PROBLEMS: dict[str, Problem] = {
    p.name: p
    for p in [
        Problem("breast-cancer", "sklearn:breast_cancer",
                "small (398), 30-d, 1:1.7, near linear"),
        Problem("digits-0", "sklearn:digits_zero", "small (1,258), 64-d, 1:9, digit 0 vs rest"),
        Problem("diabetes-high", "sklearn:diabetes_high",
                "small (309), 10-d, 1:5.8, noisy clinical table"),
        Problem("abalone-7", "data:abalone-7", "medium (3,000), 8-d, 1:10, hard, overlapping"),
        Problem("adult", "data:adult", "medium (3,000 of 32,561), 123-d binary, 1:3.2"),
        Problem("ijcnn1", "data:ijcnn1", "medium (3,000 of 49,990), 22-d, 1:9.4, non-linear"),
        Problem("w3a", "data:w3a", "medium (3,000 of 44,837), 300-d binary, 1:33"),
        Problem("reuters-moneyfx", "data:reuters-moneyfx",
                "medium (3,000 of 7,770), 8,315-d sparse text, 1:18", sparse=True),
        Problem("mnist-8v9", "data:mnist-8v9", "medium (3,000 of 11,800), 784-d, 1:1"),
        Problem("letter-a", "data:letter-a-vs-rest",
                "medium (3,000 of 18,000), 16-d, 1:25, non-linear"),
        Problem("shuttle", "data:shuttle-1vrest", "medium (3,000 of 43,500), 9-d, 3.8:1"),
        Problem("waveform", "data:waveform-0vrest", "medium (3,000 of 4,000), 21-d, 1:2, noisy"),
        Problem("banana", "data:banana", "medium (3,000 of 4,000), 2-d, 1:1.2, non-linear"),
        Problem("checkerboard", "gen:make_checkerboard",
                "medium (3,000), 2-d, 1:1, 4x4 checkerboard (generated)"),
        Problem("synthetic-a", "gen:make_synthetic_a",
                "medium (3,000), 2-d, 1:1, linear clusters (generated)"),
    ]
}


def get_problems(names=None) -> list[Problem]:
    """The problems called ``names`` (all by default)."""
    if not names:
        return list(PROBLEMS.values())
    unknown = [n for n in names if n not in PROBLEMS]
    if unknown:
        raise ValueError(f"unknown problem(s) {', '.join(unknown)}; choose from: "
                         f"{', '.join(PROBLEMS)}")
    return [PROBLEMS[n] for n in names]
