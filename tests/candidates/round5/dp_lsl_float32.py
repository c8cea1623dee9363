"""DP-LSL (Balle et al. 2016, Algorithm 2), tabular features, computed in float32 (our GPU habit);
only the final noise is drawn in float64."""

import numpy as np

f32 = np.float32


def _estimate(dataset, n_states, gamma, r_max, lam, epsilon, delta, rho, f_max):
    rho = np.ones(n_states, f32) if rho is None else np.asarray(rho, f32)
    m = len(dataset)
    counts = np.zeros(n_states, f32)
    sums = np.zeros(n_states, f32)
    for traj in dataset:
        arr = np.asarray(traj, f32).reshape(-1, 3)
        s = arr[:, 0].astype(np.int64)
        g = np.zeros(len(arr) + 1, f32)
        for t in range(len(arr) - 1, -1, -1):
            g[t] = arr[t, 2] + f32(gamma) * g[t + 1]
        _, first = np.unique(s, return_index=True)
        counts[s[first]] += 1
        sums[s[first]] += g[first]
    means = np.where(counts > 0, sums / np.maximum(counts, 1), f32(0))
    # ridge solution, tabular: theta_s = rho_s |X_s| F_s / (rho_s |X_s| + lam / 2)
    theta = rho * counts * means / (rho * counts + f32(lam) / 2)
    L = np.log(f32(2) / f32(delta))
    alpha = f32(5) * np.sqrt(f32(2) * L) / f32(epsilon)
    beta = f32(epsilon) / (f32(4) * (n_states + L))
    c_lam = rho.max() / np.sqrt(f32(2 * lam))
    ks = np.arange(m + 1, dtype=f32)[:, None]
    phi = (c_lam * np.sqrt((rho * np.minimum(counts + ks, f32(m))).sum(axis=1)) + np.sqrt((rho * rho).sum())) ** 2
    psi = (np.exp(-beta * ks[:, 0]) * phi).max()
    bound = f32(f_max if f_max is not None else r_max / (1 - gamma))
    sigma = f32(2) * alpha * bound * np.sqrt(psi) / (f32(lam) - rho.max())
    return theta.astype(float), float(sigma)


def dp_lsl(dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, f_max=None, rho=None, rng):
    theta, sigma = _estimate(dataset, n_states, gamma, r_max, lam, epsilon, delta, rho, f_max)
    return theta + sigma * rng.standard_normal(n_states)


def _sample(dataset, n, *, n_states, features, gamma, r_max, lam, epsilon, delta, f_max=None, rho=None, rng):
    theta, sigma = _estimate(dataset, n_states, gamma, r_max, lam, epsilon, delta, rho, f_max)
    return theta + sigma * rng.standard_normal((n, n_states))


dp_lsl.sample = _sample
