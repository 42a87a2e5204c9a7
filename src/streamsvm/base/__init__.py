"""The estimator contract every streamsvm classifier follows.

Each algorithm of the library is written once, as a :class:`BinaryLearner`: the state of one
two-class problem with labels ±1, updated a chunk at a time by jitted code. The estimator
class around it (a :class:`StreamClassifier`) supplies everything else, over that one state:

* the scikit-learn face: ``fit``, ``partial_fit(X, y, classes=None)``, ``predict``,
  ``decision_function``, ``score``, ``get_params``/``set_params``;
* the River face: ``learn_one(x, y)``, ``predict_one(x)`` and ``predict_proba_one(x)``, with
  ``x`` a 1-D array or a dict of feature -> value;
* probabilities (``predict_proba``), always available: Platt scaling of each binary learner's
  decision values, fitted on its prequential scores (:mod:`streamsvm.base.calibration`);
* any labels, and more than two classes by one-vs-rest over the binary learner;
* input validation before any state changes, so a rejected call leaves the model as it was
  (non-finite values, rows too large for the model's kernel, labels of another type).

Classes may be declared up front (``fit`` sees them all; ``partial_fit(..., classes=...)``
declares them) or discovered as the stream shows them. ``classes_`` is always sorted and of
one kind: numbers (equal values are one class: ``1``, ``1.0`` and ``True``; a new class takes
the dtype ``classes_`` started with when that is exact) or strings (no empty string); a call
whose labels are of the other kind is refused. When a
stream grows from one class to two, the single learner is re-targeted by flipping the sign
of its labels and scores; when it grows past two, the binary learner becomes the
one-vs-rest learner of its positive class and a sign-flipped copy of it the learner of the
other class, both exact continuations of what was learnt, while classes new to the stream
get fresh learners (they start from the moment their class first appears).

The contract is in parts, one module each (``docs/design.md`` draws who calls whom):
:mod:`~streamsvm.base.learner` (the binary learner and what a file keeps of it),
:mod:`~streamsvm.base.inputs` (input checks), :mod:`~streamsvm.base.classes` (classes and
one-vs-rest), :mod:`~streamsvm.base.chunks` (``fit`` and ``partial_fit``),
:mod:`~streamsvm.base.recording` (scores kept for probabilities),
:mod:`~streamsvm.base.prediction` (predictions over arrays), :mod:`~streamsvm.base.rows`
(River's per-example face) and :mod:`~streamsvm.base.classifier`, which assembles them.
"""

from .chunks import SampleWeightMixin
from .classifier import StreamClassifier
from .learner import (
    ROW_SQNORM_LIMIT,
    BinaryLearner,
    pad_spare_rows,
    refuse_rows,
    state_nbytes,
    trim_spare_rows,
)

__all__ = [
    "ROW_SQNORM_LIMIT", "BinaryLearner", "SampleWeightMixin", "StreamClassifier",
    "pad_spare_rows", "refuse_rows", "state_nbytes", "trim_spare_rows",
]
