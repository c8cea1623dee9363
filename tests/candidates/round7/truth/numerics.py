"""Numerical tools for the round-7 truths: hockey-stick divergences of the laws the candidates release.

numpy/scipy only. Every function returns delta(eps) = sup_S P(S) - e^eps Q(S) = E_P[(1 - e^(eps - L))_+]
for a pair of laws (P, Q) with privacy loss L = ln dP/dQ, or the smallest eps whose delta is at most a target.
"""

import math

import numpy as np
from scipy import optimize, special
from scipy.stats import chi2, norm


def eps_for_delta(delta_at, delta, high=400.0):
    """The smallest eps >= 0 with delta_at(eps) <= delta (delta_at non-increasing), by bisection."""
    if delta_at(0.0) <= delta:
        return 0.0
    if delta_at(high) > delta:
        return math.inf
    return optimize.brentq(lambda e: delta_at(e) - delta, 0.0, high, xtol=1e-10)


def gaussian_delta(eps, mu):
    """Balle & Wang 2018, Theorem 8: delta(eps) of N(0, 1) vs N(mu, 1) (second term in log space)."""
    if mu == 0:
        return 0.0
    return norm.cdf(mu / 2 - eps / mu) - math.exp(eps + norm.logcdf(-mu / 2 - eps / mu))


def gaussian_eps(mu, delta):
    """eps(delta) of the Gaussian mechanism with ||shift|| / sigma = mu."""
    return eps_for_delta(lambda e: gaussian_delta(e, mu), delta, high=max(400.0, mu * mu + 20 * mu))


def two_gaussians_delta(eps, shift, s1, s2, dim, points=40001):
    """delta(eps) of P = N(0, s1^2 I_d) against Q = N(shift e_1, s2^2 I_d) (isotropic, unequal scales).

    With y = (u, v), R = ||v||^2: L = d ln(s2/s1) - (u^2 + R)/(2 s1^2) + ((u - shift)^2 + R)/(2 s2^2), linear in R
    given u. Under P, R = s1^2 X with X ~ chi2(d - 1), and E[e^(-tX) 1{X in A}] = (1 + 2t)^(-k/2) P[X/(1 + 2t) in A]:
    the R-expectation is closed form and u is integrated on a grid (+-12 s1)."""
    u = np.linspace(-12 * s1, 12 * s1, points)
    weight = norm.pdf(u, 0, s1) * (u[1] - u[0])
    base = dim * math.log(s2 / s1) - u**2 / (2 * s1**2) + (u - shift) ** 2 / (2 * s2**2)
    if dim == 1:
        gap = base - eps
        return float(np.sum(weight * np.where(gap > 0, -np.expm1(-np.clip(gap, 0, None)), 0.0)))
    k = dim - 1
    c = s1**2 * (1 / (2 * s2**2) - 1 / (2 * s1**2))  # L = base + c X
    t = -c  # e^{eps - L} = e^{eps - base} e^{t X}; need E[e^{t X}] finite: 1 - 2t > 0
    # the set {base + c X > eps}
    if c > 0:  # X > (eps - base)/c
        cut = (eps - base) / c
        p_set = chi2.sf(np.clip(cut, 0, None), k)
        scaled = chi2.sf(np.clip(cut, 0, None) * (1 - 2 * t), k)
    elif c < 0:  # X < (eps - base)/c
        cut = (eps - base) / c
        p_set = np.where(cut > 0, chi2.cdf(np.clip(cut, 0, None), k), 0.0)
        scaled = np.where(cut > 0, chi2.cdf(np.clip(cut, 0, None) * (1 - 2 * t), k), 0.0)
    else:
        p_set = (base > eps).astype(float)
        scaled = p_set
    mgf = (1 - 2 * t) ** (-k / 2)
    term = p_set - np.exp(np.clip(eps - base, -700, 700)) * mgf * scaled
    return float(np.sum(weight * np.clip(term, 0, None)))


def two_gaussians_eps(delta, shift, s1, s2, dim):
    """eps(delta) over both orders of N(0, s1^2 I) and N(shift e_1, s2^2 I)."""

    def worst(e):
        return max(two_gaussians_delta(e, shift, s1, s2, dim), two_gaussians_delta(e, -shift, s2, s1, dim))

    return eps_for_delta(worst, delta)


def mixture_delta_1d(eps, p_parts, q_parts, scale, grid=200001, span=14.0):
    """delta(eps) of two 1-D Gaussian mixtures with a common scale: parts are (weight, mean) lists."""
    means = [m for _, m in p_parts + q_parts]
    y = np.linspace(min(means) - span * scale, max(means) + span * scale, grid)
    dy = y[1] - y[0]
    p = sum(w * norm.pdf(y, m, scale) for w, m in p_parts)
    q = sum(w * norm.pdf(y, m, scale) for w, m in q_parts)
    return float(np.sum(np.clip(p - math.exp(eps) * q, 0, None)) * dy)


def product_mixture_delta_2d(eps, p_parts, q_parts, scale, grid=6001, span=10.0):
    """delta(eps) of P x P against Q x Q (two-fold composition of one 1-D mixture pair), on a 2-D grid."""
    means = [m for _, m in p_parts + q_parts]
    y = np.linspace(min(means) - span * scale, max(means) + span * scale, grid)
    dy = y[1] - y[0]
    p = sum(w * norm.pdf(y, m, scale) for w, m in p_parts)
    q = sum(w * norm.pdf(y, m, scale) for w, m in q_parts)
    total = 0.0
    for row in range(0, grid, 500):  # blocks of rows to bound memory
        block = np.outer(p[row : row + 500], p) - math.exp(eps) * np.outer(q[row : row + 500], q)
        total += float(np.clip(block, 0, None).sum())
    return total * dy * dy


def mixture_delta_2d(eps, p_parts, q_parts, scale, grid=1601, span=9.0):
    """delta(eps) of two isotropic 2-D Gaussian mixtures (parts: (weight, (x, y)) lists), on a grid."""
    points = np.array([m for _, m in p_parts + q_parts], dtype=float)
    lo, hi = points.min(axis=0) - span * scale, points.max(axis=0) + span * scale
    xs, ys = np.linspace(lo[0], hi[0], grid), np.linspace(lo[1], hi[1], grid)
    gx, gy = np.meshgrid(xs, ys, indexing="ij")

    def density(parts):
        return sum(w * norm.pdf(gx, m[0], scale) * norm.pdf(gy, m[1], scale) for w, m in parts)

    area = (xs[1] - xs[0]) * (ys[1] - ys[0])
    return float(np.clip(density(p_parts) - math.exp(eps) * density(q_parts), 0, None).sum() * area)


def beta_loss_delta(eps, a1, b1, a2, b2, grid=400001):
    """delta(eps) of Beta(a1, b1) against Beta(a2, b2), integrated in z = logit(x): the density of z under
    Beta(a, b) is x^a (1 - x)^b / B(a, b), with ln x = -softplus(-z) and ln(1 - x) = -softplus(z)."""
    z = np.linspace(-80, 80, grid)
    log_x, log_1mx = -np.logaddexp(0, -z), -np.logaddexp(0, z)
    p = np.exp(a1 * log_x + b1 * log_1mx - special.betaln(a1, b1))
    q = np.exp(a2 * log_x + b2 * log_1mx - special.betaln(a2, b2))
    return float(np.sum(np.clip(p - math.exp(eps) * q, 0, None)) * (z[1] - z[0]))


def projected_normal_density(phi, centre, scale):
    """Density in phi of the angle of N(centre, scale^2 I_2) (the projected normal law)."""
    cx, cy = centre
    norm2 = (cx * cx + cy * cy) / scale**2
    a = (cx * np.cos(phi) + cy * np.sin(phi)) / scale
    tail = a * norm.cdf(a) * math.sqrt(2 * math.pi) * np.exp(-(norm2 - a * a) / 2)
    return (np.exp(-norm2 / 2) + tail) / (2 * math.pi)


def clipped_noise_densities(centres, clip, scale, radial=400, angular=8192):
    """The law of Y = clip_h(g_I + scale * N(0, I_2)), I uniform over the centres, on a polar grid.

    The law has a density on the open disc ||y|| < h and an angular density on the circle ||y|| = h: the mass
    of the ray beyond it, the projected normal density less the disc's part of the ray. Returns the masses of
    the grid cells: (disc cells, circle arcs)."""
    phi = (np.arange(angular) + 0.5) * (2 * np.pi / angular)
    d_phi = 2 * np.pi / angular
    d_r = clip / radial
    r_in = (np.arange(radial) + 0.5) * d_r
    inside = np.zeros((radial, angular))
    ring = np.zeros(angular)
    cos, sin = np.cos(phi), np.sin(phi)
    for cx, cy in centres:
        w = 1.0 / len(centres)
        disc = norm.pdf(np.outer(r_in, cos), cx, scale) * norm.pdf(np.outer(r_in, sin), cy, scale) * r_in[:, None]
        inside += w * disc
        ring += w * (projected_normal_density(phi, (cx, cy), scale) - disc.sum(axis=0) * d_r)
    return inside * d_r * d_phi, np.clip(ring, 0, None) * d_phi


def cell_delta(eps, p_cells, q_cells):
    """delta(eps) = sum over cells of (P(cell) - e^eps Q(cell))_+ for laws given by aligned cell masses."""
    e = math.exp(eps)
    return float(sum(np.clip(p - e * q, 0, None).sum() for p, q in zip(p_cells, q_cells, strict=True)))
