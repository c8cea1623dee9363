"""Truth for c01 (private): clipped mean return + analytic-Gaussian noise, replace-one.

Replace-one keeps m; one trajectory's clipped return moves from any value in [0, cap] to any other, so the
mean moves by at most cap/m, attained (return >= cap against return 0).  The release is the Gaussian
mechanism with shift/std = (cap/m) / (c cap/m) = 1/c, whatever m.  Its exact epsilon at delta = 1e-5 is the
Balle-Wang epsilon at mu = 1/c, with c the candidate's own multiplier (recomputed independently here too).
"""

import sys
from pathlib import Path

from scipy.optimize import brentq

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _profiles import gaussian_shift_delta, gaussian_shift_epsilon

EPS, DELTA = 1.0, 1e-5


def compute():
    import c01_mean_return_analytic as cand

    c_candidate = cand.noise_multiplier(EPS, DELTA)
    mu_independent = brentq(lambda mu: gaussian_shift_epsilon(mu, DELTA) - EPS, 0.01, 5.0, xtol=1e-14)
    true_eps = gaussian_shift_epsilon(1.0 / c_candidate, DELTA)
    return {
        "name": "r10-c01-mean-return-analytic",
        "truth": "private",
        "claim": {"epsilon": EPS, "delta": DELTA},
        "true_epsilon": true_eps,
        "details": {
            "candidate_multiplier_c": c_candidate,
            "independent_multiplier_c": 1.0 / mu_independent,
            "exact_delta_at_claimed_epsilon": gaussian_shift_delta(EPS, 1.0 / c_candidate),
            "worst_pair": "any m; one episode with clipped return 5 replaced by one with return 0: shift 5/m, std 5c/m",
        },
    }


if __name__ == "__main__":
    print(compute())
