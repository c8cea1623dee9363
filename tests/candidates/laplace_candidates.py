"""Laplace-mechanism candidates, written from the definition (Dwork & Roth 2014, Def. 3.3):
f(X) + Lap(b) per coordinate. Claim (specs/laplace.toml): scale 1, L1 sensitivity 1, (1, 0)-DP."""

import numpy as np


def numpy_laplace(value, *, scale, sensitivity, rng):
    """Correct: f(X) + Lap(0, scale)."""
    value = np.asarray(value, dtype=float)
    return value + rng.laplace(0.0, scale, value.shape)


def exponential_difference(value, *, scale, sensitivity, rng):
    """Correct: Lap(b) as the difference of two Exp(b) draws."""
    value = np.asarray(value, dtype=float)
    return value + rng.exponential(scale, value.shape) - rng.exponential(scale, value.shape)


def more_noise(value, *, scale, sensitivity, rng):
    """Correct deviation: scale 1.3 b."""
    value = np.asarray(value, dtype=float)
    return value + rng.laplace(0.0, 1.3 * scale, value.shape)


def inverse_cdf(value, *, scale, sensitivity, rng):
    """Correct: Laplace noise by inverting its CDF at a uniform from rng."""
    value = np.asarray(value, dtype=float)
    u = rng.random(value.shape) - 0.5
    return value - scale * np.sign(u) * np.log1p(-2.0 * np.abs(u))


def clamped_output(value, *, scale, sensitivity, rng):
    """Correct deviation: clamps the output to [-1e3, 1e3] (post-processing)."""
    return np.clip(numpy_laplace(value, scale=scale, sensitivity=sensitivity, rng=rng), -1e3, 1e3)


def scale_halved(value, *, scale, sensitivity, rng):
    """Bug: scale b / 2 (epsilon 2)."""
    value = np.asarray(value, dtype=float)
    return value + rng.laplace(0.0, scale / 2, value.shape)


def scale_10pct_small(value, *, scale, sensitivity, rng):
    """Bug: scale 0.9 b (epsilon 1.11)."""
    value = np.asarray(value, dtype=float)
    return value + rng.laplace(0.0, 0.9 * scale, value.shape)


def gaussian_same_variance(value, *, scale, sensitivity, rng):
    """Bug: Gaussian noise of the Laplace's variance: not pure DP (delta > 0 at every epsilon)."""
    value = np.asarray(value, dtype=float)
    return value + np.sqrt(2.0) * scale * rng.standard_normal(value.shape)


def exact_once_in_1000(value, *, scale, sensitivity, rng):
    """Bug: returns the exact f(X) once in 1,000 calls (an atom)."""
    value = np.asarray(value, dtype=float)
    return value.copy() if rng.random() < 1e-3 else value + rng.laplace(0.0, scale, value.shape)


def fixed_seed(value, *, scale, sensitivity, rng):
    """Bug: noise from a generator seeded with 42 on every call (public noise)."""
    value = np.asarray(value, dtype=float)
    return value + np.random.default_rng(42).laplace(0.0, scale, value.shape)
