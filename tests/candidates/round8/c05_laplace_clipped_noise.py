"""r8-c05 (laplace, LEAKY, blatant): Laplace noise clipped to +-6 scales "to keep outliers out".

The engineer's downstream dashboard choked on rare huge noisy counts, so the noise is clamped:

    noise = clip(Laplace(0, b), -6 b, 6 b)

Claim: (1, 0)-DP with scale b = 1 and L1 sensitivity 1 (the unclipped mechanism's claim).

Truth.  Clipping the *noise* (not the output) puts an atom of mass P(Lap(b) >= 6 b) = e^-6 / 2 = 1.2394e-3
at f(X) + 6 b (and at f(X) - 6 b).  For f(X) = 0, f(X') = 1: the output 6 has probability 1.2394e-3 under X
and 0 under X' (there 6 = f(X') + 5 is an interior point of a continuous law).  epsilon = inf at delta = 0;
equivalently delta(eps) >= 1.2394e-3 for every eps.  (Clamping the *output* to a public range would
have been post-processing.)  truth/truth.py states the atom's mass.
"""

import numpy as np

CLIP_IN_SCALES = 6.0


def laplace(value, *, scale, sensitivity, rng):
    x = np.asarray(value, dtype=float)
    noise = rng.laplace(0.0, scale, size=x.shape)
    return x + np.clip(noise, -CLIP_IN_SCALES * scale, CLIP_IN_SCALES * scale)
