"""Private release of a two-outcome distribution (a rate and its complement) with the
Dirichlet mechanism (Gohari, Hale & Topcu 2020): x ~ Dir(concentration * p), which on two
outcomes is x_1 ~ Beta(c p_1, c p_2), x_2 = 1 - x_1.

We draw the two Gamma variates with our own Marsaglia-Tsang sampler (2000), vectorised,
with the shape-boosting step Gamma(a) = Gamma(a + 1) * U^(1/a) for shapes below one, and
normalise.  Inputs must be probability vectors of length two with both entries >= floor.
"""

import numpy as np


def _gamma_mt(rng, shape_param, size):
    """Gamma(shape_param, 1) draws, Marsaglia & Tsang (2000) squeeze/rejection."""
    a = float(shape_param)
    boost = a < 1.0
    a_eff = a + 1.0 if boost else a
    d = a_eff - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    out = np.empty(size)
    filled = 0
    while filled < size:
        need = size - filled
        m = int(need * 1.1) + 16
        z = rng.standard_normal(m)
        u = rng.random(m)
        v = (1.0 + c * z) ** 3
        positive = v > 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            log_v = np.where(positive, np.log(np.where(positive, v, 1.0)), -np.inf)
            accept = positive & ((u < 1.0 - 0.0331 * z**4) | (np.log(u) < 0.5 * z * z + d * (1.0 - v + log_v)))
        draws = (d * v)[accept]
        take = min(need, draws.size)
        out[filled : filled + take] = draws[:take]
        filled += take
    if boost:
        out *= rng.random(size) ** (1.0 / a)
    return out


def _check(p, floor):
    p = np.asarray(p, dtype=float)
    if p.shape != (2,):
        raise ValueError("beta_release takes a two-outcome distribution")
    if abs(p.sum() - 1.0) > 1e-9 or p.min() < floor:
        raise ValueError(f"p must sum to one with entries >= {floor}")
    return p


def beta_release(p, *, concentration, floor, rng):
    p = _check(p, floor)
    g1 = _gamma_mt(rng, concentration * p[0], 1)[0]
    g2 = _gamma_mt(rng, concentration * p[1], 1)[0]
    first = g1 / (g1 + g2)
    return np.array([first, 1.0 - first])


def _beta_release_batch(p, n, *, concentration, floor, rng):
    p = _check(p, floor)
    g1 = _gamma_mt(rng, concentration * p[0], int(n))
    g2 = _gamma_mt(rng, concentration * p[1], int(n))
    first = g1 / (g1 + g2)
    return np.stack([first, 1.0 - first], axis=1)


beta_release.sample = _beta_release_batch
