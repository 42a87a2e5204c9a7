"""Issue 40, items 5-8 and 11 and two of its unclear messages, over every registered estimator
where the defect could be shared: CSR rows holding one column twice are read as scipy reads
them (summed) by all; a refused call after ``learn_one``'s warm-up changes nothing; a refused
or failed first call leaves the model unfitted; BlurredBallSVM refuses kernels that are not
positive semi-definite in its parameter check; DistributedL2SVM checks a table's column names
as the others do, and each of its models owns its checkpoint folder; text as X is refused
naming X's dtype."""

import copy
import gc
import os
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

import streamsvm
from streamsvm.registry import available_estimators

ESTIMATORS = available_estimators()
NAMES = sorted(ESTIMATORS)


def _problem(n=40, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) < 0.3] = 0.0
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
    y[:2] = [-1, 1]
    return X, y


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _new(name, **params):
    if name == "DistributedL2SVM":
        params.setdefault("n_sites", 3)
    if "random_state" in ESTIMATORS[name]().get_params():
        params.setdefault("random_state", 0)  # two models of one problem, one model
    return ESTIMATORS[name](**params)


# ---------------------------------------------------------------- item 5: duplicate entries


def _with_duplicates(X, *, shuffle: bool, seed=0):
    """A CSR matrix equal (as scipy reads it) to ``X``, each stored value split into two
    entries of half its value at the same column (halving is exact, so the sums are the
    very values of ``X``), the entries of each row in a shuffled order if ``shuffle``."""
    rng = np.random.default_rng(seed)
    canonical = sp.csr_matrix(X)
    data, indices, indptr = [], [], [0]
    for i in range(X.shape[0]):
        lo, hi = canonical.indptr[i], canonical.indptr[i + 1]
        cols = np.repeat(canonical.indices[lo:hi], 2)
        vals = np.repeat(canonical.data[lo:hi] / 2, 2)
        if shuffle:
            order = rng.permutation(cols.size)
            cols, vals = cols[order], vals[order]
        data.extend(vals)
        indices.extend(cols)
        indptr.append(len(data))
    out = sp.csr_matrix((np.array(data), np.array(indices, dtype=np.int32),
                         np.array(indptr, dtype=np.int32)), shape=X.shape)
    assert not out.has_canonical_format
    np.testing.assert_array_equal(out.toarray(), X)  # scipy sums them
    return out


def _arrays(X):
    return X.data.copy(), X.indices.copy(), X.indptr.copy()


def _assert_unchanged(X, arrays):
    for now, before in zip((X.data, X.indices, X.indptr), arrays, strict=True):
        np.testing.assert_array_equal(now, before)


@pytest.mark.parametrize("shuffle", [False, True], ids=["sorted", "unsorted"])
@pytest.mark.parametrize("name", NAMES)
def test_duplicate_csr_entries_are_summed_for_every_estimator(name, shuffle):
    """The same rows with each value stored as two halves: the model learnt and its
    decisions are those of the canonical matrix, bit for bit, and the caller's matrix is
    not changed (the sum is made on a copy)."""
    X, y = _problem()
    canonical = sp.csr_matrix(X)
    doubled = _with_duplicates(X, shuffle=shuffle)
    kept = _arrays(doubled)
    reference = _quiet(_new(name).fit, canonical, y)
    model = _quiet(_new(name).fit, doubled, y)
    _assert_unchanged(doubled, kept)
    expected = reference.decision_function(canonical)
    np.testing.assert_array_equal(model.decision_function(canonical), expected)
    np.testing.assert_array_equal(reference.decision_function(doubled), expected)
    _assert_unchanged(doubled, kept)
    # a stream's chunks (partial_fit) and the scipy array class read them the same way
    streamed = _new(name)
    _quiet(streamed.partial_fit, doubled[:20], y[:20], classes=[-1, 1])
    _quiet(streamed.partial_fit, sp.csr_array(doubled[20:]), y[20:])
    again = _new(name)
    _quiet(again.partial_fit, canonical[:20], y[:20], classes=[-1, 1])
    _quiet(again.partial_fit, canonical[20:], y[20:])
    np.testing.assert_array_equal(streamed.decision_function(canonical),
                                  again.decision_function(canonical))
    _assert_unchanged(doubled, kept)


def test_the_issue_row_with_a_duplicate_column_gives_scipys_decision():
    """The reproducer: one row holding column 1 twice, for LASVM's family and ActiveSVM
    (which read it otherwise than scipy), and a COO matrix with duplicates alike."""
    X, y = _problem(n=60)
    row = sp.csr_matrix((np.array([0.5, 0.3, 1.0]), np.array([1, 1, 2]), np.array([0, 3])),
                        shape=(1, 4))
    summed = sp.csr_matrix(np.array([[0.0, 0.8, 1.0, 0.0]]))
    coo = sp.coo_matrix((np.array([0.5, 0.3, 1.0]), (np.zeros(3, int), np.array([1, 1, 2]))),
                        shape=(1, 4))
    for name in ("LASVM", "LASVMG", "LASVMNC", "LASVMI", "FullSVM", "ActiveSVM"):
        model = _quiet(_new(name).fit, sp.csr_matrix(X), y)
        expected = model.decision_function(summed)
        np.testing.assert_array_equal(model.decision_function(row), expected)
        np.testing.assert_array_equal(model.decision_function(coo), expected)
        np.testing.assert_array_equal(model.predict(row), model.predict(summed))
    assert row.indices.tolist() == [1, 1, 2] and row.data.tolist() == [0.5, 0.3, 1.0]


def test_check_features_sums_duplicates_and_keeps_the_input():
    from streamsvm.input.validation import check_features

    X = sp.csr_matrix((np.array([1.0, 2.0, 4.0]), np.array([2, 0, 2]), np.array([0, 3])),
                      shape=(1, 3))
    kept = _arrays(X)
    out = check_features(X)
    assert out.has_canonical_format
    assert out.indices.tolist() == [0, 2] and out.data.tolist() == [2.0, 5.0]
    assert out.indices.dtype == np.int32 and out.data.dtype == np.float64
    _assert_unchanged(X, kept)
    # a canonical matrix in the internal layout is taken as it is
    assert check_features(out) is out


# ---------------------------------------------------------------- item 8: warm-up and refusals


def _warmed(name, n_rows=3):
    X, y = _problem()
    model = _new(name)
    for i in range(n_rows):
        _quiet(model.learn_one, X[i], y[i])
    return model, X, y


def _state(model):
    """What a refused call must not change: the attributes' names, fitted or not, the
    warm-up examples, and the decisions of a fitted model."""
    warm = model.__dict__.get("_warmup_labels", [])
    fitted = model.__sklearn_is_fitted__()
    X, _ = _problem()
    return (sorted(vars(model)), fitted, list(warm), getattr(model, "n_seen_", None),
            _quiet(model.decision_function, X) if fitted else None)


def _assert_same_state(a, b):
    assert a[:4] == b[:4]
    if a[4] is None:
        assert b[4] is None
    else:
        np.testing.assert_array_equal(a[4], b[4])


def _refusals(X, y):
    nan = X[:5].copy()
    nan[-1, 0] = np.nan
    huge = X[:5].copy()
    huge[-1, 0] = 1e300
    return {
        "wrong width": (X[:5, :3], y[:5]),
        "NaN in the last row": (nan, y[:5]),
        "a row too large": (huge, y[:5]),
        "labels of another kind": (X[:5], np.array(["a", "b", "a", "b", "a"])),
        "y of another length": (X[:5], y[:4]),
    }


@pytest.mark.parametrize("name", NAMES)
def test_a_refused_partial_fit_after_warm_up_rows_changes_nothing(name):
    """learn_one's first rows, then a partial_fit that must be refused: the model is as it
    was (warm-up models: unfitted, the 3 examples still gathered; the others: fitted on the 3
    rows, n_seen_ 3), and then learns exactly as a model that never saw the refused call."""
    model, X, y = _warmed(name)
    warmup = model._learn_one_warmup()
    before = _state(model)
    assert before[1] == (warmup <= 3)
    for what, (Xbad, ybad) in _refusals(X, y).items():
        with pytest.raises(ValueError):
            _quiet(model.partial_fit, Xbad, ybad)
        _assert_same_state(before, _state(model))
        if not before[1]:
            with pytest.raises(NotFittedError):
                model.predict(X[:2])
            assert model.predict_one(X[0]) == _warmed(name)[0].predict_one(X[0]), what
    reference, _, _ = _warmed(name)
    _quiet(model.partial_fit, X[3:], y[3:])
    _quiet(reference.partial_fit, X[3:], y[3:])
    assert model.n_seen_ == reference.n_seen_ == X.shape[0]
    np.testing.assert_array_equal(model.decision_function(X), reference.decision_function(X))


class _Boom(RuntimeError):
    pass


@pytest.mark.parametrize("name", ["Pegasos", "LASVM", "BlurredBallSVM", "IncrementalSVM",
                                  "StreamSVM"])
def test_a_first_call_whose_learning_fails_leaves_the_model_as_it_was(name, monkeypatch):
    """The learners fail (as BlurredBallSVM's solver did on a sigmoid Gram matrix): a first
    partial_fit leaves the model unfitted, with its warm-up examples; a fit of a fitted model
    keeps the previous model."""
    X, y = _problem()
    fitted = _quiet(_new(name).fit, X, y)
    expected = fitted.decision_function(X)
    warm, _, _ = _warmed(name)
    fresh = _new(name)

    def boom(self, *args, **kwargs):
        raise _Boom("the learner failed")

    monkeypatch.setattr(type(fitted), "_learn", boom)  # once the learners are made
    with pytest.raises(_Boom):
        _quiet(fresh.partial_fit, X, y)
    assert not hasattr(fresh, "classes_") and not hasattr(fresh, "n_seen_")
    before = _state(warm)
    if not before[1]:  # warming up (gamma='scale'): its first call learns the examples too
        with pytest.raises(_Boom):
            _quiet(warm.partial_fit, X[3:], y[3:])
        _assert_same_state(before, _state(warm))
    with pytest.raises(_Boom):
        _quiet(fitted.fit, X[::-1], y[::-1])
    monkeypatch.undo()
    np.testing.assert_array_equal(fitted.decision_function(X), expected)
    assert fitted.n_seen_ == X.shape[0]


# ---------------------------------------------------------------- item 7: PSD kernels


@pytest.mark.parametrize("call", ["fit", "partial_fit", "learn_one", "set_params"])
def test_blurred_ball_refuses_the_sigmoid_kernel_in_its_parameter_check(call):
    X, y = _problem()
    model = streamsvm.BlurredBallSVM(kernel="sigmoid")
    pattern = r"kernel='sigmoid' is invalid.*positive semi-definite.*'sigmoid' is not one"
    with pytest.raises(ValueError, match=pattern):
        if call == "fit":
            model.fit(X, y)
        elif call == "partial_fit":
            model.partial_fit(X, y)
        elif call == "learn_one":
            model.learn_one(X[0], y[0])
        else:
            model = streamsvm.BlurredBallSVM().fit(X, y)
            before = model.decision_function(X)
            model.set_params(kernel="sigmoid")
    if call == "set_params":
        assert model.kernel == "linear"
        np.testing.assert_array_equal(model.decision_function(X), before)
    else:
        assert not hasattr(model, "classes_") and not model.__dict__.get("_warmup_labels")
        with pytest.raises(NotFittedError):
            model.predict(X)


def test_blurred_ball_refuses_poly_with_a_negative_coef0_and_takes_the_psd_kernels():
    X, y = _problem()
    model = streamsvm.BlurredBallSVM(kernel="poly", coef0=-1.0)
    with pytest.raises(ValueError, match=r"coef0=-1.0 is invalid.*not positive semi-definite"):
        model.partial_fit(X, y)
    assert not hasattr(model, "classes_")
    for params in ({"kernel": "linear"}, {"kernel": "rbf"}, {"kernel": "poly", "coef0": 1.0},
                   {"kernel": "poly", "coef0": 0.0, "degree": 2}):
        model = streamsvm.BlurredBallSVM(**params).fit(X, y)
        assert np.isfinite(model.decision_function(X)).all()


def test_the_warm_up_command_compiles_no_sigmoid_step_for_the_blurred_ball():
    from streamsvm.cli.warmup import kernels_of

    assert kernels_of(streamsvm.BlurredBallSVM) == ["linear", "rbf", "poly"]
    assert "sigmoid" in kernels_of(streamsvm.LASVM)  # others keep it


# ---------------------------------------------------------------- item 6: column names

pd = pytest.importorskip("pandas")


def _table(n=40):
    X, y = _problem(n=n, d=3)
    return pd.DataFrame(X, columns=["age", "income", "score"]), y


def test_distributed_l2svm_passes_scikit_learns_column_name_check():
    from sklearn.utils.estimator_checks import check_dataframe_column_names_consistency

    check_dataframe_column_names_consistency("DistributedL2SVM",
                                             streamsvm.DistributedL2SVM(n_sites=2))


def test_distributed_l2svm_refuses_reordered_and_renamed_columns_before_anything_changes():
    df, y = _table()
    model = streamsvm.DistributedL2SVM(n_sites=3, kernel="linear").fit(df, y)
    np.testing.assert_array_equal(model.feature_names_in_, ["age", "income", "score"])
    before = model.decision_function(df)
    reordered = df[["score", "age", "income"]]
    renamed = df.rename(columns={"age": "years"})
    for method in (model.predict, model.decision_function, model.predict_proba):
        with pytest.raises(ValueError, match="same order as they were in fit"):
            method(reordered)
        with pytest.raises(ValueError, match="unseen at fit time:\n- years\n"):
            method(renamed)
    with pytest.raises(ValueError, match="same order as they were in fit"):
        model.partial_fit(reordered, y)
    assert model.n_seen_ == len(y)
    np.testing.assert_array_equal(model.decision_function(df), before)
    # learning from the table itself raises no warning about its own names
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.partial_fit(df, y)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        model.predict(df.to_numpy())
    model.fit(df.to_numpy(), y)  # a new fit on arrays forgets the names
    assert not hasattr(model, "feature_names_in_")


def test_distributed_l2svm_names_survive_save_and_load(tmp_path):
    df, y = _table()
    model = streamsvm.DistributedL2SVM(n_sites=2, kernel="linear").fit(df, y)
    streamsvm.save(model, tmp_path / "m.npz")
    loaded = streamsvm.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(loaded.feature_names_in_, model.feature_names_in_)
    with pytest.raises(ValueError, match="same order"):
        loaded.predict(df[["income", "age", "score"]])


# ---------------------------------------------------------------- item 11: checkpoint folders


def _distributed(**params):
    X, y = _problem(n=40, d=3)
    params = {"n_sites": 3, "kernel": "linear", "checkpoint_every": 5, **params}
    return streamsvm.DistributedL2SVM(**params), X, y


def _folder(model):
    return model.tracker_.network.layer.checkpoint_dir


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copy_of_a_distributed_model_owns_its_checkpoint_folder(how):
    """Drop the original: the copy learns on (it has its own folder, checkpointed anew),
    restarts a crashed site from its own checkpoints, and gives the model the original
    would have given."""
    model, X, y = _distributed()
    model.fit(X[:20], y[:20])
    reference = copy.deepcopy(model) if how == "pickle" else pickle.loads(pickle.dumps(model))
    twin = copy.deepcopy(model) if how == "deepcopy" else pickle.loads(pickle.dumps(model))
    assert _folder(twin) != _folder(model) and os.listdir(_folder(twin))
    assert twin.communication_report() == model.communication_report()
    original_folder = _folder(model)
    del model
    gc.collect()
    assert not os.path.exists(original_folder)
    twin.tracker_.network.layer.crash(1)  # restarted from the twin's own checkpoint
    twin.partial_fit(X[20:], y[20:])
    reference.partial_fit(X[20:], y[20:])
    assert twin.n_seen_ == reference.n_seen_ == 40
    np.testing.assert_array_equal(twin.decision_function(X), reference.decision_function(X))
    assert twin.communication_report()["restarts"] == 1


def test_a_second_live_model_may_not_share_an_explicit_checkpoint_dir(tmp_path):
    folder = str(tmp_path)
    first, X, y = _distributed(checkpoint_dir=folder)
    first.fit(X, y)
    before = first.decision_function(X)
    second = streamsvm.DistributedL2SVM(**first.get_params())
    for call in (lambda: second.fit(X, y), lambda: second.partial_fit(X, y),
                 lambda: second.learn_one(X[0], y[0]), lambda: second.add(0, X[0], y[0])):
        with pytest.raises(ValueError, match=r"checkpoint_dir=.*already used by another live "
                                             r"model"):
            call()
        assert not hasattr(second, "tracker_") and not second.__dict__.get("_warmup_labels")
    first.fit(X, y)  # the model that holds the folder may start again in it
    np.testing.assert_array_equal(first.decision_function(X), before)
    assert _folder(first) == folder
    first.close()
    second.fit(X, y)  # a closed model's folder is free
    assert _folder(second) == folder
    np.testing.assert_array_equal(second.decision_function(X), before)


def test_copies_and_loads_of_a_model_with_an_explicit_folder_take_their_own(tmp_path):
    folder = str(tmp_path / "checkpoints")
    os.mkdir(folder)
    model, X, y = _distributed(checkpoint_dir=folder)
    model.fit(X, y)
    with pytest.warns(UserWarning, match="already used by another live model"):
        twin = copy.deepcopy(model)
    assert _folder(twin) != folder and os.path.isdir(_folder(twin))
    streamsvm.save(model, tmp_path / "m.npz")
    with pytest.warns(UserWarning, match="already used by another live model"):
        loaded = streamsvm.load(tmp_path / "m.npz")
    assert _folder(loaded) not in (folder, _folder(twin))
    for other in (twin, loaded):
        other.partial_fit(X[:5], y[:5])
    model.close()
    again = streamsvm.load(tmp_path / "m.npz")  # the folder is free now: it uses it
    assert _folder(again) == folder


# ---------------------------------------------------------------- unclear messages


@pytest.mark.parametrize("name", NAMES)
def test_text_as_x_is_refused_naming_its_dtype(name):
    X, y = _problem()
    text = np.array([["a", "b", "c", "d"]] * 4, dtype=object)
    model = _quiet(_new(name).fit, X, y)
    before = model.decision_function(X)
    for call in (lambda: _new(name).fit(text, y[:4]), lambda: model.partial_fit(text, y[:4]),
                 lambda: model.predict(text), lambda: model.learn_one(text[0], y[0]),
                 lambda: _new(name).learn_one(text[0], y[0])):
        with pytest.raises(ValueError, match=r"X is an array of dtype object holding values "
                                             r"that are not numbers \(first at row 0, column "
                                             r"0: 'a'\)"):
            _quiet(call)
    np.testing.assert_array_equal(model.decision_function(X), before)


def test_text_messages_name_the_dtype_the_cell_and_the_column():
    X, y = _problem(n=3, d=2)
    cases = [
        (np.array([["1.5", "x"]] * 3, dtype=object), r"dtype object .*row 0, column 1: 'x'"),
        (np.array([["1", "2"], ["3", "b"], ["5", "6"]]), r"dtype <U1 .*row 1, column 1: 'b'"),
        (np.array([[b"1", b"z"]] * 3), r"dtype \|S1 .*row 0, column 1: b'z'"),
        (pd.DataFrame({"age": [1.0, 2.0, 3.0], "city": ["x", "y", "z"]}),
         r"a table .*row 0, column 'city' of dtype .*: 'x'"),
    ]
    for X_text, pattern in cases:
        with pytest.raises(ValueError, match=pattern):
            streamsvm.Pegasos().fit(X_text, y)
    # numbers written as text are numbers
    streamsvm.Pegasos().fit(np.array([["1.5", "2"], ["3", "-4"], ["5", "6"]]), y)


def test_learn_one_refuses_text_at_once_during_the_warm_up():
    """A warm-up model (LASVM, gamma='scale') gathered text rows and failed only at the 32nd:
    the text row is refused when given, and the rows gathered before are kept."""
    X, y = _problem()
    model = streamsvm.LASVM()
    model.learn_one(X[0], y[0])
    with pytest.raises(ValueError, match="not numbers"):
        model.learn_one(np.array(["a", 1.0, 2.0, 3.0], dtype=object), 1)
    assert model._warmup_labels == [y[0]]


def test_distributed_linear_model_of_large_finite_rows():
    """``DistributedL2SVM(kernel='linear').fit(X * 1e39)``: finite rows within the linear
    bound learn and predict probabilities (the kept calibration rows are beyond float32);
    rows beyond the bound get the row-norm refusal the other estimators give."""
    X, y = _problem(n=60, d=3)
    model = streamsvm.DistributedL2SVM(kernel="linear").fit(X * 1e39, y)
    proba = model.predict_proba(X * 1e39)
    assert np.isfinite(proba).all()
    np.testing.assert_array_equal(np.argmax(proba, axis=1),
                                  np.searchsorted(model.classes_, model.predict(X * 1e39)))
    for estimator in (streamsvm.DistributedL2SVM(kernel="linear"), streamsvm.Pegasos()):
        with pytest.raises(ValueError, match=r"row \d+ of X is too large for "):
            estimator.fit(X * 1e60, y)
