"""Shared numerics for the round-9 truths (numpy/scipy only, written independently of dpaudit).

Conventions: H_eps(P || Q) = sup_E P(E) - e^eps Q(E) (the hockey-stick divergence); a mechanism
is (eps, delta)-DP on a pair when both H_eps(P||Q) and H_eps(Q||P) are <= delta; the epsilon a
pair shows at delta is the smallest eps with both directions <= delta.
"""

import math

import numpy as np
from scipy import integrate, optimize, stats

# ---------------------------------------------------------------- the Gaussian mechanism --------


def gaussian_delta(eps, mu):
    """Exact delta(eps) of N(0,1) vs N(mu,1) (Balle & Wang 2018, Theorem 8)."""
    if mu == 0:
        return 0.0
    return stats.norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * stats.norm.cdf(-mu / 2 - eps / mu)


def gaussian_epsilon(mu, delta):
    """Smallest eps >= 0 with gaussian_delta(eps, mu) <= delta."""
    if gaussian_delta(0.0, mu) <= delta:
        return 0.0
    hi = 1.0
    while gaussian_delta(hi, mu) > delta:
        hi *= 2
    return optimize.brentq(lambda e: gaussian_delta(e, mu) - delta, 0.0, hi, xtol=1e-13)


# ------------------------------------ two isotropic Gaussians with different means and scales ----


def iso_gaussian_delta(eps, delta_mean, s1, s2, d, grid=40001):
    """H_eps(P || Q) for P = N(0, s1^2 I_d), Q = N(delta_mean e1, s2^2 I_d).

    ln p/q = d ln(s2/s1) - (x1^2 + R)/(2 s1^2) + ((x1 - D)^2 + R)/(2 s2^2), R = ||x_2..d||^2, so the
    event {ln p/q > eps} is, for each x1, a half-line in R: R ~ s^2 chi2(d-1) under each law. The x1
    integral is a fine Simpson rule over +-14 standard deviations of both laws.
    """
    D = float(delta_mean)
    lo = min(-14 * s1, D - 14 * s2)
    hi = max(14 * s1, D + 14 * s2)
    x = np.linspace(lo, hi, grid)
    c = d * math.log(s2 / s1) - x**2 / (2 * s1**2) + (x - D) ** 2 / (2 * s2**2)
    a = 1.0 / (2 * s2**2) - 1.0 / (2 * s1**2)
    p1 = stats.norm.pdf(x, 0.0, s1)
    q1 = stats.norm.pdf(x, D, s2)
    if d == 1 or a == 0.0:
        ind = (c > eps).astype(float)
        pp, qq = ind, ind
    else:
        # need R * a > eps - c
        thr = (eps - c) / a
        k = d - 1
        if a > 0:  # R > thr
            pp = np.where(thr <= 0, 1.0, stats.chi2.sf(np.maximum(thr, 0) / s1**2, k))
            qq = np.where(thr <= 0, 1.0, stats.chi2.sf(np.maximum(thr, 0) / s2**2, k))
        else:  # R < thr
            pp = np.where(thr <= 0, 0.0, stats.chi2.cdf(np.maximum(thr, 0) / s1**2, k))
            qq = np.where(thr <= 0, 0.0, stats.chi2.cdf(np.maximum(thr, 0) / s2**2, k))
    f = p1 * pp - math.exp(eps) * q1 * qq
    return max(0.0, float(integrate.simpson(f, x=x)))


def iso_gaussian_epsilon(delta, delta_mean, s1, s2, d, both=True):
    """Smallest eps >= 0 with H_eps <= delta (both directions when both=True)."""

    def worst(e):
        v = iso_gaussian_delta(e, delta_mean, s1, s2, d)
        if both:
            v = max(v, iso_gaussian_delta(e, -delta_mean, s2, s1, d))
        return v

    if worst(0.0) <= delta:
        return 0.0
    hi = 1.0
    while worst(hi) > delta:
        hi *= 2
        if hi > 1e4:
            return math.inf
    return optimize.brentq(lambda e: worst(e) - delta, 0.0, hi, xtol=1e-10)


# -------------------------------------------- one-dimensional mixtures of unit-variance normals --


def mixture_delta(eps, w_p, m_p, w_q, m_q, s=1.0, grid=200001, span=16.0):
    """H_eps(P || Q) for 1-D mixtures P = sum w_p N(m_p, s^2), Q = sum w_q N(m_q, s^2), by a fine
    Simpson rule of (p - e^eps q)_+ (the integrand is smooth apart from its kinks at the roots)."""
    m_all = np.concatenate([np.atleast_1d(m_p), np.atleast_1d(m_q)])
    x = np.linspace(m_all.min() - span * s, m_all.max() + span * s, grid)
    p = sum(w * stats.norm.pdf(x, m, s) for w, m in zip(np.atleast_1d(w_p), np.atleast_1d(m_p), strict=False))
    q = sum(w * stats.norm.pdf(x, m, s) for w, m in zip(np.atleast_1d(w_q), np.atleast_1d(m_q), strict=False))
    return float(integrate.simpson(np.maximum(p - math.exp(eps) * q, 0.0), x=x))


def epsilon_from_profile(profile, delta, hi=1.0):
    """Smallest eps >= 0 with profile(eps) <= delta (profile decreasing)."""
    if profile(0.0) <= delta:
        return 0.0
    while profile(hi) > delta:
        hi *= 2
        if hi > 1e4:
            return math.inf
    return optimize.brentq(lambda e: profile(e) - delta, 0.0, hi, xtol=1e-10)


def scale_mixture_delta(eps, w_p, s_p, w_q, s_q, grid=400001):
    """H_eps(P || Q) for zero-mean 1-D scale mixtures P = sum w N(0, s^2), Q likewise. The grid is
    geometric in |x| so that both very narrow and wide components are resolved."""
    s_all = np.concatenate([np.atleast_1d(s_p), np.atleast_1d(s_q)]).astype(float)
    lo, hi = s_all.min() * 1e-6, s_all.max() * 40.0
    r = np.geomspace(lo, hi, grid)
    p = sum(w * stats.norm.pdf(r, 0.0, s) for w, s in zip(np.atleast_1d(w_p), np.atleast_1d(s_p), strict=False))
    q = sum(w * stats.norm.pdf(r, 0.0, s) for w, s in zip(np.atleast_1d(w_q), np.atleast_1d(s_q), strict=False))
    f = np.maximum(p - math.exp(eps) * q, 0.0)
    inner = 2.0 * lo * float(f[0])  # the sliver |x| < lo, where the densities are flat
    return 2.0 * float(integrate.simpson(f, x=r)) + inner
