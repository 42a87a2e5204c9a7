"""streamsvm: support vector machines that learn from streams.

Every estimator is a scikit-learn classifier (``fit``, ``partial_fit``, ``predict``,
``decision_function``) and a River-style streaming learner (``learn_one``, ``predict_one``)
over the same state. Models are saved and resumed mid-stream with :func:`save` / :func:`load`.
"""

from pathlib import Path as _Path

from ._compiled_cache import refresh as _refresh_compiled_cache
from ._version import __version__

_refresh_compiled_cache(_Path(__file__).parent)  # before any compiled loop is loaded
from .active import ActiveLearner, ActiveSampler, ActiveSVM  # noqa: E402
from .base.collapse import CollapseWarning  # noqa: E402
from .budget import (  # noqa: E402
    BudgetPerceptron,
    Forgetron,
    IncrementalSVM,
    RandomBudgetSVM,
    TwinVectorMachine,
)
from .distributed import DistributedL2SVM  # noqa: E402
from .evaluate import holdout, prequential  # noqa: E402
from .lasvm import LASVM, LASVMG, LASVMI, LASVMNC, FullSVM  # noqa: E402
from .linear import Pegasos, Perceptron  # noqa: E402
from .meb import BlurredBallSVM, StreamSVM  # noqa: E402
from .persistence import load, save  # noqa: E402

__all__ = [
    "StreamSVM",
    "BlurredBallSVM",
    "Perceptron",
    "Pegasos",
    "IncrementalSVM",
    "TwinVectorMachine",
    "RandomBudgetSVM",
    "Forgetron",
    "BudgetPerceptron",
    "LASVM",
    "LASVMG",
    "LASVMNC",
    "LASVMI",
    "FullSVM",
    "ActiveSVM",
    "ActiveLearner",
    "ActiveSampler",
    "DistributedL2SVM",
    "CollapseWarning",
    "save",
    "load",
    "prequential",
    "holdout",
    "__version__",
]
