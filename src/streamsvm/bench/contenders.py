"""Who runs in the benchmark suite: every estimator of the library and the peers a user would
pick instead (scikit-learn's SVC = LIBSVM, LinearSVC = LIBLINEAR, SGDClassifier for one epoch
and to convergence, River's online linear models).

A contender builds a fresh model for a task, says how it learns (``"stream"``: ``partial_fit``
over the chunks in order, then ``finish()`` for ours; ``"batch"``: one ``fit`` on all the
training data; ``"river"``: ``learn_one`` per example), and gives scores for AUC/PRBEP.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass

from ..registry import ESTIMATORS, get_estimator
from .tasks import Task

__all__ = ["Contender", "contenders", "OUR_SETTINGS"]


@dataclass(frozen=True)
class Contender:
    name: str
    family: str  # "streamsvm" or the peer library
    mode: str  # "stream", "batch" or "river"
    make: Callable[[Task], object]
    #: tasks with more training examples are skipped (with the reason in the report)
    max_train: int | None = None
    why_max: str = ""
    #: rows of the throw-away warm-up fit (None: the runner's default, two chunks)
    warm_up_rows: int | None = None


def _ours(estimator: str, params: Callable[[Task], dict]) -> Callable[[Task], object]:
    def make(task: Task):
        return get_estimator(estimator)(**params(task))

    return make


def _rbf(task: Task, **more) -> dict:
    return {"kernel": "rbf", "gamma": task.gamma, "C": task.C, **more}


#: How each estimator of the library is set up in the suite: label -> (estimator, params).
#: An estimator of the registry that is missing here runs with its defaults.
OUR_SETTINGS: dict[str, tuple[str, Callable[[Task], dict]]] = {
    "StreamSVM (Algo-1)": ("StreamSVM", lambda t: {"lookahead": 1}),
    "StreamSVM (L=10)": ("StreamSVM", lambda t: {"lookahead": 10}),
    "Perceptron": ("Perceptron", lambda t: {}),
    "Pegasos (k=1)": ("Pegasos", lambda t: {}),
    "BlurredBallSVM (L=10)": ("BlurredBallSVM", lambda t: {"lookahead": 10}),
    "LASVM": ("LASVM", lambda t: _rbf(t)),
    "LASVM-G": ("LASVMG", lambda t: _rbf(t)),
    "LASVM-NC": ("LASVMNC", lambda t: _rbf(t)),
    "LASVM-I": ("LASVMI", lambda t: _rbf(t)),
    "FULL SVM": ("FullSVM", lambda t: _rbf(t)),
    "ActiveSVM (pool 59, early stop)": ("ActiveSVM", lambda t: _rbf(t, random_state=0)),
    "IncrementalSVM (exact)": ("IncrementalSVM", lambda t: _rbf(t)),
    "TVM (B=100)": ("TwinVectorMachine", lambda t: _rbf(t, budget=100)),
    "Random budget SVM (B=100)": ("RandomBudgetSVM",
                                  lambda t: _rbf(t, budget=100, random_state=0)),
    "Forgetron (B=100)": ("Forgetron", lambda t: {"kernel": "rbf", "gamma": t.gamma,
                                                 "budget": 100}),
    "Budget perceptron (B=100)": ("BudgetPerceptron", lambda t: {"kernel": "rbf",
                                                                 "gamma": t.gamma,
                                                                 "budget": 100}),
    "DistributedL2SVM (10 sites, exact)": ("DistributedL2SVM", lambda t: _rbf(t, n_sites=10)),
}


#: estimator -> (largest training set, why): the exact incremental SVM keeps the Gram matrix
#: of every example it holds, O(n^2) memory (16 GB at 20,000 examples).
_LIMITS = {
    "IncrementalSVM": (5_000, "the exact incremental SVM stores the full Gram matrix (O(n^2))"),
    "DistributedL2SVM": (3_000, "every example is a protocol step at 10 simulated sites, in "
                                "Python (it measures communication, not speed)"),
}

#: tighter limits of the quick suite (CI's smoke run), as ``_LIMITS``
_QUICK_LIMITS = {
    "DistributedL2SVM": (2_000, "every example is a protocol step at 10 simulated sites, in "
                                "Python; the quick suite runs it on its smallest task only"),
}

#: estimator -> rows of its warm-up fit, where compiling needs far fewer than two chunks and
#: each row is slow (the simulated sites step in Python)
_WARM_UP_ROWS = {"DistributedL2SVM": 200}


def _sklearn_contenders() -> list[Contender]:
    from sklearn.linear_model import SGDClassifier
    from sklearn.svm import SVC, LinearSVC

    return [
        Contender("sklearn SVC (LIBSVM, RBF)", "scikit-learn", "batch",
                  lambda t: SVC(kernel="rbf", gamma=t.gamma, C=t.C, cache_size=200)),
        Contender("sklearn LinearSVC (LIBLINEAR)", "scikit-learn", "batch",
                  lambda t: LinearSVC(C=1.0)),
        Contender("sklearn SGDClassifier, 1 epoch", "scikit-learn", "stream",
                  lambda t: SGDClassifier(random_state=0)),
        Contender("sklearn SGDClassifier, converged", "scikit-learn", "batch",
                  lambda t: SGDClassifier(max_iter=1000, tol=1e-3, random_state=0)),
    ]


def _river_contenders() -> list[Contender]:
    if importlib.util.find_spec("river") is None:
        return []
    from river import linear_model, preprocessing

    return [
        Contender("River LogisticRegression (scaled)", "river", "river",
                  lambda t: preprocessing.StandardScaler() | linear_model.LogisticRegression()),
        Contender("River PAClassifier", "river", "river",
                  lambda t: linear_model.PAClassifier(C=0.01, mode=1)),
    ]


def contenders(names=None, *, quick=False) -> list[Contender]:
    """Every contender (ours first), or those named in ``names``: a name picks the contender
    of exactly that label (case-insensitive), or else every contender whose label contains
    it. ``quick``: with the quick suite's tighter size limits."""
    limits = {**_LIMITS, **_QUICK_LIMITS} if quick else _LIMITS
    ours = [
        Contender(label, "streamsvm", "stream", _ours(estimator, params),
                  *limits.get(estimator, (None, "")), _WARM_UP_ROWS.get(estimator))
        for label, (estimator, params) in OUR_SETTINGS.items()
    ]
    covered = {estimator for estimator, _ in OUR_SETTINGS.values()}
    ours += [
        Contender(name, "streamsvm", "stream", _ours(name, lambda t: {}))
        for name in ESTIMATORS
        if name not in covered
    ]
    everyone = ours + _sklearn_contenders() + _river_contenders()
    if not names:
        return everyone
    chosen = []
    for name in names:
        exact = [c for c in everyone if c.name.lower() == name.lower()]
        chosen += exact or [c for c in everyone if name.lower() in c.name.lower()]
    chosen = list(dict.fromkeys(chosen))
    if not chosen:
        raise ValueError(
            f"no contender matches {', '.join(names)}; the contenders are: "
            + ", ".join(c.name for c in everyone)
        )
    return chosen
