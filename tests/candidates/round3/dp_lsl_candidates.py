"""Round-3 DP-LSL candidates (Balle, Gomrokchi & Precup 2016, Algorithm 2) with tabular features.

With tabular features and weights rho = 1 the ridge fit of eq. (11) is, per state,
theta_s = (sum of the first-visit returns at s) / (|X_s| + lambda / 2).
"""

import math

import numpy as np
from trajectories import first_visit_returns


def _alpha_beta(epsilon, delta, d):
    alpha = 5.0 * math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon
    beta = epsilon / (4.0 * (d + math.log(2.0 / delta)))
    return alpha, beta


def noise_on_visited_states_only(
    dataset,
    *,
    n_states,
    features,
    gamma,
    r_max,
    lam,
    epsilon,
    delta,
    rho=None,
    f_max=None,
    constant_set="main_text",
    saturation="min",
    rng,
):
    """Leaky: Algorithm 2's sigma_X (eq. (12)), but noise is added only to the states some trajectory
    visits 'since the others are zero anyway': an unvisited state's coordinate is exactly 0, so a
    neighbour that visits it is told apart with certainty."""
    if features != "tabular":
        raise ValueError("tabular features only")
    bound = f_max if f_max is not None else r_max / (1.0 - gamma)
    m = len(dataset)
    visits, totals = first_visit_returns(dataset, n_states, gamma, -math.inf, math.inf)
    theta = totals / (visits + lam / 2.0)
    alpha, beta = _alpha_beta(epsilon, delta, n_states)
    c_lambda = 1.0 / math.sqrt(2.0 * lam)
    psi = max(
        math.exp(-k * beta) * (c_lambda * math.sqrt(float(np.minimum(visits + k, m).sum())) + math.sqrt(n_states)) ** 2
        for k in range(m + 1)
    )
    sigma = 2.0 * alpha * bound * math.sqrt(psi) / (lam - 1.0)
    noise = sigma * rng.standard_normal(n_states)
    return theta + np.where(visits > 0, noise, 0.0)


def smallest_sigma_cached(
    dataset,
    *,
    n_states,
    features,
    gamma,
    r_max,
    lam,
    epsilon,
    delta,
    rho=None,
    f_max=None,
    constant_set="main_text",
    saturation="min",
    rng,
):
    """Private: the noise scale is the smallest value eq. (12) can give (its k = 0 term with no data,
    2 alpha F sqrt(n_states) / (lambda - 1)), used for every dataset, with returns clipped to [0, F].
    The clipped ridge fit moves by at most F / (1 + lambda / 2) per state when one trajectory is
    replaced, far below that fixed sigma."""
    if features != "tabular":
        raise ValueError("tabular features only")
    bound = f_max if f_max is not None else r_max / (1.0 - gamma)
    visits, totals = first_visit_returns(dataset, n_states, gamma, 0.0, bound)
    theta = totals / (visits + lam / 2.0)
    alpha, _ = _alpha_beta(epsilon, delta, n_states)
    sigma = 2.0 * alpha * bound * math.sqrt(n_states) / (lam - 1.0)
    return theta + sigma * rng.standard_normal(n_states)
