"""DistributedL2SVM as an estimator, the event-log format and the CLI command."""

import json

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.base import clone
from sklearn.svm import SVC

from streamsvm.cli import EXIT_DATA, main
from streamsvm.distributed import DistributedL2SVM, read_events, write_events
from streamsvm.distributed.events import format_event
from streamsvm.qp import min_norm_point

from tests.naive import l2svm_hat_gram


def blobs(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + X[:, 1] > 0, "pos", "neg")
    return X, y


def test_fit_predict_matches_centralised_l2svm_and_svc():
    X, y = blobs()
    svm = DistributedL2SVM(tracking="exact", n_sites=5, kernel="rbf", gamma=0.5, C=10.0).fit(X, y)
    assert svm.classes_.tolist() == ["neg", "pos"]
    s = np.where(y == "pos", 1.0, -1.0)
    G = l2svm_hat_gram(X, s, np.arange(len(X)),
                       lambda a, b: float(np.exp(-0.5 * np.sum((a - b) ** 2))), 10.0,
                       "two-class")
    ref = min_norm_point(G, tol=1e-13)
    assert svm.objective_ == pytest.approx(ref.sq_norm, abs=1e-9)
    grid = np.random.default_rng(1).normal(size=(200, 2))
    K = np.exp(-0.5 * ((grid[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    central = (K + 1) @ (ref.weights * s)
    np.testing.assert_allclose(svm.decision_function(grid), central, atol=1e-7)
    for site in range(5):  # every site answers the same
        np.testing.assert_array_equal(svm.predict(grid, site=site), svm.predict(grid))
    svc = SVC(kernel="rbf", gamma=0.5, C=10.0).fit(X, y)
    assert np.mean(svm.predict(grid) == svc.predict(grid)) > 0.9
    assert svm.score(X, y) > 0.9
    assert clone(svm).get_params() == svm.get_params()


def test_one_class_predicts_inside_support():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 2))
    svm = DistributedL2SVM(tracking="exact", n_sites=3, task="one-class", gamma=0.1, C=20.0).fit(X)
    far = np.array([[8.0, 8.0], [-9.0, 0.0]])
    assert svm.predict(far).tolist() == [-1, -1]
    assert svm.predict(np.zeros((1, 2))).tolist() == [1]
    # ρ = f(ê): the support vectors sit on the boundary, Σ a_j k(x_j, x_i) + a_i/C = ρ
    ids, coef = svm.support_ids_, svm.dual_coef_
    np.testing.assert_allclose(svm.decision_function(X[ids]) + coef / 20.0, 0.0, atol=1e-8)
    assert svm.n_support_ < len(X)


def test_partial_fit_continues_and_delete():
    X, y = blobs(60)
    a = DistributedL2SVM(tracking="exact", n_sites=3, kernel="linear", C=5.0).fit(X[:30], y[:30])
    a.partial_fit(X[30:], y[30:])
    b = DistributedL2SVM(tracking="exact", n_sites=3, kernel="linear", C=5.0).fit(X, y)
    assert a.objective_ == pytest.approx(b.objective_, abs=1e-10)
    a.delete(0, 0)
    assert 0 not in a.tracker_.point_ids()


def test_event_log_round_trip_and_replay(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(25, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    events = [("add", i % 4, i, y[i], X[i]) for i in range(25)]
    events += [("delete", i % 4, i, None, None) for i in (3, 7, 11)]
    events += [("query", 2, None, None, X[0])]
    path = tmp_path / "log.txt"
    write_events(path, events, header="test log")
    parsed = read_events(path)
    assert [e.kind for e in parsed] == ["add"] * 25 + ["delete"] * 3 + ["query"]
    np.testing.assert_array_equal(parsed[5].x, X[5])  # repr precision: exact round trip
    replayed = DistributedL2SVM(tracking="exact", n_sites=4, gamma=0.5, C=2.0)
    answers = []
    assert replayed.run_events(path, on_query=lambda e, v: answers.append(v)) == 29
    direct = DistributedL2SVM(tracking="exact", n_sites=4, gamma=0.5, C=2.0)
    for kind, site, pid, label, x in events:
        if kind == "add":
            direct.add(site, x, label, point_id=pid)
        elif kind == "delete":
            direct.delete(site, pid)
    assert answers == [pytest.approx(float(direct.decision_function(X[:1], site=2)[0]))]
    assert replayed.communication_report() == direct.communication_report()


@pytest.mark.parametrize(
    "lines, message",
    [
        (["add 0 1 1 0.5", "bogus 1 2"], "line 2: unknown event 'bogus'"),
        (["add 0 1 1 0.5", "add x 2 1 0.5"], "line 2: site must be an integer"),
        (["# c", "", "add 0 1 1 0.5 zz"], "line 3: feature 'zz' is not a number"),
        (["delete 0"], "line 1: 'delete' takes"),
        (["add 0 1 1"], "line 1: 'add' takes"),
        (["add 0 -4 1 0.5"], "line 1: point id must be >= 0"),
        (["add 0 1 one 0.5"], "line 1: label must be a number"),
        (["query 0 nan"], "line 1: features contain NaN"),
    ],
)
def test_malformed_lines_are_reported_by_number(lines, message):
    with pytest.raises(ValueError, match=message):
        read_events(lines)


def test_replay_error_names_the_line():
    svm = DistributedL2SVM(tracking="exact", n_sites=2)
    lines = ["add 0 1 1 0.5 0.5", "add 1 2 -1 0.1 0.2", "delete 1 1"]
    with pytest.raises(ValueError, match="line 3: point id 1 is at site 0"):
        svm.run_events(lines)


def test_cli_runs_a_log(tmp_path):
    rng = np.random.default_rng(4)
    X = rng.uniform(size=(30, 2))
    lines = [format_event("add", i % 3, i, 1, X[i]) for i in range(30)]
    lines += [format_event("delete", 0, 0), format_event("query", 1, x=[0.5, 0.5]),
              format_event("query", 2, x=[5.0, 5.0])]
    log = tmp_path / "events.log"
    log.write_text("\n".join(lines) + "\n")
    report, records, queries = (tmp_path / n for n in ("r.json", "r.csv", "q.txt"))
    result = CliRunner().invoke(main, [
        "distributed", str(log), "--sites", "3", "--task", "one-class", "--gamma", "2",
        "--C", "1", "--report", str(report), "--records", str(records),
        "--queries", str(queries)])
    assert result.exit_code == 0, result.output
    totals = json.loads(report.read_text())
    assert totals["additions"] == 30 and totals["deletions"] == 1
    assert len(records.read_text().splitlines()) == 1 + 31
    answers = [line.split() for line in queries.read_text().splitlines()]
    assert [a[3] for a in answers] == ["1", "-1"]  # centre inside, far point outside
    svm = DistributedL2SVM(3, task="one-class", gamma=2.0, C=1.0)
    svm.run_events(lines[:31])
    assert totals["objective"] == pytest.approx(svm.objective_)


def test_cli_reports_bad_lines(tmp_path):
    log = tmp_path / "bad.log"
    log.write_text("add 0 1 1 0.5\nadd 0 2 1 0.5 oops\n")
    result = CliRunner().invoke(main, ["distributed", str(log)])
    assert result.exit_code == EXIT_DATA
    assert "line 2: feature 'oops'" in " ".join(result.output.split())


def test_csr_input_gives_the_dense_model():
    """Sparse input (once refused with "setting an array element with a sequence"): rows
    are densified at the sites, so a CSR stream is the dense stream, bit for bit."""
    import scipy.sparse as sp

    X, y = blobs(60, seed=4)
    X[np.abs(X) < 0.5] = 0.0
    dense = DistributedL2SVM(tracking="exact",
        n_sites=3, kernel="rbf", gamma=0.5, C=5.0).fit(X[:40], y[:40])
    dense.partial_fit(X[40:], y[40:])
    sparse = DistributedL2SVM(tracking="exact", n_sites=3, kernel="rbf", gamma=0.5, C=5.0)
    sparse.fit(sp.csr_matrix(X[:40]), y[:40])
    sparse.partial_fit(sp.csr_matrix(X[40:]), y[40:])
    np.testing.assert_array_equal(sparse.dual_coef_, dense.dual_coef_)
    np.testing.assert_array_equal(sparse.decision_function(sp.csr_matrix(X)),
                                  dense.decision_function(X))
    assert sparse.communication_report() == dense.communication_report()


def test_second_class_met_mid_stream_flips_the_sites_labels():
    """A stream that starts with one class: the only class so far is +1 at the sites; when
    the other class arrives and sorts after it, the sites negate their labels. Either way
    the model is the one of a stream that declared both classes."""
    X0, y0 = blobs(50, seed=5)
    for first in ("neg", "pos"):
        order = np.argsort(y0 != first, kind="stable")  # all of `first` come first
        X, y = X0[order], y0[order]
        head = int(np.sum(y == first)) - 2
        discovered = DistributedL2SVM(tracking="exact", n_sites=3, gamma=0.5, C=5.0)
        discovered.partial_fit(X[:head], y[:head])
        assert discovered.classes_.tolist() == [first]
        discovered.partial_fit(X[head:], y[head:])
        declared = DistributedL2SVM(tracking="exact", n_sites=3, gamma=0.5, C=5.0)
        declared.partial_fit(X, y, classes=["neg", "pos"])
        np.testing.assert_array_equal(discovered.decision_function(X),
                                      declared.decision_function(X))
        assert discovered.n_seen_ == 50


@pytest.mark.parametrize("tracking", ["exact", "budget"])
def test_cli_tracking_option_runs_that_mode(tmp_path, tracking):
    """``--tracking`` picks the mode: the command's objective is the one of the model built
    with that mode in Python, and the two modes' objectives differ on this log."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 2))
    labels = np.where(X[:, 0] + 0.3 * rng.normal(size=40) > 0, 1, -1)
    lines = [format_event("add", i % 4, i, int(labels[i]), X[i]) for i in range(40)]
    log = tmp_path / "events.log"
    log.write_text("\n".join(lines) + "\n")
    report = tmp_path / "r.json"
    result = CliRunner().invoke(main, [
        "distributed", str(log), "--sites", "4", "--gamma", "1", "--tracking", tracking,
        "--budget", "5", "--report", str(report)])
    assert result.exit_code == 0, result.output
    objective = json.loads(report.read_text())["objective"]
    models = {mode: DistributedL2SVM(4, gamma=1.0, tracking=mode, budget=5)
              for mode in ("exact", "budget")}
    for model in models.values():
        model.run_events(lines)
    assert objective == pytest.approx(models[tracking].objective_)
    assert models["exact"].objective_ != pytest.approx(models["budget"].objective_)
