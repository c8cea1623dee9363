"""Smooth-sensitivity Gaussian release (Balle, Gomrokchi & Precup 2016, Lemma 1) with our
own, tighter noise multiplier.

Lemma 1 releases theta + alpha * S(X) * N(0, I) and holds for neighbours with
||theta - theta'|| <= min(S, S') and |ln S - ln S'| <= beta / 2; the main text takes
beta = eps / (4 (d + ln(2 / delta))) and alpha = 5 sqrt(2 ln(2 / delta)) / eps.  We keep that beta
(our smooth upper bound is built for it) but choose alpha as the smallest multiplier whose
worst case is (eps, delta): by scale invariance set S = 1, S' = e^t with |t| <= beta / 2 and
shift u <= min(1, e^t); for d = 1 the hockey-stick divergence of N(0, alpha^2) and
N(u, alpha^2 e^(2t)) has a closed form (the privacy-loss region is an interval or its
complement).  We scan t over a grid of [-beta/2, beta/2] at the largest shift, bisect on alpha,
and round alpha up to three significant digits.
"""

import math
from functools import lru_cache

import numpy as np
from scipy.special import ndtr


def _hockey_stick(eps, a, u, b):
    """delta(eps) between N(0, a^2) and N(u, b^2) (1-D), closed form."""
    quad = 1.0 / (2.0 * b * b) - 1.0 / (2.0 * a * a)
    lin = -u / (b * b)
    const = u * u / (2.0 * b * b) + math.log(b / a) - eps
    if quad == 0.0:
        if lin == 0.0:
            return 0.0
        root = -const / lin
        pieces = [(-math.inf, root)] if lin < 0 else [(root, math.inf)]
    else:
        disc = lin * lin - 4.0 * quad * const
        if disc <= 0.0:
            pieces = [(-math.inf, math.inf)] if quad > 0 else []
        else:
            q = -0.5 * (lin + math.copysign(math.sqrt(disc), lin))
            r1, r2 = sorted((q / quad, const / q))
            pieces = [(-math.inf, r1), (r2, math.inf)] if quad > 0 else [(r1, r2)]
    total = 0.0
    for lo, hi in pieces:
        p = ndtr(hi / a) - ndtr(lo / a)
        qm = ndtr((hi - u) / b) - ndtr((lo - u) / b)
        total += p - math.exp(eps) * qm
    return max(total, 0.0)


def _worst_delta(alpha, eps, beta):
    worst = 0.0
    for t in np.linspace(-beta / 2.0, beta / 2.0, 21):
        u = min(1.0, math.exp(t))
        worst = max(worst, _hockey_stick(eps, alpha, u, alpha * math.exp(t)))
    return worst


@lru_cache(maxsize=32)
def noise_multiplier(target_epsilon, target_delta, dim):
    if dim != 1:
        raise ValueError("the closed-form calibration is for one-dimensional releases")
    beta = target_epsilon / (4.0 * (dim + math.log(2.0 / target_delta)))
    lo, hi = 1e-3, 1.0
    while _worst_delta(hi, target_epsilon, beta) > target_delta:
        hi *= 2.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if _worst_delta(mid, target_epsilon, beta) > target_delta:
            lo = mid
        else:
            hi = mid
    digits = 3 - math.floor(math.log10(hi)) - 1
    return math.ceil(hi * 10**digits) / 10**digits


def smooth_release(data, *, target_epsilon, target_delta, dim, rng):
    theta = np.asarray(data["theta"], dtype=float)
    alpha = noise_multiplier(float(target_epsilon), float(target_delta), int(dim))
    return theta + alpha * float(data["smooth_bound"]) * rng.standard_normal(theta.shape)


def _smooth_release_batch(data, n, *, target_epsilon, target_delta, dim, rng):
    theta = np.asarray(data["theta"], dtype=float)
    alpha = noise_multiplier(float(target_epsilon), float(target_delta), int(dim))
    return theta[None, ...] + alpha * float(data["smooth_bound"]) * rng.standard_normal((int(n), *theta.shape))


smooth_release.sample = _smooth_release_batch
