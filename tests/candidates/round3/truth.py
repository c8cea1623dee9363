"""How the truth label and true epsilon of every round-3 candidate were computed (no dpaudit import).

``python truth.py`` prints every number the manifest quotes (about a minute). Formulas used:

* Gaussian mechanism with Δ/σ = μ: δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) (Balle & Wang 2018,
  Thm 8), in mpmath.
* Any two one-dimensional laws with densities and CDFs (two Gaussians of unequal variance, two Beta
  laws): δ(ε) = Σ over the intervals where p > e^ε q of P(I) − e^ε Q(I). The interval ends are the
  sign changes of ln p − ln q − ε, located on a fine grid and refined by brentq; the masses come from
  the CDFs, not from quadrature of the densities.
* A Poisson-subsampled Gaussian step (Xie et al. 2019, Alg. 1; the step's proof model): along the
  replaced record's direction the laws are (1 − q)N(0, 1) + qN(a, 1) against (1 − q)N(0, 1) + qN(b, 1);
  the likelihood ratio is monotone in x, so δ(ε) is a difference of mixture tails at the root.
* Laplace: ε = Δ₁/b (Dwork & Roth 2014, Thm 3.6).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath
import numpy as np
from scipy import optimize, special, stats

mpmath.mp.dps = 40


def solve_epsilon(delta_of: Callable[[float], float], delta: float, high: float = 200.0) -> float:
    """The smallest ε >= 0 with δ(ε) <= delta (δ non-increasing in ε); inf if none below ``high``."""
    if delta_of(0.0) <= delta:
        return 0.0
    if delta_of(high) > delta:
        return math.inf
    return float(optimize.brentq(lambda e: delta_of(e) - delta, 0.0, high, xtol=1e-12, rtol=1e-12))


# --- Gaussian mechanism ------------------------------------------------------------------------


def gaussian_delta(epsilon: float, mu: float) -> float:
    """Exact δ(ε) of N(0, 1) against N(μ, 1)."""
    eps, m = mpmath.mpf(epsilon), mpmath.mpf(mu)
    return float(mpmath.ncdf(m / 2 - eps / m) - mpmath.exp(eps) * mpmath.ncdf(-m / 2 - eps / m))


def gaussian_epsilon(delta: float, mu: float) -> float:
    return solve_epsilon(lambda e: gaussian_delta(e, mu), delta, high=1e4)


def analytic_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """The smallest σ with δ_Gauss(ε; Δ/σ) <= δ (bisection on μ; δ increases with μ)."""
    mu = optimize.brentq(lambda m: gaussian_delta(epsilon, m) - delta, 1e-6, 50.0, xtol=1e-14)
    return sensitivity / mu


# --- One-dimensional laws with CDFs -------------------------------------------------------------


class Law:
    """A one-dimensional law: log-density, CDF, survival function and its support's grid."""

    def __init__(self, logpdf, cdf, sf, grid):
        self.logpdf, self.cdf, self.sf, self.grid = logpdf, cdf, sf, grid


def normal_law(mean: float, std: float) -> Law:
    grid = np.linspace(-60.0, 60.0, 40001) * std + mean
    dist = stats.norm(mean, std)
    return Law(dist.logpdf, dist.cdf, dist.sf, grid)


def beta_law(a: float, b: float) -> Law:
    logit = np.linspace(-60.0, 60.0, 40001)
    grid = special.expit(logit)
    dist = stats.beta(a, b)
    return Law(dist.logpdf, dist.cdf, dist.sf, grid)


def hockey_stick(p: Law, q: Law, epsilon: float) -> float:
    """δ(ε) = sup_A P(A) − e^ε Q(A) for two laws on a common support (grid = p's grid)."""
    grid = np.unique(np.concatenate([p.grid, q.grid]))
    grid = grid[(grid > 0) & (grid < 1)] if p.grid.min() >= 0 else grid
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = p.logpdf(grid) - q.logpdf(grid) - epsilon
    gap = np.nan_to_num(gap, nan=0.0, posinf=1e300, neginf=-1e300)

    def gap_at(x):
        return float(p.logpdf(x) - q.logpdf(x) - epsilon)

    positive = gap > 0
    flips = np.nonzero(positive[1:] != positive[:-1])[0]
    points = []
    for i in flips:
        points.append(optimize.brentq(gap_at, grid[i], grid[i + 1], xtol=1e-15))
    # build the intervals where the gap is positive
    total = 0.0
    inside = bool(positive[0])
    start = -math.inf if inside else None
    for x in points:
        if inside:
            total += _mass(p, start, x) - math.exp(epsilon) * _mass(q, start, x)
            inside = False
        else:
            start, inside = x, True
    if inside:
        total += _mass(p, start, math.inf) - math.exp(epsilon) * _mass(q, start, math.inf)
    return max(total, 0.0)


def _mass(law: Law, low: float, high: float) -> float:
    if low == -math.inf:
        return float(law.cdf(high)) if high != math.inf else 1.0
    if high == math.inf:
        return float(law.sf(low))
    return float(law.cdf(high) - law.cdf(low))


def pair_epsilon(p: Law, q: Law, delta: float) -> float:
    """The ε at δ of the pair, both orders."""
    return max(
        solve_epsilon(lambda e: hockey_stick(p, q, e), delta),
        solve_epsilon(lambda e: hockey_stick(q, p, e), delta),
    )


# --- Poisson-subsampled Gaussian step -----------------------------------------------------------


def mixture_delta(epsilon: float, q: float, a: float, b: float) -> float:
    """δ(ε) of (1 − q)N(0,1) + qN(a,1) against (1 − q)N(0,1) + qN(b,1), a > b (ratio increasing in x)."""

    def log_ratio(x):
        top = np.logaddexp(math.log1p(-q) + stats.norm.logpdf(x), math.log(q) + stats.norm.logpdf(x - a))
        bottom = np.logaddexp(math.log1p(-q) + stats.norm.logpdf(x), math.log(q) + stats.norm.logpdf(x - b))
        return top - bottom

    low, high = -200.0, 200.0
    if log_ratio(high) <= epsilon:
        return 0.0
    root = optimize.brentq(lambda x: log_ratio(x) - epsilon, low, high, xtol=1e-14)

    def tail(shift):
        return (1 - q) * stats.norm.sf(root) + q * stats.norm.sf(root - shift)

    return max(tail(a) - math.exp(epsilon) * tail(b), 0.0)


# --- The candidates -----------------------------------------------------------------------------

ALPHA_MAIN = 5.0 * math.sqrt(2.0 * math.log(2.0 / 0.01))  # Lemma 1 at epsilon = 1, delta = 0.01
BETA_MAIN = 1.0 / (4.0 * (1 + math.log(2.0 / 0.01)))  # d = 1


def dirichlet_worst(concentration: Callable[[tuple[float, float]], float], *, eta=0.1, radius=0.1, delta=0.01):
    """Worst ε at δ over radius-adjacent points of the 2-simplex with entries >= eta: p = (x, 1 − x) against
    (x + radius/2, 1 − x − radius/2); the first coordinate of Dir(c p) is Beta(c p_1, c p_2)."""
    shift = radius / 2
    best = (0.0, None)
    for x in np.round(np.arange(eta, 1 - eta - shift + 1e-9, 0.025), 6):
        p, r = (x, 1 - x), (x + shift, 1 - x - shift)
        first, second = concentration(p), concentration(r)
        eps = pair_epsilon(beta_law(first * p[0], first * p[1]), beta_law(second * r[0], second * r[1]), delta)
        best = max(best, (eps, (p, r)), key=lambda item: item[0])
    return best


def smooth_gaussian_worst(alpha: float, beta: float, delta: float) -> float:
    """Worst ε at δ of N(θ, (α S)²) against N(θ', (α S')²) over Lemma 1's pairs (d = 1, S = 1 by scaling):
    |θ − θ'| <= min(S, S'), |ln S − ln S'| <= β/2; a grid of the ratio and the shift."""
    worst = 0.0
    for ratio in np.exp(np.linspace(-beta / 2, beta / 2, 5)):
        for shift in np.linspace(0.0, min(1.0, ratio), 5):
            worst = max(worst, pair_epsilon(normal_law(0.0, alpha), normal_law(shift, alpha * ratio), delta))
    return worst


def synthesis_worst(k=5.0, eta=0.2, radius=0.2, delta=0.01):
    """Worst ε at δ of one Dir(k p) row under row_adjacent(radius), entries >= eta, any number of next
    states: p and p' differ in two entries (a, b) -> (a + t, b − t), t = radius/2; the privacy loss depends
    on x_1 / (x_1 + x_2) ~ Beta(k a, k b) only (the rest is independent of it and equal on both sides),
    and a + b ranges over [2 eta, 1]."""
    t, best = radius / 2, (0.0, None)
    for a in np.round(np.arange(eta, 1 - eta - t + 1e-9, 0.025), 6):
        for b in np.round(np.arange(eta + t, 1 - a + 1e-9, 0.025), 6):
            eps = pair_epsilon(beta_law(k * a, k * b), beta_law(k * (a + t), k * (b - t)), delta)
            best = max(best, (eps, (a, b)), key=lambda item: item[0])
    return best


def gpope_public_noise_outputs(calls: int = 6):
    """The GPOPE candidate's first ``calls`` releases on the spec's pair (reward 0 vs 1000) and on X with
    another rng, each sequence in a freshly imported module: a deterministic function of the call count
    (the same on X whatever the rng; different on X' from the third call on, ε = inf)."""
    import importlib

    import gpope_candidates

    def table(reward):
        return {"phi": [[1.0], [1.0]], "phi_next": [[0.0], [0.0]], "rewards": [0.0, reward], "rho": [1.0, 1.0],
                "offsets": [0, 1, 2], "gamma": 0.9}  # fmt: skip

    params = {"clip_norm": 5.0, "noise_multiplier": 2.0, "iterations": 2, "step_sizes": {"eta": 1.0}, "records": 2}
    sequences = []
    for reward, seed in ((0.0, 1), (1000.0, 1), (0.0, 2)):
        importlib.reload(gpope_candidates)
        rng = np.random.default_rng(seed)
        release = [float(gpope_candidates.module_generator(table(reward), rng=rng, **params)[0]) for _ in range(calls)]
        sequences.append(np.round(release, 6).tolist())
    return sequences


def step_epsilon(q: float, a: float, b: float, delta: float) -> float:
    """ε at δ of the Poisson-subsampled step with the replaced record at a against b (units of hσ)."""
    return solve_epsilon(lambda e: mixture_delta(e, q, a, b), delta)


def step_delta_by_angle(q: float, epsilon: float, angle: float, step: float = 0.01) -> float:
    """δ(ε) of the step with the replaced record at e_1 against (cos angle, sin angle) (units of hσ, norm 1),
    by quadrature on a grid of the plane the two records span: checks that the antipodal pair is the worst."""
    axis = np.arange(-9.0, 9.0, step)
    x, y = np.meshgrid(axis, axis, indexing="ij")

    def mixture(cx: float, cy: float) -> np.ndarray:
        centre = np.exp(-(x**2 + y**2) / 2)
        moved = np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / 2)
        return ((1 - q) * centre + q * moved) / (2 * math.pi)

    first, second = mixture(1.0, 0.0), mixture(math.cos(angle), math.sin(angle))
    return float(np.maximum(first - math.exp(epsilon) * second, 0.0).sum() * step**2)


ONE_STEP_POINTS = (
    {"records": 4, "noise_multiplier": 1.0, "steps": 1, "delta": 1e-3},
    {"records": 10, "noise_multiplier": 1.0, "steps": 1, "delta": 1e-5},
    {"records": 100, "noise_multiplier": 0.8, "steps": 1, "delta": 1e-5},
)
MANY_STEP_POINTS = (
    {"records": 100, "noise_multiplier": 4.0, "steps": 10, "delta": 1e-5},
    {"records": 1000, "noise_multiplier": 8.0, "steps": 100, "delta": 1e-6},
    {"records": 50, "noise_multiplier": 2.0, "steps": 1, "delta": 1e-3},
)


def print_noise_kinds() -> None:
    print("gaussian (sigma 1, Delta 1, delta 1e-5): exact eps", gaussian_epsilon(1e-5, 1.0))
    classical = math.sqrt(2 * math.log(1.25 / 1e-5))
    analytic = 1.01 * analytic_sigma(1.0, 1e-5, 1.0)
    print(f"gaussian analytic: classical sigma {classical}, candidate sigma {analytic}")
    print("  true eps", gaussian_epsilon(1e-5, 1 / analytic))
    print("laplace l2 calibration: scale 0.5 * 2 / 1 = 1, L1 sensitivity 2: eps", 2.0 / 1.0)
    print("laplace rounding: rounded L1 sensitivity 2 in 2-d (eps 2), 1 in 1-d (eps 1)")
    for name, conc in (("k = 6", lambda p: 6.0), ("0.8 k", lambda p: 4.8), ("k / min p", lambda p: 6.0 / min(p))):
        print("dirichlet", name, dirichlet_worst(conc))
    power_of_two = pair_epsilon(normal_law(0, ALPHA_MAIN), normal_law(1, ALPHA_MAIN / 2), 0.01)
    print("smooth gaussian power-of-two: eps", power_of_two)
    print("smooth gaussian Lemma 1 (main text): worst eps", smooth_gaussian_worst(ALPHA_MAIN, BETA_MAIN, 0.01))


def print_rl_kinds() -> None:
    lsw_private = 1.02 * analytic_sigma(1.0, 0.1, math.sqrt(5))
    lsw_leaky = analytic_sigma(1.0, 0.1, 1.0)
    print("dp_lsw global: true eps", gaussian_epsilon(0.1, math.sqrt(5) / lsw_private))
    print("dp_lsw per-state calibration: true eps", gaussian_epsilon(0.1, math.sqrt(5) / lsw_leaky))
    lsl_sigma = 2 * 5 * math.sqrt(2 * math.log(20)) * math.sqrt(5) / 4
    lsl_sensitivity = math.sqrt(5) / (1 + 5 / 2)
    print(f"dp_lsl cached sigma {lsl_sigma}, L2 sensitivity {lsl_sensitivity}")
    print("  true eps", gaussian_epsilon(0.1, lsl_sensitivity / lsl_sigma))
    print("gpope_step L2 clip (antipodal, a = 1):", step_epsilon(0.25, 1.0, -1.0, 1e-3))
    print("gpope_step per-coordinate clip (a = sqrt 2):", step_epsilon(0.25, math.sqrt(2), -math.sqrt(2), 1e-3))
    collinear = [step_epsilon(0.25, a, b, 1e-3) for a in (0.25, 0.5, 1.0) for b in (-1.0, -0.5, 0.0)]
    print("gpope_step collinear pairs (a, b) in [-1, 1]: largest", max(collinear))
    exact = step_epsilon(0.25, 1.0, -1.0, 1e-3)
    for angle in (1.0, 0.9, 0.75, 0.5):
        print(f"  delta({exact:.6f}) at angle {angle} pi:", step_delta_by_angle(0.25, exact, angle * math.pi))
    print("gpope public noise: releases on X, X', X with another rng:", gpope_public_noise_outputs())
    print("synthesis row worst", synthesis_worst())


def print_accountants() -> None:
    from accountant_candidates import one_step_add_remove, unsubsampled_tail_bound

    for point in ONE_STEP_POINTS:
        q, sigma = 1 / point["records"], point["noise_multiplier"]
        lower = step_epsilon(q, 1 / sigma, -1 / sigma, point["delta"])
        print("accountant add/remove", point, one_step_add_remove(point, rng=None), "replace-one >=", lower)
    for point in MANY_STEP_POINTS:
        mu = 2 * math.sqrt(point["steps"]) / point["noise_multiplier"]
        exact = gaussian_epsilon(point["delta"], mu)
        print("accountant tail bound", point, unsubsampled_tail_bound(point, rng=None), ">= unsubsampled", exact)


def main() -> None:
    print_noise_kinds()
    print_rl_kinds()
    print_accountants()


if __name__ == "__main__":
    main()
