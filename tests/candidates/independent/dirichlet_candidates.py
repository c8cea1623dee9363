"""Dirichlet mechanism candidates: ``fn(p, *, k, eta, rng)`` privatises a probability vector.

The mechanism (Gohari, Hale, Topcu 2020, Sec. II-D): given p in the open simplex, output
x ~ Dir(k p), whose density is x ↦ ∏ x_i^{k p_i − 1} / B(k p). Neighbours are b-adjacent
vectors (Def. 1: they differ in two coordinates, by at most b in L1). ``eta`` is the public
lower bound on the input's coordinates. The spec ``specs/dirichlet.toml`` audits a two-outcome
transition row with k = 8, η = 0.1 and b = 0.1 against the claim (1.59, 0.01)-DP (exact ε 1.5849
at δ = 0.01 on the worst pair, computed in truth.py).

Private candidates implement the same law, a post-processing of it, or a noisier law whose
exact profile is below the claim; leaky ones have a privacy bug named in their docstring.
"""

from __future__ import annotations

import numpy as np


def _simplex(p, eta):
    x = np.asarray(p, dtype=np.float64)
    if eta is not None and np.any(x < eta - 1e-12):
        raise ValueError(f"input {x} has a coordinate below eta = {eta}")
    return x


# --------------------------------------------------------------------------- private


def numpy_dirichlet(p, *, k, eta=None, rng):
    """Private. The mechanism as defined: ``rng.dirichlet(k p)``."""
    x = _simplex(p, eta)
    return rng.dirichlet(k * x)


def gamma_normalised(p, *, k, eta=None, rng):
    """Private. Dir(α) as independent Gamma(α_i, 1) draws divided by their sum (same law)."""
    x = _simplex(p, eta)
    g = rng.gamma(k * x, 1.0)
    return g / g.sum()


def stick_breaking(p, *, k, eta=None, rng):
    """Private. Dir(α) by stick breaking: x_i = (1 − Σ_{j<i} x_j) · Beta(α_i, Σ_{j>i} α_j) (same law)."""
    x = _simplex(p, eta)
    alpha = k * x
    out = np.empty_like(alpha)
    remaining = 1.0
    for i in range(alpha.size - 1):
        share = rng.beta(alpha[i], alpha[i + 1 :].sum())
        out[i] = remaining * share
        remaining -= out[i]
    out[-1] = remaining
    return out


class vectorised:  # a callable class with a ``sample`` attribute, named like a function
    """Private. The mechanism with a vectorised ``sample`` entry point."""

    def __new__(cls, p, *, k, eta=None, rng):
        return rng.dirichlet(k * _simplex(p, eta))

    @staticmethod
    def sample(p, n, *, rng, k, eta=None):
        return rng.dirichlet(k * _simplex(p, eta), size=n)


def smaller_k(p, *, k, eta=None, rng):
    """Private (more noise). Uses k − 1 "for a safety margin": exact ε 1.544 at δ = 0.01 on the
    worst 0.1-adjacent pair, below the claimed 1.59 (truth.py)."""
    x = _simplex(p, eta)
    return rng.dirichlet((k - 1.0) * x)


def floored_output(p, *, k, eta=None, rng):
    """Private (post-processing). Floors each output coordinate at 1e-9 and renormalises, so the
    release stays in the open simplex in floating point."""
    x = _simplex(p, eta)
    y = np.maximum(rng.dirichlet(k * x), 1e-9)
    return y / y.sum()


def pseudo_count(p, *, k, eta=None, rng):
    """Private (a different, noisier law). Adds a pseudo-count of 1 to every parameter: Dir(k p + 1).
    The privacy loss keeps the slope k(p − p') but the law is more concentrated away from the
    faces; exact ε 0.720 at δ = 0.01 on the worst 0.1-adjacent pair (truth.py)."""
    x = _simplex(p, eta)
    return rng.dirichlet(k * x + 1.0)


# --------------------------------------------------------------------------- leaky


def k_plus_one(p, *, k, eta=None, rng):
    """Leaky. BUG: off by one in the concentration, Dir((k + 1) p): exact ε 1.627 at δ = 0.01."""
    x = _simplex(p, eta)
    return rng.dirichlet((k + 1.0) * x)


def k_per_coordinate(p, *, k, eta=None, rng):
    """Leaky. BUG: reads k as a per-coordinate concentration and uses Dir(n k p) (n = len(p) = 2,
    so 2k = 16): exact ε 1.938 at δ = 0.01."""
    x = _simplex(p, eta)
    return rng.dirichlet(x.size * k * x)


def exact_once_in_a_thousand(p, *, k, eta=None, rng):
    """Leaky. BUG: returns p itself with probability 1e-3 (an atom). At δ = 0.01 the atom adds its
    mass to δ: 1e-3 + (1 − 1e-3) δ_Dir(ε) = 0.01 gives ε = 1.637 > 1.59."""
    x = _simplex(p, eta)
    if rng.random() < 1e-3:
        return x.copy()
    return rng.dirichlet(k * x)


def fixed_seed(p, *, k, eta=None, rng):
    """Leaky. BUG: ignores ``rng`` and uses a generator with a constant seed: the same Gamma draws
    on every call make the release a deterministic function of p (ε = inf)."""
    x = _simplex(p, eta)
    own = np.random.default_rng(2020)
    return own.dirichlet(k * x)


def quantised_input(p, *, k, eta=None, rng):
    """Leaky. BUG: re-estimates p as frequencies out of 25 (round(25 p)/25, renormalised) before the
    noise. Rounding moves 0.1-adjacent inputs up to 0.16 apart in L1 (e.g. (0.1, 0.9) → (0.08, 0.92)
    and (0.15, 0.85) → (0.16, 0.84)): exact ε 3.634 at δ = 0.01 (truth.py)."""
    x = _simplex(p, eta)
    q = np.round(25.0 * x) / 25.0
    q = q / q.sum()
    return rng.dirichlet(k * q)
