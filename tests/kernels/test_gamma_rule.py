"""The gamma and centring rule of docs/design.md, checked on every estimator with a ``gamma``:
the same ``gamma_`` as scikit-learn's SVC on the same first data (raw features, before any
centring), fixed by the first chunk and kept; ``mean_`` fixed by the same chunk; one default
gamma; one rule for when the chunking cannot change the model."""

import inspect
import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.svm import SVC

from streamsvm.distributed import DistributedL2SVM
from streamsvm.kernels import fixed_by_first_data, resolve_gamma
from streamsvm.kernels.first_data import WARMUP_ROWS
from streamsvm.registry import available_estimators


def _with_gamma():
    classes = [cls for cls in available_estimators().values()
               if "gamma" in inspect.signature(cls).parameters]
    if DistributedL2SVM not in classes:
        classes.append(DistributedL2SVM)
    return classes


CLASSES = _with_gamma()
CENTRING = {cls for cls in CLASSES if getattr(cls, "_centres_input", False)}
IDS = [cls.__name__ for cls in CLASSES]


def make_model(cls, **params):
    """A small configuration of ``cls`` with an RBF kernel."""
    if cls is DistributedL2SVM:
        params = {"n_sites": 3, **params}
    if "gamma_factor" in inspect.signature(cls).parameters:
        # the Forgetron multiplies the rule's gamma (tests/budget/test_baselines.py)
        params = {"gamma_factor": 1.0, **params}
    return cls(kernel="rbf", **params)


def data(n=90, d=5, seed=0):
    """Features with column means far from 0 (so that centring changes Var(X)) and about half
    of the entries 0 (so that sparse X has implicit zeros); labels -1 / +1."""
    rng = np.random.default_rng(seed)
    X = rng.normal(loc=np.arange(1.0, d + 1) * 2.0, scale=1.5, size=(n, d))
    X *= rng.random((n, d)) < 0.6
    y = np.where(X[:, 0] - X[:, 1] + rng.normal(scale=0.5, size=n) > 0, 1, -1)
    y[:2] = [-1, 1]  # both classes in every first chunk
    return X, y


def svc_gamma(gamma, X, y):
    return SVC(kernel="rbf", gamma=gamma).fit(X, y)._gamma


def layout(X, sparse):
    return sp.csr_matrix(X) if sparse else X


def skip_unless_sparse_input(cls, sparse):
    if sparse and not getattr(cls, "_accepts_sparse", False):
        pytest.skip(f"{cls.__name__} takes dense input only")


def test_the_data_tell_raw_from_centred_gamma():
    X, y = data()
    assert svc_gamma("scale", X, y) != pytest.approx(
        svc_gamma("scale", X - X.mean(axis=0), y), rel=0.1)


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_default_gamma_is_scale(cls):
    assert inspect.signature(cls).parameters["gamma"].default == "scale"


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("gamma", ["scale", "auto"])
@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_fit_fixes_the_gamma_svc_uses(cls, gamma, sparse):
    skip_unless_sparse_input(cls, sparse)
    X, y = data()
    model = make_model(cls, gamma=gamma).fit(layout(X, sparse), y)
    assert model.gamma_ == pytest.approx(svc_gamma(gamma, layout(X, sparse), y), rel=1e-12)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_first_chunk_fixes_gamma_and_mean(cls, sparse):
    skip_unless_sparse_input(cls, sparse)
    X, y = data(n=120)
    first, later = slice(0, 40), [slice(40, 80), slice(80, 120)]
    model = make_model(cls)
    if cls in CENTRING:
        model.set_params(center=True)
    model.partial_fit(layout(X[first], sparse), y[first])
    expected = svc_gamma("scale", layout(X[first], sparse), y[first])
    assert model.gamma_ == pytest.approx(expected, rel=1e-12)
    assert model.gamma_ != pytest.approx(svc_gamma("scale", X, y), rel=1e-3)
    if cls in CENTRING:
        np.testing.assert_allclose(model.mean_, X[first].mean(axis=0), rtol=1e-12)
    gamma, mean = model.gamma_, getattr(model, "mean_", None)
    for chunk in later:
        model.partial_fit(layout(X[chunk], sparse), y[chunk])
        assert model.gamma_ == gamma
        if cls in CENTRING:
            np.testing.assert_array_equal(model.mean_, mean)


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_learn_one_fixes_gamma_after_the_warm_up_rows(cls):
    """``learn_one`` gathers WARMUP_ROWS examples and fixes ``gamma_`` (and ``mean_``) from
    them, as ``partial_fit`` does from a first chunk of those rows."""
    X, y = data()
    model = make_model(cls)
    for i in range(WARMUP_ROWS - 1):
        model.learn_one(X[3 + i], y[3 + i])
    assert not hasattr(model, "gamma_")
    model.learn_one(X[3 + WARMUP_ROWS - 1], y[3 + WARMUP_ROWS - 1])
    first = X[3 : 3 + WARMUP_ROWS]
    assert model.gamma_ == resolve_gamma("scale", first)
    if cls in CENTRING:
        np.testing.assert_array_equal(model.mean_, first.mean(axis=0))
    model.learn_one(X[3 + WARMUP_ROWS], y[3 + WARMUP_ROWS])
    assert model.gamma_ == resolve_gamma("scale", first)


def test_distributed_add_fixes_gamma_from_the_first_point():
    X, y = data()
    model = make_model(DistributedL2SVM)
    model.add(0, X[3], y[3])
    model.add(1, X[4], y[4])
    assert model.gamma_ == resolve_gamma("scale", X[3:4])


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_linear_kernel_has_no_gamma(cls):
    X, y = data()
    params = {"n_sites": 3} if cls is DistributedL2SVM else {}
    model = cls(kernel="linear", **params).fit(X, y)
    assert model.gamma_ is None


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_chunk_invariance_follows_one_rule(cls):
    """'scale' on a kernel with a gamma (or a centring mean) makes the first chunk matter;
    'auto' is 1 / n_features whatever the chunk, so it is as invariant as a number."""
    model = make_model(cls)
    if cls in CENTRING:
        model.set_params(center=False)
    by_gamma = {g: clone(model).set_params(gamma=g)._chunk_invariant
                for g in ("scale", "auto", 0.3)}
    assert fixed_by_first_data("rbf", "scale")
    assert not by_gamma["scale"]
    assert by_gamma["auto"] == by_gamma[0.3]
    linear = clone(model).set_params(kernel="linear", gamma="scale")
    assert linear._chunk_invariant == by_gamma[0.3]
    if cls in CENTRING:
        assert not clone(model).set_params(gamma=0.3, center=True)._chunk_invariant


def test_cli_distributed_default_gamma_is_the_estimators(tmp_path):
    """``streamsvm distributed`` without --gamma runs the estimator's default ('scale', fixed
    from the first point); 'scale' is accepted as a value."""
    from click.testing import CliRunner

    from streamsvm.cli import main
    from streamsvm.distributed.events import format_event

    X, _ = data(n=20, d=2)
    lines = [format_event("add", i % 2, i, 1, X[i]) for i in range(20)]
    log = tmp_path / "events.log"
    log.write_text("\n".join(lines) + "\n")
    objectives = []
    for extra in ([], ["--gamma", "scale"]):
        report = tmp_path / "report.json"
        result = CliRunner().invoke(main, ["distributed", str(log), "--sites", "2", "--task",
                                           "one-class", "--report", str(report), *extra])
        assert result.exit_code == 0, result.output
        objectives.append(json.loads(report.read_text())["objective"])
    model = DistributedL2SVM(2, task="one-class")
    model.run_events(lines)
    assert model.gamma_ == resolve_gamma("scale", X[:1])
    assert objectives == [pytest.approx(model.objective_)] * 2


@pytest.mark.parametrize("cls", [c for c in CLASSES if c is not DistributedL2SVM],
                         ids=[c.__name__ for c in CLASSES if c is not DistributedL2SVM])
def test_auto_gamma_is_chunk_invariant_where_the_family_is(cls):
    """Where a family promises chunk invariance, gamma='auto' keeps it: learning row by row
    gives the model of one chunk (the contract harness's check, with 'auto')."""
    model = make_model(cls, gamma="auto")
    if cls in CENTRING:
        model.set_params(center=False)
    if not model._chunk_invariant:
        pytest.skip(f"{cls.__name__} depends on the chunking for its own reasons")
    X, y = data(n=60)
    by_chunk = clone(model).partial_fit(X, y)
    one_by_one = clone(model)
    for xi, yi in zip(X, y, strict=True):
        one_by_one.learn_one(xi, yi)
    assert one_by_one.gamma_ == by_chunk.gamma_ == 1.0 / X.shape[1]
    np.testing.assert_allclose(one_by_one.decision_function(X), by_chunk.decision_function(X),
                               rtol=1e-9, atol=1e-12)
