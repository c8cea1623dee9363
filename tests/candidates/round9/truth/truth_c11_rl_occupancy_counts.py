"""Truth for r9-c11 (rl_algorithm, LEAKY, subtle): noise calibrated to ONE trajectory's contribution.

The counts of state visits in the first T = 10 steps of each trajectory get N(0, sigma^2 I) with
sigma = T sqrt(2 ln(1.25/delta)) / epsilon, i.e. an L2 sensitivity of T: the norm of one trajectory's
count vector (the add/remove-one sensitivity). Under replace-one two count vectors change:
||c_x - c_x'||_2^2 = ||c_x||^2 + ||c_x'||^2 - 2 <c_x, c_x'> <= 2 T^2 (non-negative vectors), attained by
x = T steps in state 0 and x' = T steps in state 1. So the release is the Gaussian mechanism with
Delta/sigma = sqrt(2) / sqrt(2 ln(1.25/delta)) * epsilon, whose exact epsilon (Balle & Wang 2018) at
delta = 1e-6, claimed epsilon 1, is 1.13834 (14% over). The correct calibration (sensitivity sqrt(2) T)
would give 0.7837 <= 1. True epsilon 1.1383 (attained on the pair above).
"""

import math

import _paths  # noqa: F401
from common import gaussian_epsilon

EPS, DELTA = 1.0, 1e-6


def result():
    c = math.sqrt(2.0 * math.log(1.25 / DELTA)) / EPS
    return {
        "name": "r9-c11-rl-occupancy-counts",
        "truth": "leaky",
        "claim": (EPS, DELTA),
        "true_epsilon": gaussian_epsilon(math.sqrt(2.0) / c, DELTA),
        "correct_version_epsilon": gaussian_epsilon(1.0 / c, DELTA),
    }


if __name__ == "__main__":
    print(result())
