"""Issue 40 on the command line, the readers and sharded training: every failure one
``error:`` line with exit code 1 or 2, named in the user's terms, and the inputs that lost
data (a CSV's byte-order mark, integer labels above 2**53, one-class shards) read and
learnt right."""

import os

import numpy as np
import pytest
import scipy.sparse as sp
from click.testing import CliRunner

import streamsvm
from streamsvm import LASVM, IncrementalSVM, Pegasos, Perceptron
from streamsvm.cli import EXIT_DATA, EXIT_USAGE, main
from streamsvm.datasets import DataFileError, iter_csv, iter_npz, load_csv, open_stream
from streamsvm.sharded import ShardError, fit_sharded


@pytest.fixture
def runner():
    return CliRunner()


def _one_error(result, code, *parts):
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    text = " ".join(result.output.split())
    for part in parts:
        assert part in text, text
    return text


@pytest.fixture
def svm_file(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    path = tmp_path / "d.svm"
    path.write_text("".join(f"{label:+d} " + " ".join(f"{j + 1}:{v:.5f}" for j, v in
                                                      enumerate(row)) + "\n"
                            for row, label in zip(X, y, strict=True)))
    return path, X, y


# ------------------------------------------------------------------ item 1: unfitted model
@pytest.mark.parametrize("make", [Pegasos, Perceptron, LASVM])
@pytest.mark.parametrize("command", ["predict", "evaluate"])
def test_an_unfitted_model_file_is_one_error_line(runner, tmp_path, svm_file, make, command):
    path = tmp_path / "u.npz"
    streamsvm.save(make(), path)
    result = runner.invoke(main, [command, str(path), "--file", str(svm_file[0])])
    _one_error(result, EXIT_DATA, f"the model in {path} was never fitted")
    assert result.exit_code == EXIT_DATA and not isinstance(result.exception, AttributeError)
    # the same file, once trained, predicts and evaluates
    trained = make().fit(svm_file[1], svm_file[2])
    streamsvm.save(trained, path)
    assert runner.invoke(main, [command, str(path), "--file", str(svm_file[0])]).exit_code == 0


def test_a_model_saved_during_learn_one_warm_up_is_refused_then_resumes(runner, tmp_path,
                                                                        svm_file):
    model = LASVM()  # gamma="scale": the first rows are gathered before the model starts
    model.learn_one({"a": 1.0, "b": 2.0, "c": 0.5}, 1)  # buffered: no model yet
    assert not model.__sklearn_is_fitted__()
    path = tmp_path / "w.npz"
    streamsvm.save(model, path)
    result = runner.invoke(main, ["predict", str(path), "--file", str(svm_file[0])])
    _one_error(result, EXIT_DATA, "was never fitted")
    result = runner.invoke(main, ["evaluate", str(path), "--file", str(svm_file[0])])
    _one_error(result, EXIT_DATA, "was never fitted")


def test_an_unfitted_model_file_can_still_be_trained_by_resume(runner, tmp_path, svm_file):
    path, trained = tmp_path / "u.npz", tmp_path / "t.npz"
    streamsvm.save(Perceptron(), path)
    result = runner.invoke(main, ["train", "--resume", str(path), "--file", str(svm_file[0]),
                                  "--save", str(trained), "--quiet"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["evaluate", str(trained), "--file", str(svm_file[0])])
    assert result.exit_code == 0, result.output


# ------------------------------------------------------------------ item 2: damaged .npz
@pytest.fixture
def npz_files(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    y = np.where(X[:, 1] > 0, 1, -1)
    good, packed = tmp_path / "good.npz", tmp_path / "packed.npz"
    np.savez(good, X=X, y=y)
    np.savez_compressed(packed, X=X, y=y)
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[:3000])
    cut_packed = tmp_path / "cut_packed.npz"
    cut_packed.write_bytes(packed.read_bytes()[:-40])
    damaged = tmp_path / "damaged.npz"
    data = bytearray(packed.read_bytes())
    data[80:100] = b"z" * 20  # inside X's compressed data; the directory intact
    damaged.write_bytes(bytes(data))
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    return {"cut": cut, "cut_packed": cut_packed, "damaged": damaged, "empty": empty}


@pytest.mark.parametrize("which", ["cut", "cut_packed", "empty"])
def test_a_truncated_npz_is_a_data_file_error_naming_the_file(npz_files, which):
    path = npz_files[which]
    for read in (lambda: open_stream(path), lambda: open_stream(str(path), format="npz"),
                 lambda: iter_npz(path)):
        with pytest.raises(DataFileError, match="not an .npz file: it is not a zip archive") \
                as caught:
            read()
        assert caught.value.path == str(path)


def test_a_damaged_npz_member_is_a_data_file_error(npz_files):
    path = npz_files["damaged"]
    with pytest.raises(DataFileError, match=r"array 'X' of the .npz file is damaged") as got:
        open_stream(path)
    assert str(path) in str(got.value)


def test_format_npz_on_a_text_file_is_a_data_file_error(svm_file):
    with pytest.raises(DataFileError, match="not an .npz file"):
        open_stream(svm_file[0], format="npz")


@pytest.mark.parametrize("command", ["train", "predict", "evaluate"])
@pytest.mark.parametrize("which", ["cut", "text"])
def test_damaged_npz_on_the_command_line_is_one_error_line(runner, tmp_path, svm_file,
                                                           npz_files, command, which):
    model = tmp_path / "m.npz"
    assert runner.invoke(main, ["train", "Perceptron", "--file", str(svm_file[0]), "--save",
                                str(model), "--quiet"]).exit_code == 0
    data = npz_files["cut"] if which == "cut" else svm_file[0]
    head = ["train", "Perceptron"] if command == "train" else [command, str(model)]
    result = runner.invoke(main, [*head, "--file", str(data), "--format", "npz"])
    _one_error(result, EXIT_DATA, str(data), "not an .npz file")


def test_a_damaged_npz_shard_is_a_shard_error(npz_files, tmp_path):
    rng = np.random.default_rng(0)
    good = tmp_path / "a.npz"
    np.savez(good, X=rng.normal(size=(50, 4)), y=np.tile([1, -1], 25))
    with pytest.raises(ShardError, match="not an .npz file") as caught:
        fit_sharded(Pegasos(), [str(good), str(npz_files["cut"])], backend="serial")
    assert str(npz_files["cut"]) in str(caught.value)


# ------------------------------------------------------------------ item 9: CSV
BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("ending", [b"\n", b"\r\n"])
def test_a_byte_order_mark_is_not_a_header(tmp_path, ending):
    path = tmp_path / "bom.csv"
    path.write_bytes(BOM + ending.join([b"1,2,0", b"3,4,1", b"5,6,0"]) + ending)
    X, y = load_csv(path)
    assert X.tolist() == [[1, 2], [3, 4], [5, 6]] and y.tolist() == [0, 1, 0]


def test_a_byte_order_mark_before_a_header_or_a_blank_line(tmp_path):
    path = tmp_path / "h.csv"
    path.write_bytes(BOM + b"a,b,class\n1,2,cat\n3,4,dog\n")
    X, y = load_csv(path)
    assert X.tolist() == [[1, 2], [3, 4]] and y.tolist() == ["cat", "dog"]
    path.write_bytes(BOM + b"\n\n7,8,1\n9,10,-1\n")
    X, y = load_csv(path)
    assert X.tolist() == [[7, 8], [9, 10]] and y.tolist() == [1, -1]
    path.write_bytes(b"1,2,0\n" + BOM + b"3,4,1\n")  # only at the start of the file
    with pytest.raises(DataFileError, match=":2: field 1"):
        load_csv(path)


def test_a_byte_order_mark_on_the_command_line_keeps_every_example(runner, tmp_path):
    path = tmp_path / "bom.csv"
    rows = [f"{i / 10:.1f},{-i / 10:.1f},{1 if i % 2 else -1}" for i in range(20)]
    path.write_bytes(BOM + "\n".join(rows).encode() + b"\n")
    result = runner.invoke(main, ["train", "Perceptron", "--file", str(path), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "on 20 examples" in " ".join(result.output.split())


@pytest.mark.parametrize("chunk_size", [1, 2, 100])
def test_integer_labels_above_2_53_are_kept_exact(tmp_path, chunk_size):
    labels = [9007199254740993, 9007199254740992, -9007199254740993, 2**63 - 1, -(2**63), 5]
    path = tmp_path / "big.csv"
    path.write_text("".join(f"{k},{-k},{label}\n" for k, label in enumerate(labels)))
    X, y = load_csv(path, chunk_size=chunk_size)
    assert y.dtype == np.int64 and y.tolist() == labels
    assert len(np.unique(y)) == len(labels)  # two labels no longer merge


def test_labels_above_2_53_make_two_classes_for_an_estimator(tmp_path):
    path = tmp_path / "two.csv"
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.where(X[:, 0] > 0, 9007199254740993, 9007199254740992)
    path.write_text("".join(f"{a:.6f},{b:.6f},{label}\n" for (a, b), label in
                            zip(X, y, strict=True)))
    Xr, yr = load_csv(path)
    model = Perceptron().fit(Xr, yr)
    assert model.classes_.tolist() == [9007199254740992, 9007199254740993]


@pytest.mark.parametrize("label", ["100000000000000000000", "-100000000000000000000",
                                   "9223372036854775808"])
def test_integer_labels_beyond_int64(tmp_path, label):
    """Read as floats from a first chunk (the estimators then refuse them, naming the
    problem); refused naming the label in a later chunk of int64 labels."""
    path = tmp_path / "huge.csv"
    path.write_text(f"1,2,3\n4,5,{label}\n")
    y = load_csv(path)[1]
    assert y.dtype == np.float64 and y.tolist() == [3.0, float(label)]
    with pytest.raises(ValueError, match="labels beyond int64's range"):
        Perceptron().fit(load_csv(path)[0], y)
    with pytest.raises(DataFileError, match=f"huge.csv:2: label '{label}' is not an integer "
                                            "below 2\\*\\*63 in magnitude"):
        list(iter_csv(path, chunk_size=1))


def test_a_later_label_that_is_not_an_integer_is_still_refused(tmp_path):
    path = tmp_path / "mixed.csv"
    path.write_text("1,2,3\n4,5,6\n7,8,1.5\n")
    with pytest.raises(DataFileError, match=r"mixed.csv:3: label '1.5' is not an integer"):
        load_csv(path, chunk_size=2)


# ------------------------------------------------------------------ ±1e20 labels
def test_whole_labels_beyond_int64_are_named_by_the_estimators():
    X = np.random.default_rng(0).normal(size=(4, 2))
    for model in (Perceptron(), Pegasos()):
        with pytest.raises(ValueError, match="labels beyond int64's range, such as 1e\\+20"):
            model.fit(X, np.array([1e20, -1e20, 1e20, -1e20]))
        assert not hasattr(model, "classes_")


def test_evaluate_writes_huge_labels_as_they_are(runner, tmp_path, svm_file):
    model = tmp_path / "m.npz"
    assert runner.invoke(main, ["train", "Perceptron", "--file", str(svm_file[0]), "--save",
                                str(model), "--quiet"]).exit_code == 0
    data = tmp_path / "huge.svm"
    data.write_text("1e20 1:1 3:1\n-1e20 1:-1 3:1\n")
    result = runner.invoke(main, ["evaluate", str(model), "--file", str(data)])
    text = _one_error(result, EXIT_USAGE, "labels the model never learnt (-1e+20, 1e+20)")
    assert "9223372036854775808" not in text
    result = runner.invoke(main, ["train", "Perceptron", "--file", str(data), "--quiet"])
    _one_error(result, EXIT_DATA, "labels beyond int64's range")


# ------------------------------------------------------------------ unclear messages: files
def test_dev_null_is_not_a_regular_file(runner):
    result = runner.invoke(main, ["train", "Perceptron", "--file", os.devnull, "--quiet"])
    _one_error(result, EXIT_DATA, f"{os.devnull} is not a regular file", "standard input")
    with pytest.raises(OSError, match="not a regular file") as caught:
        open_stream(os.devnull)
    assert not isinstance(caught.value, FileNotFoundError)


def test_train_without_labels_is_a_usage_error(runner, tmp_path):
    path = tmp_path / "l.csv"
    path.write_text("1,2,1\n3,4,-1\n")
    result = runner.invoke(main, ["train", "Perceptron", "--file", str(path), "--label-column",
                                  "none", "--quiet"])
    text = _one_error(result, EXIT_USAGE, "has no labels to learn from (--label-column none)")
    assert "requires y" not in text


# ------------------------------------------------------------------ unclear messages: shards
def _shard_data(n=40):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(n, 3))
    return X, np.where(X[:, 0] > 0, 1, -1)


@pytest.mark.parametrize(("shards", "message"), [
    (5, "shards must be a path, a glob, or a list of paths, globs or (X, y) pairs; got int"),
    (None, "got NoneType"),
    ("TUPLE", "give one (X, y) pair as [(X, y)]"),
    ("1D", "array shard 0: X must be 2-D (rows, features); got shape (40,)"),
    ("Y2D", "array shard 0: y must be 1-D (one label per row); got shape (40, 1)"),
    ("ROWS", "array shard 0: X has 40 rows but y has 39 labels"),
])
def test_bad_shard_arguments_are_named(shards, message):
    X, y = _shard_data()
    shards = {"TUPLE": (X, y), "1D": [(X[:, 0], y)], "Y2D": [(X, y[:, None])],
              "ROWS": [(X, y[:-1])]}.get(shards, shards) if isinstance(shards, str) else shards
    with pytest.raises(ShardError) as caught:
        fit_sharded(Pegasos(), shards, backend="serial")
    assert message in str(caught.value)
    assert "IndexError" not in str(caught.value) and "iterable" not in str(caught.value)


@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_a_value_whose_square_overflows_is_the_row_norm_refusal(layout):
    clean, y = _shard_data()
    X = clean.copy()
    X[7, 1] = 1e300
    convert = sp.csr_matrix if layout == "csr" else np.asarray
    for est in (Pegasos(), LASVM()):
        with pytest.raises(ShardError, match=r"array shard 1, row 8: the row is too large: "
                                             "its squared norm overflows float64") as caught:
            fit_sharded(est, [(convert(clean), y), (convert(X), y)], backend="serial")
        assert "gamma" not in str(caught.value)


def test_a_folder_or_a_device_as_a_shard_is_named(tmp_path, runner):
    with pytest.raises(ShardError, match=f"shard {tmp_path} is a folder, not a data file"):
        fit_sharded(Pegasos(), [str(tmp_path)], backend="serial")
    with pytest.raises(ShardError, match=f"shard {os.devnull} is not a regular file"):
        fit_sharded(Pegasos(), [os.devnull], backend="serial")
    with pytest.raises(ShardError, match="no such data file"):
        fit_sharded(Pegasos(), [str(tmp_path / "missing.svm")], backend="serial")
    result = runner.invoke(main, ["train", "Pegasos", "--shards", str(tmp_path),
                                  "--backend", "serial", "--quiet"])
    _one_error(result, EXIT_DATA, "is a folder, not a data file")


# ------------------------------------------------------------------ item 4: one-class shards
def _two_blobs(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X0 = rng.normal(size=(n, 3)) - 0.7
    X1 = rng.normal(size=(n, 3)) + 0.7
    return X0, X1


@pytest.mark.parametrize("make", [lambda: LASVM(C=1.0, gamma=0.5, epochs=2, tau=1e-4),
                                  lambda: IncrementalSVM(C=1.0, gamma=0.5)],
                         ids=["LASVM", "IncrementalSVM"])
@pytest.mark.parametrize("n_shards", [2, 4])
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_cascade_over_one_class_shards_learns_the_union(make, n_shards, layout):
    X0, X1 = _two_blobs()
    n = X0.shape[0]
    convert = sp.csr_matrix if layout == "csr" else np.asarray
    half = n_shards // 2
    parts = ([(convert(p), np.zeros(p.shape[0], int)) for p in np.array_split(X0, half)]
             + [(convert(p), np.ones(p.shape[0], int)) for p in np.array_split(X1, half)])
    timings = {}
    model = fit_sharded(make(), parts, backend="serial", timings=timings)
    X = np.vstack([X0, X1])
    y = np.r_[np.zeros(n, int), np.ones(n, int)]
    order = np.random.default_rng(0).permutation(2 * n)
    union = make().fit(convert(X[order]), y[order])
    assert model.classes_.tolist() == [0, 1] and model.n_seen_ == 2 * n
    assert timings["converged"]
    ours, theirs = model.predict(convert(X)), union.predict(convert(X))
    assert abs(np.mean(ours == y) - np.mean(theirs == y)) <= 0.02
    assert np.mean(ours == theirs) >= 0.97
    assert np.mean(ours == y) > 0.8


def test_cascade_with_one_class_and_mixed_shards():
    X0, X1 = _two_blobs(seed=1)
    mixed = np.vstack([X0[:30], X1[:30]])
    parts = [(X0[30:], np.zeros(90, int)), (mixed, np.r_[np.zeros(30, int), np.ones(30, int)]),
             (X1[30:], np.ones(90, int))]
    model = fit_sharded(IncrementalSVM(C=1.0, gamma=0.5), parts, backend="serial")
    X = np.vstack([X0, X1])
    y = np.r_[np.zeros(120, int), np.ones(120, int)]
    union = IncrementalSVM(C=1.0, gamma=0.5).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), union.decision_function(X),
                               atol=1e-6)  # the incremental SVM is exact: the same SVM
