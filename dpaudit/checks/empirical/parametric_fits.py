"""The two fits of a noise family to a pair's outputs: centres estimated, or centres known (the inputs).

Each returns a lower confidence bound on the shift of the centres, an upper bound on the scale and
the fit test's p-value; :mod:`dpaudit.checks.empirical.parametric` turns them into a bound on the
privacy of the family at that corner.

References:
    Casella & Berger 2002, Sec. 9.2 (pivotal intervals); Massey 1951 (Kolmogorov–Smirnov);
    Hoeffding 1963 (the median's deviation).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit._lazy import lazy_module

stats = lazy_module("scipy.stats")

__all__ = ["fit_centred_pair", "fit_pair"]


def fit_centred_pair(
    first: np.ndarray, second: np.ndarray, centres: tuple[np.ndarray, np.ndarray], family: str, alpha: float
) -> tuple[float, float, float, dict[str, float]]:
    """Fit ``family`` with its centres known: the outputs are ``centres`` plus noise of one scale.

    Args:
        first, second: outputs (rows) on X and X'.
        centres: the centre of each side (the inputs, for a mechanism stated as y = X + noise).
        family: ``gaussian`` or ``laplace``.
        alpha: the error probability of the scale bound.

    Returns:
        ``(shift, scale_upper, fit_p_value, estimates)`` as :func:`fit_pair`, with the exact shift
        of the centres (L2 or L1) and a p-value that is the smaller of the KS test and the
        location test (Bonferroni-corrected), so a wrong centre rejects the fit.
    """
    n, dimension = first.shape
    residuals_by_side = (first - centres[0], second - centres[1])
    residuals = np.concatenate(residuals_by_side).ravel()
    count = residuals.size
    if family == "gaussian":
        variance = float(np.sum(residuals**2)) / count
        if not variance > 0:
            return 0.0, math.inf, 0.0, {"shift": 0.0, "scale": 0.0}
        scale_upper = math.sqrt(count * variance / stats.chi2.ppf(alpha, count))
        location = min(
            float(stats.chi2.sf(n * float(np.sum(side.mean(axis=0) ** 2)) / variance, dimension))
            for side in residuals_by_side
        )
        ks = float(stats.kstest(residuals / math.sqrt(variance), "norm").pvalue)
        shift = float(np.linalg.norm(centres[0] - centres[1]))
        scale = math.sqrt(variance)
    else:
        scale = float(np.sum(np.abs(residuals))) / count
        if not scale > 0:
            return 0.0, math.inf, 0.0, {"shift": 0.0, "scale": 0.0}
        scale_upper = scale * count / stats.gamma.ppf(alpha, count)
        location = min(
            float(stats.binomtest(int(np.count_nonzero(column > 0)), n, 0.5).pvalue)
            for side in residuals_by_side
            for column in side.T
        )
        ks = float(stats.kstest(residuals / scale, "laplace").pvalue)
        shift = float(np.abs(centres[0] - centres[1]).sum())
    tests = 2 * dimension if family == "laplace" else 2  # sign tests run per coordinate and side
    p_value = min(ks, min(1.0, tests * location))
    return shift, scale_upper, p_value, {"shift": shift, "scale": scale, "location_p_value": location}


def fit_pair(
    first: np.ndarray, second: np.ndarray, family: str, alpha: float
) -> tuple[float, float, float, dict[str, float]]:
    """Fit ``family`` to the outputs on both inputs of a pair.

    Args:
        first, second: outputs (rows) on X and X'.
        family: ``gaussian`` or ``laplace``.
        alpha: the error probability of the two bounds together.

    Returns:
        ``(shift_lower, scale_upper, fit_p_value, estimates)``: a lower confidence bound on the
        shift of the centres (L2 for Gaussian, L1 for Laplace), an upper bound on the scale
        (σ, or b), the KS p-value of the standardised residuals, and the point estimates.
    """
    n, dimension = first.shape
    if family == "gaussian":
        centres = first.mean(axis=0), second.mean(axis=0)
        residuals = np.concatenate([first - centres[0], second - centres[1]]).ravel()
        dof = 2 * (n - 1) * dimension
        variance = float(np.sum(residuals**2)) / dof
        if not variance > 0:  # a point mass: no Gaussian fits (an atom check sees it)
            return 0.0, math.inf, 0.0, {"shift": 0.0, "scale": 0.0}
        scale_upper = math.sqrt(dof * variance / stats.chi2.ppf(alpha / 2, dof))
        shift = float(np.linalg.norm(centres[0] - centres[1]))
        radius = scale_upper * math.sqrt(2.0 / n) * math.sqrt(stats.chi2.ppf(1 - alpha / 2, dimension))
        standardised = residuals / math.sqrt(variance)
        p_value = float(stats.kstest(standardised, "norm").pvalue)
        return max(shift - radius, 0.0), scale_upper, p_value, {"shift": shift, "scale": math.sqrt(variance)}
    centres = np.median(first, axis=0), np.median(second, axis=0)
    residuals = np.concatenate([first - centres[0], second - centres[1]]).ravel()
    count = residuals.size
    absolute = float(np.sum(np.abs(residuals)))
    scale = absolute / count
    if not scale > 0:  # a point mass: no Laplace law fits
        return 0.0, math.inf, 0.0, {"shift": 0.0, "scale": 0.0}
    scale_upper = absolute / stats.gamma.ppf(alpha / 2, count)
    shift = float(np.abs(centres[0] - centres[1]).sum())
    # A sample median of n Laplace(m, b) draws exceeds m + t only if n/2 draws do, each with
    # probability q = e^(-t/b) / 2; Hoeffding: P <= exp(-2n(1/2 - q)^2). Both tails, every
    # coordinate of both sides share alpha/2.
    each = alpha / (8 * dimension)
    gap = math.sqrt(math.log(1.0 / each) / (2.0 * n))
    if gap >= 0.5:
        return 0.0, scale_upper, float(stats.kstest(residuals / scale, "laplace").pvalue), {"shift": shift}
    deviation = -scale_upper * math.log(1.0 - 2.0 * gap)
    p_value = float(stats.kstest(residuals / scale, "laplace").pvalue)
    return max(shift - 2 * dimension * deviation, 0.0), scale_upper, p_value, {"shift": shift, "scale": scale}
