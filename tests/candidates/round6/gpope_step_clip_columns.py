"""My noisy GTD2 gradient step with per-record clipping and Poisson sampling (rate 1/m):
sum of the sampled clipped rows + clip_norm * sigma * N(0, I).

BUG (wrong axis): the norms are taken with np.linalg.norm(g, axis=0), i.e. per *column* (coordinate over
the records), not per row (record). Each column is scaled to norm <= h, so a record alone in its columns
is clipped coordinate-wise to [-h, h]: its norm can reach h sqrt(d), and every record's clipped value
depends on the others' through the column norms.

Witness (the spec's pair, d = 4, m = 4, h = 2, sigma = 1): record 4 = (50, 50, 50, 50) vs (-50, ..., -50),
the others zero: the clipped record is (2, 2, 2, 2) vs (-2, ..., -2), norm 4 = 2h. The release is
(3/4) N(0, 4 I) + (1/4) N(v, 4 I) vs the same with -v, |v| = 4; along v this is the 1-D pair
(1-q)N(0,4)+qN(4,4) vs (1-q)N(0,4)+qN(-4,4), q = 1/4, whose exact epsilon at delta = 1e-3 is 5.580
(truth/truths.py; the same computation gives 1.7533 for |v| = h, the correct step, the claim's 1.76).
True epsilon >= 5.580 at 1e-3.
"""

import numpy as np


def _clipped(gradients, clip_norm):
    g = np.asarray(gradients, dtype=float)
    norms = np.linalg.norm(g, axis=0, keepdims=True)
    return g / np.maximum(1.0, norms / clip_norm)


def gpope_step(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    clipped = _clipped(gradients, clip_norm)
    total = (rng.random(records) < 1.0 / records) @ clipped if sampling == "poisson" else clipped[rng.integers(records)]
    return total + clip_norm * noise_multiplier * rng.standard_normal(clipped.shape[1])


def _sample(gradients, n, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    clipped = _clipped(gradients, clip_norm)
    if sampling == "poisson":
        total = (rng.random((n, records)) < 1.0 / records) @ clipped
    else:
        total = clipped[rng.integers(records, size=n)]
    return total + clip_norm * noise_multiplier * rng.standard_normal((n, clipped.shape[1]))


gpope_step.sample = _sample
