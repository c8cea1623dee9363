"""Private mean discounted return of a batch of episodes (round 10, candidate 01) -- PRIVATE.

What it implements: the average over the m trajectories of the discounted return of each whole
episode, every return clipped to [0, cap], plus Gaussian noise.  The noise is calibrated with the
*analytic* Gaussian mechanism (Balle & Wang 2018, Theorem 8) rather than the classical
sqrt(2 ln(1.25/delta))/eps formula: the user finds, by bisection, the smallest noise multiplier c such
that the exact delta(eps) of a Gaussian with shift/std 1/c is at most the target delta, and uses
sigma = c * cap / m.  The Gaussian draws come from a Box-Muller transform of ``rng.random`` (the
user's own sampler, not ``rng.normal``).

Correct?  Yes, under replace-one (the relation the spec claims): m is the same on both sides, one
trajectory moves the clipped mean by at most cap/m (attained: return >= cap against return 0), so the
release is a Gaussian mechanism with shift/std exactly 1/c, whose exact epsilon at the target delta is
at most the target epsilon by construction.  truth/truth_c01_mean_return_analytic.py recomputes c and the
exact epsilon independently (0.99999999... against the claim 1.0 at delta = 1e-5).
"""

from __future__ import annotations

import functools
import math

import numpy as np


def _bw_delta(eps: float, mu: float) -> float:
    """Exact delta(eps) of N(0,1) vs N(mu,1) (Balle & Wang 2018, Thm 8)."""
    phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2.0))  # noqa: E731
    return phi(mu / 2.0 - eps / mu) - math.exp(eps) * phi(-mu / 2.0 - eps / mu)


@functools.lru_cache(maxsize=64)
def noise_multiplier(epsilon: float, delta: float) -> float:
    """Smallest c (to 1e-12 relative, rounded up) with delta(eps) <= delta at shift/std 1/c."""
    lo, hi = 1e-3, 1e3  # bracket on c
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if _bw_delta(epsilon, 1.0 / mid) > delta:
            lo = mid
        else:
            hi = mid
        if hi / lo < 1 + 1e-13:
            break
    return hi


def _episode_return(trajectory, gamma: float) -> float:
    total = 0.0
    for step in reversed(trajectory):
        total = float(step[2]) + gamma * total
    return total


def _box_muller(n: int, rng: np.random.Generator) -> np.ndarray:
    u1 = 1.0 - rng.random(n)  # in (0, 1]
    u2 = rng.random(n)
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


def _clipped_mean(dataset, gamma: float, cap: float) -> float:
    m = len(dataset)
    if m == 0:
        raise ValueError("empty dataset")
    returns = [min(max(_episode_return(t, gamma), 0.0), cap) for t in dataset]
    return sum(returns) / m


def mean_return(dataset, *, epsilon, delta, gamma, cap, rng):
    """One release: clipped mean return + N(0, (c cap / m)^2)."""
    m = len(dataset)
    sigma = noise_multiplier(float(epsilon), float(delta)) * cap / m
    return float(_clipped_mean(dataset, gamma, cap) + sigma * _box_muller(1, rng)[0])


def _mean_return_many(dataset, n, *, epsilon, delta, gamma, cap, rng):
    m = len(dataset)
    sigma = noise_multiplier(float(epsilon), float(delta)) * cap / m
    return _clipped_mean(dataset, gamma, cap) + sigma * _box_muller(n, rng)


mean_return.sample = _mean_return_many
