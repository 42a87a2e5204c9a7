"""The tracking protocol (Chrysogelos, diploma thesis, TU Crete 2016) against a centralised
solve after every event, and the invariants the thesis proves (Theorems 1, 3, 5; section 3.3;
method 2's single solve)."""

import numpy as np
import pytest

from streamsvm.distributed import (
    ConvexFunction,
    EuclideanSpace,
    KernelSpace,
    PointBlock,
    SquaredNorm,
    Tracker,
)
from streamsvm.kernels import Kernel
from streamsvm.qp import min_norm_point

from tests.naive import l2svm_hat_gram, simplex_qp_scipy

GAMMA = 0.5


def rbf(a, b):
    return float(np.exp(-GAMMA * np.sum((a - b) ** 2)))


def linear(a, b):
    return float(a @ b)


def make_stream(n=48, d=2, seed=0, n_sites=4, delete_every=4):
    """Events (kind, site, id) over points X, y: additions at random sites, and every
    ``delete_every`` additions the deletion of a random live point (atoms included)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    site_of = rng.integers(n_sites, size=n)
    events, live = [], []
    for i in range(n):
        events.append(("add", int(site_of[i]), i))
        live.append(i)
        if i % delete_every == delete_every - 1 and len(live) > 3:
            j = live.pop(int(rng.integers(len(live))))
            events.append(("delete", int(site_of[j]), j))
    return X, y, events


def replay(tracker, X, y, events, check):
    for kind, site, pid in events:
        if kind == "add":
            tracker.add(site, X[pid], y[pid], point_id=pid)
        else:
            tracker.delete(site, pid)
        check(tracker)


def oracle(G_all, tracker):
    ids = np.array(sorted(tracker.point_ids()))
    G = G_all[np.ix_(ids, ids)]
    return min_norm_point(G, tol=1e-13).sq_norm, ids, G


def assert_sites_agree(tracker):
    ids0, coef0 = tracker.global_vector(0)
    for k in range(1, tracker.n_sites):
        ids, coef = tracker.global_vector(k)
        np.testing.assert_array_equal(ids, ids0)
        np.testing.assert_array_equal(coef, coef0)
    assert np.all(coef0 > 0) and np.isclose(coef0.sum(), 1.0)
    return ids0, coef0


def assert_local_constraints(tracker, eps_abs):
    """Theorem 1 / 5: after the update every point of every site satisfies
    ∇f(ê)ᵀ(x − ê) ≥ −ε (up to the rounding allowance)."""
    for k in range(tracker.n_sites):
        _ids, slacks = tracker.site_points(k)
        assert np.all(slacks >= -tracker.threshold()), (k, slacks.min())
        assert tracker.threshold() <= eps_abs + 1e-8 * 10


def centralised_check(G_all, C):
    """A check for :func:`replay`: every site holds the same ê, which is the centralised
    optimum over the points alive (the objective is strictly convex in ê), and the local
    constraints hold exactly."""
    def check(t):
        f_star, ids, G = oracle(G_all, t)
        atoms, coef = assert_sites_agree(t)
        assert set(atoms.tolist()) <= set(ids.tolist())
        pos = np.searchsorted(ids, atoms)
        f = coef @ G[np.ix_(pos, pos)] @ coef
        assert abs(t.objective_value() - f_star) <= 1e-9 * (1 + 1 / C)
        assert abs(f - f_star) <= 1e-9 * (1 + 1 / C)
        assert_local_constraints(t, 0.0)
    return check


@pytest.mark.parametrize("update", ["method1", "method2"])
@pytest.mark.parametrize("task", ["two-class", "one-class"])
def test_exact_tracking_equals_centralised_after_every_event(update, task):
    X, y, events = make_stream(seed=1 if task == "two-class" else 2)
    C = 4.0
    space = KernelSpace(Kernel("rbf", gamma=GAMMA), C, task)
    G_all = l2svm_hat_gram(X, y, np.arange(len(X)), rbf, C, task)
    tracker = Tracker(4, 2, space, SquaredNorm(), update=update)
    replay(tracker, X, y, events, centralised_check(G_all, C))
    assert tracker.report()["deletions"] > 5


def test_exact_tracking_agrees_with_scipy_solver():
    X, y, events = make_stream(n=24, seed=5, n_sites=3)
    space = KernelSpace(Kernel("rbf", gamma=GAMMA), 2.0, "two-class")
    tracker = Tracker(3, 2, space, SquaredNorm())
    replay(tracker, X, y, events, lambda t: None)
    ids = np.array(sorted(tracker.point_ids()))
    G = l2svm_hat_gram(X[ids], y[ids], ids, rbf, 2.0, "two-class")
    a, f = simplex_qp_scipy(G)
    assert tracker.objective_value() == pytest.approx(f, rel=1e-6)
    # the decision function agrees with the centralised L2-SVM's: Σ a_i y_i (k(x_i, x) + 1)
    grid = np.random.default_rng(0).normal(size=(30, 2))
    K = np.array([[rbf(g, X[i]) for i in ids] for g in grid])
    central = (K + 1) @ (a * y[ids])
    np.testing.assert_allclose(tracker.decision_function(grid, site=2), central, atol=1e-4)


@pytest.mark.parametrize("update", ["method1", "method2"])
@pytest.mark.parametrize("relative", [False, True])
def test_approximate_tracking_within_epsilon(update, relative):
    X, y, events = make_stream(n=60, seed=3)
    C, eps = 4.0, (0.05 if relative else 0.02)
    space = KernelSpace(Kernel("rbf", gamma=GAMMA), C, "two-class")
    G_all = l2svm_hat_gram(X, y, np.arange(len(X)), rbf, C, "two-class")
    tracker = Tracker(4, 2, space, SquaredNorm(), epsilon=eps, relative=relative,
                      update=update)
    tol = 1e-9 * (1 + 1 / C)

    def check(t):
        f_star, _, _ = oracle(G_all, t)
        f = t.objective_value()
        assert f >= f_star - tol
        if relative:  # section 3.3: f(ê) ≤ (1 + ε̂) f*
            assert f <= (1 + eps) * f_star + tol
            eps_abs = eps / (1 + eps) * f
        else:  # Theorem 5: f(ê) ≤ f* + ε
            assert f <= f_star + eps + tol
            eps_abs = eps
        assert_sites_agree(t)
        assert_local_constraints(t, eps_abs)

    replay(tracker, X, y, events, check)
    exact = Tracker(4, 2, space, SquaredNorm(), update=update)
    replay(exact, X, y, events, lambda t: None)
    # relaxing the constraints saves updates
    assert tracker.report()["updates"] < exact.report()["updates"]


def test_deletion_certificates_and_no_communication():
    X, y, events = make_stream(n=40, seed=4, delete_every=1000)
    space = KernelSpace(Kernel("rbf", gamma=GAMMA), 4.0, "two-class")
    tracker = Tracker(4, 2, space, SquaredNorm())
    replay(tracker, X, y, events, lambda t: None)
    atoms, coef = tracker.global_vector()
    owner = tracker.point_ids()
    non_atoms = [p for p in owner if p not in set(atoms.tolist())]
    assert non_atoms
    before = tracker.report()
    for pid in non_atoms[:5]:
        site_ids, slacks = tracker.site_points(owner[pid])
        record = tracker.delete(owner[pid], pid)
        assert record["certificate"] in ("zero-coefficient", "positive-slack")
        # Theorem 3: a positive slack certifies a zero coefficient
        if slacks[list(site_ids).index(pid)] > tracker.threshold():
            assert record["certificate"] == "positive-slack"
        assert record["messages"] == 0 and record["rounds"] == 0 and not record["triggered"]
    after = tracker.report()
    assert after["messages"] == before["messages"]
    np.testing.assert_array_equal(tracker.global_vector()[1], coef)
    # deleting an atom of ê triggers an update and ê stops using it
    victim = int(atoms[np.argmax(coef)])
    record = tracker.delete(owner[victim], victim)
    assert record["triggered"] and record["rounds"] >= 1 and record["messages"] > 0
    assert victim not in set(tracker.global_vector()[0].tolist())


def test_message_counts_are_consistent():
    X, y, events = make_stream(n=40, seed=6)
    d, K = 2, 4
    space = KernelSpace(Kernel("rbf", gamma=GAMMA), 4.0, "two-class")
    tracker = Tracker(K, d, space, SquaredNorm())
    replay(tracker, X, y, events, lambda t: None)
    totals = tracker.report()
    records = tracker.stats.events
    for name in ("messages", "vectors", "scalars", "bytes", "vector_broadcasts", "rounds"):
        assert totals[name] == sum(r[name] for r in records)
    # method 1 ships vectors only in broadcasts to the K − 1 other sites
    assert totals["vectors"] == (K - 1) * totals["vector_broadcasts"]
    assert totals["bytes"] == totals["vectors"] * (8 * d + 16) + 8 * totals["scalars"]
    for r in records:
        if not r["triggered"]:
            assert r["messages"] == r["vectors"] == r["bytes"] == r["rounds"] == 0
        else:
            # every round is one broadcast of ids and coefficients to K − 1 sites
            assert r["messages"] >= (K - 1) * r["rounds"]
    assert records[0]["rounds"] == 1 and records[0]["vector_broadcasts"] == 1
    assert totals["naive_vectors"] == totals["additions"] == 40


def test_method2_single_round_and_fewer_vectors_where_extremes_are_few():
    """Plain points in the plane (linear kernel, no δ/C): the extreme points of the cut
    rays are few, so method 2 ships fewer vectors than collecting every point; exact mode
    needs one solve per update (the single stage of section 2.5.1)."""
    rng = np.random.default_rng(7)
    X = rng.uniform(-1, 1, size=(60, 2)) + np.array([2.0, 1.0])
    space = KernelSpace(Kernel("linear"), np.inf, "plain")
    t2 = Tracker(4, 2, space, SquaredNorm(), update="method2")
    t1 = Tracker(4, 2, space, SquaredNorm(), update="method1")
    for i, x in enumerate(X):
        t2.add(i % 4, x, point_id=i)
        t1.add(i % 4, x, point_id=i)
        assert t2.objective_value() == pytest.approx(t1.objective_value(), abs=1e-9)
    f_star = min_norm_point(X @ X.T).sq_norm
    assert t2.objective_value() == pytest.approx(f_star, abs=1e-9)
    for r in t2.stats.events[1:]:
        if r["triggered"]:
            assert r["rounds"] == 1
    collected = sum(r["vectors"] for r in t2.stats.events if r["triggered"])
    assert collected < sum(i for i in range(len(X)))  # far from shipping every point


def test_method2_approximate_falls_back_to_method1():
    X, y, events = make_stream(n=60, seed=8, n_sites=3, delete_every=1000)
    space = KernelSpace(Kernel("rbf", gamma=GAMMA), 4.0, "two-class")
    tracker = Tracker(3, 2, space, SquaredNorm(), epsilon=0.01, update="method2")
    replay(tracker, X, y, events, lambda t: None)
    records = [r for r in tracker.stats.events if r["triggered"]]
    assert any(r["fallback"] for r in records)
    for r in records[1:]:
        # e_c inside S_ε⁻ ends the update at once (section 3.2.1); on ∂S_ε method 1 follows
        assert r["rounds"] >= 2 if r["fallback"] else r["rounds"] == 1
    G = l2svm_hat_gram(X, y, np.arange(len(X)), rbf, 4.0, "two-class")
    assert tracker.objective_value() <= min_norm_point(G).sq_norm + 0.01 + 1e-9


def test_hull_check_reexpresses_with_a_duplicate():
    """Section 2.4.2: the deleted atom's twin (same vector, another site) lies on ∂S, so ê
    is re-expressed without any update round."""
    space = KernelSpace(Kernel("linear"), np.inf, "plain")
    tracker = Tracker(2, 2, space, SquaredNorm(), deletion_check="hull")
    tracker.add(0, [1.0, 0.0], point_id=0)
    tracker.add(1, [1.0, 0.0], point_id=1)
    tracker.add(1, [2.0, 2.0], point_id=2)
    ids, _ = tracker.global_vector()
    assert ids.tolist() == [0]
    record = tracker.delete(0, 0)
    assert record["certificate"] == "re-expressed" and record["rounds"] == 0
    assert tracker.global_vector()[0].tolist() == [1]
    assert tracker.objective_value() == pytest.approx(1.0)


def test_general_convex_function():
    """Chapters 2–3 with a non-quadratic f over explicit vectors (ConvexFunction)."""
    c = np.array([0.3, -0.2, 0.1])

    def value(e):
        return float(np.log(np.sum(np.exp(e))) + 0.5 * np.sum((e - c) ** 2))

    def gradient(e):
        p = np.exp(e - e.max())
        return p / p.sum() + (e - c)

    rng = np.random.default_rng(9)
    X = rng.normal(size=(30, 3)) + 1.0
    f_obj = ConvexFunction(value, gradient)
    tracker = Tracker(3, 3, EuclideanSpace(), f_obj, epsilon=1e-6)
    for i, x in enumerate(X):
        tracker.add(i % 3, x, point_id=i)
        ref, f_star = f_obj.minimise(EuclideanSpace(), PointBlock(np.arange(i + 1), X[:i + 1],
                                                                   np.ones(i + 1)))
        f = tracker.objective_value()
        assert f_star - 1e-7 <= f <= f_star + 1e-6 + 1e-7
    for pid in range(0, 30, 2):
        tracker.delete(pid % 3, pid)
    keep = np.arange(1, 30, 2)
    _, f_star = f_obj.minimise(EuclideanSpace(), PointBlock(keep, X[keep], np.ones(15)))
    assert tracker.objective_value() == pytest.approx(f_star, abs=2e-6)


def test_first_point_initialises_and_last_deletion_clears():
    space = KernelSpace(Kernel("rbf", gamma=1.0), 1.0, "one-class")
    tracker = Tracker(3, 1, space, SquaredNorm())
    rec = tracker.add(2, [0.5])
    assert rec["triggered"] and rec["vector_broadcasts"] == 1 and rec["messages"] == 2
    assert tracker.global_vector(0)[0].tolist() == [rec["point_id"]]
    assert tracker.objective_value() == pytest.approx(1.0 + 1.0)  # k(x, x) + 1/C
    tracker.delete(2, rec["point_id"])
    assert tracker.report()["n_points"] == 0
    tracker.add(0, [0.1])  # starts again
    assert tracker.objective_value() == pytest.approx(2.0)
