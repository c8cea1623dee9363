"""GPOPE (Xie, Thomas & Miklau 2019, Algorithm 1) built from the per-trajectory GTD2 operators.

Round 9 corpus candidate (see truth/truth_c07_gpope_saddle_operators.py).

For every trajectory i we form, over its transitions (eq. (2.2), means over the trajectory),
A_i = E[rho phi (phi - gamma phi')^T], b_i = E[rho r phi], C_i = E[phi phi^T]; the stacked
primal-dual gradient at (theta, w) is B_i = [-A_i^T w ; A_i theta + C_i w - b_i] (eq. (4.1)).
Each of the N iterations draws one trajectory uniformly (step 2), clips B_i to L2 norm h (step 5),
adds h N(0, sigma^2 I_{2n}) (step 6) and takes a step of size eta (step 7). theta_{N+1} is released.
``gpope.sample`` runs n chains side by side.
"""

import numpy as np


def _operators(table):
    phi = np.asarray(table["phi"], dtype=float)
    phi_next = np.asarray(table["phi_next"], dtype=float)
    rewards = np.asarray(table["rewards"], dtype=float)
    rho = np.asarray(table["rho"], dtype=float)
    offsets = [int(o) for o in table["offsets"]]
    gamma = float(table["gamma"])
    m, n = len(offsets) - 1, phi.shape[1]
    A = np.zeros((m, n, n))
    b = np.zeros((m, n))
    C = np.zeros((m, n, n))
    for i in range(m):
        rows = slice(offsets[i], offsets[i + 1])
        length = offsets[i + 1] - offsets[i]
        f, f_next, r, c = phi[rows], phi_next[rows], rewards[rows], rho[rows]
        A[i] = np.einsum("t,ti,tj->ij", c, f, f - gamma * f_next) / length
        b[i] = np.einsum("t,t,ti->i", c, r, f) / length
        C[i] = f.T @ f / length
    return A, b, C


def _eta(step_sizes):
    if step_sizes is None:
        return 0.1
    if step_sizes.get("schedule", "constant") != "constant":
        raise ValueError("constant step sizes only")
    return float(step_sizes.get("eta", 0.1))


def gpope(table, *, clip_norm, noise_multiplier, iterations, step_sizes=None, records=None, rng):
    A, b, C = _operators(table)
    m, n = b.shape
    eta = _eta(step_sizes)
    theta, w = np.zeros(n), np.zeros(n)
    for _ in range(iterations):
        i = rng.choice(m)
        grad = np.concatenate([-A[i].T @ w, A[i] @ theta + C[i] @ w - b[i]])
        size = np.linalg.norm(grad)
        if size > clip_norm:
            grad *= clip_norm / size
        grad += clip_norm * rng.normal(0.0, noise_multiplier, 2 * n)
        theta, w = theta - eta * grad[:n], w - eta * grad[n:]
    return theta


def _gpope_many(table, count, *, clip_norm, noise_multiplier, iterations, step_sizes=None, records=None, rng):
    A, b, C = _operators(table)
    m, n = b.shape
    eta = _eta(step_sizes)
    theta, w = np.zeros((count, n)), np.zeros((count, n))
    for _ in range(iterations):
        i = rng.choice(m, size=count)
        primal = -np.einsum("kji,kj->ki", A[i], w)
        dual = np.einsum("kij,kj->ki", A[i], theta) + np.einsum("kij,kj->ki", C[i], w) - b[i]
        grad = np.concatenate([primal, dual], axis=1)
        size = np.linalg.norm(grad, axis=1, keepdims=True)
        grad = grad * np.minimum(1.0, clip_norm / np.maximum(size, 1e-300))
        grad = grad + clip_norm * rng.normal(0.0, noise_multiplier, (count, 2 * n))
        theta, w = theta - eta * grad[:, :n], w - eta * grad[:, n:]
    return theta


gpope.sample = _gpope_many
