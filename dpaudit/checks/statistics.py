"""Exact binomial confidence bounds used by every Monte Carlo check."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from dpaudit._validation import check_integer, check_real

__all__ = ["clopper_pearson_lower", "clopper_pearson_upper", "epsilon_lower_bound"]


def clopper_pearson_lower(successes: int, trials: int, alpha: float) -> float:
    """One-sided Clopper–Pearson lower bound: P[p >= bound] >= 1 − alpha.

    References:
        Clopper & Pearson 1934; the bound is the alpha quantile of Beta(k, n − k + 1).
    """
    n = check_integer("trials", trials, low=1)
    k = check_integer("successes", successes, low=0, high=n)
    a = check_real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    if k == 0:
        return 0.0
    return float(stats.beta.ppf(a, k, n - k + 1))


def clopper_pearson_upper(successes: int, trials: int, alpha: float) -> float:
    """One-sided Clopper–Pearson upper bound: P[p <= bound] >= 1 − alpha.

    References:
        Clopper & Pearson 1934; the bound is the 1 − alpha quantile of Beta(k + 1, n − k).
    """
    n = check_integer("trials", trials, low=1)
    k = check_integer("successes", successes, low=0, high=n)
    a = check_real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    if k == n:
        return 1.0
    return float(stats.beta.isf(a, k + 1, n - k))


def epsilon_lower_bound(p_lower: float, q_upper: float, delta: float) -> float:
    """The ε implied by an event E with P[M(X) ∈ E] >= p_lower and P[M(X') ∈ E] <= q_upper.

    (ε, δ)-DP requires p <= e^ε q + δ, so any ε below ln((p_lower − δ) / q_upper) is
    refuted. Returns ``-inf`` when p_lower <= δ (the event refutes nothing) and ``inf``
    when q_upper is 0.
    """
    if p_lower <= delta:
        return -math.inf
    if q_upper <= 0.0:
        return math.inf
    return float(np.log((p_lower - delta) / q_upper))
