"""r8-c04 (laplace, PRIVATE): an epsilon-parameterised Laplace mechanism sampled by the inverse CDF.

``laplace_release(true_answer, *, eps, l1_sensitivity, rng)``: b = l1_sensitivity / eps, and per
coordinate u ~ U(-1/2, 1/2), noise = -b sign(u) ln(1 - 2|u|) (the inverse of the Laplace CDF), computed
as -b sign(u) log1p(-2|u|) in float64; a draw with 2|u| = 1 (probability 2^-53) is replaced by u = 0.
Vectorised ``sample`` draws the whole (n, d) block at once.

Claim: (0.8, 0)-DP for ||f(X) - f(X')||_1 <= 2 (reference scale 2.5).

Truth.  If U ~ U(-1/2, 1/2) then -b sign(U) ln(1 - 2|U|) ~ Laplace(0, b): P(|noise| > t) = P(1 - 2|U| <
e^(-t/b)) = e^(-t/b), and the sign is symmetric.  So the release is f(X) + Lap(b)^d with b = 2.5 and
L1 sensitivity 2: exactly 2/2.5 = 0.8-DP (Dwork & Roth 2014, Thm 3.6).  Private (in real arithmetic;
the float64 grid of u affects events of probability ~2^-53 only).
"""

import numpy as np


def _noise(shape, scale, rng):
    u = rng.random(shape) - 0.5
    u = np.where(2.0 * np.abs(u) >= 1.0, 0.0, u)
    return -scale * np.sign(u) * np.log1p(-2.0 * np.abs(u))


def laplace_release(true_answer, *, eps, l1_sensitivity, rng):
    x = np.asarray(true_answer, dtype=np.float64)
    return x + _noise(x.shape, l1_sensitivity / eps, rng)


def _laplace_release_many(true_answer, n, *, eps, l1_sensitivity, rng):
    x = np.asarray(true_answer, dtype=np.float64)
    return x + _noise((n, *x.shape), l1_sensitivity / eps, rng)


laplace_release.sample = _laplace_release_many
