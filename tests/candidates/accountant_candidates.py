"""Accountant candidates: a user's epsilon(delta) for N Poisson-subsampled Gaussian steps (q = 1/m,
noise multiplier sigma, clip norm 1, replace-one: per-step L2 sensitivity 2).

Written from textbook composition results (Dwork & Roth 2014, Thm 3.16 and 3.20; Balle & Wang 2018,
Thm 8), not from dpaudit's accountants. The truth of each is whether its value is at least the true
epsilon at every grid point of specs/accountant.toml; the true epsilon there is bounded by a
PLD accountant (dpaudit's, with its certified round-off interval), so the labels of the leaky
ones rest on that interval and on the arguments in their docstrings."""

import math

from scipy.stats import norm


def _gaussian_epsilon(mu, delta):
    """Smallest epsilon with delta(epsilon) <= delta for a Gaussian with Delta/sigma = mu (Balle & Wang 2018, Thm 8)."""

    def delta_at(eps):
        return norm.cdf(mu / 2 - eps / mu) - math.exp(eps + norm.logcdf(-mu / 2 - eps / mu))

    low, high = 0.0, 1.0
    while delta_at(high) > delta:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if delta_at(middle) > delta else (low, middle)
    return high


def no_amplification(point, *, sampling="poisson", relation="replace_one", interval=1e-4, rng):
    """Private (loose). Ignores the subsampling: N Gaussian steps of sensitivity 2 compose to one
    Gaussian with Delta/sigma = 2 sqrt(N) / sigma, whose exact epsilon is an upper bound."""
    return _gaussian_epsilon(2.0 * math.sqrt(point["steps"]) / point["noise_multiplier"], point["delta"])


def basic_composition(point, *, sampling="poisson", relation="replace_one", interval=1e-4, rng):
    """Private (very loose). Basic composition (Dwork & Roth Thm 3.16): N steps, each
    (eps_1, delta / N)-DP without amplification, give (N eps_1, delta)."""
    steps = point["steps"]
    return steps * _gaussian_epsilon(2.0 / point["noise_multiplier"], point["delta"] / steps)


def with_safety_margin(point, *, sampling="poisson", relation="replace_one", interval=1e-4, rng):
    """Private. The no-amplification bound times 1.25."""
    return 1.25 * no_amplification(point, rng=rng)


def sensitivity_one(point, *, sampling="poisson", relation="replace_one", interval=1e-4, rng):
    """Leaky. Uses sensitivity 1 (the add/remove value) under replace-one and credits the
    sampling as if it scaled the noise: Delta/sigma = q sqrt(N) / sigma."""
    q = 1.0 / point["records"]
    return _gaussian_epsilon(q * math.sqrt(point["steps"]) / point["noise_multiplier"], point["delta"])


def asymptotic_without_constant(point, *, sampling="poisson", relation="replace_one", interval=1e-4, rng):
    """Leaky. The moments accountant's asymptotic form eps ~ q sqrt(N ln(1/delta)) / sigma with its
    constant dropped (Abadi et al. 2016 state it up to a constant)."""
    q = 1.0 / point["records"]
    return q * math.sqrt(point["steps"] * math.log(1.0 / point["delta"])) / point["noise_multiplier"]
