"""Our DP-SGD privacy accountant (Poisson-subsampled Gaussian, RDP at integer orders).

For a run of `steps` steps, each sampling every record independently with probability
q = 1 / records, clipping per-example gradients to norm 1 and adding N(0, sigma^2) noise,
the RDP of one step at integer order alpha is bounded by the binomial expansion of
Mironov, Talwar & Zhang 2019 (Sampled Gaussian Mechanism, integer orders):

    A_alpha = sum_k C(alpha, k) (1 - q)^(alpha - k) q^k exp((k^2 - k) / (2 sigma^2)),
    eps_RDP(alpha) = ln(A_alpha) / (alpha - 1),

composed over the steps by addition, and converted to (eps, delta) with the improved
conversion (Canonne, Kamath & Steinke 2020; Balle et al. 2020), minimised over the orders
2, ..., max_order:

    eps = steps * eps_RDP(alpha) + ln((alpha - 1) / alpha) - (ln delta + ln alpha) / (alpha - 1).

Only integer orders are used so that the binomial formula is exact (no series truncation).
`point` is {records, noise_multiplier, steps, delta} (or `order` instead of `delta`: the RDP of
the run at that order, rounded up to the next integer order, RDP being nondecreasing in alpha).
"""

import math

import numpy as np
from scipy.special import gammaln, logsumexp


def _log_a(q, sigma, alpha):
    k = np.arange(alpha + 1, dtype=float)
    log_binom = gammaln(alpha + 1.0) - gammaln(k + 1.0) - gammaln(alpha - k + 1.0)
    terms = log_binom + (alpha - k) * math.log1p(-q) + k * math.log(q) + (k * k - k) / (2.0 * sigma * sigma)
    return float(logsumexp(terms))


def _step_rdp(q, sigma, alpha):
    if q >= 1.0:
        return alpha / (2.0 * sigma * sigma)
    return _log_a(q, sigma, alpha) / (alpha - 1.0)


def rdp_epsilon(point, *, sampling, max_order, rng):
    if sampling != "poisson":
        raise ValueError("this accountant handles Poisson subsampling only")
    q = 1.0 / float(point["records"])
    sigma = float(point["noise_multiplier"])
    steps = int(point["steps"])
    if "order" in point and point.get("delta") is None:
        alpha = max(2, math.ceil(float(point["order"])))
        return float(steps * _step_rdp(q, sigma, alpha))
    delta = float(point["delta"])
    best = math.inf
    for alpha in range(2, int(max_order) + 1):
        rdp = steps * _step_rdp(q, sigma, alpha)
        eps = rdp + math.log((alpha - 1.0) / alpha) - (math.log(delta) + math.log(alpha)) / (alpha - 1.0)
        best = min(best, eps)
    return float(max(best, 0.0))
