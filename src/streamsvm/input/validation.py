"""Input checks shared by every estimator.

Everything an estimator receives goes through here once per call, before any state is
touched, so that a rejected call leaves the model exactly as it was. The checks convert to
the one internal layout the jitted loops are compiled for:

* dense input -> C-contiguous ``float64``;
* sparse input -> CSR in scipy's canonical format (sorted indices, no duplicate entries),
  ``float64`` data and ``int32`` index arrays. A row holding one column twice means the sum
  of its entries, as in scipy (``X.sum_duplicates()``, done on a copy: the caller's matrix is
  never changed), for every estimator alike.

Error messages name the problem (and where possible the row), because a stream that fails
after an hour should say which example broke it.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import DataConversionWarning
from sklearn.utils import check_array
from sklearn.utils.multiclass import type_of_target

from ..kernels import _core as _kernel_core
from .vocabulary import feature_value

__all__ = [
    "check_features",
    "check_labels",
    "check_label_kind",
    "check_one_example",
    "check_declared_classes",
    "check_row_norms",
    "check_feature_names",
    "feature_names_of",
    "first_bad_row",
    "refuse_non_finite_rows",
    "RowsRefused",
    "label_kind",
    "unique_labels",
    "row_sqnorms",
]

DTYPE = np.float64
INDEX_DTYPE = np.int32


class RowsRefused(ValueError):
    """Raised by a learner whose compiled loop, checking the rows as it learns them (dense
    rows in ``fit``, :attr:`streamsvm.base.StreamClassifier._learners_check_rows`), found a row
    holding NaN or infinity or too large. The estimator then puts the model back as it was
    and runs the separate checks of :func:`check_features`, whose error names the row."""


def is_internal_dense(X) -> bool:
    """Whether ``X`` is a non-empty C-contiguous float64 matrix: the layout the compiled loops
    take as it is (no conversion, no copy)."""
    return _is_internal_dense(X)


def first_bad_row(X) -> int | None:
    """Index of the first row holding NaN or infinity, or None."""
    data = X.data if sp.issparse(X) else X
    finite = np.isfinite(data)
    if finite.all():
        return None
    bad = ~finite
    if sp.issparse(X):
        position = int(np.flatnonzero(bad)[0])
        return int(np.searchsorted(X.indptr, position, side="right") - 1)
    return int(np.flatnonzero(bad.any(axis=1))[0])


def _is_internal_dense(X) -> bool:
    """Whether ``X`` is already a non-empty C-contiguous float64 matrix (nothing to convert,
    so scikit-learn's general-purpose ``check_array`` can be skipped on the hot path)."""
    return (
        type(X) is np.ndarray
        and X.dtype == DTYPE
        and X.ndim == 2
        and X.flags.c_contiguous
        and X.shape[0] >= 1
        and X.shape[1] >= 1
    )


def _is_internal_csr(X) -> bool:
    """Whether ``X`` is already a non-empty CSR matrix in the internal layout (float64 data,
    int32 indices, sorted, no duplicate entries: scipy's canonical format): a stream's chunks
    usually are, and then the conversion is skipped."""
    return (
        type(X) is sp.csr_matrix
        and X.data.dtype == DTYPE
        and X.indices.dtype == INDEX_DTYPE
        and X.indptr.dtype == INDEX_DTYPE
        and X.data.flags.c_contiguous
        and X.indices.flags.c_contiguous
        and X.indptr.flags.c_contiguous
        and X.shape[0] >= 1
        and X.shape[1] >= 1
        and X.has_canonical_format
    )


def _as_internal_csr(X) -> sp.csr_matrix:
    """``X`` as an internal CSR matrix (:func:`_is_internal_csr`). Duplicate entries of a
    row are summed, as scipy reads them (``X @ w``, ``X.toarray()``): the compiled loops
    merge sorted indices and would otherwise read such a row otherwise than scipy does. The
    caller's matrix is not changed (the sum is made on a copy)."""
    X = sp.csr_matrix(X)
    if not X.has_canonical_format:
        X = X.copy()  # csr_matrix(X) shares the caller's arrays; sum_duplicates is in place
        X.sum_duplicates()
    if X.nnz >= np.iinfo(INDEX_DTYPE).max:
        raise ValueError("sparse X has more than 2**31 stored values; split it into chunks")
    return sp.csr_matrix(
        (
            np.ascontiguousarray(X.data, dtype=DTYPE),
            np.ascontiguousarray(X.indices, dtype=INDEX_DTYPE),
            np.ascontiguousarray(X.indptr, dtype=INDEX_DTYPE),
        ),
        shape=X.shape,
    )


def csr_row_range(X: sp.csr_matrix, start: int, stop: int | None) -> sp.csr_matrix:
    """Rows ``start:stop`` of the CSR matrix ``X`` as a CSR matrix over views of its arrays:
    what ``X[start:stop]`` gives, without scipy's index checks and copies (half its cost on
    chunks of 1,000 rows, where it is paid once per chunk)."""
    stop = X.shape[0] if stop is None else min(stop, X.shape[0])
    lo, hi = X.indptr[start], X.indptr[stop]
    return sp.csr_matrix((X.data[lo:hi], X.indices[lo:hi], X.indptr[start:stop + 1] - lo),
                         shape=(stop - start, X.shape[1]), copy=False)


#: The widest sparse input an estimator accepts: its width is a declared number, not data, and
#: models keep per-feature arrays (a hostile svmlight index must not allocate terabytes). The
#: readers' default ``max_features`` is the same.
MAX_SPARSE_FEATURES = 2**24


def check_features(
    X,
    *,
    n_features: int | None = None,
    accept_sparse: bool = True,
    estimator_name: str = "the estimator",
    return_sqnorms: bool = False,
    row_pass: bool = True,
):
    """Validate a feature matrix and convert it to the internal layout; refuse NaN and
    infinity naming the first row holding one.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
    n_features : int, optional
        The width the model was fitted with; a different width is an error.
    accept_sparse : bool
        Whether the estimator handles CSR input.
    estimator_name : str
        Used in messages.
    return_sqnorms : bool
        Also return the rows' squared norms (computed anyway: they are the finiteness check),
        for the kernel's overflow bound (:func:`check_row_norms`).
    row_pass : bool
        False: convert and check the width only (``sqnorms`` is None); the caller makes
        the pass over the rows itself, fused with other work, and refuses non-finite rows
        with :func:`refuse_non_finite_rows` before any state changes.

    Returns
    -------
    ndarray (C-contiguous float64) or scipy.sparse.csr_matrix (float64 data, int32 indices),
    and with ``return_sqnorms`` the squared norms (n_samples,)
    """
    if X is None:
        raise TypeError(
            f"{estimator_name} got X=None; expected an array of shape (n_samples, n_features)"
        )
    if sp.issparse(X) and not accept_sparse:
        raise TypeError(
            f"{estimator_name} does not accept sparse input; convert it with X.toarray() "
            "if it fits in memory"
        )
    if not (_is_internal_dense(X) or _is_internal_csr(X)):
        try:
            X = check_array(
                X,
                accept_sparse=["csr", "csc", "coo"] if accept_sparse else False,
                dtype=DTYPE,
                order="C",
                ensure_all_finite=False,
                ensure_min_samples=1,
                input_name="X",
            )
        except (ValueError, np.exceptions.DTypePromotionError) as error:
            refuse_non_numbers(X, error)
            raise
    if sp.issparse(X) and X.shape[1] > MAX_SPARSE_FEATURES:
        raise ValueError(
            f"X is a sparse matrix of {X.shape[1]:,} columns; estimators keep arrays of one "
            f"value per feature, so at most {MAX_SPARSE_FEATURES:,} columns are accepted "
            "(streamsvm.input.validation.MAX_SPARSE_FEATURES); renumber the features densely"
        )
    if sp.issparse(X) and not _is_internal_csr(X):
        X = _as_internal_csr(X)
    sqnorms = None
    if row_pass:
        # One pass gives the squared norms and finiteness: a NaN or infinity makes its row's
        # squared norm non-finite (squares cannot cancel), so the entries are scanned only then.
        sqnorms = row_sqnorms(X)
        refuse_non_finite_rows(X, sqnorms)
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(
            f"X has {X.shape[1]} features, but {estimator_name} is expecting "
            f"{n_features} features as input"
        )
    return (X, sqnorms) if return_sqnorms else X


def refuse_non_numbers(X, error: BaseException) -> None:
    """Raise a ValueError naming ``X``'s dtype and its first entry that is not a number when
    converting ``X`` to float64 failed (``error``) because it holds text (strings, bytes, or
    an object array of them): NumPy's own errors (``could not convert string to float``,
    ``DTypePromotionError``) name neither X nor where the text is. Returns when ``X`` holds
    no text (the caller re-raises ``error``)."""
    if sp.issparse(X):
        return
    try:
        columns = getattr(X, "columns", None)
        dtypes = getattr(X, "dtypes", None)
        values = np.asarray(X, dtype=object) if columns is not None else np.asarray(X)
    except Exception:  # noqa: BLE001 - not array-like: the original error says more
        return
    if values.dtype.kind not in "OUSV":
        return
    flat = values.reshape(values.shape[0], -1) if values.ndim >= 2 else values.reshape(1, -1)
    for position, value in enumerate(flat.ravel()):
        if not _is_number(value):
            row, column = divmod(position, max(flat.shape[1], 1))
            value = value.item() if isinstance(value, np.generic) else value
            break
    else:
        return
    if columns is not None and dtypes is not None and column < len(columns):
        where = f"row {row}, column {list(columns)[column]!r} of dtype {list(dtypes)[column]}"
        dtype = "a table"
    else:
        where = f"row {row}, column {column}"
        dtype = f"an array of dtype {values.dtype}"
    raise ValueError(
        f"X is {dtype} holding values that are not numbers (first at {where}: {value!r}); "
        "streamsvm estimators take numeric features: encode text columns first (e.g. with "
        "sklearn.preprocessing.OneHotEncoder or OrdinalEncoder) or convert the array with "
        f"X.astype(float). ({type(error).__name__}: {error})"
    ) from error


def _is_number(value) -> bool:
    """Whether ``float(value)`` is a number NumPy takes (strings of numbers are)."""
    if isinstance(value, bytes | np.bytes_):
        value = value.decode("ascii", "replace")
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def refuse_non_finite_rows(X, sqnorms) -> None:
    """Refuse a converted chunk whose rows' squared norms ``sqnorms`` are not all finite,
    naming the first row holding NaN or infinity (or whose squared norm overflows)."""
    if np.isfinite(sqnorms).all():
        return
    bad = first_bad_row(X)
    if bad is None:
        bad = int(np.flatnonzero(~np.isfinite(sqnorms))[0])
        raise ValueError(
            f"row {bad} of X is too large: its squared norm overflows float64; rescale "
            "the features"
        )
    row = X[bad].toarray().ravel() if sp.issparse(X) else X[bad]
    kind = "NaN" if np.isnan(row).any() else "infinity"
    raise ValueError(f"Input X contains {kind} (first at row {bad}); remove or impute it")


def feature_names_of(X) -> np.ndarray | None:
    """The column names of a table (a pandas or polars DataFrame: anything with ``columns``)
    as an object array, when every one is a string; None for arrays, sparse matrices and
    tables with other names (read by position, as scikit-learn does). Names that mix strings
    and other values are a ``TypeError``, as in scikit-learn."""
    if isinstance(X, np.ndarray) or sp.issparse(X):
        return None
    columns = getattr(X, "columns", None)
    if columns is None:
        return None
    names = np.asarray(list(columns), dtype=object)
    strings = [isinstance(name, str) for name in names]
    if not names.size or not any(strings):
        return None
    if not all(strings):
        raise TypeError("feature names are checked only when all are strings; got column "
                        f"names of types {sorted({type(n).__name__ for n in names})}: convert "
                        "them with X.columns = X.columns.astype(str)")
    return names


def check_feature_names(names, fitted, *, estimator_name: str) -> None:
    """Refuse a table whose column names (``names``, from :func:`feature_names_of`) are not
    the ``fitted`` ones in the same order: its columns would be read by position, so a
    reordered table would feed every value to another feature, silently. A table with names
    for a model fitted without them (or the reverse) only warns, as in scikit-learn."""
    if fitted is None:
        if names is not None:
            warnings.warn(f"X has feature names, but {estimator_name} was fitted without "
                          "feature names: its columns are read by position", UserWarning,
                          stacklevel=4)
        return
    if names is None:
        warnings.warn(f"X does not have valid feature names, but {estimator_name} was fitted "
                      "with feature names: its columns are read by position", UserWarning,
                      stacklevel=4)
        return
    if names.shape == fitted.shape and (names == fitted).all():
        return
    # scikit-learn's wording (its estimator checks match it)
    message = (f"{estimator_name}: The feature names should match those that were passed "
               "during fit.\n")
    unexpected = sorted(set(names) - set(fitted))
    missing = sorted(set(fitted) - set(names))
    for title, listed in (("Feature names unseen at fit time:", unexpected),
                          ("Feature names seen at fit time, yet now missing:", missing)):
        if listed:
            message += title + "\n" + "".join(f"- {n}\n" for n in listed[:5])
            message += "- ...\n" if len(listed) > 5 else ""
    if not unexpected and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    raise ValueError(message)


def check_labels(y, n_samples: int) -> np.ndarray:
    """Validate class labels: 1-D, one per example, no NaN, a classification target, all
    numbers or all strings (see :func:`label_kind`), no empty string."""
    if y is None:
        raise ValueError("requires y to be passed, but the target y is None")
    y = _as_label_array(y, "y")
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected; it is ravelled.",
            DataConversionWarning,
            stacklevel=3,
        )
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D (one label per example); got shape {y.shape}")
    if y.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} examples but y has {y.shape[0]} labels")
    if y.dtype.kind in "fc":
        if not np.isfinite(y).all():
            raise ValueError(
                "Input y contains NaN or infinity "
                f"(first at row {int(np.flatnonzero(~np.isfinite(y))[0])})"
            )
    if y.dtype.kind in "US":
        _refuse_empty_labels(y, "y")
    if y.dtype.kind in "iubUS":  # discrete by construction: skip sklearn's full scan
        return y
    if y.dtype.kind == "f" and np.any(np.abs(y) >= 2.0**63) and np.all(y == np.round(y)):
        big = y[np.flatnonzero(np.abs(y) >= 2.0**63)[0]]  # (sklearn: "continuous")
        raise ValueError(f"y holds whole-number labels beyond int64's range, such as {big:.17g}: "
                         "class labels this large are not told apart exactly as numbers; "
                         "number the classes with smaller integers, or give them as text")
    target = type_of_target(y, input_name="y")
    if target not in ("binary", "multiclass"):
        raise ValueError(
            f"Unknown label type: {target!r}; streamsvm classifiers need discrete class labels "
            "(for a continuous target use a regressor)"
        )
    return y


def check_declared_classes(classes) -> np.ndarray:
    """Validate the ``classes`` argument of ``partial_fit``: unique sorted labels, two or more."""
    classes = _as_label_array(classes, "classes")
    if classes.dtype.kind in "US":
        _refuse_empty_labels(classes, "classes")
    if classes.dtype.kind == "f" and not np.isfinite(classes).all():
        raise ValueError(f"classes contains NaN or infinity: {classes.tolist()}")
    if classes.ndim != 1:
        raise ValueError(f"classes must be a 1-D list of labels; got shape {classes.shape}")
    unique = np.unique(classes)
    if unique.shape[0] != classes.shape[0]:
        raise ValueError("classes contains duplicate labels")
    if unique.shape[0] < 2:
        raise ValueError(
            f"classes names only one class ({unique.tolist()}); "
            "a classifier needs at least 2 classes"
        )
    return unique


def check_one_example(x, *, feature_names: list | None, n_features: int | None):
    """Turn one example (1-D array or dict) into a (1, n_features) float64 row.

    Dict keys are either integer column indices or feature names. Names are fixed by the
    first dict the model sees (in that dict's order); a later unknown name is an error.
    Features missing from a dict are zero.

    Returns
    -------
    row : ndarray of shape (1, n_features)
    feature_names : list or None
        The feature names to remember (the given ones, or the first dict's keys).
    """
    if isinstance(x, Mapping):
        keys = list(x.keys())
        if not keys:
            raise ValueError("the example is an empty dict; it has no features")
        if all(isinstance(k, numbers.Integral) and not isinstance(k, bool) for k in keys):
            width = n_features if n_features is not None else max(keys) + 1
            row = np.zeros(width, dtype=DTYPE)
            for k, v in x.items():
                if not 0 <= k < width:
                    raise ValueError(f"feature index {k} is outside 0..{width - 1}")
                row[k] = feature_value(k, v)
            return row[None, :], feature_names
        if feature_names is None:
            feature_names = [str(k) for k in keys]
        position = {name: j for j, name in enumerate(feature_names)}
        row = np.zeros(len(feature_names), dtype=DTYPE)
        for k, v in x.items():
            j = position.get(str(k))
            if j is None:
                raise ValueError(
                    f"unknown feature {k!r}: the model was started with features "
                    f"{feature_names[:10]}"
                    + (" ..." if len(feature_names) > 10 else "")
                )
            row[j] = feature_value(k, v)
        return row[None, :], feature_names
    row = np.asarray(x)
    if row.ndim != 1:
        raise ValueError(
            f"learn_one/predict_one take one example (a 1-D array or a dict); got shape {row.shape}"
        )
    if row.dtype.kind == "c":
        raise ValueError("the example holds complex numbers; features are real numbers")
    try:  # float64 now, so that learn_one's warm-up never gathers text to fail on later
        row = np.asarray(row, dtype=DTYPE)
    except (ValueError, np.exceptions.DTypePromotionError) as error:
        refuse_non_numbers(row[None, :], error)
        raise
    return row[None, :], feature_names




# ---------------------------------------------------------------------- labels


def unique_labels(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(y, return_counts=True)``: the sorted distinct labels (dtype of ``y``) and
    how many times each occurs. Integer labels spanning a small range (the usual ``0..K-1``
    or ``±1``) are counted by one ``bincount``, several times faster than NumPy's sort or
    hash of a long ``y``."""
    if y.dtype.kind in "iu" and y.ndim == 1 and y.shape[0]:
        lo, hi = int(y.min()), int(y.max())
        if hi - lo <= max(y.shape[0], 1024) and hi <= np.iinfo(np.intp).max:
            counts = np.bincount(y.astype(np.intp, copy=False) - lo)
            present = np.flatnonzero(counts)
            return (present + lo).astype(y.dtype), counts[present]
    return np.unique(y, return_counts=True)


def label_kind(labels: np.ndarray) -> str:
    """``'number'`` (bool, int, float dtypes), ``'string'`` or ``'bytes'``.

    Labels of one kind merge by value (``1``, ``1.0``, ``True`` and ``np.int64(1)`` are one
    class); labels of different kinds never meet in one model.
    """
    kind = labels.dtype.kind
    if kind in "biuf":
        return "number"
    if kind == "U":
        return "string"
    if kind == "S":
        return "bytes"
    raise ValueError(f"labels must be numbers or strings; got dtype {labels.dtype}")


def check_label_kind(y: np.ndarray, classes: np.ndarray, *, what: str = "the model's classes"):
    """Refuse labels ``y`` whose kind differs from that of the non-empty ``classes``."""
    if classes.shape[0] == 0 or y.shape[0] == 0:
        return
    got, want = label_kind(y), label_kind(classes)
    if got != want:
        raise ValueError(
            f"y holds {got}s ({y[:3].tolist()} ...) but {what} are {want}s "
            f"({classes[:5].tolist()}); a model's labels must all be numbers or all be strings"
        )


def _label_category(value) -> str | None:
    if isinstance(value, str | np.str_):
        return "string"
    if isinstance(value, bytes | np.bytes_):
        return "bytes"
    if isinstance(value, numbers.Real | np.bool_):
        return "number"
    return None


def _as_label_array(labels, name: str) -> np.ndarray:
    """``labels`` as an array of one kind. NumPy silently turns ``[0, 'a']`` into the strings
    ``['0', 'a']``; lists that give strings and object arrays are therefore checked element by
    element (one ``map`` over the types), and refused when they mix kinds or hold ``None``."""
    array = np.asarray(labels)
    if array.dtype.kind == "c":
        raise ValueError(f"{name} holds complex numbers; class labels are numbers or strings")
    if array.dtype.kind == "O" or (array.dtype.kind in "US" and not isinstance(labels, np.ndarray)):
        flat = np.asarray(labels, dtype=object).ravel()
        if flat.size == 0:
            return array.astype(np.float64) if array.dtype.kind == "O" else array
        categories = list(map(_label_category, flat))
        if categories[0] is None:
            raise ValueError(f"{name} entry 0 is {flat[0]!r}; labels must be numbers or strings")
        if len(set(categories)) > 1:
            bad = next(i for i, c in enumerate(categories) if c != categories[0])
            raise ValueError(
                f"{name} mixes label types: entry {bad} is {flat[bad]!r} but entry 0 is "
                f"{flat[0]!r}; labels must all be numbers or all be strings"
            )
        array = np.asarray(flat.tolist()).reshape(array.shape)
    return array


def _refuse_empty_labels(labels: np.ndarray, name: str) -> None:
    empty = np.flatnonzero(np.char.str_len(labels.ravel()) == 0)
    if empty.size:
        raise ValueError(
            f"{name} holds an empty label (first at entry {int(empty[0])}); an empty string is "
            "usually a missing value: fill or drop it"
        )


# ---------------------------------------------------------------------- magnitudes


def row_sqnorms(X) -> np.ndarray:
    """``‖row i‖²`` of a validated chunk (dense float64 or internal CSR), one compiled pass."""
    out = np.empty(X.shape[0])
    if sp.issparse(X):
        return _kernel_core.sqnorms_csr(X.indptr, X.data, out)
    return _kernel_core.sqnorms_dense(X, out)


def check_row_norms(sqnorms, limit: float, *, estimator_name: str, kernel_name: str) -> None:
    """Refuse a chunk holding a row whose squared norm (``sqnorms``, from :func:`row_sqnorms`)
    exceeds ``limit`` (a bound from :func:`streamsvm.kernels.spec.max_safe_sqnorm`), naming
    the first such row."""
    within = sqnorms <= limit
    if within.all():
        return
    bad = int(np.flatnonzero(~within)[0])
    raise ValueError(
        f"row {bad} of X is too large for {estimator_name} with the {kernel_name} kernel: its "
        f"squared norm is {sqnorms[bad]:.3g}, above {limit:.3g}, beyond which kernel values or "
        "dot products could overflow float64; rescale the features"
    )
