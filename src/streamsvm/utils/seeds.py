"""Random integers inside compiled loops: the splitmix64 generator (Steele, Lea & Flood,
"Fast Splittable Pseudorandom Number Generators", OOPSLA 2014) over a one-entry uint64 state
array that the model owns, so that a stream is reproducible and saved with the model."""

import numpy as np
from numba import njit


@njit(cache=True)
def rand_below(rng, n):
    """Uniform integer in 0 .. n-1 from a splitmix64 state ``rng`` (uint64 array of 1)."""
    z = rng[0] + np.uint64(0x9E3779B97F4A7C15)
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z % np.uint64(n))
