"""Truth for c03_accountant_addremove_rdp (accountant kind, leaky, subtle).

What is claimed.  At each grid point {records m, noise multiplier sigma, steps N, delta} the accountant's
epsilon must be at least the true epsilon(delta) of N Poisson-subsampled Gaussian steps under replace-one,
q = 1/m, clip norm 1 (docs/kinds/index.md): each step's worst pair is

    P = (1 - q) N(0, sigma^2) + q N(1, sigma^2)   vs   Q = (1 - q) N(0, sigma^2) + q N(-1, sigma^2).

What the candidate computes.  The Mironov-Talwar-Zhang integer-order RDP of the *add/remove* pair
(1 - q) N(0) + q N(1) vs N(0), composed N times, converted with the improved conversion.  That is an upper
bound for add/remove-one, not for replace-one, whose pair above moves the mixture component by 2, not 1.

True epsilon (no Monte Carlo).  The privacy loss of one step, L(x) = ln P(x)/Q(x), is

    L(x) = ln(1 - q + q e^{(2x - 1)/(2 sigma^2)}) - ln(1 - q + q e^{(-2x - 1)/(2 sigma^2)}),

strictly increasing in x, so its law under P is read off P's CDF by inverting L (bisection).  P and Q are
mirror images (x -> -x), so delta_{P^N, Q^N} = delta_{Q^N, P^N}; the composed profile is
delta(eps) = E[(1 - e^{eps - S})_+] with S the sum of N i.i.d. copies of L under P (plus the mass at +inf).
We discretise L on a grid of step h twice: rounding every loss UP (pessimistic: the tail beyond the grid
goes to +inf) and DOWN (optimistic: the lower tail goes to -inf, the upper tail onto the last grid point).
Since (1 - e^{eps - s})_+ is nondecreasing in s, these give an upper and a lower bound on delta(eps) for the
composition, and hence an interval [eps_lo, eps_hi] for the true epsilon(delta).  The N-fold convolutions are
done by FFT squaring; tails below 1e-11 are moved in the same conservative directions at each step (their total
is < 1e-9, four orders below delta).  The interval width is at most N h.  Cross-checked against dp_accounting's
PLD (REPLACE_ONE) where installed: 0.8951, 3.7407, 1.2063.

Result: the accountant is below the certified lower end at the small-cohort configuration (m = 20, sigma = 1.2,
N = 100): it says 2.8030, the true epsilon is in [3.7307, 3.7508] (+33.5%); at the two other configurations it
is above the upper end (it holds there).
"""

import math
import sys
from pathlib import Path

import numpy as np
from scipy.signal import fftconvolve
from scipy.special import ndtr

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

POINTS = [
    ({"records": 100, "noise_multiplier": 1.0, "steps": 100, "delta": 1e-5}, 2e-4),
    ({"records": 20, "noise_multiplier": 1.2, "steps": 100, "delta": 1e-5}, 2e-4),
    ({"records": 256, "noise_multiplier": 0.9, "steps": 1000, "delta": 1e-5}, 5e-5),
]
TINY = 1e-11


def _loss(x, q, s):
    return np.logaddexp(np.log1p(-q), np.log(q) + (2 * x - 1) / (2 * s * s)) - np.logaddexp(
        np.log1p(-q), np.log(q) + (-2 * x - 1) / (2 * s * s)
    )


def _cdf(x, q, s):
    return (1 - q) * ndtr(x / s) + q * ndtr((x - 1) / s)


def _sf(x, q, s):
    return (1 - q) * ndtr(-x / s) + q * ndtr(-(x - 1) / s)


def _inverse_loss(t, q, s, lo, hi):
    lo = np.full_like(t, lo)
    hi = np.full_like(t, hi)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        below = _loss(mid, q, s) < t
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        if np.all(hi - lo < 1e-13):
            break
    return 0.5 * (lo + hi)


def _single(q, s, h, pessimistic):
    xlo = -10.0 * s
    while _cdf(xlo, q, s) > TINY:
        xlo -= s
    xhi = 1 + 10.0 * s
    while _sf(xhi, q, s) > TINY:
        xhi += s
    kmin = math.floor(_loss(xlo, q, s) / h)
    kmax = math.ceil(_loss(xhi, q, s) / h)
    k = np.arange(kmin, kmax + 1)
    xk = _inverse_loss(k * h, q, s, xlo - 10 * s, xhi + 10 * s)
    cdf, sf = _cdf(xk, q, s), _sf(xk, q, s)
    inner = np.maximum(np.where(xk[1:] > 0, sf[:-1] - sf[1:], cdf[1:] - cdf[:-1]), 0.0)
    pmf = np.zeros(len(k))
    if pessimistic:  # mass of (t_{k-1}, t_k] at t_k; below the grid at t_kmin; above it: +inf (left out)
        pmf[1:] = inner
        pmf[0] += cdf[0]
    else:  # at t_{k-1}; below the grid: -inf (left out); above it: at t_kmax
        pmf[:-1] = inner
        pmf[-1] += sf[-1]
    return kmin, pmf


def _trim(offset, pmf, pessimistic):
    head = np.cumsum(pmf)
    tail = np.cumsum(pmf[::-1])
    i0 = min(int(np.searchsorted(head, TINY)), len(pmf) - 1)
    i1 = max(len(pmf) - int(np.searchsorted(tail, TINY)), i0 + 1)
    low, high = pmf[:i0].sum(), pmf[i1:].sum()
    out = pmf[i0:i1].copy()
    if pessimistic:
        out[0] += low  # lower tail moved up; upper tail to +inf (left out of the finite part)
    else:
        out[-1] += high  # upper tail moved down; lower tail to -inf (left out)
    return offset + i0, out


def _convolve(a, b, pessimistic):
    return _trim(a[0] + b[0], np.maximum(fftconvolve(a[1], b[1]), 0.0), pessimistic)


def _compose(q, s, n, h, pessimistic):
    base = _trim(*_single(q, s, h, pessimistic), pessimistic)
    result = None
    while n:
        if n & 1:
            result = base if result is None else _convolve(result, base, pessimistic)
        n >>= 1
        if n:
            base = _convolve(base, base, pessimistic)
    return result


def _delta(eps, comp, h, pessimistic):
    offset, pmf = comp
    s = (offset + np.arange(len(pmf))) * h
    m = s > eps
    d = float(np.sum(pmf[m] * -np.expm1(eps - s[m])))
    if pessimistic:
        d += max(0.0, 1.0 - float(pmf.sum()))
    return d


def _epsilon(delta, comp, h, pessimistic):
    lo, hi = 0.0, 1.0
    while _delta(hi, comp, h, pessimistic) > delta:
        hi *= 2
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _delta(mid, comp, h, pessimistic) > delta else (lo, mid)
    return hi


def true_interval(point, h):
    q, s, n, delta = 1.0 / point["records"], point["noise_multiplier"], point["steps"], point["delta"]
    upper = _epsilon(delta, _compose(q, s, n, h, True), h, True)
    lower = _epsilon(delta, _compose(q, s, n, h, False), h, False)
    return lower, upper


def compute():
    import c03_accountant_addremove_rdp as cand

    rows = []
    worst = None
    for point, h in POINTS:
        stated = cand.rdp_epsilon(point, sampling="poisson", max_order=128, rng=None)
        lo, hi = true_interval(point, h)
        verdict = "violated" if stated < lo else ("holds" if stated >= hi else "undecided")
        rows.append({"point": point, "stated": stated, "true_low": lo, "true_high": hi, "verdict": verdict})
        if verdict == "violated" and (worst is None or lo / stated > worst["ratio"]):
            worst = {"point": point, "ratio": lo / stated, "true_mid": 0.5 * (lo + hi), "stated": stated}
    return {
        "truth": "leaky" if worst else "private",
        "claim": "stated epsilon >= true epsilon at every grid point (replace-one)",
        "true_epsilon": worst["true_mid"] if worst else None,
        "claimed_epsilon_at_worst_point": worst["stated"] if worst else None,
        "worst_point": worst["point"] if worst else None,
        "rows": rows,
        "note": "pessimistic/optimistic PLD discretisation, interval width <= N h",
    }


if __name__ == "__main__":
    import json

    print(json.dumps(compute(), indent=1))
