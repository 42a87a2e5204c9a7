"""``streamsvm train EST --shards GLOB``: the estimator's parameters as usual, a line per
shard, the same model as fit_sharded, clear errors."""

import numpy as np
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file

from streamsvm import Pegasos
from streamsvm.cli import EXIT_DATA, EXIT_USAGE, main
from streamsvm.datasets import make_synthetic_a
from streamsvm.persistence import load
from streamsvm.sharded import fit_sharded


def test_train_over_shards_saves_the_sharded_model(tmp_path):
    X, y = make_synthetic_a(900, random_state=3)
    for k in range(3):
        rows = slice(300 * k, 300 * (k + 1))
        dump_svmlight_file(X[rows], y[rows], str(tmp_path / f"part-{k}.svm"), zero_based=False)
    pattern = str(tmp_path / "part-*.svm")
    out = tmp_path / "model.ssvm"
    result = CliRunner().invoke(main, ["train", "Pegasos", "--shards", pattern, "--backend",
                                       "serial", "--alpha", "0.001", "--save", str(out)])
    assert result.exit_code == 0, result.output
    for k in range(3):
        assert f"learnt shard {k + 1}/3 {tmp_path / f'part-{k}.svm'}: 300 rows" in result.output
    assert "trained Pegasos on 900 examples" in result.output
    want = fit_sharded(Pegasos(alpha=0.001), pattern, backend="serial", chunk_size=5000)
    np.testing.assert_array_equal(load(out).coef_, want.coef_)


def test_train_over_shards_errors(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["train", "Pegasos", "--shards", str(tmp_path / "no-*.svm"),
                                  "--backend", "serial"])
    assert result.exit_code == EXIT_DATA and "no file matches" in result.output
    result = runner.invoke(main, ["train", "TwinVectorMachine", "--shards", "x.svm"])
    assert result.exit_code == EXIT_USAGE and "has no sharded training" in result.output
    result = runner.invoke(main, ["train", "Pegasos", "--shards", "x.svm", "--data", "adult"])
    assert result.exit_code == EXIT_USAGE and "--shards replaces" in result.output
