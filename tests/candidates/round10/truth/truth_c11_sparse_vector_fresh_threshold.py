"""Truth for c11 (leaky): AboveThreshold with the threshold noise redrawn for every query.

With rho_i ~ Lap(2/eps) fresh per query and nu_i ~ Lap(4/eps), the comparisons are independent:
P(out = i) = prod_{j < i} G(T - q_j) * (1 - G(T - q_i)) and P(out = k) = prod_j G(T - q_j), where G is the CDF of
D = nu - rho (symmetric; density (b1 e^{-|x|/b1} - b2 e^{-|x|/b2}) / (2 (b1^2 - b2^2)), b1 = 4/eps, b2 = 2/eps),
G(x) = (b1^2 e^{x/b1} - b2^2 e^{x/b2}) / (2 (b1^2 - b2^2)) for x <= 0 and 1 - G(-x) for x > 0.
Neighbours move every q_j by at most one within [0, 20] (T = 10), each independently, so the largest
log-ratio of an output is the sum of the largest log-ratio of each factor, each maximised over its own
(q_j, q_j') in the domain (the maximum over both directions).  Output k ("none above") has k "below" factors,
output i < k has i "below" factors and one "above" factor; by the symmetry of D the two kinds of factor have the
same maximum, so the supremum is k times it.  Exact (closed form, no integration).
"""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

EPS, T, LOW, HIGH, K = 1.0, 10.0, 0, 20, 5


def cdf(x, b1=4.0 / EPS, b2=2.0 / EPS):
    if x <= 0:
        return (b1 * b1 * math.exp(x / b1) - b2 * b2 * math.exp(x / b2)) / (2 * (b1 * b1 - b2 * b2))
    return 1.0 - cdf(-x, b1, b2)


def compute():
    below, above = 0.0, 0.0
    arg_below = None
    for q in range(LOW, HIGH + 1):
        for q2 in (q - 1, q + 1):
            if not LOW <= q2 <= HIGH:
                continue
            lb = math.log(cdf(T - q)) - math.log(cdf(T - q2))
            la = math.log(1 - cdf(T - q)) - math.log(1 - cdf(T - q2))
            if lb > below:
                below, arg_below = lb, (q, q2)
            above = max(above, la)
    per_output = {str(i): i * below + above for i in range(K)}
    per_output[str(K) + " (none)"] = K * below
    true_eps = max(per_output.values())
    return {
        "name": "r10-c11-sparse-vector-fresh-threshold",
        "truth": "leaky",
        "claim": {"epsilon": EPS, "delta": 0.0},
        "true_epsilon": true_eps,
        "details": {
            "largest_below_factor": below,
            "its_pair_q_vs_q_prime": arg_below,
            "largest_above_factor": above,
            "tail_slope_eps_over_4": EPS / 4,
            "log_ratio_by_output": per_output,
            "worst_pair": (
                "output 'none': all five counts 19 (X) vs all 20 (X'); "
                "output 4: counts 1-4 at 19 vs 20 and count 5 at 1 vs 0"
            ),
        },
    }


if __name__ == "__main__":
    print(compute())
