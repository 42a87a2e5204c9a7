"""A site's Gram matrix of the atoms and its matrix between the atoms and its own points, kept
from one global vector to the next, hold the very bits a fresh ``space.gram`` gives
(site.Site._atoms_gram, site._reused_gram)."""

import numpy as np
from sklearn.datasets import make_classification

from streamsvm import DistributedL2SVM


def test_reused_gram_matrices_equal_fresh_ones_at_every_site():
    X, y = make_classification(120, n_features=6, random_state=3)
    model = DistributedL2SVM(tracking="exact", n_sites=3).fit(X[:80], y[:80])
    model.partial_fit(X[80:], y[80:])  # more broadcasts, atoms leaving and entering
    sites = model.tracker_.network.sites
    checked = 0
    for site in sites:
        ids, kept = site._atom_gram
        assert np.array_equal(ids, site._atoms.ids)
        fresh = site.space.gram(site._atoms)
        assert np.array_equal(kept, fresh)  # bit for bit, not merely close
        atom_ids, own_ids, cross = site._own_cross
        own = site.own_block()
        assert np.array_equal(atom_ids, site._atoms.ids) and np.array_equal(own_ids, own.ids)
        assert np.array_equal(cross, site.space.gram(site._atoms, own))
        checked += len(ids) > 1
    assert checked == len(sites)


def test_local_problems_gram_equals_fresh_one(monkeypatch):
    """solve_local builds the Gram matrix of M_k from the matrices the site holds
    (site._gram_from): the same bits as space.gram at every local problem, and the same model
    as computing every local problem's matrix afresh."""
    from streamsvm.distributed import site as site_module

    X, y = make_classification(90, n_features=5, random_state=4)
    reused = site_module._gram_from
    calls = []

    def checked(space, block, sources):
        K = reused(space, block, sources)
        assert np.array_equal(K, space.gram(block))
        calls.append(len(sources))
        return K

    monkeypatch.setattr(site_module, "_gram_from", checked)
    model = DistributedL2SVM(tracking="exact", n_sites=3).fit(X, y)
    assert sum(n > 0 for n in calls) > 10  # matrices were reused, not only computed
    monkeypatch.setattr(site_module, "_gram_from", lambda space, block, sources:
                        space.gram(block))
    fresh = DistributedL2SVM(tracking="exact", n_sites=3).fit(X, y)
    assert np.array_equal(model.support_ids_, fresh.support_ids_)
    assert np.array_equal(model.dual_coef_, fresh.dual_coef_)


def test_site_computations_run_on_one_thread():
    """A site's requests run with numba at one thread (messages.SiteEndpoint.receive): the
    kernel rows' parallel path, one parallel region per row, made fits of a few hundred
    wide rows take minutes of CPU time on busy cores."""
    import numba

    from streamsvm.distributed.messages import Envelope, SiteEndpoint

    class Probe:
        def threads(self):
            return numba.get_num_threads()

    endpoint = SiteEndpoint(Probe())
    reply = endpoint.receive([Envelope("request", 0, 1, method="threads")])
    assert reply[0].result == 1
    assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS  # restored
