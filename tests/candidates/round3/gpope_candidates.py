"""Round-3 end-to-end GPOPE candidate (Xie, Thomas & Miklau 2019, Algorithm 1: GTD2 with clipped,
noised gradients; the release is theta after N iterations)."""

import numpy as np

_NOISE = np.random.default_rng(2019)  # "reproducible experiments": one generator for the module


def _gradient(table, i, theta, w):
    """The GTD2 gradient (primal for theta, dual for w) averaged over trajectory i's transitions."""
    lo, hi = table["offsets"][i], table["offsets"][i + 1]
    phi = np.asarray(table["phi"][lo:hi], dtype=float)
    phi_next = np.asarray(table["phi_next"][lo:hi], dtype=float)
    rho = np.asarray(table["rho"][lo:hi], dtype=float)
    reward = np.asarray(table["rewards"][lo:hi], dtype=float)
    difference = phi - table["gamma"] * phi_next
    primal = -difference.T @ (rho * (phi @ w))
    dual = phi.T @ (rho * (difference @ theta)) + phi.T @ (phi @ w) - phi.T @ (rho * reward)
    return np.concatenate([primal, dual]) / (hi - lo)


def module_generator(table, *, clip_norm, noise_multiplier, iterations, step_sizes=None, records=None, rng):
    """Leaky: trajectories and noise come from a module-level generator seeded with 2019, not from
    ``rng``: the k-th call's noise is the same in every process, a public sequence."""
    n = len(table["phi"][0])
    m = len(table["offsets"]) - 1
    eta = float((step_sizes or {}).get("eta", 0.1))
    theta, w = np.zeros(n), np.zeros(n)
    for _ in range(iterations):
        i = int(_NOISE.integers(m))
        gradient = _gradient(table, i, theta, w)
        gradient = gradient * min(1.0, clip_norm / max(float(np.linalg.norm(gradient)), 1e-300))
        gradient = gradient + clip_norm * noise_multiplier * _NOISE.standard_normal(2 * n)
        theta, w = theta - eta * gradient[:n], w - eta * gradient[n:]
    return theta
