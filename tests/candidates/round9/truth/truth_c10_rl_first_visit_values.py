"""Truth for r9-c10 (rl_algorithm, LEAKY, subtle): the return is brought back to the visit time with
gamma^(t+1) instead of gamma^t.

The code computes tail_t = sum_{j>=t} gamma^j r_j and divides by gamma^(t+1): every first-visit return
is G_t / gamma, so returns range over [0, r_max / (gamma (1 - gamma))] while the Laplace scale
S r_max / ((1 - gamma) m epsilon) assumes [0, r_max / (1 - gamma)].
Replace-one moves coordinate s of V by |G_x(s) - G_x'(s)| / (gamma m); take x a trajectory through all S
states in its first S steps that then keeps collecting r_max for L more steps, and x' = one step in
state 0 with reward 0: coordinate s moves by (r_max/((1-gamma) gamma m)) (1 - gamma^(L + S - t_s))
-> r_max / ((1-gamma) gamma m) as L grows. The Laplace mechanism's epsilon on a pair is exactly
||V_X - V_X'||_1 / scale (pure DP), so the true epsilon is sup = epsilon / gamma.
Spec: gamma = 0.8, epsilon = 1, delta = 0: true epsilon 1.25 (a supremum, approached as trajectories grow;
a trajectory of 40 steps that visits the S = 5 states first gives 1.2497, computed below on that
pair with the candidate's own statistic).
"""

import _paths  # noqa: F401
import c10_rl_first_visit_values as cand
import numpy as np

S, GAMMA, EPS, RMAX, M = 5, 0.8, 1.0, 1.0, 10


def pair_epsilon(length=40):
    rest = [[[0, 0, 0.0]] for _ in range(M - 1)]
    x = [[s, 0, RMAX] for s in range(S)] + [[S - 1, 0, RMAX]] * (length - S)
    xp = [[0, 0, 0.0]]
    v1 = cand._values([*rest, x], GAMMA, S)
    v2 = cand._values([*rest, xp], GAMMA, S)
    scale = S * RMAX / ((1.0 - GAMMA) * M * EPS)
    return float(np.abs(v1 - v2).sum() / scale)


def result():
    return {
        "name": "r9-c10-rl-first-visit-values",
        "truth": "leaky",
        "claim": (EPS, 0.0),
        "true_epsilon": EPS / GAMMA,
        "pair_epsilon_len40": pair_epsilon(40),
        "pair_epsilon_len400": pair_epsilon(400),
    }


if __name__ == "__main__":
    print(result())
