"""DP-LSW candidates (Balle, Gomrokchi, Precup 2016, Algorithm 1).

``fn(dataset, *, n_states, features, gamma, r_max, epsilon, delta, weights=None, f_max=None,
constant_set="main_text", rng)``; a dataset is a list of trajectories, each a list of
[state, action, reward] triples.

Algorithm 1, written from the paper:

* first-visit returns F_{x,s} = Σ_{t >= i_{x,s}} γ^{t − i_{x,s}} r_t, and F_X(s) their mean over the
  trajectories X_s that visit s (0 if none), eq. (4);
* θ_X = (Φᵀ Γ Φ)⁻¹ Φᵀ Γ F_X with Γ = diag(w), eq. (8);
* α = 5 √(2 ln(2/δ)) / ε, β = ε / (4 (d + ln(2/δ)));
* φ(k) = Σ_s w_s / max(|X_s| − k, 1)², ψ = max_{0 <= k <= K_X} e^{−kβ} φ(k), K_X = max_s |X_s|, eq. (9);
* σ_X = α F ‖(Γ^{1/2} Φ)^†‖ √ψ with F = R_max / (1 − γ), or the public bound F_max when given;
* release θ_X + N(0, σ_X² I_d).

The spec ``specs/dp_lsw.toml`` audits a 6-state chain with aggregated pairs of states (d = 3),
γ = 0.95, R_max = 1, F_max = 1, against the claim (1, 0.1)-DP (Theorem 6). With the main-text
constants the release is far more private than claimed (truth.py: Lemma 1's worst δ(1) is about
1e-8 at α, and stays below 0.1 down to α/8), so reductions of σ by a constant factor are *not*
privacy bugs at this claim; the leaky candidates below break privacy outright.
"""

from __future__ import annotations

import math

import numpy as np


def _features(features, n_states):
    if isinstance(features, str):
        if features == "tabular":
            return np.eye(n_states)
        name, _, size = features.partition(":")
        if name != "aggregation":
            raise ValueError(f"unknown features {features!r}")
        group = int(size)
        d = -(-n_states // group)
        phi = np.zeros((n_states, d))
        for s in range(n_states):
            phi[s, s // group] = 1.0
        return phi
    return np.asarray(features, dtype=np.float64)


def _first_visit_returns(trajectory, gamma):
    """{state: return from its first visit}: backwards accumulation of discounted rewards."""
    states = [int(step[0]) for step in trajectory]
    rewards = [float(step[2]) for step in trajectory]
    tail = [0.0] * (len(rewards) + 1)
    for t in range(len(rewards) - 1, -1, -1):
        tail[t] = rewards[t] + gamma * tail[t + 1]
    returns = {}
    for t, s in enumerate(states):
        if s not in returns:
            returns[s] = tail[t]
    return returns


def _statistics(dataset, n_states, gamma):
    """Visit counts |X_s| and mean first-visit returns F_X(s)."""
    counts = np.zeros(n_states)
    sums = np.zeros(n_states)
    for trajectory in dataset:
        for s, value in _first_visit_returns(trajectory, gamma).items():
            counts[s] += 1
            sums[s] += value
    means = np.divide(sums, counts, out=np.zeros(n_states), where=counts > 0)
    return counts, means


def _setup(n_states, features, weights):
    phi = _features(features, n_states)
    w = np.ones(n_states) if weights is None else np.asarray(weights, dtype=np.float64)
    root = np.sqrt(w)[:, None] * phi
    pinv_norm = 1.0 / np.linalg.svd(root, compute_uv=False).min()
    return phi, w, pinv_norm


def _theta(phi, w, means):
    gram = phi.T @ (w[:, None] * phi)
    return np.linalg.solve(gram, phi.T @ (w * means))


def _constants(epsilon, delta, d):
    alpha = 5.0 * math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon
    beta = epsilon / (4.0 * (d + math.log(2.0 / delta)))
    return alpha, beta


def _psi(counts, w, beta):
    top = int(counts.max()) if counts.size else 0
    best = 0.0
    for k in range(top + 1):
        phi_k = float(np.sum(w / np.maximum(counts - k, 1.0) ** 2))
        best = max(best, math.exp(-k * beta) * phi_k)
    return best


def _bound(r_max, gamma, f_max):
    return float(f_max) if f_max is not None else r_max / (1.0 - gamma)


def _mean_and_sigma(dataset, n_states, features, gamma, r_max, epsilon, delta, weights, f_max):
    phi, w, pinv_norm = _setup(n_states, features, weights)
    counts, means = _statistics(dataset, n_states, gamma)
    theta = _theta(phi, w, means)
    alpha, beta = _constants(epsilon, delta, phi.shape[1])
    sigma = alpha * _bound(r_max, gamma, f_max) * pinv_norm * math.sqrt(_psi(counts, w, beta))
    return theta, sigma


# --------------------------------------------------------------------------- private


def paper_loops(
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
    """Private. Algorithm 1 as printed, with plain loops for the returns and the smooth bound ψ."""
    if constant_set != "main_text":
        raise ValueError("only the main-text constants are implemented")
    theta, sigma = _mean_and_sigma(dataset, n_states, features, gamma, r_max, epsilon, delta, weights, f_max)
    return theta + sigma * rng.standard_normal(theta.shape)


class vectorised:  # a callable class with a ``sample`` attribute, named like a function
    """Private. Algorithm 1 with numpy for ψ (all k at once) and a vectorised ``sample`` entry point."""

    @staticmethod
    def _view(dataset, n_states, features, gamma, r_max, epsilon, delta, weights, f_max):
        phi, w, pinv_norm = _setup(n_states, features, weights)
        counts, means = _statistics(dataset, n_states, gamma)
        theta = _theta(phi, w, means)
        alpha, beta = _constants(epsilon, delta, phi.shape[1])
        ks = np.arange(int(counts.max()) + 1)
        phis = (w[None, :] / np.maximum(counts[None, :] - ks[:, None], 1.0) ** 2).sum(axis=1)
        psi = float(np.max(np.exp(-ks * beta) * phis))
        return theta, alpha * _bound(r_max, gamma, f_max) * pinv_norm * math.sqrt(psi)

    def __new__(
        cls, dataset, *, n_states, features, gamma, r_max, epsilon, delta, weights=None, f_max=None,
        constant_set="main_text", rng,
    ):  # fmt: skip
        theta, sigma = cls._view(dataset, n_states, features, gamma, r_max, epsilon, delta, weights, f_max)
        return theta + sigma * rng.standard_normal(theta.shape)

    @staticmethod
    def sample(
        dataset, n, *, rng, n_states, features, gamma, r_max, epsilon, delta, weights=None, f_max=None,
        constant_set="main_text",
    ):  # fmt: skip
        theta, sigma = vectorised._view(dataset, n_states, features, gamma, r_max, epsilon, delta, weights, f_max)
        return theta[None, :] + sigma * rng.standard_normal((n, theta.size))


def lstsq_theta(
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
    """Private (equivalent code). θ_X as the least-squares solution of Γ^{1/2} Φ θ ≈ Γ^{1/2} F_X
    (``np.linalg.lstsq``), the pseudo-inverse form of eq. (8)."""
    phi, w, pinv_norm = _setup(n_states, features, weights)
    counts, means = _statistics(dataset, n_states, gamma)
    root = np.sqrt(w)
    theta = np.linalg.lstsq(root[:, None] * phi, root * means, rcond=None)[0]
    alpha, beta = _constants(epsilon, delta, phi.shape[1])
    sigma = alpha * _bound(r_max, gamma, f_max) * pinv_norm * math.sqrt(_psi(counts, w, beta))
    return theta + sigma * rng.standard_normal(theta.shape)


def clamped_output(
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
    """Private (post-processing). Values cannot leave [0, F]: the noisy θ is clamped to that range
    after the noise is added."""
    theta, sigma = _mean_and_sigma(dataset, n_states, features, gamma, r_max, epsilon, delta, weights, f_max)
    return np.clip(theta + sigma * rng.standard_normal(theta.shape), 0.0, _bound(r_max, gamma, f_max))


def half_alpha(
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
    """Private (less noise, still within the claim). Uses α/2 ("tighter constants"), so σ_X is halved.
    Lemma 1's conditions then hold with α/2 and the same β, and the exact worst-case δ(1) over every
    pair they allow is about 3e-6 <= 0.1 (truth.py): still (1, 0.1)-DP."""
    theta, sigma = _mean_and_sigma(dataset, n_states, features, gamma, r_max, epsilon, delta, weights, f_max)
    return theta + 0.5 * sigma * rng.standard_normal(theta.shape)


def unsquared_counts(
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
    """Private (more noise). Writes eq. (9) without the square: φ(k) = Σ_s w_s / max(|X_s| − k, 1).
    That φ is larger than the paper's, still decreasing in the counts, so its ψ is a β-smooth upper
    bound of a larger sensitivity bound: Lemma 1 still applies, with more noise."""
    phi, w, pinv_norm = _setup(n_states, features, weights)
    counts, means = _statistics(dataset, n_states, gamma)
    theta = _theta(phi, w, means)
    alpha, beta = _constants(epsilon, delta, phi.shape[1])
    psi = max(
        math.exp(-k * beta) * float(np.sum(w / np.maximum(counts - k, 1.0))) for k in range(int(counts.max()) + 1)
    )
    sigma = alpha * _bound(r_max, gamma, f_max) * pinv_norm * math.sqrt(psi)
    return theta + sigma * rng.standard_normal(theta.shape)


def averaged_over_all_trajectories(
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
    """Private (a different, less sensitive estimate). Averages returns over all m trajectories
    (unvisited counts as 0) instead of over X_s. Each coordinate then moves by at most F/m <= F/|X_s|,
    so Corollary 3's bound and σ_X from Algorithm 1 still cover it."""
    phi, w, pinv_norm = _setup(n_states, features, weights)
    counts, means = _statistics(dataset, n_states, gamma)
    theta = _theta(phi, w, means * counts / len(dataset))
    alpha, beta = _constants(epsilon, delta, phi.shape[1])
    sigma = alpha * _bound(r_max, gamma, f_max) * pinv_norm * math.sqrt(_psi(counts, w, beta))
    return theta + sigma * rng.standard_normal(theta.shape)


def k_up_to_m(
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
    """Private (equivalent code). Maximises over 0 <= k <= m instead of K_X: for k >= K_X − 1,
    φ(k) = Σ w_s (Lemma 5) and e^{−kβ} decreases, so ψ is unchanged."""
    phi, w, pinv_norm = _setup(n_states, features, weights)
    counts, means = _statistics(dataset, n_states, gamma)
    theta = _theta(phi, w, means)
    alpha, beta = _constants(epsilon, delta, phi.shape[1])
    psi = max(
        math.exp(-k * beta) * float(np.sum(w / np.maximum(counts - k, 1.0) ** 2)) for k in range(len(dataset) + 1)
    )
    sigma = alpha * _bound(r_max, gamma, f_max) * pinv_norm * math.sqrt(psi)
    return theta + sigma * rng.standard_normal(theta.shape)


# --------------------------------------------------------------------------- leaky


def unsmoothed_sensitivity(
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
    """Leaky. BUG: no smoothing, ψ = φ(0) (the local bound of Corollary 3 itself). Condition (b)
    fails: X = two trajectories through all six states, X' = one of them and one that visits a
    single state, give φ = 1.5 against 5.25, a variance ratio of 3.5 in d = 3; on that pair alone
    δ(1) = 0.39, and ε >= 5.07 at δ = 0.1 (truth.py)."""
    phi, w, pinv_norm = _setup(n_states, features, weights)
    counts, means = _statistics(dataset, n_states, gamma)
    theta = _theta(phi, w, means)
    alpha, _ = _constants(epsilon, delta, phi.shape[1])
    local = float(np.sum(w / np.maximum(counts, 1.0) ** 2))
    sigma = alpha * _bound(r_max, gamma, f_max) * pinv_norm * math.sqrt(local)
    return theta + sigma * rng.standard_normal(theta.shape)


def skips_noise_for_many_trajectories(
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
    """Leaky. BUG: "with 50 or more trajectories the noise is negligible", so θ_X is returned
    exactly: an atom, ε = inf (two neighbouring datasets of 50 trajectories with different θ)."""
    theta, sigma = _mean_and_sigma(dataset, n_states, features, gamma, r_max, epsilon, delta, weights, f_max)
    if len(dataset) >= 50:
        return theta
    return theta + sigma * rng.standard_normal(theta.shape)


def one_noise_draw_for_all_coordinates(
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
    """Leaky. BUG: ``rng.normal(0, σ)`` without a size: one scalar is added to every coordinate, so the
    differences θ_i − θ_j are released exactly (ε = inf whenever neighbours differ in them)."""
    theta, sigma = _mean_and_sigma(dataset, n_states, features, gamma, r_max, epsilon, delta, weights, f_max)
    return theta + rng.normal(0.0, sigma)


def return_bound_from_data(
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
    """Leaky. BUG: replaces the public F_max by the largest return observed in the data (the paper warns
    that F_max must not come from private data). A dataset with only zero rewards gets σ = 0 and θ = 0
    is released exactly, while a neighbour with one reward is noisy: ε = inf."""
    phi, w, pinv_norm = _setup(n_states, features, weights)
    counts, means = _statistics(dataset, n_states, gamma)
    observed = max((max(_first_visit_returns(x, gamma).values(), default=0.0) for x in dataset), default=0.0)
    theta = _theta(phi, w, means)
    alpha, beta = _constants(epsilon, delta, phi.shape[1])
    sigma = alpha * observed * pinv_norm * math.sqrt(_psi(counts, w, beta))
    return theta + sigma * rng.standard_normal(theta.shape)


def psi_not_square_rooted(
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
    """Leaky. BUG: σ_X = α F ‖(Γ^{1/2}Φ)^†‖ ψ (ψ where √ψ belongs). Harmless for small datasets
    (ψ >= 1), but ψ shrinks like 1/m² on large ones: with m = 1000 trajectories through all states,
    σ is 400 times too small and one changed return moves θ by 33 σ: ε >= 598 at δ = 0.1 (truth.py)."""
    phi, w, pinv_norm = _setup(n_states, features, weights)
    counts, means = _statistics(dataset, n_states, gamma)
    theta = _theta(phi, w, means)
    alpha, beta = _constants(epsilon, delta, phi.shape[1])
    sigma = alpha * _bound(r_max, gamma, f_max) * pinv_norm * _psi(counts, w, beta)
    return theta + sigma * rng.standard_normal(theta.shape)


def alpha_left_out(
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
    """Leaky. BUG: computes α but leaves it out of σ_X (σ = F ‖(Γ^{1/2}Φ)^†‖ √ψ). One trajectory
    through all six states with rewards (0.05, ..., 0.05, 1) (every return 1) against one with zero
    rewards: θ moves by √3 = σ, a Gaussian with μ = 1, so ε >= 1.160 at δ = 0.1."""
    theta, sigma = _mean_and_sigma(dataset, n_states, features, gamma, r_max, epsilon, delta, weights, f_max)
    alpha, _ = _constants(epsilon, delta, theta.size)
    return theta + (sigma / alpha) * rng.standard_normal(theta.shape)


def fixed_seed(
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
    """Leaky. BUG: draws the noise from ``np.random.default_rng(7)`` instead of ``rng``: the noise
    vector is public, θ_X = release − noise (ε = inf)."""
    theta, sigma = _mean_and_sigma(dataset, n_states, features, gamma, r_max, epsilon, delta, weights, f_max)
    return theta + sigma * np.random.default_rng(7).standard_normal(theta.shape)
