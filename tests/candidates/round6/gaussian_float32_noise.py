"""My Gaussian mechanism: f(X) + sigma N(0, I), with the normals drawn in float32 "for speed".

rng.standard_normal(..., dtype=np.float32) returns float32 values; the release is value (float64) + sigma * n
(sigma = 1: the product stays float32), computed exactly in float64.

BUG (floating point, Mironov 2012 style): every release on f(X) = 0 is a float32 number, while on f(X') = 1
the release 1 + n is not representable in float32 whenever n has bits below 2^-23 (|n| < 1/2 and so on):
P_X'(y is not a float32 value) = 0.433, P_X(.) = 0 (truth/truths.py, 2e6 draws). The event
{y not in float32} gives delta(eps) >= 0.433 for every eps, so at delta = 1e-5 the true epsilon is inf.
"""

import numpy as np


def gaussian(value, *, sigma, sensitivity, rng):
    x = np.asarray(value, dtype=np.float64)
    noise = rng.standard_normal(x.shape, dtype=np.float32)
    return x + sigma * noise


def _sample(value, n, *, sigma, sensitivity, rng):
    x = np.asarray(value, dtype=np.float64)
    noise = rng.standard_normal((n, *x.shape), dtype=np.float32)
    return x + sigma * noise


gaussian.sample = _sample
