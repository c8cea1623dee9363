"""Independent computations of the true epsilons quoted in round6/manifest.toml (numpy/scipy only; no dpaudit).

Run: python truth/truths.py  (from tests/candidates/round6). Prints one line per quantity.
"""

import math
import sys
from pathlib import Path

import numpy as np
from scipy import optimize
from scipy.stats import norm

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def gaussian_delta(eps, mu):
    """Balle & Wang 2018, Theorem 8: delta(eps) of N(0,1) vs N(mu,1)."""
    return norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * norm.cdf(-mu / 2 - eps / mu)


def gaussian_eps(mu, delta):
    if gaussian_delta(0.0, mu) <= delta:
        return 0.0
    return optimize.brentq(lambda e: gaussian_delta(e, mu) - delta, 0.0, 500.0, xtol=1e-12)


def mixture_delta(eps, q, a, s):
    """delta(eps) of (1-q)N(0,s^2)+qN(a,s^2) vs (1-q)N(0,s^2)+qN(-a,s^2) (1-D, exact integral)."""

    def p(y):
        return (1 - q) * norm.pdf(y, 0, s) + q * norm.pdf(y, a, s)

    def qq(y):
        return (1 - q) * norm.pdf(y, 0, s) + q * norm.pdf(y, -a, s)

    # the set {p > e^eps q} is y > c for this symmetric monotone-ratio pair
    def logp(y, sign):
        return np.logaddexp(math.log(1 - q) + norm.logpdf(y, 0, s), math.log(q) + norm.logpdf(y, sign * a, s))

    def f(y):
        return logp(y, 1) - logp(y, -1) - eps

    hi = 50 * s + a
    if f(hi) < 0:
        return 0.0
    c = optimize.brentq(f, -hi, hi)
    pp = (1 - q) * norm.sf(c, 0, s) + q * norm.sf(c, a, s)
    qp = (1 - q) * norm.sf(c, 0, s) + q * norm.sf(c, -a, s)
    return pp - math.exp(eps) * qp


def mixture_eps(q, a, s, delta):
    return optimize.brentq(lambda e: mixture_delta(e, q, a, s) - delta, 1e-9, 60.0, xtol=1e-10)


def pld_composed_delta(eps, q, a, s, steps, width=2e-4):
    """delta(eps) after `steps` compositions of the mixture pair above, by a discretised privacy loss
    distribution (rounded up: an upper bound on delta; rounded down: a lower bound). Returns (low, high)."""
    y = np.linspace(-40 * s - a, 40 * s + a, 2_000_001)
    dy = y[1] - y[0]
    p = (1 - q) * norm.pdf(y, 0, s) + q * norm.pdf(y, a, s)
    qq = (1 - q) * norm.pdf(y, 0, s) + q * norm.pdf(y, -a, s)
    keep = (p > 0) & (qq > 0)
    loss = np.log(p[keep]) - np.log(qq[keep])
    mass = p[keep] * dy
    mass /= mass.sum()
    out = []
    for rounding in (np.floor, np.ceil):
        idx = rounding(loss / width).astype(np.int64)
        lo = idx.min()
        hist = np.bincount(idx - lo, weights=mass)
        size = 1
        while size < steps * len(hist):
            size *= 2
        f = np.fft.rfft(hist, size) ** steps
        comp = np.maximum(np.fft.irfft(f, size)[: steps * (len(hist) - 1) + 1], 0.0)
        grid = (np.arange(len(comp)) + steps * lo) * width
        sel = grid > eps
        out.append(float(np.sum(comp[sel] * (1.0 - np.exp(eps - grid[sel])))))
    return out[0], out[1]


def main():
    from accountant_add_remove import accountant

    # c01: float32 noise: P(y = 1 + n32 is not a float32 value) on f(X') = 1
    rng = np.random.default_rng(1)
    n32 = rng.standard_normal(2_000_000, dtype=np.float32)
    y1 = 1.0 + n32.astype(np.float64)
    y0 = 0.0 + n32.astype(np.float64)
    off1 = np.mean(y1.astype(np.float32).astype(np.float64) != y1)
    off0 = np.mean(y0.astype(np.float32).astype(np.float64) != y0)
    print(
        f"c01 float32: P_X'(y not float32) = {off1:.4f}, P_X(y not float32) = "
        f"{off0:.4f} -> delta(eps) >= {off1:.3f} for every eps: eps = inf at 1e-5"
    )

    # c04: median of 5 Laplace(1): sup log ratio 3 (left/right tail), check numerically
    def med_pdf(y, x):
        F = np.where(y - x < 0, 0.5 * np.exp(y - x), 1 - 0.5 * np.exp(-(y - x)))
        f = 0.5 * np.exp(-np.abs(y - x))
        return 30 * f * F**2 * (1 - F) ** 2

    ys = np.linspace(-25, 25, 400001)
    ratio = np.log(med_pdf(ys, 0)) - np.log(med_pdf(ys, 1))
    print(
        f"c04 median-of-5: sup |ln ratio| on [-25, 25] = "
        f"{np.max(np.abs(ratio)):.4f} (limit 3, approached in both tails)"
    )

    # c07 / c08: Poisson-sampled step, q = 1/4, noise 2 N(0,1): correct |v| = h = 2, bug |v| = 2h = 4 (d = 4)
    print(f"c08 correct step (|v| = 2): eps(1e-3) = {mixture_eps(0.25, 2.0, 2.0, 1e-3):.5f} (claim 1.76)")
    print(f"c07 column clip, d = 4 (|v| = 4): eps(1e-3) = {mixture_eps(0.25, 4.0, 2.0, 1e-3):.5f}")

    # c09: accountant at its first grid point, replace-one true vs add/remove reported
    point = {"records": 2, "noise_multiplier": 2.0, "steps": 4, "delta": 1e-5}
    reported = accountant(point, sampling="poisson", relation="replace_one", rng=None)
    lo_hi = []
    for eps in (reported, reported * 1.25):
        lo_hi.append(pld_composed_delta(eps, 0.5, 1.0, 2.0, 4))
    print(
        f"c09 accountant point {point}: reported eps = {reported:.4f}; true replace-one delta(reported) "
        f"in {lo_hi[0]} (> 1e-5 means understated); delta(1.25 x reported) in {lo_hi[1]}"
    )
    true_eps = optimize.brentq(lambda e: pld_composed_delta(e, 0.5, 1.0, 2.0, 4)[0] - 1e-5, reported, 20.0, xtol=1e-3)
    print(f"c09 true replace-one eps(1e-5) >= {true_eps:.3f} (PLD lower rounding)")
    for pt in (
        {"records": 100, "noise_multiplier": 1.0, "steps": 100, "delta": 1e-5},
        {"records": 1000, "noise_multiplier": 0.8, "steps": 1000, "delta": 1e-5},
    ):
        print(f"c09 reported at {pt}: {accountant(pt, sampling='poisson', relation='replace_one', rng=None):.4f}")

    # c11: smooth Gaussian with sigma capped at 50: alpha = 5 sqrt(2 ln(2/0.01)) = 16.28
    alpha = 5 * math.sqrt(2 * math.log(2 / 0.01))
    print(
        f"c11 alpha = {alpha:.3f}; example pair (S = 1): mu = "
        f"{1 / alpha:.4f}, eps(0.01) = {gaussian_eps(1 / alpha, 0.01):.4f}"
    )
    for S in (10.0, 100.0, 1000.0):
        sig = min(alpha * S, 50.0)
        print(
            f"c11 S = {S}: theta moves by S, sigma = {sig}, mu = "
            f"{S / sig:.3f}, eps(0.01) >= {gaussian_eps(S / sig, 0.01):.3f}"
        )

    # c13: per-state mean over visitors, noise for the mean over m = 10: sigma = B sqrt(5)/10 * sqrt(2 ln(1.25e5)) / 1
    sigma = 1.0 * math.sqrt(5) / 10 * math.sqrt(2 * math.log(1.25 / 1e-5))
    for k, label in (
        (1, "one state, its only visitor replaced"),
        (4, "four states only the replaced trajectory visits"),
    ):
        mu = math.sqrt(k) / sigma
        print(f"c13 sigma = {sigma:.4f}; {label}: mu = {mu:.3f}, eps(1e-5) = {gaussian_eps(mu, 1e-5):.3f}")
    print(f"c01 reference: gaussian mu = 1 eps(1e-5) = {gaussian_eps(1.0, 1e-5):.4f}")


if __name__ == "__main__":
    main()
