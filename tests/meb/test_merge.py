"""Merging StreamSVM models learnt on disjoint parts of a stream."""

import numpy as np
import pytest

from streamsvm import StreamSVM
from streamsvm.datasets import make_synthetic_c
from streamsvm.meb import merge

from tests import naive


def explicit_halves(X, y, C, cut):
    """Each half's ball in the joint augmented space (halves own disjoint e_n)."""
    n, d = X.shape
    cA, RA, _, pA = naive.streamsvm_algorithm1(X[:cut], y[:cut], C)
    cB, RB, _, pB = naive.streamsvm_algorithm1(X[cut:], y[cut:], C)
    zA, zB = np.zeros(n - cut), np.zeros(cut)
    centre_A = np.concatenate([cA[:d], cA[d:], zA])
    centre_B = np.concatenate([cB[:d], zB, cB[d:]])
    points = np.vstack(
        [
            np.hstack([pA[:, :d], pA[:, d:], np.zeros((cut, n - cut))]),
            np.hstack([pB[:, :d], np.zeros((n - cut, cut)), pB[:, d:]]),
        ]
    )
    return centre_A, RA, centre_B, RB, points


@pytest.mark.parametrize("cut", [40, 100, 150])
def test_merged_ball_encloses_both_halves(cut):
    X, y = make_synthetic_c(200, random_state=cut)
    y = y.astype(float)
    C = 2.0
    params = dict(C=C, center=False, normalize=False, fit_intercept=False, lookahead=1)
    left = StreamSVM(**params).fit(X[:cut], y[:cut])
    right = StreamSVM(**params).fit(X[cut:], y[cut:])
    both = merge(left, right)
    centre_A, RA, centre_B, RB, points = explicit_halves(X, y, C, cut)
    d = X.shape[1]
    np.testing.assert_allclose(left.coef_[0], centre_A[:d])
    # the merged centre is λ c_A + (1-λ) c_B; recover λ from the feature parts
    direction = centre_A[:d] - centre_B[:d]
    lam = (both.coef_[0] - centre_B[:d]) @ direction / (direction @ direction)
    centre = lam * centre_A + (1 - lam) * centre_B
    np.testing.assert_allclose(centre[:d], both.coef_[0], atol=1e-9)
    assert np.all(np.linalg.norm(points - centre, axis=1) <= both.radius_ * (1 + 1e-8))
    assert both.radius_ >= max(RA, RB) * (1 - 1e-12)
    # and the two input balls themselves are enclosed
    assert np.linalg.norm(centre - centre_A) + RA <= both.radius_ * (1 + 1e-8)
    assert np.linalg.norm(centre - centre_B) + RB <= both.radius_ * (1 + 1e-8)
    assert both.n_seen_ == 200


def test_merge_handles_opposite_label_conventions():
    """A part that met class +1 first and one that met -1 first are mirrored balls."""
    X, y = make_synthetic_c(300, random_state=3)
    order_a = np.argsort(y[:150] != 1, kind="stable")
    order_b = np.argsort(y[150:] != -1, kind="stable")
    params = dict(center=False)
    left = StreamSVM(**params).partial_fit(X[:150][order_a], y[:150][order_a])
    right = StreamSVM(**params).partial_fit(X[150:][order_b], y[150:][order_b])
    declared_left = StreamSVM(**params).partial_fit(
        X[:150][order_a], y[:150][order_a], classes=[-1, 1]
    )
    declared_right = StreamSVM(**params).partial_fit(
        X[150:][order_b], y[150:][order_b], classes=[-1, 1]
    )
    np.testing.assert_allclose(
        merge(left, right).decision_function(X),
        merge(declared_left, declared_right).decision_function(X),
    )


def test_merge_refuses_incompatible_models():
    X, y = make_synthetic_c(200, random_state=4)
    centred_a = StreamSVM().fit(X[:100], y[:100])
    centred_b = StreamSVM().fit(X[100:], y[100:])
    with pytest.raises(ValueError, match="different means"):
        merge(centred_a, centred_b)
    with pytest.raises(ValueError, match="same parameters"):
        merge(StreamSVM(center=False).fit(X, y), StreamSVM(center=False, C=5.0).fit(X, y))
    with pytest.raises(TypeError, match="StreamSVM"):
        merge(StreamSVM(center=False).fit(X, y), object())
