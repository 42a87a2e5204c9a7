"""The streamsvm command, driven through click's test runner."""

import numpy as np
import pytest
from click.testing import CliRunner

import streamsvm
from streamsvm.cli import EXIT_DATA, EXIT_USAGE, main
from streamsvm.datasets import load_svmlight


@pytest.fixture
def runner():
    return CliRunner()


@pytest.fixture
def svmlight_file(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = np.where(X[:, 0] - X[:, 2] > 0, 1, -1)
    lines = [
        f"{label:+d} " + " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(row))
        for row, label in zip(X, y, strict=True)
    ]
    path = tmp_path / "train.svm"
    path.write_text("\n".join(lines) + "\n")
    return path, X, y


def test_train_save_evaluate_predict(runner, svmlight_file, tmp_path):
    path, X, y = svmlight_file
    model_path = tmp_path / "model.npz"
    result = runner.invoke(
        main,
        [
            "train",
            "Pegasos",
            "--file",
            str(path),
            "--block-size",
            "5",
            "--alpha",
            "0.01",
            "--chunk-size",
            "64",
            "--save",
            str(model_path),
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "trained Pegasos on 300 examples" in result.output
    model = streamsvm.load(model_path)
    assert model.get_params()["block_size"] == 5
    assert model.n_seen_ == 300

    result = runner.invoke(main, ["evaluate", str(model_path), "--file", str(path)])
    assert result.exit_code == 0, result.output
    accuracy = float(np.mean(model.predict(X) == y))
    assert f"{accuracy:.4f}" in result.output
    assert "PRBEP" in result.output and "AUC" in result.output

    out = tmp_path / "labels.txt"
    result = runner.invoke(
        main, ["predict", str(model_path), "--file", str(path), "--output", str(out)]
    )
    assert result.exit_code == 0, result.output
    predicted = np.loadtxt(out)
    np.testing.assert_array_equal(predicted, model.predict(X))
    # labels written as the file writes them: -1 and 1, not -1.0 and 1.0
    assert set(out.read_text().split()) == {"-1", "1"}


def test_resume_continues_the_stream(runner, svmlight_file, tmp_path):
    path, X, y = svmlight_file
    first, resumed = tmp_path / "a.npz", tmp_path / "b.npz"
    assert (
        runner.invoke(
            main, ["train", "Perceptron", "--file", str(path), "--save", str(first), "--quiet"]
        ).exit_code
        == 0
    )
    result = runner.invoke(
        main,
        [
            "train",
            "Perceptron",
            "--resume",
            str(first),
            "--file",
            str(path),
            "--save",
            str(resumed),
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    X_file, y_file = load_svmlight(path)  # the values as written (6 decimals)
    twice = streamsvm.Perceptron().partial_fit(X_file, y_file).partial_fit(X_file, y_file)
    np.testing.assert_allclose(streamsvm.load(resumed).coef_, twice.coef_)


def test_train_on_a_generator(runner, tmp_path):
    result = runner.invoke(
        main,
        [
            "train",
            "perceptron",
            "--data",
            "synthetic-a",
            "--n-samples",
            "3000",
            "--quiet",
            "--save",
            str(tmp_path / "m.npz"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert streamsvm.load(tmp_path / "m.npz").n_seen_ == 3000


@pytest.mark.parametrize(
    "args, message",
    [
        (["train", "NoSuchSVM", "--data", "synthetic-a"], "unknown estimator 'NoSuchSVM'"),
        (["train", "Pegasos", "--data", "synthetic-a", "--gamma", "2"], "has no parameter 'gamma'"),
        (["train", "Pegasos", "--data", "synthetic-a", "--alpha", "-1"],
         "Pegasos: parameter alpha=-1 is invalid; allowed: a float > 0"),
        (["train", "Pegasos", "--data", "synthetic-a", "--block-size", "two"], "takes an integer"),
        (["train", "Pegasos", "--data", "no-such-data"], "unknown dataset 'no-such-data'"),
        (["train", "Pegasos"], "exactly one of --data NAME or --file PATH"),
    ],
)
def test_usage_errors(runner, args, message):
    result = runner.invoke(main, args)
    assert result.exit_code == EXIT_USAGE
    assert message in result.output


def test_malformed_line_is_reported_with_its_number(runner, svmlight_file, tmp_path):
    path, _, _ = svmlight_file
    lines = path.read_text().splitlines()
    lines[41] = "+1 1:0.5 2:oops"
    bad = tmp_path / "bad.svm"
    bad.write_text("\n".join(lines) + "\n")
    result = runner.invoke(main, ["train", "Perceptron", "--file", str(bad), "--quiet"])
    assert result.exit_code == EXIT_DATA
    assert "bad.svm:42:" in result.output


@pytest.mark.parametrize(("name", "text"), [("nan.svm", "+1 1:0.5 2:nan\n-1 1:0.1 2:0.2\n"),
                                            ("nan.csv", "0.5,inf,1\n0.1,0.2,-1\n")])
def test_a_non_finite_value_is_named_without_a_python_only_hint(runner, tmp_path, name, text):
    """The readers tell Python callers to pass ``allow_nan=True``; the command line has no
    such option (its estimators take finite values only), so it says that instead."""
    path = tmp_path / name
    path.write_text(text)
    result = runner.invoke(main, ["train", "Perceptron", "--file", str(path), "--quiet"])
    assert result.exit_code == EXIT_DATA
    assert f"{name}:1:" in result.output and "is not finite" in result.output
    assert "allow_nan" not in result.output
    assert "finite values only" in result.output


def test_missing_files(runner, tmp_path):
    result = runner.invoke(
        main, ["train", "Perceptron", "--file", str(tmp_path / "nope.svm"), "--quiet"]
    )
    assert result.exit_code == EXIT_DATA
    assert "nope.svm" in result.output
    result = runner.invoke(main, ["evaluate", str(tmp_path / "nope.npz"), "--data", "synthetic-a"])
    assert result.exit_code == EXIT_DATA
    assert "no model file" in result.output


def test_datasets_list_and_describe(runner):
    result = runner.invoke(main, ["datasets", "list"])
    assert result.exit_code == 0, result.output
    assert "mnist-0v1" in result.output and "synthetic-a" in result.output
    result = runner.invoke(main, ["datasets", "describe", "adult"])
    assert result.exit_code == 0
    assert "adult" in result.output
    result = runner.invoke(main, ["datasets", "describe", "nope"])
    assert result.exit_code == EXIT_USAGE


def test_demo_compares_with_sklearn(runner):
    result = runner.invoke(main, ["demo", "--n-train", "2000", "--n-test", "500"])
    assert result.exit_code == 0, result.output
    for name in ("Perceptron", "Pegasos", "SGDClassifier", "SVC"):
        assert name in result.output


def _one_error_line(result, code):
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit)  # handled: no traceback
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    return lines[0]


def test_resume_alone_continues_the_saved_estimator(runner, svmlight_file, tmp_path):
    path, _, _ = svmlight_file
    first, named, alone = tmp_path / "a.npz", tmp_path / "named.npz", tmp_path / "alone.npz"
    common = ["--file", str(path), "--quiet"]
    result = runner.invoke(main, ["train", "Perceptron", *common, "--save", str(first)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["train", "--resume", str(first), *common, "--save", str(alone)])
    assert result.exit_code == 0, result.output
    assert "trained Perceptron on 300 examples" in result.output
    assert runner.invoke(main, ["train", "perceptron", "--resume", str(first), *common,
                                "--save", str(named)]).exit_code == 0
    np.testing.assert_array_equal(streamsvm.load(alone).coef_, streamsvm.load(named).coef_)
    assert streamsvm.load(alone).n_seen_ == 600

    line = _one_error_line(runner.invoke(main, ["train", "Pegasos", "--resume", str(first),
                                                *common]), EXIT_USAGE)
    assert "holds a Perceptron, not a Pegasos" in line
    line = _one_error_line(runner.invoke(main, ["train", "--resume", str(first), "--alpha", "1",
                                                *common]), EXIT_USAGE)
    assert "cannot be changed when resuming" in line
    line = _one_error_line(runner.invoke(main, ["train", *common]), EXIT_USAGE)
    assert "ESTIMATOR name or --resume FILE" in line


def test_train_help_lists_the_estimators(runner):
    result = runner.invoke(main, ["train", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    for name in streamsvm.registry.ESTIMATORS:
        assert name in text
    defaults = streamsvm.Pegasos().get_params()
    assert f"--block-size {defaults['block_size']}" in text


def test_train_from_stdin_and_data_paths(runner, svmlight_file, tmp_path):
    path, _, _ = svmlight_file
    X_file, y_file = load_svmlight(path)
    reference = streamsvm.Perceptron().partial_fit(X_file, y_file)
    for args, kwargs in ((["--file", "-"], {"input": path.read_bytes()}),
                         (["--data", str(path)], {})):
        out = tmp_path / "m.npz"
        result = runner.invoke(main, ["train", "Perceptron", *args, "--chunk-size", "1000",
                                      "--quiet", "--save", str(out)], **kwargs)
        assert result.exit_code == 0, result.output
        np.testing.assert_allclose(streamsvm.load(out).coef_, reference.coef_)
    result = runner.invoke(main, ["train", "Perceptron", "--file", str(path), "--n-samples", "120",
                                  "--quiet", "--save", str(out)])
    assert result.exit_code == 0, result.output
    assert streamsvm.load(out).n_seen_ == 120


def test_bad_sources_exit_1_with_one_line(runner, svmlight_file, tmp_path):
    import gzip

    path, _, _ = svmlight_file
    broken = tmp_path / "broken.svm.gz"
    broken.write_bytes(gzip.compress(path.read_bytes())[:200])
    line = _one_error_line(runner.invoke(main, ["train", "Perceptron", "--file", str(broken),
                                                "--quiet"]), EXIT_DATA)
    assert "broken.svm.gz" in line
    line = _one_error_line(runner.invoke(main, ["train", "Perceptron", "--file", "-", "--quiet"],
                                         input=b"+1 1:0.5\n-1 1:x\n"), EXIT_DATA)
    assert line.startswith("error: <stdin>:2: ")
    line = _one_error_line(runner.invoke(main, ["demo", "--data", str(path)]), EXIT_DATA)
    assert "built-in dataset or a generator" in line
    line = _one_error_line(runner.invoke(main, ["demo", "--data", "nope"]), EXIT_USAGE)
    assert "unknown dataset 'nope'" in line and "synthetic-a" in line


def test_estimators_lists_every_estimator_with_its_defaults(runner):
    result = runner.invoke(main, ["estimators"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    for name in streamsvm.registry.ESTIMATORS:
        assert f"│ {name} " in result.output
    # a cell may wrap between an option and its value; the exact text is checked below
    assert "--block-size" in text and "--verbose" in text
    assert "``" not in text  # the docstrings' reST code marks are not shown
    # one owner: the same text as train --help
    [(name, options)] = streamsvm.cli.report.estimator_parameters({"Pegasos": streamsvm.Pegasos})
    assert options == ("--alpha 0.01, --average true, --block-size 1, --class-weight none, "
                       "--fit-intercept true, --projection true, --verbose 0")
    assert options in " ".join(runner.invoke(main, ["train", "--help"]).output.split())


def test_warmup_compiles_each_kernel_and_layout(runner):
    from streamsvm.cli.warmup import kernels_of

    result = runner.invoke(main, ["warmup", "Forgetron"])
    assert result.exit_code == 0, result.output
    assert kernels_of(streamsvm.Forgetron) == ["linear", "rbf", "poly"]  # its loops' kernels
    for kernel in kernels_of(streamsvm.Forgetron):
        for layout in ("dense", "csr"):
            assert f"compiling Forgetron kernel={kernel} ({layout}) ..." in result.output
            assert f"Forgetron kernel={kernel} ({layout}): " in result.output
    assert "failed" not in result.output.replace("┃ failed ┃", "")
    line = _one_error_line(runner.invoke(main, ["warmup", "NoSuchSVM"]), EXIT_USAGE)
    assert "unknown estimator 'NoSuchSVM'" in line


def test_warmup_steps_cover_the_registry_and_time_with_the_given_clock():
    from streamsvm.cli.warmup import kernels_of, warm_up, warmup_steps

    steps = warmup_steps()
    assert {s.estimator for s in steps} == set(streamsvm.registry.ESTIMATORS)
    assert kernels_of(streamsvm.Pegasos) == [None]
    assert kernels_of(streamsvm.LASVM) == ["linear", "rbf", "poly", "sigmoid"]
    ticks = iter(range(100))
    done = warm_up(["Perceptron"], clock=lambda: float(next(ticks)))
    assert [(s.layout, s.seconds, s.error) for s in done] == [("dense", 1.0, None),
                                                              ("csr", 1.0, None)]


def test_warmup_in_worker_processes_runs_every_step_once_in_order(runner):
    """Two groups on two spawned workers: the same steps as one process runs, in
    ``warmup_steps``' order, each announced and reported once, and the wall time told."""
    from streamsvm.cli.warmup import warm_up, warmup_steps, worker_count

    names = ["Perceptron", "Pegasos"]  # two modules: two groups
    assert worker_count(names, 8) == 2 and worker_count(names, 1) == 1
    assert worker_count(["LASVMG", "LASVMNC"], 8) == 1  # one module: one group
    started, finished = [], []
    done = warm_up(names, jobs=2, on_start=started.append, on_done=finished.append)
    expected = warmup_steps(names)
    assert [(s.estimator, s.kernel, s.layout) for s in done] == [
        (s.estimator, s.kernel, s.layout) for s in expected]
    assert all(s.error is None and s.seconds > 0 for s in done)
    assert sorted(map(repr, started)) == sorted(map(repr, expected))
    assert sorted(map(repr, finished)) == sorted(map(repr, done))
    with pytest.raises(ValueError, match="jobs must be a positive integer"):
        warm_up(names, jobs=0)
    result = runner.invoke(main, ["warmup", "Perceptron", "Pegasos", "--jobs", "2"])
    assert result.exit_code == 0, result.output
    assert "in 2 worker processes side by side" in " ".join(result.output.split())
    assert _one_error_line(runner.invoke(main, ["warmup", "--jobs", "0"]), EXIT_USAGE)


def test_demo_talks_while_it_works(runner):
    result = runner.invoke(main, ["demo", "--n-train", "2000", "--n-test", "500"])
    assert result.exit_code == 0, result.output
    assert "demo: Pegasos: learning 2,000 rows in chunks of 2,000" in result.output
    assert "demo: sklearn SVC (batch, RBF): fitting 2,000 rows in one call" in result.output
    # each of the library's estimators is used once, untimed, before its timed run
    assert "demo: Pegasos: first use on 64 rows" in result.output
    assert "demo: sklearn SVC (batch, RBF): first use" not in result.output


def test_the_demo_times_learning_apart_from_the_first_use():
    """The first use (compiling, or loading the compiled code) runs on a copy: the model the
    demo times is untouched by it; string labels and a rarer class are taken as given."""
    from sklearn.exceptions import NotFittedError

    from streamsvm import LASVM
    from streamsvm.cli.demo import run_demo, use_once

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = np.where(X[:, 0] > 0.8, "rare", "common")
    model = LASVM()
    assert use_once(model, X, y, np.unique(y), X[:10]) > 0
    with pytest.raises(NotFittedError):  # the timed model has learnt nothing
        model.predict(X[:2])
    rows = run_demo(n_train=200, n_test=100, chunk_size=100)
    by_name = {row.name: row for row in rows}
    assert by_name["Pegasos"].first_use_seconds > 0
    assert by_name["sklearn SGDClassifier (1 pass)"].first_use_seconds is None


def test_the_demos_first_uses_in_worker_processes_change_no_result():
    """``jobs=2``: the first uses run in two worker processes before the timed runs; every
    model learns what it learns with ``jobs=1``, and each first use has its seconds."""
    from streamsvm.cli.demo import run_demo

    with pytest.raises(ValueError, match="jobs must be a positive integer"):
        run_demo(n_train=200, n_test=100, jobs=0)
    alone = run_demo(n_train=200, n_test=100, chunk_size=100)
    side_by_side = run_demo(n_train=200, n_test=100, chunk_size=100, jobs=2)
    assert [r.name for r in side_by_side] == [r.name for r in alone]
    # the estimators without a seed (random_state=None: ActiveSVM's sampling, ...) may learn
    # another model in each run; the others learn the same one
    seeded = {name for name, cls in streamsvm.registry.available_estimators().items()
              if cls(**getattr(cls, "_demo_params", {})).get_params().get("random_state", 0)
              is not None}
    assert len(seeded) >= 8
    assert ([(r.name, r.accuracy) for r in side_by_side if r.name in seeded]
            == [(r.name, r.accuracy) for r in alone if r.name in seeded])
    ours = [r for r in side_by_side if not r.name.startswith("sklearn")]
    assert len(ours) == len(streamsvm.registry.ESTIMATORS)
    assert all(r.first_use_seconds is not None and r.first_use_seconds >= 0 for r in ours)


def test_train_into_a_log_writes_progress_lines(runner, svmlight_file, monkeypatch):
    from streamsvm.utils import progress

    path, _, _ = svmlight_file
    ticks = iter(float(5 * t) for t in range(1000))  # every reading 5 s after the last
    monkeypatch.setattr(progress, "clock", lambda: next(ticks))
    result = runner.invoke(main, ["train", "Perceptron", "--file", str(path), "--chunk-size",
                                  "100"])
    assert result.exit_code == 0, result.output
    for done in (100, 200, 300):
        assert f"Perceptron on {path}: {done} rows, " in result.output


def test_warmup_reports_a_failed_step_and_runs_the_others(runner, monkeypatch):
    from streamsvm.cli import warmup

    # the dense steps' problem holds a NaN, which every estimator refuses: each dense step
    # fails (BlurredBallSVM refuses the sigmoid kernel in its parameter check, so there is no
    # step of a kernel its solver would refuse)
    tiny = warmup._tiny_problem

    def nan_when_dense(layout):
        X, y = tiny(layout)
        if layout == "dense":
            X = X.copy()
            X[0, 0] = np.nan
        return X, y

    monkeypatch.setattr(warmup, "_tiny_problem", nan_when_dense)
    result = runner.invoke(main, ["warmup", "BlurredBallSVM"])
    assert result.exit_code == EXIT_DATA, result.output
    assert "BlurredBallSVM kernel=linear (dense): failed: ValueError: " in result.output
    for kernel in ("linear", "rbf", "poly"):
        assert f"BlurredBallSVM kernel={kernel} (csr): " in result.output
    assert "kernel=sigmoid" not in result.output
    assert "warmup step(s) failed (above)" in result.output
