"""The *panel*: a copy of the dense rows of the members of S in position order, one feature
per row (``panel[f, p] = x_perm[p][f]``), and their squared norms in its last row
(``panel[d, p] = ‖x_perm[p]‖²``), for dense data of at most ``PANEL_MAX_FEATURES`` features.

A kernel row of ``x`` against S then reads contiguous memory, one feature at a time, and
LLVM vectorises over the members: 0.3 ns a dot product on 2 features and 1.0 on 10,
against 2.0 and 3.9 for one gathered member row at a time (2-core x86 machine). Every dot
product of the training loops on such data comes from :func:`panel_dots`, so a kernel value
does not depend on the path that computed it (a row, a block of prefetched rows, a column of
the fused pair step; one thread or several).

The sum runs over the features in order, one fused multiply-add each (``contract`` only, no
reassociation): for fewer than 4 features the same bits as ``kernels._core.dot_rows``, which
LLVM cannot vectorise there; for more, the last bits of a dot product may differ from
``dot_rows``'s vectorised reduction (prediction, which uses ``dot_rows``, agrees to rounding).

The panel is derived state (rebuilt from ``perm`` and the store on load): :func:`put` fills
the column of an inserted member, :func:`permute` follows a reordering of S; removals leave
their column as it is (a hole's kernel value is 0 whatever its dot product).
"""

import numpy as np
from numba import njit

from ..kernels._core import copy_into

#: dense data with at most this many features gets a panel (more: one member row at a time,
#: whose dot product LLVM vectorises over the features)
PANEL_MAX_FEATURES = 64

_ORDERED = {"contract"}  # fused multiply-adds in the written order, no reassociation


def panel_features(sparse: bool, n_features: int) -> int:
    """Rows of feature values in the panel of such data (0: no panel)."""
    return 0 if sparse or n_features > PANEL_MAX_FEATURES else n_features


def empty_panel(n_rows: int, capacity: int) -> np.ndarray:
    """A panel of ``n_rows`` feature rows (0: none) and the squared-norm row."""
    return np.zeros((n_rows + 1 if n_rows else 0, capacity))


@njit(cache=True, fastmath=_ORDERED)
def panel_dots(Xd, rid, panel, lo, hi, out):
    """``out[p] = Xd[rid] · x_perm[p]`` for positions ``lo <= p < hi``, from the panel: the
    features in order, each a fused multiply-add (holes get the dot product of whatever
    their column holds)."""
    d = panel.shape[0] - 1
    seg = out[lo:hi]
    n = hi - lo
    x = Xd[rid]
    c = panel[0, lo:hi]
    x0 = x[0]
    for p in range(n):
        seg[p] = x0 * c[p]
    f = 1
    while f + 3 <= d:  # three features per pass over the segment (fewer loads and stores)
        x0, x1, x2 = x[f], x[f + 1], x[f + 2]
        c0, c1, c2 = panel[f, lo:hi], panel[f + 1, lo:hi], panel[f + 2, lo:hi]
        for p in range(n):
            seg[p] = ((seg[p] + x0 * c0[p]) + x1 * c1[p]) + x2 * c2[p]
        f += 3
    while f < d:
        x0 = x[f]
        c0 = panel[f, lo:hi]
        for p in range(n):
            seg[p] = seg[p] + x0 * c0[p]
        f += 1


@njit(cache=True, inline="always")
def put(panel, p, Xd, k, sq):
    """Column ``p`` of the panel: stored example ``k`` (no-op without a panel)."""
    d = panel.shape[0] - 1
    if d > 0:
        for f in range(d):
            panel[f, p] = Xd[k, f]
        panel[d, p] = sq[k]


@njit(cache=True)
def permute(panel, order, n_new, n_old, tmp):
    """Column ``t`` of the panel takes old column ``order[t]`` (``t < n_new``), as
    ``_expansion_core.reorder`` does to S; ``tmp`` is a float scratch of ``n_old``."""
    for r in range(panel.shape[0]):
        row = panel[r]
        copy_into(tmp[:n_old], row[:n_old])
        for t in range(n_new):
            row[t] = tmp[order[t]]


def build_panel(n_rows, capacity, perm, n_cols, Xd, sq):
    """The panel of the members at positions ``< n_cols`` (holes: zero columns)."""
    panel = empty_panel(n_rows, capacity)
    if n_rows:
        members = np.flatnonzero(perm[:n_cols] >= 0)
        ids = perm[members]
        panel[:n_rows, members] = Xd[ids].T
        panel[n_rows, members] = sq[ids]
    return panel
