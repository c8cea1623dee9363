"""Private median of bounded integer data (ages, scores in [lower, upper]) by the exponential
mechanism over the integer grid, sampled with the Gumbel-max trick.

Values are clamped to [lower, upper] *before* anything else.  For a candidate y the
utility is u(y) = -| #{i : x_i <= y} - n / 2 |.  Replacing one record changes the count
#{x_i <= y} by at most one and leaves n unchanged, so u has sensitivity 1 and

    y* = argmax_y ( epsilon * u(y) / 2 + G_y ),   G_y i.i.d. standard Gumbel,

samples P(y) proportional to exp(epsilon u(y) / 2): epsilon-DP (McSherry & Talwar 2007).
A standard Gumbel is -ln(E) with E a unit exponential.
"""

import numpy as np

_CHUNK = 8192


def _half_scores(values, epsilon, lower, upper):
    x = np.clip(np.asarray(values, dtype=float).ravel(), lower, upper)
    grid = np.arange(int(lower), int(upper) + 1)
    below_or_at = np.searchsorted(np.sort(x), grid, side="right")
    utility = -np.abs(below_or_at - x.size / 2.0)
    return grid, 0.5 * float(epsilon) * utility


def dp_median(values, *, epsilon, lower, upper, rng):
    grid, scores = _half_scores(values, epsilon, lower, upper)
    gumbel = -np.log(rng.standard_exponential(grid.size))
    return int(grid[int(np.argmax(scores + gumbel))])


def _dp_median_batch(values, n, *, epsilon, lower, upper, rng):
    grid, scores = _half_scores(values, epsilon, lower, upper)
    out = np.empty(int(n), dtype=np.int64)
    for start in range(0, int(n), _CHUNK):
        stop = min(int(n), start + _CHUNK)
        gumbel = -np.log(rng.standard_exponential((stop - start, grid.size)))
        out[start:stop] = grid[np.argmax(scores[None, :] + gumbel, axis=1)]
    return out


dp_median.sample = _dp_median_batch
