"""Round-3 Laplace-mechanism candidates (Dwork & Roth 2014, Def. 3.3 and Thm 3.6)."""

import numpy as np


def l2_norm_calibration(value, *, epsilon, per_coordinate_bound, rng):
    """Leaky: a d-bin histogram whose bins each move by at most ``per_coordinate_bound``; the scale is
    set from the L2 norm of that box (bound * sqrt(d)) where the Laplace mechanism needs the L1 norm
    (bound * d). With d = 4 the scale is half of what the claim needs."""
    query = np.asarray(value, dtype=float)
    scale = per_coordinate_bound * np.sqrt(query.size) / epsilon
    return query + rng.laplace(0.0, scale, query.shape)


def rounded_half_up_histogram(value, *, scale, sensitivity, rng):
    """Leaky: the (possibly fractional) bins are rounded half up to integers before the noise. Each bin
    can cross a rounding boundary on its own, so two inputs at L1 distance 0.04 can round to
    (0, 0) and (1, 1): L1 sensitivity 2 after rounding in two dimensions."""
    query = np.floor(np.asarray(value, dtype=float) + 0.5)
    return query + rng.laplace(0.0, scale, query.shape)


def rounded_half_up_scalar(value, *, scale, sensitivity, rng):
    """Private: a single count rounded half up, then Lap(scale) drawn as the difference of two
    exponentials. floor(x + 1/2) is monotone and moves by at most 1 when x moves by at most 1, so the
    sensitivity stays 1 in one dimension."""
    query = np.floor(np.asarray(value, dtype=float) + 0.5)
    noise = rng.exponential(scale, query.shape) - rng.exponential(scale, query.shape)
    return query + noise
