"""The per-row path of ``learn_one`` / ``predict_one`` (streamsvm.input.row_path, issue 19 item 7):
the same model, bit for bit, as the general path and as ``partial_fit`` of the same rows one
at a time; the same answers as ``predict`` / ``predict_proba``; the same refusals."""

import copy

import numpy as np
import pytest
import scipy.sparse as sp

import streamsvm
from streamsvm.base.calibration import PlattCalibrator
from streamsvm.input import row_path as _row_path
from streamsvm.linear._core import perceptron_csr

ROW_MODELS = {
    "Perceptron": lambda: streamsvm.Perceptron(average=False),
    "Pegasos": lambda: streamsvm.Pegasos(average=False),
    "Pegasos-noproj": lambda: streamsvm.Pegasos(alpha=0.01, projection=False, average=False),
    # a small alpha: the first, huge steps reach the ball ||w|| <= 1/sqrt(alpha)
    "Pegasos-ball": lambda: streamsvm.Pegasos(alpha=0.001, average=False),
    "LASVM": lambda: streamsvm.LASVM(random_state=0),
    "LASVM-poly": lambda: streamsvm.LASVM(kernel="poly", gamma=0.5, C=10.0, random_state=0),
    "LASVMG": lambda: streamsvm.LASVMG(gamma=0.3, random_state=0),
}


def dense_stream(n=300, n_keys=9, seed=0, n_classes=2):
    """Dicts with one schema (every key in every row, in one fixed order not sorted), like
    River's Phishing; some values zero."""
    rng = np.random.default_rng(seed)
    keys = [f"k{(7 * j) % n_keys}" for j in range(n_keys)]
    rows, labels = [], []
    for _ in range(n):
        y = int(rng.integers(n_classes))
        values = rng.normal(size=n_keys) + 0.8 * (y - (n_classes - 1) / 2)
        values[rng.random(n_keys) < 0.2] = 0.0
        rows.append(dict(zip(keys, values.tolist(), strict=True)))
        labels.append(y)
    return rows, labels


def sparse_stream(n=300, n_keys=40, seed=1):
    """Dicts of a few keys each out of many, in random order; new keys keep appearing."""
    rng = np.random.default_rng(seed)
    rows, labels = [], []
    for i in range(n):
        y = int(rng.random() < 0.5)
        width = min(n_keys, 5 + i // 8)
        chosen = rng.choice(width, size=min(width, 6), replace=False)
        rows.append({f"w{j}": float(rng.random() + (0.5 if (j % 2) == y else 0.0))
                     for j in chosen})
        labels.append(y)
    return rows, labels


def prequential(model, rows, labels, fast: bool):
    """River's loop: predict_one, predict_proba_one, then learn_one of each row."""
    _row_path.ENABLED = fast
    try:
        answers = []
        for x, y in zip(rows, labels, strict=True):
            answers.append((model.predict_one(x), model.predict_proba_one(x)))
            model.learn_one(x, y)
        return answers
    finally:
        _row_path.ENABLED = True


def assert_same_state(a, b, where="model"):
    """Every attribute equal, arrays bit for bit (calibration windows and counts included)."""
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape, where
        assert a.tobytes() == b.tobytes(), where
    elif sp.issparse(a):
        assert_same_state(a.toarray(), b.toarray(), where)
    elif isinstance(a, list | tuple):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (u, v) in enumerate(zip(a, b, strict=True)):
            assert_same_state(u, v, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            assert_same_state(a[k], b[k], f"{where}.{k}")
    elif hasattr(a, "__dict__") and type(a).__module__.startswith("streamsvm"):
        assert type(a) is type(b), where
        skip = {*getattr(a, "_transient", ()), "_seed_entropy", "rng"}  # unseeded randomness
        # what the object saves (a calibrator writes out the scores and rows waiting in lists)
        state_a = a._persist_state() if hasattr(a, "_persist_state") else vars(a)
        state_b = b._persist_state() if hasattr(b, "_persist_state") else vars(b)
        assert_same_state({k: v for k, v in state_a.items() if k not in skip},
                          {k: v for k, v in state_b.items() if k not in skip}, where)
    elif isinstance(a, np.random.Generator):
        pass
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b), where
    else:
        assert type(a) is type(b) and a == b, f"{where}: {a!r} != {b!r}"


@pytest.mark.parametrize("stream", [dense_stream, sparse_stream])
@pytest.mark.parametrize("name", sorted(ROW_MODELS))
def test_the_row_path_learns_the_general_paths_model_bit_for_bit(name, stream):
    rows, labels = stream()
    fast, general = ROW_MODELS[name](), ROW_MODELS[name]()
    fast_answers = prequential(fast, rows, labels, fast=True)
    general_answers = prequential(general, rows, labels, fast=False)
    assert fast_answers == general_answers
    assert "_row_state" in vars(fast)  # the row path did run
    assert_same_state(fast, general)


@pytest.mark.parametrize("name", ["LASVM", "LASVMG", "LASVM-2-jobs"])
def test_the_row_path_runs_with_the_thread_count_of_n_jobs(name):
    """learn_one's compiled loop (the LASVM family's, which has parallel paths) sees numba's
    thread count of ``n_jobs`` (None: one), as partial_fit's does, and the caller's count is
    put back: at numba's own count (every core) LASVM's kernel rows of S went parallel from
    ~3,000 columns, one parallel region per row, and rows 6,000-10,000 of Adult took up to
    20x the CPU time."""
    import numba

    cores = numba.config.NUMBA_NUM_THREADS
    if cores < 2:
        pytest.skip("numba has one thread: no count to tell apart")
    model = (streamsvm.LASVM(random_state=0, n_jobs=2) if name == "LASVM-2-jobs"
             else ROW_MODELS[name]())
    rows, labels = dense_stream(n=80, seed=2)
    prequential(model, rows[:40], labels[:40], fast=True)  # past the warm-up
    learner = model.learners_[0]
    seen = []
    run = learner._run

    def recording(*args, **kwargs):
        seen.append(numba.get_num_threads())
        return run(*args, **kwargs)

    learner._run = recording
    before = numba.get_num_threads()
    numba.set_num_threads(cores)
    try:
        prequential(model, rows[40:], labels[40:], fast=True)
        assert numba.get_num_threads() == cores  # restored
    finally:
        numba.set_num_threads(before)
        del learner._run
    assert "_row_state" in vars(model) and len(seen) == 40  # every row took the row path
    assert set(seen) == {2 if name == "LASVM-2-jobs" else 1}


@pytest.mark.parametrize("name", sorted(ROW_MODELS))
def test_learn_one_equals_partial_fit_of_the_same_rows_one_at_a_time(name):
    """With every key in the first row, ``learn_one`` is ``partial_fit`` of the rows in the
    vocabulary's column order (the keys sorted), one row per call after the warm-up's first
    chunk: decisions to 1e-12."""
    rows, labels = dense_stream(n=400, seed=3)
    keys = sorted(rows[0])
    X = np.array([[row[k] for k in keys] for row in rows])
    by_row, batch = ROW_MODELS[name](), ROW_MODELS[name]()
    for x, y in zip(rows, labels, strict=True):
        by_row.learn_one(x, y)
    first = by_row.warmup_rows_  # learn_one's warm-up: its first rows as one chunk
    batch.partial_fit(sp.csr_matrix(X[:first]), labels[:first])
    for i in range(first, len(labels)):
        batch.partial_fit(sp.csr_matrix(X[i : i + 1]), [labels[i]])
    queries = np.random.default_rng(5).normal(size=(50, len(keys)))
    np.testing.assert_allclose(by_row.decision_function(queries),
                               batch.decision_function(queries), rtol=1e-12, atol=1e-12)
    assert by_row.n_seen_ == batch.n_seen_ == len(rows)


@pytest.mark.parametrize("name", sorted(ROW_MODELS))
def test_row_answers_are_predict_and_predict_proba(name):
    rows, labels = sparse_stream(n=200)
    model = ROW_MODELS[name]()
    prequential(model, rows, labels, fast=True)
    keys = model._vocabulary.keys
    for x in rows[:40] + [{"never-seen": 2.0, keys[0]: 0.5}, {}]:
        row = model._vocabulary.row(x, model.n_features_in_)  # the general path's CSR row
        assert model.predict_one(x) == model.predict(row)[0]
        proba = list(model.predict_proba_one(x).values())
        np.testing.assert_array_equal(proba, model.predict_proba(row)[0])
        dense = np.array([[float(x.get(k, 0.0)) for k in keys]])
        np.testing.assert_allclose(proba, model.predict_proba(dense)[0], rtol=1e-12)


def test_multiclass_one_vs_rest_rows_match_the_general_path():
    rows, labels = dense_stream(n=300, n_classes=4, seed=2)
    fast, general = streamsvm.Perceptron(average=False), streamsvm.Perceptron(average=False)
    assert prequential(fast, rows, labels, True) == prequential(general, rows, labels, False)
    assert_same_state(fast, general)


@pytest.mark.parametrize("name", sorted(ROW_MODELS))
@pytest.mark.parametrize("bad_x, bad_y, error", [
    ({"k0": float("nan")}, 1, ValueError),
    ({"k0": float("inf"), "k1": 1.0}, 0, ValueError),
    ({"k0": "high"}, 1, TypeError),
    ({"k0": None}, 1, TypeError),
    ({"k0": 1e200, "k1": 1e200}, 1, ValueError),  # too large for float64 dot products
    ({"k0": 1.0}, "a string label", ValueError),
    ({"k0": 1.0}, {1: 2}, ValueError),  # unhashable
    ({"k0": 1.0}, None, ValueError),
    ({"k0": 1.0}, float("nan"), ValueError),
    ({"k0": 1.0}, 1.5, ValueError),
])
def test_bad_rows_are_refused_and_leave_the_model_unchanged(name, bad_x, bad_y, error):
    rows, labels = dense_stream(n=60)
    model = ROW_MODELS[name]()
    prequential(model, rows, labels, fast=True)
    before = copy.deepcopy(model)
    with pytest.raises(error):
        model.learn_one(bad_x, bad_y)
    assert_same_state(copy.deepcopy(model), before)  # (a copy holds no spare capacity)
    if isinstance(bad_y, int):  # the same example is refused at prediction time too
        with pytest.raises(error):
            model.predict_one(bad_x)
    model.learn_one(rows[0], labels[0])  # and the model goes on
    before.learn_one(rows[0], labels[0])
    queries = np.random.default_rng(2).normal(size=(20, model.n_features_in_))
    np.testing.assert_array_equal(model.decision_function(queries),
                                  before.decision_function(queries))


def test_set_params_and_new_classes_are_seen_by_the_row_path():
    rows, labels = dense_stream(n=100)
    fast, general = streamsvm.Perceptron(average=False), streamsvm.Perceptron(average=False)
    for model, on in ((fast, True), (general, False)):
        prequential(model, rows[:50], labels[:50], on)
        model.set_params(fit_intercept=False)
        prequential(model, rows[50:], [2 * y for y in labels[50:]], on)  # a new class, 2
    assert list(fast.classes_) == [0, 1, 2]
    assert_same_state(fast, general)


def test_the_compiled_step_is_the_chunk_loop():
    """The Perceptron's row step learns as its chunk loop on the same CSR row."""
    model = streamsvm.Perceptron(average=False)
    rows, labels = dense_stream(n=30)
    prequential(model, rows, labels, fast=True)
    learner = model.learners_[0]
    w, b = learner.coef.copy(), learner.intercept
    x = {"k0": 3.0, "k3": -2.0}
    model.learn_one(x, 0)
    cols = sorted(model._vocabulary._column[k] for k in x)
    values = [x[model._vocabulary.keys[c]] for c in cols]
    b2, _ = perceptron_csr(np.array([0, 2], dtype=np.int32), np.array(cols, dtype=np.int32),
                           np.array(values), np.array([-model._signs[0]]), w, b, True)
    np.testing.assert_array_equal(w, learner.coef)
    assert b2 == learner.intercept


@pytest.mark.parametrize("name", sorted(ROW_MODELS))
def test_a_dict_changed_between_predict_one_and_learn_one_is_learnt_as_it_is_then(name):
    """learn_one reuses the row predict_one just read only while the dict is unchanged."""
    rows, labels = dense_stream(n=120, seed=4)
    fast, general = ROW_MODELS[name](), ROW_MODELS[name]()
    for model, on in ((fast, True), (general, False)):
        _row_path.ENABLED = on
        try:
            for i, (x, y) in enumerate(zip(rows, labels, strict=True)):
                x = dict(x)
                model.predict_one(x)
                if i % 3 == 0:
                    x["k1"] = -5.0 * x["k1"] + 1.0  # changed in place after predict_one
                elif i % 3 == 1:
                    model.predict_one(rows[(i + 7) % len(rows)])  # another example between
                model.learn_one(x, 1 - y if i % 5 == 0 else y)
        finally:
            _row_path.ENABLED = True
    assert_same_state(fast, general)


@pytest.mark.parametrize("make", [
    lambda: streamsvm.Perceptron(average=False),
    lambda: streamsvm.Perceptron(fit_intercept=False, average=False),
    lambda: streamsvm.Pegasos(average=False),
    lambda: streamsvm.Pegasos(fit_intercept=False, average=False)],
    ids=["Perceptron", "Perceptron-nobias", "Pegasos", "Pegasos-nobias"])
def test_the_linear_learners_own_widening_is_the_generic_one(make):
    """``widen_features`` (no fresh learners built) gives the arrays, bit for bit, of the
    generic :func:`~streamsvm.input.widen.widen_like`, and its undo puts the learner back."""
    from streamsvm.input.widen import Undo, widen_like

    model = make()
    rows, labels = sparse_stream(n=60)
    for x, y in zip(rows, labels, strict=True):
        model.learn_one(x, y)
    learner = model.learners_[0]
    old = learner.n_features
    before = copy.deepcopy(vars(learner))
    generic = copy.deepcopy(learner)
    fresh = []
    for n in (old, old + 1):  # what StreamClassifier._widen builds for the generic widening
        shadow = copy.copy(model)
        shadow.n_features_in_ = n
        fresh.append(shadow._make_learner())
    widen_like(generic, fresh[0], fresh[1], old=old, added=3, undo=Undo())
    undo = Undo()
    assert learner.widen_features(3, undo)
    assert learner.n_features == generic.n_features == old + 3
    for name, value in vars(generic).items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(getattr(learner, name), value, strict=True)
    assert np.any(learner.weights()[0] != 0) and learner.weights()[1] == generic.weights()[1]
    undo()
    assert learner.n_features == old
    for name, value in before.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(getattr(learner, name), value, strict=True)


def test_pegasos_blocks_waiting_for_rows_grow_with_new_keys():
    """Rows waiting in a Pegasos block (``block_size`` > 1) get the new keys' zero columns:
    the grown model is the one learnt with every key present from the start."""
    rows = [({"a": 1.0}, True), ({"a": -1.0}, False), ({"a": 2.0, "b": 1.0}, True),
            ({"c": 1.0}, False), ({"a": 1.0, "d": 2.0}, True), ({"a": -1.0, "e": 1.0}, False),
            ({"f": 1.0}, True)] * 3
    all_keys = ["a", "b", "c", "d", "e", "f"]
    grown = streamsvm.Pegasos(block_size=4, average=False)
    full = streamsvm.Pegasos(block_size=4, average=False)
    for x, y in rows:
        grown.learn_one(x, y)
        full.learn_one({key: x.get(key, 0.0) for key in all_keys}, y)
    assert grown._vocabulary.keys == all_keys
    assert grown.learners_[0].pending_y.shape == (1,)
    np.testing.assert_array_equal(grown.coef_, full.coef_)
    np.testing.assert_array_equal(grown.intercept_, full.intercept_)


def test_the_ball_models_steps_reach_the_projection():
    """The "Pegasos-ball" stream above does reach the ball's surface, where the row step
    runs the exact projection test it skips well inside the ball (so the bit-for-bit test
    covers both branches)."""
    model = ROW_MODELS["Pegasos-ball"]()
    rows, labels = dense_stream()
    near = 0
    for x, y in zip(rows, labels, strict=True):
        model.predict_one(x)
        model.learn_one(x, y)
        learner = model.learners_[0]
        near += learner.scale ** 2 * learner.sqnorm_v * learner.alpha >= 0.99
    assert 20 < near < len(rows) - 20


def test_weights_the_compiled_steps_cannot_take_leave_the_row_path():
    """A learner whose weights are not 1-D float64 C-contiguous (e.g. from a damaged file)
    takes the general path, whose answers stay right."""
    assert _row_path.plain_float_arrays(np.zeros(3))
    assert not _row_path.plain_float_arrays(np.zeros(3, np.float32))
    assert not _row_path.plain_float_arrays(np.zeros(6)[::2])
    assert not _row_path.plain_float_arrays(np.zeros(3, np.int64))
    frozen = np.zeros(3)
    frozen.flags.writeable = False
    assert not _row_path.plain_float_arrays(frozen)
    rows, labels = dense_stream(n=60)
    model = streamsvm.Perceptron(average=False)
    prequential(model, rows[:40], labels[:40], fast=True)
    learner = model.learners_[0]
    model._forget_row_state()
    learner.coef = np.asfortranarray(np.stack([learner.coef, learner.coef]))[0]  # strided
    assert not learner.coef.flags.c_contiguous
    assert model._new_row_state() is None
    expected = [model.predict(model._example_row(x, learn=False))[0] for x in rows[40:]]
    assert [model.predict_one(x) for x in rows[40:]] == expected


@pytest.mark.parametrize("window", [50, 2000])
def test_learnt_rows_listed_then_written_equal_rows_recorded_one_by_one(window):
    """``record_learnt_row`` lists rows and writes them in batches (module doc of
    :mod:`streamsvm.base.calibration`): the window of scores and the kept rows equal what
    recording each row at once gives, across batches, a window smaller than a batch, and
    widths that change in the middle of a batch (the rows of an old width dropped)."""
    rng = np.random.default_rng(7)
    listed, reference = PlattCalibrator(window=window), PlattCalibrator(window=window)
    for calibrator in (listed, reference):
        calibrator.keep_rows_for_rescoring(3)
    width = 3
    for i in range(700):
        if i in (100, 130, 400):
            width += 2
        columns = np.sort(rng.choice(width, size=2, replace=False)).astype(np.int64)
        values = rng.normal(size=2)
        score, label = float(rng.normal()), (1.0 if rng.random() < 0.4 else -1.0)
        listed.record_learnt_row(score, label, columns.tobytes(), values.tobytes(), width)
        # the reference: the score now, the row as a dense row now
        if reference.n_learned:
            reference.record_one(score, label)
        reference.n_learned += 1
        if reference._fit_width(width):
            row = np.zeros((1, width))
            row[0, columns] = values
            reference.keep_rows(row, [label])
        if i in (99, 255, 420):  # reads in the middle of a batch write out what waits
            assert_same_state(listed.prequential(), reference.prequential())
    assert_same_state(listed.prequential(), reference.prequential())
    assert listed.n_rows_kept == reference.n_rows_kept == 300
    assert_same_state(listed.held_rows(), reference.held_rows())
