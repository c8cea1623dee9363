"""Truth for c05 (leaky): Poisson-sampled clipped step, sigma from an add/remove accountant, replace-one claim.

Model (clip h = 1, q = 1/m, noise std sigma): by joint convexity and translation invariance the other records'
sampled sum can be taken at 0, so the worst replace-one pair is (1-q) N(0) + q N(a) vs (1-q) N(0) + q N(b)
with |a|, |b| <= 1.  For the antipodal colinear pair a = 1, b = -1 the likelihood ratio is monotone in y and
delta(eps) = P(y > y*) - e^eps Q(y > y*) with the root y* found by brentq (closed form in normal CDFs); the
generic mixture routine of _profiles gives the same number.  That this pair is the worst is checked: all
colinear pairs (a, b) on a grid of [-1, 1]^2 have a smaller delta at the true epsilon, and so do antipodal-norm
pairs at angles 90..150 degrees (2-D quadrature).

sigma is the candidate's own calibration (add/remove-one, both directions); checked with the generic routine.
"""

import math
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtr

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _profiles import epsilon_at, mixture_delta, mixture_delta_2d, mixture_epsilon

EPS, DELTA, M = 1.0, 1e-5, 4


def replace_one_delta(eps, q, s):
    """(1-q) N(0,s^2) + q N(1,s^2) against (1-q) N(0,s^2) + q N(-1,s^2): monotone likelihood ratio."""

    def log_ratio(y):
        up = math.log((1 - q) + q * math.exp((2 * y - 1) / (2 * s * s)))
        down = math.log((1 - q) + q * math.exp((-2 * y - 1) / (2 * s * s)))
        return up - down - eps

    # the ratio increases from (1-q)/... -> 0 at y -> -inf to +inf at y -> +inf: one root
    y = brentq(log_ratio, -50 * s - 10, 50 * s + 10, xtol=1e-15, rtol=1e-15)
    p_tail = (1 - q) * ndtr(-y / s) + q * ndtr(-(y - 1) / s)
    q_tail = (1 - q) * ndtr(-y / s) + q * ndtr(-(y + 1) / s)
    return float(max(0.0, p_tail - math.exp(eps) * q_tail))


def compute():
    import c05_gpope_step_addremove_calibration as cand

    q = 1.0 / M
    sigma = cand.calibrate_noise_multiplier(EPS, DELTA, q)
    add_remove_generic = mixture_epsilon(DELTA, [1 - q, q], [0.0, 1.0], [1.0], [0.0], sigma)
    true_eps = epsilon_at(lambda e: replace_one_delta(e, q, sigma), DELTA)
    generic = mixture_epsilon(DELTA, [1 - q, q], [0.0, 1.0], [1 - q, q], [0.0, -1.0], sigma)
    # colinear pairs
    grid = np.linspace(-1.0, 1.0, 9)
    colinear_max = 0.0
    for a in grid:
        for b in grid:
            colinear_max = max(colinear_max, mixture_delta(true_eps, [1 - q, q], [0.0, a], [1 - q, q], [0.0, b], sigma))
    # non-colinear pairs |a| = |b| = 1 at an angle
    antipodal_2d = mixture_delta_2d(true_eps, [1 - q, q], [(0, 0), (1, 0)], [1 - q, q], [(0, 0), (-1, 0)], sigma)
    angles = {}
    for degrees in (90, 120, 150):
        t = math.radians(degrees)
        angles[degrees] = mixture_delta_2d(
            true_eps, [1 - q, q], [(0, 0), (1, 0)], [1 - q, q], [(0, 0), (math.cos(t), math.sin(t))], sigma
        )
    return {
        "name": "r10-c05-gpope-step-addremove-calibration",
        "truth": "leaky",
        "claim": {"epsilon": EPS, "delta": DELTA},
        "true_epsilon": true_eps,
        "details": {
            "sigma_candidate": sigma,
            "add_remove_epsilon_of_sigma (generic check, = the target 1)": add_remove_generic,
            "replace_one_epsilon_generic_mixture_routine": generic,
            "delta_at_true_eps_antipodal_1d": replace_one_delta(true_eps, q, sigma),
            "max_delta_at_true_eps_over_colinear_grid": colinear_max,
            "delta_at_true_eps_antipodal_2d_quadrature": antipodal_2d,
            "delta_at_true_eps_by_angle_2d": angles,
        },
    }


if __name__ == "__main__":
    print(compute())
