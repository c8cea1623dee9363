"""Round-3 Dirichlet-mechanism candidates (Gohari, Hale & Topcu 2020, Sec. II-D: release Dir(k p))."""

import numpy as np


def boost_rare_outcomes(p, *, k, eta=None, rng):
    """Leaky: the concentration is raised to k / min(p) 'so that rare outcomes keep their shape';
    the concentration now depends on the data (k to 10 k on the spec's domain)."""
    point = np.asarray(p, dtype=float)
    concentration = k / float(point.min())
    gammas = rng.standard_gamma(concentration * point)
    return gammas / gammas.sum()


class smaller_k_vectorised:
    """Private: Dir(0.8 k p) (a smaller concentration is more noise), with a vectorised entry point."""

    def __new__(cls, p, *, k, eta=None, rng):
        return cls.sample(p, 1, k=k, eta=eta, rng=rng)[0]

    @staticmethod
    def sample(p, n, *, rng, k, eta=None):
        shape = 0.8 * k * np.asarray(p, dtype=float)
        gammas = rng.standard_gamma(shape, size=(n, shape.size))
        return gammas / gammas.sum(axis=1, keepdims=True)
