"""DP-LSL (Balle, Gomrokchi & Precup 2016, Algorithm 2) with state-aggregation features (round 10, c08) -- PRIVATE.

What it implements: Algorithm 2 in the user's own style and parameter names -- features that aggregate runs
of ``group_size`` adjacent states, the ridge solution theta_X^lambda of eq. (11) computed by a Cholesky
solve, the smooth bound psi_X^lambda = max_{0 <= k <= m} e^{-k beta} phi_X^lambda(k) of eq. (12)
(min{|X_s| + k, m}) evaluated for all k at once, and
sigma_X = 2 alpha R_max ||Phi|| sqrt(psi) / ((1 - gamma)(lambda - ||Phi||^2 ||rho||_inf)) with the main-text
constants alpha = 5 sqrt(2 ln(2/delta)) / eps, beta = eps / (4 (d + ln(2/delta))).  Rewards are clipped to
[0, R_max] before the first-visit returns are formed (so every return lies in [0, R_max / (1 - gamma)], as
Lemma 7 needs, whatever the input); lambda > ||Phi||^2 ||rho||_inf is checked.

Correct?  Yes, for replace-one (the relation claimed): Corollary 8 gives condition (a) of Lemma 1 and eq. (12)
with the min is a beta-smooth upper bound (Lemma 4 with the min reading of Lemma 9), so the release meets
Lemma 1's conditions; and Lemma 1 with the main-text constants holds at (eps, delta, d) = (1, 0.1, 2): the
exact worst-case delta(1) over every Gaussian pair it admits (shift <= min(sigma, sigma')/alpha,
|ln sigma^2 - ln sigma'^2| <= beta) is 4.5e-8, far below 0.1; even the family's largest total variation is
below 0.1, so the release's true epsilon at delta = 0.1 is 0 (truth/truth_c08_dp_lsl_aggregated.py, which also
checks conditions (a) and (b) exactly on every replace-one pair of a small universe of datasets).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import cho_factor, cho_solve


def _aggregation(n_states: int, group_size: int) -> np.ndarray:
    d = -(-n_states // group_size)
    phi = np.zeros((n_states, d))
    phi[np.arange(n_states), np.arange(n_states) // group_size] = 1.0
    return phi


def _statistics(dataset, n_states, discount, reward_max):
    visits = np.zeros(n_states)
    total = np.zeros(n_states)
    for episode in dataset:
        r = np.clip(np.array([float(e[2]) for e in episode]), 0.0, reward_max)
        # discounted suffix sums G_t = r_t + discount * G_{t+1}
        g = np.zeros(len(r) + 1)
        for t in range(len(r) - 1, -1, -1):
            g[t] = r[t] + discount * g[t + 1]
        states = [int(e[0]) for e in episode]
        _, first_index = np.unique(states, return_index=True)
        for t in first_index:
            visits[states[t]] += 1.0
            total[states[t]] += g[t]
    means = np.where(visits > 0, total / np.maximum(visits, 1.0), 0.0)
    return visits, means


def _release_parameters(dataset, *, n_states, group_size, discount, reward_max, ridge, epsilon, delta):
    m = len(dataset)
    if m == 0:
        raise ValueError("DP-LSL needs at least one trajectory")
    phi = _aggregation(n_states, group_size)
    d = phi.shape[1]
    rho = np.ones(n_states)
    phi_norm = float(np.linalg.norm(phi, 2))
    rho_inf, rho_two = float(rho.max()), float(np.linalg.norm(rho))
    if not ridge > phi_norm**2 * rho_inf:
        raise ValueError("lambda must exceed ||Phi||^2 ||rho||_inf")
    visits, means = _statistics(dataset, n_states, discount, reward_max)
    gamma_x = rho * visits / m
    lhs = phi.T @ (gamma_x[:, None] * phi) + ridge / (2.0 * m) * np.eye(d)
    theta = cho_solve(cho_factor(lhs), phi.T @ (gamma_x * means))
    alpha = 5.0 * math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon
    beta = epsilon / (4.0 * (d + math.log(2.0 / delta)))
    c_lambda = phi_norm * rho_inf / math.sqrt(2.0 * ridge)
    ks = np.arange(m + 1)
    inner = np.minimum(visits[None, :] + ks[:, None], m) @ rho
    phis = (c_lambda * np.sqrt(inner) + rho_two) ** 2
    psi = float(np.max(np.exp(-ks * beta) * phis))
    sigma = 2.0 * alpha * reward_max * phi_norm * math.sqrt(psi) / ((1.0 - discount) * (ridge - phi_norm**2 * rho_inf))
    return theta, sigma


def private_lsl(dataset, *, n_states, group_size, discount, reward_max, ridge, epsilon, delta, rng):
    theta, sigma = _release_parameters(
        dataset,
        n_states=n_states,
        group_size=group_size,
        discount=discount,
        reward_max=reward_max,
        ridge=ridge,
        epsilon=epsilon,
        delta=delta,
    )
    return theta + rng.normal(0.0, sigma, size=theta.shape)


def _private_lsl_many(dataset, n, *, rng, **params):
    theta, sigma = _release_parameters(dataset, **params)
    return theta + rng.normal(0.0, sigma, size=(n, theta.shape[0]))


private_lsl.sample = _private_lsl_many
