"""DP-LSW (Balle, Gomrokchi & Precup 2016, Algorithm 1), written from the paper.

Round 9 corpus candidate (see truth/truth_c01_dp_lsw_unique_visits.py for what is known about it).

theta_X^w = (Gamma^{1/2} Phi)^+ Gamma^{1/2} F_X (eq. 8) with Gamma = diag(w);
sigma_X = alpha F_max ||(Gamma^{1/2} Phi)^+|| sqrt(psi_X^w), where
psi_X^w = max_{0 <= k <= K_X} e^{-k beta} sum_s w_s / max(|X_s| - k, 1)^2 (eq. 9, Lemma 5),
alpha = 5 sqrt(2 ln(2/delta)) / epsilon and beta = epsilon / (4 (d + ln(2/delta))) (Lemma 1).

First visits come from ``np.unique(..., return_index=True)``; the discounted return-to-go of
every step is one reversed IIR filter pass (``scipy.signal.lfilter``). ``dp_lsw.sample`` draws n
releases from one computation of (theta_X, sigma_X).
"""

import math

import numpy as np
from scipy.signal import lfilter


def _feature_matrix(features, n_states):
    if isinstance(features, str):
        if features == "tabular":
            return np.eye(n_states)
        if features.startswith("aggregation:"):
            group = int(features.split(":", 1)[1])
            dim = -(-n_states // group)
            phi = np.zeros((n_states, dim))
            phi[np.arange(n_states), np.arange(n_states) // group] = 1.0
            return phi
        raise ValueError(f"unknown features {features!r}")
    return np.asarray(features, dtype=float)


def _visit_statistics(dataset, n_states, gamma):
    """|X_s| and F_X(s) (eq. 4) from first visits."""
    counts = np.zeros(n_states)
    totals = np.zeros(n_states)
    for trajectory in dataset:
        if len(trajectory) == 0:
            continue
        steps = np.asarray(trajectory, dtype=float).reshape(-1, 3)
        states = np.rint(steps[:, 0]).astype(int)
        rewards = steps[:, 2]
        to_go = lfilter([1.0], [1.0, -gamma], rewards[::-1])[::-1]
        visited, first_index = np.unique(states, return_index=True)
        counts[visited] += 1.0
        totals[visited] += to_go[first_index]
    means = np.divide(totals, counts, out=np.zeros(n_states), where=counts > 0)
    return counts, means


def estimate_and_scale(
    dataset, *, n_states, features, gamma, r_max, epsilon, delta, weights=None, f_max=None, constant_set="main_text"
):
    if constant_set != "main_text":
        raise ValueError("only the main-text constants of Lemma 1 are implemented")
    phi = _feature_matrix(features, n_states)
    dim = phi.shape[1]
    w = np.ones(n_states) if weights is None else np.asarray(weights, dtype=float)
    counts, means = _visit_statistics(dataset, n_states, gamma)
    root_w = np.sqrt(w)
    solver = np.linalg.pinv(root_w[:, None] * phi)
    theta = solver @ (root_w * means)
    log_term = math.log(2.0 / delta)
    alpha = 5.0 * math.sqrt(2.0 * log_term) / epsilon
    beta = epsilon / (4.0 * (dim + log_term))
    k = np.arange(int(counts.max()) + 1 if counts.size else 1)[:, None]
    smooth = np.exp(-beta * k[:, 0]) * (w / np.maximum(counts - k, 1.0) ** 2).sum(axis=1)
    psi = float(smooth.max())
    bound = f_max if f_max is not None else r_max / (1.0 - gamma)
    sigma = alpha * bound * float(np.linalg.norm(solver, 2)) * math.sqrt(psi)
    return theta, sigma


def dp_lsw(dataset, *, rng, **params):
    theta, sigma = estimate_and_scale(dataset, **params)
    return theta + sigma * rng.standard_normal(theta.shape[0])


def _sample(dataset, n, *, rng, **params):
    theta, sigma = estimate_and_scale(dataset, **params)
    return theta + sigma * rng.standard_normal((n, theta.shape[0]))


dp_lsw.sample = _sample
