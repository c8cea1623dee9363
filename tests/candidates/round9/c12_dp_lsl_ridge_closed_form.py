"""DP-LSL (Balle, Gomrokchi & Precup 2016, Algorithm 2) in a project's own naming.

Round 9 corpus candidate (see truth/truth_c12_dp_lsl_ridge_closed_form.py).

``private_ridge_values(trajs, generator, *, num_states, discount, reward_bound, ridge, eps, dlt,
value_bound)``: the regularised first-visit Monte Carlo fit of eq. (11),
theta = (Phi' Gamma_X Phi + ridge/(2m) I)^-1 Phi' Gamma_X F_X with tabular features and rho = 1,
written per state in closed form: theta_s = c_s F_s / (c_s + ridge/2), c_s = |X_s| (the m's cancel);
plus Gaussian noise of scale
sigma = 2 alpha F_max ||Phi|| sqrt(psi) / (ridge - ||Phi||^2 ||rho||_inf), with
psi = max_{0<=k<=m} e^{-k beta} (c sqrt(sum_s min(|X_s| + k, m)) + sqrt(S))^2, c = 1/sqrt(2 ridge)
(eq. (12), Lemma 9 with the min), alpha = 5 sqrt(2 ln(2/dlt))/eps, beta = eps/(4 (S + ln(2/dlt))).
First-visit returns are accumulated by a forward pass: the discounted prefix sums
D_t = sum_{j<t} gamma^j r_j give the return from t as (D_T - D_t) / gamma^t.
The vectorised entry point is ``private_ridge_values.sample(trajs, n, generator, **same keywords)``.
"""

import math

import numpy as np


def _statistics(trajs, num_states, discount):
    visits = np.zeros(num_states)
    first_returns = np.zeros(num_states)
    for traj in trajs:
        if not traj:
            continue
        arr = np.asarray(traj, dtype=float).reshape(-1, 3)
        states = np.rint(arr[:, 0]).astype(int)
        powers = discount ** np.arange(len(arr))
        prefix = np.concatenate([[0.0], np.cumsum(powers * arr[:, 2])])
        seen = np.zeros(num_states, dtype=bool)
        for t, s in enumerate(states):
            if not seen[s]:
                seen[s] = True
                first_returns[s] += (prefix[-1] - prefix[t]) / powers[t]
        visits += seen
    return visits, first_returns


def _release_parameters(trajs, num_states, discount, reward_bound, ridge, eps, dlt, value_bound):
    m = len(trajs)
    visits, first_returns = _statistics(trajs, num_states, discount)
    theta = first_returns / (visits + ridge / 2.0)  # c_s F_s/(c_s + ridge/2) with c_s F_s = sum of returns
    alpha = 5.0 * math.sqrt(2.0 * math.log(2.0 / dlt)) / eps
    beta = eps / (4.0 * (num_states + math.log(2.0 / dlt)))
    c = 1.0 / math.sqrt(2.0 * ridge)  # ||Phi|| = ||rho||_inf = 1 for tabular features, rho = 1
    k = np.arange(m + 1)
    saturated = np.minimum(visits[None, :] + k[:, None], m).sum(axis=1)
    psi = float(np.max(np.exp(-beta * k) * (c * np.sqrt(saturated) + math.sqrt(num_states)) ** 2))
    f_max = value_bound if value_bound is not None else reward_bound / (1.0 - discount)
    sigma = 2.0 * alpha * f_max * math.sqrt(psi) / (ridge - 1.0)
    return theta, sigma


def private_ridge_values(trajs, generator, *, num_states, discount, reward_bound, ridge, eps, dlt, value_bound=None):
    theta, sigma = _release_parameters(trajs, num_states, discount, reward_bound, ridge, eps, dlt, value_bound)
    return theta + generator.normal(0.0, sigma, num_states)


def _sample(trajs, n, generator, *, num_states, discount, reward_bound, ridge, eps, dlt, value_bound=None):
    theta, sigma = _release_parameters(trajs, num_states, discount, reward_bound, ridge, eps, dlt, value_bound)
    return theta + generator.normal(0.0, sigma, (n, num_states))


private_ridge_values.sample = _sample
