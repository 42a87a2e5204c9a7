"""Classes and one-vs-rest: the labels a model has seen, and its learners grown with them.

``classes_`` is always sorted and of one kind: numbers (equal values are one class: ``1``,
``1.0`` and ``True``; a new class takes the dtype ``classes_`` started with when that is
exact) or strings. When a stream grows from one class to two, the single learner is
re-targeted by flipping the sign of its labels and scores; when it grows past two, the
binary learner becomes the one-vs-rest learner of its positive class and a sign-flipped
copy of it the learner of the other class, both exact continuations of what was learnt,
while classes new to the stream get fresh learners."""

from __future__ import annotations

import copy

import numpy as np

from .learner import BinaryLearner


class ClassesMixin:
    """The classes of a :class:`~streamsvm.base.StreamClassifier` and its learners, one per
    binary problem (module doc)."""

    def _learner_kwargs(self) -> dict:
        return {name: getattr(self, name) for name in self._learner_params}

    def _make_learner(self) -> BinaryLearner:
        # Learner k draws from the stream (seed entropy, k): reproducible, independent streams.
        rng = np.random.default_rng([self._seed_entropy, self._n_learners_made])
        self._n_learners_made += 1
        return self._learner_class(self.n_features_in_, rng, **self._learner_kwargs())

    def _start(self, n_features: int) -> None:
        random_state = getattr(self, "random_state", None)
        if isinstance(random_state, np.random.RandomState):
            random_state = int(random_state.randint(np.iinfo(np.int32).max))
        self._seed_entropy = int(np.random.SeedSequence(random_state).entropy)
        self._n_learners_made = 0
        self.n_features_in_ = int(n_features)
        self.n_seen_ = 0
        self.classes_ = np.empty(0)
        self.learners_ = []
        self._targets = []
        self._signs = []

    def _grow_classes(self, seen: np.ndarray) -> None:
        """Bring ``classes_`` and the learners up to date with newly seen labels (module doc)."""
        if seen.shape == self.classes_.shape and np.array_equal(seen, self.classes_):
            return  # the common case on a stream: nothing new
        new = np.setdiff1d(seen, self.classes_, assume_unique=True)
        if new.size == 0:
            return
        if self.classes_.size:  # numbers merge by value; keep classes_'s dtype when exact
            same_dtype = new.astype(self.classes_.dtype)
            if np.array_equal(same_dtype, new):
                new = same_dtype
        old = list(self.classes_)
        classes = np.union1d(self.classes_, new) if old else np.unique(seen)
        if len(old) == 0:
            targets = [classes[1]] if len(classes) == 2 else list(classes)
            self.learners_ = [self._make_learner() for _ in targets]
            self._signs = [1.0] * len(targets)
            self._targets = targets
        elif len(classes) == 2:  # one class -> two: retarget the only learner to classes[1]
            if self._targets[0] != classes[1]:
                self._targets = [classes[1]]
                self._signs = [-self._signs[0]]
        else:  # -> one-vs-rest
            by_class = dict(
                zip(self._targets, zip(self.learners_, self._signs, strict=True), strict=True)
            )
            if len(old) == 2:
                learner, sign = by_class[old[1]]
                by_class[old[0]] = (copy.deepcopy(learner), -sign)
            learners, signs = [], []
            for c in classes:
                learner, sign = by_class.get(c, (None, 1.0))
                learners.append(learner if learner is not None else self._make_learner())
                signs.append(sign)
            self.learners_, self._signs, self._targets = learners, signs, list(classes)
        self.classes_ = classes
