"""Truth for c04 (leaky): visit frequencies + N(0, (c sqrt(S)/m)^2 I) with m = len(dataset), add/remove-one.

Replace-one: shift <= sqrt(S)/m (every indicator flips), std c sqrt(S)/m: shift/std = 1/c, epsilon = eps.
Add/remove-one between k and k + 1 episodes: per state |n/k - (n + I)/(k + 1)| = |n - k I| / (k (k + 1)) <=
1/(k + 1), so the shift is at most sqrt(S)/(k + 1) (attained: the k common episodes visit states 1..4 and
the added one only state 0), while the stds are c sqrt(S)/k and c sqrt(S)/(k + 1).  The exact epsilon at
delta of N(0, s1^2 I_5) vs N(shift e_1, s2^2 I_5) (both orders) is computed by _profiles.two_gaussian_delta;
the empty dataset is released with m = 1 (shift <= sqrt(S), equal stds: epsilon = eps).  The supremum over k
is at k = 1 (one episode against two); the values decrease with k and are listed for the spec's size, 20.
"""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _profiles import gaussian_shift_epsilon, two_gaussian_epsilon

EPS, DELTA, S = 1.0, 1e-5, 5


def compute():
    import c04_visit_frequencies_addremove as cand

    c = cand._multiplier(EPS, DELTA)
    per_k = {}
    for k in (1, 2, 3, 5, 10, 20, 50):
        s1, s2 = c * math.sqrt(S) / k, c * math.sqrt(S) / (k + 1)
        best = 0.0
        for frac in (0.0, 0.5, 1.0):
            best = max(best, two_gaussian_epsilon(DELTA, S, s1, s2, frac * math.sqrt(S) / (k + 1)))
        per_k[k] = best
    replace_one = gaussian_shift_epsilon(1.0 / c, DELTA)
    true_eps = max(max(per_k.values()), replace_one)
    return {
        "name": "r10-c04-visit-frequencies-addremove",
        "truth": "leaky",
        "claim": {"epsilon": EPS, "delta": DELTA},
        "true_epsilon": true_eps,
        "details": {
            "multiplier_c": c,
            "replace_one_epsilon": replace_one,
            "add_remove_epsilon_by_k (k vs k+1 episodes)": {str(k): v for k, v in per_k.items()},
            "worst_pair": "1 episode visiting states 1-4 vs the same plus 1 episode visiting only state 0: "
            "N(p, (c sqrt5)^2 I) vs N(p', (c sqrt5 / 2)^2 I), ||p - p'|| = sqrt5 / 2",
        },
    }


if __name__ == "__main__":
    print(compute())
