"""Round-3 accountant candidates: epsilon at delta of N Poisson-subsampled Gaussian steps (q = 1/m, noise
multiplier sigma, clip norm 1), as in Xie et al. 2019, Algorithm 1."""

import math

from scipy import integrate, optimize, stats


def _add_remove_delta(epsilon, q, sigma):
    """delta(epsilon) of (1 - q) N(0, s^2) + q N(1, s^2) against N(0, s^2), both orders, by quadrature."""

    def mixture(x):
        return (1 - q) * stats.norm.pdf(x, 0, sigma) + q * stats.norm.pdf(x, 1, sigma)

    def base(x):
        return stats.norm.pdf(x, 0, sigma)

    def one_order(p, r):
        def integrand(x):
            return max(p(x) - math.exp(epsilon) * r(x), 0.0)

        return integrate.quad(integrand, -40 * sigma, 40 * sigma + 1, limit=400, points=[0.0, 0.5, 1.0])[0]

    return max(one_order(mixture, base), one_order(base, mixture))


def one_step_add_remove(point, *, sampling="poisson", relation="replace_one", interval=1e-4, rng):
    """Leaky: one step's epsilon computed for adding or removing a record, whatever ``relation`` says;
    under replace-one the changed record moves the sum by up to 2 clip norms, not 1."""
    if point["steps"] != 1:
        raise ValueError("this accountant handles one step")
    q, sigma, delta = 1.0 / point["records"], point["noise_multiplier"], point["delta"]
    return optimize.brentq(lambda e: _add_remove_delta(e, q, sigma) - delta, 0.0, 50.0, xtol=1e-9)


def unsubsampled_tail_bound(point, *, sampling="poisson", relation="replace_one", interval=1e-4, rng):
    """Private (loose): ignores the subsampling and composes N Gaussian steps of sensitivity 2 into one
    Gaussian with mu = 2 sqrt(N) / sigma, then the tail bound epsilon = mu^2 / 2 + mu sqrt(2 ln(1/delta))."""
    mu = 2.0 * math.sqrt(point["steps"]) / point["noise_multiplier"]
    return mu * mu / 2.0 + mu * math.sqrt(2.0 * math.log(1.0 / point["delta"]))
