"""Dirichlet-mechanism candidates (Gohari et al. 2020, Sec. II-D: release x ~ Dir(k p)).
Claim (specs/dirichlet.toml): k = 5, inputs >= 0.2, 0.2-adjacent, (1.73, 0.01)-DP."""

import numpy as np


def gamma_normalised(p, *, k, eta=None, rng):
    """Correct: Dir(k p) as normalised Gamma(k p_i) draws."""
    g = rng.standard_gamma(k * np.asarray(p, dtype=float))
    return g / g.sum()


def numpy_dirichlet(p, *, k, eta=None, rng):
    """Correct: numpy's Dirichlet sampler with alpha = k p."""
    return rng.dirichlet(k * np.asarray(p, dtype=float))


def smaller_k(p, *, k, eta=None, rng):
    """Correct deviation: k - 1 (a flatter law: more noise)."""
    return rng.dirichlet((k - 1.0) * np.asarray(p, dtype=float))


def beta_for_two(p, *, k, eta=None, rng):
    """Correct: on the 2-simplex, Dir(k p) is (B, 1 - B) with B ~ Beta(k p_1, k p_2)."""
    p = np.asarray(p, dtype=float)
    if p.size != 2:
        return rng.dirichlet(k * p)
    b = rng.beta(k * p[0], k * p[1])
    return np.array([b, 1.0 - b])


def k_off_by_one(p, *, k, eta=None, rng):
    """Bug: uses k + 1 (a concentration off by one: less noise)."""
    return rng.dirichlet((k + 1.0) * np.asarray(p, dtype=float))


def k_doubled(p, *, k, eta=None, rng):
    """Bug: uses 2 k."""
    return rng.dirichlet(2.0 * k * np.asarray(p, dtype=float))


def exact_once_in_1000(p, *, k, eta=None, rng):
    """Bug: returns p itself once in 1,000 calls (an atom)."""
    p = np.asarray(p, dtype=float)
    return p.copy() if rng.random() < 1e-3 else rng.dirichlet(k * p)


def fixed_seed(p, *, k, eta=None, rng):
    """Bug: ignores rng (a generator seeded with 7 on every call)."""
    return np.random.default_rng(7).dirichlet(k * np.asarray(p, dtype=float))
