"""A small privacy-loss-distribution (PLD) accountant for the truths of round 8 (numpy/scipy only).

Pairs of one-dimensional laws given by their CDF and log-density; the loss L = ln p/q is discretised
on a grid of width h, rounded up (pessimistic: an upper bound on delta) and down (optimistic: a lower
bound), composed N times by FFT with repeated squaring, the mass past the window kept pessimistically
(upper: at +inf; lower: dropped or clamped at the window).  delta(eps) = sum_l p(l) (1 - e^(eps - l))_+.

Used for the accountant candidates (c09, c10): N Poisson-subsampled Gaussian steps, sampling rate
q = 1/records, noise multiplier sigma (clip norm 1).
"""

from __future__ import annotations

import numpy as np
from scipy.signal import fftconvolve
from scipy.special import logsumexp
from scipy.stats import norm


def _mixture_logpdf(x, components, sigma):
    # components: list of (weight, mean)
    terms = [np.log(w) + norm.logpdf(x, loc=mu, scale=sigma) for w, mu in components if w > 0]
    return logsumexp(np.stack(terms), axis=0)


def _mixture_cdf(x, components, sigma):
    return sum(w * norm.cdf(x, loc=mu, scale=sigma) for w, mu in components)


def step_loss_pmf(first, second, sigma, h, window, cells=400_000, reach=None):
    """One step's loss pmf under `first` (components of P) against `second` (Q), rounded up and down.

    Returns (upper_pmf, upper_inf, lower_pmf) on the grid l_j = -window + j h.
    """
    means = [mu for _, mu in first + second]
    reach = reach if reach is not None else 14.0 * sigma
    lo, hi = min(means) - reach, max(means) + reach
    edges = np.linspace(lo, hi, cells + 1)
    cdf = _mixture_cdf(edges, first, sigma)
    mass = np.diff(cdf)
    left_tail, right_tail = cdf[0], 1.0 - cdf[-1]
    loss_edges = _mixture_logpdf(edges, first, sigma) - _mixture_logpdf(edges, second, sigma)
    # the loss is monotone on each cell for these mixtures (checked below): max/min at the ends
    cell_max = np.maximum(loss_edges[:-1], loss_edges[1:])
    cell_min = np.minimum(loss_edges[:-1], loss_edges[1:])
    size = round(2 * window / h) + 1
    upper = np.zeros(size)
    lower = np.zeros(size)
    upper_inf = 0.0
    iu = np.ceil((cell_max + window) / h).astype(np.int64)
    il = np.floor((cell_min + window) / h).astype(np.int64)
    over = iu >= size
    upper_inf += mass[over].sum()
    np.add.at(upper, np.clip(iu[~over], 0, size - 1), mass[~over])
    keep = (il >= 0) & (il < size)
    np.add.at(lower, il[keep], mass[keep])
    # tails: the loss at the far ends is monotone beyond the grid in these pairs; pessimistically
    # the tails go to +inf (upper) and are dropped (lower)
    upper_inf += left_tail + right_tail
    return upper, upper_inf, lower


def _compose(pmf, inf_mass, n, clamp_low):
    """n-fold composition on a fixed window: mass above the window -> inf (upper) or dropped;
    mass below -> the lowest bin when clamp_low (upper bound) else dropped."""
    size = len(pmf)
    window_bins = (size - 1) // 2  # grid index of loss 0

    def conv(a, ia, b, ib):
        full = fftconvolve(a, b)
        full = np.maximum(full, 0.0)
        # full index j corresponds to loss (j - 2 * window_bins) h; keep [-window, window]
        start = window_bins
        out = full[start : start + size].copy()
        below = full[:start].sum()
        above = full[start + size :].sum()
        inf = 1.0 - (1.0 - ia) * (1.0 - ib)
        if clamp_low:
            out[0] += below
            inf += above
        return out, inf

    result, result_inf = None, 0.0
    base, base_inf = pmf, inf_mass
    while n:
        if n & 1:
            if result is None:
                result, result_inf = base.copy(), base_inf
            else:
                result, result_inf = conv(result, result_inf, base, base_inf)
        n >>= 1
        if n:
            base, base_inf = conv(base, base_inf, base, base_inf)
    return result, result_inf


def delta_curve(pmf, inf_mass, h, window):
    losses = -window + h * np.arange(len(pmf))

    def delta(eps):
        sel = losses > eps
        return float(np.sum(pmf[sel] * -np.expm1(eps - losses[sel])) + inf_mass)

    return delta


def epsilon_at(delta_fn, delta, hi=200.0):
    if delta_fn(0.0) <= delta:
        return 0.0
    lo = 0.0
    if delta_fn(hi) > delta:
        return float("inf")
    for _ in range(80):
        mid = (lo + hi) / 2
        if delta_fn(mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def subsampled_gaussian_epsilon(pair, q, sigma, steps, delta, h=2e-5, window=12.0, cells=400_000):
    """[lower, upper] of epsilon(delta) for `steps` compositions of the pair, both orders."""
    P, Q = pair(q)
    bounds = []
    for first, second in ((P, Q), (Q, P)):
        up, up_inf, low = step_loss_pmf(first, second, sigma, h, window, cells=cells)
        cu, cu_inf = _compose(up, up_inf, steps, clamp_low=True)
        cl, _ = _compose(low, 0.0, steps, clamp_low=False)
        e_up = epsilon_at(delta_curve(cu, cu_inf, h, window), delta)
        e_lo = epsilon_at(delta_curve(cl, 0.0, h, window), delta)
        bounds.append((e_lo, e_up))
    return max(b[0] for b in bounds), max(b[1] for b in bounds)


# neighbouring pairs of one Poisson-subsampled step, clip norm 1 (1-D projection)
def add_remove(q):
    return [(1 - q, 0.0), (q, 1.0)], [(1.0, 0.0)]


def replace_one(q):
    """A record r (||r|| <= 1) replaced by r': the same coin includes it; worst r = 1, r' = -1."""
    return [(1 - q, 0.0), (q, 1.0)], [(1 - q, 0.0), (q, -1.0)]


def replace_as_shift_two(q):
    """Another reading: the sampled record's gradient moves by 2 (sensitivity 2, as add/remove)."""
    return [(1 - q, 0.0), (q, 2.0)], [(1.0, 0.0)]
