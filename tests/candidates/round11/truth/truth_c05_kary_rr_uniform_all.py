"""Truth for c05_kary_rr_uniform_all (black_box kind, leaky, subtle).

The candidate keeps the answer with probability p = e^eps / (e^eps + k - 1) and otherwise reports an option
drawn uniformly from all k options (the true one included).  Hence, exactly,

    P(y = x | x) = p + (1 - p)/k,      P(y = j | x) = (1 - p)/k   for j != x.

Under the user relation (any answer x replaced by any x' != x) the largest likelihood ratio is at y = x:

    (p + (1 - p)/k) / ((1 - p)/k) = 1 + k p / (1 - p) = 1 + k e^eps / (k - 1),

so the true epsilon is ln(1 + k e^eps / (k - 1)); at eps = 2, k = 4: ln(1 + 4 e^2 / 3) = 2.38437 (+19.2%).
(Correct k-ary RR reports a *different* option uniformly, i.e. (1 - p)/(k - 1) each, ratio exactly e^eps.)
Exact enumeration of the 4 x 4 output law below confirms the maximum over pairs and outputs.
"""

import math

EPS, K = 2.0, 4


def compute():
    p = math.exp(EPS) / (math.exp(EPS) + K - 1)
    law = [[(p if y == x else 0.0) + (1 - p) / K for y in range(K)] for x in range(K)]
    worst = max(math.log(law[x][y] / law[x2][y]) for x in range(K) for x2 in range(K) if x2 != x for y in range(K))
    closed = math.log(1 + K * math.exp(EPS) / (K - 1))
    return {
        "truth": "leaky" if worst > EPS else "private",
        "claim_epsilon": EPS,
        "claim_delta": 0.0,
        "true_epsilon": closed,
        "enumerated_epsilon": worst,
        "excess": closed / EPS - 1,
        "p_report_truth": law[0][0],
        "p_report_other": law[0][1],
        "note": "ln(1 + k e^eps / (k - 1)) with k = 4, eps = 2",
    }


if __name__ == "__main__":
    print(compute())
