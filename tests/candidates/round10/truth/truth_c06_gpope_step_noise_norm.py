"""Truth for c06 (leaky): uniform_one GPOPE step with noise h sigma / sqrt(d) per coordinate.

uniform_one, replace record j: P = (1-q) R + q N(a), Q = (1-q) R + q N(b), R the mixture of the other
records' clipped gradients (each in the h-ball), q = 1/m.  Decomposing R into its components on both sides,
joint convexity bounds the hockey-stick divergence by the worst single component: the worst case is
(1-q) N(c) + q N(a) vs (1-q) N(c) + q N(b) over c, a, b in the h-ball.  On the line through a = h, b = -h it
is largest at c = a (N(h) vs (1-q) N(h) + q N(-h), either order), checked on a grid of c; centres off the
line (c on the h-circle at 45..135 degrees) are checked by 2-D quadrature to give a smaller delta.

Claim: the reference's epsilon (std h sigma = 3) at delta = 1e-5, 1.3548, rounded up to 1.36.
True: the same worst pair with the candidate's std h sigma / sqrt(4) = 1.5.
"""

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _profiles import mixture_delta, mixture_delta_2d, mixture_epsilon

DELTA, M, H, SIGMA, D = 1e-5, 4, 1.0, 3.0, 4
CLAIM = 1.36


def worst_on_line(sd, q):
    """epsilon of the endpoint pair c = -h (= c = +h by symmetry), and the largest delta at that epsilon
    over the other centres c of a grid on the line (both orders): at most DELTA when the endpoint is worst."""
    best = mixture_epsilon(DELTA, [1 - q, q], [-H, H], [1 - q, q], [-H, -H], sd)
    others = 0.0
    for c in np.linspace(-H, H, 9)[1:-1]:
        others = max(
            others,
            mixture_delta(best, [1 - q, q], [c, H], [1 - q, q], [c, -H], sd),
            mixture_delta(best, [1 - q, q], [c, -H], [1 - q, q], [c, H], sd),
        )
    return best, others


def delta_2d_both(eps, c, sd, q):
    p = ([1 - q, q], [c, (H, 0.0)])
    r = ([1 - q, q], [c, (-H, 0.0)])
    return max(mixture_delta_2d(eps, *p, *r, sd), mixture_delta_2d(eps, *r, *p, sd))


def compute():
    q = 1.0 / M
    reference, ref_others = worst_on_line(H * SIGMA, q)
    sd = H * SIGMA / math.sqrt(D)
    true_eps, true_others = worst_on_line(sd, q)
    at_line = delta_2d_both(true_eps, (H, 0.0), sd, q)
    off_line = {}
    for degrees in (45, 90, 135):
        t = math.radians(degrees)
        off_line[degrees] = delta_2d_both(true_eps, (H * math.cos(t), H * math.sin(t)), sd, q)
    return {
        "name": "r10-c06-gpope-step-noise-norm",
        "truth": "leaky",
        "claim": {"epsilon": CLAIM, "delta": DELTA},
        "true_epsilon": true_eps,
        "details": {
            "reference_epsilon (std h sigma)": reference,
            "reference_max_delta_other_c_on_line": ref_others,
            "candidate_std": sd,
            "max_delta_at_true_eps_other_c_on_line": true_others,
            "delta_at_true_eps_c_at_endpoint_2d_quadrature": at_line,
            "delta_at_true_eps_c_on_circle_2d_by_angle": off_line,
        },
    }


if __name__ == "__main__":
    print(compute())
