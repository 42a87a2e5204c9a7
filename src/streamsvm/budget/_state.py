"""The state of the budget family's compiled code, in one place: the tuples of arrays the
jitted functions take, the named slots of each tuple and of their scalar arrays, and the
functions that allocate them. Plain tuples of NumPy arrays (no jitclass), so a model
pickles, deep-copies and round-trips through :mod:`streamsvm.persistence`.

* The *machine* ``m`` of :mod:`._incremental_core` (the exact incremental C-SVM,
  Cauwenberghs & Poggio, "Incremental and Decremental Support Vector Machine Learning",
  NIPS 2000): ``m[M_X]`` stored examples (capacity, d), ``m[M_SQ]`` their squared norms,
  ``m[M_Y]`` labels ±1, ``m[M_WEIGHT]`` weights ``s_i`` (bound ``s_i C``), ``m[M_ALPHA]``,
  ``m[M_G]`` gradients, ``m[M_STATUS]`` set of each example (RESERVE / MARGIN / ERROR),
  ``m[M_GRAM]`` the kernel matrix of the stored examples, ``m[M_MARGIN]`` the slots of the
  margin set in order, ``m[M_R]`` the inverse of the bordered matrix, ``m[M_IDS]`` the
  caller's example ids, ``m[M_FS]`` float scalars (``F_*``), ``m[M_IST]`` int scalars
  (``I_*``).
* The *twins* ``tw`` of :mod:`._tvm_core` (the Twin Vector Machine, Wang & Vucetic,
  "Twin Vector Machines for Online Learning on a Budget", SDM 2009): ``tw[TW_PIVOTS]``
  pivots ``q_j`` (B, d), ``tw[TW_PIVOT_SQ]`` their squared norms, ``tw[TW_WEIGHT_POS]`` /
  ``tw[TW_WEIGHT_NEG]`` weights ``s_j^+`` / ``s_j^-``, ``tw[TW_SLOT_POS]`` /
  ``tw[TW_SLOT_NEG]`` the machine slots of the twin's two examples (-1: none),
  ``tw[TW_NEIGHBOUR]``, ``tw[TW_NEIGHBOUR_DIST]``, ``tw[TW_NEIGHBOUR_SIDE]`` the merge
  neighbour of each twin, its distance and side, ``tw[TW_CHANGED]`` pivots whose distance
  row is stale, ``tw[TW_IST]`` int counters (``T_*``), ``tw[TW_FS]`` float state
  (``TF_*``), ``tw[TW_DIST]`` the cached squared pivot distances (B, B).
* The TVM's options ``opts`` (``O_*``, int) and float parameters ``fpar`` (``P_*``).
"""

import numpy as np

# slots of the machine tuple ``m``
M_X = 0
M_SQ = 1
M_Y = 2
M_WEIGHT = 3
M_ALPHA = 4
M_G = 5
M_STATUS = 6
M_GRAM = 7
M_MARGIN = 8
M_R = 9
M_IDS = 10
M_FS = 11
M_IST = 12
M_SIZE = 13
#: the per-example arrays of the machine (copied row by row when its capacity grows)
M_PER_EXAMPLE = (M_X, M_SQ, M_Y, M_WEIGHT, M_ALPHA, M_G, M_STATUS, M_IDS)

# the machine's int scalars, ``m[M_IST]``
I_N = 0  # slots used
I_P = 1  # margin vectors
I_CODE = 2
I_DEGREE = 3
I_REFACTOR = 4  # refactorisations of R
I_EVENTS = 5  # bookkeeping events (adiabatic steps)
I_OPS = 6  # operations since the last refresh
I_KEVALS = 7  # kernel evaluations
I_FAIL = 8  # operations that hit the iteration limit (then refreshed and retried)
I_SIZE = 9
# the machine's float scalars, ``m[M_FS]``
F_B = 0
F_C = 1
F_GAMMA = 2
F_COEF0 = 3
F_TOL = 4
F_SIZE = 5
# status codes, ``m[M_STATUS]``
RESERVE = 0
MARGIN = 1
ERROR = 2
DRIVER = 3

# slots of the twins tuple ``tw``
TW_PIVOTS = 0
TW_PIVOT_SQ = 1
TW_WEIGHT_POS = 2
TW_WEIGHT_NEG = 3
TW_SLOT_POS = 4
TW_SLOT_NEG = 5
TW_NEIGHBOUR = 6
TW_NEIGHBOUR_DIST = 7
TW_NEIGHBOUR_SIDE = 8
TW_CHANGED = 9
TW_IST = 10
TW_FS = 11
TW_DIST = 12
TW_SIZE = 13

# the twins' int counters, ``tw[TW_IST]``
T_NTW = 0
T_ADD = 1
T_REPL = 2
T_MERGE = 3
T_REJECT = 4
T_BENEF = 5
T_SEEN = 6
T_FAILED = 7
T_DIST = 8  # O(d) pair distances computed for the merge-neighbour search
T_SIZE = 9
# the twins' float state, ``tw[TW_FS]``
TF_TOTAL = 0  # sum of twin weights
TF_CPROD = 1  # C * total kept constant (or C itself when not rescaled)
TF_SIZE = 2

# TVM option flags (int array ``opts``)
O_B = 0
O_FEATURE = 1
O_ONE_SIDED = 2
O_REJECTION = 3
O_SCALE_C = 4
O_TRIES = 5
O_SIZE = 6
# TVM float parameters (``fpar``)
P_M1 = 0
P_M2 = 1
P_ETA = 2
P_SIZE = 3


def new_machine(capacity, n_features, code, gamma, degree, coef0, C, tol):
    """Empty machine for ``capacity`` examples."""
    m = [None] * M_SIZE
    m[M_X] = np.zeros((capacity, n_features))
    m[M_SQ] = np.zeros(capacity)
    m[M_Y] = np.zeros(capacity)
    m[M_WEIGHT] = np.zeros(capacity)
    m[M_ALPHA] = np.zeros(capacity)
    m[M_G] = np.zeros(capacity)
    m[M_STATUS] = np.zeros(capacity, dtype=np.int64)
    m[M_GRAM] = np.zeros((capacity, capacity))
    m[M_MARGIN] = np.zeros(capacity, dtype=np.int64)
    m[M_R] = np.zeros((capacity + 1, capacity + 1))
    m[M_IDS] = np.zeros(capacity, dtype=np.int64)
    fs = m[M_FS] = np.zeros(F_SIZE)
    ist = m[M_IST] = np.zeros(I_SIZE, dtype=np.int64)
    ist[I_CODE] = code
    ist[I_DEGREE] = degree
    fs[F_C] = C
    fs[F_GAMMA] = gamma
    fs[F_COEF0] = coef0
    fs[F_TOL] = tol
    return tuple(m)


def new_twins(B, n_features):
    """Empty twins for a budget of ``B``."""
    tw = [None] * TW_SIZE
    tw[TW_PIVOTS] = np.zeros((B, n_features))
    tw[TW_PIVOT_SQ] = np.zeros(B)
    tw[TW_WEIGHT_POS] = np.zeros(B)
    tw[TW_WEIGHT_NEG] = np.zeros(B)
    tw[TW_SLOT_POS] = np.full(B, -1, dtype=np.int64)
    tw[TW_SLOT_NEG] = np.full(B, -1, dtype=np.int64)
    tw[TW_NEIGHBOUR] = np.full(B, -1, dtype=np.int64)
    tw[TW_NEIGHBOUR_DIST] = np.full(B, np.inf)
    tw[TW_NEIGHBOUR_SIDE] = np.zeros(B, dtype=np.int64)
    tw[TW_CHANGED] = np.zeros(B, dtype=np.int64)
    tw[TW_IST] = np.zeros(T_SIZE, dtype=np.int64)
    tw[TW_FS] = np.zeros(TF_SIZE)
    tw[TW_DIST] = np.zeros((B, B))
    return tuple(tw)
