"""The jitted cores are callable from other @njit code, as the estimators' chunk loops do."""

import numpy as np
from numba import njit

from streamsvm.qp import _core, meb_of_balls_and_points, min_norm_point


@njit(cache=True)
def _lookahead_flushes(G_blocks, radii_blocks):
    """Solve one enclosing-ball problem per block from inside jitted code."""
    n_blocks = G_blocks.shape[0]
    radius = np.empty(n_blocks)
    for b in range(n_blocks):
        lam, R, lower, centre_sq, n_iter, status = _core.meb_of_balls_core(
            G_blocks[b], radii_blocks[b], np.empty(0), 1e-10, 1000, 100
        )
        radius[b] = R if status == _core.CONVERGED else np.nan
    return radius


def test_cores_from_jitted_code_match_the_python_api():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(3, 6, 4))
    G_blocks = np.ascontiguousarray(np.einsum("bik,bjk->bij", A, A))
    radii_blocks = rng.uniform(0, 0.5, size=(3, 6))
    radius = _lookahead_flushes(G_blocks, radii_blocks)
    for b in range(3):
        expected = meb_of_balls_and_points(G_blocks[b], radii_blocks[b]).radius
        assert radius[b] == expected


def test_core_statuses_and_return_values():
    G = np.array([[2.0, 1.0], [1.0, 2.0]])
    lam, sq_norm, gap, lower, n_iter, status = _core.min_norm_point_core(G, np.empty(0), 1e-10, 50)
    assert status == _core.CONVERGED
    assert sq_norm == min_norm_point(G).sq_norm == 1.5
    lam, gap, n_iter, status = _core.simplex_qp(
        G, 1.0, np.array([0.0, -10.0]), np.empty(0), 1e-14, 0.0, 50, 1e-14
    )
    # the linear term pulls all weight to the second vertex
    assert status == _core.CONVERGED and lam.tolist() == [0.0, 1.0]
