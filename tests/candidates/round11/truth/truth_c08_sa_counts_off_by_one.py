"""Truth for c08_sa_counts_off_by_one (rl_algorithm kind, leaky, subtle).

The candidate counts (state, action) over the steps t = 0, ..., horizon of every episode (the loop breaks
only when t > horizon): horizon + 1 = 5 steps, not 4.  The noise is Laplace(2 * horizon / eps) = Laplace(8)
i.i.d. per cell.

Derivation.  Each episode of length >= 5 adds exactly 5 unit counts (fewer if shorter), so replacing one
episode moves the table by at most 2 (horizon + 1) = 10 in L1, with equality when the two episodes' first
five (state, action) pairs are disjoint multisets (e.g. five steps in (0, 0) against five in (2, 1); the MDP's
episodes have 12 steps).  For product Laplace noise the pure-DP epsilon is ||Delta||_1 / b exactly (attained on a
positive-probability set), so

    eps_true = 2 (horizon + 1) / (2 horizon / eps) = (horizon + 1) / horizon * eps = 5/4 = 1.25   (+25%).

(Under add/remove-one it would be 5/8.)  The table of the candidate itself on the extreme pair is computed
below as a check of the count of steps.
"""

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

EPS, H, S, A = 1.0, 4, 3, 2


def compute():
    import c08_sa_counts_off_by_one as cand

    base = [[[1, 0, 0.5], [0, 1, 0.2], [2, 0, 1.0]] * 4 for _ in range(9)]
    first = [*base, [[0, 0, 0.0]] * 12]
    second = [*base, [[2, 1, 0.0]] * 12]
    d = cand._visit_table(first, H, S, A) - cand._visit_table(second, H, S, A)
    l1 = float(np.abs(d).sum())
    scale = 2.0 * H / EPS
    return {
        "truth": "leaky",
        "claim_epsilon": EPS,
        "claim_delta": 0.0,
        "true_epsilon": 2.0 * (H + 1) / scale,
        "l1_on_extreme_pair": l1,
        "laplace_scale": scale,
        "add_remove_epsilon": (H + 1) / scale,
        "note": "counts horizon + 1 = 5 steps per episode, noise for 4: eps = 10/8 = 1.25",
    }


if __name__ == "__main__":
    print(compute())
