"""Truth for r9-c02 (dp_lsw, LEAKY): data-dependent regression weights.

Bug: with no weights given, the candidate sets w_s = max(|X_s|, 1)/m, the visit frequencies of the
private batch. Algorithm 1's analysis needs w public: sigma_X = alpha F ||(Gamma^{1/2} Phi)^+|| sqrt(psi)
now carries ||Gamma^{-1/2}|| = sqrt(m / min_s max(|X_s|, 1)), which moves by up to a factor sqrt(2) when
one trajectory is replaced (a state's count 1 -> 2), with no smoothing: condition (b) of Lemma 1
fails and the variance tells neighbours apart.

Witness (spec parameters: 5 states, tabular, gamma = 0.9, r_max = 1, eps = 1, delta = 0.1, m = 10):
X  = 8 x [0,1,2,3] + [0,1,2,3,4] + x,   x  = [0,1,2,3]       (state 4 visited once)
X' = 8 x [0,1,2,3] + [0,1,2,3,4] + x',  x' = [0,1,2,3,4]     (state 4 visited twice)
all rewards 0 (so theta_X = theta_X' = 0) or reward 1 on state 4 (chain-like; theta moves too).
The outputs are N(theta, sigma^2 I_5) on each side; the exact epsilon at delta = 0.1 of the pair is
computed with the chi-square reduction of common.iso_gaussian_delta (both directions).
Witness epsilon ~ 1.97 (> 1); the supremum over all pairs is not computed (true epsilon >= witness).
The correct version (uniform public weights) has true epsilon 0 at delta = 0.1 (Lemma-1 class).
"""

import _paths  # noqa: F401
import c02_dp_lsw_empirical_weights as cand
import numpy as np
from common import iso_gaussian_epsilon

KW = dict(n_states=5, features="tabular", gamma=0.9, r_max=1.0, epsilon=1.0, delta=0.1, weights=None, f_max=None)


def _traj(states, goal_reward):
    return [[s, 0, goal_reward if s == 4 else 0.0] for s in states]


def witness(goal_reward, m=10):
    short, full = [0, 1, 2, 3], [0, 1, 2, 3, 4]
    base = [_traj(short, goal_reward) for _ in range(m - 2)] + [_traj(full, goal_reward)]
    X, Xp = [*base, _traj(short, goal_reward)], [*base, _traj(full, goal_reward)]
    t1, s1 = cand._theta_sigma(X, **KW)
    t2, s2 = cand._theta_sigma(Xp, **KW)
    gap = float(np.linalg.norm(t1 - t2))
    return iso_gaussian_epsilon(0.1, gap, s1, s2, 5), s1, s2, gap, (X, Xp)


def result():
    rows = {g: witness(g)[:4] for g in (0.0, 1.0)}
    best = max(v[0] for v in rows.values())
    return {
        "name": "r9-c02-dp-lsw-empirical-weights",
        "truth": "leaky",
        "claim": (1.0, 0.1),
        "witness_epsilon": best,
        "rows": rows,
    }


if __name__ == "__main__":
    print(result())
