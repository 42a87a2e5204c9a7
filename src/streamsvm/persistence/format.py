"""The model file's format: its version, the header's keys, and the compatibility
tables (moved classes, state migrations, parameters added by a version)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import numpy as np

FORMAT = "streamsvm-model"
#: 1: streamsvm 0.1.0; 2: the header declares every array's dtype and shape; 3: learners
#: saved without caches and spare capacity, IncrementalSVM's Gram matrix rebuilt on load;
#: 4: Pegasos has a bias (``fit_intercept``); 5: the Twin Vector Machine merges same-label
#: twins first, the BudgetPerceptron removes by errors, LASVM-NC/-I seed S (new parameters
#: whose old behaviour files of version < 5 keep); 6: the Forgetron's ``gamma_factor``;
#: 7: each array's declaration holds its SHA-256 digest, dicts with keys other than strings
#: (``class_weight={0: 1, 1: 3}``) are saved as ``{"__items__": [[key, value], ...]}``, and a
#: calibrator's kept rows may be float64 (rows beyond float32's range); 8: Pegasos and the
#: Perceptron have ``average`` (older files keep the last iterate).
FORMAT_VERSION = 8
_HEADER = "__streamsvm_header__"

#: Classes that have moved: old dotted path (as written in files) -> today's dotted path.
#: When a saved class moves, add one line here, e.g.
#: ``"streamsvm.lasvm._core.Expansion": "streamsvm.lasvm.expansion.Expansion"``.
MOVED_CLASSES: dict[str, str] = {
    # moved when the top-level modules were grouped into the folders of their layers
    "streamsvm.vocabulary.FeatureVocabulary": "streamsvm.input.vocabulary.FeatureVocabulary",
    "streamsvm.calibration.PlattCalibrator": "streamsvm.base.calibration.PlattCalibrator",
    "streamsvm.calibration.CsrRows": "streamsvm.base.kept_rows.CsrRows",
    "streamsvm.calibration.DenseRows": "streamsvm.base.kept_rows.DenseRows",
    # moved when base/calibration.py was split (the Platt fit, the kept rows, the calibrator)
    "streamsvm.base.calibration.CsrRows": "streamsvm.base.kept_rows.CsrRows",
    "streamsvm.base.calibration.DenseRows": "streamsvm.base.kept_rows.DenseRows",
}

#: Upgrades of saved state: ``(version, class path) -> upgrade(state, params)``, applied to
#: every object of that class (today's path) in files of format version below ``version``,
#: before the object is built. ``state`` is the object's decoded attribute dict (arrays,
#: numbers, already-built nested objects), changed in place; ``params`` the estimator's
#: decoded constructor parameters (read only). Bump :data:`FORMAT_VERSION` with each entry.
def _machine_saved_its_gram(state: dict, params: dict) -> None:
    """Before format 3, every incremental-SVM machine saved its Gram matrix."""
    state.setdefault("rebuild_gram_on_load", False)


def _lasvm_rows_without_positions(state: dict, params: dict) -> None:
    """Before format 3, LASVM's store did not record each row's stream position: unknown
    (-1) for the rows of the file, so ``support_`` says it cannot answer."""
    rows = np.asarray(state.get("ys", ())).shape[0]
    state.setdefault("stream_pos", np.full(rows, -1, dtype=np.int64))
    state.setdefault("stream_offset", 0)


def _pegasos_without_bias(state: dict, params: dict) -> None:
    """Before format 4, Pegasos had no bias: its weights ``v`` are the features' only."""
    state.setdefault("fit_intercept", False)


STATE_MIGRATIONS: dict[tuple[int, str], Callable[[dict, dict], None]] = {
    (3, "streamsvm.budget._machine.Machine"): _machine_saved_its_gram,
    (3, "streamsvm.lasvm.learner._Learner"): _lasvm_rows_without_positions,
    (3, "streamsvm.active.learner._ActiveLearner"): _lasvm_rows_without_positions,
    (4, "streamsvm.linear.pegasos._PegasosLearner"): _pegasos_without_bias,
}

#: Constructor parameters added in a format version, with the value that gives the behaviour
#: of the files written before it (a new parameter's default may differ):
#: ``(version, estimator class path) -> {name: value}``, used where a file of an older format
#: does not name the parameter.
ADDED_PARAMETERS: dict[tuple[int, str], dict] = {
    (4, "streamsvm.linear.pegasos.Pegasos"): {"fit_intercept": False},
    (5, "streamsvm.budget.tvm.TwinVectorMachine"): {"same_label_merging": False},
    (5, "streamsvm.budget.baselines.BudgetPerceptron"): {"removal": "margin"},
    (5, "streamsvm.lasvm.variants.LASVMNC"): {"n_seed": 0},
    (5, "streamsvm.lasvm.variants.LASVMI"): {"n_seed": 0},
    (6, "streamsvm.budget.baselines.Forgetron"): {"gamma_factor": 1.0},
    # format 8: Pegasos and the Perceptron predict with averaged iterates by default
    (8, "streamsvm.linear.pegasos.Pegasos"): {"average": False},
    (8, "streamsvm.linear.perceptron.Perceptron"): {"average": False},
}

_HEADER_KEYS_V1 = {"format", "format_version", "library_version", "estimator", "params", "state"}
_HEADER_KEYS = {1: _HEADER_KEYS_V1, 2: _HEADER_KEYS_V1 | {"arrays"}}
for _version in range(3, FORMAT_VERSION + 1):
    _HEADER_KEYS[_version] = _HEADER_KEYS[2]
#: the first format version whose array declarations hold a digest
_DIGEST_VERSION = 7
#: numpy scalar kinds a dict key may be (bool, ints, unsigned ints, floats, strings)
_KEY_KINDS = "biufU"
_ARRAY_KINDS = "biufU"  # bool, ints, unsigned ints, floats, unicode strings
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
_CLASS_PATH = re.compile(r"streamsvm(\.[A-Za-z_][A-Za-z0-9_]*)+")
_NONFINITE_FLOATS = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


class ModelFileError(ValueError):
    """A model file that is truncated, foreign, newer than this library, or inconsistent."""


class _Problem(Exception):
    """The first problem found in a file (turned into ModelFileError naming the file)."""

