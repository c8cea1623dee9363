"""DP-LSW (Balle, Gomrokchi & Precup 2016, Algorithm 1) with a sign slip in the smooth bound (round 10, c07) -- LEAKY.

What it implements: Algorithm 1 as printed -- theta_X^w = (Phi^T Gamma Phi)^{-1} Phi^T Gamma F_X with the
fixed regression weights w (eq. (8)), F_X the mean first-visit returns (eq. (4)), and Gaussian noise with
sigma_X = alpha R_max ||(Gamma^{1/2} Phi)^+|| sqrt(psi_X) / (1 - gamma), alpha = 5 sqrt(2 ln(2/delta))/eps,
beta = eps / (4 (d + ln(2/delta))), psi_X = max_{0 <= k <= K_X} e^{-k beta} phi_X(k).

The bug: phi_X(k) of eq. (9) is sum_s w_s / max{|X_s| - k, 1}^2 (the datasets k steps away may have k
*fewer* visits); the user wrote max{|X_s| + k, 1}, with the plus sign of DP-LSL's eq. (12)
(min{|X_s| + k, m}), which they had implemented first.  With the plus sign phi_X(k) decreases in k, so
psi_X = phi_X(0) = sum_s w_s / max{|X_s|, 1}^2: the local bound of Corollary 3 itself, not a beta-smooth one.
Condition (a) of Lemma 1 still holds, condition (b) does not: when one replaced trajectory raises a state's
visit count from 1 to 2 (the other states visited many times), psi drops by a factor up to 4 and sigma_X
by a factor up to 2 between neighbours.

True epsilon at delta = 0.1 (S = 3 states, tabular, gamma = 0.9, R_max = 1, eps = 1): the supremum over
neighbouring datasets of the exact epsilon of N(theta_X, sigma_X^2 I_3) against N(theta_X', sigma_X'^2 I_3),
approached by X0 visiting states 0 and 1 once and state 2 n times, x visiting only state 2 and x' visiting
states 0 and 1 (psi 2 against 1/2: sigma halves), as n and the returns grow; 6.42 against the claim 1.
truth/truth_c07_dp_lsw_smooth_bound_sign.py (enumeration of visit-count signatures, including the limits).
"""

from __future__ import annotations

import math

import numpy as np


def _features(n_states: int, features) -> np.ndarray:
    if features == "tabular":
        return np.eye(n_states)
    if isinstance(features, str) and features.startswith("aggregation:"):
        g = int(features.split(":", 1)[1])
        d = -(-n_states // g)
        phi = np.zeros((n_states, d))
        for s in range(n_states):
            phi[s, s // g] = 1.0
        return phi
    return np.asarray(features, dtype=float)


def _first_visit(dataset, n_states: int, gamma: float, r_max: float):
    counts = np.zeros(n_states)
    sums = np.zeros(n_states)
    for trajectory in dataset:
        rewards = np.array([float(step[2]) for step in trajectory])
        if np.any(rewards < 0) or np.any(rewards > r_max):
            raise ValueError(f"rewards must lie in [0, {r_max}]")
        returns = np.zeros(len(rewards))
        acc = 0.0
        for t in range(len(rewards) - 1, -1, -1):
            acc = rewards[t] + gamma * acc
            returns[t] = acc
        first = {}
        for t, step in enumerate(trajectory):
            first.setdefault(int(step[0]), t)
        for s, t in first.items():
            counts[s] += 1
            sums[s] += returns[t]
    means = np.divide(sums, counts, out=np.zeros(n_states), where=counts > 0)
    return counts, means


def _theta_and_sigma(dataset, *, n_states, features, gamma, r_max, epsilon, delta, weights=None, f_max=None, **_):
    phi = _features(n_states, features)
    d = phi.shape[1]
    w = np.ones(n_states) if weights is None else np.asarray(weights, dtype=float)
    counts, means = _first_visit(dataset, n_states, gamma, r_max)
    gram = phi.T @ (w[:, None] * phi)
    theta = np.linalg.solve(gram, phi.T @ (w * means))
    alpha = 5.0 * math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon
    beta = epsilon / (4.0 * (d + math.log(2.0 / delta)))
    k_max = int(counts.max()) if len(counts) else 0
    psi = max(
        math.exp(-k * beta) * float(np.sum(w / np.maximum(counts + k, 1.0) ** 2))  # eq. (9) has counts - k
        for k in range(k_max + 1)
    )
    pinv_norm = 1.0 / float(np.linalg.svd(np.sqrt(w)[:, None] * phi, compute_uv=False).min())
    bound = f_max if f_max is not None else r_max / (1.0 - gamma)
    sigma = alpha * bound * pinv_norm * math.sqrt(psi)
    return theta, sigma


def dp_lsw(
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
    theta, sigma = _theta_and_sigma(
        dataset,
        n_states=n_states,
        features=features,
        gamma=gamma,
        r_max=r_max,
        epsilon=epsilon,
        delta=delta,
        weights=weights,
        f_max=f_max,
    )
    return theta + sigma * rng.standard_normal(theta.shape[0])


def _dp_lsw_many(dataset, n, *, rng, **params):
    theta, sigma = _theta_and_sigma(dataset, **params)
    return theta + sigma * rng.standard_normal((n, theta.shape[0]))


dp_lsw.sample = _dp_lsw_many
