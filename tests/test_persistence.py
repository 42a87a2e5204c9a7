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
    assert loaded.get_params() == {"fit_intercept": False, "verbose": 0}
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


def test_archive_is_a_plain_zip_of_npy(fitted, tmp_path):
    model, _ = fitted
    path = tmp_path / "m.npz"
    streamsvm.save(model, path)
    with zipfile.ZipFile(path) as z:
        assert all(name.endswith(".npy") for name in z.namelist())
        assert f"{_HEADER}.npy" in z.namelist()
