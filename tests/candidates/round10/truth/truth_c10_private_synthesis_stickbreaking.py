"""Truth for c10 (private): Dirichlet rows by stick-breaking, k = 8, eta = 0.15, row_adjacent(0.1), delta = 0.01.

(1) The stick-breaking sampler is Dir(k p) exactly: y_i / (remaining mass) ~ Beta(k p_i, k sum_{j>i} p_j) is the
standard Dirichlet stick-breaking construction.  Other rows are privatised alike and independently, so under
row_adjacent the release is as private as one Dirichlet draw.

(2) For rows p, p' that differ in entries i, j by t = p_i - p'_i (|t| <= b/2, b = 0.1), the privacy loss is
ln B(k p_i', k p_j') - ln B(k p_i, k p_j) + k t logit(Z), Z = y_i / (y_i + y_j) ~ Beta(k p_i, k p_j) under p and
Beta(k p_i', k p_j') under p' (aggregation property), monotone in Z: delta(eps) = P(Z > z*) - e^eps P'(Z > z*)
(or the lower tails for t < 0), regularised incomplete Beta functions.  The pair only matters through
s = p_i + p_j (in [2 eta, 1 - eta] for three or more entries, or 1 for two) and p_i.  A grid over (s, p_i, t = +-b/2)
followed by Nelder-Mead refinement, and the corner of the feasible set evaluated exactly, give the supremum:
the rows (0.2, 0.15, 0.65) vs (0.15, 0.2, 0.65).
"""

import math
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import minimize
from scipy.special import betainc, betaln

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _profiles import epsilon_at

K, ETA, B, DELTA = 8.0, 0.15, 0.1, 0.01
CLAIM = 1.24


def delta_pair(eps, a, c, t):
    """p = (a, c) on entries i, j; p' = (a - t, c + t)."""
    const = betaln(K * (a - t), K * (c + t)) - betaln(K * a, K * c)
    thr = (eps - const) / (K * t)
    z = 1.0 / (1.0 + math.exp(-thr)) if thr > -700 else 0.0
    if t > 0:
        pp = 1 - betainc(K * a, K * c, z)
        pq = 1 - betainc(K * (a - t), K * (c + t), z)
    else:
        pp = betainc(K * a, K * c, z)
        pq = betainc(K * (a - t), K * (c + t), z)
    return max(0.0, float(pp - math.exp(eps) * pq))


def feasible(s, a, t):
    three = 2 * ETA <= s <= 1 - ETA + 1e-12
    two = abs(s - 1.0) < 1e-12
    return (three or two) and min(a, s - a, a - t, s - a + t) >= ETA - 1e-12


def eps_of(s, a, t):
    if not feasible(s, a, t):
        return 0.0
    return epsilon_at(lambda e: delta_pair(e, a, s - a, t), DELTA, tol=1e-11)


def compute():
    best = (0.0, None)
    for s in [*list(np.linspace(2 * ETA, 1 - ETA, 31)), 1.0]:
        for t in (B / 2, -B / 2):
            lo, hi = ETA + max(t, 0.0), s - ETA + min(t, 0.0)
            if hi < lo:
                continue
            for a in np.linspace(lo, hi, 31):
                e = eps_of(s, a, t)
                if e > best[0]:
                    best = (e, (float(s), float(a), t))
    s0, a0, t0 = best[1]
    if s0 < 1.0:
        res = minimize(
            lambda v: -eps_of(v[0], v[1], t0), [s0, a0], method="Nelder-Mead", options={"xatol": 1e-7, "fatol": 1e-10}
        )
        refined = -res.fun
        if refined > best[0]:
            best = (refined, (float(res.x[0]), float(res.x[1]), t0))
    # the corner of the feasible set (both entries at the floor on one side), evaluated exactly
    corner = eps_of(2 * ETA + B / 2, ETA + B / 2, B / 2)
    if corner > best[0]:
        best = (corner, (2 * ETA + B / 2, ETA + B / 2, B / 2))
    s, a, t = best[1]
    two_entry = max(eps_of(1.0, a2, tt) for tt in (B / 2, -B / 2) for a2 in np.linspace(ETA + 0.05, 1 - ETA, 41))
    return {
        "name": "r10-c10-private-synthesis-stickbreaking",
        "truth": "private",
        "claim": {"epsilon": CLAIM, "delta": DELTA},
        "true_epsilon": float(best[0]),
        "details": {
            "worst_rows": {"p_i": a, "p_j": s - a, "p_i_prime": a - t, "p_j_prime": s - a + t, "rest": 1 - s},
            "worst_on_two_entry_rows": two_entry,
            "corner_rows_(0.2,0.15,0.65)_vs_(0.15,0.2,0.65)": corner,
        },
    }


if __name__ == "__main__":
    print(compute())
