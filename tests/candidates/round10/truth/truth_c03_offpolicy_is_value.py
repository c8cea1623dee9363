"""Truth for c03 (leaky): clipped importance-sampling value with noise for the returns' sensitivity only.

Each episode contributes min(w, W) * clip(G, 0, B) in [0, W B]; replace-one moves the mean by at most
W B / m, attained.  The Laplace scale is B / (m eps), so the pure-DP epsilon is exactly W * eps.  The
attaining pair is evaluated below with the candidate's own estimate (two steps of action 0 in states 0, 1 have
pi/mu = 1.8 each, weight 3.24 -> clipped to 3; rewards 1 give a return of 1 + 0.95 + 0.9025 + 0.857 >= 3).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

EPS = 1.0
PARAMS = {
    "epsilon": EPS,
    "gamma": 0.95,
    "return_cap": 3.0,
    "weight_cap": 3.0,
    "target_policy": [[0.9, 0.1], [0.9, 0.1], [0.2, 0.8]],
    "behaviour_policy": [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]],
}


def compute():
    import c03_offpolicy_is_value as cand

    m = 10
    common = [[[0, 1, 0.0], [1, 1, 0.0]] for _ in range(m - 1)]
    heavy = [[0, 0, 1.0], [1, 0, 1.0], [0, 0, 1.0], [1, 0, 1.0]]
    empty = [[0, 1, 0.0]]
    v1, scale = cand._estimate_and_scale([*common, heavy], **PARAMS)
    v2, _ = cand._estimate_and_scale([*common, empty], **PARAMS)
    attained = abs(v1 - v2) / scale
    bound = PARAMS["weight_cap"] * PARAMS["return_cap"] / m / scale
    return {
        "name": "r10-c03-offpolicy-is-value",
        "truth": "leaky",
        "claim": {"epsilon": EPS, "delta": 0.0},
        "true_epsilon": bound,
        "details": {"attained_on_pair": attained, "upper_bound_W_eps": bound, "m": m},
    }


if __name__ == "__main__":
    print(compute())
