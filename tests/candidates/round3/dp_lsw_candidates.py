"""Round-3 DP-LSW candidates (Balle, Gomrokchi & Precup 2016, Algorithm 1) with tabular features.

With tabular features the weighted least-squares fit is the per-state mean of the first-visit returns
(0 for an unvisited state). These two candidates replace the smooth-sensitivity noise of Algorithm 1 by
a global-sensitivity Gaussian: returns are clipped to [0, F] (F = f_max, or r_max / (1 - gamma)), so
every coordinate lies in [0, F] and one replaced trajectory moves theta by at most F sqrt(n_states) in
L2.
"""

import functools
import math

import numpy as np
from trajectories import first_visit_returns


def _gaussian_delta(epsilon, mu):
    upper = 0.5 * math.erfc(-(mu / 2 - epsilon / mu) / math.sqrt(2))
    lower = 0.5 * math.erfc(-(-mu / 2 - epsilon / mu) / math.sqrt(2))
    return upper - math.exp(epsilon) * lower


@functools.lru_cache(maxsize=64)  # the calibration is the same for every call
def _sigma_for(epsilon, delta, sensitivity):
    low, high = 1e-6, 50.0
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if _gaussian_delta(epsilon, middle) <= delta else (low, middle)
    return sensitivity / low


def _estimate(dataset, n_states, gamma, bound):
    visits, totals = first_visit_returns(dataset, n_states, gamma, 0.0, bound)
    return np.divide(totals, visits, out=np.zeros(n_states), where=visits > 0)


def global_sensitivity_noise(
    dataset,
    *,
    n_states,
    features,
    gamma,
    r_max,
    epsilon,
    delta,
    weights=None,
    f_max=None,
    constant_set="main_text",
    rng,
):
    """Private: Gaussian noise for the L2 sensitivity F sqrt(n_states) of the clipped means, with the
    analytic calibration (far less noise than Algorithm 1's smooth bound, enough for the claim)."""
    if features != "tabular":
        raise ValueError("tabular features only")
    bound = f_max if f_max is not None else r_max / (1.0 - gamma)
    sigma = 1.02 * _sigma_for(epsilon, delta, bound * math.sqrt(n_states))
    return _estimate(dataset, n_states, gamma, bound) + sigma * rng.standard_normal(n_states)


def per_state_sensitivity(
    dataset,
    *,
    n_states,
    features,
    gamma,
    r_max,
    epsilon,
    delta,
    weights=None,
    f_max=None,
    constant_set="main_text",
    rng,
):
    """Leaky: the same estimate, but the noise is calibrated to one state's range F (the L-infinity
    sensitivity) although one trajectory can move every state's mean by F: the L2 sensitivity is
    F sqrt(n_states)."""
    if features != "tabular":
        raise ValueError("tabular features only")
    bound = f_max if f_max is not None else r_max / (1.0 - gamma)
    sigma = _sigma_for(epsilon, delta, bound)
    return _estimate(dataset, n_states, gamma, bound) + sigma * rng.standard_normal(n_states)
