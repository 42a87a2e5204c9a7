"""A site's Gram matrix of the atoms, kept from one global vector to the next, holds the very
bits a fresh ``space.gram`` of the atoms gives (site.Site._atoms_gram)."""

import numpy as np
from sklearn.datasets import make_classification

from streamsvm import DistributedL2SVM


def test_reused_atom_gram_equals_a_fresh_gram_at_every_site():
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
        checked += len(ids) > 1
    assert checked == len(sites)
