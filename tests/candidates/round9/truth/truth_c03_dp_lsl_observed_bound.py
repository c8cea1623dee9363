"""Truth for r9-c03 (dp_lsl, LEAKY): the return bound F_max is read off the private data.

Bug: with no f_max given the candidate uses F = min(max |first-visit return| in X, r_max/(1-gamma)).
Balle et al. (Sec. 3.1) allow a smaller F_max only if it is public; here sigma_X is proportional to a
statistic of X with no smoothing, so condition (b) of Lemma 1 fails without bound.

Witness 1 (epsilon = inf): X = 10 trajectories [0,1,2,3] with every reward 0, so every return is 0,
F = 0, sigma_X = 0 and the release is exactly theta_X = 0 (a point mass); X' replaces one trajectory
by [0,1,2,3,4] with reward 1 at state 4: F = 1, sigma_X' > 0, and the release has a density. The
event {output = theta_X} has probability 1 under X and 0 under X': not (eps, delta)-DP for any
finite eps and delta < 1.
Witness 2 (no zero returns): X = 10 x [0,1,2,3,4] with reward 1 at state 4 (F = 1), X' replaces one
by the same path with every reward 1 (F = 1 + .9 + .81 + .729 + .6561 = 4.0951): sigma ratio 4.1 in
d = 5 dimensions; exact epsilon at delta = 0.1 computed below (about 65).
True epsilon: inf (claim 1 at delta = 0.1).
"""

import _paths  # noqa: F401
import c03_dp_lsl_observed_bound as cand
import numpy as np
from common import iso_gaussian_epsilon

ARGS = dict(n_states=5, features="tabular", gamma=0.9, r_max=1.0, lam=5.0, epsilon=1.0, delta=0.1, rho=None, f_max=None)


def _fit(X):
    a = ARGS
    return cand._fit(
        X,
        a["n_states"],
        a["features"],
        a["gamma"],
        a["r_max"],
        a["lam"],
        a["epsilon"],
        a["delta"],
        a["rho"],
        a["f_max"],
    )


def result():
    zero = [[[s, 0, 0.0] for s in (0, 1, 2, 3)] for _ in range(10)]
    goal = [[0, 0, 0.0], [1, 0, 0.0], [2, 0, 0.0], [3, 0, 0.0], [4, 0, 1.0]]
    _t1, s1 = _fit(zero)
    _t2, s2 = _fit([*zero[:-1], goal])
    base = [list(goal) for _ in range(10)]
    t3, s3 = _fit(base)
    t4, s4 = _fit([*base[:-1], [[s, 0, 1.0] for s in range(5)]])
    w2 = iso_gaussian_epsilon(0.1, float(np.linalg.norm(t3 - t4)), s3, s4, 5)
    return {
        "name": "r9-c03-dp-lsl-observed-bound",
        "truth": "leaky",
        "claim": (1.0, 0.1),
        "witness1_sigmas": (s1, s2),
        "true_epsilon": float("inf"),
        "witness2_epsilon": w2,
        "witness2_sigmas": (s3, s4),
    }


if __name__ == "__main__":
    print(result())
