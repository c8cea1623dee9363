"""DP-LSW with the regression weights w_s = rho_s p_s of Sec. 3.1, p_s estimated from the batch.

Round 9 corpus candidate (see truth/truth_c02_dp_lsw_empirical_weights.py).

Balle et al. (2016) note that w_s = E[rho_s |X_s| / m] = rho_s p_s makes J^w track J_X as m grows.
When the caller gives no weights we use rho = 1 and the visit frequencies of the batch,
w_s = max(|X_s|, 1) / m (a state nobody visits keeps the weight of one visit so that
Gamma^{1/2} Phi keeps full column rank). Everything else is Algorithm 1: theta = (Phi' Gamma Phi)^-1
Phi' Gamma F_X, sigma = alpha F_max ||(Gamma^{1/2} Phi)^+|| sqrt(psi) with the beta-smooth psi of eq. (9).
Tabular features only.
"""

import math

import numpy as np


def _first_visit_table(dataset, n_states, gamma):
    visits = [0] * n_states
    sums = [0.0] * n_states
    for trajectory in dataset:
        ret = 0.0
        returns = []
        for step in reversed(trajectory):
            ret = float(step[2]) + gamma * ret
            returns.append(ret)
        returns.reverse()
        done = set()
        for t, step in enumerate(trajectory):
            s = int(step[0])
            if s in done:
                continue
            done.add(s)
            visits[s] += 1
            sums[s] += returns[t]
    visits = np.array(visits, dtype=float)
    values = np.array([sums[s] / visits[s] if visits[s] else 0.0 for s in range(n_states)])
    return visits, values


def _theta_sigma(dataset, n_states, features, gamma, r_max, epsilon, delta, weights, f_max):
    if features != "tabular":
        raise ValueError("tabular features only")
    m = len(dataset)
    visits, values = _first_visit_table(dataset, n_states, gamma)
    w = np.maximum(visits, 1.0) / m if weights is None else np.asarray(weights, dtype=float)
    phi = np.eye(n_states)
    gram = phi.T @ (w[:, None] * phi)
    theta = np.linalg.solve(gram, phi.T @ (w * values))
    alpha = 5.0 * math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon
    beta = epsilon / (4.0 * (n_states + math.log(2.0 / delta)))
    psi = 0.0
    for k in range(int(visits.max()) + 1):
        phi_k = float(np.sum(w / np.maximum(visits - k, 1.0) ** 2))
        psi = max(psi, math.exp(-k * beta) * phi_k)
    pinv_norm = float(np.linalg.norm(np.linalg.pinv(np.sqrt(w)[:, None] * phi), 2))
    bound = f_max if f_max is not None else r_max / (1.0 - gamma)
    return theta, alpha * bound * pinv_norm * math.sqrt(psi)


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
    theta, sigma = _theta_sigma(dataset, n_states, features, gamma, r_max, epsilon, delta, weights, f_max)
    return theta + rng.normal(0.0, sigma, size=theta.shape)


def _many(
    dataset,
    n,
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
    theta, sigma = _theta_sigma(dataset, n_states, features, gamma, r_max, epsilon, delta, weights, f_max)
    return theta + rng.normal(0.0, sigma, size=(n, theta.shape[0]))


dp_lsw.sample = _many
