"""save/load: round trips, and the files it must refuse without running anything."""

import io
import json
import zipfile

import numpy as np
import pytest

import streamsvm
from streamsvm.persistence import _HEADER, FORMAT_VERSION, ModelFileError


@pytest.fixture
def fitted():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 4))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, "yes", "no")
    return streamsvm.Pegasos(block_size=3).fit(X, y), X


def rewrite_header(src, dst, change):
    with np.load(src, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    header = json.loads(arrays[_HEADER].tobytes())
    change(header)
    arrays[_HEADER] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    np.savez(dst, **arrays)


def test_round_trip_keeps_predictions_and_labels(fitted, tmp_path):
    model, X = fitted
    path = tmp_path / "m.npz"
    streamsvm.save(model, path)
    loaded = streamsvm.load(path)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert loaded.classes_.dtype == model.classes_.dtype
    assert loaded.get_params() == model.get_params()


def test_file_holds_no_pickle(fitted, tmp_path):
    model, _ = fitted
    path = tmp_path / "m.npz"
    streamsvm.save(model, path)
    with np.load(path, allow_pickle=False) as archive:  # would raise on an object array
        for key in archive.files:
            assert archive[key].dtype != object


def test_unfitted_model_round_trips(tmp_path):
    path = tmp_path / "m.npz"
    streamsvm.save(streamsvm.Perceptron(fit_intercept=False), path)
    loaded = streamsvm.load(path)
    assert loaded.get_params() == {"fit_intercept": False, "average": True, "class_weight": None,
                                   "verbose": 0}
    assert loaded.predict_one(np.ones(3)) is None


def test_truncated_file(fitted, tmp_path):
    model, _ = fitted
    path = tmp_path / "m.npz"
    streamsvm.save(model, path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelFileError, match="truncated or corrupt"):
        streamsvm.load(path)


def test_foreign_files(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(ModelFileError):
        streamsvm.load(text)
    plain = tmp_path / "arrays.npz"
    np.savez(plain, x=np.arange(3))
    with pytest.raises(ModelFileError, match="not a streamsvm model file"):
        streamsvm.load(plain)
    with pytest.raises(FileNotFoundError, match="no model file"):
        streamsvm.load(tmp_path / "missing.npz")


def test_newer_format_version_is_refused(fitted, tmp_path):
    model, _ = fitted
    path, newer = tmp_path / "m.npz", tmp_path / "newer.npz"
    streamsvm.save(model, path)
    rewrite_header(path, newer, lambda h: h.update(format_version=FORMAT_VERSION + 1))
    with pytest.raises(ModelFileError, match="upgrade streamsvm"):
        streamsvm.load(newer)


@pytest.mark.parametrize(
    "name", ["os.system", "builtins.eval", "streamsvm.persistence.save", "numpy.ndarray"]
)
def test_file_cannot_name_foreign_code(fitted, tmp_path, name):
    model, _ = fitted
    path, evil = tmp_path / "m.npz", tmp_path / "evil.npz"
    streamsvm.save(model, path)
    rewrite_header(path, evil, lambda h: h.update(estimator=name))
    with pytest.raises(ModelFileError):
        streamsvm.load(evil)


def test_nested_object_must_be_streamsvm_class(fitted, tmp_path):
    model, _ = fitted
    path, evil = tmp_path / "m.npz", tmp_path / "evil.npz"
    streamsvm.save(model, path)

    def swap_learner(header):
        header["state"]["learners_"][0]["__object__"] = "subprocess.Popen"

    rewrite_header(path, evil, swap_learner)
    with pytest.raises(ModelFileError, match="not part of streamsvm"):
        streamsvm.load(evil)


def test_unsaveable_values_name_the_attribute(fitted, tmp_path):
    model, _ = fitted
    model.my_handle_ = io.StringIO()
    with pytest.raises(TypeError, match="my_handle_"):
        streamsvm.save(model, tmp_path / "m.npz")
    assert not (tmp_path / "m.npz").exists()


def test_save_rejects_non_streamsvm_objects(tmp_path):
    from sklearn.svm import SVC

    with pytest.raises(TypeError, match="streamsvm estimator"):
        streamsvm.save(SVC(), tmp_path / "m.npz")


def test_a_path_that_cannot_take_the_model_is_refused_naming_it(fitted, tmp_path):
    """A folder, or a file in a missing folder: an OSError naming the path given, and no
    ``.partial`` file left behind."""
    model, _ = fitted
    folder = tmp_path / "models"
    folder.mkdir()
    with pytest.raises(IsADirectoryError, match=f"cannot write the model to {folder}: it is a"):
        streamsvm.save(model, folder)
    missing = tmp_path / "nowhere" / "m.npz"
    with pytest.raises(FileNotFoundError, match="cannot write the model to .*no folder"):
        streamsvm.save(model, missing)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["models"]


def test_archive_is_a_plain_zip_of_npy(fitted, tmp_path):
    model, _ = fitted
    path = tmp_path / "m.npz"
    streamsvm.save(model, path)
    with zipfile.ZipFile(path) as z:
        assert all(name.endswith(".npy") for name in z.namelist())
        assert f"{_HEADER}.npy" in z.namelist()


# ------------------------------------------------------------------ the whole file is checked
# (issue 17, "load": every reproducer refused with ModelFileError naming the file)
from tests import model_file_cases as cases  # noqa: E402

FIXTURES = __import__("pathlib").Path(__file__).parent / "fixtures" / "models-0.1.0"


@pytest.fixture
def perceptron_file(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 3))
    model = streamsvm.Perceptron().fit(X, (X[:, 0] > 0).astype(int))
    path = tmp_path / "valid.npz"
    streamsvm.save(model, path)
    return model, path.read_bytes(), X


def assert_refused(tmp_path, data, match):
    """Assert that loading ``data`` raises ModelFileError matching ``match`` and naming the
    file; returns the message."""
    path = tmp_path / "damaged.npz"
    path.write_bytes(data)
    with pytest.raises(ModelFileError, match=match) as info:
        streamsvm.load(path)
    assert "damaged.npz" in str(info.value)
    return str(info.value)


def coef_key(data):
    header = cases.read_header(data)
    return header["state"]["learners_"][0]["state"]["coef"]["__array__"]


def with_array(data, key, array, declare=False):
    members = cases.zip_members(data)
    members[f"{key}.npy"] = cases.npy_bytes(array)
    header = cases.read_header(data)
    if declare:  # a consistent forgery: the declaration and its digest rewritten to match
        header["arrays"][key] = cases.declaration(array)
    return cases.with_header(members, header)


def test_header_declares_every_array(perceptron_file):
    model, data, _ = perceptron_file
    header = cases.read_header(data)
    assert header["format_version"] == FORMAT_VERSION == 8
    key = coef_key(data)
    assert header["arrays"][key] == {"dtype": "<f8", "shape": [3],
                                     "sha256": cases.declaration(model.learners_[0].coef)[
                                         "sha256"]}


@pytest.mark.parametrize("declare", [False, True])
def test_array_of_the_wrong_shape_is_refused(perceptron_file, tmp_path, declare):
    _, data, _ = perceptron_file
    damaged = with_array(data, coef_key(data), np.zeros(7), declare=declare)
    assert_refused(tmp_path, damaged, "shape")


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_array_of_the_wrong_dtype_is_refused(perceptron_file, tmp_path, dtype):
    _, data, _ = perceptron_file
    damaged = with_array(data, coef_key(data), np.zeros(3, dtype=dtype), declare=True)
    assert_refused(tmp_path, damaged, "float64")


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_non_finite_array_is_refused(perceptron_file, tmp_path, value):
    _, data, _ = perceptron_file
    damaged = with_array(data, coef_key(data), np.array([1.0, value, 0.0]), declare=True)
    assert_refused(tmp_path, damaged, "NaN" if np.isnan(value) else "infinite")


@pytest.mark.parametrize("header", [[], "text", 5, None, [{"format": "streamsvm-model"}]])
def test_header_that_is_json_of_the_wrong_type(perceptron_file, tmp_path, header):
    _, data, _ = perceptron_file
    members = cases.zip_members(data)
    assert_refused(tmp_path, cases.with_header(members, header), "not a streamsvm model file")


@pytest.mark.parametrize("key, value, match", [
    ("params", [], "'params' is a list"),
    ("state", "x", "'state' is a str"),
    ("estimator", 3, "'estimator' is a int"),
    ("format_version", "2", "format_version"),
    ("format_version", True, "format_version"),
    ("arrays", {}, "declares the arrays"),
    ("extra", 1, "unexpected \\['extra'\\]"),
])
def test_header_entries_of_the_wrong_type(perceptron_file, tmp_path, key, value, match):
    _, data, _ = perceptron_file
    header = cases.read_header(data)
    header[key] = value
    assert_refused(tmp_path, cases.with_header(cases.zip_members(data), header), match)


def test_missing_header_key(perceptron_file, tmp_path):
    _, data, _ = perceptron_file
    header = cases.read_header(data)
    del header["params"]
    assert_refused(tmp_path, cases.with_header(cases.zip_members(data), header),
                   "missing \\['params'\\]")


def deflated_zeros(prefix: bytes, n_zeros: int) -> bytes:
    """A raw deflate stream (one fixed-Huffman block) of ``prefix`` then ``n_zeros`` zero
    bytes, built directly: about 13 bits per 258 zeros, so a GiB takes 6.5 MB of bits."""
    bits: list[int] = [1, 1, 0]  # BFINAL, then BTYPE = 01 (fixed codes) LSB first

    def code(value, length):
        bits.extend((value >> (length - 1 - i)) & 1 for i in range(length))

    matches, rest = divmod(n_zeros - 1, 258)
    for byte in prefix + b"\0" * (1 + rest):
        if byte < 144:
            code(0x30 + byte, 8)
        else:
            code(0x190 + byte - 144, 9)
    head = np.array(bits, dtype=np.uint8)
    match = np.array([(0xC5 >> (7 - i)) & 1 for i in range(8)] + [0] * 5, dtype=np.uint8)
    tail = np.zeros(7, dtype=np.uint8)  # end of block (code 256: seven zero bits)
    stream = np.concatenate([head, np.tile(match, matches), tail])
    return np.packbits(stream, bitorder="little").tobytes()


def raw_zip(members: list[tuple[str, bytes, int, int, int]]) -> bytes:
    """A zip from (name, payload, method, uncompressed size, crc) without zipfile's help."""
    import struct

    body, directory = b"", b""
    for name, payload, method, size, crc in members:
        encoded = name.encode()
        local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc,
                            len(payload), size, len(encoded), 0)
        directory += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0,
                                 crc, len(payload), size, len(encoded), 0, 0, 0, 0, 0,
                                 len(body)) + encoded
        body += local + encoded + payload
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members),
                      len(directory), len(body), 0)
    return body + directory + end


@pytest.mark.parametrize("declare", [False, True])
def test_small_zip_inflating_to_a_gigabyte_is_refused_before_inflating(
        perceptron_file, tmp_path, declare):
    import tracemalloc
    import zlib

    _, data, _ = perceptron_file
    members = cases.zip_members(data)
    key = coef_key(data)
    n = 2**27  # float64 zeros: 1 GiB
    preamble = __import__("io").BytesIO()
    np.lib.format.write_array_header_1_0(
        preamble, {"descr": "<f8", "fortran_order": False, "shape": (n,)})
    npy_head = preamble.getvalue()
    bomb = deflated_zeros(npy_head, 8 * n)
    assert zlib.decompressobj(-zlib.MAX_WBITS).decompress(bomb, 2**16)[:128] == npy_head
    header = cases.read_header(data)
    if declare:
        header["arrays"][key] = {"dtype": "<f8", "shape": [n], "sha256": "0" * 64}
    blob = np.frombuffer(__import__("json").dumps(header).encode(), dtype=np.uint8)
    entries = [(name, raw, 0, len(raw), zlib.crc32(raw)) for name, raw in members.items()
               if name != f"{key}.npy" and name != f"{_HEADER}.npy"]
    head_raw = cases.npy_bytes(blob)
    entries.append((f"{_HEADER}.npy", head_raw, 0, len(head_raw), zlib.crc32(head_raw)))
    entries.append((f"{key}.npy", bomb, zipfile.ZIP_DEFLATED, len(npy_head) + 8 * n, 0))
    path = tmp_path / "bomb.npz"
    path.write_bytes(raw_zip(entries))
    assert path.stat().st_size < 8 * 2**20
    tracemalloc.start()
    try:
        with pytest.raises(ModelFileError, match="compressed"):
            streamsvm.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20


@pytest.mark.parametrize("version", [1, 2])
def test_npy_header_claiming_a_huge_array_is_refused_before_allocating(perceptron_file,
                                                                      tmp_path, version):
    _, data, _ = perceptron_file
    if version == 1:
        data = (FIXTURES / "perceptron.npz").read_bytes()
    members = cases.zip_members(data)
    key = coef_key(data)
    raw = members[f"{key}.npy"]
    huge = raw.replace(b"(3,), }" + b" " * 7, b"(9999999999,)}")
    assert huge != raw and len(huge) == len(raw)
    members[f"{key}.npy"] = huge
    message = assert_refused(tmp_path, cases.make_zip(members), "9999999999")
    assert ("should take" if version == 1 else "the header declares") in message


def test_zip_directory_lying_about_sizes_is_refused(perceptron_file, tmp_path):
    import zlib

    _, data, _ = perceptron_file
    entries = [(name, raw, 0, len(raw) + 2**32 - 1 - len(raw), zlib.crc32(raw))
               for name, raw in cases.zip_members(data).items()]
    assert_refused(tmp_path, raw_zip(entries), "sizes disagree")


def test_unreferenced_and_reused_arrays_are_refused(perceptron_file, tmp_path):
    _, data, _ = perceptron_file
    members = cases.zip_members(data)
    header = cases.read_header(data)
    members["extra.npy"] = cases.npy_bytes(np.zeros(2))
    header["arrays"]["extra"] = cases.declaration(np.zeros(2))
    assert_refused(tmp_path, cases.with_header(members, header), "nothing refers to")
    header = cases.read_header(data)
    header["state"]["learners_"][0]["state"]["extra"] = {"__array__": coef_key(data)}
    assert_refused(tmp_path, cases.with_header(cases.zip_members(data), header), "reuses")


@pytest.mark.parametrize("change, match", [
    (lambda h: h["state"].pop("classes_"), "partly fitted"),
    (lambda h: h["state"]["learners_"][0]["state"].pop("coef"), "lacks the attributes"),
    (lambda h: h["state"].update(learners_=[]), "binary learner"),
    (lambda h: h["state"].update(_targets=[0]), "binary learner"),
    (lambda h: h["state"].update(_signs=[3.0]), "binary learner"),
    (lambda h: h["state"].update(n_features_in_=5), "coef"),
    (lambda h: h["state"].update(n_features_in_="3"), "n_features_in_"),
    (lambda h: h["state"]["learners_"][0].update(__object__="streamsvm.kernels.spec.Kernel"),
     "binary learner"),
    (lambda h: h["params"].update(alpha=1.0), "no parameters \\['alpha'\\]"),
    (lambda h: h["state"].update(fit_intercept=False), "repeats the parameters"),
    (lambda h: h["state"].update(__class__=1), "not allowed"),
    (lambda h: h["state"].update(x={"__float__": "1e999"}), "special float"),
    (lambda h: h["state"]["learners_"][0]["state"].update(rng={"__generator__": {}}),
     "bit generator"),
])
def test_damaged_files_that_used_to_load_and_fail_later(perceptron_file, tmp_path, change,
                                                       match):
    _, data, _ = perceptron_file
    header = cases.read_header(data)
    change(header)
    assert_refused(tmp_path, cases.with_header(cases.zip_members(data), header), match)


def test_compressed_copy_of_a_valid_file_is_refused(perceptron_file, tmp_path):
    _, data, _ = perceptron_file
    with np.load(__import__("io").BytesIO(data), allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    buffer = __import__("io").BytesIO()
    np.savez_compressed(buffer, **arrays)
    assert_refused(tmp_path, buffer.getvalue(), "compressed")


# ------------------------------------------------------------------ compatibility
def test_moved_class_table_is_consulted(tmp_path, monkeypatch):
    from streamsvm import persistence

    data = (FIXTURES / "perceptron.npz").read_bytes()
    header = cases.read_header(data)
    old = "streamsvm.linear.old_home.Perceptron"
    header["estimator"] = old
    header["state"]["learners_"][0]["__object__"] = "streamsvm.linear.old_home._Learner"
    path = tmp_path / "old.npz"
    path.write_bytes(cases.with_header(cases.zip_members(data), header))
    with pytest.raises(ModelFileError, match="old_home"):
        streamsvm.load(path)
    monkeypatch.setitem(persistence.MOVED_CLASSES, old, "streamsvm.linear.perceptron.Perceptron")
    monkeypatch.setitem(persistence.MOVED_CLASSES, "streamsvm.linear.old_home._Learner",
                        "streamsvm.linear.perceptron._PerceptronLearner")
    moved = streamsvm.load(path)
    original = streamsvm.load(FIXTURES / "perceptron.npz")
    X = np.random.default_rng(0).normal(size=(5, 3))
    np.testing.assert_array_equal(moved.decision_function(X), original.decision_function(X))


def test_every_moved_class_leads_to_where_it_lives_now():
    """Each line of MOVED_CLASSES names today's home of its class: an importable module that
    defines it under that name (the loader follows one line, never a chain)."""
    import importlib

    from streamsvm import persistence

    assert "streamsvm.base.calibration.CsrRows" in persistence.MOVED_CLASSES
    for old, new in persistence.MOVED_CLASSES.items():
        module, _, name = new.rpartition(".")
        cls = getattr(importlib.import_module(module), name)
        assert f"{cls.__module__}.{cls.__qualname__}" == new, old
        assert new not in persistence.MOVED_CLASSES


def test_state_migrations_upgrade_older_files_only(tmp_path, monkeypatch):
    from streamsvm import persistence

    calls = []

    def rename_weights(state, params):  # say a v1 file called it "weights"; today "coef"
        if "weights" in state:
            calls.append(params["fit_intercept"])
            state["coef"] = state.pop("weights")

    data = (FIXTURES / "perceptron.npz").read_bytes()  # format version 1
    header = cases.read_header(data)
    learner = header["state"]["learners_"][0]["state"]
    learner["weights"] = learner.pop("coef")
    path = tmp_path / "v1.npz"
    path.write_bytes(cases.with_header(cases.zip_members(data), header))
    with pytest.raises(ModelFileError, match="coef"):
        streamsvm.load(path)
    monkeypatch.setitem(persistence.STATE_MIGRATIONS,
                        (2, "streamsvm.linear.perceptron._PerceptronLearner"), rename_weights)
    upgraded = streamsvm.load(path)
    assert calls == [True]
    X = np.random.default_rng(0).normal(size=(5, 3))
    np.testing.assert_array_equal(upgraded.decision_function(X),
                                  streamsvm.load(FIXTURES / "perceptron.npz").decision_function(X))
    streamsvm.save(upgraded, tmp_path / "v2.npz")  # written as version 2: not migrated again
    streamsvm.load(tmp_path / "v2.npz")
    assert calls == [True]


@pytest.mark.parametrize("name", sorted(__import__("streamsvm.registry").registry.ESTIMATORS))
def test_every_registered_estimator_round_trips_fitted_and_mid_stream(tmp_path, name):
    from streamsvm.registry import get_estimator

    rng = np.random.default_rng(3)
    X = rng.normal(size=(36, 3))
    cls = get_estimator(name)
    n_classes = 3 if cls().__sklearn_tags__().classifier_tags.multi_class else 2
    y = rng.integers(0, n_classes, size=36)
    fitted = cls().fit(X, y)
    streamsvm.save(fitted, tmp_path / "fitted.npz")
    np.testing.assert_array_equal(streamsvm.load(tmp_path / "fitted.npz").decision_function(X),
                                  fitted.decision_function(X))
    first, second = cls(), None
    first.partial_fit(X[:18], y[:18], classes=list(range(n_classes)))
    streamsvm.save(first, tmp_path / "mid.npz")
    second = streamsvm.load(tmp_path / "mid.npz")
    first.partial_fit(X[18:], y[18:])
    second.partial_fit(X[18:], y[18:])
    np.testing.assert_array_equal(second.decision_function(X), first.decision_function(X))


def test_a_calibration_count_past_int64_arithmetic_is_refused(tmp_path):
    """A saved count that the ring's slot arithmetic cannot hold in int64 (a damaged or
    edited file) is refused on load, not met as an OverflowError at the next chunk."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    model = streamsvm.Pegasos().fit(X, y)
    model.learners_[0].calibration.n_rows_kept = 2**70
    streamsvm.save(model, tmp_path / "m.npz")
    with pytest.raises(ModelFileError, match="calibration window's arrays or counts"):
        streamsvm.load(tmp_path / "m.npz")
