"""A candidate module that allocates 1 GiB when imported (more than a small memory limit allows)."""

import numpy as np

_TABLE = np.ones(1 << 27)


def gaussian(value, sigma, *, rng):
    return np.asarray(value, dtype=float) + sigma * rng.standard_normal(len(value))
