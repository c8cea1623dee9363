"""Truth for c07_noisy_max_with_score (black_box kind, leaky, clear: unbounded).

Release (i, v): i = argmax_j (c_j + G_j), v = c_i + G_i, G_j i.i.d. Gumbel(0, b), b = 2/eps = 2.
Joint density:  f_c(i, v) = g(v - c_i) prod_{j != i} F(v - c_j),  g(x) = (1/b) exp(-x/b - e^{-x/b}),
F(x) = exp(-e^{-x/b}).

Neighbours c' = c + e_i (the winner's tally moves by one; the user relation).  The other factors cancel:
    ln f_c(i, v) / f_{c'}(i, v) = ln g(x) - ln g(x - 1) = -1/b + e^{-x/b} (e^{1/b} - 1),   x = v - c_i,
which grows without bound as x -> -infinity, on a set of positive probability under both inputs.  Hence no
finite eps satisfies eps-DP (delta = 0): the true epsilon is +infinity.  (The winner alone is the exponential
mechanism, eps-DP; the Gumbel's doubly exponential left tail makes the score leak.)

For scale, exact event probabilities (1-D quadrature, scipy quad to 1e-12 relative) on the pair
c = (6, 2, 2), c' = (7, 2, 2), event E_t = {i = 0 and v < 6 - t} (the same set on both sides): the exact
ln P_c(E_t) / P_{c'}(E_t) is 0.98 at t = 1, 1.68 at t = 2 (P_c(E_2) = 0.025), 2.82 at t = 3, 4.71 at t = 4.
"""

import math

from scipy.integrate import quad

EPS = 1.0
B = 2.0 / EPS


def g(x):
    return math.exp(-x / B - math.exp(-x / B)) / B


def F(x):
    return math.exp(-math.exp(-x / B))


def event_prob(c, top):
    """P_c(i = 0 and v < top)."""

    def integrand(v):
        out = g(v - c[0])
        for cj in c[1:]:
            out *= F(v - cj)
        return out

    val, _ = quad(integrand, top - 40.0, top, epsabs=0, epsrel=1e-12, limit=200)
    return val


def compute():
    c, c2 = (6, 2, 2), (7, 2, 2)
    rows = {}
    for t in (1, 2, 3, 4):
        p, q = event_prob(c, c[0] - t), event_prob(c2, c[0] - t)
        rows[t] = {"P_c": p, "P_c_prime": q, "log_ratio": math.log(p / q)}
    pointwise = {x: -1 / B + math.exp(-x / B) * (math.exp(1 / B) - 1) for x in (0, -2, -4, -8, -16)}
    return {
        "truth": "leaky",
        "claim_epsilon": EPS,
        "claim_delta": 0.0,
        "true_epsilon": math.inf,
        "events_on_pair_6_2_2_vs_7_2_2": rows,
        "pointwise_log_ratio_at_x": pointwise,
        "note": "ln g(x)/g(x-1) = -1/b + e^{-x/b}(e^{1/b}-1) unbounded as x -> -inf",
    }


if __name__ == "__main__":
    print(compute())
