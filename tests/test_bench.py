"""The benchmark suite (``streamsvm bench``): what it reports is what the contenders do."""

import json
import pickle

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.linear_model import SGDClassifier

from streamsvm import Perceptron, metrics
from streamsvm.bench import Task, contenders, get_tasks, run_pair, run_suite, to_markdown
from streamsvm.cli import main


def _task():
    return get_tasks(["synthetic-a"], quick=True)[0]


def test_reported_metrics_equal_an_independent_run():
    task = _task()
    X, y, Xt, yt = data = task.load()
    (perceptron,) = contenders(["Perceptron"])
    result = run_pair(perceptron, task, data, measure_memory=False)
    model = Perceptron()
    for start in range(0, X.shape[0], 1000):
        model.partial_fit(X[start : start + 1000], y[start : start + 1000], classes=[-1, 1])
    assert result.accuracy == metrics.accuracy(yt, model.predict(Xt))
    assert result.auc == pytest.approx(metrics.roc_auc(yt, model.decision_function(Xt)))
    assert result.model_kb == pytest.approx(len(pickle.dumps(model)) / 1024, rel=1e-3)
    assert result.n_train == X.shape[0] and result.n_test == Xt.shape[0]


def test_batch_peer_is_fit_on_all_the_data_at_once():
    task = _task()
    X, y, Xt, yt = data = task.load()
    (sgd,) = contenders(["SGDClassifier, converged"])
    result = run_pair(sgd, task, data, measure_memory=False)
    reference = SGDClassifier(max_iter=1000, tol=1e-3, random_state=0).fit(X, y)
    assert result.accuracy == metrics.accuracy(yt, reference.predict(Xt))


def test_memory_run_reports_what_training_allocates():
    task = _task()
    (pegasos,) = contenders(["Pegasos"])
    result = run_pair(pegasos, task, task.load(), measure_memory=True)
    # chunks of 1000 x 2 float64 are copied at least once while validating: > 0, and the
    # pickled model (a weight vector) is tiny next to its calibration window (2,000 scores
    # and labels, 18 KB, and 500 rows of 2 float32 features with labels kept to rescore,
    # 4.4 KB: streamsvm.base.calibration), with about 1 KB of pickle's own
    assert 0.0 < result.peak_mb < 50.0
    assert 22.4 < result.model_kb < 24.5


def test_model_size_leaves_the_kernel_cache_out():
    """A kernel model's reported size is its pickle, which holds no kernel cache (the cache
    alone fills ~100 MB on this task)."""
    task = _task()
    (lasvm,) = contenders(["LASVM"])
    result = run_pair(lasvm, task, task.load(), measure_memory=False)
    assert result.model_kb < 1024


def test_missing_data_is_reported_not_raised(tmp_path, monkeypatch):
    monkeypatch.setenv("STREAMSVM_DATA", str(tmp_path))  # an empty data folder
    missing = Task("nowhere", "w3a")
    assert not missing.available
    results = run_suite([missing], contenders(["Perceptron"]), measure_memory=False)
    assert results[0].error and "w3a" in results[0].error
    assert "skipped" in to_markdown(results, title="t")


def test_a_contender_that_raises_is_recorded_with_its_error():
    from streamsvm.bench.contenders import Contender

    def broken(task):
        raise RuntimeError("cannot build")

    bad = Contender("broken", "test", "batch", broken)
    result = run_pair(bad, _task(), _task().load(), measure_memory=False)
    assert result.error == "RuntimeError: cannot build" and result.accuracy is None


def test_unknown_names_are_usage_errors():
    with pytest.raises(ValueError, match="unknown task"):
        get_tasks(["no-such-task"])
    runner = CliRunner()
    out = runner.invoke(main, ["bench", "--quick", "--contender", "no-such-contender"])
    assert out.exit_code == 2 and "no contender matches" in out.output


def test_cli_writes_markdown_and_json(tmp_path):
    runner = CliRunner()
    out = runner.invoke(
        main,
        ["bench", "--quick", "--task", "checkerboard", "--contender", "Perceptron",
         "--contender", "LinearSVC", "--output-dir", str(tmp_path), "--no-memory"],
    )
    assert out.exit_code == 0, out.output
    records = json.loads((tmp_path / "bench_quick.json").read_text())
    assert [r["contender"] for r in records] == ["Perceptron", "sklearn LinearSVC (LIBLINEAR)"]
    assert all(r["task"] == "checkerboard" and r["error"] is None for r in records)
    # the checkerboard is not linearly separable: both linear models are near chance
    assert all(0.3 < r["accuracy"] < 0.7 for r in records)
    markdown = (tmp_path / "bench_quick.md").read_text()
    assert "## checkerboard (3,000 train / 2,000 test)" in markdown
    assert np.isclose(
        float(markdown.split("| Perceptron | stream | ")[1].split(" |")[0]),
        100 * records[0]["accuracy"], atol=0.01,
    )


def test_contender_limited_to_small_tasks_is_skipped_with_its_reason():
    (exact,) = contenders(["IncrementalSVM (exact)"])
    task = _task()  # 20,000 training examples
    result = run_pair(exact, task, task.load(), measure_memory=False)
    assert result.accuracy is None and result.error.startswith("skipped above 5,000")
    assert "Gram" in to_markdown([result], title="t")


def test_update_replaces_remeasured_pairs_and_keeps_the_others(tmp_path):
    runner = CliRunner()
    common = ["bench", "--quick", "--task", "checkerboard", "--output-dir", str(tmp_path),
              "--no-memory"]
    first = runner.invoke(main, [*common, "--contender", "Perceptron",
                                 "--contender", "LinearSVC"])
    assert first.exit_code == 0, first.output
    before = json.loads((tmp_path / "bench_quick.json").read_text())
    second = runner.invoke(main, [*common, "--update", "--contender", "Perceptron",
                                  "--contender", "Forgetron"])
    assert second.exit_code == 0, second.output
    after = json.loads((tmp_path / "bench_quick.json").read_text())
    assert [r["contender"] for r in after] == [
        "Perceptron", "sklearn LinearSVC (LIBLINEAR)", "Forgetron (B=100)"]
    # the pair not re-run is carried over unchanged; the re-run one is a new measurement
    assert after[1] == before[1]
    assert after[0]["train_seconds"] != before[0]["train_seconds"]
    assert "Forgetron (B=100)" in (tmp_path / "bench_quick.md").read_text()


def test_update_refuses_a_results_file_it_cannot_read(tmp_path):
    (tmp_path / "bench_quick.json").write_text('[{"task": "x"}]')
    out = CliRunner().invoke(main, ["bench", "--quick", "--task", "checkerboard", "--contender",
                                    "Perceptron", "--output-dir", str(tmp_path), "--no-memory",
                                    "--update"])
    assert out.exit_code != 0 and "cannot merge" in out.output
    assert (tmp_path / "bench_quick.json").read_text() == '[{"task": "x"}]'


def test_default_results_folder_is_the_cache_never_the_current_directory(tmp_path, monkeypatch):
    cache, work = tmp_path / "cache", tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.chdir(work)
    out = CliRunner().invoke(main, ["bench", "--quick", "--task", "checkerboard", "--contender",
                                    "Perceptron", "--no-memory"])
    assert out.exit_code == 0, out.output
    assert (cache / "streamsvm" / "bench" / "bench_quick.json").exists()
    assert list(work.iterdir()) == []
    assert "bench [1/1] checkerboard: Perceptron: warm-up" in out.output
    assert "bench [1/1] checkerboard: Perceptron: accuracy" in out.output
    # --output-dir . is the one way to write into the current directory
    out = CliRunner().invoke(main, ["bench", "--quick", "--task", "checkerboard", "--contender",
                                    "Perceptron", "--no-memory", "--output-dir", "."])
    assert out.exit_code == 0 and (work / "bench_quick.md").exists()


def test_training_progress_every_interval_of_the_clock(monkeypatch, capsys):
    from streamsvm.utils import progress

    clock = iter(float(5 * t) for t in range(1000))  # every reading 5 s after the last
    monkeypatch.setattr(progress, "clock", lambda: next(clock))
    task = get_tasks(["checkerboard"], quick=True)[0]
    run_suite([task], contenders(["Perceptron"]), measure_memory=False, verbose=1)
    err = capsys.readouterr().err
    for done, percent in (("1,000", 33), ("2,000", 67), ("3,000", 100)):
        assert f"checkerboard: Perceptron: {done}/3,000 rows ({percent}%)" in err
    assert "bench: loading checkerboard" in err


def test_quick_suite_runs_the_slow_distributed_tracker_on_its_smallest_task_only():
    (full,) = contenders(["DistributedL2SVM"])
    (quick,) = contenders(["DistributedL2SVM"], quick=True)
    assert full.max_train == 3_000 and quick.max_train == 2_000
    assert "smallest task" in quick.why_max
    sizes = {t.name: t.n_train for t in get_tasks(quick=True)}
    assert [name for name, n in sizes.items() if n <= quick.max_train] == ["banana"]
    (perceptron,) = contenders(["Perceptron"], quick=True)
    assert perceptron.max_train is None and perceptron.warm_up_rows is None
