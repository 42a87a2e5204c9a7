"""The rows StreamSVM's linear learners are handed: validated rows and the mapping still
to apply to them (centre, bias feature, unit norm), applied inside the compiled loops."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from . import _core


def _warn_unconverged(count: int) -> None:
    """Warn when ``count`` of a chunk's enclosing-ball solves did not certify their
    tolerance (the rounding level of the Gram matrix was reached first)."""
    if count:
        warnings.warn(f"{count} lookahead enclosing-ball solve(s) stopped before reaching tol "
                      "(the rounding level of the Gram matrix)", ConvergenceWarning,
                      stacklevel=4)


class _MappedRows:
    """Validated rows and the preprocessing still to apply to them (centre by ``mean``,
    append a 1, scale to unit norm): Algorithm 1 (dense or CSR) and Algorithm 2 (dense) apply
    it inside their loops, so the mapped chunk is never written out; :meth:`mapped` writes it
    out for everything else. CSR rows to be centred are densified here."""

    def __init__(self, X, mean, append_one, normalize):
        if mean is not None and sp.issparse(X):
            X = X.toarray()
        self.X, self.mean, self.append_one, self.normalize = X, mean, append_one, normalize
        self.sparse = sp.issparse(X)
        self.shape = (X.shape[0], X.shape[1] + int(append_one))

    def __getitem__(self, rows: slice) -> _MappedRows:
        """The same mapping over a slice of the rows."""
        return _MappedRows(self.X[rows], self.mean, self.append_one, self.normalize)

    @property
    def use_mean(self) -> bool:
        return self.mean is not None

    @property
    def jit_args(self) -> tuple:
        mean = self.mean if self.use_mean else np.zeros(self.X.shape[1])
        return self.X, mean, self.use_mean, self.append_one, self.normalize

    def dot(self, w: np.ndarray) -> np.ndarray:
        """The mapped rows' products with ``w``, each row mapped inside a compiled loop (not
        written out)."""
        out = np.empty(self.X.shape[0])
        if self.sparse:
            return _core.mapped_dots_csr(self.X.indptr, self.X.indices, self.X.data,
                                         self.append_one, self.normalize, w, out)
        return _core.mapped_dots_dense(*self.jit_args, w, out)

    def mapped(self):
        if not (self.use_mean or self.append_one or self.normalize):
            return self.X
        if self.sparse:
            return map_rows(self.X, None, self.append_one, self.normalize)
        return _core.prepare_dense(*self.jit_args, np.empty(self.shape))


def _map_kept_dense(rows, mean, append_one, normalize):
    """Raw dense ``rows`` mapped as :class:`_MappedRows` maps them (the calibrator's kept
    rows, once written out)."""
    return _MappedRows(rows, mean, append_one, normalize).mapped()


def _map_written_out(rows, append_one, normalize):
    """Uncentred dense ``rows`` mapped as :class:`_MappedRows` maps them (the calibrator's
    kept CSR rows, once written out)."""
    return _MappedRows(rows, None, append_one, normalize).mapped()


def map_rows(X, mean, append_one: bool, normalize: bool):
    """The MEB estimators' preprocessing of validated rows: subtract ``mean`` (if not None;
    sparse input is densified then), append a constant 1, scale rows to unit norm. Dense rows
    in one jitted pass; CSR rows stay CSR (float64 data, int32 indices)."""
    if mean is not None and sp.issparse(X):
        X = X.toarray()
    if not sp.issparse(X):
        return _MappedRows(X, mean, append_one, normalize).mapped()
    if append_one:
        X = sp.hstack([X, np.ones((X.shape[0], 1))], format="csr")
    if normalize:
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        X = sp.csr_matrix(sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ X)
    X.sort_indices()
    return sp.csr_matrix(
        (X.data.astype(np.float64), X.indices.astype(np.int32), X.indptr.astype(np.int32)),
        shape=X.shape,
    )
