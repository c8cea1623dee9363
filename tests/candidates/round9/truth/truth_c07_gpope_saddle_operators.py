"""Truth for r9-c07 (gpope, PRIVATE).

The candidate is Algorithm 1 of Xie et al. (2019) written from the GTD2 operators A_i, b_i, C_i
(one uniformly drawn trajectory per iteration, L2 clip h, noise h sigma N(0, I_{2n}), constant step).
Spec: m = 3, N = 2, h = 2, sigma = 2.5, eta = 0.5, delta = 1e-3, replace-one.
The N noisy gradients are an adaptive composition of N steps each dominated as in
gpope_accounting.py: eps(1e-3) = 1.6145 -> claim 1.62. theta_3 is a post-processing of them,
so its true epsilon is at most 1.6145 (the exact epsilon of theta_3 alone is smaller and is not
computed). Private.
"""

import _paths  # noqa: F401
from gpope_accounting import two_step_epsilon


def result():
    return {
        "name": "r9-c07-gpope-saddle-operators",
        "truth": "private",
        "claim": (1.62, 1e-3),
        "upper_bound": two_step_epsilon(3, 2.5, 1e-3),
    }


if __name__ == "__main__":
    print(result())
