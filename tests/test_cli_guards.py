"""The streamsvm command against a newcomer's slips: files whose indexing or labels differ
from the model's, a save path that cannot be written, options that belong elsewhere, the
part of a dataset a command reads, and a reader that stops reading."""

import pickle
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import streamsvm
from streamsvm.cli import EXIT_DATA, EXIT_USAGE, main
from streamsvm.datasets import IndexBaseWarning, iter_svmlight


@pytest.fixture
def runner():
    return CliRunner()


def _svmlight(path, X, y, *, base):
    lines = [f"{label:+d} " + " ".join(f"{j + base}:{v:.6f}" for j, v in enumerate(row) if v)
             for row, label in zip(X, y, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def zero_based_model(runner, tmp_path):
    """A Perceptron trained from a zero-based file whose feature 0 decides the label."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    y = np.where(X[:, 0] > 0, 1, -1)
    train = _svmlight(tmp_path / "train.svm", X, y, base=0)
    model_path = tmp_path / "model.npz"
    result = runner.invoke(main, ["train", "Perceptron", "--file", str(train), "--save",
                                  str(model_path), "--quiet"])
    assert result.exit_code == 0, result.output
    return model_path, rng


def test_a_file_whose_base_is_unclear_is_flagged_and_zero_based_reads_it(
        runner, zero_based_model, tmp_path):
    """Rows of a zero-based file without feature 0 look one-based: read so, every feature
    moves one column; the command says so, and ``--zero-based yes`` reads them right."""
    model_path, rng = zero_based_model
    X = rng.normal(size=(40, 5))
    X[:, 0] = 0.0  # no index 0 anywhere in this file
    X[:, 4] = 0.0  # and the last feature unused: its largest index fits either base
    y = np.where(X[:, 1] > 0, 1, -1)
    path = _svmlight(tmp_path / "slice.svm", X, y, base=0)
    model = streamsvm.load(model_path)

    guessed = runner.invoke(main, ["predict", str(model_path), "--file", str(path)])
    assert guessed.exit_code == 0, guessed.output
    assert "warning:" in guessed.output and "--zero-based yes" in guessed.output
    assert "zero_based=True" not in guessed.output

    out = tmp_path / "labels.txt"
    told = runner.invoke(main, ["predict", str(model_path), "--file", str(path),
                                "--zero-based", "yes", "--output", str(out)])
    assert told.exit_code == 0, told.output
    assert "warning:" not in told.output
    np.testing.assert_array_equal(np.loadtxt(out), model.predict(X))


def test_svmlight_reader_warns_only_when_either_base_fits(tmp_path):
    path = tmp_path / "f.svm"
    path.write_text("1 1:1 3:2\n-1 2:1\n")
    with pytest.warns(IndexBaseWarning, match="largest index, 3, fits zero-based too") as got:
        X, _ = next(iter_svmlight(path, n_features=5))
    warning = got[0].message
    assert str(pickle.loads(pickle.dumps(warning))) == str(warning)  # from a worker process
    assert X.toarray()[0].tolist() == [1.0, 0.0, 2.0, 0.0, 0.0]  # read one-based
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        next(iter_svmlight(path, n_features=3))  # index 3 only fits one-based
        next(iter_svmlight(path, n_features=5, zero_based=False))  # the caller said
        next(iter_svmlight(path))  # no width to compare with


def test_predict_reads_csv_rows_without_labels(runner, tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    y = np.where(X[:, 0] + X[:, 1] > 0, 1, -1)
    train = tmp_path / "train.csv"
    np.savetxt(train, np.column_stack([X, y]), delimiter=",", fmt="%.6f")
    model_path = tmp_path / "m.npz"
    assert runner.invoke(main, ["train", "Perceptron", "--file", str(train), "--save",
                                str(model_path), "--quiet"]).exit_code == 0
    unlabelled = tmp_path / "new.csv"
    np.savetxt(unlabelled, X[:20], delimiter=";", fmt="%.6f")

    short = runner.invoke(main, ["predict", str(model_path), "--file", str(unlabelled),
                                 "--delimiter", ";"])
    assert short.exit_code == EXIT_DATA
    assert "--label-column none" in short.output

    out = tmp_path / "labels.txt"
    result = runner.invoke(main, ["predict", str(model_path), "--file", str(unlabelled),
                                  "--delimiter", ";", "--label-column", "none",
                                  "--output", str(out)])
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(np.loadtxt(out), streamsvm.load(model_path).predict(X[:20]))

    result = runner.invoke(main, ["evaluate", str(model_path), "--file", str(unlabelled),
                                  "--delimiter", ";", "--label-column", "none"])
    assert result.exit_code == EXIT_USAGE and "no labels" in result.output


@pytest.mark.parametrize(("args", "message"), [
    (["--file", "{csv}", "--zero-based", "yes"], "--zero-based does not apply to a CSV file"),
    (["--file", "{csv}", "--label-column", "x"], "--label-column takes an integer or 'none'"),
    (["--file", "{csv}", "--delimiter", ";;"], "--delimiter takes one character"),
    (["--file", "{csv}", "--subset", "test"], "--subset chooses a part of a --data set"),
    (["--data", "synthetic-a", "--delimiter", ";"], "--delimiter does not apply to generator"),
    (["--shards", "{csv}", "--zero-based", "no"],
     "--zero-based cannot be used with --shards"),
])
def test_reading_options_that_do_not_apply_are_usage_errors(runner, tmp_path, args, message):
    csv = tmp_path / "d.csv"
    csv.write_text("1,2,1\n3,4,-1\n")
    args = [a.replace("{csv}", str(csv)) for a in args]
    result = runner.invoke(main, ["train", "Perceptron", *args, "--quiet"])
    assert result.exit_code == EXIT_USAGE, result.output
    assert message in result.output


def test_a_folder_is_not_called_missing(runner, tmp_path):
    result = runner.invoke(main, ["train", "Perceptron", "--file", str(tmp_path), "--quiet"])
    assert result.exit_code == EXIT_DATA
    assert "is a folder, not a data file" in result.output


def test_save_path_is_checked_before_training(runner, tmp_path):
    target = tmp_path / "missing" / "m.npz"
    result = runner.invoke(main, ["train", "Perceptron", "--data", "synthetic-a",
                                  "--n-samples", "500", "--save", str(target), "--quiet"])
    assert result.exit_code == EXIT_DATA
    assert f"cannot write the model to {target}" in result.output
    assert "trained" not in result.output and ".partial" not in result.output


def test_train_without_save_says_the_model_is_not_kept(runner):
    result = runner.invoke(main, ["train", "Perceptron", "--data", "synthetic-a",
                                  "--n-samples", "300"])
    assert result.exit_code == 0, result.output
    assert "give --save PATH" in result.output


def test_backend_without_shards_is_the_estimators_parameter(runner):
    """``--backend``/``--workers`` configure ``--shards``; without it they are the estimator's
    parameters of those names, never swallowed."""
    result = runner.invoke(main, ["train", "Pegasos", "--backend", "ray", "--data",
                                  "synthetic-a", "--quiet"])
    assert result.exit_code == EXIT_USAGE
    assert "Pegasos has no parameter 'backend'" in result.output


def test_evaluate_reads_the_test_part_and_refuses_unknown_labels(runner, tmp_path):
    model_path = tmp_path / "m.npz"
    assert runner.invoke(main, ["train", "Perceptron", "--data", "synthetic-a", "--n-samples",
                                "500", "--save", str(model_path), "--quiet"]).exit_code == 0
    result = runner.invoke(main, ["evaluate", str(model_path), "--data", "synthetic-a",
                                  "--n-samples", "300"])
    assert result.exit_code == 0, result.output
    assert "synthetic-a (generated, test)" in " ".join(result.output.split())

    relabelled = tmp_path / "other.csv"
    relabelled.write_text("0.1,0.2,yes\n0.3,-0.1,no\n")
    result = runner.invoke(main, ["evaluate", str(model_path), "--file", str(relabelled)])
    assert result.exit_code == EXIT_USAGE
    assert "labels the model never learnt (no, yes)" in result.output
    assert "pos_label" not in result.output


def test_a_reader_that_stops_reading_ends_the_command_quietly(runner, tmp_path, monkeypatch):
    """``streamsvm predict ... | head``: the pipe closes, nothing is printed about it."""
    import streamsvm.cli as cli

    model_path = tmp_path / "m.npz"
    assert runner.invoke(main, ["train", "Perceptron", "--data", "synthetic-a", "--n-samples",
                                "300", "--save", str(model_path), "--quiet"]).exit_code == 0

    def closed_pipe(labels):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(cli.scoring, "_as_written", closed_pipe)
    result = runner.invoke(main, ["predict", str(model_path), "--data", "synthetic-a",
                                  "--n-samples", "10"])
    assert result.exit_code == 1
    assert "error" not in result.output.lower() and "Broken pipe" not in result.output


@pytest.mark.parametrize(("args", "code", "message"), [
    (["train", "Perceptron", "--data", "synthetic-a", "--chunk-size", "0"], EXIT_USAGE,
     "error: Invalid value for '--chunk-size': 0 is not in the range x>=1. (see '"),
    (["trian"], EXIT_USAGE, "error: No such command 'trian'."),
    (["predict"], EXIT_USAGE, "error: Missing argument 'MODEL_PATH'."),
    (["predict", "{model}", "--data", "synthetic-a", "--output", "{missing}"], EXIT_DATA,
     "error: Could not open file"),
])
def test_clicks_own_errors_are_one_error_line(runner, tmp_path, args, code, message):
    model_path = tmp_path / "m.npz"
    assert runner.invoke(main, ["train", "Perceptron", "--data", "synthetic-a", "--n-samples",
                                "200", "--save", str(model_path), "--quiet"]).exit_code == 0
    args = [a.format(model=model_path, missing=tmp_path / "no" / "x.txt") for a in args]
    result = runner.invoke(main, args, prog_name="streamsvm")
    assert result.exit_code == code
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in " ".join(result.output.split())
    assert "Usage:" not in result.output


def test_train_help_never_breaks_an_option_across_lines(runner):
    """``train --help`` lists every estimator's parameters; each ``--name value`` stays on
    one line so that it can be copied (the wrapper broke ``--monitor-`` / ``tol``)."""
    from streamsvm.cli.report import estimator_parameters
    from streamsvm.registry import available_estimators

    result = runner.invoke(main, ["train", "--help"], terminal_width=80)
    assert result.exit_code == 0
    lines = result.output.splitlines()
    for _, options in estimator_parameters(available_estimators()):
        for option in options.split(", "):
            assert any(option in line for line in lines), option
