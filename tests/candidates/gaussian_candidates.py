"""Gaussian-mechanism candidates, written from the definition (Dwork & Roth 2014, Sec. 3.5.3):
release f(X) + N(0, sigma^2 I) with sigma calibrated to the L2 sensitivity. The claim they are
audited against is specs/gaussian.toml: sigma = 1, sensitivity 1, (4.38, 1e-5)-DP."""

import math

import numpy as np


def numpy_normal(value, *, sigma, sensitivity, rng):
    """Correct: f(X) + sigma N(0, I)."""
    value = np.asarray(value, dtype=float)
    return value + rng.normal(0.0, sigma, value.shape)


def more_noise(value, *, sigma, sensitivity, rng):
    """Correct deviation: 1.5 sigma (more noise than needed)."""
    value = np.asarray(value, dtype=float)
    return value + 1.5 * sigma * rng.standard_normal(value.shape)


class vectorised:  # a callable class with dpaudit's vectorised entry point
    """Correct: the same law, n releases at once through sample()."""

    def __new__(cls, value, *, sigma, sensitivity, rng):
        return numpy_normal(value, sigma=sigma, sensitivity=sensitivity, rng=rng)

    @staticmethod
    def sample(value, n, *, rng, sigma, sensitivity):
        value = np.asarray(value, dtype=float)
        return value + sigma * rng.standard_normal((n, *value.shape))


def clamped_output(value, *, sigma, sensitivity, rng):
    """Correct deviation: clamps the noisy output to [-1e6, 1e6] (post-processing)."""
    return np.clip(numpy_normal(value, sigma=sigma, sensitivity=sensitivity, rng=rng), -1e6, 1e6)


def rounded_output(value, *, sigma, sensitivity, rng):
    """Correct deviation: rounds the noisy output to 3 decimals (post-processing)."""
    return np.round(numpy_normal(value, sigma=sigma, sensitivity=sensitivity, rng=rng), 3)


def box_muller(value, *, sigma, sensitivity, rng):
    """Correct: normal noise by the Box-Muller transform of two uniforms from rng."""
    value = np.asarray(value, dtype=float)
    u1 = 1.0 - rng.random(value.shape)
    u2 = rng.random(value.shape)
    return value + sigma * np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * math.pi * u2)


def laplace_instead(value, *, sigma, sensitivity, rng):
    """Correct deviation: Laplace noise of scale 0.3 (3.33-DP, so also (4.38, 1e-5)-DP)."""
    value = np.asarray(value, dtype=float)
    return value + rng.laplace(0.0, 0.3 * sensitivity, value.shape)


def sigma_halved(value, *, sigma, sensitivity, rng):
    """Bug: uses sigma / 2 (a variance/std mix-up)."""
    value = np.asarray(value, dtype=float)
    return value + 0.5 * sigma * rng.standard_normal(value.shape)


def sigma_8pct_small(value, *, sigma, sensitivity, rng):
    """Bug: sigma 8% below the calibrated value (a constant copied with too few digits)."""
    value = np.asarray(value, dtype=float)
    return value + 0.92 * sigma * rng.standard_normal(value.shape)


def sigma_4pct_small(value, *, sigma, sensitivity, rng):
    """Bug: sigma 4% below the calibrated value."""
    value = np.asarray(value, dtype=float)
    return value + 0.96 * sigma * rng.standard_normal(value.shape)


def exact_once_in_1000(value, *, sigma, sensitivity, rng):
    """Bug: returns the exact f(X) once in 1,000 calls (an atom: epsilon is infinite)."""
    value = np.asarray(value, dtype=float)
    if rng.random() < 1e-3:
        return value.copy()
    return value + sigma * rng.standard_normal(value.shape)


def fixed_seed(value, *, sigma, sensitivity, rng):
    """Bug: ignores rng and draws from a generator seeded with 0 (public noise: epsilon infinite)."""
    value = np.asarray(value, dtype=float)
    return value + sigma * np.random.default_rng(0).standard_normal(value.shape)


def less_noise_for_large_values(value, *, sigma, sensitivity, rng):
    """Bug: scales the noise down by 10 when |f(X)| > 100 (data-dependent noise)."""
    value = np.asarray(value, dtype=float)
    scale = sigma / 10.0 if np.abs(value).max() > 100 else sigma
    return value + scale * rng.standard_normal(value.shape)


def rounded_input(value, *, sigma, sensitivity, rng):
    """Bug: rounds f(X) to integers before adding noise; 0.5 and 1.5 become 0 and 2 (distance 2)."""
    value = np.round(np.asarray(value, dtype=float))
    return value + sigma * rng.standard_normal(value.shape)
