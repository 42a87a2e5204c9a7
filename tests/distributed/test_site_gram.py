"""A site's Gram matrix of the atoms and its matrix between the atoms and its own points, kept
from one global vector to the next, hold the very bits a fresh ``space.gram`` gives
(site.Site._atoms_gram, site._reused_gram)."""

import numpy as np
from sklearn.datasets import make_classification

from streamsvm import DistributedL2SVM


def test_reused_gram_matrices_equal_fresh_ones_at_every_site():
    X, y = make_classification(120, n_features=6, random_state=3)
    model = DistributedL2SVM(n_sites=3).fit(X[:80], y[:80])
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
