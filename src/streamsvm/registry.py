"""The estimators of the library, by name (for the CLI, the demo and the test harness)."""

from __future__ import annotations

import importlib

__all__ = ["ESTIMATORS", "available_estimators", "get_estimator"]

#: name -> "module:Class"; every estimator of the library is listed here once.
ESTIMATORS: dict[str, str] = {
    "StreamSVM": "streamsvm.meb.streamsvm:StreamSVM",
    "BlurredBallSVM": "streamsvm.meb.blurred:BlurredBallSVM",
    "Perceptron": "streamsvm.linear.perceptron:Perceptron",
    "Pegasos": "streamsvm.linear.pegasos:Pegasos",
    "LASVM": "streamsvm.lasvm.lasvm:LASVM",
    "LASVMG": "streamsvm.lasvm.variants:LASVMG",
    "LASVMNC": "streamsvm.lasvm.variants:LASVMNC",
    "LASVMI": "streamsvm.lasvm.variants:LASVMI",
    "FullSVM": "streamsvm.lasvm.variants:FullSVM",
    "ActiveSVM": "streamsvm.active.estimator:ActiveSVM",
    "IncrementalSVM": "streamsvm.budget.incremental:IncrementalSVM",
    "TwinVectorMachine": "streamsvm.budget.tvm:TwinVectorMachine",
    "RandomBudgetSVM": "streamsvm.budget.baselines:RandomBudgetSVM",
    "Forgetron": "streamsvm.budget.baselines:Forgetron",
    "BudgetPerceptron": "streamsvm.budget.baselines:BudgetPerceptron",
    "DistributedL2SVM": "streamsvm.distributed.estimator:DistributedL2SVM",
}


def available_estimators() -> dict[str, type]:
    """Map of estimator name to class, in the order of :data:`ESTIMATORS`."""
    out = {}
    for name, target in ESTIMATORS.items():
        module, _, attr = target.partition(":")
        out[name] = getattr(importlib.import_module(module), attr)
    return out


def get_estimator(name: str) -> type:
    """The estimator class called ``name`` (case-insensitive)."""
    estimators = available_estimators()
    for known, cls in estimators.items():
        if known.lower() == name.lower():
            return cls
    raise ValueError(f"unknown estimator {name!r}; choose one of: {', '.join(estimators)}")
