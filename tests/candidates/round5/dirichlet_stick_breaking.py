"""Dirichlet mechanism Dir(k p) by stick breaking with Beta draws (same law as normalised Gammas)."""

import numpy as np


def dirichlet_noise(prob, rng, concentration):
    a = concentration * np.asarray(prob, dtype=float)
    out = np.empty(len(a))
    remaining = 1.0
    for i in range(len(a) - 1):
        frac = rng.beta(a[i], a[i + 1 :].sum())
        out[i] = remaining * frac
        remaining -= out[i]
    out[-1] = remaining
    return out
