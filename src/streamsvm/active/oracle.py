"""Active learning with a real oracle: a learner over an unlabelled pool that asks for labels.

:class:`ActiveLearner` holds an unlabelled pool (an array, a CSR matrix, an svmlight file
read chunk by chunk, or any iterable of chunks) and an :class:`~streamsvm.active.ActiveSVM`
whose selection loop decides which example to ask about next. Labels come either from a
function (:meth:`ActiveLearner.run`) or from the caller, one query at a time
(:meth:`~ActiveLearner.ask` / :meth:`~ActiveLearner.tell`, or iterating
:meth:`~ActiveLearner.queries`). Every label is counted; a budget caps them. The oracle is
asked only about the examples the selection picks, once each.

A streamed pool is handled a chunk at a time: the chunk is the pool, selection runs on it
until a stopping rule holds or it is used up, the unlabelled rest of it is dropped (only the
kernel expansion is kept), and the next chunk is read. Memory is one chunk plus the model.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterable

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from ..datasets import iter_svmlight
from ..input.validation import check_features
from ..utils.params import check_params
from .estimator import ActiveSVM

__all__ = ["ActiveLearner", "Query"]


def check_learner_setup(classes, model, budget):
    """Validate what an oracle-driven learner is given: ``(sorted classes, a fresh clone of
    the ActiveSVM model)``; raises ValueError or TypeError naming the problem."""
    classes = np.asarray(classes)
    if classes.ndim != 1 or classes.shape[0] != 2 or classes[0] == classes[1]:
        raise ValueError(f"classes must hold two distinct labels; got {classes.tolist()!r}")
    if model is None:
        model = ActiveSVM()
    if not isinstance(model, ActiveSVM):
        raise TypeError(f"model must be an ActiveSVM; got {type(model).__name__}")
    model = clone(model)
    check_params(model)
    if budget is not None and (not isinstance(budget, numbers.Integral)
                               or isinstance(budget, bool) or budget < 0):
        raise ValueError(f"budget must be None or an integer >= 0; got {budget!r}")
    return np.sort(classes), model


class Query:
    """One example the learner wants labelled.

    Attributes
    ----------
    index : int, the example's row in the pool (counted over the whole stream for files).
    x : the row (1-D array, or a 1-row CSR matrix for sparse pools).
    y_pred : the model's current prediction for it (``None`` before any label).
    score : float, the decision value ``y(x)``; the selection picked the smallest ``|score|``.
    """

    __slots__ = ("index", "x", "y_pred", "score", "_owner")

    def __init__(self, index, x, y_pred, score, owner):
        self.index = index
        self.x = x
        self.y_pred = y_pred
        self.score = score
        self._owner = owner

    def answer(self, label):
        """Give this query's label (same as ``learner.tell(label)``)."""
        self._owner._check_is_pending(self)
        self._owner.tell(label)

    def __repr__(self):
        return f"Query(index={self.index}, y_pred={self.y_pred!r}, score={self.score:.4g})"


class ActiveLearner:
    """Pool-based active learning of an :class:`ActiveSVM` from a labelling oracle.

    Parameters
    ----------
    pool : array-like, CSR matrix, path of an svmlight file, or iterable of chunks
        The unlabelled examples. A file is streamed ``chunk_size`` rows at a time (its labels
        are ignored); an iterable may yield ``X`` chunks or ``(X, y)`` tuples (``y``
        ignored).
    classes : sequence of two labels
        The labels the oracle answers with; ``classes[1]`` after sorting is the positive
        class of ``decision_function`` (as ``classes_`` of scikit-learn).
    model : ActiveSVM, optional
        Settings of the learner (cloned): kernel, C, ``pool_size``, ``stopping``, ...
        Default ``ActiveSVM()``.
    budget : int or None
        Most labels to ask for.
    chunk_size : int, default=10000
        Rows per chunk of a streamed file.
    n_features : int, optional
        Width of a streamed file (read from the file when not given).

    Attributes
    ----------
    model : the ActiveSVM being trained (predicts at any time).
    n_labels_ : int, labels asked for and received.
    queried_ : array of the pool indices asked about, in order.
    stop_reason_ : str, "" while running; then "sv_count", "margin" (early stopping),
        "budget", or "pool exhausted".

    Examples
    --------
    >>> import numpy as np
    >>> from streamsvm.active import ActiveLearner, ActiveSVM
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(2000, 2))
    >>> truth = np.where(X[:, 0] > 1.5, "rare", "common")
    >>> asked = []
    >>> def oracle(index, x):
    ...     asked.append(index)
    ...     return truth[index]
    >>> learner = ActiveLearner(X, classes=["common", "rare"], budget=150,
    ...                         model=ActiveSVM(C=10.0, gamma=1.0, random_state=0))
    >>> learner = learner.run(oracle)
    >>> learner.n_labels_ == len(asked) == len(set(asked)) <= 150
    True
    >>> float(np.mean(learner.model.predict(X) == truth)) > 0.97
    True
    """

    def __init__(self, pool, *, classes, model=None, budget=None, chunk_size=10_000,
                 n_features=None):
        self.classes, self.model = check_learner_setup(classes, model, budget)
        self.budget = budget
        if (not isinstance(chunk_size, numbers.Integral) or isinstance(chunk_size, bool)
                or chunk_size < 1):
            raise ValueError(f"chunk_size must be an integer >= 1; got {chunk_size!r}")
        self.streamed = True
        if isinstance(pool, str | os.PathLike):
            self._chunks = iter_svmlight(pool, chunk_size=chunk_size, n_features=n_features)
        elif sp.issparse(pool) or isinstance(pool, np.ndarray) or (
                isinstance(pool, list) and pool and not hasattr(pool[0], "shape")):
            X = check_features(pool, estimator_name="ActiveLearner")
            self._chunks = iter([X])
            self.streamed = False
        elif isinstance(pool, Iterable):
            self._chunks = iter(pool)
        else:
            raise TypeError("pool must be an array, a sparse matrix, a file path or an iterable "
                            f"of chunks; got {type(pool).__name__}")
        self.n_labels_ = 0
        self.queried_ = np.zeros(0, dtype=np.int64)
        self._queried = []
        self.stop_reason_ = ""
        self._offset = 0  # pool index of the current chunk's first row
        self._X = None  # current chunk
        self._learner = None
        self._pending = None
        self._generating = False

    # ------------------------------------------------------------------ chunks
    def _load_next(self) -> bool:
        try:
            chunk = next(self._chunks)
        except StopIteration:
            return False
        X = chunk[0] if isinstance(chunk, tuple) else chunk
        model = self.model
        if self._learner is None:
            X, sqnorms = check_features(X, estimator_name="ActiveLearner", return_sqnorms=True)
            X = model._start_checked(X, sqnorms)
            model._grow_classes(self.classes)
            self._learner = model.learners_[0]
            caps = [c for c in (self.budget, model.max_labels) if c is not None]
            self._learner.max_labels = min(caps) if caps else -1
        else:
            X, sqnorms = check_features(X, n_features=model.n_features_in_,
                                        estimator_name="ActiveLearner", return_sqnorms=True)
            model._check_row_norms(X, sqnorms)
            X = model._prepare(X)
            self._offset += self._X.shape[0]
            self._learner._drop_pool()
            self._learner.release_unused()
        self._X = X
        if X.shape[0]:
            ids = self._learner.add_examples(X)
            self._learner.set_pool(ids, self._offset + np.arange(X.shape[0]))
        return True

    # ------------------------------------------------------------------ protocol
    def ask(self):
        """The next :class:`Query`, or None once learning has ended (``stop_reason_``).

        Asking again before :meth:`tell` returns the same query."""
        if self._pending is not None:
            return self._pending
        if self.stop_reason_:
            return None
        while True:
            if self._learner is None and not self._load_next():
                raise ValueError("the pool holds no examples")
            proposal = self._learner.propose()
            if proposal is not None:
                break
            reason = self._learner.stop_reason
            if reason == "budget" or not self.streamed or not self._load_next():
                self._end(reason)
                return None
        row, _, score = proposal
        local = row - self._offset
        x = self._X[local : local + 1] if sp.issparse(self._X) else self._X[local].copy()
        if self.n_labels_ == 0:
            y_pred = None
        else:
            y_pred = self.classes.tolist()[int(score > 0)]
        self._pending = Query(int(row), x, y_pred, float(score), self)
        return self._pending

    def tell(self, label):
        """The label of the pending query: the model learns it (one LASVM iteration)."""
        if self._pending is None:
            raise RuntimeError("no query is waiting for a label; call ask() first")
        if np.ndim(label) != 0 or not any(c == label for c in self.classes.tolist()):
            raise ValueError(f"label {label!r} is not one of the classes "
                             f"{self.classes.tolist()}")
        query = self._pending
        self._learner.learn_pending(1.0 if label == self.classes[1] else -1.0)
        self.model.n_seen_ += 1
        self._queried.append(query.index)
        self.n_labels_ += 1
        self._pending = None
        return self

    def _end(self, reason):
        self.stop_reason_ = reason or "pool exhausted"
        self.queried_ = np.array(self._queried, dtype=np.int64)
        if self.model.finishing and self._learner is not None:
            self._learner.finish()

    def _check_is_pending(self, query):
        if query is not self._pending:
            raise RuntimeError(f"{query!r} is not the pending query (it was answered already)")

    def run(self, oracle, max_queries=None):
        """Ask ``oracle(index, x)`` for labels until learning ends (or ``max_queries`` more
        labels were received); returns self. The oracle is called once per query."""
        if not callable(oracle):
            raise TypeError(f"oracle must be callable as oracle(index, x); got {oracle!r}")
        if max_queries is not None and (not isinstance(max_queries, numbers.Integral)
                                        or max_queries < 0):
            raise ValueError(f"max_queries must be None or an integer >= 0; got {max_queries!r}")
        done = 0
        while max_queries is None or done < max_queries:
            query = self.ask()
            if query is None:
                break
            self.tell(oracle(query.index, query.x))
            done += 1
        self.queried_ = np.array(self._queried, dtype=np.int64)
        return self

    def queries(self):
        """Yield the queries one at a time; answer each (``query.answer(label)`` or
        :meth:`tell`) before asking for the next."""
        while True:
            query = self.ask()
            if query is None:
                return
            yield query
            if self._pending is query:
                raise RuntimeError(f"{query!r} was not answered before the next was requested")

    # ------------------------------------------------------------------ model
    @property
    def finished_(self) -> bool:
        return bool(self.stop_reason_)

    def predict(self, X):
        return self.model.predict(X)

    def decision_function(self, X):
        return self.model.decision_function(X)
