"""r8-c02 (gaussian, LEAKY, subtle): the classic Gaussian calibration with log10 in place of ln.

The engineer calibrates sigma = Delta sqrt(2 ln(1.25 / delta)) / epsilon (Dwork & Roth 2014, Theorem A.1)
but writes ``np.log10`` (copied from a spreadsheet where LOG is base 10):

    sigma = Delta * sqrt(2 * log10(1.25 / delta)) / epsilon

Claim: (1, 1e-5)-DP for L2 sensitivity 1 (what the correct code, sigma = 4.8448, claims; its exact
epsilon at 1e-5 is 0.751, so the classic bound has slack).

Truth.  With log10, sigma = sqrt(2 * 5.0969) = 3.1928, i.e. mu = Delta / sigma = 0.31321; the exact
epsilon of the Gaussian mechanism at delta = 1e-5 (Balle & Wang 2018, Theorem 8: delta(eps) =
Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)) is 1.18675 > 1 claimed (+18.7%).  Witness: any pair
with ||f(X) - f(X')||_2 = 1, e.g. f(X) = 0, f(X') = 1.  truth/truth.py computes it.
"""

import numpy as np


def _sigma(epsilon, delta, sensitivity):
    return sensitivity * np.sqrt(2.0 * np.log10(1.25 / delta)) / epsilon


def gaussian_mech(x, *, epsilon, delta, sensitivity, rng):
    x = np.asarray(x, dtype=float)
    return x + rng.normal(0.0, _sigma(epsilon, delta, sensitivity), size=x.shape)


def _many(x, n, *, epsilon, delta, sensitivity, rng):
    x = np.asarray(x, dtype=float)
    return x + rng.normal(0.0, _sigma(epsilon, delta, sensitivity), size=(n, *x.shape))


gaussian_mech.sample = _many
