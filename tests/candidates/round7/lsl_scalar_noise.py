"""DP-LSL (Balle, Gomrokchi & Precup 2016, Algorithm 2), tabular features, first-visit statistics.

Bug: the noise vector eta ~ N(0, sigma_X^2 I_d) is drawn as ONE normal number and added to every coordinate
(``theta + sigma * rng.standard_normal()``): the noise is shared across the states. The release is then
theta_X + sigma_X z (1, ..., 1), and every difference of two coordinates, y_s - y_s' = theta_X(s) - theta_X(s'),
is released exactly.

Truth (claim: replace_one, n_states = 4, tabular, gamma = 0.9, R_max = 1, lambda = 4, epsilon = 1.5, delta = 0.05):

- The correct code draws d independent normals: Algorithm 2, (1.5, 0.05)-DP by Theorem 10; private.
- Witness (the spec's pair): X = {[[0, 0, 1], [1, 0, 1], [2, 0, 0]]}, X' = {[[0, 0, 0], [1, 0, 0], [2, 0, 1]]}
  (m = 1). theta(s) = rho |X_s| F_X(s) / (rho |X_s| + lambda / 2): theta_X = (1.9 / 3, 1 / 3, 0, 0) and
  theta_X' = (0.81 / 3, 0.9 / 3, 1 / 3, 0). The event {y_0 - y_3 = 1.9 / 3} has probability 1 under X and 0 under
  X': epsilon = inf at every delta < 1. true_epsilon = inf.
"""

import math

import numpy as np


def first_visit_statistics(dataset, n_states, gamma):
    counts = np.zeros(n_states)
    sums = np.zeros(n_states)
    for trajectory in dataset:
        rewards = [float(r) for _, _, r in trajectory]
        g = np.zeros(len(rewards) + 1)
        for t in reversed(range(len(rewards))):
            g[t] = rewards[t] + gamma * g[t + 1]
        seen = set()
        for t, (s, _, _) in enumerate(trajectory):
            s = int(s)
            if s not in seen:
                seen.add(s)
                counts[s] += 1
                sums[s] += g[t]
    return counts, np.divide(sums, counts, out=np.zeros(n_states), where=counts > 0)


def lsl_estimate(dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None, **_):
    """theta_X^lambda (eq. (11)) and sigma_X (Algorithm 2, eq. (12))."""
    if features != "tabular":
        raise ValueError("tabular features only")
    phi = np.eye(n_states)
    rho = np.ones(n_states) if rho is None else np.asarray(rho, dtype=float)
    m = len(dataset)
    counts, means = first_visit_statistics(dataset, n_states, gamma)
    gamma_x = np.diag(rho * counts / m)
    theta = np.linalg.solve(phi.T @ gamma_x @ phi + lam / (2 * m) * np.eye(n_states), phi.T @ gamma_x @ means)
    d = phi.shape[1]
    alpha = 5 * math.sqrt(2 * math.log(2 / delta)) / epsilon
    beta = epsilon / (4 * (d + math.log(2 / delta)))
    phi_norm = np.linalg.norm(phi, 2)
    rho_inf = rho.max()
    c_lam = phi_norm * rho_inf / math.sqrt(2 * lam)
    psi = max(
        math.exp(-k * beta) * (c_lam * math.sqrt(np.sum(rho * np.minimum(counts + k, m))) + np.linalg.norm(rho)) ** 2
        for k in range(m + 1)
    )
    f_bound = r_max / (1 - gamma) if f_max is None else f_max
    sigma = 2 * alpha * f_bound * phi_norm / (lam - phi_norm**2 * rho_inf) * math.sqrt(psi)
    return theta, sigma


def dp_lsl(dataset, *, rng, **params):
    theta, sigma = lsl_estimate(dataset, **params)
    return theta + sigma * rng.standard_normal()


def _dp_lsl_sample(dataset, n, *, rng, **params):
    theta, sigma = lsl_estimate(dataset, **params)
    return theta + sigma * rng.standard_normal((n, 1))


dp_lsl.sample = _dp_lsl_sample
