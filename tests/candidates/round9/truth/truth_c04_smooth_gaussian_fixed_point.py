"""Truth for r9-c04 (smooth_gaussian, LEAKY): noise quantised to multiples of 2^-10.

Bug: the release is theta + round(1024 alpha S Z)/1024. The noise lies on the grid 2^-10 Z^d, so the
release lies on theta + 2^-10 Z^d: the fractional part of 1024 theta is published exactly. This is
not post-processing of a Gaussian release (the rounding is applied to the noise before theta is
added): for neighbours whose theta differ by a non-multiple of 2^-10 the supports are disjoint.

Witness (Lemma 1's relation with eps = 1, delta = 0.01, d = 2, beta/2 = 0.0171):
theta = (0, 0), S = 1  vs  theta' = (0.3, 0), S' = 1: ||theta - theta'|| = 0.3 <= min(S, S') = 1.
Under theta every release has 1024 y_1 an integer; under theta' never (0.3 * 1024 = 307.2 and the
float sums 0.3 + k/1024 never land on the grid, checked below on 200000 draws each side).
The event {1024 y_1 is an integer} has probability 1 vs 0: true epsilon = inf.
On dyadic pairs (theta - theta' in 2^-10 Z^d, e.g. the spec's (0,0) vs (0.5,0.5)) the release is a
post-processing of the exact smooth-Gaussian release and as private as the reference.
"""

import _paths  # noqa: F401
import c04_smooth_gaussian_fixed_point as cand
import numpy as np


def result(n=200000):
    rng = np.random.default_rng(4)
    kw = dict(epsilon=1.0, delta=0.01, dim=2)
    a = cand.smooth_gaussian.sample({"theta": [0.0, 0.0], "smooth_bound": 1.0}, n, rng=rng, **kw)
    b = cand.smooth_gaussian.sample({"theta": [0.3, 0.0], "smooth_bound": 1.0}, n, rng=rng, **kw)
    on_grid = lambda y: float(np.mean((y[:, 0] * 1024.0) == np.round(y[:, 0] * 1024.0)))  # noqa: E731
    return {
        "name": "r9-c04-smooth-gaussian-fixed-point",
        "truth": "leaky",
        "claim": (1.0, 0.01),
        "P_X(on grid)": on_grid(a),
        "P_X'(on grid)": on_grid(b),
        "true_epsilon": float("inf"),
    }


if __name__ == "__main__":
    print(result())
