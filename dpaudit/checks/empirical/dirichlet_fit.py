"""The Dirichlet family of the parametric audit: y ~ Dir(k p) with the input p known, k unknown.

Implementations of the Dirichlet mechanism (Gohari et al. 2020, Def. 1) get the concentration
wrong in ways an event cannot resolve from a feasible sample (k + 1, k per coordinate, k read
as a rate): a few percent more concentration raises ε by a few percent. Under the family
assumption, every output row tells about k: the maximum-likelihood estimate pooled over both
inputs of a pair, with a likelihood-ratio confidence interval (asymptotic χ²₁, Wilks), pins k
down to a fraction of a percent from 10^5 draws. The least private k of the interval gives a
lower bound on δ(ε) of the pair through the exact Beta reduction; the fit is tested by
Kolmogorov–Smirnov on the pair's Beta marginal. A ``violated`` reads "violated under
assumption: Dirichlet(k p) noise, asymptotic interval".

References:
    Gohari et al. 2020, Def. 1 and Sec. II-D (Beta reduction); Wilks 1938 (likelihood-ratio
    intervals); Minka 2000, "Estimating a Dirichlet distribution" (the likelihood).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpaudit._lazy import lazy_module
from dpaudit.privacy.dirichlet_pair import BetaPair, beta_pair_delta, dirichlet_pair

optimize, special, stats = lazy_module("scipy.optimize"), lazy_module("scipy.special"), lazy_module("scipy.stats")

__all__ = ["DirichletFit", "fit_dirichlet_pair", "least_private_delta"]

_FLOOR = 1e-300


@dataclass(frozen=True)
class DirichletFit:
    """The concentration of a pair's outputs under y ~ Dir(k p).

    Attributes:
        k: the pooled maximum-likelihood estimate.
        k_lower, k_upper: the likelihood-ratio interval at the requested level.
        p_value: the smaller KS p-value of the two sides' Beta marginals at ``k``.
        coordinates: (i, j), where the inputs differ (the Beta marginal tested).
    """

    k: float
    k_lower: float
    k_upper: float
    p_value: float
    coordinates: tuple[int, int]


def _log_likelihood(k: float, sums: list[tuple[tuple[np.ndarray, np.ndarray], int]]) -> float:
    """Σ over sides of n (lnΓ(k) − Σ lnΓ(k p_i)) + Σ_i (k p_i − 1) Σ_rows ln y_i; sums = [(p ⊙ Σ ln y, n)]."""
    total = 0.0
    for (p, log_sums), n in sums:
        total += n * (special.gammaln(k) - float(np.sum(special.gammaln(k * p)))) + float(
            np.sum((k * p - 1) * log_sums)
        )
    return total


def fit_dirichlet_pair(
    first: np.ndarray, second: np.ndarray, p: np.ndarray, q: np.ndarray, alpha: float
) -> DirichletFit | None:
    """Fit Dir(k p), Dir(k q) with a common k to the outputs on p and q; ``None`` when the rows
    are not on the simplex (no Dirichlet law fits)."""
    rows = (first, second)
    if any(r.ndim != 2 or r.shape[1] != p.size or np.any(r < 0) for r in rows) or any(
        np.max(np.abs(r.sum(axis=1) - 1.0)) > 1e-6 for r in rows
    ):
        return None
    sums = [
        ((inputs, np.log(np.maximum(r, _FLOOR)).sum(axis=0)), r.shape[0]) for inputs, r in ((p, first), (q, second))
    ]

    def negative(log_k: float) -> float:
        return -_log_likelihood(math.exp(log_k), sums)

    best = optimize.minimize_scalar(negative, bounds=(math.log(1e-3), math.log(1e7)), method="bounded")
    log_k = float(best.x)
    peak = -float(best.fun)
    cut = stats.chi2.ppf(1.0 - alpha, 1) / 2.0

    def excess(value: float) -> float:
        return peak - _log_likelihood(math.exp(value), sums) - cut

    low = optimize.brentq(excess, math.log(1e-3), log_k) if excess(math.log(1e-3)) > 0 else math.log(1e-3)
    high = optimize.brentq(excess, log_k, math.log(1e7)) if excess(math.log(1e7)) > 0 else math.log(1e7)
    k = math.exp(log_k)
    _, (i, j) = dirichlet_pair(p, q, 1.0)
    p_values = []
    for inputs, r in ((p, first), (q, second)):
        ratio = r[:, i] / np.maximum(r[:, i] + r[:, j], _FLOOR)
        p_values.append(float(stats.kstest(ratio, "beta", args=(k * inputs[i], k * inputs[j])).pvalue))
    return DirichletFit(k, math.exp(low), math.exp(high), min(p_values), (i, j))


def least_private_delta(epsilon: float, p: np.ndarray, q: np.ndarray, fit: DirichletFit, points: int = 9) -> float:
    """The smallest exact δ(ε) of the pair over k in the fit's interval (both orders of the pair),
    evaluated at the interval's ends and ``points`` − 2 interior points (a lower bound on δ at the
    true k when it lies in the interval and δ varies monotonically between the points)."""
    grid = np.geomspace(fit.k_lower, fit.k_upper, points)
    smallest = math.inf
    for k in grid:
        forward, _ = dirichlet_pair(p, q, float(k))
        backward = BetaPair(forward.a_q, forward.b_q, forward.a_p, forward.b_p)
        worst = max(float(beta_pair_delta(epsilon, pair, digits=50).lower) for pair in (forward, backward))
        smallest = min(smallest, worst)
    return smallest
