"""r8-c01 (gaussian, PRIVATE): a Gaussian mechanism whose normals come from the Box-Muller transform.

The engineer did not want to depend on numpy's normal sampler (a port of C code that used its own
sampler), so the noise is built from two uniforms of the given ``rng``:

    r = sqrt(-2 ln u1),  theta = 2 pi u2,  z1 = r cos(theta), z2 = r sin(theta)

with u1 = 1 - rng.random() in (0, 1] (so the log is finite) and u2 = rng.random() in [0, 1).
z1 and z2 are independent N(0, 1) (Box & Muller 1958); the per-call entry point uses z1 of each pair, the
vectorised ``sample`` uses both halves of every pair (still i.i.d. N(0, 1)).  All arithmetic in float64.

Truth.  The release is f(X) + sigma N(0, I) with sigma = 1 and ||f(X) - f(X')||_2 <= 1: the Gaussian
mechanism with mu = Delta / sigma = 1, whose exact epsilon at delta = 1e-5 is 4.37718 (Balle & Wang 2018,
Theorem 8; truth/truth.py recomputes it) <= 4.38 claimed.  Float caveat: the largest |z| is
sqrt(-2 ln 2^-53) = 8.57, so the tails beyond 8.57 sigma are missing; that changes delta by < 1e-16,
far below delta = 1e-5.  Private.
"""

import numpy as np


def _box_muller_pairs(pairs, rng):
    u1 = 1.0 - rng.random(pairs)  # (0, 1]
    u2 = rng.random(pairs)
    radius = np.sqrt(-2.0 * np.log(u1))
    angle = 2.0 * np.pi * u2
    return radius * np.cos(angle), radius * np.sin(angle)


def gaussian(value, *, sigma, sensitivity, rng):
    x = np.asarray(value, dtype=np.float64)
    z, _ = _box_muller_pairs(x.size, rng)
    return x + sigma * z.reshape(x.shape)


def _sample(value, n, *, sigma, sensitivity, rng):
    x = np.asarray(value, dtype=np.float64)
    total = n * x.size
    half = (total + 1) // 2
    z1, z2 = _box_muller_pairs(half, rng)
    z = np.concatenate([z1, z2])[:total].reshape((n, *x.shape))
    return x + sigma * z


gaussian.sample = _sample
