"""learn_one / predict_one (River's interface) of
:class:`~streamsvm.distributed.estimator.DistributedL2SVM`: its warm-up examples, dict rows
through a vocabulary fixed by the first examples."""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from ..input.validation import check_one_example
from ..input.vocabulary import FeatureVocabulary, integral_keys

__all__ = ["RiverMixin"]


class RiverMixin:
    """River's one-example methods of the distributed estimator."""

    def learn_one(self, x, y=None):
        """Learn one example (River's interface); ``x`` is a 1-D array or a dict. The point
        goes to site ``n_seen_ mod n_sites``.

        As for every estimator (``docs/river.md``): with ``gamma='scale'`` the first
        ``WARMUP_ROWS`` examples are gathered and added as the first chunk (``gamma_`` from
        them); until then ``predict_one`` gives the most frequent label so far. Dict keys
        are read through a :class:`~streamsvm.input.vocabulary.FeatureVocabulary` made of the keys
        of those first examples; unlike the other estimators, this one does not grow its
        feature space afterwards (its sites hold their points at a fixed width): a key first
        seen later counts as 0, with one warning."""
        if hasattr(self, "tracker_") and not self.__dict__.get("_warmup_labels"):
            row = self._one_row(x, learn=True)
            site = getattr(self, "n_seen_", 0) % self.n_sites
            self.partial_fit(row, None if y is None else [y], sites=[site])
            return self
        if not self.__dict__.get("_warmup_labels"):
            self._check_start()
            if isinstance(x, Mapping):
                self._vocabulary = FeatureVocabulary()
            self._warmup_rows, self._warmup_labels = [], []
        n_keys = len(self._vocabulary) if "_vocabulary" in self.__dict__ else 0
        try:
            row = self._one_row(x, learn=True)
            labels = [*self._warmup_labels, y]
            distinct = set(labels)
            if self.task == "two-class" and (
                    len(distinct) > 2 or (self.classes is not None
                                          and not distinct <= set(self.classes))):
                raise ValueError(f"label {y!r} would make the labels {sorted(distinct)}; a "
                                 f"two-class model takes two (classes={self.classes!r})")
        except BaseException:
            if "_vocabulary" in self.__dict__:
                self._vocabulary.forget_after(n_keys)
            raise
        self._warmup_rows = [*self._warmup_rows, row]
        self._warmup_labels = labels
        if len(labels) >= self._learn_one_warmup():
            self._learn_warmup()
        return self

    def _learn_warmup(self) -> None:
        """Add the gathered warm-up examples as the first chunk."""
        rows, labels = self._warmup_rows, self._warmup_labels
        if "_vocabulary" in self.__dict__:
            width = len(self._vocabulary)
            X = sp.vstack([sp.csr_matrix((r.data, r.indices, r.indptr), shape=(1, width))
                           for r in rows], format="csr")
        else:
            X = np.vstack(rows)
        first_site = getattr(self, "n_seen_", 0)
        sites = [(first_site + i) % self.n_sites for i in range(len(labels))]
        y = None if all(label is None for label in labels) else np.asarray(labels)
        self._warmup_rows, self._warmup_labels = [], []
        try:
            self.partial_fit(X, y, sites=sites)
        except BaseException:
            self._warmup_rows, self._warmup_labels = rows, labels
            raise

    def _one_row(self, x, *, learn: bool):
        """One example as a row: dicts through the vocabulary (keys new after the start count
        as 0, with one warning), arrays and integer-keyed dicts as given."""
        width = getattr(self, "n_features_in_", None)
        if isinstance(x, Mapping) and "_vocabulary" in self.__dict__:
            vocabulary = self._vocabulary
            if width is None:
                vocabulary.learn(x)
                return vocabulary.row(x)
            if learn and vocabulary.new_keys(x) and not getattr(self, "_warned_new_keys", False):
                warnings.warn(f"{type(self).__name__} keeps the features of its first data "
                              f"({width}); new keys such as {vocabulary.new_keys(x)[:3]} count "
                              "as 0", UserWarning, stacklevel=3)
                self._warned_new_keys = True
            return vocabulary.row(x, width)
        if isinstance(x, Mapping) and width is None and not integral_keys(x):
            raise ValueError("a dict example of a model started from arrays must use integer "
                             "column indices as keys")
        if width is None and self.__dict__.get("_warmup_rows"):
            width = self._warmup_rows[0].shape[1]
        row, _ = check_one_example(x, feature_names=None, n_features=width)
        return row

    def _warmup_answer(self) -> dict:
        labels = self.__dict__.get("_warmup_labels", [])
        counts: dict = {}
        for label in labels:
            counts[label] = counts.get(label, 0) + 1
        return {label: n / len(labels) for label, n in counts.items()}

    def predict_one(self, x):
        """Label of one example: during ``learn_one``'s warm-up the most frequent label so
        far, None before anything has been learnt."""
        if not self.__sklearn_is_fitted__() or self.__dict__.get("_warmup_labels"):
            answer = self._warmup_answer()
            return max(answer, key=answer.get) if answer else None
        label = self.predict(self._one_row(x, learn=False))[0]
        return label.item() if isinstance(label, np.generic) else label

    def finish(self):
        """Adds the examples ``learn_one`` gathered while warming up, if any; otherwise
        nothing to flush (every point is tracked as it arrives)."""
        if self.__dict__.get("_warmup_labels"):
            self._learn_warmup()
        return self

    def predict_proba_one(self, x):
        """``{class: probability}`` of one example (River's interface): during
        ``learn_one``'s warm-up the frequencies of the labels so far, ``{}`` before anything
        has been learnt."""
        if not self.__sklearn_is_fitted__() or self.__dict__.get("_warmup_labels"):
            return self._warmup_answer()
        proba = self.predict_proba(self._one_row(x, learn=False))[0]
        return {(c.item() if isinstance(c, np.generic) else c): float(p)
                for c, p in zip(self.classes_, proba, strict=True)}

    @property
    def _multiclass(self) -> bool:
        return False  # two classes at most (River's binary checks)

    def _unit_test_skips(self) -> set[str]:
        """River's binary check wants the labels False and True from the first prediction on;
        this model takes any two labels and names none before it has learnt them."""
        return {"check_predict_proba_one_binary"}
