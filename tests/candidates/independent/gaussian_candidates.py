"""Gaussian mechanism candidates: ``fn(value, *, sigma, sensitivity, rng)`` releases f(X) + noise.

The mechanism (Dwork & Roth 2014, App. A; Balle & Wang 2018): for a query f with L2
sensitivity Δ, release f(X) + N(0, σ² I). Its exact privacy profile depends only on
μ = Δ/σ (Balle & Wang 2018, Thm 8). The spec ``specs/gaussian.toml`` audits a
two-dimensional query with σ = 2 and Δ = 1 against the claim (2.0, 1e-5)-DP (exact ε 1.99309).

Private candidates implement the same law or a law that is a post-processing of it, or add
more noise; leaky ones have a privacy bug named in their docstring. True epsilons: truth.py.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special


def _vector(value):
    return np.asarray(value, dtype=np.float64)


# --------------------------------------------------------------------------- private


def numpy_normal(value, *, sigma, sensitivity, rng):
    """Private. The textbook mechanism: f(X) + N(0, σ² I) with ``rng.normal``."""
    x = _vector(value)
    return x + rng.normal(0.0, sigma, size=x.shape)


class vectorised:  # a callable class with a ``sample`` attribute, named like a function
    """Private. The same mechanism with a vectorised ``sample`` entry point (n releases at once)."""

    def __new__(cls, value, *, sigma, sensitivity, rng):
        x = _vector(value)
        return x + sigma * rng.standard_normal(x.shape)

    @staticmethod
    def sample(value, n, *, rng, sigma, sensitivity):
        x = _vector(value)
        return x[None, :] + sigma * rng.standard_normal((n, x.size))


def box_muller(value, *, sigma, sensitivity, rng):
    """Private. Standard normals from uniforms by the Box-Muller transform (same law)."""
    x = _vector(value)
    pairs = (x.size + 1) // 2
    u1 = 1.0 - rng.random(pairs)  # in (0, 1]: log is finite
    u2 = rng.random(pairs)
    radius = np.sqrt(-2.0 * np.log(u1))
    z = np.concatenate([radius * np.cos(2 * np.pi * u2), radius * np.sin(2 * np.pi * u2)])[: x.size]
    return x + sigma * z


def inverse_cdf(value, *, sigma, sensitivity, rng):
    """Private. Inverse-CDF sampling: Φ⁻¹ of a uniform on the open interval (0, 1) (same law)."""
    x = _vector(value)
    u = (rng.integers(0, 2**53, size=x.shape) + 0.5) / 2.0**53
    return x + sigma * special.ndtri(u)


def two_half_variances(value, *, sigma, sensitivity, rng):
    """Private. Noise as the sum of two independent N(0, σ²/2) draws: exactly N(0, σ²)."""
    x = _vector(value)
    half = sigma / math.sqrt(2.0)
    return x + half * rng.standard_normal(x.shape) + half * rng.standard_normal(x.shape)


def more_noise(value, *, sigma, sensitivity, rng):
    """Private (more noise than needed). Uses 1.25 σ "to be safe": μ = 0.4, exact ε 1.555 at δ = 1e-5."""
    x = _vector(value)
    return x + 1.25 * sigma * rng.standard_normal(x.shape)


def clamped_output(value, *, sigma, sensitivity, rng):
    """Private (post-processing). Clamps the noisy release to [-1e4, 1e4]; the clamp sees only the
    noisy value, never f(X)."""
    x = _vector(value)
    return np.clip(x + sigma * rng.standard_normal(x.shape), -1e4, 1e4)


def rounded_output(value, *, sigma, sensitivity, rng):
    """Private (post-processing). Reports the noisy release rounded to two decimals."""
    x = _vector(value)
    return np.round(x + sigma * rng.standard_normal(x.shape), 2)


# --------------------------------------------------------------------------- leaky


def sigma_3pct_small(value, *, sigma, sensitivity, rng):
    """Leaky. BUG: noise 3% below the stated σ (σ' = 0.97 σ, e.g. a stale calibration table):
    μ = 0.5155, exact ε 2.062 at δ = 1e-5 against the claimed 2.0."""
    x = _vector(value)
    return x + 0.97 * sigma * rng.standard_normal(x.shape)


def sigma_read_as_variance(value, *, sigma, sensitivity, rng):
    """Leaky. BUG: treats the parameter σ as a variance and draws with standard deviation √σ
    (√2 ≈ 1.41 instead of 2): μ = 0.707, exact ε 2.943 at δ = 1e-5."""
    x = _vector(value)
    return x + math.sqrt(sigma) * rng.standard_normal(x.shape)


def relative_noise(value, *, sigma, sensitivity, rng):
    """Leaky. BUG: data-dependent noise, "relative error" style: coordinate i gets standard
    deviation σ·max(1, |f_i(X)|). Neighbours with |f_i| = 1 and 2 get standard deviations 2 and 4:
    the variance changes with the data, so the privacy loss is unbounded in the tails; on f = (1, 0)
    against (2, 0) alone, ε >= 30.2 at δ = 1e-5 (truth.py)."""
    x = _vector(value)
    scale = sigma * np.maximum(1.0, np.abs(x))
    return x + scale * rng.standard_normal(x.shape)


def skips_noise_for_large_values(value, *, sigma, sensitivity, rng):
    """Leaky. BUG: "noise is negligible next to large values", so when some |f_i(X)| > 1000 the
    exact value is returned: an atom at f(X), ε = inf at any δ < 1."""
    x = _vector(value)
    if np.max(np.abs(x)) > 1000.0:
        return x.copy()
    return x + sigma * rng.standard_normal(x.shape)


def exact_once_in_a_thousand(value, *, sigma, sensitivity, rng):
    """Leaky. BUG: a fast path returns f(X) unperturbed with probability 1e-3 (e.g. a cache hit):
    an atom of mass 1e-3 > δ = 1e-5, so ε = inf."""
    x = _vector(value)
    if rng.random() < 1e-3:
        return x.copy()
    return x + sigma * rng.standard_normal(x.shape)


def fixed_seed(value, *, sigma, sensitivity, rng):
    """Leaky. BUG: ignores ``rng`` and seeds its own generator with a constant: the noise is public
    (the same on every call), so the release determines f(X): ε = inf."""
    x = _vector(value)
    own = np.random.default_rng(12345)
    return x + sigma * own.standard_normal(x.shape)


def rounded_input(value, *, sigma, sensitivity, rng):
    """Leaky. BUG: rounds f(X) to integers *before* adding noise. Rounding (half to even) raises the
    L2 sensitivity from 1 to 2 (f = (0.5, y) → 0, f' = (1.5, y) → 2): exact ε 4.377 at δ = 1e-5."""
    x = np.round(_vector(value))
    return x + sigma * rng.standard_normal(x.shape)
