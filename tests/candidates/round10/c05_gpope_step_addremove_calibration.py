"""One Poisson-sampled noisy clipped gradient step, self-calibrated (round 10, candidate 05) -- LEAKY.

What it implements: one step of a GPOPE / DP-SGD style update.  Every record (row of per-record
gradients) is kept independently with probability q = 1/m, each kept row is clipped to L2 norm ``clip``,
the kept rows are summed and Gaussian noise clip * sigma * N(0, I) is added.  The user does not pass sigma:
the function computes the smallest sigma for a target (eps, delta) itself, with an exact one-step
accountant for the Poisson-subsampled Gaussian (both directions of the hockey-stick divergence in closed
form: the likelihood ratio of (1-q) N(0, s^2) + q N(1, s^2) against N(0, s^2) is monotone).

The bug: that accountant is the *add/remove-one* accountant (the pair "record present with a unit
gradient" vs "record absent"), the default of the DP-SGD libraries the user learnt it from, while the spec
(and the paper's relation) is replace-one: the record's gradient is replaced by another one, up to 2 clip
away, and the worst pair is (1-q) N(0) + q N(+1) against (1-q) N(0) + q N(-1) (in units of clip).

True epsilon at delta = 1e-5 with m = 4 (q = 1/4), target (1, 1e-5): the calibrated sigma is 1.7908; the
replace-one epsilon of that step is 1.2606 (26% over the claim), computed in closed form in
truth/truth_c05_gpope_step_addremove_calibration.py (the colinear antipodal pair is checked to be the worst
against other colinear pairs and, by a 2-D quadrature, against non-colinear ones).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.special import ndtr


def _add_remove_delta(eps: float, q: float, s: float) -> float:
    """max of the two hockey-stick divergences between (1-q) N(0,s^2) + q N(1,s^2) and N(0,s^2)."""
    # P = mixture (record present), Q = N(0, s^2): region p/q > e^eps is y > y1
    y1 = s * s * math.log((math.exp(eps) - 1.0 + q) / q) + 0.5
    d_pq = (1 - q) * ndtr(-y1 / s) + q * ndtr(-(y1 - 1.0) / s) - math.exp(eps) * ndtr(-y1 / s)
    # Q vs P: region p/q < e^-eps is y < y2 (only when e^-eps > 1 - q)
    d_qp = 0.0
    if math.exp(-eps) > 1.0 - q:
        y2 = s * s * math.log((math.exp(-eps) - 1.0 + q) / q) + 0.5
        d_qp = ndtr(y2 / s) - math.exp(eps) * ((1 - q) * ndtr(y2 / s) + q * ndtr((y2 - 1.0) / s))
    return max(float(d_pq), float(d_qp))


@functools.lru_cache(maxsize=64)
def calibrate_noise_multiplier(epsilon: float, delta: float, q: float) -> float:
    lo, hi = 1e-2, 1e2
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if _add_remove_delta(epsilon, q, mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def _clipped_rows(gradients, clip: float) -> np.ndarray:
    g = np.asarray(gradients, dtype=float)
    norms = np.linalg.norm(g, axis=1, keepdims=True)
    return g * np.minimum(1.0, clip / np.maximum(norms, 1e-300))


def noisy_step(gradients, *, epsilon, delta, clip, rng):
    rows = _clipped_rows(gradients, clip)
    m, d = rows.shape
    q = 1.0 / m
    sigma = calibrate_noise_multiplier(float(epsilon), float(delta), q)
    kept = rng.random(m) < q
    return rows[kept].sum(axis=0) + clip * sigma * rng.standard_normal(d)


def _noisy_step_many(gradients, n, *, epsilon, delta, clip, rng):
    rows = _clipped_rows(gradients, clip)
    m, d = rows.shape
    q = 1.0 / m
    sigma = calibrate_noise_multiplier(float(epsilon), float(delta), q)
    kept = (rng.random((n, m)) < q).astype(float)
    return kept @ rows + clip * sigma * rng.standard_normal((n, d))


noisy_step.sample = _noisy_step_many
