"""Private least-squares policy evaluation with a ridge penalty (DP-LSL, Balle, Gomrokchi & Precup 2016,
Algorithm 2) for state-aggregation features, in the author's own names:
``private_lsl(episodes, *, num_states, feature_map, discount, reward_max, ridge, eps, delta, rng)``.

feature_map "aggregation:g": phi_s is the indicator of the block floor(s / g) (Sec. 6 uses g = 2), so
Phi^T Phi = g I and ||Phi|| = sqrt(g). theta = (Phi^T Gamma_X Phi + lambda / (2m) I)^-1 Phi^T Gamma_X F_X with
Gamma_X = diag(rho_s |X_s| / m) (eq. (11)); sigma_X = 2 alpha R_max ||Phi|| sqrt(psi_X) / ((1 - gamma)(lambda -
||Phi||^2 ||rho||_inf)), psi_X = max_{0<=k<=m} e^(-k beta) (c_lambda sqrt(sum_s rho_s min(|X_s| + k, m)) +
||rho||_2)^2, c_lambda = ||Phi|| ||rho||_inf / sqrt(2 lambda) (eq. (12)), alpha = 5 sqrt(2 ln(2/delta)) / eps,
beta = eps / (4 (d + ln(2/delta))).

No bug known to the author. Truth (claim: replace_one, 6 states, aggregation:2 (d = 3), gamma = 0.9,
R_max = 1, lambda = 5 > ||Phi||^2 ||rho||_inf = 2, epsilon = 1, delta = 0.1):

- This is Algorithm 2, (1, 0.1)-DP by Theorem 10, which rests on Lemma 7 (sigma_X >= alpha times the local
  sensitivity), Lemma 9 (psi_X is beta-smooth in the signature) and the main text's Lemma 1. private.
- truth/truths.py checks the last step numerically: for d = 3, alpha = 12.24, beta = 0.04171, the worst pair
  that Lemma 1's conditions admit (||mu - mu'|| = min(sigma, sigma') / alpha, sigma^2 / sigma'^2 = e^beta) has
  delta(0) <= 0.1 already (epsilon(0.1) = 0 over both orders), far below 1. The true epsilon is at most 1
  and (the local sensitivity of LSL being far below Lemma 7's bound) much smaller; not computed exactly.
"""

import math

import numpy as np


def features_of(feature_map, num_states):
    name, _, group = feature_map.partition(":")
    if name != "aggregation":
        raise ValueError("feature_map must be 'aggregation:<g>'")
    g = int(group)
    blocks = math.ceil(num_states / g)
    phi = np.zeros((num_states, blocks))
    phi[np.arange(num_states), np.arange(num_states) // g] = 1.0
    return phi


def signature_and_returns(episodes, num_states, discount):
    n = np.zeros(num_states)
    total = np.zeros(num_states)
    for ep in episodes:
        ret = 0.0
        first_return = {}
        for s, _a, r in reversed(ep):  # walking backwards: the last write for s is its first visit
            ret = float(r) + discount * ret
            first_return[int(s)] = ret
        for s, g in first_return.items():
            n[s] += 1
            total[s] += g
    return n, np.where(n > 0, total / np.maximum(n, 1), 0.0)


def lsl_mean_and_scale(episodes, num_states, feature_map, discount, reward_max, ridge, eps, delta, rho=None):
    phi = features_of(feature_map, num_states)
    d = phi.shape[1]
    rho = np.ones(num_states) if rho is None else np.asarray(rho, dtype=float)
    m = len(episodes)
    n, f = signature_and_returns(episodes, num_states, discount)
    weights = rho * n / m
    gram = phi.T @ (weights[:, None] * phi) + ridge / (2 * m) * np.eye(d)
    theta = np.linalg.solve(gram, phi.T @ (weights * f))
    alpha = 5 * math.sqrt(2 * math.log(2 / delta)) / eps
    beta = eps / (4 * (d + math.log(2 / delta)))
    op_norm = float(np.linalg.norm(phi, 2))
    rho_inf = float(rho.max())
    c_lambda = op_norm * rho_inf / math.sqrt(2 * ridge)
    k = np.arange(m + 1)
    inner = np.sqrt((rho[None, :] * np.minimum(n[None, :] + k[:, None], m)).sum(axis=1))
    psi = float(np.max(np.exp(-k * beta) * (c_lambda * inner + np.linalg.norm(rho)) ** 2))
    scale = 2 * alpha * reward_max * op_norm / ((1 - discount) * (ridge - op_norm**2 * rho_inf))
    return theta, scale * math.sqrt(psi)


def private_lsl(episodes, *, num_states, feature_map, discount, reward_max, ridge, eps, delta, rng):
    theta, sigma = lsl_mean_and_scale(episodes, num_states, feature_map, discount, reward_max, ridge, eps, delta)
    return theta + rng.normal(0.0, sigma, size=theta.shape)


def _many(episodes, n, *, num_states, feature_map, discount, reward_max, ridge, eps, delta, rng):
    theta, sigma = lsl_mean_and_scale(episodes, num_states, feature_map, discount, reward_max, ridge, eps, delta)
    return theta + rng.normal(0.0, sigma, size=(n, *theta.shape))


private_lsl.sample = _many
