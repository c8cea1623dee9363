"""Private state-visitation frequencies, Gaussian noise (round 10, candidate 04) -- LEAKY.

What it implements: for every state s, the fraction of the m episodes that visit s at least once,
p(s) = |{i : s in x_i}| / m, plus Gaussian noise N(0, sigma^2 I) with sigma = c sqrt(S) / m, where c is the
analytic-Gaussian multiplier for (eps, delta) (Balle & Wang 2018; computed here by bisection on the exact
delta(eps)).  m is ``len(dataset)`` (at least 1).

The bug: the noise scale follows the *private* batch size.  Under replace-one (m public) the release is a
Gaussian mechanism with L2 sensitivity sqrt(S)/m and shift/std exactly 1/c: (eps, delta)-DP.  The user
also claims add/remove-one ("a patient joins the study"), where one more episode changes m itself: the two
releases are Gaussians with *different* standard deviations c sqrt(S)/k and c sqrt(S)/(k+1) (and means up to
sqrt(S)/(k+1) apart), whose privacy loss grows quadratically in the tails.

True epsilon at delta = 1e-5 (add/remove-one, worst over k): 5-dimensional N(p, (c sqrt(S)/1)^2 I) against
N(p', (c sqrt(S)/2)^2 I) with ||p - p'|| = sqrt(S)/2, i.e. 1 episode (visiting states 1-4) vs the same plus one
visiting only state 0; computed exactly (1-D quadrature of a chi-square probability) in
truth/truth_c04_visit_frequencies_addremove.py: 42.2 against the claim 1 (at the spec's batch size, 20 vs 21
episodes, it is still 1.92; replace-one alone is exactly 1).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.special import log_ndtr, ndtr


@functools.lru_cache(maxsize=32)
def _multiplier(epsilon: float, delta: float) -> float:
    def delta_at(mu: float) -> float:
        return float(ndtr(mu / 2 - epsilon / mu) - math.exp(epsilon + log_ndtr(-mu / 2 - epsilon / mu)))

    lo, hi = 1e-4, 50.0  # bracket on mu = 1/c; delta_at increases with mu
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if delta_at(mid) > delta:
            hi = mid
        else:
            lo = mid
    return 1.0 / lo


def _visit_frequencies(dataset, n_states: int) -> np.ndarray:
    visits = np.zeros(n_states)
    for episode in dataset:
        for s in {int(step[0]) for step in episode}:
            visits[s] += 1.0
    return visits / max(len(dataset), 1)


def visit_frequencies(dataset, *, epsilon, delta, n_states, rng):
    m = max(len(dataset), 1)
    sigma = _multiplier(float(epsilon), float(delta)) * math.sqrt(n_states) / m
    return _visit_frequencies(dataset, n_states) + rng.normal(0.0, sigma, n_states)


def _visit_frequencies_many(dataset, n, *, epsilon, delta, n_states, rng):
    m = max(len(dataset), 1)
    sigma = _multiplier(float(epsilon), float(delta)) * math.sqrt(n_states) / m
    return _visit_frequencies(dataset, n_states) + rng.normal(0.0, sigma, (n, n_states))


visit_frequencies.sample = _visit_frequencies_many
