"""Candidates for end-to-end GPOPE (Xie et al. 2019, Algorithm 1): N iterations, each picks one
trajectory uniformly, forms the primal-dual GTD2 gradient of eq. (4.1) (per-trajectory mean over
its transitions), clips it to norm h, adds h N(0, sigma^2 I) and steps theta, w by beta. The
release is theta_{N+1}. Claim (specs/gpope.toml): m = 2 trajectories, N = 2, h = 5, sigma = 2,
beta = 1, (3.17, 1e-3)-DP under replace-one (the composition of N subsampled Gaussian steps)."""

import numpy as np


def _gradient(table, index, theta, w):
    """B_i(theta, w) = [-A_i^T w ; A_i theta + C_i w - b_i] for trajectory ``index`` (mean over its steps)."""
    lo, hi = table["offsets"][index], table["offsets"][index + 1]
    phi = np.asarray(table["phi"][lo:hi], dtype=float)
    phi_next = np.asarray(table["phi_next"][lo:hi], dtype=float)
    rho = np.asarray(table["rho"][lo:hi], dtype=float)
    rewards = np.asarray(table["rewards"][lo:hi], dtype=float)
    td = phi - table["gamma"] * phi_next
    phi_w = phi @ w
    primal = -(td.T @ (rho * phi_w))
    dual = phi.T @ (rho * (td @ theta)) + phi.T @ phi_w - phi.T @ (rho * rewards)
    return np.concatenate([primal, dual]) / (hi - lo)


def _run(table, *, clip_norm, noise_multiplier, iterations, eta, rng, clip=True, noise_scale=None, pick=None):
    n = len(table["phi"][0])
    m = len(table["offsets"]) - 1
    theta, w = np.zeros(n), np.zeros(n)
    scale = clip_norm * noise_multiplier if noise_scale is None else noise_scale
    for _ in range(iterations):
        index = int(rng.integers(m)) if pick is None else pick
        gradient = _gradient(table, index, theta, w)
        if clip:
            gradient = gradient / max(1.0, float(np.linalg.norm(gradient)) / clip_norm)
        gradient = gradient + scale * rng.standard_normal(2 * n)
        theta, w = theta - eta * gradient[:n], w - eta * gradient[n:]
    return theta


def _eta(step_sizes):
    return float((step_sizes or {}).get("eta", 0.1))


def algorithm1(
    table, *, clip_norm, noise_multiplier, iterations, step_sizes=None, normalisation="mean", clip=True, rng
):
    """Correct: Algorithm 1 as written (uniform pick, clip to h, noise h sigma)."""
    return _run(
        table,
        clip_norm=clip_norm,
        noise_multiplier=noise_multiplier,
        iterations=iterations,
        eta=_eta(step_sizes),
        rng=rng,
    )


def more_noise(
    table, *, clip_norm, noise_multiplier, iterations, step_sizes=None, normalisation="mean", clip=True, rng
):
    """Correct deviation: noise 1.5 h sigma."""
    return _run(
        table,
        clip_norm=clip_norm,
        noise_multiplier=noise_multiplier,
        iterations=iterations,
        eta=_eta(step_sizes),
        rng=rng,
        noise_scale=1.5 * clip_norm * noise_multiplier,
    )


def no_clipping(
    table, *, clip_norm, noise_multiplier, iterations, step_sizes=None, normalisation="mean", clip=True, rng
):
    """Bug: skips step 5 (the gradient's sensitivity is unbounded)."""
    return _run(
        table,
        clip_norm=clip_norm,
        noise_multiplier=noise_multiplier,
        iterations=iterations,
        eta=_eta(step_sizes),
        rng=rng,
        clip=False,
    )


def noise_scaled_by_gradient_norm(
    table, *, clip_norm, noise_multiplier, iterations, step_sizes=None, normalisation="mean", clip=True, rng
):
    """Bug: noise ||B|| sigma instead of h sigma (data-dependent; a zero gradient gets no noise, so on
    all-zero rewards theta_{N+1} = 0 exactly while a non-zero reward moves it: epsilon is infinite)."""
    n = len(table["phi"][0])
    m = len(table["offsets"]) - 1
    eta = _eta(step_sizes)
    theta, w = np.zeros(n), np.zeros(n)
    for _ in range(iterations):
        gradient = _gradient(table, int(rng.integers(m)), theta, w)
        gradient = gradient / max(1.0, float(np.linalg.norm(gradient)) / clip_norm)
        gradient = gradient + float(np.linalg.norm(gradient)) * noise_multiplier * rng.standard_normal(2 * n)
        theta, w = theta - eta * gradient[:n], w - eta * gradient[n:]
    return theta


def rounded_output(
    table, *, clip_norm, noise_multiplier, iterations, step_sizes=None, normalisation="mean", clip=True, rng
):
    """Correct deviation: theta rounded to 3 decimals (post-processing)."""
    return np.round(
        algorithm1(
            table,
            clip_norm=clip_norm,
            noise_multiplier=noise_multiplier,
            iterations=iterations,
            step_sizes=step_sizes,
            rng=rng,
        ),
        3,
    )
