"""Truth for c09_reward_table_data_scale (rl_algorithm kind, leaky, clear: unbounded).

Release: T + Lap(b(X))^{S x A}, T the reward totals per (state, action), b(X) = 2 M(X) / eps with
M(X) = max over episodes of sum_t |r_t| (b = 1/eps when every reward is zero).  The scale is a function of
the data.

Derivation.  Take X = ten chain episodes, each reaching the goal once (reward mass 1, so b(X) = 2), and X'
= X with one episode replaced by a 40-step episode whose rewards are all 1 (inside the declared bounds
[0, 1]; M(X') = 40, b(X') = 80).  For one cell the two laws are Laplace(mu, 2) and Laplace(mu', 80); their
log density ratio is ln(80/2) - |y - mu|/2 + |y - mu'|/80, which tends to -infinity as |y| grows, so the
reverse ratio (X' over X) is unbounded on sets of positive probability: no finite epsilon holds at delta = 0
(true epsilon = +infinity).  Even at delta > 0 the leak is large: the event |y - mu| > 20 has probability
e^{-10} ~ 4.5e-5 under X and about e^{-20/80} ~ 0.78 under X' (closed form of the Laplace tails below).
The scales come from the candidate's own code on these two datasets.
"""

import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

EPS = 1.0


def compute():
    import c09_reward_table_data_scale as cand

    goal_episode = [[0, 0, 0.0], [1, 0, 0.0], [2, 0, 0.0], [3, 0, 0.0], [4, 0, 1.0]]
    first = [goal_episode] * 10
    second = [goal_episode] * 9 + [[[s % 5, 0, 1.0] for s in range(40)]]
    t1, sens1 = cand._reward_table(first, 5, 1)
    t2, sens2 = cand._reward_table(second, 5, 1)
    b1, b2 = sens1 / EPS, sens2 / EPS
    # a cell whose centre moves little: state 0 (reward 0 vs 8 in X'); event |y - t1| > 20 on that cell
    mu1, mu2 = float(t1[0, 0]), float(t2[0, 0])
    tail = 20.0

    def outside(mu, b, centre, r):
        # P(|Y - centre| > r) for Y ~ Laplace(mu, b)
        lo, hi = centre - r, centre + r

        def cdf(x):
            return 0.5 * math.exp((x - mu) / b) if x < mu else 1 - 0.5 * math.exp(-(x - mu) / b)

        return cdf(lo) + 1 - cdf(hi)

    p_first = outside(mu1, b1, mu1, tail)
    p_second = outside(mu2, b2, mu1, tail)
    return {
        "truth": "leaky",
        "claim_epsilon": EPS,
        "claim_delta": 0.0,
        "true_epsilon": math.inf,
        "scales": [b1, b2],
        "event_abs_dev_gt_20_cell0": {"P_X": p_first, "P_X_prime": p_second, "log_ratio": math.log(p_second / p_first)},
        "note": "Laplace scale 2 M(X)/eps read off the batch: different scales on neighbours, unbounded loss",
    }


if __name__ == "__main__":
    print(compute())
