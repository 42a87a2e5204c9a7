"""Refactoring the compiled code must not change any result: LASVM (each selection, dense and
sparse), LASVM-G / -NC / -I / FULL SVM, active selection, the incremental SVM and the Twin
Vector Machine give bit-identical decision values to those recorded before the split of
``lasvm/_core.py``, the move of the cache's compiled functions and the named budget-state
slots (``tests/data/bit_identical.npz``, written by running this module as a script).

Re-recorded once on purpose: the LASVM family's dense kernel rows of data with few features
now come from the panel of S (``lasvm._panel_core``), whose dot products sum the features in
order; on these 4 features that moved the decisions by at most 5e-15.

Bit for bit on the machine that recorded them, within :data:`ACROSS_CPUS` elsewhere: numba
compiles for the CPU at hand, and the dense dot products, compiled with ``reassoc`` and
``contract`` (``kernels._core._DOT_FLAGS``), are vectorised to its vector units, so another CPU
may round them otherwise (an AMD EPYC with AVX2 against the recording machine: at most 1.8e-15
on the dense LASVM-family cases; the sparse, incremental, budget and TVM cases bit for bit). A
change of the algorithm moves decisions by far more."""

import os

import numpy as np
import pytest
import scipy.sparse as sp

from streamsvm.active import ActiveSVM
from streamsvm.budget import IncrementalSVM, RandomBudgetSVM, TwinVectorMachine
from streamsvm.lasvm import LASVM, LASVMG, LASVMI, LASVMNC, FullSVM

REFERENCE = os.path.join(os.path.dirname(__file__), "data", "bit_identical.npz")
#: the most a decision may differ from the reference on another CPU (see the module doc)
ACROSS_CPUS = 1e-13


def _problem():
    rng = np.random.default_rng(16)
    n, d = 240, 4
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, d)) + 1.2 * (2 * y[:, None] - 1) * np.array([1.0, 0.5, 0.0, 0.0])
    X_test = rng.normal(size=(60, d)) * 1.5
    return X, y, X_test


def _cases():
    lasvm = dict(C=2.0, gamma=0.5, shuffle=True, random_state=3, cache_size=0.05)
    gap = dict(C=2.0, gamma=0.5, shuffle=True, random_state=3, clean_every=50, max_non_sv=20)
    return {
        "lasvm_random": lambda: LASVM(**lasvm),
        "lasvm_gradient": lambda: LASVM(selection="gradient", n_candidates=10, **lasvm),
        "lasvm_active": lambda: LASVM(selection="active", n_candidates=10, **lasvm),
        "lasvm_autoactive": lambda: LASVM(selection="autoactive", epochs=2, **lasvm),
        "lasvm_first_order": lambda: LASVM(finishing_selection="first-order", delta_max=0.5,
                                           **lasvm),
        "lasvm_sparse": lambda: LASVM(**lasvm),
        "lasvmg": lambda: LASVMG(**gap),
        "lasvmnc": lambda: LASVMNC(s=-0.5, n_seed=0, **gap),  # n_seed=0, scale_C=True and
        "lasvmi": lambda: LASVMI(s=-0.5, n_seed=0, **gap),  # same_label_merging=False: the
        # rules as they were when the references were recorded (the defaults changed since)
        "fullsvm": lambda: FullSVM(C=2.0, gamma=0.5, shuffle=True, random_state=3, epochs=2),
        "active": lambda: ActiveSVM(C=2.0, gamma=0.5, pool_size=10, window=20,
                                    random_state=5),
        "incremental": lambda: IncrementalSVM(C=2.0, gamma=0.5),
        "random_budget": lambda: RandomBudgetSVM(budget=30, C=2.0, gamma=0.5, random_state=7),
        "tvm": lambda: TwinVectorMachine(budget=20, C=2.0, gamma=0.5, scale_C=True,
                                         same_label_merging=False),
    }


def _decisions(name, make):
    X, y, X_test = _problem()
    if name == "lasvm_sparse":
        X, X_test = sp.csr_matrix(X), sp.csr_matrix(X_test)
    model = make()
    if name == "active":
        model.fit(X, y)
    else:
        for part in np.array_split(np.arange(X.shape[0]), 3):  # a stream of three chunks
            model.partial_fit(X[part], y[part], classes=[0, 1])
    return np.asarray(model.decision_function(X_test), dtype=np.float64)


@pytest.mark.parametrize("name", sorted(_cases()))
def test_decisions_bit_identical_to_before_the_refactoring(name):
    with np.load(REFERENCE) as reference:
        expected = reference[name]
    got = _decisions(name, _cases()[name])
    assert got.shape == expected.shape
    if not np.array_equal(got.view(np.int64), expected.view(np.int64)):
        np.testing.assert_allclose(got, expected, rtol=0, atol=ACROSS_CPUS)


if __name__ == "__main__":
    np.savez(REFERENCE, **{name: _decisions(name, make) for name, make in _cases().items()})
