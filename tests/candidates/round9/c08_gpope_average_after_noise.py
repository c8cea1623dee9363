"""GPOPE (Xie, Thomas & Miklau 2019, Algorithm 1) with the trajectory's gradient summed, then averaged.

Round 9 corpus candidate (see truth/truth_c08_gpope_average_after_noise.py).

Per iteration: pick one trajectory uniformly; sum the per-transition GTD2 gradients
[-rho td (phi.w) ; phi rho (td.theta) + phi (phi.w) - phi rho r] over its transitions; clip the sum
to L2 norm h and add h N(0, sigma^2 I) (the privatised quantity is the trajectory's total
contribution, which is what one trajectory controls); then divide by the trajectory's number of
transitions to get the per-trajectory mean of eq. (2.2) and take a step of size eta.
"""

import numpy as np


def _trajectory_sums(table):
    phi = np.asarray(table["phi"], dtype=float)
    nxt = np.asarray(table["phi_next"], dtype=float)
    rew = np.asarray(table["rewards"], dtype=float)
    rho = np.asarray(table["rho"], dtype=float)
    off = [int(o) for o in table["offsets"]]
    gam = float(table["gamma"])
    out = []
    for i in range(len(off) - 1):
        f, fn, r, c = (
            phi[off[i] : off[i + 1]],
            nxt[off[i] : off[i + 1]],
            rew[off[i] : off[i + 1]],
            rho[off[i] : off[i + 1]],
        )
        td = f - gam * fn
        out.append((f, td, r, c, off[i + 1] - off[i]))
    return out


def _summed_gradient(parts, theta, w):
    f, td, r, c, _ = parts
    primal = -(td.T @ (c * (f @ w)))
    dual = f.T @ (c * (td @ theta)) + f.T @ (f @ w) - f.T @ (c * r)
    return np.concatenate([primal, dual])


def gpope(table, *, clip_norm, noise_multiplier, iterations, step_sizes=None, records=None, rng):
    trajectories = _trajectory_sums(table)
    n = np.asarray(table["phi"]).shape[1]
    eta = float((step_sizes or {}).get("eta", 0.1))
    theta, w = np.zeros(n), np.zeros(n)
    for _ in range(iterations):
        parts = trajectories[int(rng.integers(len(trajectories)))]
        g = _summed_gradient(parts, theta, w)
        g = g / max(1.0, float(np.linalg.norm(g)) / clip_norm)
        g = g + clip_norm * noise_multiplier * rng.standard_normal(2 * n)
        g = g / parts[4]
        theta, w = theta - eta * g[:n], w - eta * g[n:]
    return theta


def _gpope_many(table, count, *, clip_norm, noise_multiplier, iterations, step_sizes=None, records=None, rng):
    trajectories = _trajectory_sums(table)
    n = np.asarray(table["phi"]).shape[1]
    eta = float((step_sizes or {}).get("eta", 0.1))
    # the summed gradient is linear in (theta, w): G_i z + g_i
    m = len(trajectories)
    lin = np.zeros((m, 2 * n, 2 * n))
    const = np.zeros((m, 2 * n))
    lengths = np.zeros(m)
    for i, (f, td, r, c, length) in enumerate(trajectories):
        lin[i, :n, n:] = -(td.T @ (c[:, None] * f))
        lin[i, n:, :n] = f.T @ (c[:, None] * td)
        lin[i, n:, n:] = f.T @ f
        const[i, n:] = -(f.T @ (c * r))
        lengths[i] = length
    z = np.zeros((count, 2 * n))
    for _ in range(iterations):
        pick = rng.integers(m, size=count)
        g = np.einsum("kij,kj->ki", lin[pick], z) + const[pick]
        g = g / np.maximum(1.0, np.linalg.norm(g, axis=1, keepdims=True) / clip_norm)
        g = g + clip_norm * noise_multiplier * rng.standard_normal((count, 2 * n))
        g = g / lengths[pick][:, None]
        z = z - eta * g
    return z[:, :n]


gpope.sample = _gpope_many
