"""Model files of issue 40: models that saved but would not load (items 12, 13), the digest
of the arrays in the header (item 14a) and the invariants of the learners' state checked on
load (item 14b)."""

import json

import numpy as np
import pytest

import streamsvm
from streamsvm.persistence import FORMAT_VERSION, array_digest
from streamsvm.registry import ESTIMATORS, get_estimator

from tests import model_file_cases as cases
from tests.test_persistence import assert_refused as refused

WEIGHTED = sorted(name for name in ESTIMATORS
                  if "class_weight" in get_estimator(name)().get_params())


def data(n=60, d=3, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X * scale, (X[:, 0] + 0.4 * X[:, 1] > 0).astype(int)


# ---------------------------------------------------------------- item 12: dict keys
def test_the_estimators_that_weigh_classes_include_the_eight_of_the_issue_and_pegasos():
    """The eight estimators with class_weight when the issue was filed, and Pegasos since."""
    assert len(WEIGHTED) == 9
    assert {"LASVM", "Perceptron", "Pegasos"} <= set(WEIGHTED)


@pytest.mark.parametrize("name", WEIGHTED)
@pytest.mark.parametrize("weights", [{0: 1, 1: 3}, {np.int64(0): 1.0, np.int64(1): 2.5}])
def test_class_weight_with_label_keys_saves_and_loads_equal(tmp_path, name, weights):
    X, y = data()
    model = get_estimator(name)(class_weight=weights).fit(X, y)
    streamsvm.save(model, tmp_path / "m.npz")
    loaded = streamsvm.load(tmp_path / "m.npz")
    assert loaded.class_weight == weights
    assert [type(k) for k in loaded.class_weight] == [type(k) for k in weights]
    assert [type(v) for v in loaded.class_weight.values()] == [
        type(v.item() if isinstance(v, np.generic) else v) for v in weights.values()]
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


@pytest.mark.parametrize("weights", [
    {0: 1.0, 2.5: 2.0, "b": 3.0},
    {True: 2.0, False: 1.0},
    {np.float32(0.5): 1.0, np.uint8(3): 2.0, np.str_("x"): 4.0, np.bool_(False): 1.5},
    {float("inf"): 1.0, -7: 2.0},
    {np.float64(-0.0): 1.0, 10**30: 2.0},
])
def test_dict_keys_of_every_kind_load_back_with_their_types(tmp_path, weights):
    model = streamsvm.Perceptron(class_weight=weights)  # unfitted: any labels may be named
    streamsvm.save(model, tmp_path / "m.npz")
    loaded = streamsvm.load(tmp_path / "m.npz").class_weight
    assert loaded == weights
    assert [(type(k), getattr(k, "dtype", None)) for k in loaded] == [
        (type(k), getattr(k, "dtype", None)) for k in weights]


@pytest.mark.parametrize("key", [(0, 1), frozenset({1}), np.datetime64("2020-01-01")])
def test_a_dict_key_that_cannot_be_saved_is_named(tmp_path, key):
    model = streamsvm.Perceptron(class_weight={key: 1.0})
    with pytest.raises(TypeError, match="parameter 'class_weight'.*dict key of type"):
        streamsvm.save(model, tmp_path / "m.npz")
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("items, match", [
    ([[0, 1.0], [0, 2.0]], "repeated"),
    ([[1, 1.0], [True, 2.0]], "repeated"),
    ([[0, 1.0, 3]], "pairs"),
    ({"0": 1.0}, "pairs"),
    ([[[0], 1.0]], "dict key cannot be list"),
    ([[{"__scalar__": ["<i1", 300]}, 1.0]], "NumPy scalar key"),
    ([[{"__scalar__": ["|O", 3]}, 1.0]], "NumPy scalar key"),
    ([[{"__scalar__": ["<M8[D]", 3]}, 1.0]], "NumPy scalar key"),
    ([[{"__scalar__": ["<f8", "x"]}, 1.0]], "NumPy scalar key"),
    ([[{"__float__": "1e999"}, 1.0]], "special float"),
])
def test_damaged_dict_items_are_refused(tmp_path, items, match):
    streamsvm.save(streamsvm.Perceptron(class_weight={0: 1, 1: 3}), tmp_path / "m.npz")
    raw = (tmp_path / "m.npz").read_bytes()
    header = cases.read_header(raw)
    assert "__items__" in header["params"]["class_weight"]
    header["params"]["class_weight"] = {"__items__": items}
    refused(tmp_path, cases.with_header(cases.zip_members(raw), header), match)


# ---------------------------------------------------------------- item 13: rows past float32
def _beyond_float32(name):
    """(model, X, y) of an estimator fed rows beyond float32's range, or None if it refuses
    them (kernels whose values would overflow)."""
    cls = get_estimator(name)
    params = {"kernel": "linear"} if "kernel" in cls().get_params() else {}
    X, y = data(n=400, d=3, seed=1, scale=1e45)
    try:
        return cls(**params).fit(X, y), X, y
    except ValueError:
        return None


def _calibrators(model):
    """The PlattCalibrators of a model: its learners' and its own attributes'."""
    from streamsvm.base.calibration import PlattCalibrator

    owners = [model, *getattr(model, "learners_", [])]
    values = [v for owner in owners for v in vars(owner).values()]
    values += [x for v in values if isinstance(v, list | tuple) for x in v]
    return [v for v in values if isinstance(v, PlattCalibrator)]


def test_rows_beyond_float32_are_kept_and_the_file_loads(tmp_path):
    """Every estimator that keeps calibration rows: fed rows above float32's range (the
    contract accepts them), its file loads and answers as the model did (it used to hold
    infinities and be refused by load)."""
    keeping = []
    for name in sorted(ESTIMATORS):
        fitted = _beyond_float32(name)
        if fitted is None:
            continue
        model, X, y = fitted
        calibrators = [c for c in _calibrators(model) if c.rows is not None]
        if not calibrators:
            continue
        keeping.append(name)
        for c in calibrators:  # float64 exactly where a kept row is beyond float32's range
            rows = c.held_rows()[0]
            assert np.isfinite(rows).all(), name
            assert (rows.dtype == np.float64) == (np.abs(rows).max() > 3.4e38), name
        streamsvm.save(model, tmp_path / f"{name}.npz")
        loaded = streamsvm.load(tmp_path / f"{name}.npz")
        np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
        np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
        loaded.partial_fit(X[:50], y[:50])
        assert np.isfinite(loaded.predict_proba(X)).all()
    assert {"Perceptron", "Pegasos", "StreamSVM"} <= set(keeping), keeping


def test_rows_within_float32_stay_float32(tmp_path):
    X, y = data(n=400)
    model = streamsvm.Pegasos().fit(X, y)
    assert model.learners_[0].calibration.held_rows()[0].dtype == np.float32


@pytest.mark.parametrize("alpha", [1e-300, 1e-200])
def test_pegasos_with_a_tiny_alpha_saves_a_file_that_loads(tmp_path, alpha):
    X, y = data(n=300)
    model = streamsvm.Pegasos(alpha=alpha).fit(X, y)
    streamsvm.save(model, tmp_path / "m.npz")
    loaded = streamsvm.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


def test_cli_train_then_predict_on_rows_beyond_float32(tmp_path):
    from click.testing import CliRunner

    from streamsvm.cli import main

    X, y = data(n=300, scale=1e45)
    lines = [f"{label} " + " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(row))
             for row, label in zip(X, y, strict=True)]
    (tmp_path / "big.svm").write_text("\n".join(lines) + "\n")
    runner = CliRunner()
    trained = runner.invoke(main, ["train", "Perceptron", "--file", str(tmp_path / "big.svm"),
                                   "--format", "svmlight", "--save", str(tmp_path / "m.npz")])
    assert trained.exit_code == 0, trained.output
    predicted = runner.invoke(main, ["predict", str(tmp_path / "m.npz"), "--file",
                                     str(tmp_path / "big.svm"), "--format", "svmlight"])
    assert predicted.exit_code == 0, predicted.output
    assert len(predicted.output.split()) >= 300


# ---------------------------------------------------------------- item 14a: the digest
@pytest.fixture
def perceptron_file(tmp_path):
    X, y = data()
    model = streamsvm.Perceptron().fit(X, y)
    streamsvm.save(model, tmp_path / "valid.npz")
    return (tmp_path / "valid.npz").read_bytes(), X


def test_header_declares_each_arrays_digest(perceptron_file):
    raw, _ = perceptron_file
    header = cases.read_header(raw)
    assert header["format_version"] == FORMAT_VERSION >= 7
    members = cases.zip_members(raw)
    for key, spec in header["arrays"].items():
        a = np.load(__import__("io").BytesIO(members[f"{key}.npy"]), allow_pickle=False)
        assert spec == {"dtype": a.dtype.str, "shape": list(a.shape),
                        "sha256": array_digest(a)}


def coef_key(raw):
    return cases.read_header(raw)["state"]["learners_"][0]["state"]["coef"]["__array__"]


@pytest.mark.parametrize("change", [lambda a: a * 1.001, lambda a: -a, lambda a: a + 1e-9])
def test_an_array_edited_without_its_digest_is_refused_naming_the_entry(
        perceptron_file, tmp_path, change):
    raw, _ = perceptron_file
    key = coef_key(raw)
    members = cases.zip_members(raw)
    a = np.load(__import__("io").BytesIO(members[f"{key}.npy"]), allow_pickle=False)
    members[f"{key}.npy"] = cases.npy_bytes(change(a))
    message = refused(tmp_path, cases.with_header(members, cases.read_header(raw)),
                      "does not match its digest")
    assert "learners_[0].coef" in message and repr(key) in message


def test_the_same_edit_with_the_digest_rewritten_is_judged_on_its_values(
        perceptron_file, tmp_path):
    raw, X = perceptron_file
    key = coef_key(raw)
    members = cases.zip_members(raw)
    a = np.load(__import__("io").BytesIO(members[f"{key}.npy"]), allow_pickle=False)
    header = cases.read_header(raw)
    header["arrays"][key] = cases.declaration(-a)
    members[f"{key}.npy"] = cases.npy_bytes(-a)
    path = tmp_path / "edited.npz"
    path.write_bytes(cases.with_header(members, header))
    loaded = streamsvm.load(path)  # a consistent edit: another valid perceptron
    np.testing.assert_array_equal(loaded.learners_[0].coef, -a)


@pytest.mark.parametrize("field, value", [("sha256", 5), ("sha256", None), ("extra", "x")])
def test_a_malformed_digest_declaration_is_refused(perceptron_file, tmp_path, field, value):
    raw, _ = perceptron_file
    header = cases.read_header(raw)
    header["arrays"][coef_key(raw)][field] = value
    message = refused(tmp_path, cases.with_header(cases.zip_members(raw), header), "malformed")
    assert coef_key(raw) in message  # the declaration named
    assert loads(tmp_path, raw)  # the same file, undeclared edit undone, loads


def test_a_file_of_today_without_digests_is_refused(perceptron_file, tmp_path):
    raw, _ = perceptron_file
    header = cases.read_header(raw)
    for spec in header["arrays"].values():
        del spec["sha256"]
    message = refused(tmp_path, cases.with_header(cases.zip_members(raw), header), "malformed")
    assert "declaration of array" in message
    assert loads(tmp_path, raw)


def test_a_file_of_format_6_without_digests_still_loads(perceptron_file, tmp_path):
    """Files written before the digest (format 2 to 6 declare dtype and shape only) load."""
    raw, X = perceptron_file
    header = cases.read_header(raw)
    header["format_version"] = 6
    for spec in header["arrays"].values():
        del spec["sha256"]
    path = tmp_path / "v6.npz"
    path.write_bytes(cases.with_header(cases.zip_members(raw), header))
    original = streamsvm.load(tmp_path / "valid.npz")
    np.testing.assert_array_equal(streamsvm.load(path).decision_function(X),
                                  original.decision_function(X))
    assert json.dumps(header)  # the header stayed JSON


# ---------------------------------------------------------------- item 14b: invariants
def consistent(raw: bytes, edit) -> bytes:
    """The file with ``edit(header, arrays)`` applied (arrays by key, edited in place or
    replaced) and every array's declaration and digest rewritten to match: what a careful
    editor's script writes, which only the invariants can refuse."""
    members = cases.zip_members(raw)
    header = cases.read_header(raw)
    arrays = {name[:-4]: np.load(__import__("io").BytesIO(blob), allow_pickle=False)
              for name, blob in members.items() if name != cases.HEADER}
    edit(header, arrays)
    for key, a in arrays.items():
        members[f"{key}.npy"] = cases.npy_bytes(a)
        header["arrays"][key] = cases.declaration(a)
    return cases.with_header(members, header)


def ref(node, *path):
    for key in path:
        node = node[key]
    return node


def saved(model, tmp_path) -> bytes:
    streamsvm.save(model, tmp_path / "valid.npz")
    return (tmp_path / "valid.npz").read_bytes()


@pytest.fixture(scope="module")
def midstream():
    X, y = data(n=80, seed=4)
    out = {}
    for name, model in [("LASVM", streamsvm.LASVM(C=10.0, random_state=0)),
                        ("FullSVM", streamsvm.FullSVM(C=10.0)),
                        ("LASVMI", streamsvm.LASVMI(C=10.0)),
                        ("LASVMNC", streamsvm.LASVMNC(C=10.0)),
                        ("IncrementalSVM", streamsvm.IncrementalSVM(C=10.0)),
                        ("TwinVectorMachine", streamsvm.TwinVectorMachine(budget=6)),
                        ("RandomBudgetSVM", streamsvm.RandomBudgetSVM(budget=8)),
                        ("Forgetron", streamsvm.Forgetron(budget=8)),
                        ("BudgetPerceptron", streamsvm.BudgetPerceptron(budget=8)),
                        ("Perceptron", streamsvm.Perceptron()),
                        ("Pegasos", streamsvm.Pegasos()),
                        ("BlurredBallSVM", streamsvm.BlurredBallSVM(epsilon=0.01))]:
        model.partial_fit(X[:60], y[:60])
        out[name] = model
    return out, X, y


def loads(tmp_path, raw: bytes):
    """The model of ``raw`` written to a file of its own and loaded (the control of a
    refusal: the file before the edit loads)."""
    path = tmp_path / "control.npz"
    path.write_bytes(raw)
    return streamsvm.load(path)


def learner_state(header):
    return header["state"]["learners_"][0]["state"]


def test_lasvm_stream_positions_one_row_short_are_refused(midstream, tmp_path):
    models, _, _ = midstream
    raw = saved(models["LASVM"], tmp_path)

    def edit(header, arrays):
        key = learner_state(header)["stream_pos"]["__array__"]
        arrays[key] = arrays[key][:-1]

    message = refused(tmp_path, consistent(raw, edit), "LASVM|_Learner")
    assert "damaged.npz" in message
    assert loads(tmp_path, raw)  # unedited, the same file loads


@pytest.mark.parametrize("name", ["Perceptron", "Pegasos", "BlurredBallSVM"])
def test_calibration_rows_missing_a_column_are_refused(midstream, tmp_path, name):
    models, _, _ = midstream
    raw = saved(models[name], tmp_path)

    def edit(header, arrays):
        key = learner_state(header)["calibration"]["state"]["rows"]["__array__"]
        arrays[key] = arrays[key][:, :-1]

    message = refused(tmp_path, consistent(raw, edit), "calibration.rows")
    assert "damaged.npz" in message
    assert loads(tmp_path, raw)  # unedited, the same file loads


@pytest.mark.parametrize("name, attribute, value", [
    ("LASVM", "cache_size", 1e8),
    ("LASVM", "tau", 0.5),
    ("LASVM", "C", 11.0),
    ("Pegasos", "alpha", 0.5),
    ("BlurredBallSVM", "epsilon", 0.5),
])
def test_a_learners_copy_of_a_parameter_edited_is_refused(midstream, tmp_path, name,
                                                          attribute, value):
    models, _, _ = midstream
    raw = saved(models[name], tmp_path)
    header = cases.read_header(raw)
    learner_state(header)[attribute] = value
    # an invalid value of the parameter is refused as such; a valid one as not the estimator's
    message = refused(tmp_path, cases.with_header(cases.zip_members(raw), header),
                      f"learner 0.{attribute} is {value!r}; the estimator's parameters give"
                      f"|a learner holds {attribute}={value!r}, not a valid value")
    assert attribute in message
    assert loads(tmp_path, raw)


@pytest.mark.parametrize("written, claimed", [("FullSVM", "LASVM"), ("LASVMI", "LASVMNC"),
                                              ("LASVMNC", "LASVMI"), ("LASVM", "FullSVM")])
def test_a_learner_of_another_estimator_is_refused(midstream, tmp_path, written, claimed):
    models, _, _ = midstream
    raw = saved(models[written], tmp_path)
    header = cases.read_header(raw)
    cls = get_estimator(claimed)
    header["estimator"] = f"{cls.__module__}.{cls.__qualname__}"
    fresh = cls().get_params()
    header["params"] = {k: v for k, v in header["params"].items() if k in fresh}
    header["params"]["C"] = 10.0
    learner = header["state"]["learners_"][0]
    if claimed in ("LASVMI", "LASVMNC") and written in ("LASVMI", "LASVMNC"):
        pass  # the same learner class: only its configuration tells them apart
    elif claimed in ("LASVMI", "LASVMNC"):
        learner["__object__"] = "streamsvm.lasvm.variants._RampSeededLearner"
    else:
        learner["__object__"] = "streamsvm.lasvm.learner._Learner"
    message = refused(tmp_path, cases.with_header(cases.zip_members(raw), header),
                      "learner 0.(algorithm|variant)|learner 0 lacks|learner 0 is")
    assert "learner 0" in message
    assert type(loads(tmp_path, raw)).__name__ == written  # as written, the file loads


@pytest.mark.parametrize("name", ["IncrementalSVM", "TwinVectorMachine", "RandomBudgetSVM"])
@pytest.mark.parametrize("slot", ["M_ALPHA", "M_G", "M_Y", "M_X", "M_R"])
def test_an_absurd_machine_entry_is_refused(midstream, tmp_path, name, slot):
    from streamsvm.budget import _state as st

    models, _, _ = midstream
    raw = saved(models[name], tmp_path)

    def edit(header, arrays):
        key = learner_state(header)["machine"]["state"]["m"]["__tuple__"][getattr(st, slot)][
            "__array__"]
        arrays[key] = arrays[key].copy()
        arrays[key].reshape(-1)[0] = 1e300

    message = refused(tmp_path, consistent(raw, edit), "machine")
    assert "damaged.npz" in message
    assert loads(tmp_path, raw)  # unedited, the same file loads


@pytest.mark.parametrize("slot", ["TW_WEIGHT_POS", "TW_WEIGHT_NEG"])
def test_negated_twin_weights_are_refused(midstream, tmp_path, slot):
    from streamsvm.budget import _state as st

    models, _, _ = midstream
    raw = saved(models["TwinVectorMachine"], tmp_path)

    def edit(header, arrays):
        key = learner_state(header)["tw"]["__tuple__"][getattr(st, slot)]["__array__"]
        arrays[key] = -arrays[key]

    message = refused(tmp_path, consistent(raw, edit), "twins' weights")
    assert "damaged.npz" in message
    assert loads(tmp_path, raw)  # unedited, the same file loads


@pytest.mark.parametrize(("name", "entry", "value", "match"), [
    ("Forgetron", "sigma", 1e300, "sigma is outside"),  # found by the model-file fuzz
    ("Forgetron", "sigma", -0.5, "sigma is outside"),
    ("Forgetron", "labels", 3.0, "label is not"),
    ("BudgetPerceptron", "coef", 1e300, "coefficient is not its label"),
    ("BudgetPerceptron", "Vsq", 7.0, "squared norms"),
])
def test_kernel_perceptron_weights_out_of_their_range_are_refused(midstream, tmp_path, name,
                                                                  entry, value, match):
    """A consistent edit of the Forgetron's weights (products of shrinking factors, in
    [0, 1]) or labels, or of the budget perceptron's coefficients (its examples' labels) or
    norms: refused (a Forgetron weight of 1e300 loaded and gave non-finite probabilities)."""
    models, _, _ = midstream
    raw = saved(models[name], tmp_path)

    def edit(header, arrays):
        key = learner_state(header)[entry]["__array__"]
        arrays[key] = arrays[key].copy()
        arrays[key][0] = value

    message = refused(tmp_path, consistent(raw, edit), match)
    assert "damaged.npz" in message
    assert loads(tmp_path, raw)  # unedited, the same file loads


@pytest.mark.parametrize("name", ["LASVM", "IncrementalSVM", "TwinVectorMachine",
                                  "RandomBudgetSVM", "Forgetron", "BudgetPerceptron",
                                  "Perceptron", "BlurredBallSVM"])
def test_every_valid_file_still_loads_and_resumes_as_the_model(midstream, tmp_path, name):
    """The invariants refuse no file the library writes: each of these models, saved
    mid-stream, loads and resumes exactly as the model itself."""
    models, X, y = midstream
    model = __import__("copy").deepcopy(models[name])
    streamsvm.save(model, tmp_path / "m.npz")
    loaded = streamsvm.load(tmp_path / "m.npz")
    model.partial_fit(X[60:], y[60:])
    loaded.partial_fit(X[60:], y[60:])
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
