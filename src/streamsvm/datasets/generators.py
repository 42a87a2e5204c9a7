"""Seeded synthetic streams of the papers, endless, in ``(X, y)`` chunks.

Each generator ``name(*, chunk_size=1000, random_state=None, ...)`` returns an endless
iterator of chunks; ``make_name(n_samples, *, random_state=None, ...)`` returns the first
``n_samples`` examples of the same stream. Examples are drawn in fixed blocks of
``BLOCK`` rows and regrouped, so the stream does not depend on ``chunk_size``:
``make_name(n, random_state=s)`` equals the first ``n`` rows of
``name(random_state=s, chunk_size=c)`` for every ``c``. ``random_state`` is an int, a
``numpy.random.Generator`` (consumed as the stream is read), a ``SeedSequence`` or None.
``X`` is float64, ``y`` int64.

>>> X, y = make_checkerboard(5, random_state=0)
>>> X.shape, sorted(set(y.tolist())) <= [-1, 1]
((5, 2), True)
>>> X2, y2 = next(checkerboard(chunk_size=3, random_state=0))
>>> bool((X2 == X[:3]).all() and (y2 == y[:3]).all())
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
from scipy.stats import norm

from .readers import _check_positive_int, _rechunk

__all__ = [
    "BLOCK",
    "GENERATORS",
    "checkerboard",
    "make_checkerboard",
    "noisy_checkerboard",
    "make_noisy_checkerboard",
    "gauss",
    "make_gauss",
    "waveform",
    "make_waveform",
    "waveform_means",
    "synthetic_a",
    "make_synthetic_a",
    "synthetic_b",
    "make_synthetic_b",
    "synthetic_c",
    "make_synthetic_c",
    "chessboard_10d",
    "make_chessboard_10d",
]

BLOCK = 4096  # rows drawn at a time


def _rng(random_state) -> np.random.Generator:
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    try:
        return np.random.default_rng(random_state)
    except (TypeError, ValueError):
        raise ValueError("random_state must be None, an int, a SeedSequence or a "
                         f"numpy.random.Generator; got {random_state!r}") from None


def _stream(draw: Callable, random_state, chunk_size) -> Iterator:
    chunk_size = _check_positive_int(chunk_size, "chunk_size")
    rng = _rng(random_state)

    def blocks():
        while True:
            yield draw(rng, BLOCK)

    return _rechunk(blocks(), chunk_size)


def _take(stream, n_samples):
    n_samples = _check_positive_int(n_samples, "n_samples")
    return next(_rechunk(stream, n_samples))


def _finite(draw, n_samples, random_state):
    n_samples = _check_positive_int(n_samples, "n_samples")
    return next(_stream(draw, random_state, n_samples))


def _check_fraction(value, name):
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{name} must be in [0, 1]; got {value!r}")
    return float(value)


# --------------------------------------------------------------------------- checkerboard
_CELL_STD = 4.0 / np.sqrt(12.0)  # standard deviation of U(0, 4)


def _checkerboard_draw(noise, standardize):
    noise = _check_fraction(noise, "noise")

    def draw(rng, n):
        X = rng.uniform(0.0, 4.0, size=(n, 2))
        flip = rng.random(n) < noise
        cells = np.floor(X).astype(np.int64)
        y = np.where((cells[:, 0] + cells[:, 1]) % 2 == 0, 1, -1)
        y[flip] = -y[flip]
        if standardize:
            X = (X - 2.0) / _CELL_STD
        return X, y

    return draw


def checkerboard(*, chunk_size=1000, random_state=None, noise=0.0, standardize=False):
    """Endless 4x4 checkerboard: ``x`` uniform on [0, 4)^2, ``y = +1`` on cells with
    ``floor(x1) + floor(x2)`` even, ``-1`` on the others (the TVM paper's Checkerboard).

    ``noise`` is the probability that a label is switched, independently per example
    (the paper switches "15% of randomly selected examples"; a Bernoulli choice is used so
    the stream needs no length). The uniform draws do not depend on ``noise``: the same
    seed gives the same points with and without noise. ``standardize=True`` maps each
    coordinate to mean 0 and standard deviation 1 of the distribution (``(x - 2) /
    (4/sqrt(12))``), as the paper scaled its data (its RBF width 0.37 refers to that
    scale).

    >>> X, y = next(checkerboard(chunk_size=4, random_state=1))
    >>> bool((y == np.where(np.floor(X).sum(axis=1) % 2 == 0, 1, -1)).all())
    True
    """
    return _stream(_checkerboard_draw(noise, standardize), random_state, chunk_size)


def make_checkerboard(n_samples, *, random_state=None, noise=0.0, standardize=False):
    """The first ``n_samples`` examples of :func:`checkerboard`.

    >>> X, y = make_checkerboard(1000, random_state=0)
    >>> X.shape, bool(X.min() >= 0 and X.max() < 4)
    ((1000, 2), True)
    """
    return _finite(_checkerboard_draw(noise, standardize), n_samples, random_state)


def noisy_checkerboard(*, chunk_size=1000, random_state=None, noise=0.15, standardize=False):
    """Endless N-Checkerboard of the TVM paper: :func:`checkerboard` with 15% of the labels
    switched (``noise``). With the same seed the points equal those of the clean stream,
    which is the paper's test set ("the noise-free Checkerboard as the test set").

    >>> X, y = next(noisy_checkerboard(chunk_size=2000, random_state=0))
    >>> clean = np.where(np.floor(X).sum(axis=1) % 2 == 0, 1, -1)
    >>> 0.12 < float(np.mean(y != clean)) < 0.18
    True
    """
    return _stream(_checkerboard_draw(noise, standardize), random_state, chunk_size)


def make_noisy_checkerboard(n_samples, *, random_state=None, noise=0.15, standardize=False):
    """The first ``n_samples`` examples of :func:`noisy_checkerboard`."""
    return _finite(_checkerboard_draw(noise, standardize), n_samples, random_state)


# --------------------------------------------------------------------------- gauss
def _gauss_draw(rng, n):
    y = np.where(rng.random(n) < 0.5, 1, -1)
    Z = rng.standard_normal((n, 2))
    X = np.where((y == 1)[:, None], Z, 2.0 * Z + np.array([2.0, 0.0]))
    return X, y


def gauss(*, chunk_size=1000, random_state=None):
    """Endless Gauss set of the TVM paper: two overlapping 2-D Gaussian classes.

    The TVM paper names the set without defining it; we use the definition of its
    authors' other budget-SVM papers: class ``+1`` from ``N((0, 0), I)``, class ``-1``
    from ``N((2, 0), 4 I)``, equally likely. The Bayes-optimal accuracy is about 81.5%,
    the accuracy the paper reports for LIBSVM (81.5 to 81.8) on it.

    >>> X, y = next(gauss(chunk_size=5, random_state=0))
    >>> X.shape, y.dtype
    ((5, 2), dtype('int64'))
    """
    return _stream(_gauss_draw, random_state, chunk_size)


def make_gauss(n_samples, *, random_state=None):
    """The first ``n_samples`` examples of :func:`gauss`."""
    return _finite(_gauss_draw, n_samples, random_state)


# --------------------------------------------------------------------------- waveform
def _base_waves():
    m = np.arange(1, 22)
    h1 = np.maximum(6.0 - np.abs(m - 11), 0.0)  # peak at 11
    h2 = np.maximum(6.0 - np.abs(m - 15), 0.0)  # h1(m - 4), peak at 15
    h3 = np.maximum(6.0 - np.abs(m - 7), 0.0)  # h1(m + 4), peak at 7
    return h1, h2, h3


def _waveform_pairs():
    h1, h2, h3 = _base_waves()
    # classes numbered as in UCI's waveform.data: class c is Breiman's class 3 - c
    return np.stack([h3, h3, h1]), np.stack([h2, h1, h2])


def waveform_means():
    """Expected feature vector of each waveform class, shape (3, 21): ``(a + b) / 2``.

    >>> waveform_means().argmax(axis=1).tolist()  # peaks at positions 7/15, 7/11, 11/15
    [6, 6, 10]
    """
    first, second = _waveform_pairs()
    return (first + second) / 2.0


def _waveform_draw(rng, n):
    first, second = _waveform_pairs()
    y = rng.integers(0, 3, size=n)
    u = rng.random(n)[:, None]
    X = u * first[y] + (1.0 - u) * second[y] + rng.standard_normal((n, 21))
    return X, y.astype(np.int64)


def waveform(*, chunk_size=1000, random_state=None):
    """Endless stream of Breiman's waveform data (CART, 1984): 21 features, 3 classes.

    Base waves over positions ``m = 1..21``: ``h1(m) = max(6 - |m - 11|, 0)``,
    ``h2(m) = h1(m - 4)``, ``h3(m) = h1(m + 4)``. An example of a class mixes two of them,
    ``x = u a + (1 - u) b + e`` with ``u ~ U(0, 1)`` and ``e ~ N(0, I_21)``; the classes
    are equally likely. They are numbered as in UCI's ``waveform.data`` (checked against
    its class means): 0 mixes ``h3, h2`` (peaks at 7 and 15), 1 mixes ``h1, h3`` (7 and
    11), 2 mixes ``h1, h2`` (11 and 15), i.e. class ``c`` is Breiman's class ``3 - c``.

    >>> X, y = next(waveform(chunk_size=6, random_state=0))
    >>> X.shape, set(y.tolist()) <= {0, 1, 2}
    ((6, 21), True)
    """
    return _stream(_waveform_draw, random_state, chunk_size)


def make_waveform(n_samples, *, random_state=None):
    """The first ``n_samples`` examples of :func:`waveform`."""
    return _finite(_waveform_draw, n_samples, random_state)


# --------------------------------------------------------------------------- synthetic A/B/C
def _synthetic_centres():
    """Cluster centres ``(positive, negative)`` of StreamSVM's Synthetic A, B and C."""
    a = norm.ppf(0.965) / np.sqrt(2.0)
    A = (np.array([[a, a]]), np.array([[-a, -a]]))
    s, t = norm.ppf(0.66), 1.3
    B = (np.array([[t, t, s], [-t, -t, s]]), np.array([[t, -t, -s], [-t, t, -s]]))
    m, v = norm.ppf(0.932), 2.5
    e = np.eye(5)
    C = (np.array([m * e[0] + sign * v * e[j] for j in (1, 2) for sign in (1, -1)]),
         np.array([-m * e[0] + sign * v * e[j] for j in (3, 4) for sign in (1, -1)]))
    return {"a": A, "b": B, "c": C}


def _clusters_draw(which):
    positive, negative = _synthetic_centres()[which]

    def draw(rng, n):
        y = np.where(rng.random(n) < 0.5, 1, -1)
        pick_pos = rng.integers(0, positive.shape[0], size=n)
        pick_neg = rng.integers(0, negative.shape[0], size=n)
        centres = np.where((y == 1)[:, None], positive[pick_pos], negative[pick_neg])
        return centres + rng.standard_normal(centres.shape), y

    return draw


_SYNTHETIC_DOC = """Endless StreamSVM Synthetic {upper} ({dim}-D), two classes of normal clusters.

    The StreamSVM paper says only that Synthetic A, B, C (2, 3 and 5 dimensions) "were
    generated using normally distributed clusters, and were of about 85% separability",
    and reports batch linear libSVM accuracies of 96.5, 66.0 and 93.2%. We build each as
    equally likely classes, each an equal mixture of unit-variance spherical Gaussian
    clusters placed symmetrically about the origin (so the best hyperplane passes through
    it), with the best linear accuracy equal to the paper's libSVM column:

    - A: one cluster per class at ``+-(a, a)``, ``a = Phi^-1(0.965)/sqrt 2``: linear and
      Bayes accuracy 96.5%.
    - B: an XOR in ``(x1, x2)`` (class +1 at ``(t, t), (-t, -t)``, class -1 at
      ``(t, -t), (-t, t)``, ``t = 1.3``) shifted by ``+-s`` in ``x3``, ``s = Phi^-1(0.66)``:
      linear 66%, Bayes about 85% (the "85% separability").
    - C: class +1 at ``m e1 +- 2.5 e2`` and ``m e1 +- 2.5 e3``, class -1 at
      ``-m e1 +- 2.5 e4`` and ``-m e1 +- 2.5 e5``, ``m = Phi^-1(0.932)``: linear 93.2%,
      Bayes about 97.4%.

    The paper uses 20000 training and 200 test examples.

    >>> X, y = next({name}(chunk_size=4, random_state=0))
    >>> X.shape
    (4, {dim})
    """


def synthetic_a(*, chunk_size=1000, random_state=None):
    return _stream(_clusters_draw("a"), random_state, chunk_size)


def synthetic_b(*, chunk_size=1000, random_state=None):
    return _stream(_clusters_draw("b"), random_state, chunk_size)


def synthetic_c(*, chunk_size=1000, random_state=None):
    return _stream(_clusters_draw("c"), random_state, chunk_size)


def make_synthetic_a(n_samples, *, random_state=None):
    """The first ``n_samples`` examples of :func:`synthetic_a`."""
    return _finite(_clusters_draw("a"), n_samples, random_state)


def make_synthetic_b(n_samples, *, random_state=None):
    """The first ``n_samples`` examples of :func:`synthetic_b`."""
    return _finite(_clusters_draw("b"), n_samples, random_state)


def make_synthetic_c(n_samples, *, random_state=None):
    """The first ``n_samples`` examples of :func:`synthetic_c`."""
    return _finite(_clusters_draw("c"), n_samples, random_state)


for _f, _upper, _dim in ((synthetic_a, "A", 2), (synthetic_b, "B", 3), (synthetic_c, "C", 5)):
    _f.__doc__ = _SYNTHETIC_DOC.format(upper=_upper, dim=_dim, name=_f.__name__)


# --------------------------------------------------------------------------- 10-D chessboard
def _chessboard_draw(n_squares):
    if isinstance(n_squares, bool) or not isinstance(n_squares, int | np.integer) or (
            n_squares < 2 or n_squares % 2):
        raise ValueError(f"n_squares must be an even integer >= 2; got {n_squares!r}")

    def draw(rng, n):
        rows = rng.integers(0, n_squares, size=(n, 5))
        # within a row, the white squares are the columns with row + column odd
        cols = 2 * rng.integers(0, n_squares // 2, size=(n, 5)) + (rows + 1) % 2
        X = np.empty((n, 10))
        X[:, 0::2] = (rows + rng.random((n, 5))) / n_squares
        X[:, 1::2] = (cols + rng.random((n, 5))) / n_squares
        return X, np.ones(n, dtype=np.int64)

    return draw


def chessboard_10d(*, chunk_size=1000, random_state=None, n_squares=8):
    """Endless 10-D chessboard of the distributed L2-SVM paper (one class, ``y = +1``).

    The paper: points "uniformly at random selected in R^10 such that projecting it into
    any of the 5 pairs of coordinates (1-2, 3-4, 5-6, 7-8, 9-10) will give a point
    belonging in a white square of a chessboard". It leaves the board open; we use an
    ``n_squares`` x ``n_squares`` board (8, as in chess) on the unit square, squares of
    side ``1/n_squares``, and call square ``(i, j)`` (0-based, ``i`` along the odd
    coordinate) white when ``i + j`` is odd (as in chess, the corner square a1 is dark).
    Each pair is uniform over the white squares, independently of the other pairs.

    >>> X, y = next(chessboard_10d(chunk_size=3, random_state=0))
    >>> cells = np.floor(X * 8).astype(int)
    >>> bool(((cells[:, 0::2] + cells[:, 1::2]) % 2 == 1).all()), y.tolist()
    (True, [1, 1, 1])
    """
    return _stream(_chessboard_draw(n_squares), random_state, chunk_size)


def make_chessboard_10d(n_samples, *, random_state=None, n_squares=8):
    """The first ``n_samples`` examples of :func:`chessboard_10d`."""
    return _finite(_chessboard_draw(n_squares), n_samples, random_state)


GENERATORS = {
    "checkerboard": checkerboard,
    "noisy_checkerboard": noisy_checkerboard,
    "gauss": gauss,
    "waveform": waveform,
    "synthetic_a": synthetic_a,
    "synthetic_b": synthetic_b,
    "synthetic_c": synthetic_c,
    "chessboard_10d": chessboard_10d,
}
"""The endless generators by name (each has a ``make_<name>`` finite form)."""
