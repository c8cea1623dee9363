"""Truth for c02 (private): first-visit action counts + two-sided geometric noise, alpha = exp(-eps/(2S)).

Discrete Laplace: P(c + Z = y) / P(c' + Z = y) = alpha^(|y - c| - |y - c'|) <= alpha^-||c - c'||_1, with equality
for y on the far side of both.  So the true epsilon is max ||c - c'||_1 * eps / (2S).  Replace-one: each state
row loses at most one count and gains at most one, L1 <= 2S, attained by two episodes that visit every state
and take different first actions; add/remove: L1 <= S.  The pair below is built and counted with the
candidate's own counting function.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

EPS, S, A = 1.0, 5, 3


def compute():
    import c02_policy_counts_geometric as cand

    common = [[[s, 0, 0.0] for s in range(S)] for _ in range(9)]
    x = [[s, 1, 0.0] for s in range(S)]  # visits every state, first action 1 everywhere
    x_prime = [[s, 2, 0.0] for s in range(S)]  # visits every state, first action 2 everywhere
    c1 = cand._first_visit_counts([*common, x], S, A)
    c2 = cand._first_visit_counts([*common, x_prime], S, A)
    c3 = cand._first_visit_counts(common, S, A)
    l1_replace = int(abs(c1 - c2).sum())
    l1_add = int(abs(c1 - c3).sum())
    unit = EPS / (2 * S)  # ln(1/alpha)
    return {
        "name": "r10-c02-policy-counts-geometric",
        "truth": "private",
        "claim": {"epsilon": EPS, "delta": 0.0},
        "true_epsilon": l1_replace * unit,
        "details": {
            "l1_replace_one_attained": l1_replace,
            "l1_replace_one_bound": 2 * S,
            "epsilon_replace_one": l1_replace * unit,
            "epsilon_add_remove_one": l1_add * unit,
        },
    }


if __name__ == "__main__":
    print(compute())
