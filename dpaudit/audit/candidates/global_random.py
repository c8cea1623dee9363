"""The global random states a candidate may draw from instead of its ``rng``: seeded from each request
(a candidate that draws from them still replays), and watched (the randomness contract says so when
it did).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["drew_from_global_state", "seed_global_state"]


def seed_global_state(entropy: int) -> tuple[Any, Any]:
    """Seed ``numpy.random``'s and ``random``'s global state from the request, so that a candidate
    drawing from them still gives the same outputs for the same audit; return both states, to tell
    afterwards whether the candidate drew from them."""
    import random

    np.random.seed(entropy % 2**32)
    random.seed(entropy)
    return np.random.get_state(legacy=True), random.getstate()


def drew_from_global_state(before: tuple[Any, Any]) -> bool:
    """Whether either global state moved since :func:`seed_global_state` returned ``before``."""
    import random

    numpy_state: Any = np.random.get_state(legacy=True)
    moved_numpy = numpy_state[2] != before[0][2] or not np.array_equal(numpy_state[1], before[0][1])
    return bool(moved_numpy or random.getstate() != before[1])
