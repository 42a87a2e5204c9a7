"""The row path (River's face): ``learn_one``, ``predict_one`` and ``predict_proba_one``
on 1-D arrays or dicts, the warm-up that gathers a fresh model's first rows, and the
per-row shortcut of :mod:`streamsvm.input.row_path` for running dict-mode models."""

from __future__ import annotations

import copy

import numpy as np
import scipy.sparse as sp

from ..input import row_path as _row_path
from ..input.row_path import MISS
from ..input.validation import (
    check_label_kind,
    check_labels,
    check_one_example,
)
from ..input.vocabulary import FeatureVocabulary, feature_value, integral_keys, is_dict_example
from ..input.widen import Undo, widen_like
from ..utils.params import check_params
from ..utils.threads import compiled_threads
from .chunks import ChunkPathMixin, SampleWeightMixin
from .collapse import guard_collapse
from .inputs import InputChecksMixin
from .prediction import PredictionMixin
from .recording import ScoreRecordingMixin
from .weights import count_labels

#: The general path's pieces the per-row shortcut stands in for, with the part of the
#: contract that owns each: a subclass that overrides one keeps to the general path.
_GENERAL_PATH = {
    **dict.fromkeys(("_validate", "_check_row_norms", "_prepare", "_prepare_for_learning"),
                    InputChecksMixin),
    **dict.fromkeys(("_learn", "_learn_reporting"), ChunkPathMixin),
    **dict.fromkeys(("_record_before", "_record_after", "_rows_to_score"),
                    ScoreRecordingMixin),
    **dict.fromkeys(("decision_function", "predict", "predict_proba"), PredictionMixin),
}


def _list_in_dict(key: str) -> property:
    """An attribute kept in the instance's ``__dict__`` under ``key`` (the name files and
    pickles save it by): a list, empty until one is set."""
    return property(lambda self: self.__dict__.get(key, []),
                    lambda self, value: self.__dict__.__setitem__(key, value))


class RowPathMixin:
    """The per-example face of a :class:`~streamsvm.base.StreamClassifier`."""

    def learn_one(self, x, y):
        """Learn one example (River's interface); ``x`` is a 1-D array or a dict.

        Dicts: a key not seen before becomes a new feature (value 0 in every earlier
        example; :mod:`streamsvm.input.vocabulary`, at most ``MAX_FEATURES`` keys). A model whose
        first data fix something (``gamma='scale'``, centring) gathers its first
        ``warmup_rows_`` examples (:data:`streamsvm.kernels.first_data.WARMUP_ROWS`) and
        learns them as one first chunk, the batch path's rule; until then ``predict_one``
        gives the most frequent label so far. ``docs/river.md`` has the details.

        Returns
        -------
        self
        """
        if _row_path.ENABLED:
            state = self._row_state or self._new_row_state()
            if state is not None and state.learn(x, y):
                return self
        if hasattr(self, "classes_") and not getattr(self, "_warmup_y", None):
            undo = Undo()
            n_keys = len(self._vocabulary) if self._dict_mode() else 0
            try:
                row = self._example_row(x, learn=True, undo=undo)
                self.partial_fit(row, [y])
            except BaseException:
                undo()
                if self._dict_mode():
                    self._vocabulary.forget_after(n_keys)
                raise
            return self
        self._gather_warmup(x, y)
        return self

    # ------------------------------------------------------------------ the per-row path
    def _new_row_state(self):
        """A new :class:`~streamsvm.input.row_path.RowState` (kept as ``_row_state``) for a running
        dict-mode model whose every piece of ``partial_fit`` / ``predict`` is this class's and
        whose learners have a per-row step (``row_ready``), else None (the general path)."""
        d = self.__dict__
        if ("classes_" not in d or "_vocabulary" not in d or d.get("_warmup_labels")
                or getattr(self, "verbose", 0) or "_row_state" not in self._transient):
            return None
        if (getattr(self, "class_weight", None) is not None
                and self._weighting not in (None, "own")):
            return None  # weighted learning stays on the general path
        klass = type(self)
        if klass.partial_fit not in (ChunkPathMixin.partial_fit, SampleWeightMixin.partial_fit):
            return None
        if any(getattr(klass, name) is not getattr(owner, name)
               for name, owner in _GENERAL_PATH.items()):
            return None
        if not self.learners_ or not all(getattr(learner, "row_ready", lambda: False)()
                                         for learner in self.learners_):
            return None
        try:  # the thread count of n_jobs, which the LASVM family's row step runs at
            threads = compiled_threads(getattr(self, "n_jobs", None)).threads
        except (TypeError, ValueError):
            return None  # a bad n_jobs: the general path raises its error
        for learner in self.learners_:
            self._calibrator(learner)
        state = d["_row_state"] = _row_path.RowState(self, self._max_safe_sqnorm(), threads)
        return state

    def _check_collapse(self) -> None:
        """The collapse guard (:func:`streamsvm.base.collapse.guard_collapse`), for the per-row
        path."""
        guard_collapse(self)

    def _forget_row_state(self) -> None:
        """Drop the per-row path's cache: the general path is about to change the model."""
        self.__dict__.pop("_row_state", None)

    def _row_targets(self, y):
        """The ±1 target of label ``y`` for each learner (as ``_learn`` computes them), or
        None when ``y`` is not a label of ``classes_`` (the general path checks it)."""
        try:
            label = check_labels([y], 1)
            check_label_kind(label, self.classes_)
        except (TypeError, ValueError):
            return None
        if np.setdiff1d(label, self.classes_).size:
            return None
        return tuple(float(np.where(label == target, sign, -sign)[0])
                     for target, sign in zip(self._targets, self._signs, strict=True))

    def _row_second_class(self, y) -> bool:
        """Make label ``y`` the second class of a one-class model as ``partial_fit`` of a row
        labelled ``y`` does before learning it (``classes_`` and the learner's target grown,
        ``class_counts_`` grown with the new class not counted yet), for the per-row path,
        which then learns the row; False (nothing changed) where the general path must do
        it: declared classes, class weights, a label it refuses or already holds."""
        if (len(self.classes_) != 1 or getattr(self, "_classes_declared", False)
                or getattr(self, "class_weight", None) is not None
                or not isinstance(self.__dict__.get("class_counts_"), np.ndarray)):
            return False
        try:
            label = check_labels([y], 1)
            check_label_kind(label, self.classes_)
        except (TypeError, ValueError):
            return False
        counted = self.classes_
        self._grow_classes(np.unique(label))
        if len(self.classes_) != 2:  # a label it holds: nothing changed
            return False
        self.class_counts_ = count_labels(self.classes_, self.class_counts_, label[:0], counted)
        return True

    @property
    def warmup_rows_(self) -> int:
        """Examples ``learn_one`` gathers on a fresh model before it learns them as one first
        chunk: :data:`~streamsvm.kernels.first_data.WARMUP_ROWS` where the first data fix
        ``gamma_`` or ``mean_``, else 1."""
        return self._learn_one_warmup()

    def _learn_one_warmup(self) -> int:
        return 1

    def _dict_mode(self) -> bool:
        """Whether this model reads dicts through a vocabulary (it started on a dict)."""
        if "_vocabulary" not in self.__dict__ and "_feature_names" in self.__dict__:
            # a model saved before vocabularies: its fixed feature names are one
            vocabulary = FeatureVocabulary()
            vocabulary.learn({name: 0.0 for name in self._feature_names})
            vocabulary.keys = list(self._feature_names)
            vocabulary._restore_transient()
            self._vocabulary = vocabulary
        return "_vocabulary" in self.__dict__

    def _example_row(self, x, *, learn: bool, undo: Undo | None = None):
        """One example as a (1, n_features) row of the model: dicts through the vocabulary
        (CSR: absent keys are 0; with ``learn``, new keys widen the model, recorded in
        ``undo``), or, on a model started from arrays, dicts of integer column indices."""
        width = getattr(self, "n_features_in_", None)
        if is_dict_example(x) and self._dict_mode():
            vocabulary = self._vocabulary
            if learn:
                for key, value in x.items():  # values checked before anything changes
                    feature_value(key, value)
                if vocabulary.learn(x) and width is not None and len(vocabulary) > width:
                    self._widen(len(vocabulary), undo)
                if not len(vocabulary):
                    raise ValueError("the example is an empty dict; the model has no "
                                     "feature yet")
                width = len(vocabulary) if width is None else self.n_features_in_
            return vocabulary.row(x, width)
        if is_dict_example(x) and width is None and not learn:
            return None
        if is_dict_example(x) and not integral_keys(x):
            raise ValueError(
                f"{self._name} learnt from arrays of {width} columns; a dict example for it "
                "must use integer column indices as keys")
        row, _ = check_one_example(x, feature_names=None, n_features=width)
        return row

    def _widen(self, width: int, undo: Undo) -> None:
        """Give the model ``width`` features, the new ones 0 in everything learnt
        (:mod:`streamsvm.input.widen`); replaced attributes are recorded in ``undo``."""
        self._forget_row_state()
        old = self.n_features_in_
        fresh = []
        for learner in self.learners_:
            widen = getattr(learner, "widen_features", None)
            if widen is not None and widen(width - old, undo):
                continue  # its own widening (the linear learners: no fresh learners built)
            if not fresh:
                for n in (old, old + 1):
                    shadow = copy.copy(self)
                    shadow.n_features_in_ = n
                    fresh.append(shadow._make_learner())
            widen_like(learner, fresh[0], fresh[1], old=old, added=width - old, undo=undo)
        mean = getattr(self, "mean_", None)
        if isinstance(mean, np.ndarray):
            undo.set(self, "mean_", np.concatenate([mean, np.zeros(width - old)]))
        undo.set(self, "n_features_in_", width)

    def _gather_warmup(self, x, y) -> None:
        """Warm-up of ``learn_one`` (see there): keep the example; learn the gathered ones as
        the first chunk once there are ``warmup_rows_`` of them."""
        if not getattr(self, "_warmup_y", None):
            check_params(self)
            if is_dict_example(x) and "_vocabulary" not in self.__dict__:
                self._vocabulary = FeatureVocabulary()
        label = check_labels([y], 1)
        if self._warmup_y:
            check_label_kind(label, np.asarray(self._warmup_y))
        n_keys = len(self._vocabulary) if self._dict_mode() else 0
        try:
            row = self._example_row(x, learn=True)
            if not is_dict_example(x) and self._warmup_X and \
                    row.shape[1] != self._warmup_X[0].shape[1]:
                raise ValueError(f"X has {row.shape[1]} features, but {self._name} is "
                                 f"expecting {self._warmup_X[0].shape[1]} features as input")
        except BaseException:
            if self._dict_mode():
                self._vocabulary.forget_after(n_keys)
                if not self._warmup_y:
                    del self._vocabulary
            raise
        self._warmup_X = [*self._warmup_X, row]
        self._warmup_y = [*self._warmup_y, label[0].item() if isinstance(label[0], np.generic)
                          else label[0]]
        if len(self._warmup_y) >= self._learn_one_warmup():
            try:
                self._learn_warmup()
            except BaseException:
                self._warmup_X, self._warmup_y = self._warmup_X[:-1], self._warmup_y[:-1]
                if self._dict_mode():
                    self._vocabulary.forget_after(n_keys)
                raise

    def _learn_warmup(self) -> None:
        """Learn the gathered warm-up examples as one chunk (the model's first data)."""
        X_rows, labels = self._warmup_X, self._warmup_y
        if len(X_rows) == 1:  # one row (no warm-up rule): as it is, without a stack
            X = X_rows[0]
        elif sp.issparse(X_rows[0]):
            width = len(self._vocabulary)
            X = sp.vstack([sp.csr_matrix((r.data, r.indices, r.indptr), shape=(1, width))
                           for r in X_rows], format="csr")
        else:
            X = np.vstack(X_rows)
        vocabulary = self.__dict__.get("_vocabulary")
        self._warmup_X, self._warmup_y = [], []
        try:
            self.partial_fit(X, np.asarray(labels))
        except BaseException:
            self._warmup_X, self._warmup_y = X_rows, labels
            raise
        if vocabulary is not None:
            self._vocabulary = vocabulary

    # the warm-up's rows and labels, saved as _warmup_rows and _warmup_labels
    _warmup_X = _list_in_dict("_warmup_rows")
    _warmup_y = _list_in_dict("_warmup_labels")

    def _warmup_answer(self) -> dict:
        """``{label: frequency}`` of the gathered warm-up labels (``{}`` when none)."""
        labels = self._warmup_y
        counts: dict = {}
        for label in labels:
            counts[label] = counts.get(label, 0) + 1
        return {label: n / len(labels) for label, n in counts.items()}

    def predict_one(self, x):
        """Label of one example (River's interface): during ``learn_one``'s warm-up the most
        frequent label so far, None before anything has been learnt. Dict keys the model
        has not learnt count as 0."""
        if _row_path.ENABLED:
            state = self._row_state or self._new_row_state()
            if state is not None:
                label = state.predict(x)
                if label is not MISS:
                    return label
        if not hasattr(self, "classes_") or self._warmup_y:
            answer = self._warmup_answer()
            return max(answer, key=answer.get) if answer else None
        label = self.predict(self._example_row(x, learn=False))[0]
        return label.item() if isinstance(label, np.generic) else label

    def predict_proba_one(self, x) -> dict:
        """``{class: probability}`` of one example (River's interface): during ``learn_one``'s
        warm-up the frequencies of the labels so far, ``{}`` before anything has been
        learnt. Dict keys the model has not learnt count as 0."""
        if not hasattr(self, "classes_") or self._warmup_y:
            return self._warmup_answer()
        state = self._row_state or self._new_row_state() \
            if _row_path.ENABLED else None
        scores = None if state is None else state.scores(x)
        if scores is not None:
            scores = np.array(scores)
            proba = self._proba_from_scores(scores if scores.shape[0] == 1 else scores[None])[0]
        else:
            proba = self.predict_proba(self._example_row(x, learn=False))[0]
        return {
            (c.item() if isinstance(c, np.generic) else c): float(p)
            for c, p in zip(self.classes_, proba, strict=True)
        }
