"""Laplace mechanism candidates: ``fn(value, *, scale, sensitivity, rng)`` releases f(X) + noise.

The mechanism (Dwork & Roth 2014, Def. 3.3, Thm 3.6): for a query f with L1 sensitivity Δ,
release f(X) + Lap(b) independently per coordinate; it is (Δ/b, 0)-DP, and exactly so. The spec
``specs/laplace.toml`` audits a two-bin histogram (replacing one record moves one count down and
another up: Δ = 2) with b = 2 against the claim (1, 0)-DP.

Private candidates implement the same law, a post-processing of it, or more noise; leaky ones
have a privacy bug named in their docstring. True epsilons: truth.py.
"""

from __future__ import annotations

import math

import numpy as np


def _vector(value):
    return np.asarray(value, dtype=np.float64)


# --------------------------------------------------------------------------- private


def numpy_laplace(value, *, scale, sensitivity, rng):
    """Private. The textbook mechanism with ``rng.laplace``: f(X) + Lap(b) per coordinate."""
    x = _vector(value)
    return x + rng.laplace(0.0, scale, size=x.shape)


def difference_of_exponentials(value, *, scale, sensitivity, rng):
    """Private. Lap(b) as the difference of two independent Exp(b) draws (same law)."""
    x = _vector(value)
    return x + rng.exponential(scale, size=x.shape) - rng.exponential(scale, size=x.shape)


def random_sign_exponential(value, *, scale, sensitivity, rng):
    """Private. Lap(b) as a fair random sign times an Exp(b) magnitude (same law)."""
    x = _vector(value)
    signs = np.where(rng.random(x.shape) < 0.5, -1.0, 1.0)
    return x + signs * rng.exponential(scale, size=x.shape)


def inverse_cdf(value, *, scale, sensitivity, rng):
    """Private. Inverse-CDF sampling from a uniform on the open interval (-1/2, 1/2):
    −b·sgn(u)·ln(1 − 2|u|) (same law)."""
    x = _vector(value)
    u = (rng.integers(0, 2**53, size=x.shape) + 0.5) / 2.0**53 - 0.5
    return x - scale * np.sign(u) * np.log1p(-2.0 * np.abs(u))


class vectorised:  # a callable class with a ``sample`` attribute, named like a function
    """Private. The textbook mechanism with a vectorised ``sample`` entry point."""

    def __new__(cls, value, *, scale, sensitivity, rng):
        x = _vector(value)
        return x + rng.laplace(0.0, scale, size=x.shape)

    @staticmethod
    def sample(value, n, *, rng, scale, sensitivity):
        x = _vector(value)
        return x[None, :] + rng.laplace(0.0, scale, size=(n, x.size))


def more_noise(value, *, scale, sensitivity, rng):
    """Private (more noise than needed). Scale 1.5 b: exactly (2/3, 0)-DP."""
    x = _vector(value)
    return x + rng.laplace(0.0, 1.5 * scale, size=x.shape)


def nonnegative_integer_counts(value, *, scale, sensitivity, rng):
    """Private (post-processing). Histogram counts are reported as non-negative integers: the noisy
    counts are rounded and clamped at 0 after the noise is added."""
    x = _vector(value)
    noisy = x + rng.laplace(0.0, scale, size=x.shape)
    return np.maximum(np.round(noisy), 0.0)


# --------------------------------------------------------------------------- leaky


def sensitivity_split_across_bins(value, *, scale, sensitivity, rng):
    """Leaky. BUG: "each bin moves by Δ/d" — divides the noise scale by the number of coordinates,
    b' = b/2 = 1: the release is exactly (2, 0)-DP, not (1, 0)."""
    x = _vector(value)
    return x + rng.laplace(0.0, scale / x.size, size=x.shape)


def scale_10pct_small(value, *, scale, sensitivity, rng):
    """Leaky. BUG: scale 10% too small (b' = 0.9 b): exactly (1.111, 0)-DP."""
    x = _vector(value)
    return x + rng.laplace(0.0, 0.9 * scale, size=x.shape)


def gaussian_noise_same_variance(value, *, scale, sensitivity, rng):
    """Leaky. BUG: Gaussian noise with the Laplace variance 2b²: the privacy loss is unbounded,
    so no finite ε holds at δ = 0 (ε = inf)."""
    x = _vector(value)
    return x + math.sqrt(2.0) * scale * rng.standard_normal(x.shape)


def exact_once_in_a_thousand(value, *, scale, sensitivity, rng):
    """Leaky. BUG: returns f(X) unperturbed with probability 1e-3: an atom, ε = inf at δ = 0."""
    x = _vector(value)
    if rng.random() < 1e-3:
        return x.copy()
    return x + rng.laplace(0.0, scale, size=x.shape)


_CACHED_NOISE = {}


def noise_drawn_once(value, *, scale, sensitivity, rng):
    """Leaky. BUG: draws the noise vector once per process and caches it ("for reproducibility"):
    from the second call on, every release is f(X) + the same vector, so ε = inf."""
    x = _vector(value)
    key = x.size
    if key not in _CACHED_NOISE:
        _CACHED_NOISE[key] = rng.laplace(0.0, scale, size=x.shape)
    return x + _CACHED_NOISE[key]


def rounded_input(value, *, scale, sensitivity, rng):
    """Leaky. BUG: rounds f(X) to integers before adding noise. With half-to-even rounding,
    (0.5, 0.5) → (0, 0) and (1.5, 1.5) → (2, 2): the L1 sensitivity becomes 4, exactly (2, 0)-DP."""
    x = np.round(_vector(value))
    return x + rng.laplace(0.0, scale, size=x.shape)


def zero_bins_left_exact(value, *, scale, sensitivity, rng):
    """Leaky. BUG: a "sparse histogram" shortcut adds noise only to non-zero counts, so an empty
    bin is released as exactly 0 while its neighbour (count 1) is noisy: ε = inf."""
    x = _vector(value)
    noise = rng.laplace(0.0, scale, size=x.shape)
    return np.where(x != 0.0, x + noise, 0.0)
