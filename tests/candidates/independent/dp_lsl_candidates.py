"""DP-LSL candidates (Balle, Gomrokchi, Precup 2016, Algorithm 2).

``fn(dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None,
constant_set="main_text", saturation="min", rng)``; a dataset is a list of trajectories, each a
list of [state, action, reward] triples.

Algorithm 2, written from the paper:

* first-visit returns F_{x,s} and their means F_X(s) over the trajectories visiting s, eq. (4);
  Γ_X = diag(ρ_s |X_s| / m);
* θ_X = (Φᵀ Γ_X Φ + λ/(2m) I)⁻¹ Φᵀ Γ_X F_X, eq. (11);
* α = 5 √(2 ln(2/δ)) / ε, β = ε / (4 (d + ln(2/δ)));
* c_λ = ‖Φ‖ ‖ρ‖_∞ / √(2λ), φ(k) = (c_λ √(Σ_s ρ_s min(|X_s| + k, m)) + ‖ρ‖_2)², eq. (12);
  ψ = max_{0 <= k <= m} e^{−kβ} φ(k);
* σ_X = 2 α F ‖Φ‖ √ψ / (λ − ‖Φ‖² ‖ρ‖_∞), F = R_max/(1 − γ) or the public F_max;
* release θ_X + N(0, σ_X² I_d).

The spec ``specs/dp_lsl.toml`` audits a 5-state chain, tabular features, γ = 0.95, R_max = 1,
F_max = 1, λ = 5, against the claim (1, 0.1)-DP (Theorem 10). As for DP-LSW the main-text
constants leave a wide margin (truth.py), so several deviations from the algorithm are private.
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
        phi = np.zeros((n_states, -(-n_states // group)))
        phi[np.arange(n_states), np.arange(n_states) // group] = 1.0
        return phi
    return np.asarray(features, dtype=np.float64)


def _statistics(dataset, n_states, gamma):
    """|X_s| and the mean first-visit return F_X(s) of every state (0 where unvisited)."""
    counts = np.zeros(n_states)
    sums = np.zeros(n_states)
    for trajectory in dataset:
        seen = set()
        # walk forwards, remembering each first visit; its return is the discounted suffix sum
        rewards = [float(step[2]) for step in trajectory]
        suffix = np.zeros(len(rewards) + 1)
        for t in range(len(rewards) - 1, -1, -1):
            suffix[t] = rewards[t] + gamma * suffix[t + 1]
        for t, step in enumerate(trajectory):
            s = int(step[0])
            if s in seen:
                continue
            seen.add(s)
            counts[s] += 1
            sums[s] += suffix[t]
    means = np.divide(sums, counts, out=np.zeros(n_states), where=counts > 0)
    return counts, means


class _Setup:
    def __init__(self, n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max):
        self.phi = _features(features, n_states)
        self.rho = np.ones(n_states) if rho is None else np.asarray(rho, dtype=np.float64)
        self.d = self.phi.shape[1]
        self.lam = float(lam)
        self.phi_norm = float(np.linalg.norm(self.phi, 2))
        self.rho_inf = float(np.max(self.rho))
        self.rho_two = float(np.linalg.norm(self.rho))
        if self.lam <= self.phi_norm**2 * self.rho_inf:
            raise ValueError("lambda must exceed ||Phi||^2 ||rho||_inf")
        self.alpha = 5.0 * math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon
        self.beta = epsilon / (4.0 * (self.d + math.log(2.0 / delta)))
        self.c_lambda = self.phi_norm * self.rho_inf / math.sqrt(2.0 * self.lam)
        self.bound = float(f_max) if f_max is not None else r_max / (1.0 - gamma)
        self.gamma = gamma
        self.n_states = n_states

    def theta(self, counts, means, m):
        weights = self.rho * counts / m
        gram = self.phi.T @ (weights[:, None] * self.phi) + self.lam / (2.0 * m) * np.eye(self.d)
        return np.linalg.solve(gram, self.phi.T @ (weights * means))

    def phi_k(self, counts, m, k, saturation="min"):
        capped = np.minimum(counts + k, m) if saturation == "min" else np.maximum(counts + k, m)
        return (self.c_lambda * math.sqrt(float(np.sum(self.rho * capped))) + self.rho_two) ** 2

    def psi(self, counts, m, saturation="min"):
        return max(math.exp(-k * self.beta) * self.phi_k(counts, m, k, saturation) for k in range(m + 1))

    def scale(self):
        return 2.0 * self.alpha * self.bound * self.phi_norm / (self.lam - self.phi_norm**2 * self.rho_inf)

    def view(self, dataset, saturation="min"):
        counts, means = _statistics(dataset, self.n_states, self.gamma)
        m = len(dataset)
        return self.theta(counts, means, m), self.scale() * math.sqrt(self.psi(counts, m, saturation))


# --------------------------------------------------------------------------- private


def paper_loops(
    dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None,
    constant_set="main_text", saturation="min", rng,
):  # fmt: skip
    """Private. Algorithm 2 as printed (eq. (12) with the min), ψ by a loop over k = 0..m."""
    if constant_set != "main_text":
        raise ValueError("only the main-text constants are implemented")
    setup = _Setup(n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max)
    theta, sigma = setup.view(dataset, saturation)
    return theta + sigma * rng.standard_normal(theta.shape)


class vectorised:  # a callable class with a ``sample`` attribute, named like a function
    """Private. Algorithm 2 with ψ over all k at once (numpy) and a vectorised ``sample`` entry point."""

    @staticmethod
    def _view(dataset, n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max):
        setup = _Setup(n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max)
        counts, means = _statistics(dataset, n_states, gamma)
        m = len(dataset)
        ks = np.arange(m + 1)
        totals = (setup.rho[None, :] * np.minimum(counts[None, :] + ks[:, None], m)).sum(axis=1)
        phis = (setup.c_lambda * np.sqrt(totals) + setup.rho_two) ** 2
        psi = float(np.max(np.exp(-setup.beta * ks) * phis))
        return setup.theta(counts, means, m), setup.scale() * math.sqrt(psi)

    def __new__(
        cls, dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None,
        constant_set="main_text", saturation="min", rng,
    ):  # fmt: skip
        theta, sigma = cls._view(dataset, n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max)
        return theta + sigma * rng.standard_normal(theta.shape)

    @staticmethod
    def sample(
        dataset, n, *, rng, n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None,
        constant_set="main_text", saturation="min",
    ):  # fmt: skip
        theta, sigma = vectorised._view(dataset, n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max)
        return theta[None, :] + sigma * rng.standard_normal((n, theta.size))


def saturation_max(
    dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None,
    constant_set="main_text", saturation="min", rng,
):  # fmt: skip
    """Private (more noise). Follows Corollary 8 / Lemma 9 as printed, max{|X_s| + k, m} instead of
    eq. (12)'s min, whatever ``saturation`` says. Every φ(k) is at least the min version's, so
    condition (a) holds; ψ only takes values between (c√(mΣρ) + ‖ρ‖)² and
    max_k e^{−kβ}(c√((m + k)Σρ) + ‖ρ‖)², a variance ratio of at most 1.20 between any two datasets
    of the same size, and the worst δ(1) over such pairs is 0.003 <= 0.1 (truth.py)."""
    setup = _Setup(n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max)
    theta, sigma = setup.view(dataset, "max")
    return theta + sigma * rng.standard_normal(theta.shape)


def variance_used_as_std(
    dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None,
    constant_set="main_text", saturation="min", rng,
):  # fmt: skip
    """Private (more noise, by luck). Draws the noise with standard deviation σ_X² (a variance/std
    slip). Here σ_X >= 2 α F ‖Φ‖ ‖ρ‖_2 / (λ − ‖Φ‖²‖ρ‖_∞) = 13.7 for every dataset, so σ_X² >= 13.7 σ_X:
    condition (a) holds with 13.7 α and (b) with 2β, far inside the claim (truth.py)."""
    setup = _Setup(n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max)
    theta, sigma = setup.view(dataset, saturation)
    return theta + sigma**2 * rng.standard_normal(theta.shape)


def unsmoothed_sensitivity(
    dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None,
    constant_set="main_text", saturation="min", rng,
):  # fmt: skip
    """Private (breaks the proof, not the claim). No smoothing: ψ = φ(0). Replacing one trajectory
    changes Σ_s ρ_s |X_s| by at most 4, so the variance ratio between neighbours is at most
    (c√5 + √5)² / (c + √5)² = 1.33 (m = 1); the worst δ(1) with condition (a) and that ratio is
    0.020 <= 0.1 (truth.py): still (1, 0.1)-DP at this λ."""
    setup = _Setup(n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max)
    counts, means = _statistics(dataset, n_states, gamma)
    m = len(dataset)
    sigma = setup.scale() * math.sqrt(setup.phi_k(counts, m, 0))
    theta = setup.theta(counts, means, m)
    return theta + sigma * rng.standard_normal(theta.shape)


def rounded_output(
    dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None,
    constant_set="main_text", saturation="min", rng,
):  # fmt: skip
    """Private (post-processing). The noisy θ is rounded to 3 decimals."""
    setup = _Setup(n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max)
    theta, sigma = setup.view(dataset, saturation)
    return np.round(theta + sigma * rng.standard_normal(theta.shape), 3)


# --------------------------------------------------------------------------- leaky


def skips_noise_for_many_trajectories(
    dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None,
    constant_set="main_text", saturation="min", rng,
):  # fmt: skip
    """Leaky. BUG: returns θ_X without noise once m >= 50 ("the ridge estimate is stable enough"):
    an atom at θ_X, ε = inf."""
    setup = _Setup(n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max)
    theta, sigma = setup.view(dataset, saturation)
    if len(dataset) >= 50:
        return theta
    return theta + sigma * rng.standard_normal(theta.shape)


def one_noise_draw_for_all_coordinates(
    dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None,
    constant_set="main_text", saturation="min", rng,
):  # fmt: skip
    """Leaky. BUG: a single scalar N(0, σ²) draw is broadcast to every coordinate: the differences
    θ_i − θ_j are released exactly (ε = inf)."""
    setup = _Setup(n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max)
    theta, sigma = setup.view(dataset, saturation)
    return theta + sigma * rng.standard_normal()


def return_bound_from_data(
    dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None,
    constant_set="main_text", saturation="min", rng,
):  # fmt: skip
    """Leaky. BUG: F is the largest first-visit return seen in the data instead of the public F_max.
    Datasets with zero rewards are released without noise (θ = 0 exactly): ε = inf."""
    setup = _Setup(n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max)
    counts, means = _statistics(dataset, n_states, gamma)
    m = len(dataset)
    largest = 0.0
    for trajectory in dataset:
        rewards = [float(step[2]) for step in trajectory]
        suffix = 0.0
        for r in reversed(rewards):
            suffix = r + gamma * suffix
            largest = max(largest, suffix)
    setup.bound = largest
    theta = setup.theta(counts, means, m)
    sigma = setup.scale() * math.sqrt(setup.psi(counts, m, saturation))
    return theta + sigma * rng.standard_normal(theta.shape)


def fixed_seed(
    dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None,
    constant_set="main_text", saturation="min", rng,
):  # fmt: skip
    """Leaky. BUG: the noise comes from ``np.random.default_rng(2016)``, not from ``rng``: public
    noise, ε = inf."""
    setup = _Setup(n_states, features, gamma, r_max, lam, epsilon, delta, rho, f_max)
    theta, sigma = setup.view(dataset, saturation)
    return theta + sigma * np.random.default_rng(2016).standard_normal(theta.shape)
