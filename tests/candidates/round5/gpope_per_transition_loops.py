"""GPOPE (Xie et al. 2019, Alg. 1) written per transition: the GTD2 gradient of a trajectory is the
average of its per-transition primal/dual gradients; clip the pair to h, add h*sigma*N, step."""

import numpy as np


def gpope(table, *, clip_norm, noise_multiplier, iterations, step_sizes=None, records=None, rng):
    phi = np.asarray(table["phi"], dtype=float)
    phi_next = np.asarray(table["phi_next"], dtype=float)
    rewards = np.asarray(table["rewards"], dtype=float)
    rho = np.asarray(table["rho"], dtype=float)
    offsets = list(table["offsets"])
    gamma = float(table["gamma"])
    n_traj = len(offsets) - 1
    d = phi.shape[1]
    eta = float(step_sizes["eta"]) if step_sizes else 0.1
    theta = np.zeros(d)
    w = np.zeros(d)
    for _ in range(iterations):
        i = rng.choice(n_traj)
        g_theta = np.zeros(d)
        g_w = np.zeros(d)
        count = offsets[i + 1] - offsets[i]
        for t in range(offsets[i], offsets[i + 1]):
            delta_phi = phi[t] - gamma * phi_next[t]
            g_theta += -rho[t] * delta_phi * (phi[t] @ w)
            g_w += rho[t] * phi[t] * (delta_phi @ theta) + phi[t] * (phi[t] @ w) - rho[t] * rewards[t] * phi[t]
        g = np.concatenate([g_theta, g_w]) / count
        norm = np.linalg.norm(g)
        if norm > clip_norm:
            g = g * (clip_norm / norm)
        g = g + rng.normal(0.0, clip_norm * noise_multiplier, size=2 * d)
        theta = theta - eta * g[:d]
        w = w - eta * g[d:]
    return theta
