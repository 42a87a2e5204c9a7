"""The tasks of the benchmark suite: a dataset, its train/test split, and the kernel settings
the papers use on it.

A task loads the papers' data through :mod:`streamsvm.datasets` (from ``STREAMSVM_DATA``) or
draws from a seeded generator, so the suite runs on a machine without the data folder too
(it then skips the tasks whose files are missing and says so).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..datasets import dataset_available, load_dataset
from ..datasets.generators import GENERATORS

__all__ = ["Task", "TASKS", "QUICK_TASKS", "get_tasks"]


@dataclass(frozen=True)
class Task:
    """One binary problem of the suite.

    ``source`` is a dataset name of :func:`streamsvm.datasets.list_datasets` or ``"gen:<name>"``
    for a generator. ``n_train``/``n_test`` cap the sizes (the first rows of the published
    split, or the first draws of the generator). ``gamma`` and ``C`` are the RBF settings of
    the papers for kernel estimators; ``imbalanced`` marks tasks where accuracy says little
    (the report then leads with g-means and PRBEP).
    """

    name: str
    source: str
    n_train: int | None = None
    n_test: int | None = None
    gamma: float = 1.0
    C: float = 1.0
    imbalanced: bool = False
    note: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def available(self) -> bool:
        return self.source.startswith("gen:") or dataset_available(self.source)

    def load(self):
        """``(X_train, y_train, X_test, y_test)`` with labels ±1."""
        if self.source.startswith("gen:"):
            make = GENERATORS[self.source[4:]]
            n_train, n_test = self.n_train or 20_000, self.n_test or 5_000
            X, y = _draw(make, n_train + n_test, seed=0)
            return X[:n_train], y[:n_train], X[n_train:], y[n_train:]
        X, y = load_dataset(self.source, subset="train")
        Xt, yt = load_dataset(self.source, subset="test")
        if self.n_train is not None:
            X, y = X[: self.n_train], y[: self.n_train]
        if self.n_test is not None:
            Xt, yt = Xt[: self.n_test], yt[: self.n_test]
        return X, np.asarray(y), Xt, np.asarray(yt)


def _draw(generator, n, seed):
    Xs, ys, total = [], [], 0
    for X, y in generator(random_state=seed, chunk_size=min(n, 10_000)):
        Xs.append(X)
        ys.append(y)
        total += X.shape[0]
        if total >= n:
            break
    return np.vstack(Xs)[:n], np.concatenate(ys)[:n]


# The kernel settings are those of the papers' tables (LASVM: Waveform, Banana, Reuters, USPS,
# Adult; LASVM-G/NC/I: MNIST-8 gamma 0.001, C 100), the TVM paper (checkerboard), and
# gamma = 1/d (scikit-learn's "scale" for unit-variance features) elsewhere.
TASKS: dict[str, Task] = {
    t.name: t
    for t in [
        Task("synthetic-a", "gen:synthetic_a", 100_000, 10_000, gamma=0.5, C=1.0,
             note="StreamSVM's Synthetic A (generated)"),
        Task("checkerboard", "gen:checkerboard", 20_000, 5_000, gamma=2.0, C=10.0,
             note="4x4 checkerboard (generated), non-linear"),
        Task("banana", "banana", gamma=0.5, C=316.0),
        Task("waveform", "waveform-0vrest", gamma=0.05, C=1.0),
        Task("mnist-0v1", "mnist-0v1", gamma=0.005, C=10.0),
        Task("mnist-8v9", "mnist-8v9", gamma=0.005, C=10.0),
        Task("usps-0vrest", "usps-0vrest", gamma=2.0 / 256, C=1000.0),
        Task("adult", "adult", gamma=0.005, C=100.0, imbalanced=True),
        Task("ijcnn1", "ijcnn1", gamma=1.0, C=10.0, imbalanced=True),
        Task("w3a", "w3a", gamma=1.0 / 300, C=1.0, imbalanced=True),
        Task("reuters-moneyfx", "reuters-moneyfx", gamma=0.5, C=1.0, imbalanced=True),
        Task("letter-a", "letter-a-vs-rest", gamma=0.1, C=10.0, imbalanced=True),
    ]
}

#: Small versions for ``--quick`` (a few minutes on two cores, run in CI): the same tasks,
#: fewer rows.
QUICK_TASKS: dict[str, Task] = {
    name: replace(TASKS[name], n_train=n_train, n_test=n_test)
    for name, n_train, n_test in [
        ("checkerboard", 3_000, 2_000),
        ("synthetic-a", 20_000, 5_000),
        ("banana", 2_000, 1_300),
        ("w3a", 5_000, 4_912),
    ]
}


def get_tasks(names=None, *, quick=False) -> list[Task]:
    """The tasks called ``names`` (all by default) of the quick or the full suite."""
    table = QUICK_TASKS if quick else TASKS
    if not names:
        return list(table.values())
    unknown = [n for n in names if n not in table]
    if unknown:
        raise ValueError(
            f"unknown task(s) {', '.join(unknown)}; choose from: {', '.join(table)}"
        )
    return [table[n] for n in names]
