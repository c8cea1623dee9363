"""Truth for c10_private_q_table_zcdp (rl_algorithm kind, private).

Release: Q = cap * (U + sigma Z_1) / max(V + sigma Z_2, 1) per cell, where U = (sum of first-visit returns
clipped to [0, cap]) / cap and V = visit count, Z i.i.d. N(0, 1) (Marsaglia's polar method is exact), and
sigma^2 = 2 S A / (2 rho) = 12 for S = 3, A = 2, rho = 0.5.

Sensitivity.  Replacing one episode changes, per cell, (U, V) by (Delta g / cap, 0) with |Delta g| <= cap if
both episodes visit the cell, by +-(g / cap, 1) with g / cap in [0, 1] if exactly one does, and by 0 otherwise.
So ||Delta(U, V)||_2^2 <= 2 S A = 12, with equality when the two episodes visit complementary sets of cells
with clipped returns equal to cap at every first visit (constructed below: six steps of reward 1 in
cells (s, 0) against six in (s, 1); the candidate's own statistics give 12 exactly).

The candidate nudges sigma one float up (math.nextafter), so its float sigma is >= sqrt(12) exactly (checked in
rational arithmetic below; without the nudge the float sqrt(12) is one ulp short and rho would be 0.5 (1 + 2e-16)).

Privacy.  (U, V) + sigma Z is the Gaussian mechanism with Delta/sigma = sqrt(12/12) = 1: exactly
rho = Delta^2 / (2 sigma^2) = 0.5 zCDP (Bun & Steinke 2016, Prop. 1.6; the Renyi divergence of two Gaussians
is alpha Delta^2 / (2 sigma^2) with equality at the extreme pair), and Q is post-processing.  The claim
(0.5-zCDP) holds with equality.  dpaudit audits it at the (eps, delta) point it implies at delta = 1e-5,
eps = min_alpha rho alpha + ln((alpha - 1)/alpha) - (ln delta + ln alpha)/(alpha - 1) = 4.7284 (computed by a
fine 1-D minimisation); the release's true epsilon there is the Gaussian profile at mu = 1 (Balle & Wang 2018,
Thm 8, mpmath 50 digits): 4.37718, below it.
"""

import math
import sys
from fractions import Fraction
from pathlib import Path

import mpmath as mp
from scipy.optimize import minimize_scalar

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

RHO, DELTA, S, A, CAP, GAMMA = 0.5, 1e-5, 3, 2, 2.0, 0.9


def implied_epsilon(rho, delta):
    def f(alpha):
        return rho * alpha + math.log((alpha - 1) / alpha) - (math.log(delta) + math.log(alpha)) / (alpha - 1)

    res = minimize_scalar(f, bounds=(1.0001, 1000.0), method="bounded", options={"xatol": 1e-12})
    return float(res.fun)


def gaussian_epsilon(mu, delta):
    mp.mp.dps = 50
    mu = mp.mpf(mu)

    def prof(e):
        return mp.ncdf(mu / 2 - e / mu) - mp.e**e * mp.ncdf(-mu / 2 - e / mu)

    lo, hi = mp.mpf(0), mp.mpf(20)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if prof(mid) > delta else (lo, mid)
    return float(hi)


def compute():
    import c10_private_q_table_zcdp as cand

    ep1 = [[s, 0, 1.0] for s in (0, 1, 2, 2, 2, 2)]
    ep2 = [[s, 1, 1.0] for s in (0, 1, 2, 2, 2, 2)]
    rest = [[[0, 0, 0.0], [1, 1, 0.3], [2, 0, 1.0]]] * 7
    u1, v1 = cand._statistics([*rest, ep1], GAMMA, CAP, S, A)
    u2, v2 = cand._statistics([*rest, ep2], GAMMA, CAP, S, A)
    delta_sq = float(((u1 - u2) ** 2).sum() + ((v1 - v2) ** 2).sum())
    sigma = cand._sigma(RHO, S, A)
    mu = math.sqrt(delta_sq) / sigma
    # exact rational check that the float sigma the candidate uses is not below sqrt(12): rho <= 0.5 exactly
    sigma_sq_exact = Fraction(sigma) ** 2
    rho_exact_ok = Fraction(12) / (2 * sigma_sq_exact) <= Fraction(RHO)
    return {
        "truth": "private" if rho_exact_ok else "leaky",
        "claim": "0.5-zCDP (audited at the implied (eps, 1e-5))",
        "claim_epsilon": implied_epsilon(RHO, DELTA),
        "claim_delta": DELTA,
        "true_rho": float(Fraction(12) / (2 * Fraction(sigma) ** 2)),
        "true_rho_at_most_claim_exact": rho_exact_ok,
        "true_epsilon": gaussian_epsilon(mu, DELTA),
        "extreme_pair_delta_sq": delta_sq,
        "sigma": sigma,
        "note": "Gaussian mechanism with Delta/sigma = 1 exactly: rho = 0.5; eps(1e-5) = 4.3772 < 4.7284",
    }


if __name__ == "__main__":
    print(compute())
