"""The estimator: a binary learner made into a scikit-learn and River classifier, from
the contract's parts (input checks, classes, the chunk path, recording for
probabilities, prediction, the row path)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError

from ..input.river import RiverClassifier
from ..utils import progress
from ..utils.params import CheckedParamsMixin
from ..utils.threads import compiled_threads
from .chunks import ChunkPathMixin
from .classes import ClassesMixin
from .inputs import InputChecksMixin
from .learner import BinaryLearner, state_nbytes
from .prediction import PredictionMixin
from .recording import ScoreRecordingMixin
from .rows import RowPathMixin
from .weights import ClassWeightsMixin


class StreamClassifier(
    InputChecksMixin, ClassesMixin, ChunkPathMixin, ScoreRecordingMixin, PredictionMixin,
    RowPathMixin, ClassWeightsMixin, CheckedParamsMixin, ClassifierMixin, BaseEstimator,
    RiverClassifier,
):
    """Base class of the streamsvm classifiers: a binary learner made into an estimator.

    Subclasses set ``_learner_class`` (a :class:`BinaryLearner` subclass) and list in
    ``_learner_params`` the constructor parameters passed on to it. They may override
    :meth:`_make_learner` for anything more.

    Fitted attributes: ``classes_``, ``n_features_in_``, ``n_seen_`` (examples learnt),
    ``learners_`` (one binary learner, or one per class for more than two classes),
    ``class_counts_`` (rows of each class learnt, which ``class_weight='balanced'`` reads),
    ``model_nbytes_`` (bytes of model state in memory, caches left out; a file may hold less).

    Weights (:mod:`streamsvm.base.weights`): ``_weighting`` says what the learners take: ``"rows"``
    (a weight per row: ``class_weight`` and ``sample_weight``, through
    :class:`SampleWeightMixin`), ``"sides"`` (one weight per side of each binary problem:
    ``class_weight`` only, handed over by ``learner.set_side_weights``), ``"own"`` (the
    estimator weighs classes its own way) or None; ``_weighting_refusal`` says why not.
    Two-class models warn once when they collapse to one class (:mod:`streamsvm.base.collapse`).

    Hyper-parameters: subclasses declare ``_parameter_constraints`` (and, for rules tying
    parameters together, ``_parameter_rules``), checked by
    :func:`streamsvm.utils.params.check_params` at ``fit``, at the first ``partial_fit`` and
    by ``set_params`` on a fitted model.
    """

    _learner_class: type[BinaryLearner] = BinaryLearner
    _learner_params: tuple[str, ...] = ()
    _accepts_sparse: bool = True
    #: attributes that are not saved by :func:`streamsvm.save` (caches and the like)
    _transient: tuple[str, ...] = ("_row_state",)
    #: the per-row path's cache (:meth:`_new_row_state`), None until made
    _row_state = None
    #: what the learners take of class and sample weights (class doc)
    _weighting: str | None = None
    #: whether :meth:`finish` runs compiled code of its own (a finishing step), whose first
    #: use in a process ``verbose`` announces as it announces ``fit``'s
    _finish_compiles: bool = False
    #: why this estimator takes no sample weights (the error's text)
    _weighting_refusal: str = "its algorithm has no weighted form implemented"
    #: whether rows sorted by label make ``fit`` learn a much worse model (measured in
    #: :mod:`streamsvm.base.order`): then ``fit`` warns when it gets them so
    _order_sensitive: bool = False

    # ------------------------------------------------------------------ sklearn plumbing
    def __getstate__(self):
        state = super().__getstate__()
        if "_row_state" in state:  # a cache of the per-row path (streamsvm.input.row_path)
            state = {k: v for k, v in state.items() if k != "_row_state"}
        return state

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "classes_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._accepts_sparse
        return tags

    @property
    def _name(self) -> str:
        return type(self).__name__

    @property
    def _finish_use(self) -> str:
        """The name under which the finishing step's first use is announced."""
        return f"{self._name}.finish"

    def _check_fitted(self) -> None:
        if not hasattr(self, "classes_"):
            raise NotFittedError(
                f"This {self._name} instance is not fitted yet. Call 'fit' or 'partial_fit' "
                "with some examples before using this estimator."
            )

    def set_params(self, **params):
        self._forget_row_state()  # the per-row path's cache read the old parameters
        return super().set_params(**params)

    def _reset(self) -> None:
        self._forget_row_state()
        for name in list(vars(self)):
            if name.endswith("_") and not name.startswith("__") or name in self._transient:
                delattr(self, name)
        for name in (
            "_feature_names",
            "_classes_declared",
            "_targets",
            "_signs",
            "_seed_entropy",
            "_n_learners_made",
            "_collapse_warned",
            "_vocabulary",
            "_warmup_rows",
            "_warmup_labels",
        ):
            self.__dict__.pop(name, None)

    def _check_restored(self) -> None:
        """Raise ValueError unless the saved class counts and collapse flag (e.g. read from a
        model file) fit the classes; files saved before they existed have neither."""
        counts = self.__dict__.get("class_counts_")
        if counts is not None and "classes_" in self.__dict__:  # else: the model checks say
            classes = self.__dict__.get("classes_")
            if (not isinstance(counts, np.ndarray) or counts.dtype != np.float64
                    or not isinstance(classes, np.ndarray) or counts.shape != classes.shape
                    or not np.isfinite(counts).all() or (counts < 0).any()):
                raise ValueError("class_counts_ does not hold one count >= 0 per class")
        if type(self.__dict__.get("_collapse_warned", False)) is not bool:
            raise ValueError("the collapse warning's flag is not a bool")

    def finish(self):
        """Tell the model its stream has ended (flushes lookahead buffers, runs finishing steps).

        ``fit`` does this itself; call it after the last ``partial_fit`` of a stream.
        The model can still continue learning afterwards.

        Returns
        -------
        self
        """
        self._forget_row_state()
        if self._warmup_y:  # a stream that ended during learn_one's warm-up
            self._learn_warmup()
        self._check_fitted()
        first = (self._finish_compiles and getattr(self, "verbose", 0)
                 and progress.first_use(self._finish_use))
        if first:
            progress.say(progress.first_use_notice(self._finish_use))
        with (compiled_threads(getattr(self, "n_jobs", None)),
              progress.Heartbeat(f"{self._finish_use}: first use", enabled=bool(first))):
            for learner in self.learners_:
                learner.finish()
                self._calibrator(learner).model_changed()
        return self

    # ------------------------------------------------------------------ introspection
    @property
    def model_nbytes_(self) -> int:
        """Bytes of NumPy state the fitted model holds in memory (learners and estimator
        arrays, caches left out); its file may hold less (no spare rows, no rebuildable
        matrices: ``docs/contract.md``)."""
        self._check_fitted()
        return state_nbytes(self.learners_) + sum(
            state_nbytes(v) for k, v in vars(self).items() if k.endswith("_") and k != "learners_"
        )

    def _sum_over_learners(self, attribute: str) -> int:
        self._check_fitted()
        return int(sum(getattr(learner, attribute) for learner in self.learners_))
