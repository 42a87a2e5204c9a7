"""Small dense solvers over the probability simplex, in Gram form.

* :func:`min_norm_point` — min ‖Σλ_i p_i‖² over the simplex (distributed L2-SVM tracker).
* :func:`meb_of_points` — minimum enclosing ball of points (CVM / StreamSVM dual).
* :func:`meb_of_balls_and_points` — minimum enclosing ball of balls and points (StreamSVM
  lookahead and multiple balls, Blurred Ball SVM).
* :func:`augmented_gram`, :func:`combined_extra_sq_norm` — the augmented spaces
  [yφ(x); C^{-1/2} e_n] of the MEB-based SVMs.

Jitted cores for use inside other ``@njit`` code live in :mod:`streamsvm.qp._core`
(``min_norm_point_core``, ``meb_of_points_core``, ``meb_of_balls_core``, ``simplex_qp``).
"""

from . import solvers
from .solvers import *  # noqa: F403

__all__ = solvers.__all__
