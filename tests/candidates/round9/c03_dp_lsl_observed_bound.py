"""DP-LSL (Balle, Gomrokchi & Precup 2016, Algorithm 2) with the tightest return bound.

Round 9 corpus candidate (see truth/truth_c03_dp_lsl_observed_bound.py).

Sec. 3.1 allows R_max/(1-gamma) to be replaced by any smaller bound F_max on the returns; when no
f_max is passed we use the smallest such bound for the batch at hand, the largest absolute
first-visit return observed (never more than R_max/(1-gamma)). The rest follows Algorithm 2:
theta = (Phi' Gamma_X Phi + lambda/(2m) I)^-1 Phi' Gamma_X F_X (eq. 11),
psi = max_{0<=k<=m} e^{-k beta} (c_lambda sqrt(sum_s rho_s min(|X_s| + k, m)) + ||rho||_2)^2 (eq. 12),
sigma = 2 alpha F ||Phi|| sqrt(psi) / (lambda - ||Phi||^2 ||rho||_inf).
"""

import math

import numpy as np


def _phi(features, n_states):
    if features == "tabular":
        return np.eye(n_states)
    if isinstance(features, str) and features.startswith("aggregation:"):
        g = int(features.split(":")[1])
        out = np.zeros((n_states, -(-n_states // g)))
        for s in range(n_states):
            out[s, s // g] = 1.0
        return out
    return np.asarray(features, dtype=float)


def _fit(dataset, n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max):
    phi = _phi(features, n_states)
    d = phi.shape[1]
    rho = np.ones(n_states) if rho is None else np.asarray(rho, dtype=float)
    m = len(dataset)
    counts = np.zeros(n_states)
    sums = np.zeros(n_states)
    observed = []
    for trajectory in dataset:
        g = 0.0
        togo = np.zeros(len(trajectory))
        for t in range(len(trajectory) - 1, -1, -1):
            g = float(trajectory[t][2]) + gamma * g
            togo[t] = g
        first = {}
        for t, step in enumerate(trajectory):
            first.setdefault(int(step[0]), t)
        for s, t in first.items():
            counts[s] += 1
            sums[s] += togo[t]
            observed.append(abs(togo[t]))
    means = np.divide(sums, counts, out=np.zeros(n_states), where=counts > 0)
    gamma_x = rho * counts / m
    lhs = phi.T @ (gamma_x[:, None] * phi) + lam / (2.0 * m) * np.eye(d)
    theta = np.linalg.solve(lhs, phi.T @ (gamma_x * means))
    alpha = 5.0 * math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon
    beta = epsilon / (4.0 * (d + math.log(2.0 / delta)))
    norm_phi = float(np.linalg.norm(phi, 2))
    rho_inf = float(rho.max())
    c_lam = norm_phi * rho_inf / math.sqrt(2.0 * lam)
    ks = np.arange(m + 1)
    inner = np.array([np.sum(rho * np.minimum(counts + k, m)) for k in ks])
    psi = float(np.max(np.exp(-beta * ks) * (c_lam * np.sqrt(inner) + np.linalg.norm(rho)) ** 2))
    if f_max is None:
        f_max = min(max(observed, default=0.0), r_max / (1.0 - gamma))
    sigma = 2.0 * alpha * f_max * norm_phi * math.sqrt(psi) / (lam - norm_phi**2 * rho_inf)
    return theta, sigma


def dp_lsl(
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
    theta, sigma = _fit(dataset, n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max)
    return theta + sigma * rng.standard_normal(theta.size)


def _dp_lsl_many(
    dataset,
    n,
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
    theta, sigma = _fit(dataset, n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max)
    return theta + sigma * rng.standard_normal((n, theta.size))


dp_lsl.sample = _dp_lsl_many
