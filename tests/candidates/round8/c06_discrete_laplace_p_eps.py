"""r8-c06 (laplace, LEAKY, subtle): a discrete Laplace (two-sided geometric) for integer counts whose
geometric success probability is p = eps / sensitivity, the first-order approximation of 1 - e^(-eps).

``geometric_count(count, *, epsilon, rng)``: noise = G1 - G2 with G1, G2 ~ Geometric(p) i.i.d. (numpy's
geometric: support 1, 2, ...).  The correct parameter is p = 1 - e^(-eps) (so that P(k) is proportional
to e^(-eps |k|)); the engineer wrote ``p = epsilon`` ("1 - e^-x ~ x for small x").

Claim: (0.3, 0)-DP for integer counts with sensitivity 1 (the reference: a Laplace mechanism of scale
1/0.3, which the correct discrete version matches in privacy).

Truth.  P(G1 - G2 = k) is proportional to (1 - p)^|k|, so for integer inputs one apart the likelihood
ratio is at most 1 / (1 - p) and attains it at every output on the far side: epsilon = -ln(1 - 0.3) =
0.356675 > 0.3 claimed (+18.9%), delta = 0.  Witness: f(X) = 10, f(X') = 11, any output <= 10.
"""

import numpy as np


def geometric_count(count, *, epsilon, rng):
    x = np.asarray(count, dtype=np.int64)
    p = float(epsilon)  # ~ 1 - exp(-epsilon)
    noise = rng.geometric(p, size=x.shape) - rng.geometric(p, size=x.shape)
    return (x + noise).astype(np.int64)


def _many(count, n, *, epsilon, rng):
    x = np.asarray(count, dtype=np.int64)
    p = float(epsilon)
    shape = (n, *x.shape)
    return (x + rng.geometric(p, size=shape) - rng.geometric(p, size=shape)).astype(np.int64)


geometric_count.sample = _many
