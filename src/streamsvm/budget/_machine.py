"""The Python owner of a jitted incremental SVM (:mod:`._incremental_core`): arrays, capacity,
kernel parameters, and the read-only views the estimators expose."""

from __future__ import annotations

import numpy as np

from ..kernels import KERNEL_NAMES, Kernel
from ..kernels._core import threads_par
from . import _incremental_core as core
from . import _state as state

#: no entry of a machine learnt from rows within the contract (squared norms up to
#: ``ROW_SQNORM_LIMIT``) comes near this; products of two such entries stay finite
_MAGNITUDE = 1e150


def _counter(slot: int, doc: str) -> property:
    """A read-only property: the machine's integer counter ``ist[slot]`` (:mod:`._state`)."""
    return property(lambda self: int(self.m[state.M_IST][slot]), doc=doc)


class Machine:
    """State of one exact incremental C-SVM over stored examples (dense rows).

    ``m`` is the tuple of arrays the jitted functions take (see
    :mod:`._state`, :func:`._state.new_machine`). Capacity grows by doubling on demand
    (:meth:`reserve`) unless ``fixed`` (budgeted models allocate once).
    """

    def __init__(self, n_features, *, capacity, jit_kernel, C, tol=1e-9):
        code, gamma, degree, coef0 = jit_kernel
        self.n_features = int(n_features)
        self.m = state.new_machine(int(capacity), self.n_features, int(code), float(gamma),
                                  int(degree), float(coef0), float(C), float(tol))

    # ------------------------------------------------------------------ sizes
    @property
    def capacity(self) -> int:
        return self.m[state.M_X].shape[0]

    n = _counter(state.I_N, "Examples stored.")
    P = _counter(state.I_P, "Members of the margin set S.")

    @property
    def C(self) -> float:
        return float(self.m[state.M_FS][state.F_C])

    @property
    def b(self) -> float:
        return float(self.m[state.M_FS][state.F_B])

    def reserve(self, extra: int) -> None:
        """Make room for ``extra`` more examples (doubling)."""
        need = self.n + int(extra)
        if need <= self.capacity:
            return
        cap = max(need, 2 * self.capacity, 16)
        old = self.m
        n, P = self.n, self.P
        fs, ist = old[state.M_FS], old[state.M_IST]
        new = state.new_machine(cap, self.n_features, int(ist[state.I_CODE]),
                                float(fs[state.F_GAMMA]), int(ist[state.I_DEGREE]),
                                float(fs[state.F_COEF0]), float(fs[state.F_C]),
                                float(fs[state.F_TOL]))
        for k in state.M_PER_EXAMPLE:
            new[k][:n] = old[k][:n]
        new[state.M_GRAM][:n, :n] = old[state.M_GRAM][:n, :n]
        new[state.M_MARGIN][:P] = old[state.M_MARGIN][:P]
        new[state.M_R][: P + 1, : P + 1] = old[state.M_R][: P + 1, : P + 1]
        new[state.M_FS][:] = fs
        new[state.M_IST][:] = ist
        self.m = new

    def _check_restored(self) -> None:
        """Raise ValueError unless ``m`` (e.g. read from a model file) is a machine the jitted
        functions can trust: they do not check bounds."""
        m = self.m
        if not (isinstance(m, tuple) and len(m) == state.M_SIZE
                and all(isinstance(a, np.ndarray) for a in m)):
            raise ValueError(f"the machine's state is not its tuple of {state.M_SIZE} arrays")
        cap, d = m[state.M_X].shape[0], self.n_features
        shapes = {state.M_X: (cap, d), state.M_GRAM: (cap, cap), state.M_R: (cap + 1, cap + 1),
                  state.M_FS: (state.F_SIZE,), state.M_IST: (state.I_SIZE,)}
        ints = {state.M_STATUS, state.M_MARGIN, state.M_IDS, state.M_IST}
        if any(a.shape != shapes.get(k, (cap,)) or (a.dtype == np.int64) != (k in ints)
               or a.dtype.kind not in "if" for k, a in enumerate(m)):
            raise ValueError("the machine's arrays do not have matching shapes and dtypes")
        ist, fs = m[state.M_IST], m[state.M_FS]
        n, P = int(ist[state.I_N]), int(ist[state.I_P])
        margin = m[state.M_MARGIN][:P]
        status = m[state.M_STATUS][:n]
        ok = (
            0 <= P <= n <= cap and (ist >= 0).all()
            and int(ist[state.I_CODE]) in KERNEL_NAMES
            and ((status >= state.RESERVE) & (status <= state.DRIVER)).all()
            and ((margin >= 0) & (margin < n)).all() and np.unique(margin).size == P
            and fs[state.F_C] > 0 and fs[state.F_TOL] > 0
        )
        if not ok:
            raise ValueError("the machine's counts, sets or parameters are out of range")
        self._check_values(n, P)

    def _check_values(self, n: int, P: int) -> None:
        """The stored examples' values (e.g. an edited file): labels ±1, positive weights,
        squared norms that are the rows' and
        within the contract's bound, no coefficient, gradient, bias or entry of the inverse
        bordered matrix past a magnitude no model learnt within the contract reaches (1e300
        there gave NaN decisions after the next ``partial_fit``). (Coefficients are not held
        to their box ``[0, s_i C]``: rows near the contract's bound leave them outside it by
        rounding, and such a file must load.)"""
        from ..base import ROW_SQNORM_LIMIT

        m = self.m
        X, sq, y = m[state.M_X][:n], m[state.M_SQ][:n], m[state.M_Y][:n]
        weight, alpha, g = m[state.M_WEIGHT][:n], m[state.M_ALPHA][:n], m[state.M_G][:n]
        C = float(m[state.M_FS][state.F_C])
        with np.errstate(over="ignore", invalid="ignore"):
            rows_sq = np.einsum("ij,ij->i", X, X)
            ok = (
                ((y == 1.0) | (y == -1.0)).all()
                and (weight > 0).all() and np.isfinite(weight * C).all()
                and (np.abs(alpha) <= _MAGNITUDE).all()
                and (sq <= ROW_SQNORM_LIMIT).all()
                and np.allclose(sq, rows_sq, rtol=1e-9, atol=0.0)
                and (np.abs(m[state.M_R][: P + 1, : P + 1]) <= _MAGNITUDE).all()
                and (np.abs(g) <= _MAGNITUDE).all()
                and abs(float(m[state.M_FS][state.F_B])) <= _MAGNITUDE
            )
        if not ok:
            raise ValueError("the machine's labels, weights, coefficients, norms or "
                             "gradients are out of range")

    # ------------------------------------------------------------------ files and pickles
    def _saved_configuration(self) -> dict:
        """The kernel and tolerance the machine was made with, which a model file must repeat
        (``streamsvm.persistence`` compares them with a fresh learner's); not C, which the
        Twin Vector Machine rescales."""
        if not isinstance(getattr(self, "m", None), tuple):
            return {}  # a damaged file: its own checks name the problem
        fs, ist = self.m[state.M_FS], self.m[state.M_IST]
        return {"machine gamma": float(fs[state.F_GAMMA]),
                "machine coef0": float(fs[state.F_COEF0]), "machine tol": float(fs[state.F_TOL]),
                "machine kernel": int(ist[state.I_CODE]),
                "machine degree": int(ist[state.I_DEGREE])}

    def _persist_state(self) -> dict:
        """The machine without its spare capacity: the arrays cut to the ``n`` stored examples
        and the ``P`` margin vectors (what :meth:`reserve` copies; the rest is written before
        it is read), and the capacity, restored on load."""
        m, n, P = self.m, self.n, self.P
        trimmed = list(m)
        for k in state.M_PER_EXAMPLE:
            trimmed[k] = m[k][:n].copy()
        if getattr(self, "rebuild_gram_on_load", False):  # recomputed on load (n² values)
            trimmed[state.M_GRAM] = np.zeros((0, 0))
        else:
            trimmed[state.M_GRAM] = m[state.M_GRAM][:n, :n].copy()
        trimmed[state.M_MARGIN] = m[state.M_MARGIN][:P].copy()
        trimmed[state.M_R] = m[state.M_R][: P + 1, : P + 1].copy()
        return {**vars(self), "m": tuple(trimmed), "saved_capacity": self.capacity}

    def _restore_transient(self) -> None:
        capacity = self.__dict__.pop("saved_capacity", None)
        if capacity is None:  # a file written before machines were trimmed
            return
        small = self.m
        n, P = int(small[state.M_IST][state.I_N]), int(small[state.M_IST][state.I_P])
        fs, ist = small[state.M_FS], small[state.M_IST]
        consistent = (isinstance(capacity, int) and 0 <= P <= n <= capacity <= 2**31
                      and all(small[k].shape[0] == n for k in state.M_PER_EXAMPLE)
                      and small[state.M_X].shape == (n, self.n_features)
                      and small[state.M_GRAM].shape in ((n, n), (0, 0))
                      and small[state.M_MARGIN].shape == (P,)
                      and small[state.M_R].shape == (P + 1, P + 1))
        if not consistent:  # the compiled code does not check bounds
            raise ValueError("the saved incremental SVM's arrays do not match its sizes")
        full = state.new_machine(capacity, self.n_features, int(ist[state.I_CODE]),
                                 float(fs[state.F_GAMMA]), int(ist[state.I_DEGREE]),
                                 float(fs[state.F_COEF0]), float(fs[state.F_C]),
                                 float(fs[state.F_TOL]))
        if any(small[k].dtype != full[k].dtype for k in range(state.M_SIZE)):
            raise ValueError("the saved incremental SVM's arrays do not have its dtypes")
        for k in state.M_PER_EXAMPLE:
            full[k][:n] = small[k]
        if small[state.M_GRAM].shape[0] == n:
            full[state.M_GRAM][:n, :n] = small[state.M_GRAM]
        full[state.M_MARGIN][:P] = small[state.M_MARGIN]
        full[state.M_R][: P + 1, : P + 1] = small[state.M_R]
        full[state.M_FS][:] = fs
        full[state.M_IST][:] = ist
        self.m = full
        if small[state.M_GRAM].shape[0] != n:
            core.rebuild_gram(self.m, threads_par())

    def __getstate__(self) -> dict:
        return self._persist_state()

    def __setstate__(self, saved: dict) -> None:
        self.__dict__.update(saved)
        self._restore_transient()

    # ------------------------------------------------------------------ operations
    def add(self, X, y, weights, ids) -> None:
        """Learn the rows of dense ``X`` in order."""
        self.reserve(X.shape[0])
        sq = np.einsum("ij,ij->i", X, X)
        krow = np.zeros(self.capacity)
        y = np.ascontiguousarray(y, dtype=np.float64)
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        start = 0
        while start < X.shape[0]:
            start = core.add_many(self.m, X, sq, y, weights, ids, krow, start, threads_par())
            if start < X.shape[0] or self.n_failed:
                self.rebuild()

    def remove(self, slot) -> int:
        moved = core.remove_slot(self.m, slot)
        if self.n_failed:
            self.rebuild()
        return moved

    def set_weight(self, slot, weight) -> None:
        if not core.set_weight(self.m, slot, float(weight)):
            self.rebuild()

    def set_C(self, C) -> None:
        if float(C) != self.C and not core.set_C(self.m, float(C)):
            self.rebuild()

    @property
    def n_failed(self) -> int:
        return int(self.m[state.M_IST][state.I_FAIL]) >= 1_000_000

    def rebuild(self) -> None:
        """Fallback for numerically degenerate problems, where the adiabatic update failed
        even after a refactorisation: re-solve the weighted SVM on the stored examples with
        scikit-learn's SVC on the stored Gram matrix, then rebuild the sets and R."""
        from sklearn.svm import SVC

        m = self.m
        y, s, alpha = m[state.M_Y], m[state.M_WEIGHT], m[state.M_ALPHA]
        status, G, S = m[state.M_STATUS], m[state.M_GRAM], m[state.M_MARGIN]
        fs, ist = m[state.M_FS], m[state.M_IST]
        n = self.n
        ist[state.I_FAIL] = ist[state.I_FAIL] % 1_000_000 + 1
        C = self.C
        labels = y[:n]
        weights = s[:n]
        alpha[:n] = 0.0
        if np.unique(labels[weights > 0]).size == 2:
            svc = SVC(kernel="precomputed", C=C, tol=1e-10, max_iter=10_000_000)
            svc.fit(G[:n, :n], labels, sample_weight=weights)
            alpha[svc.support_] = np.abs(svc.dual_coef_[0])
            fs[state.F_B] = float(svc.intercept_[0])
        else:
            fs[state.F_B] = float(labels[0]) if n else 0.0
        upper = weights * C
        alpha[:n] = np.clip(alpha[:n], 0.0, upper)
        tol = 1e-9 * np.maximum(upper, 1e-300)
        at_zero = alpha[:n] <= tol
        at_upper = alpha[:n] >= upper - tol
        alpha[:n][at_zero] = 0.0
        alpha[:n][at_upper & ~at_zero] = upper[at_upper & ~at_zero]
        status[:n] = np.where(at_zero, state.RESERVE, np.where(at_upper, state.ERROR,
                                                                state.MARGIN))
        margin = np.flatnonzero(status[:n] == state.MARGIN)
        S[: margin.size] = margin
        ist[state.I_P] = margin.size
        core.refresh(self.m)

    # ------------------------------------------------------------------ views
    def kernel(self) -> Kernel:
        fs, ist = self.m[state.M_FS], self.m[state.M_IST]
        code = int(ist[state.I_CODE])
        return Kernel.from_jit_params(code, fs[state.F_GAMMA], ist[state.I_DEGREE],
                                      fs[state.F_COEF0])

    def support(self) -> np.ndarray:
        """Slots with ``alpha > 0``."""
        return np.flatnonzero(self.m[state.M_ALPHA][: self.n] > 0)

    def decision_function(self, X) -> np.ndarray:
        sv = self.support()
        if sv.size == 0:
            return np.full(X.shape[0], self.b)
        coef = self.m[state.M_Y][sv] * self.m[state.M_ALPHA][sv]
        kernel = self.kernel()
        return kernel.matrix(X, self.m[state.M_X][sv]) @ coef + self.b

    def sets(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Slots of the margin, error and reserve sets."""
        status = self.m[state.M_STATUS][: self.n]
        return (np.flatnonzero(status == state.MARGIN), np.flatnonzero(status == state.ERROR),
                np.flatnonzero(status == state.RESERVE))

    def dual_objective(self) -> float:
        """``W = 1/2 a'Qa - sum a`` at the current solution."""
        n = self.n
        y, alpha, G = self.m[state.M_Y][:n], self.m[state.M_ALPHA][:n], self.m[state.M_GRAM][:n, :n]
        ya = y * alpha
        return float(0.5 * ya @ G @ ya - alpha.sum())

    def kkt_violation(self) -> tuple[float, float]:
        worst, balance = core.kkt_violation(self.m)
        return float(worst), float(balance)

    def slot_of(self, example_id: int) -> int:
        hits = np.flatnonzero(self.m[state.M_IDS][: self.n] == example_id)
        return int(hits[0]) if hits.size else -1

    def ids(self) -> np.ndarray:
        return self.m[state.M_IDS][: self.n].copy()

    n_refactorizations = _counter(state.I_REFACTOR, "Refactorisations of R = J^-1 (O(P^3)).")
    n_events = _counter(state.I_EVENTS, "Steps of the adiabatic loop (changes of set).")
    n_kernel_evals = _counter(state.I_KEVALS, "Kernel values computed while learning.")
