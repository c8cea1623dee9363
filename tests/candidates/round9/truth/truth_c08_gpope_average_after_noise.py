"""Truth for r9-c08 (gpope, LEAKY): the noise is divided by the sampled trajectory's length.

Bug: each iteration clips the SUM of the trajectory's per-transition gradients, adds h sigma Z, and only
then divides by the trajectory's number of transitions L_i. The noise actually added to the step is
h sigma Z / L_i: a long trajectory is released with L_i times less noise, and L_i is private (it is
part of the replaced trajectory). The clipped signal also shrinks by 1/L_i, so the signal-to-noise
ratio of one step is unchanged; the leak is the scale itself.

Witness (spec: m = 2 trajectories, N = 2, h = 5, sigma = 2, eta = 1, delta = 1e-3; claim 3.17, the
composition bound of the correct algorithm, see gpope_accounting.py and the example spec):
every feature vector is 0 (phi = phi_next = 0, rewards 0, rho = 1), so every gradient is exactly 0
whatever (theta, w) is, and theta_3 = -eta h sigma (Z_1 / L_{i1} + Z_2 / L_{i2}) (theta block of Z).
X: both trajectories have one transition: theta_3 ~ N(0, 2 s^2), s = eta h sigma = 10.
X': the second trajectory has L transitions: theta_3 ~ 1/4 N(0, 2 s^2) + 1/2 N(0, (1 + 1/L^2) s^2)
+ 1/4 N(0, 2 s^2/L^2). Exact epsilon at 1e-3 of this pair (1-D scale mixtures, both directions):
L = 50: 2.57, L = 200: 3.90, L = 1000: 5.49; it grows like ln L without bound, so the true epsilon
(over all datasets, trajectory lengths unbounded) is inf. The correct algorithm (mean before clip and
noise) releases N(0, 2 s^2) on both sides of this pair.
"""

import math

import _paths  # noqa: F401
from common import epsilon_from_profile, scale_mixture_delta


def pair_epsilon(L, delta=1e-3):
    wq = [0.25, 0.5, 0.25]
    sq = [math.sqrt(2.0), math.sqrt(1.0 + 1.0 / L**2), math.sqrt(2.0) / L]
    sp = [math.sqrt(2.0)]
    prof = lambda e: max(scale_mixture_delta(e, [1.0], sp, wq, sq), scale_mixture_delta(e, wq, sq, [1.0], sp))  # noqa: E731
    return epsilon_from_profile(prof, delta)


def result():
    return {
        "name": "r9-c08-gpope-average-after-noise",
        "truth": "leaky",
        "claim": (3.17, 1e-3),
        "witness": {L: pair_epsilon(L) for L in (50, 200, 1000)},
        "true_epsilon": float("inf"),
    }


if __name__ == "__main__":
    print(result())
