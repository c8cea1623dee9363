"""How the truth labels and true epsilons of the corpus were computed (independently of dpaudit).

Run ``python truth.py`` from this folder to print every number the manifest quotes. Nothing here
imports dpaudit: the formulas are the textbook ones, evaluated with scipy/mpmath.

* Gaussian mechanism, shift Δ, noise σ: the exact privacy profile of Balle & Wang 2018 (Thm 8),
  δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) with μ = Δ/σ, in mpmath.
* Two Gaussians with different variances, N(0, I_d) against N(a e_1, s² I_d): the privacy-loss
  event is a ball or the outside of one, so both probabilities are non-central χ² tails (scipy).
  Used for the smooth-sensitivity mechanisms (Balle et al. 2016, Lemma 1): the worst case over
  ‖μ_X − μ_X'‖ ≤ min(σ_X, σ_X')/α and |ln σ_X² − ln σ_X'²| ≤ β is a 2-parameter maximisation.
* Dirichlet mechanism on the 2-simplex (Gohari et al. 2020, Sec. II-D): the output's first
  coordinate is Beta(k p_1, k p_2) and the privacy loss is monotone in it, so δ(ε) is a
  difference of Beta tails; the worst b-adjacent pair is found on a grid of the domain p_i >= η.
* One Poisson-subsampled Gaussian step (Xie et al. 2019): along the direction of the replaced
  record the two output laws are one-dimensional Gaussian mixtures; δ(ε) = ∫ (p − e^ε q)_+ by
  quadrature on a fine grid.
* Laplace: ε = Δ/b exactly (Dwork & Roth 2014, Thm 3.6).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath
import numpy as np
from scipy import optimize, stats

mpmath.mp.dps = 40


# --- Gaussian mechanism (Balle & Wang 2018) -------------------------------------------------


def gaussian_delta(epsilon: float, mu: float) -> float:
    """Exact δ(ε) of N(0, 1) against N(μ, 1) (either order)."""
    eps, m = mpmath.mpf(epsilon), mpmath.mpf(mu)
    value = mpmath.ncdf(m / 2 - eps / m) - mpmath.exp(eps) * mpmath.ncdf(-m / 2 - eps / m)
    return float(value)


def solve_epsilon(delta_of: Callable[[float], float], delta: float, high: float = 200.0) -> float:
    """The smallest ε with δ(ε) <= delta (δ(ε) is non-increasing); inf if none below ``high``."""
    if delta_of(0.0) <= delta:
        return 0.0
    if delta_of(high) > delta:
        return math.inf
    return float(optimize.brentq(lambda e: delta_of(e) - delta, 0.0, high, xtol=1e-12, rtol=1e-12))


def gaussian_epsilon(delta: float, mu: float) -> float:
    """Exact ε at δ of the Gaussian mechanism with Δ/σ = μ."""
    return solve_epsilon(lambda e: gaussian_delta(e, mu), delta, high=1e4)


# --- Two Gaussians with different variances (smooth-sensitivity mechanisms) ----------------


def _chi2_side(threshold: np.ndarray, dof: int, *, upper: bool) -> np.ndarray:
    """P[χ²_dof > t] (upper) or P[χ²_dof < t], elementwise; χ²_0 is the point mass at 0."""
    if dof == 0:
        return (threshold < 0).astype(float) if upper else (threshold > 0).astype(float)
    return stats.chi2.sf(threshold, dof) if upper else stats.chi2.cdf(threshold, dof)


def gaussian_pair_delta(epsilon: float, dim: int, shift: float, ratio: float) -> float:
    """δ(ε) = sup_E P(E) − e^ε Q(E) for P = N(0, I_d), Q = N(shift e_1, ratio² I_d) (this order).

    With u = y_1 and R = ‖y_2..d‖², the privacy loss is
    L = d ln s + κ (u² + R) − (a / s²) u + a² / (2 s²), κ = (1/s² − 1)/2, so the optimal event
    {L > ε} is {κ R > g(u)}; both probabilities are 1-d integrals of χ²_{d−1} tails over u.
    """
    if abs(ratio - 1.0) < 1e-14:
        return gaussian_delta(epsilon, shift) if shift > 0 else 0.0
    s2 = ratio * ratio
    kappa = (1.0 / s2 - 1.0) / 2.0
    upper = kappa > 0

    def g(u: np.ndarray) -> np.ndarray:
        return epsilon - dim * math.log(ratio) - kappa * u**2 + (shift / s2) * u - shift**2 / (2.0 * s2)

    v = np.linspace(-14.0, 14.0, 280_001)  # standard normal coordinate
    density = stats.norm.pdf(v)
    p = np.trapezoid(density * _chi2_side(g(v) / kappa, dim - 1, upper=upper), v)
    u_q = shift + ratio * v
    q = np.trapezoid(density * _chi2_side(g(u_q) / (kappa * s2), dim - 1, upper=upper), v)
    return max(0.0, float(p - math.exp(epsilon) * q))


def gaussian_pair_delta_both(epsilon: float, dim: int, mean_distance: float, sigma_x: float, sigma_y: float) -> float:
    """δ(ε) of N(μ, σ_x² I) against N(μ', σ_y² I), ‖μ − μ'‖ = mean_distance, maximised over both orders."""
    forward = gaussian_pair_delta(epsilon, dim, mean_distance / sigma_x, sigma_y / sigma_x)
    backward = gaussian_pair_delta(epsilon, dim, mean_distance / sigma_y, sigma_x / sigma_y)
    return max(forward, backward)


def lemma1_worst_delta(epsilon: float, dim: int, alpha: float, beta: float, grid: int = 21) -> float:
    """Worst δ(ε) over every pair allowed by Lemma 1's conditions (a) σ >= α ‖Δμ‖ (both σ's),
    (b) |ln σ_X² − ln σ_X'²| <= β; σ_X = 1 by scaling, both orders covered by the ratio range."""
    worst = 0.0
    for log_ratio in np.linspace(-beta / 2, beta / 2, grid):
        ratio = math.exp(log_ratio)
        top = min(1.0, ratio) / alpha
        for shift in np.linspace(0.0, top, grid):
            worst = max(worst, gaussian_pair_delta(epsilon, dim, float(shift), ratio))
    return worst


# --- Dirichlet mechanism on the 2-simplex (Beta) -------------------------------------------


def beta_params_delta(epsilon: float, first: tuple[float, float], second: tuple[float, float]) -> float:
    """δ(ε) of Beta(a, b) against Beta(a', b') with a − a' = −(b − b') (this order).

    The privacy loss is const + (a − a') ln(x / (1 − x)): monotone in x, so the optimal event
    is the tail {L > ε} = {x > x*} or {x < x*}.
    """
    (a, b), (a2, b2) = first, second
    slope = a - a2
    if abs(slope - (b2 - b)) > 1e-9 * max(1.0, abs(slope)):
        raise ValueError("the privacy loss is monotone in x only when a - a' = b' - b")
    if slope == 0:
        return 0.0
    const = (
        math.lgamma(a2)
        + math.lgamma(b2)
        - math.lgamma(a2 + b2)
        - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b))
    )
    cut = (epsilon - const) / slope  # L > ε  <=>  slope * logit(x) > ε - const
    x_star = 1.0 / (1.0 + math.exp(-cut))
    p_law, q_law = stats.beta(a, b), stats.beta(a2, b2)
    if slope > 0:
        p, q = p_law.sf(x_star), q_law.sf(x_star)
    else:
        p, q = p_law.cdf(x_star), q_law.cdf(x_star)
    return max(0.0, float(p - math.exp(epsilon) * q))


def beta_pair_delta(epsilon: float, k: float, p1: float, q1: float, pseudo_count: float = 0.0) -> float:
    """δ(ε) of the Dirichlet mechanism Dir(k p + c) on the 2-simplex at inputs (p1, 1 − p1), (q1, 1 − q1),
    both orders (c = ``pseudo_count``, 0 for the mechanism itself)."""
    first = (k * p1 + pseudo_count, k * (1 - p1) + pseudo_count)
    second = (k * q1 + pseudo_count, k * (1 - q1) + pseudo_count)
    return max(beta_params_delta(epsilon, first, second), beta_params_delta(epsilon, second, first))


def dirichlet_worst_delta(
    epsilon: float, k: float, eta: float, b: float, grid: int = 401, pseudo_count: float = 0.0
) -> tuple[float, float]:
    """Worst δ(ε) over b-adjacent pairs of the 2-simplex with both coordinates >= η.

    On the 2-simplex b-adjacency moves p_1 by at most b/2. For a fixed p_1 the divergence
    grows with the move, so the move is b/2 (checked on the grid); both orders are taken.
    Returns (δ, p_1 of the worst pair).
    """
    best, where = 0.0, eta
    step = b / 2
    for p1 in np.linspace(eta, 1 - eta - step, grid):
        q1 = float(p1 + step)
        value = beta_pair_delta(epsilon, k, float(p1), q1, pseudo_count)
        if value > best:
            best, where = value, float(p1)
    return best, where


# --- One Poisson-subsampled Gaussian step (1-d mixtures) -----------------------------------


def mixture_delta(
    epsilon: float, p_components: list[tuple[float, float]], q_components: list[tuple[float, float]]
) -> float:
    """δ(ε) of two 1-d Gaussian mixtures with unit variance, given as [(weight, mean), ...]; both orders."""
    grid = np.linspace(-40.0, 40.0, 800_001)
    p = sum(w * stats.norm.pdf(grid, loc=m) for w, m in p_components)
    q = sum(w * stats.norm.pdf(grid, loc=m) for w, m in q_components)
    factor = math.exp(epsilon)
    forward = np.trapezoid(np.maximum(p - factor * q, 0.0), grid)
    backward = np.trapezoid(np.maximum(q - factor * p, 0.0), grid)
    return float(max(forward, backward))


def poisson_step_delta(epsilon: float, q: float, shift: float) -> float:
    """Replace-one, Poisson rate q: the record's clipped gradient goes from +shift to −shift
    (in units of the noise std) around the common sum: (1−q)N(0) + qN(+s) against (1−q)N(0) + qN(−s)."""
    return mixture_delta(epsilon, [(1 - q, 0.0), (q, shift)], [(1 - q, 0.0), (q, -shift)])


def uniform_one_step_delta(epsilon: float, q: float, shift: float) -> float:
    """One record drawn uniformly (q = 1/m): the other records at −shift/2, the replaced one moves
    from +shift/2 to −shift/2: (1−q)N(−s/2) + qN(s/2) against N(−s/2) (a valid instance)."""
    return mixture_delta(epsilon, [(1 - q, -shift / 2), (q, shift / 2)], [(1.0, -shift / 2)])


# --- The numbers quoted in the manifest -------------------------------------------------------


def _lsw_view(dataset, variant="paper"):
    """(θ, σ) of DP-LSW on the dp_lsw spec (6 states, aggregation:2, γ = 0.95, F_max = 1, ε = 1,
    δ = 0.1), written out here independently of the candidates; ``variant`` changes σ as a bug does."""
    n_states, gamma, epsilon, delta = 6, 0.95, 1.0, 0.1
    phi = np.zeros((n_states, 3))
    phi[np.arange(n_states), np.arange(n_states) // 2] = 1.0
    counts, sums = np.zeros(n_states), np.zeros(n_states)
    for trajectory in dataset:
        returns = {}
        for t, (s, _, _) in enumerate(trajectory):
            if s not in returns:
                returns[s] = sum(gamma ** (u - t) * trajectory[u][2] for u in range(t, len(trajectory)))
        for s, value in returns.items():
            counts[s] += 1
            sums[s] += value
    means = np.divide(sums, counts, out=np.zeros(n_states), where=counts > 0)
    theta = np.linalg.solve(phi.T @ phi, phi.T @ means)
    alpha = 5 * math.sqrt(2 * math.log(2 / delta)) / epsilon
    beta = epsilon / (4 * (3 + math.log(2 / delta)))
    pinv_norm = 1 / np.linalg.svd(phi, compute_uv=False).min()
    phis = [float(np.sum(1 / np.maximum(counts - k, 1) ** 2)) for k in range(int(counts.max()) + 1)]
    psi = max(math.exp(-k * beta) * value for k, value in enumerate(phis))
    if variant == "unsmoothed":
        return theta, alpha * pinv_norm * math.sqrt(phis[0])
    if variant == "psi":
        return theta, alpha * pinv_norm * psi
    if variant == "no_alpha":
        return theta, pinv_norm * math.sqrt(psi)
    return theta, alpha * pinv_norm * math.sqrt(psi)


def _pair_epsilon(first, second, delta, dim):
    distance = float(np.linalg.norm(first[0] - second[0]))
    if math.isclose(first[1], second[1], rel_tol=1e-12):
        return gaussian_epsilon(delta, distance / first[1])
    return solve_epsilon(lambda e: gaussian_pair_delta_both(e, dim, distance, first[1], second[1]), delta, 500.0)


def _report() -> None:  # pragma: no cover - a script
    print("== gaussian spec: sigma = 2, sensitivity 1 (mu = 0.5), 2-d query, delta = 1e-5, claim 2.0")
    for label, mu in [
        ("reference", 0.5),
        ("more_noise: 1.25 sigma", 0.5 / 1.25),
        ("sigma_3pct_small", 0.5 / 0.97),
        ("sigma_read_as_variance: std sqrt(2)", 1 / math.sqrt(2.0)),
        ("rounded_input: L2 sensitivity 2", 1.0),
    ]:
        print(f"  {label:40s} eps = {gaussian_epsilon(1e-5, mu):.6f}")
    # relative_noise: f = (1, 0) vs (2, 0): coordinate 1 has std 2 vs 4, the shift is 1
    bound = solve_epsilon(lambda e: gaussian_pair_delta_both(e, 1, 1.0, 2.0, 4.0), 1e-5)
    print(f"  {'relative_noise: lower bound on (1,0)-(2,0)':40s} eps >= {bound:.6f}")

    print("== laplace spec: scale 2, L1 sensitivity 2: eps = sensitivity / scale")
    for label, value in [
        ("reference", 2 / 2),
        ("more_noise: scale 3", 2 / 3),
        ("sensitivity_split_across_bins: scale 1", 2 / 1),
        ("scale_10pct_small: scale 1.8", 2 / 1.8),
        ("rounded_input: sensitivity 4", 4 / 2),
    ]:
        print(f"  {label:40s} eps = {value:.6f}")

    print("== dirichlet spec: k = 8, eta = 0.1, b = 0.1, delta = 0.01, claim 1.59")
    eta, b, delta = 0.1, 0.1, 1e-2

    def worst(k, pseudo=0.0):
        return lambda e: dirichlet_worst_delta(e, k, eta, b, grid=601, pseudo_count=pseudo)[0]

    for label, k, pseudo in [
        ("reference k = 8", 8.0, 0.0),
        ("smaller_k: k = 7", 7.0, 0.0),
        ("pseudo_count: Dir(8p + 1)", 8.0, 1.0),
        ("k_plus_one: k = 9", 9.0, 0.0),
        ("k_per_coordinate: k = 16", 16.0, 0.0),
    ]:
        print(f"  {label:40s} eps = {solve_epsilon(worst(k, pseudo), delta, 40.0):.6f}")
    print(f"  worst pair for k = 8 at p1 = {dirichlet_worst_delta(1.59, 8.0, eta, b, grid=601)[1]:.4f} (and p1 + 0.05)")
    atom = 1e-3
    reference = worst(8.0)
    with_atom = solve_epsilon(lambda e: atom + (1 - atom) * reference(e), delta)
    print(f"  {'exact_once_in_a_thousand':40s} eps = {with_atom:.6f}")
    reachable = set()
    for p1 in np.linspace(eta, 1 - eta - b / 2, 15001):
        for move in np.linspace(0.0, b / 2, 51):
            q1 = p1 + move
            first, second = np.round(25 * p1) / 25, np.round(25 * q1) / 25
            if first != second:
                reachable.add((float(first), float(second)))
    rounded = solve_epsilon(lambda e: max(beta_pair_delta(e, 8.0, a, c) for a, c in reachable), delta, 40.0)
    print(f"  {'quantised_input: round(25p)/25':40s} eps = {rounded:.6f} over {len(reachable)} rounded pairs")

    print("== gpope_step spec: m = 8 (q = 1/8), h = 2, sigma = 1, delta = 1e-3, claim 0.95 (units of h sigma)")
    q = 1 / 8
    for label, f in [
        ("reference: +-h", lambda e: poisson_step_delta(e, q, 1.0)),
        ("more_noise: 1.5 sigma", lambda e: poisson_step_delta(e, q, 1 / 1.5)),
        ("clips_to_twice_h / noise_not_scaled_by_h", lambda e: poisson_step_delta(e, q, 2.0)),
        ("sampling_rate_doubled: q = 1/4", lambda e: poisson_step_delta(e, 2 * q, 1.0)),
        ("ignores_sampling_parameter (instance)", lambda e: uniform_one_step_delta(e, q, 2.0)),
    ]:
        print(f"  {label:40s} eps = {solve_epsilon(f, 1e-3, 60.0):.6f}")
    print(f"  {'full_batch: Gaussian mu = 2':40s} eps = {gaussian_epsilon(1e-3, 2.0):.6f}")

    print("== dp_lsw spec: 6 states, aggregation:2 (d = 3), gamma 0.95, F_max 1, eps 1, delta 0.1")
    alpha = 5 * math.sqrt(2 * math.log(20.0))
    beta = 1 / (4 * (3 + math.log(20.0)))
    print(f"  alpha = {alpha:.6f}, beta = {beta:.6f}")
    for factor in (1.0, 0.5, 1 / 8):
        print(
            f"  Lemma 1 worst delta(1) at alpha * {factor:.3f}: {lemma1_worst_delta(1.0, 3, alpha * factor, beta):.3e}"
        )
    everywhere = [[s, 0, 0.0] for s in range(6)]
    alone = [[0, 0, 0.0]]
    first = _lsw_view([everywhere, everywhere], "unsmoothed")
    second = _lsw_view([everywhere, alone], "unsmoothed")
    print(f"  unsmoothed: sigma {first[1]:.4f} vs {second[1]:.4f}; eps >= {_pair_epsilon(first, second, 0.1, 3):.4f}")
    rewarded = [[s, 0, 0.05 if s < 5 else 1.0] for s in range(6)]
    first, second = _lsw_view([rewarded], "no_alpha"), _lsw_view([everywhere], "no_alpha")
    print(
        f"  alpha_left_out: returns {first[0]}, sigma {first[1]:.4f}; eps >= {_pair_epsilon(first, second, 0.1, 3):.4f}"
    )
    many = [everywhere] * 1000
    first, second = _lsw_view(many, "psi"), _lsw_view([rewarded, *many[1:]], "psi")
    print(f"  psi_not_square_rooted: m = 1000, sigma {first[1]:.3e}; eps >= {_pair_epsilon(first, second, 0.1, 3):.2f}")

    print("== dp_lsl spec: 5 states, tabular (d = 5), gamma 0.95, F_max 1, lambda 5, eps 1, delta 0.1")
    beta5 = 1 / (4 * (5 + math.log(20.0)))
    c, r = 1 / math.sqrt(10.0), math.sqrt(5.0)
    print(f"  Lemma 1 worst delta(1) at alpha: {lemma1_worst_delta(1.0, 5, alpha, beta5):.3e}")
    ratio = (c * math.sqrt(5) + r) ** 2 / (c + r) ** 2
    unsmoothed = lemma1_worst_delta(1.0, 5, alpha, math.log(ratio))
    print(f"  unsmoothed: variance ratio <= {ratio:.4f}; worst delta(1) {unsmoothed:.4f}")
    ratios = []
    for m in range(1, 400):
        low = (c * math.sqrt(5 * m) + r) ** 2
        high = max(math.exp(-k * beta5) * (c * math.sqrt(5 * (m + k)) + r) ** 2 for k in range(m + 1))
        ratios.append(high / low)
    top = max(ratios)
    print(
        f"  saturation_max: variance ratio <= {top:.4f} (m = {1 + ratios.index(top)}); "
        f"worst delta(1) {lemma1_worst_delta(1.0, 5, alpha, math.log(top)):.4f}"
    )
    sigma_min = 2 * alpha * r / 4
    print(
        f"  variance_used_as_std: sigma_X >= {sigma_min:.3f}; worst delta(1) "
        f"{lemma1_worst_delta(1.0, 5, alpha * sigma_min, 2 * beta5):.3e}"
    )


if __name__ == "__main__":
    _report()
