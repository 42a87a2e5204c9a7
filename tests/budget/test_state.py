"""The budget family's state (plain tuples of arrays with named slots, :mod:`._state`)
survives pickle, deep copy and ``streamsvm.save`` / ``load`` mid-stream, and training resumes
bit-exactly: the copies and the uninterrupted model give the same bits on the next chunks."""

import copy
import pickle

import numpy as np
import pytest

import streamsvm
from streamsvm import IncrementalSVM, RandomBudgetSVM, TwinVectorMachine
from streamsvm.budget import _state as state


def _stream():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 180)
    X = rng.normal(size=(180, 3)) + (2 * y[:, None] - 1) * np.array([1.0, 0.3, 0.0])
    return np.array_split(X, 3), np.array_split(y, 3), rng.normal(size=(40, 3))


def _machine_arrays(model):
    """The state arrays in use (files and pickles leave the spare capacity out: past the
    ``n`` examples and ``P`` margin vectors the arrays are written before they are read)."""
    learner = model.learners_[0]
    m = learner.machine.m
    n, P = learner.machine.n, learner.machine.P
    arrays = [a[:n] if k in state.M_PER_EXAMPLE else a for k, a in enumerate(m)]
    arrays[state.M_GRAM] = m[state.M_GRAM][:n, :n]
    arrays[state.M_MARGIN] = m[state.M_MARGIN][:P]
    arrays[state.M_R] = m[state.M_R][: P + 1, : P + 1]
    arrays.append(np.array(learner.machine.capacity))
    if hasattr(learner, "tw"):
        arrays += list(learner.tw)
    return arrays


def _save_load(model, tmp_path):
    path = tmp_path / "model.npz"
    streamsvm.save(model, path)
    return streamsvm.load(path)


@pytest.mark.parametrize("make", [
    lambda: TwinVectorMachine(budget=12, C=5.0, gamma=0.7),
    lambda: TwinVectorMachine(budget=12, C=5.0, gamma=0.7, merging="feature"),
    lambda: IncrementalSVM(C=5.0, gamma=0.7),
    lambda: RandomBudgetSVM(budget=25, C=5.0, gamma=0.7, random_state=2),
], ids=["tvm", "tvm_feature", "incremental", "random_budget"])
def test_round_trip_mid_stream_resumes_bit_exactly(make, tmp_path):
    chunks_X, chunks_y, X_test = _stream()
    model = make().partial_fit(chunks_X[0], chunks_y[0], classes=[0, 1])
    machine = model.learners_[0].machine
    assert isinstance(machine.m, tuple) and len(machine.m) == state.M_SIZE
    assert machine.m[state.M_IST][state.I_N] == machine.n > 0
    copies = [pickle.loads(pickle.dumps(model)), copy.deepcopy(model),
              _save_load(model, tmp_path)]
    for other in copies:
        restored = _machine_arrays(other)
        assert isinstance(other.learners_[0].machine.m, tuple)
        for a, b in zip(_machine_arrays(model), restored, strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b)
            assert not np.shares_memory(a, b)  # an independent copy
    for X, y in zip(chunks_X[1:], chunks_y[1:], strict=True):
        for m in [model, *copies]:
            m.partial_fit(X, y)
    expected = model.decision_function(X_test)
    for other in copies:
        assert np.array_equal(other.decision_function(X_test), expected)
        for a, b in zip(_machine_arrays(model), _machine_arrays(other), strict=True):
            assert np.array_equal(a, b)
